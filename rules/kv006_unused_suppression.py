"""A suppression comment that suppresses nothing, or names a rule that does not exist.

## What it checks
Always: kvlint comments that are malformed or name unknown rules (`# kvlint: ignore KV103` without
brackets, `# kvlint: ignore[KV999]`, `# kvlint: disable-line[...]`), and a `kvlint.io/ignore`
annotation on a pod template's metadata, where kvlint does not read it. With
`--show-unused-suppressions`, also: `# kvlint: ignore[...]` comments whose codes matched no finding on
the lines they cover, and `# kvlint: disable-file` in a file with no findings.

## Why it matters
Stale suppressions hide the next real finding on that line; misspelt ones suppress nothing while
the author believes they do.

## Example
```yaml
- --max-model-len=8192   # kvlint: ignore[KV101] nothing fires here any more
```

## Use instead
Delete the comment, or fix its spelling: `# kvlint: ignore[KV103] reason`.

## Options
None. Unused (well-formed) suppressions are reported only with `--show-unused-suppressions`.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("KV006", "unused-suppression", Severity.WARNING,
      "A kvlint suppression comment that suppresses nothing or is malformed.", source="suppress")
def check(ctx: Context) -> Iterator[Finding]:
    return iter(())
