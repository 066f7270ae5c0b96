"""Rebuild kvlint/models/registry/ from one or more folders of <org>/<name>/config.json files.

Usage: python scripts/refresh_registry.py ../shared/models [/tmp/extra-models ...]

Each model becomes one trimmed JSON file (registry/<org>--<name>.json) holding only the keys kvlint
reads, so the package ships facts, not tokenizer ids or remote-code maps. Every folder may carry a
SOURCES.tsv saying where each config was found; the rows of the bundled models are merged into
registry/SOURCES.tsv so the registry names the sources it can be rebuilt from. A model id found in
two folders is an error (one fact, one source). aliases.json and defaults.json are hand-kept and
left alone. tests/models/test_registry.py checks that the trimmed config gives the same ModelSpec
as the full one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kvlint.models.trim import TEXT_KEYS, TOP_KEYS  # one list of kept keys for the bundle and kvlint.lock

REGISTRY = Path(__file__).resolve().parent.parent / "kvlint" / "models" / "registry"


def trim(cfg: dict) -> dict:
    keep = TOP_KEYS | TEXT_KEYS if "text_config" not in cfg else TOP_KEYS
    out = {k: v for k, v in cfg.items() if k in keep}
    if isinstance(cfg.get("text_config"), dict):
        out["text_config"] = {k: v for k, v in cfg["text_config"].items() if k in TEXT_KEYS}
    return out


PROVENANCE_KEYS = ("repo_where_found", "path_in_that_repo", "commit", "confidence")


def source_rows(root: Path) -> tuple[list[str], dict[str, list[str]]]:
    """SOURCES.tsv beside the configs: its header and hub_id -> raw row (all columns, as written)."""
    table = root / "SOURCES.tsv"
    if not table.is_file():
        return [], {}
    lines = [line for line in table.read_text().splitlines() if line.strip()]
    header = lines[0].split("\t")
    return header, {line.split("\t")[0]: line.split("\t") for line in lines[1:]}


def provenance(root: Path) -> dict[str, dict[str, str]]:
    """Where each config was found (SOURCES.tsv beside the configs), kept with the facts."""
    header, rows = source_rows(root)
    out = {}
    for hub_id, cells in rows.items():
        row = dict(zip(header, cells, strict=False))
        out[hub_id] = {k: row[k] for k in PROVENANCE_KEYS if row.get(k)}
    return out


def collect(roots: list[Path]) -> dict[str, Path]:
    """model id -> its folder over all roots; the same id twice is refused."""
    found: dict[str, Path] = {}
    for root in roots:
        for config in sorted(root.glob("*/*/config.json")):
            model_id = f"{config.parent.parent.name}/{config.parent.name}"
            if model_id in found:
                raise SystemExit(f"{model_id} is in both {found[model_id]} and {config.parent}")
            found[model_id] = config.parent
    return found


def sources_table(roots: list[Path], model_ids: set[str]) -> str:
    """registry/SOURCES.tsv: the rows of every bundled model, in the columns of the first table."""
    header: list[str] = []
    rows: dict[str, list[str]] = {}
    for root in roots:
        head, table = source_rows(root)
        header = header or head
        if head and head != header:
            raise SystemExit(f"{root}/SOURCES.tsv columns differ from the first table's")
        rows.update({k: v for k, v in table.items() if k in model_ids})
    lines = ["\t".join(header)] + ["\t".join(rows[k]) for k in sorted(rows, key=str.lower)]
    return "\n".join(lines) + "\n"


def entry(model_dir: Path, model_id: str, found: dict[str, str] | None = None) -> dict:
    data = {"id": model_id, "config": trim(json.loads((model_dir / "config.json").read_text()))}
    if found:
        data["provenance"] = found
    side = model_dir / "hf_quant_config.json"
    if side.is_file():
        data["hf_quant_config"] = json.loads(side.read_text())
    return data


def render(data: dict) -> str:
    return json.dumps(data, indent=1) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    roots = [Path(arg) for arg in argv]
    models = collect(roots)
    found: dict[str, dict[str, str]] = {}
    for root in roots:
        found.update(provenance(root))
    for old in REGISTRY.glob("*--*.json"):
        old.unlink()
    for model_id, folder in models.items():
        target = REGISTRY / f"{model_id.replace('/', '--')}.json"
        target.write_text(render(entry(folder, model_id, found.get(model_id))))
    (REGISTRY / "SOURCES.tsv").write_text(sources_table(roots, set(models)))
    print(f"wrote {len(models)} models from {len(roots)} folders to {REGISTRY}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
