"""`vllm serve --config engine.yaml`: the file's keys count as flags, below the command line's own.

vLLM inserts the YAML keys after `serve <model>`, so a flag on the command line wins. The file is
looked up next to the manifest; when it is not there the launch says so instead of guessing.
"""

from __future__ import annotations

import os

from kvlint.deployment import Deployment, Setting
from kvlint.engines import get_engine
from kvlint.record import replace


def merge_config_file(dep: Deployment) -> Deployment:
    cfg = dep.settings.get("config")
    if not get_engine(dep.engine).syntax.config_file_merged or cfg is None or not cfg.resolved \
            or not str(cfg.value).endswith((".yaml", ".yml")):
        return dep
    target = os.path.join(os.path.dirname(dep.path), str(cfg.value))
    if dep.path == "-" or not os.path.isfile(target):
        return _unread(dep, cfg, "is not next to this file")
    from kvlint.launches import read_path

    result = read_path(target, as_vllm_config=True)
    found = [d for d in result.deployments if d.engine == dep.engine]
    if not found and result.findings:
        return _unread(dep, cfg, "cannot be read")
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


_PARALLEL = ("tp", "pp", "dp")  # the roles that decide the GPUs an instance needs


def _unread(dep: Deployment, cfg: Setting, why: str) -> Deployment:
    """A --config file kvlint cannot read may hold the model and the parallel sizes: the ones the command line
    leaves out are unresolved (pointing at the --config value), never "no model" nor a default of 1."""
    engine = get_engine(dep.engine)
    written = f"--config {cfg.value}"
    open_settings = {name: Setting(name, written, cfg.flag, written, cfg.span, cfg.flag_span, resolved=False,
                                   origin="config-file")
                     for name in (engine.setting(r) for r in _PARALLEL) if name not in dep.settings}
    note = (f"--config {cfg.value} {why}; its settings are not included: the model and the parallel sizes "
            f"the command line does not give ({', '.join(engine.flag(r) for r in _PARALLEL)}) are unknown")
    model = (dep.model, dep.model_span, dep.model_resolved) if dep.model else (written, cfg.span, False)
    return replace(dep, settings={**dep.settings, **open_settings}, model=model[0], model_span=model[1],
                   model_resolved=model[2], notes=dep.notes + (note,))
