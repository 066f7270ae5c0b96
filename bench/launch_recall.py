"""Launch recall and precision of kvlint's readers on a hand-counted sample of files.

Usage: python bench/launch_recall.py INDEX FOLDER [--direct] [--no-check] [--json OUT]

INDEX is a tab-separated file with a header: repo, commit, path, format, hand_count, launches, notes.
Each row's file is FOLDER/<owner>__<repo>/<path>. `launches` lists the launches a careful reader
counts, separated by ';', each `LINES:engine:model`, where LINES is one or more comma-separated line
numbers or ranges (`12`, `8-9`, `54,7`): the line of the engine command and/or of the model value.
The counting rules are in bench/fresh-samples.md.

What is measured (kvlint is run in-process, with whatever checkout the interpreter imports):
- found: the launches (Deployment records) `kvlint.launches.read_path` returns for the file. By default
  only files the folder walk (`kvlint.launches.iter_files`) yields for reading are read, as
  `kvlint check FOLDER` would; a file the walk skips finds nothing. `--direct` reads every file.
  A deployment kvlint marks `disabled` (its own entry says `enabled: false`: audited, its findings infos, but
  no engine is deployed as written) is not a found launch, as it is none by the counting rules. The
  configurations one command's `if` / `case` / `for` arms give (Deployment.one_of_arms, from turn 32: kvlint
  reports them as one launch in N configurations) are one found launch, as the counting rules count that command.
- a found launch MATCHES a hand launch when one of its lines (the model value's line, or any line of
  the engine command's span) lies within one of the hand launch's lines or ranges widened by 3 lines
  on each side (multi-line commands: the command line, the flag and the model value can be a few
  lines apart). Engines are not compared. Matching is one-to-one (maximum bipartite matching), so a
  deployment counted twice (leader and worker) gives one match and one spurious launch.
- missed: hand launches left unmatched; spurious: found launches left unmatched.
- silent: a miss in a file that got no launch AND no finding at all (the readers' findings, plus,
  unless --no-check, every finding `python -m kvlint check FOLDER --format json --exit-zero` reports
  for that file).
Totals: recall = matched / hand launches, precision = matched / found launches.
The last line reads `recall 72.5% (37/51) precision 90.2% (37/41) silent 11`.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

from kvlint.launches import iter_files, read_path

SLACK = 3


@dataclass
class Hand:
    ranges: list[tuple[int, int]]
    engine: str
    model: str
    text: str


@dataclass
class Found:
    lines: set[int]
    engine: str
    model: str | None
    line: int  # the line shown in the table (model value's line, else the command's)


@dataclass
class Row:
    repo: str
    path: str
    file: str
    hand: list[Hand]
    found: list[Found] = field(default_factory=list)
    matched: list[tuple[int, int]] = field(default_factory=list)
    findings: int = 0
    walked: bool = True
    error: str = ""

    @property
    def missed(self) -> list[Hand]:
        done = {h for h, _ in self.matched}
        return [h for i, h in enumerate(self.hand) if i not in done]

    @property
    def spurious(self) -> list[Found]:
        done = {f for _, f in self.matched}
        return [f for i, f in enumerate(self.found) if i not in done]

    @property
    def silent(self) -> bool:
        return bool(self.missed) and not self.found and self.findings == 0


def parse_hand(cell: str) -> list[Hand]:
    out: list[Hand] = []
    for item in filter(None, (x.strip() for x in cell.split(";"))):
        lines, engine, model = (item.split(":", 2) + ["", ""])[:3]
        ranges = []
        for part in filter(None, lines.split(",")):
            a, _, b = part.partition("-")
            ranges.append((int(a), int(b or a)))
        out.append(Hand(ranges, engine, model, item))
    return out


def found_launches(path: str) -> tuple[list[Found], int, str]:
    try:
        res = read_path(path)
    except Exception as exc:  # noqa: BLE001 - a reader that raises is a result too: nothing found
        return [], 0, f"{type(exc).__name__}: {exc}"
    out = []
    arms: dict[tuple, Found] = {}  # one command's configurations (Deployment.one_of_arms): one launch (turn 32)
    for dep in getattr(res, "deployments", []):
        if getattr(dep, "disabled", None) is not None:
            continue
        lines: set[int] = set()
        shown = 0
        launch = getattr(dep, "launch_span", None)  # getattr: any checkout's records, older or newer
        model_span = getattr(dep, "model_span", None)
        if launch is not None:
            lines.update(range(launch.line, max(launch.line, getattr(launch, "end_line", launch.line)) + 1))
            shown = launch.line
        if model_span is not None:
            lines.add(model_span.line)
            shown = model_span.line
        found = Found(lines, getattr(dep, "engine", "?"), getattr(dep, "model", None), shown)
        key = (found.engine, launch)
        if getattr(dep, "one_of_arms", False) and key in arms:
            arms[key].lines.update(lines)  # another configuration of the same command
            continue
        if getattr(dep, "one_of_arms", False):
            arms[key] = found
        out.append(found)
    return out, len(getattr(res, "findings", [])), getattr(res, "skipped", None) or ""


def matches(h: Hand, f: Found) -> bool:
    return any(a - SLACK <= n <= b + SLACK for a, b in h.ranges for n in f.lines)


def match(hand: list[Hand], found: list[Found]) -> list[tuple[int, int]]:
    """Maximum one-to-one matching (augmenting paths; the lists are small)."""
    owner: dict[int, int] = {}  # found index -> hand index

    def augment(h: int, seen: set[int]) -> bool:
        for f, launch in enumerate(found):
            if f in seen or not matches(hand[h], launch):
                continue
            seen.add(f)
            if f not in owner or augment(owner[f], seen):
                owner[f] = h
                return True
        return False

    for h in range(len(hand)):
        augment(h, set())
    return sorted((h, f) for f, h in owner.items())


_MERGED = " read as the --config file of the launch that names it"


def merged_configs(data: dict) -> set[str]:
    """The files a run read as another launch's --config (its notes say so, from turn 29): no launch of their own."""
    return {os.path.realpath(n[: -len(_MERGED)].rstrip(":")) for n in data.get("notes", []) if n.endswith(_MERGED)}


