"""Read the keys vLLM's JSON-valued options take (`--speculative-config '{"num_speculative_tokens": 3}'`, or
`--speculative-config.num_speculative_tokens 3`) from the config dataclasses of unpacked wheels, statically, and
write them into kvlint/data/vllm_flags.json as `json_keys`.

Why: a launch that gives such a key as an option of its own (`--speculative-token-tree`, sample K482) is refused
as an unrecognized argument, and the option spelled nearest it is of another feature; the fix a user needs is the
key's place, valid on the release pinned. Each key keeps the first and the last release read with it (a key
the newest release read lacks was dropped after its last).

Usage: python bench/json_option_keys.py ROOT:VERSION [ROOT:VERSION ...] (ROOT holds vllm/config/ of that wheel,
`pip download --no-deps vllm==VERSION` unzipped in a scratch folder; never installed)."""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "kvlint" / "data" / "vllm_flags.json"


def _classes(root: Path) -> dict[str, tuple[list[str], dict[str, str], list[str]]]:
    """Every class of the wheel's config modules: (its field names, field -> annotation text, base names)."""
    found: dict[str, tuple[list[str], dict[str, str], list[str]]] = {}
    files = sorted((root / "vllm" / "config").glob("*.py")) + [root / "vllm" / "config.py"]
    for path in files:
        if not path.is_file():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                fields, notes = [], {}
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        note = ast.unparse(item.annotation)
                        if not item.target.id.startswith("_") and "ClassVar" not in note and "InitVar" not in note:
                            fields.append(item.target.id)
                            notes[item.target.id] = note
                bases = [ast.unparse(b) for b in node.bases]
                found.setdefault(node.name, (fields, notes, bases))
    return found


def _keys(classes: dict[str, tuple[list[str], dict[str, str], list[str]]], name: str) -> list[str]:
    """A dataclass's fields, its bases' first (a subclass adds to them)."""
    fields, _, bases = classes[name]
    inherited = [k for b in bases if b in classes and b != name for k in _keys(classes, b)]
    return list(dict.fromkeys(inherited + fields))


def json_keys(root: Path, dests: set[str]) -> dict[str, list[str]]:
    """For each JSON-valued option's destination, the keys of the config class a config field of that name holds."""
    classes = _classes(root)
    out: dict[str, list[str]] = {}
    for _, notes, _ in classes.values():
        for field, note in notes.items():
            if field in dests and field not in out:
                held = [c for c in classes if c != "VllmConfig" and c in note.replace("|", " ").replace("[", " ")
                        .replace("]", " ").split()]
                if held:
                    out[field] = _keys(classes, held[0])
    return out


def main(argv: list[str]) -> int:
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    dests = {f["dest"] for f in table["flags"] if any(o.endswith("-config") for o in f["options"])}
    reads = [(Path(a.rpartition(":")[0]), a.rpartition(":")[2]) for a in argv]
    per_release = [(version, json_keys(root, dests)) for root, version in reads]
    merged: dict[str, dict[str, list[str]]] = {}
    for version, found in per_release:
        for dest, keys in found.items():
            for key in keys:
                merged.setdefault(dest, {}).setdefault(key, [version, version])[1] = version
    table["json_keys"] = {dest: keys for dest, keys in sorted(merged.items()) if keys}
    table["json_keys_source"] = ("fields of the config dataclasses (vllm/config/) each JSON-valued option holds, read "
                                 f"statically from the {', '.join(v for _, v in reads)} wheels by "
                                 "bench/json_option_keys.py; each key with the first and the last of them read with it")
    TABLE.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(table['json_keys'])} options, {sum(map(len, merged.values()))} keys")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
