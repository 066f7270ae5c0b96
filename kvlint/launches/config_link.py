"""`vllm serve --config engine.yaml`: the file's keys count as flags, below the command line's own.

vLLM inserts the YAML keys after `serve <model>`, so a flag on the command line wins. The file is
looked up next to the manifest; when it is not there the launch says so instead of guessing.
"""

from __future__ import annotations

import os

from kvlint.deployment import Deployment
from kvlint.engines import get_engine
from kvlint.record import replace


def merge_config_file(dep: Deployment) -> Deployment:
    cfg = dep.settings.get("config")
    if not get_engine(dep.engine).syntax.config_file_merged or cfg is None or not cfg.resolved \
            or not str(cfg.value).endswith((".yaml", ".yml")):
        return dep
    target = os.path.join(os.path.dirname(dep.path), str(cfg.value))
    if dep.path == "-" or not os.path.isfile(target):
        note = f"--config {cfg.value} is not next to this file; its settings are not included"
        return replace(dep, notes=dep.notes + (note,))
    from kvlint.launches import read_path

    found = [d for d in read_path(target, as_vllm_config=True).deployments if d.engine == dep.engine]
    if not found:
        return replace(dep, notes=dep.notes + (f"--config {cfg.value} holds no vLLM settings kvlint can read",))
    file_dep = found[0]
    settings = {**file_dep.settings, **dep.settings}  # the command line wins
    source = dep if dep.model else file_dep
    model = (source.model, source.model_span, source.model_resolved)
    refused = tuple(v for v in file_dep.invalid_values if v.setting not in dep.settings)  # unless overridden
    unknown = () if dep.notes and any("wrapper" in n for n in dep.notes) else file_dep.unknown_flags
    return replace(dep, settings=settings, model=model[0], model_span=model[1], model_resolved=model[2],
                   notes=dep.notes + (f"settings from --config {cfg.value} merged below the command line",),
                   invalid_values=dep.invalid_values + refused,
                   unknown_flags=dep.unknown_flags + unknown)  # vLLM turns each key into a flag: unknown ones fail
