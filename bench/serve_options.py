"""Which `vllm serve` options a release's wheel registers, read from its unzipped Python files without importing it.

kvlint/data/vllm_flags.json keeps, per flag, the releases whose parser had it (`seen_in`) and, per removed flag, the
last release read with it and the first without (`last_seen`, `absent_in`). The releases first read there ran the
wheel's parser; this script reads a release statically, so one can be added without torch and a GPU build:
`vllm serve`'s parser is `make_arg_parser` (entrypoints/openai/cli_args.py) = a few literal `add_argument` calls,
one `--field-name` per `FrontendArgs` dataclass field (the `get_kwargs` loop), and `AsyncEngineArgs.add_cli_args`
(engine/arg_utils.py), whose calls name their options as literals. argparse adds `-h/--help` itself and
BooleanOptionalAction its `--no-` forms.

    python bench/serve_options.py check /tmp/rel-scratch/v0.15.0 0.15.0     # agree with a release already read
    python bench/serve_options.py add /tmp/rel-scratch/v0.13.0 0.13.0       # record a release in the table
    python bench/serve_options.py none /tmp/rel-scratch/v0.33.0 0.33.0      # mark the options that read `None` as unset

Never run by the tests (no engine wheel there); the table it writes is checked by tests/flags/test_flag_table.py.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parents[1] / "kvlint" / "data" / "vllm_flags.json"
FILES = ("engine/arg_utils.py", "entrypoints/openai/cli_args.py", "entrypoints/cli/serve.py")


def key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def dataclass_fields(tree: ast.Module, name: str) -> list[str]:
    """The annotated fields of class `name` in this module (what get_kwargs turns into options)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return [st.target.id for st in node.body if isinstance(st, ast.AnnAssign)
                    and isinstance(st.target, ast.Name) and "ClassVar" not in ast.unparse(st.annotation)]
    return []


def looped_fields(tree: ast.Module) -> set[str]:
    """`for key, value in X_kwargs.items(): group.add_argument(f"--{key...}")` where X_kwargs = get_kwargs(Cls)."""
    kwargs_of = {node.targets[0].id: ast.unparse(node.value.args[0]) for node in ast.walk(tree)
                 if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args
                 and ast.unparse(node.value.func).endswith("get_kwargs") and isinstance(node.targets[0], ast.Name)}
    out: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.For) and isinstance(node.iter, ast.Call)):
            continue
        loops_over = ast.unparse(node.iter).split(".")[0]
        formatted = any(isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "add_argument" and n.args
                        and isinstance(n.args[0], ast.JoinedStr) for n in ast.walk(node))
        if formatted and loops_over in kwargs_of:
            out |= {"--" + f.replace("_", "-") for f in dataclass_fields(tree, kwargs_of[loops_over])}
    return out


