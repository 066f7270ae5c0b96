"""`vllm serve --config engine.yaml`: the file's keys count as flags, below the command line's own.

vLLM inserts the YAML keys after `serve <model>`, so a flag on the command line wins. A relative path is
looked up next to the manifest, then in the folders above it (a script run from the repository's root, or one
that `cd`s there: `scripts/start.sh` naming `configs/x.yaml`); when it is in none the launch says so instead of
guessing.
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
    target = _located(dep.path, str(cfg.value))
    if target is None:
        return _unread(dep, cfg, "is not next to this file nor in a folder above it")
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
                   config_file=os.path.realpath(target),
                   invalid_values=dep.invalid_values + refused,
                   unknown_flags=dep.unknown_flags + unknown)  # vLLM turns each key into a flag: unknown ones fail


_ABOVE = 3  # folders above the manifest a relative --config path is looked up in (a repository's scripts/x/y.sh)


def _located(path: str, value: str) -> str | None:
    """The --config file a launch in `path` names: next to it, else in the nearest folder above it that holds
    the path (an absolute path as written); None when it is in none of them (or the launch came on stdin)."""
    if path == "-":
        return None
    if os.path.isabs(value):
        return value if os.path.isfile(value) else None
    folder = os.path.dirname(path)
    for _ in range(_ABOVE + 1):
        target = os.path.join(folder, value)
        if os.path.isfile(target):
            return target
        up = os.path.dirname(folder)
        if up == folder or not folder:
            break
        folder = up
    return None


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
    # the caller's words (`"$@"`) name no model of their own: the file does, as far as this launch shows
    given = dep.model and not (not dep.model_resolved and dep.model.strip('"') in ("$@", "$*", "${@}", "${*}"))
    model = (dep.model, dep.model_span, dep.model_resolved) if given else (written, cfg.span, False)
    return replace(dep, settings={**dep.settings, **open_settings}, model=model[0], model_span=model[1],
                   model_resolved=model[2], notes=dep.notes + (note,))
