"""How many of the Hugging Face ids real deployments name kvlint knows offline (issue M).

Reads `../shared/models/model-ids.tsv` (one id a line, `sources_count` = how many public repositories name
it) and resolves every id the way `kvlint check` does offline, with an empty Hugging Face cache and no
lock: bundled, by alias, or derived from a bundled base. Reports the share known weighted by repositories,
unweighted, and among ids named by two or more repositories, how many resolve but carry a context-length
doubt (sized only when every candidate length gives the same verdict), and how many are refused outright.

    python bench/model_coverage.py [--tsv PATH] [--list known|doubt|unknown] [--json]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TSV = HERE.parent.parent / "shared" / "models" / "model-ids.tsv"


def classify(model_id: str) -> tuple[str, str]:
    """(known | doubt | unknown, how): doubt = resolves, but the length rests on a config kvlint lacks."""
    from kvlint.errors import UnknownModelError
    from kvlint.models.resolve import resolve_model, source_kind

    try:
        spec = resolve_model(model_id, online=False)
    except UnknownModelError:
        return "unknown", "-"
    kind = source_kind(spec)
    if "by alias of" in spec.source:
        kind = "alias"
    return ("doubt" if spec.length_unknown is not None else "known"), kind


def read_ids(path: Path) -> list[tuple[str, int]]:
    with path.open(encoding="utf-8") as handle:
        return [(row["id"], int(row["sources_count"])) for row in csv.DictReader(handle, delimiter="\t")]


def measure(rows: list[tuple[str, int]]) -> dict[str, object]:
    results = {model_id: classify(model_id) for model_id, _ in rows}
    weight = sum(n for _, n in rows)
    multi = [(i, n) for i, n in rows if n >= 2]

    def share(subset: list[tuple[str, int]], states: tuple[str, ...], weighted: bool) -> float:
        total = sum(n if weighted else 1 for _, n in subset)
        hit = sum(n if weighted else 1 for i, n in subset if results[i][0] in states)
        return round(100.0 * hit / total, 1) if total else 0.0

    return {
        "ids": len(rows), "mentions": weight, "ids_named_by_2+": len(multi),
        "known_weighted_pct": share(rows, ("known",), True),
        "known_unweighted_pct": share(rows, ("known",), False),
        "known_2+_pct": share(multi, ("known",), False),
        "known_2+_weighted_pct": share(multi, ("known",), True),
        "known_or_doubt_weighted_pct": share(rows, ("known", "doubt"), True),
        "known_or_doubt_unweighted_pct": share(rows, ("known", "doubt"), False),
        "known_or_doubt_2+_pct": share(multi, ("known", "doubt"), False),
        "length_doubt_ids": sum(1 for s, _ in results.values() if s == "doubt"),
        "length_doubt_mentions": sum(n for i, n in rows if results[i][0] == "doubt"),
        "how": dict(Counter(how for s, how in results.values() if s != "unknown")),
        "results": results,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsv", type=Path, default=DEFAULT_TSV)
    parser.add_argument("--list", choices=("known", "doubt", "unknown"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.tsv.is_file():
        print(f"no {args.tsv}", file=sys.stderr)
        return 2
    rows = read_ids(args.tsv)
    with tempfile.TemporaryDirectory() as empty:  # no Hugging Face cache: what a fresh CI runner knows
        os.environ["HF_HUB_CACHE"] = empty
        os.environ["HF_HUB_OFFLINE"] = "1"
        report = measure(rows)
    results = report.pop("results")
    assert isinstance(results, dict)
    if args.list:
        counts = dict(rows)
        for model_id, (state, how) in sorted(results.items(), key=lambda kv: (-counts[kv[0]], kv[0])):
            if state == args.list:
                print(f"{counts[model_id]}\t{model_id}\t{how}")
        return 0
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{report['ids']} ids, {report['mentions']} repository mentions, {report['ids_named_by_2+']} named by >= 2")
    print(f"known (sized):            {report['known_weighted_pct']}% weighted by repositories, "
          f"{report['known_unweighted_pct']}% of ids, {report['known_2+_pct']}% of ids named by >= 2 "
          f"({report['known_2+_weighted_pct']}% of their mentions)")
    print(f"known incl. length candidates: {report['known_or_doubt_weighted_pct']}% weighted, "
          f"{report['known_or_doubt_unweighted_pct']}% of ids, {report['known_or_doubt_2+_pct']}% of ids named by >= 2")
    print(f"resolved, length carried as candidates (sized where every candidate gives the verdict): "
          f"{report['length_doubt_ids']} ids, {report['length_doubt_mentions']} mentions")
    print(f"how: {report['how']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
