"""`kvlint rules` (the catalogue) and `kvlint rule CODE` (one rule's docs).

docs/rules.md is `kvlint rules --format markdown`; a test regenerates it and fails when the committed
file is stale, so the rule docs live in one place: each rule's module docstring.
"""

from __future__ import annotations

import json

import click

from kvlint.registry import all_rules, get_rule
from kvlint.ruledocs import catalogue_markdown, rule_json, rule_markdown


@click.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text",
              show_default=True)
def rules_command(fmt: str) -> None:
    """List every rule: code, name, default severity and what it checks."""
    rules = all_rules()
    if fmt == "markdown":
        click.echo(catalogue_markdown(), nl=False)
    elif fmt == "json":
        click.echo(json.dumps({"version": 1, "rules": [rule_json(r) for r in rules]}, indent=2))
    else:
        for r in rules:
            click.echo(f"{r.code}  {r.name:<30} {str(r.severity):<8} {r.summary}")


@click.command("rule")
@click.argument("code")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text",
              show_default=True)
def rule_command(code: str, fmt: str) -> None:
    """Show one rule's documentation (by code, KV101, or name, pool-below-one-request)."""
    rule = get_rule(code)
    if fmt == "json":
        click.echo(json.dumps(rule_json(rule), indent=2))
    else:
        click.echo(rule_markdown(rule, level=1), nl=False)
