"""Conformance benchmark: kvlint against the engines' own sizing code, on generated settings.

    python bench/conformance/run.py [--versions 0.33.0,0.27.0,0.20.0,0.11.0] [--sglang 0.5.23]
                                    [--settings 1200] [--scratch /tmp/kvlint-conformance] [--seed 1]

Needs an interpreter with torch (CPU build is enough) to run the engines' modules: pass
`--python /path/to/venv/bin/python`, or run it with such an interpreter. The wheels are fetched with
`pip download --no-deps` into the scratch folder and unzipped there; nothing is installed, and
nothing of the engines' code is kept in this repository. Never a test, never in CI: a maintainer runs
it when a new vLLM or SGLang release appears, adds the release to kvlint/data/engine_versions.json,
and fixes what it reports. Output: per release, how many settings agreed, and each mismatch class
with a minimal reproduction (model, settings, engine vs kvlint).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def fetch(package: str, version: str, scratch: Path) -> Path:
    """The release's wheel, downloaded once and unzipped (Python files only) into scratch/src."""
    target = scratch / "src" / f"{package}-{version}"
    if (target / package).is_dir():
        return target
    wheels = scratch / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    found = list(wheels.glob(f"{package}-{version}-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels),
                        f"{package}=={version}"], check=True)
        found = list(wheels.glob(f"{package}-{version}-*.whl"))
    with zipfile.ZipFile(found[0]) as zf:
        zf.extractall(target, [n for n in zf.namelist() if n.endswith(".py")])
    return target


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--versions", default="0.33.0,0.27.0,0.20.0,0.11.0")
    ap.add_argument("--sglang", default="0.5.23")
    ap.add_argument("--settings", type=int, default=1200, help="generated settings per release")
    ap.add_argument("--scratch", default=os.environ.get("KVLINT_CONFORMANCE_DIR", "/tmp/kvlint-conformance"))
    ap.add_argument("--python", default=sys.executable, help="interpreter with torch for the engines' modules")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write every result to this file")
    args = ap.parse_args()
    scratch = Path(args.scratch)
    total = 0
    jobs = [("vllm", v) for v in args.versions.split(",") if v] + [("sglang", v) for v in args.sglang.split(",") if v]
    for package, version in jobs:
        root = fetch(package, version, scratch)
        workers = ["check_vllm.py"] if package == "vllm" else ["check_sglang.py", "check_sglang_pool.py"]
        for worker in workers:
            out = subprocess.run([args.python, str(HERE / worker), str(root), version, str(args.settings),
                                  str(args.seed)], capture_output=True, text=True, cwd=REPO)
            label = f"{package} {version} ({worker[:-3]})"
            if out.returncode != 0:
                print(f"{label}: harness failed\n{out.stderr[-3000:]}")
                total += 1
                continue
            report = json.loads(out.stdout.splitlines()[-1])
            total += report["mismatches"]
            print(render(label, report))
            if args.json:
                Path(args.json).with_suffix(f".{worker[:-3]}-{version}.json").write_text(json.dumps(report, indent=1))
    return 1 if total else 0


def render(label: str, report: dict) -> str:
    lines = [f"{label}: {report['settings']} settings over {report['configs']} configs "
             f"({report['refused']} refused by the engine), {report['mismatches']} mismatches"]
    if "refusal_numbers_compared" in report:
        lines.append(f"  refusal numbers compared: {report['refusal_numbers_compared']} (the engine's printed length "
                     f"is a first failing stage's, longer than what fits every stage, in "
                     f"{report['printed_is_a_first_stage']})")
    if "mamba_states_compared" in report:
        lines.append(f"  Mamba state per request and layer (the wheel's model classes) compared at "
                     f"{report['mamba_states_compared']} config x TP points")
    if "mla_settings_on_a_gpu" in report:
        lines.append(f"  MLA settings on an SM80/SM90/SM100 card: {report['mla_settings_on_a_gpu']} (the release's "
                     f"GPU-dependent block rule changed the block in {report['block_forced']})")
    for what, ids in report.get("rewritten", {}).items():
        lines.append(f"  restated by the harness (the wheel's code could not run): {what}: {len(ids)} configs, "
                     f"e.g. {ids[0]}")
    for model, why in report.get("view_failures", {}).items():
        lines.append(f"  the wheel's config code failed on {model}: {why}")
    for note in report.get("skipped", []):
        lines.append(f"  not covered: {note}")
    for cls, items in sorted(report["classes"].items(), key=lambda kv: -len(kv[1])):
        lines.append(f"  [{len(items)}] {cls}")
        smallest = min(items, key=lambda it: len(json.dumps(it["settings"])))
        lines.append(f"      e.g. {smallest['model']} {json.dumps(smallest['settings'])}")
        lines.append(f"           engine {json.dumps(smallest['engine'])}")
        lines.append(f"           kvlint {json.dumps(smallest['kvlint'])}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
