"""Options of engine releases older than the flag tables read in full, recorded as removed flags.

kvlint/data/{vllm,sglang}_flags.json read their releases' parsers in full from one release on (vLLM 0.11.0, SGLang
0.5.4). A tutorial or a benchmark record written for an older release passes options those releases had and the
tables never saw (SGLang 0.2's `--max-num-reqs`): without a record each is "an option of no release kvlint knows"
(KV004), a claim the release history contradicts. This script reads an older release's wheel statically (the
literal `add_argument` calls of its server parser, no import) and adds each long option the table names nowhere as a
removed flag: `last_seen` that release, `absent_in` the next release read without it (statically, else the first
read in full), so KV005 says it is gone and from which release, and an alias of a current option names that option
as the replacement. vLLM 0.5.5, 0.6.6, 0.8.5 and 0.10.2 add nothing: the table records their removed options by hand.

An option whose value-taking the call does not show (`**kwargs` from a dataclass, `nargs="?"`) is left out: a
wrong `takes_value` would misread the word after it. Run the releases oldest first; a later one moves `last_seen`.

    python bench/older_options.py sglang /tmp/oldsrc/sglang-0.2.15 0.2.15
    python bench/older_options.py sglang /tmp/oldsrc/sglang-0.3.6 0.3.6

`--history` fills the sighting history of the removal records written by hand ("existed in earlier releases",
`last_seen` null) and gives every record the oldest release read with it (`first_seen`). An older release has the
option when one of its `add_argument` calls names it, or one of the read files declares its dest as a class field
and the option is spelled as that field is (0.10's `FrontendArgs` make their options from fields). The newest release
read with it is `last_seen`, the next one read without it `absent_in`. KV005 then tells a pinned release that has the
flag from one that may not (turn 46's K477: `--device neuron` on `vllm[neuron]==0.6.2`, which had it).

    python bench/older_options.py --history vllm /tmp/oldsrc/vllm-0.4.3:0.4.3 /tmp/oldsrc/vllm-0.5.5:0.5.5 ...

Never run by the tests (no engine wheel there); the table it writes is checked by tests/flags/test_flag_table.py.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "kvlint" / "data"
FILES = {"sglang": ("sglang/srt/server_args.py",),
         "vllm": ("vllm/engine/arg_utils.py", "vllm/entrypoints/openai/cli_args.py", "vllm/entrypoints/cli/serve.py")}
_NO_VALUE = ("store_true", "store_false", "BooleanOptionalAction", "StoreBoolean")
# options renamed where the dest changed too, so the table cannot pair them: SGLang 0.4.10 renamed `--impl` (0.4.7-0.4.9)
# to `--model-impl` (server_args.py of the two wheels)
RENAMED = {"sglang": {"--impl": "--model-impl"}}


def key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def calls(root: Path, engine: str) -> list[tuple[list[str], str | None, bool | None]]:
    """(long options, dest, takes a value) of each literal `add_argument` call of the release's server parser;
    takes-a-value None when the call does not show it."""
    out: list[tuple[list[str], str | None, bool | None]] = []
    for rel in FILES[engine]:
        path = root / rel
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"):
                continue
            names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            longs = [n for n in names if n.startswith("--") and n[2:].replace("-", "").isalnum() and n == n.lower()]
            if not longs:
                continue
            kw = {k.arg: k.value for k in node.keywords}
            dest = kw.get("dest")
            out.append((longs, dest.value if isinstance(dest, ast.Constant) else None, _takes(kw)))
    return out


def _takes(kw: dict[str | None, ast.expr]) -> bool | None:
    if None in kw:  # `**kwargs`: what it holds is not written here
        return None
    action = kw.get("action")
    nargs = kw.get("nargs")
    if action is not None:
        text = ast.unparse(action)
        if any(word in text for word in _NO_VALUE):
            return False
        return True if text.strip("'\"") in ("store", "append") else None
    if nargs is not None:
        return True if isinstance(nargs, ast.Constant) and nargs.value in ("+", "*") or \
            isinstance(nargs, ast.Constant) and isinstance(nargs.value, int) and nargs.value > 0 else None
    return True


def add(table: dict[str, Any], engine: str, release: str, found: list[tuple[list[str], str | None, bool | None]]
        ) -> int:
    """Record the release's options the table names nowhere; the count recorded or moved."""
    first = table["versions_read"][0]
    assert key(release) < key(first), f"{release} is not older than {first}"
    current = {o: f for f in table["flags"] for o in [*f["options"], *f.get("negative_options", [])]}
    by_dest = {f["dest"]: f for f in table["flags"]}
    removed = {o: e for e in table["removed"] for o in e["options"]}
    changed = 0
    for longs, dest, takes in found:
        # an option that begins a current one is that one's abbreviation where the parser allows them (SGLang's
        # `--disable-flashinfer`): the abbreviation rules read it, not a removal record
        fresh = [o for o in longs if o not in current and o not in removed
                 and not (table.get("allow_abbrev") and any(c.startswith(o) for c in current))]
        if takes is None or not fresh:
            continue
        own = dest or fresh[0][2:].replace("-", "_")
        moved = [removed[o] for o in longs if o in removed and removed[o].get("before_tables")]
        if moved:
            continue
        entry: dict[str, Any] = {"options": fresh, "dest": own, "last_seen": release, "absent_in": first,
                                 "takes_value": takes, "before_tables": True,
                                 "source": f"{engine} {release} wheel read statically (bench/older_options.py); "
                                           f"absent from {first} on"}
        alive = next((current[o] for o in longs if o in current), None) or by_dest.get(own)
        renamed = next((RENAMED.get(engine, {})[o] for o in fresh if o in RENAMED.get(engine, {})), None)
        if alive is not None or renamed is not None:
            entry["replacement"] = renamed or alive["options"][0]
        table["removed"].append(entry)
        for o in fresh:
            removed[o] = entry
        changed += 1
    present = {x for longs, _, _ in found for x in longs}
    for entry in table["removed"]:  # a later release moves the last sighting, or is the first without it
        if not entry.get("before_tables") or key(entry["last_seen"]) >= key(release):
            continue
        if any(o in present for o in entry["options"]):
            entry["last_seen"], entry["absent_in"] = release, first
        elif entry["absent_in"] == first:
            entry["absent_in"] = release
        else:
            continue
        entry["source"] = (f"{engine} {entry['last_seen']} wheel read statically (bench/older_options.py); "
                           f"absent from {entry['absent_in']} on")
        changed += 1
    return changed


