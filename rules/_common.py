"""Helpers shared by rule modules: numbers and flags written the way each engine writes them.

Messages must read like the engine's own log or error, so the same setting is spelled
`--max-model-len` for vLLM and `--context-length` for SGLang; the engine record (kvlint.engines)
knows the spellings, these helpers only ask it by role.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from kvlint.budget import Budget
from kvlint.deployment import Deployment
from kvlint.engines import get_engine
from kvlint.errors import KvlintError
from kvlint.findings import Related
from kvlint.flags.flag_table import first_seen
from kvlint.flags.flag_table import on_release as takes
from kvlint.record import record
from kvlint.registry import Context
from kvlint.sizes import GIB
from kvlint.span import Span


def setting_name(engine: str, role: str) -> str:
    return get_engine(engine).setting(role)


def flag(engine: str, role: str) -> str:
    return get_engine(engine).flag(role)


def has_role(engine: str, role: str) -> bool:
    """Whether the engine has a setting for `role` (SGLang's pool cap, --max-total-tokens; vLLM has none)."""
    return role in getattr(get_engine(engine), "roles", {})


def on_release(ctx: Context, role: str) -> bool:
    """Whether the release the launch pins takes the role's flag: a fix is never a flag the release lacks (nor one
    the tables cannot vouch for on a release older than they are)."""

    engine = ctx.deployment.engine
    return takes(engine, flag(engine, role), ctx.pinned_version) is True


def added_after(ctx: Context, name: str) -> tuple[str, str] | None:
    """(option, first release read with it) for a setting the pinned release does not have yet: the tables read a
    release at or after the pinned one, before the flag's first, without it. None when nothing pins a release or
    the tables cannot say."""

    engine, pinned = ctx.deployment.engine, ctx.pinned_version
    if pinned is None:
        return None
    try:
        found = first_seen(engine, name)
    except KvlintError:
        return None
    if found is None or takes(engine, found[0], pinned) is not False:
        return None
    return found


def first_read(engine: str) -> str:
    """The oldest release whose parser the engine's flag table read."""
    from kvlint.flags.flag_table import releases_read

    read = releases_read(engine)
    return read[0] if read else ""


def older(version: str, than: str) -> bool:
    """Whether release `version` comes before release `than` (by their first three numbers: the flag tables' order)."""
    from kvlint.flags.flag_table import earlier

    return earlier(version, than)


def fp8_kv(engine: str) -> str:
    return get_engine(engine).fp8_kv_dtype


def title(engine: str) -> str:
    return get_engine(engine).title


def value(dep: Deployment, role: str, default: Any = None) -> Any:
    return dep.get(setting_name(dep.engine, role), default)


def span(dep: Deployment, role: str) -> Span | None:
    return dep.span_of(setting_name(dep.engine, role))


def primary(dep: Deployment, *roles: str) -> Span | None:
    """The first explicit setting among roles; else the launch (a default decided it)."""
    for role in roles:
        s = span(dep, role)
        if s is not None:
            return s
    return dep.launch_span or dep.model_span


def related(dep: Deployment, role: str, text: str) -> Related | None:
    s = span(dep, role)
    return Related(s, text) if s is not None else None


def tp_of(dep: Deployment) -> int:
    v = value(dep, "tp", 1)
    return v if isinstance(v, int) and v > 0 else 1


def gib(n: float, digits: int = 2) -> str:
    return f"{n / GIB:.{digits}f} GiB"


def gpu_label(ctx: Context) -> str:
    """The catalogue id (H100-SXM-80GB) when known: short, and what --gpu accepts."""
    gpu_id = getattr(ctx.gpu, "id", None)
    return gpu_id or (ctx.budget.gpu_name if ctx.budget is not None else "the GPU")


def tokens(n: float) -> str:
    return f"{int(n):,}"


def est(estimated: bool) -> str:
    return " est." if estimated else ""


BASIS = {"estimated": " est.", "calibrated": " calibrated", "user": " given"}


def basis(b: Budget) -> str:
    """How the budget's one inexact term was obtained, after the figure it affects.

    " est." (kvlint's estimate), " calibrated" (measured by `kvlint verify --calibrate`), " given"
    (non-kv-gib); nothing when the pool did not depend on it.
    """
    return BASIS.get(b.non_kv_source, est(b.kv_pool_estimated))


def config_field(ctx: Context, fact: str) -> tuple[Related | None, str]:
    """A related span at the config.json key when the config is a local file; else words for the message.

    The spans were found once, when the model was resolved (kvlint.resolve): a rule never opens a file.
    """
    model = ctx.model
    key = model.field_name(fact) if model is not None else None
    if model is None or not key:
        return None, ""
    loc = ctx.config_spans.get(key)
    if loc is not None:
        return Related(loc, f"{key} in the model's config.json"), ""
    return None, f" ({key} {model.raw.get(key)} in {model.model_id} config.json)"


_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def launch_model(ctx: Context) -> str:
    """The model as the launch names it when that is a Hub id (`Qwen/Qwen2.5-1.5B-Instruct`), else the config's id:
    two ids can share one config (an instruct tune of its base), and a reviewer looks for the id the file wrote;
    a path (`/data/models/Qwen2___5-7B-Instruct`) is better shown as the id it was resolved to."""
    dep, model = ctx.deployment, ctx.model
    if dep.model and dep.model_resolved and _HUB_ID.match(dep.model):
        return dep.model
    return model.model_id if model is not None else str(dep.model)


def custom_build(image: str | None) -> str | None:
    """The image, when the launch runs one that is not an engine's own published image (a local build named for
    the engine, `vllm-mxfp4-spark:latest`; a third-party build): it may add flags no stock release has, so a flag
    with no spelling near a stock one is the build's to settle, not an error kvlint can assert."""
    from kvlint.engines.registered import engine_names, facts
    from kvlint.image_names import known_image

    if not image:
        return None
    if not known_image(image):
        return image
    # an image of the engine's own project that is not one of its release builds (`vllm/vllm-omni`, a plugin's,
    # sample K69): known by its name, but its flags are the plugin's too
    repo = image.lower().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    stock = any(repo == name or repo.startswith(facts(name).VERSION_TAGGED_IMAGES) for name in engine_names())
    return None if stock else image


@record
class Plugin:
    """A package built on an engine that a launch turns on with a switch of its own (kvlint/data/plugins.json)."""

    package: str
    engine: str
    switch: str
    places_devices: bool  # it puts its stages on devices of its own choosing: the GPU count is not TP x PP


def switched_plugin(dep: Deployment) -> Plugin | None:
    """The plugin whose switch the launch passes (`vllm serve M --omni`: vllm-omni), whatever its image: a switch no
    stock release has is among the launch's unknown flags."""
    given = {u.flag.split("=", 1)[0] for u in dep.unknown_flags}
    return next((p for p in _plugins() if p.engine == dep.engine and p.switch in given), None) if given else None


@lru_cache(maxsize=1)
def _plugins() -> tuple[Plugin, ...]:
    """kvlint/data/plugins.json, read once a run."""
    from kvlint.data import load_json

    return tuple(Plugin(p["package"], p["engine"], p["switch"], p.get("places_devices", False))
                 for p in load_json("plugins.json")["plugins"])


# options whose value names the hardware platform the engine runs on: a value no release lists is a vendor's
PLATFORM_DESTS = ("device", "attention_backend")


def vendor_platform(dep: Deployment) -> str | None:
    """`--device rbln`, `--attention-backend dcu_mla`: a platform option given a value no release kvlint reads lists,
    unrelated to every one it does (a slip of a stock value is not one), or a value the removed option never took
    (vLLM's `--device`, whose choices the removal record keeps). Only a vendor's build of the engine (Rebellions'
    vllm-rbln, Hygon DCU's SGLang) serves such a platform, so the launch runs that build and its options are that
    build's (samples K197, K198). The option and value as written, or None."""
    from kvlint.flags.flag_table import removed_flag

    for bad in dep.invalid_values:
        if bad.setting in PLATFORM_DESTS and unrelated_choice(bad.raw, bad.reason):
            return f"{bad.flag} {bad.raw}"
    for unknown in dep.unknown_flags:
        if unknown.reason != "removed" or not unknown.value or unknown.value.startswith("$"):
            continue
        try:
            record = removed_flag(dep.engine, unknown.flag) or {}
        except KvlintError:
            continue
        choices = record.get("choices")
        if record.get("dest") in PLATFORM_DESTS and choices and unknown.value.lower() not in choices:
            return f"{unknown.flag} {unknown.value}"
    return None


def vendor_device(dep: Deployment) -> str | None:
    """The accelerator a launch runs on when only a vendor's build or plugin of the engine serves it (Tenstorrent's
    vLLM, Gaudi's, Neuron's, TPU's): `dep.gpu` is then the device's kind (kvlint.gpus non-GPU table), not a GPU,
    and that build's parser decides the options (turn 37's K331: `--num_gpus` in a QuietBox guide). None for a GPU
    or a CPU, which stock releases serve."""
    from kvlint.gpus import accelerator_kind

    kind = accelerator_kind(dep.gpu) if isinstance(dep.gpu, str) else None
    return _VENDOR_DEVICES.get(kind or "")


_VENDOR_DEVICES = {"tenstorrent": "Tenstorrent chips", "gaudi": "Intel Gaudi", "neuron": "AWS Neuron", "tpu": "TPUs"}
_SLIP = 0.7  # a slip is one or two edits of a choice (`nome`, `prefil`: 0.75 and up); `ananke` beside `none` is 0.6


def _choices(raw: str, reason: str) -> list[str] | None:
    """The valid choices a refusal lists (`valid: a, b`), lower-cased; None when it lists none or the value is an
    expansion or a JSON value (`$X`, `{...}`), no choice of its own."""
    if not reason.startswith("valid: ") or not raw or raw.startswith(("$", "{")):
        return None
    return [v.strip().lower() for v in reason[len("valid: "):].split(",") if v.strip()]


def no_slip(raw: str, reason: str) -> bool:
    """An invalid choice that is no slip of a valid one (one or two edits away): `flashqla_sm75` beside `flashinfer`,
    a build's own value, not a typo of a stock one."""
    from kvlint.suggest import close_matches

    choices = _choices(raw, reason)
    return choices is not None and not close_matches(raw.lower(), choices, n=1, cutoff=_SLIP)


def unrelated_choice(raw: str, reason: str) -> bool:
    """An invalid choice unrelated to every valid one (`--disaggregation-mode language` against null, prefill,
    decode: an SGLang development branch's mode) may be a newer or another build's value; a slip (`prefil`) or a
    spelling of the same family (`fp16` beside `fp8`) is not."""
    choices, low = _choices(raw, reason), raw.lower()
    related = choices is None or any(c[:2] == low[:2] or c in low or low in c for c in choices)  # `fp16` beside fp8
    return not related and no_slip(raw, reason)
