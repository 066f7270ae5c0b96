"""Join every warning and error `kvlint check` gives on the reviewed samples with the reviewer's verdicts.

Usage: python bench/reviewer_count.py [--corpus DIR] [--fresh DIR] [--table TSV ...] [--unjudged OUT]

Runs `python -m kvlint check <sample> --format json --exit-zero` (no other flag) from inside each sample's
folder: ../shared/corpus ("corpus") and FRESH/A, FRESH/B, FRESH/C. Each warning and error is looked up by
(sample, path, line, code, severity) in the tables (a finding whose severity changed is a new finding to judge): bench/reviewer-table-2.tsv (columns sample, file, line, code,
severity, verdict, why), bench/reviewer-table-C.tsv (file is `fresh/C/<path>`, no sample column) and any
later table in the first layout (bench/reviewer-table-N2.tsv). A later table's verdict wins over an earlier
one's. Prints true / noise / wrong per sample and the share true; a finding with no verdict is listed as
`unjudged` (and written to --unjudged as rows to fill in).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = ["reviewer-table-2.tsv", "reviewer-table-C.tsv", "reviewer-table-N2.tsv"]
Key = tuple[str, str, int, str, str]


def _load(paths: list[str]) -> dict[Key, tuple[str, str]]:
    verdicts: dict[Key, tuple[str, str]] = {}
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path, newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                sample = row.get("sample")
                name = row["file"]
                if not sample:
                    _, sample, name = name.split("/", 2)
                key = (sample, name, int(row["line"]), row["code"], row["severity"])
                verdicts[key] = (row["verdict"], row["why"])
    return verdicts


def _findings(folder: str) -> list[dict[str, object]]:
    run = subprocess.run(
        [sys.executable, "-m", "kvlint", "check", ".", "--format", "json", "--exit-zero"],
        cwd=folder, capture_output=True, text=True, check=False,
    )
    report = json.loads(run.stdout)
    return [f for f in report["findings"] if f["severity"] in ("warning", "error")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=os.path.join(HERE, "..", "..", "shared", "corpus"))
    parser.add_argument("--fresh", default="/work/fresh")
    parser.add_argument("--table", action="append", default=None)
    parser.add_argument("--unjudged")
    args = parser.parse_args()
    verdicts = _load(args.table or [os.path.join(HERE, name) for name in TABLES])
    samples = {"corpus": args.corpus, **{s: os.path.join(args.fresh, s) for s in "ABC"}}
    samples = {s: folder for s, folder in samples.items() if os.path.isdir(folder)}  # a sample not kept: skipped
    totals: Counter[str] = Counter()
    missing: list[list[str]] = []
    for sample, folder in samples.items():
        counts: Counter[str] = Counter()
        for finding in _findings(folder):
            span = finding["span"]
            assert isinstance(span, dict)
            path = str(finding["path"]).removeprefix("./")
            key = (sample, path, int(span["line"]), str(finding["code"]), str(finding["severity"]))
            verdict, _ = verdicts.get(key, ("unjudged", ""))
            counts[verdict] += 1
            print(f"{sample}\t{path}:{span['line']}\t{finding['code']}\t{finding['severity']}\t{verdict}")
            if verdict == "unjudged":
                missing.append([sample, path, str(span["line"]), str(finding["code"]),
                                str(finding["severity"]), "", str(finding["message"])])
        totals.update(counts)
        _line(sample, counts)
    _line("all", totals)
    if args.unjudged:
        with open(args.unjudged, "w", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
            writer.writerow(["sample", "file", "line", "code", "severity", "verdict", "why"])
            writer.writerows(missing)


def _line(sample: str, counts: Counter[str]) -> None:
    judged = counts["true"] + counts["noise"] + counts["wrong"]
    share = 100 * counts["true"] / judged if judged else 0.0
    extra = f" unjudged {counts['unjudged']}" if counts["unjudged"] else ""
    print(f"== {sample}: true {counts['true']} noise {counts['noise']} wrong {counts['wrong']}"
          f" of {judged} ({share:.1f} %){extra}")


if __name__ == "__main__":
    main()