def fields(root: Path, engine: str) -> set[str]:
    """The names the release's read files declare as annotated class fields (dataclass options' dests)."""
    out: set[str] = set()
    for rel in FILES[engine]:
        path = root / rel
        if path.exists():
            out |= {node.target.id for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    return out


def history(table: dict[str, Any], engine: str, reads: list[tuple[str, Path]]) -> int:
    """Give each hand-written removal record (no release named) the releases read that have it, and every record
    the oldest release read with it; the count of records given or moved."""
    reads = sorted(reads, key=lambda item: key(item[0]))
    present = {release: ({o for longs, _, _ in calls(root, engine) for o in longs}, fields(root, engine))
               for release, root in reads}
    changed = 0
    for entry in table["removed"]:
        natural = "--" + entry["dest"].replace("_", "-") in entry["options"]  # the spelling a field's option takes
        seen = [release for release, _ in reads
                if set(entry["options"]) & present[release][0] or natural and entry["dest"] in present[release][1]]
        if not seen:
            continue
        if entry["last_seen"] is not None:  # a release read already names its last sighting: only the first is new
            if key(seen[0]) < key(entry.get("first_seen", entry["last_seen"])):
                entry["first_seen"] = seen[0]
                changed += 1
            continue
        later = [release for release, _ in reads if key(release) > key(seen[-1])]
        entry.update(first_seen=seen[0], last_seen=seen[-1], absent_in=later[0] if later else entry["absent_in"],
                     before_tables=True)
        entry["source"] = (f"{engine} {seen[0]} to {seen[-1]} wheels read statically (bench/older_options.py "
                           f"--history); absent from {entry['absent_in']} on")
        changed += 1
    table["static_read"] = sorted({*table.get("static_read", []), *(release for release, _ in reads)}, key=key)
    return changed


def main(argv: list[str]) -> int:
    history_mode = argv[:1] == ["--history"]
    engine, *rest = argv[1:] if history_mode else argv
    path = DATA / f"{engine}_flags.json"
    text = path.read_text()
    table = json.loads(text)
    if history_mode:
        reads = [(spec.rpartition(":")[2], Path(spec.rpartition(":")[0])) for spec in rest]
        changed = history(table, engine, reads)
        path.write_text(json.dumps(table, indent=1) + ("\n" if text.endswith("\n") else ""))
        print(f"{engine}: {changed} removal records given their history")
        return 0
    root, release = rest
    changed = add(table, engine, release, calls(Path(root), engine))
    path.write_text(json.dumps(table, indent=1) + ("\n" if text.endswith("\n") else ""))
    print(f"{engine} {release}: {changed} removed entries recorded or moved")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
