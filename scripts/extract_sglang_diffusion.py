"""Write kvlint/data/sglang_diffusion_flags.json from SGLang release wheels (read as zip files, never imported).

`sglang serve` hands a diffusion model to a second server (`sglang.multimodal_gen`) with a parser of its own, so
kvlint needs that parser's option table as well as the LLM server's. This reads, with `ast` only, the
`add_argument` calls of the functions that build it (ServerArgs.add_cli_args and the helpers it calls, the serve
command's `--config`, pipeline-contributed flags), the option families it accepts without declaring them (the
`--<component>-path` aliases, `--vae-config.<key>` sub-configs) and the model ids its registry names, and
writes them in the shape of the other flag tables (flags.schema.json).

    pip download --no-deps sglang==0.5.12 sglang==0.5.23 -d /tmp/wheels
    python scripts/extract_sglang_diffusion.py /tmp/wheels/sglang-0.5.12-*.whl /tmp/wheels/sglang-0.5.23-*.whl
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "kvlint" / "data" / "sglang_diffusion_flags.json"
ROOT = "sglang/multimodal_gen/"
SKIP_DIRS = ("/test/", "/benchmarks/", "/apps/", "/tools/", "/third_party/")
# the functions whose add_argument calls make the server's parser (sglang serve and launch_server)
BUILDERS = {"add_disagg_cli_args", "add_multimodal_gen_serve_args", "add_pipeline_cli_args"}
BUILDER_CLASSES = {"ServerArgs", "NunchakuSVDQuantArgs", "PipelineConfig", "QVGKVQuantArgs"}  # their add_cli_args
VALUE_TYPES = {"int": "int", "float": "float", "str": "str"}


def _version(name: str) -> str:
    found = re.search(r"sglang-(\d+\.\d+\.\d+)", Path(name).name)
    if found is None:
        raise SystemExit(f"not an sglang wheel name: {name}")
    return found.group(1)


def _sources(wheel: Path) -> dict[str, ast.Module]:
    """Every module of the diffusion package but tests, benchmarks and apps, parsed."""
    out: dict[str, ast.Module] = {}
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(ROOT) and name.endswith(".py") and not any(d in name for d in SKIP_DIRS):
                out[name] = ast.parse(z.read(name).decode("utf-8"))
    return out


def _builders(tree: ast.Module) -> list[ast.FunctionDef]:
    """The functions of one module that add the server's arguments."""
    found: list[ast.FunctionDef] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in BUILDER_CLASSES:
            found += [f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "add_cli_args"]
        elif isinstance(node, ast.FunctionDef) and node.name in BUILDERS:
            found.append(node)
    return found


def _text(node: ast.expr) -> str | None:
    """A literal option string; an f-string's `prefix_with_dot` is empty on the server's own parser."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [_text(v) if not isinstance(v, ast.FormattedValue) else
                 ("" if isinstance(v.value, ast.Name) and v.value.id == "prefix_with_dot" else None)
                 for v in node.values]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    return None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _entry(call: ast.Call, version: str) -> dict[str, Any] | None:
    """One add_argument call as a flag-table entry (None when its option strings are not literal)."""
    options = [_text(a) for a in call.args]
    if not options or any(o is None for o in options):
        return _computed(call)
    opts = [o for o in options if o]
    long = next((o for o in opts if o.startswith("--")), opts[0])
    dest_node = _keyword(call, "dest")
    dest = _text(dest_node) if dest_node is not None else None
    entry: dict[str, Any] = {"dest": (dest or long.lstrip("-")).replace("-", "_").replace(".", "_").lower(),
                             "options": opts}
    action, nargs = _keyword(call, "action"), _keyword(call, "nargs")
    act = _text(action) if action is not None else None
    if act in ("store_true", "store_false", "store_const"):
        entry["kind"] = act
    elif act == "help":
        entry["kind"] = "help"
    elif isinstance(action, ast.Name) and action.id == "StoreBoolean":  # true/false, or nothing for true
        entry.update(kind="value", type="str", nargs="?", const=True)
    elif isinstance(action, ast.Attribute) and action.attr == "BooleanOptionalAction":
        entry.update(kind="bool_optional", negative_options=["--no-" + long[2:]])
    else:
        kind_type = _keyword(call, "type")
        entry.update(kind="append" if act == "append" else "value",
                     type=VALUE_TYPES.get(kind_type.id, "str") if isinstance(kind_type, ast.Name) else "str")
        if isinstance(nargs, ast.Constant):
            entry["nargs"] = nargs.value
    entry["seen_in"] = [version]
    return entry


def _computed(call: ast.Call) -> dict[str, Any] | None:
    """`add_argument(f"--flux3-{flag}", ...)` in a loop: the literal head is a family of options (a dynamic entry)."""
    first = call.args[0] if call.args else None
    head = first.values[0] if isinstance(first, ast.JoinedStr) and first.values else None
    if not (isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.startswith("--")):
        print(f"skipped a computed option at line {call.lineno}", file=sys.stderr)
        return None
    action = _keyword(call, "action")
    optional = isinstance(action, ast.Name) and action.id == "StoreBoolean"
    bare = isinstance(action, ast.Constant) and action.value in ("store_true", "store_false", "store_const")
    return {"prefix": head.value, "takes_value": "optional" if optional else not bare}


def _sub_config_prefixes(fn: ast.FunctionDef) -> list[str]:
    """`VAEConfig.add_cli_args(parser, prefix=f"{prefix_with_dot}vae-config")`: every `--vae-config.<key>`."""
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_cli_args":
            prefix = _keyword(node, "prefix")
            text = _text(prefix) if prefix is not None else None
            if text:
                out.append(f"--{text}.")
    return out


def _is_native_table(node: ast.AST) -> bool:
    """`KNOWN_NON_DIFFUSERS_DIFFUSION_MODEL_PATTERNS: Dict[str, str] = {...}` (registry.py): native pipelines' ids."""
    return isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(node.value, ast.Dict) \
        and node.target.id == "KNOWN_NON_DIFFUSERS_DIFFUSION_MODEL_PATTERNS"