def check_findings(folder: str) -> dict[str, int] | None:
    """Findings per file from one `kvlint check` run over the folder (None when it cannot run); the key "" holds
    nothing, and `MERGED` (below) the files the run read as another launch's --config file."""
    try:
        done = subprocess.run([sys.executable, "-m", "kvlint", "check", folder, "--format", "json", "--exit-zero"],
                              capture_output=True, text=True, timeout=900)
        data = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    counts: dict[str, int] = {}
    for f in data.get("findings", []):
        p = f.get("path") or (f.get("span") or {}).get("path") or ""
        key = os.path.realpath(p)
        counts[key] = counts.get(key, 0) + 1
    MERGED.clear()
    MERGED.update(merged_configs(data))
    return counts


MERGED: set[str] = set()


def load(index: str, folder: str) -> list[Row]:
    rows = []
    with open(index, newline="", encoding="utf-8") as fh:
        for rec in csv.DictReader(fh, delimiter="\t"):
            file = os.path.join(folder, rec["repo"].replace("/", "__", 1), rec["path"])
            hand = parse_hand(rec.get("launches") or "")
            if len(hand) != int(rec.get("hand_count") or 0):
                print(f"warning: {rec['repo']}/{rec['path']}: hand_count {rec['hand_count']} but {len(hand)} launches listed",
                      file=sys.stderr)
            rows.append(Row(rec["repo"], rec["path"], file, hand))
    return rows


def measure(rows: list[Row], folder: str, direct: bool, use_check: bool) -> None:
    try:
        walked = {os.path.realpath(p) for p, reason in iter_files([folder]) if reason is None}
    except Exception as exc:  # noqa: BLE001 - a walk that fails is reported, and every file is read directly
        print(f"warning: the folder walk failed ({type(exc).__name__}: {exc}); reading every file", file=sys.stderr)
        walked, direct = set(), True
    per_file = check_findings(folder) if use_check else None
    for row in rows:
        real = os.path.realpath(row.file)
        row.walked = real in walked
        if not os.path.isfile(row.file):
            row.error = "file missing"
            continue
        if row.walked or direct:
            row.found, row.findings, skipped = found_launches(row.file)
            row.error = skipped
            if real in MERGED:  # the run reads it inside the launch that names it
                row.found = []
        if per_file is not None:
            row.findings += per_file.get(real, 0)
        row.matched = match(row.hand, row.found)


def fmt_found(fs: list[Found]) -> str:
    return " ".join(f"{f.line}:{f.engine}:{f.model}" for f in fs) or "-"


def report(rows: list[Row], out=sys.stdout) -> dict:
    w = out.write
    w("file\thand\tfound\tmatched\tmissed\tspurious\tsilent\twalked\tfound_launches\tmissed_launches\n")
    for r in rows:
        w(f"{r.repo}/{r.path}\t{len(r.hand)}\t{len(r.found)}\t{len(r.matched)}\t{len(r.missed)}\t{len(r.spurious)}\t"
          f"{'yes' if r.silent else ''}\t{'' if r.walked else 'no'}\t{fmt_found(r.found)}\t"
          f"{' '.join(h.text for h in r.missed) or '-'}{('  [' + r.error + ']') if r.error else ''}\n")
    hand = sum(len(r.hand) for r in rows)
    found = sum(len(r.found) for r in rows)
    matched = sum(len(r.matched) for r in rows)
    silent = sum(len(r.missed) for r in rows if r.silent)
    spurious = sum(len(r.spurious) for r in rows)
    recall = 100.0 * matched / hand if hand else 100.0
    precision = 100.0 * matched / found if found else 100.0
    w(f"\nfiles {len(rows)}  hand launches {hand}  found {found}  matched {matched}  missed {hand - matched}  "
      f"spurious {spurious}  files not walked {sum(1 for r in rows if not r.walked)}\n")
    w(f"recall {recall:.1f}% ({matched}/{hand}) precision {precision:.1f}% ({matched}/{found}) silent {silent}\n")
    return {"files": len(rows), "hand": hand, "found": found, "matched": matched, "spurious": spurious,
            "silent": silent, "recall": recall, "precision": precision}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index")
    ap.add_argument("folder")
    ap.add_argument("--direct", action="store_true", help="read every indexed file, also those the walk skips")
    ap.add_argument("--no-check", action="store_true", help="silence from the readers' findings only")
    ap.add_argument("--json", help="also write the totals and per-file results as JSON to this file")
    args = ap.parse_args()
    index, folder = os.path.abspath(args.index), os.path.abspath(args.folder)
    out = os.path.abspath(args.json) if args.json else None
    # run from the sample's folder, as a user runs kvlint in the checkout: a project's root is its configuration's
    # or git root, else the current folder, and a sample's repositories have neither (from turn 24; before it the
    # harness ran from wherever it was started, so a compose file's mounted script beside it was out of project)
    os.chdir(folder)
    rows = load(index, folder)
    measure(rows, folder, args.direct, not args.no_check)
    totals = report(rows)
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump({"totals": totals, "files": [
                {"file": f"{r.repo}/{r.path}", "hand": len(r.hand), "found": [f.line for f in r.found],
                 "matched": len(r.matched), "missed": [h.text for h in r.missed], "silent": r.silent,
                 "walked": r.walked} for r in rows]}, fh, indent=1)


if __name__ == "__main__":
    main()