def options(root: Path) -> set[str]:
    """Every option string `vllm serve` registers in the unzipped wheel at `root` (the folder holding vllm/)."""
    found = {"-h", "--help"}
    for rel in FILES:
        path = root / "vllm" / rel
        if not path.exists():
            continue
        tree = ast.parse(path.read_text())
        found |= looped_fields(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                found |= {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                          and a.value.startswith("-")}
    return found


def has(entry: dict[str, Any], present: set[str]) -> bool:
    """Whether a table entry's flag is in a parser: any of its options, a `--no-X` through its `--X`."""
    names = list(entry["options"]) + list(entry.get("negative_options", []))
    return any(o in present or (o.startswith("--no-") and "--" + o[5:] in present) for o in names)


def seen_by_source(entry: dict[str, Any]) -> list[str]:
    """The releases a removed entry's source line says had it ("vllm 0.11.0, 0.15.0 wheel parser(s); ...")."""
    head = entry["source"].partition(" wheel parser")[0].removeprefix("vllm ")
    return [v.strip() for v in head.split(",") if v.strip()[:1].isdigit()]


def add(table: dict[str, Any], release: str, present: set[str]) -> dict[str, Any]:
    """The table with `release` read: seen_in of each flag, and each removed flag's last_seen/absent_in/source."""
    read = sorted({*table["versions_read"], release}, key=key)
    table["versions_read"] = read
    for flag in table["flags"]:
        if has(flag, present):
            flag["seen_in"] = sorted({*flag["seen_in"], release}, key=key)
    for entry in table["removed"]:
        if entry["last_seen"] is None:
            continue
        seen = sorted({*seen_by_source(entry), *([release] if has(entry, present) else [])}, key=key)
        entry["last_seen"] = seen[-1]
        entry["absent_in"] = read[read.index(seen[-1]) + 1]
        entry["source"] = f"vllm {', '.join(seen)} wheel parser(s); absent from {entry['absent_in']} on"
    return table


def unknown(table: dict[str, Any], present: set[str]) -> list[str]:
    """Options of the release the table names nowhere (a flag added and removed between releases read)."""
    known = {o for e in table["flags"] + table["removed"] for o in [*e["options"], *e.get("negative_options", [])]}
    return sorted(o for o in present if o not in known and not (o.startswith("--no-") and "--" + o[5:] in known))


def check(table: dict[str, Any], release: str, present: set[str]) -> list[str]:
    """Disagreements with a release the table already read (empty: the static reading matches its parser)."""
    out = [f"flag {f['dest']}: table {release in f['seen_in']}, wheel {has(f, present)}" for f in table["flags"]
           if (release in f["seen_in"]) != has(f, present)]
    out += [f"removed {e['dest']}: table {release in seen_by_source(e)}, wheel {has(e, present)}"
            for e in table["removed"] if e["last_seen"] and (release in seen_by_source(e)) != has(e, present)]
    return out + [f"not in the table: {o}" for o in unknown(table, present)]


def unset_by_none(root: Path) -> set[str]:
    """The options whose argparse type is vLLM's `optional_type` (`None` or an empty value leaves the setting unset):
    a `get_kwargs` field annotated `X | None` (not a bool), never a literal `add_argument` of the serve parser. A field
    name two config classes annotate differently is left out (the option keeps its plain reading)."""
    annotations: dict[str, set[str]] = {}
    for path in (root / "vllm").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            fields = node.body if isinstance(node, ast.ClassDef) else []
            for field in (st for st in fields if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
                annotations.setdefault(ast.unparse(field.target), set()).add(ast.unparse(field.annotation))
    literal: set[str] = set()
    for path in (root / "vllm" / rel for rel in (*FILES, "entrypoints/common/cli_args.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if path.exists() else ():
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument" and all(
                    k.arg is not None for k in node.keywords):
                literal |= {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    table = json.loads(TABLE.read_text())
    return {f["dest"] for f in table["flags"] if f["kind"] in ("value", "append") and not literal & set(f["options"])
            and annotations.get(f["dest"]) and all("None" in a and "bool" not in a for a in annotations[f["dest"]])}


def mark_unset(table: dict[str, Any], dests: set[str]) -> dict[str, Any]:
    """The table with its `none_unset` list (kept beside `dotted_json_keys`, in the flags' order)."""
    listed = [f["dest"] for f in table["flags"] if f["dest"] in dests]
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key != "none_unset":
            out[key] = value
        if key == "dotted_json_keys":
            out["none_unset"] = listed
    return out


def main(argv: list[str]) -> int:
    command, root, release = argv
    table = json.loads(TABLE.read_text())
    if command == "none":
        TABLE.write_text(json.dumps(mark_unset(table, unset_by_none(Path(root))), indent=1))
        return 0
    present = options(Path(root))
    if command == "check":
        problems = check(table, release, present)
        print("\n".join(problems) or f"{release}: {len(present)} options, the table agrees")
        return 1 if problems else 0
    missing = unknown(table, present)
    if missing:
        print("add these to the table by hand first (flags or removed):", ", ".join(missing))
        return 1
    TABLE.write_text(json.dumps(add(table, release, present), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
