#!/usr/bin/env python3
"""Start a new rule the way ruff's add_rule.py does: the module, its two fixtures, and the docs entry.

    python scripts/new_rule.py KV109 context-over-gateway-limit warning "What the rule finds, in one line."

Writes rules/kv109_context_over_gateway_limit.py (docstring sections to fill in, a check that yields
nothing yet), tests/fixtures/rules/KV109/{bad,good}.sh (the bad one with an `# expect:` marker to
place), regenerates docs/rules.md, and prints what is left to do. Refuses to overwrite anything.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

MODULE = '''"""{summary}

## What it checks
TODO: what the rule reads and when it fires.

## Why it matters
TODO: what goes wrong in production when this is ignored.

## Example
```
TODO: a launch that fires
```

## Use instead
TODO: the fix, with the flag as the engine spells it.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule


@rule("{code}", "{name}", Severity.{severity}, "{summary}", needs=("model",))
def check(ctx: Context) -> Iterator[Finding]:
    """TODO: the condition; then yield check.rule.finding(ctx, message, span, fix=..., **numbers)
    (kvlint.rules._common spells flags and numbers the way the engine does)."""
    return iter(())
'''

BAD = "#!/bin/sh\n# TODO: a launch the rule fires on; put the marker on its line: # expect: {code}@<col>\n"
GOOD = "#!/bin/sh\n# TODO: the same launch, fixed: no marker\nvllm serve Qwen/Qwen3-8B --max-model-len 8192\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("code", help="KVnnn, unused")
    parser.add_argument("name", help="kebab-case, reads as 'allow <name>'")
    parser.add_argument("severity", choices=["error", "warning", "info"])
    parser.add_argument("summary", help="one line")
    parser.add_argument("--repo", type=Path, default=REPO, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    repo: Path = args.repo
    if not re.fullmatch(r"KV\d{3}", args.code) or not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", args.name):
        parser.error("code must be KVnnn and name kebab-case")
    module = repo / "rules" / f"{args.code.lower()}_{args.name.replace('-', '_')}.py"
    fixtures = repo / "tests" / "fixtures" / "rules" / args.code
    taken = list((repo / "rules").glob(f"{args.code.lower()}_*.py"))
    if taken or fixtures.exists():
        parser.error(f"{args.code} is taken ({', '.join(p.name for p in taken) or fixtures})")
    summary = args.summary.replace('"', "'")
    module.write_text(MODULE.format(code=args.code, name=args.name, severity=args.severity.upper(), summary=summary))
    fixtures.mkdir(parents=True)
    (fixtures / "bad.sh").write_text(BAD.format(code=args.code))
    (fixtures / "good.sh").write_text(GOOD)
    docs = subprocess.run([sys.executable, "-m", "kvlint", "rules", "--format", "markdown"], cwd=repo,
                          capture_output=True, text=True, check=True).stdout
    (repo / "docs" / "rules.md").write_text(docs)
    print(f"wrote {module.relative_to(repo)}, {fixtures.relative_to(repo)}/bad.sh and good.sh, docs/rules.md\n"
          f"left: the docstring sections, the check, the fixtures' launches and markers, README's rule table, "
          f"the SARIF golden (KVLINT_UPDATE_GOLDEN=1 python -m pytest tests/report), CHANGELOG.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
