"""A suppression comment that suppresses nothing, or names a rule that does not exist.

## What it checks
With `--show-unused-suppressions`: `# kvlint: ignore[...]` comments whose codes matched no finding
on their line or the next, `# kvlint: disable-file` in a file with no findings, and directives that
name unknown rules or are malformed (`# kvlint: ignore KV103` without brackets).

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
None. Reported only with `--show-unused-suppressions`.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("KV006", "unused-suppression", Severity.WARNING,
      "A kvlint suppression comment that suppresses nothing or is malformed.", source="suppress")
def check(ctx: Context) -> Iterator[Finding]:
    return iter(())
