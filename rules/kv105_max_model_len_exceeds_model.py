"""The requested maximum length is beyond what the model's config.json allows.

## What it checks
`--max-model-len` (vLLM) or `--context-length` (SGLang) against the length each engine derives from
config.json (`max_position_embeddings`, `rope_scaling`, `max_seq_len` and friends, as that engine
reads them). That limit is not always the default: vLLM starts a LongRoPE model (Phi-3 128k) at its
`original_max_position_embeddings` when no length is given, but accepts any length up to `max_position_embeddings`.

## Why it matters
vLLM refuses to start (`User-specified max_model_len ... is greater than the derived
max_model_len`) unless `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` is set; SGLang refuses too (`User-specified
context_length ... is greater than the derived context_length`, a ValueError) unless
`SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1` is set. Either way, positions past the derived maximum are
beyond what the model was trained on unless its rope scaling covers them.

## Example
```
vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 16384   # derived: 8192
```

When the model is a local folder kvlint identified by its name (`/models/Qwen2.5-7B-Instruct`: the
published config stands in for the folder's own config.json), the finding is a warning that says so: the
folder's config.json may carry a `rope_scaling` its owner added (Qwen's documented way to serve 128K), which
kvlint did not read.

When the launch changes the positions itself (`--rope-scaling`, a rope set in `--hf-overrides` or SGLang's
`--json-model-override-args`), kvlint does not apply the change: the length is an info saying so, never an error.
When the engine's process sees `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` (or SGLang's
`SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1`: a container's environment, an `export`), the engine starts anyway:
an info.

## Use instead
Use the model's maximum or a long-context variant of the model (or a rope scaling it was trained for).

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV105", "max-model-len-exceeds-model", Severity.ERROR,
      "The maximum length exceeds the model's derived maximum.", needs=("model",), reads=("max_len",))
def check(ctx: Context) -> Iterator[Finding]:
    dep, model = ctx.deployment, ctx.model
    asked = c.value(dep, "max_len")
    if model is None or not isinstance(asked, int) or asked <= 0:
        return
    derived = ctx.engine.max_len_limit(model)
    if not derived or asked <= derived:
        return
    limited = derived != ctx.engine.derived_max_len(model)  # LongRoPE: the default is shorter than the limit
    key = (model.field_name("max_len_limit") if limited else model.max_len_key) or "max_position_embeddings"
    field, words = c.config_field(ctx, "max_len_limit" if limited else "max_len")
    name = c.setting_name(dep.engine, "max_len")
    override = _length_override(dep)
    if override is not None:  # the launch raises the derived maximum itself: no refusal kvlint can assert
        yield check.rule.finding(
            ctx, f"{name} {asked} is above the config's derived maximum {derived}, but the launch sets its own "
            f"{override}, which raises that maximum: kvlint does not apply it, so this length is not checked",
            c.primary(dep, "max_len"), related=[field], severity=Severity.INFO, requested=asked, derived=derived)
        return
    switch = ctx.engine.long_context_switch
    if switch and switch in dep.env_switches:  # the launch lets the engine start past the derived maximum
        yield check.rule.finding(
            ctx, f"{name} {asked} is above the config's derived maximum {derived}, and the launch sets {switch}=1: "
            f"{c.title(dep.engine)} starts with it and warns; positions past {derived} are beyond what the model "
            "was trained on unless its rope scaling covers them", c.primary(dep, "max_len"), related=[field],
            severity=Severity.INFO, requested=asked, derived=derived)
        return
    outcome = ctx.engine.long_context_outcome
    by_name = model.source.startswith("path:")  # a local folder named for the model: its own config.json unread
    if by_name:
        outcome = (f"if {dep.model}/config.json is the published one (no rope_scaling added to it), {outcome}")
    yield check.rule.finding(
        ctx, f"{name} {asked} is greater than the derived maximum {derived}{words or f' ({key} of {model.model_id})'}: "
        f"{outcome}", c.primary(dep, "max_len"), related=[field],
        fix=f"{c.flag(dep.engine, 'max_len')} {derived}", requested=asked, derived=derived,
        severity=Severity.WARNING if by_name else None)


_OVERRIDE_WORDS = ("rope_scaling", "rope_parameters", "max_position_embeddings", "rope_type")


def _length_override(dep: object) -> str | None:
    """The launch's own change to the model's positions: `--rope-scaling` (vLLM before 0.13), a rope set or a
    max_position_embeddings in `--hf-overrides` / SGLang's `--json-model-override-args`; None without one."""
    unknown = getattr(dep, "unknown_flags", ())
    flag = next((u.flag for u in unknown if u.flag in ("--rope-scaling", "--rope_scaling")), None)
    if flag is not None:
        return f"rope scaling ({flag})"
    settings = getattr(dep, "settings", {})
    for name in ("rope_scaling", "hf_overrides", "json_model_override_args"):
        setting = settings.get(name)
        if setting is not None and (name == "rope_scaling" or any(w in str(setting.value) for w in _OVERRIDE_WORDS)):
            return f"rope scaling ({setting.flag or name})"
    return None
