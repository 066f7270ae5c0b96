"""A file kvlint could not read: the readers report it, this module documents it.

## What it checks
A file that looks like a deployment input but cannot be parsed: a YAML syntax error, a binary file,
an alias bomb, a file over the size limit, or text that is not UTF-8. The finding points at the
place the parser stopped and says why.

## Why it matters
A manifest kvlint cannot parse is one it cannot check: silence would read as "all clear". A YAML
syntax error is usually also a file `kubectl apply` or `helm install` would reject.

## Example
```yaml
args:
  - --max-model-len
   - "8192"        # bad indentation
```

## Use instead
Fix the syntax (the message gives line and column), or exclude the file in `.kvlint.yaml`
(`exclude: [path/glob]`) when it is not a deployment file (a Helm template with `{{ }}`).

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("KV001", "unreadable-input", Severity.ERROR, "A file could not be parsed (syntax error, binary, too large).",
      source="reader")
def check(ctx: Context) -> Iterator[Finding]:
    return iter(())