def _model_ids(trees: dict[str, ast.Module]) -> set[str]:
    """The Hub ids the registry maps to a diffusion pipeline: `hf_model_paths=[...]` and the org/name keys of
    its table of native (non-Diffusers) pipelines."""
    ids: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "hf_model_paths" and isinstance(node.value, ast.List):
                ids |= {e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            if _is_native_table(node):
                assert isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Dict)
                ids |= {k.value for k in node.value.keys
                        if isinstance(k, ast.Constant) and isinstance(k.value, str) and "/" in k.value}
    return ids


# Unknown words the server takes without declaring them (ServerArgs.from_cli_args sorts parse_known_args' rest):
# read from its _extract_component_* helpers; each takes a value.
DYNAMIC = [
    {"prefix": "--component-paths.", "takes_value": True}, {"prefix": "--component_paths.", "takes_value": True},
    {"prefix": "--component-weights-paths.", "takes_value": True},
    {"prefix": "--component_weights_paths.", "takes_value": True},
    {"prefix": "--component-quantizations.", "takes_value": True},
    {"prefix": "--component_quantizations.", "takes_value": True},
    {"prefix": "--component-precisions.", "takes_value": True},
    {"prefix": "--component_precisions.", "takes_value": True},
    {"prefix": "--component-attention-backends.", "takes_value": True},
    {"prefix": "--component_attention_backends.", "takes_value": True},
    {"suffix": "-path", "takes_value": True}, {"suffix": "-weights-path", "takes_value": True},
    {"suffix": "-quantization", "takes_value": True},
]


def read_wheel(wheel: Path) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]], set[str]]:
    """(release, flag entries, dynamic option families, registry model ids) of one wheel."""
    version = _version(wheel.name)
    trees = _sources(wheel)
    flags: list[dict[str, Any]] = []
    dynamic: list[dict[str, Any]] = []
    for tree in trees.values():
        for fn in _builders(tree):
            dynamic += [{"prefix": p, "takes_value": True} for p in _sub_config_prefixes(fn)]
            calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr == "add_argument"]
            for entry in (_entry(c, version) for c in sorted(calls, key=lambda c: c.lineno)):
                if entry is not None:
                    (flags if "options" in entry else dynamic).append(entry)
    return version, flags, dynamic, _model_ids(trees)


def merge(wheels: list[Path]) -> dict[str, Any]:
    by_option: dict[str, dict[str, Any]] = {}
    versions: list[str] = []
    families: dict[str, dict[str, Any]] = {}
    ids: set[str] = set()
    for wheel in sorted(wheels, key=lambda w: tuple(int(p) for p in _version(w.name).split("."))):
        version, flags, dynamic_found, found = read_wheel(wheel)
        versions.append(version)
        families.update({d["prefix"]: d for d in dynamic_found})
        ids |= found
        for entry in flags:
            _add(by_option, entry, version)
    latest = versions[-1]
    kept = list({id(e): e for e in by_option.values()}.values())
    dynamic = DYNAMIC + [families[p] for p in sorted(families)]
    return {
        "engine": "sglang", "server": "diffusion", "version": latest, "versions_read": versions,
        "command": "sglang serve (a diffusion model) / python -m sglang.multimodal_gen.runtime.launch_server",
        "source": "add_argument calls of ServerArgs.add_cli_args and the helpers it calls "
                  "(sglang/multimodal_gen/runtime/server_args*), the serve command's --config and pipeline flags, "
                  f"read with ast from the sglang {', '.join(versions)} wheels by scripts/extract_sglang_diffusion.py",
        "allow_abbrev": True, "underscore_to_dash": False, "dotted_json_keys": False,
        "positional_model": "model_path", "model_dest": "model_path",
        "flags": kept, "removed": [], "dynamic_options": dynamic,
        "model_ids": sorted(ids, key=lambda i: (i.lower(), i)),
        "serve_dispatch": {"option": "--model-type", "diffusion": "diffusion", "llm": "llm"},
    }


def _add(by_option: dict[str, dict[str, Any]], entry: dict[str, Any], version: str) -> None:
    """One entry into the merged table: an option seen before (in this release or an earlier one) keeps one entry,
    its spelling from the newest release, its releases once each."""
    old = next((by_option[o] for o in entry["options"] if o in by_option), None)
    if old is None:
        for o in entry["options"]:
            by_option[o] = entry
        return
    seen = list(dict.fromkeys(old["seen_in"] + [version]))
    options = list(dict.fromkeys(old["options"] + entry["options"]))
    old.clear()
    old.update(entry, seen_in=seen, options=options)
    for o in options:
        by_option[o] = old


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    data = merge([Path(a) for a in argv])
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}: {len(data['flags'])} flags, {len(data['model_ids'])} model ids, releases "
          f"{', '.join(data['versions_read'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
