"""A flag value the engine refuses: the server exits before it loads the model.

## What it checks
Every value is read with the engine's own type function and choices (`-tp two` is not an integer;
SGLang reads `32k` but not `32K`; vLLM has no `--kv-cache-dtype fp16`, SGLang no plain `fp8`), then
against the checks the engine runs at start-up (`--gpu-memory-utilization` in (0, 1], parallel sizes
of at least 1, MLA-only cache dtypes on MLA models). The finding points at the value as written.

A value that is not a choice of the newest release kvlint models and is unrelated to every one (a mode only a
development branch has), or that is one of them with more words after or before it (`--load-format layered_fp8` beside
`layered`, `--fp4-gemm-backend hybrid_marlin` beside `marlin`: a newer or forked build's variant), is said as an info
naming the release assumed when the launch pins none: a newer build may accept it; on an image that is not a stock
build of the engine (a local or third-party build, `sglang:v0.5.16-dsv4-sm120` with backported changes), such a value
is an info too, the build deciding, as KV004 says of its flags; on such an image whose release the launch does not pin
(`vllm-sm75:v${VERSION}`, a fork's own build), any choice that is no slip of a stock one is the build's
(`--gdn-prefill-backend flashqla_sm75`). A near miss (`prefil`, `fp16` beside `fp8`), or any other refused value on a
pinned release, stays an error.

A few values every release kvlint reads refuses were read by older releases (the engine record's `older_readings`, read
from those wheels): vLLM 0.5.5 to 0.8.0 read `--enable-chunked-prefill False` as "off", and 0.5.5 to 0.9.2 read
`--limit-mm-per-prompt image=5,video=5` as well as JSON; a value the newest release no longer lists was a choice of
earlier ones (`--mamba-cache-mode all`, from 0.15.0 to 0.31.0, read from those wheels), as is every choice the flag
table's older choice lists hold (SGLang's, read from each release 0.5.4 to 0.5.23: `--fp4-gemm-backend cutlass` from
0.5.10 to 0.5.13, `--attention-backend cutlass_mla` to 0.5.13; sample K276). On an image pinned to such a
release there is no finding; on a launch that pins no release (a host install, a README's command), the finding is a
warning that says which release it assumed and that an older install may accept the value (samples K98, K103: an
unpinned script and a model README of that time); on an image that names no release kvlint reads
(`vendor/vllm:${VLLM_VERSION}`, a third-party build), the image's release decides, and the finding is an info (sample
K163: a vendor's vLLM image of the V0 era run with `--enable-chunked-prefill False`); so it is for a launch whose file
marks a vendor's build (`NEURON_*` variables: an AWS Neuron build, sample K254) and pins no release. A file that runs
a vendor's fork with an argument parser of its own (a script importing `xfastertransformer` runs vllm-xft, whose
`--dtype bf16` and `--kv-cache-dtype fp16` stock vLLM refuses: sample K320) gets an info for any refused value; a
file that installs a package built on the engine (`pip install "fused-turboquant[cuda,vllm]"`, a plugin that adds
cache types, sample K370) and runs the launch on that install gets an info for a refused choice, as does a launch
that runs a build of the engine's own source (a checkout on PYTHONPATH, installed editable, or the environment kept
inside a folder named for the engine: `~/vllm-gfx908/.venv/bin/vllm`, sample K375's `--kv-cache-dtype int8`), for a
refused choice or a number the stock parser wants (`--mamba-full-memory-ratio auto`, sample K397's fork). A launch
read by the engine's flags through a program kvlint does not know (`python3 -m vllm.entrypoints.bosonai.api_server`,
a fork's server, sample K529) gets an info for any refused value: that program's parser decides it. A
value a key of a chart kvlint has no adapter for gives (`vllm: {logLevel: info}`) is an info: kvlint maps the key to the
option spelled like it, but the chart's template decides the option and how it writes the value (sample K310).

## Why it matters
argparse exits with `invalid ... value` or `invalid choice`, and the engine's config validation
raises before any weight is loaded: the pod crash-loops, usually after a long image pull. The
capacity rules are skipped for such a deployment, since the engine never sizes its memory.

## Example
```
vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp16 --gpu-memory-utilization 1.5
```

## Use instead
```
vllm serve Qwen/Qwen3-8B --kv-cache-dtype auto --gpu-memory-utilization 0.9
```

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.deployment import AFTER_LOAD, BY_FLAGS, CHART_KEY, Deployment, InvalidValue
from kvlint.findings import Finding, Severity
from kvlint.flags.flag_values import older_era
from kvlint.registry import Context, rule
from kvlint.rules import _common as c

# a number the stock parser wants, which a source tree's parser may take in another form (K397: a fork's
# `--mamba-full-memory-ratio auto`)
_RETYPED = frozenset({"not a number", "not an integer"})


@rule("KV007", "invalid-flag-value", Severity.ERROR, "A flag value the engine refuses at argument parsing or start-up.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    engine = c.title(dep.engine)
    for bad in (*dep.invalid_values, *((ctx.refusal,) if ctx.refusal is not None else ())):
        if ctx.pinned_version and bad in dep.invalid_values and bad.setting and c.added_after(ctx, bad.setting):
            continue  # the pinned release has no such flag at all: KV004 says so, its values are not the point
        what = f"{bad.flag} {bad.raw}".strip() if bad.flag else "these settings"
        extended = _extends_a_choice(bad.raw, bad.reason)
        unlisted = bad in dep.invalid_values and (extended is not None or c.unrelated_choice(bad.raw, bad.reason)
                                                  or _a_forks_word(bad.raw, bad.reason, dep))
        # a custom build the launch pins no release of (`vllm-sm75:v${VERSION}`, a fork's local image, sample K251)
        # decides any value that is no slip of a stock one; a pinned one, a value unrelated to every stock one
        custom = c.custom_build(dep.image) if (ctx.pinned_version is not None and unlisted) or (
            ctx.pinned_version is None and bad in dep.invalid_values and c.no_slip(bad.raw, bad.reason)) else None
        tree = ctx.engine_tree if bad in dep.invalid_values else None
        if tree is not None and not tree.adds and dep.image is None:
            yield _fork_value(ctx, bad, what, tree.parser)
            continue
        if ctx.version_fork and ctx.pinned_version is None and bad in dep.invalid_values:
            yield _vendor_fork_value(ctx, bad, what)
            continue
        if (program := _through(dep)) is not None and bad in dep.invalid_values:
            yield _decided_by(ctx, bad, what, f"the launch runs {program}, a program kvlint does not know that "
                                              f"takes {engine}'s flags (a fork's or a wrapper's): its parser decides",
                              program)
            continue
        if dep.extension and dep.image is None and bad in dep.invalid_values and bad.reason.startswith("valid:"):
            yield _plugin_value(ctx, bad, what, dep.extension)
            continue
        if ctx.version_build and ctx.pinned_version is None and bad in dep.invalid_values \
                and (bad.reason.startswith("valid:") or bad.reason in _RETYPED):
            yield _decided_by(ctx, bad, what, f"the launch runs the {engine} source tree {ctx.version_build}, a build "
                                              "whose parser may add choices or take other values (`auto` for a "
                                              "number): that build decides", "the build")
            continue
        if custom:
            yield _custom_value(ctx, bad, what, custom)
            continue
        if bad.origin == CHART_KEY:
            yield _chart_key_value(ctx, bad, what)
            continue
        if ctx.pinned_version is None and unlisted:
            release = _table_version(dep.engine)
            how = f"is the valid {extended} with more words" if extended else "is unrelated to every valid one"
            yield check.rule.finding(
                ctx, f"{engine} {release or 'as kvlint models it'} rejects {what}: {bad.reason}; the launch pins no "
                     f"release ({release or 'the newest'} assumed) and the value {how}, so "
                     "it may come from a newer or development build, where the verdict differs: pin the image tag, or "
                     "`engine-version:` in .kvlint.yaml, to settle it",
                bad.span or dep.launch_span, fix=_fix(bad.reason), flag=bad.flag, value=bad.raw, setting=bad.setting,
                severity=Severity.INFO)
            continue
        assumed = ""
        if ctx.pinned_version is None and bad in dep.invalid_values and (release := _table_version(dep.engine)):
            assumed = f" ({engine} {release} assumed: the launch pins no release)"
        older = _older_may_accept(ctx, bad) if bad in dep.invalid_values else None
        if older == "":
            continue  # the pinned release reads the value (a word after the switch, KEY=VALUE pairs)
        when = "once its weights are loaded" if bad.origin == AFTER_LOAD else "before loading the model"
        yield check.rule.finding(
            ctx, f"{engine} rejects {what}: {bad.reason}; the server exits {when}"
                 f"{older or assumed}", bad.span or dep.launch_span, fix=_fix(bad.reason), flag=bad.flag,
            value=bad.raw, setting=bad.setting,
            severity=(Severity.INFO if _image_decides(ctx) or _vendor_decides(ctx) else Severity.WARNING)
            if older else None)


def _through(dep: Deployment) -> str | None:
    """The program a launch read by the engine's flags runs (kvlint.launches.byflags: `python3 -m
    vllm.entrypoints.bosonai.api_server`, Boson AI's fork in sample K529, given `--limit-mm-per-prompt audio=50`):
    not a stock release, so its parser, not the flag table's, decides a value."""
    note = next((n for n in dep.notes if BY_FLAGS in n), None)
    return None if note is None else note.split(BY_FLAGS, 1)[1].split(",", 1)[0]


def _fork_value(ctx: Context, bad: InvalidValue, what: str, parser: str) -> Finding:
    """The repository holds its own engine tree (a fork of the engine's source, kvlint.resolve.fork) and no image
    runs the launch: the launch runs that tree, whose parser decides the value (sample K220's SGLang fork, whose
    script passes `--mm-attention-backend fa2`), as KV004 and KV005 say of its flags."""
    engine = c.title(ctx.deployment.engine)
    return _decided_by(ctx, bad, what, f"the repository holds its own {engine} tree ({parser}), which the launch runs: "
                                       "that fork's parser decides the value", parser)


def _vendor_fork_value(ctx: Context, bad: InvalidValue, what: str) -> Finding:
    """The file runs a vendor's fork of the engine with an argument parser of its own (kvlint/data/
    vendor_launchers.json `own_parser`: a script that imports xfastertransformer runs vllm-xft, which reads `--dtype
    bf16`, sample K320): that fork's choices decide the value, so stock vLLM's refusal is said, not asserted."""
    fork = ctx.version_fork
    return _decided_by(ctx, bad, what, f"the launch runs {fork}, whose own parser decides the value", fork)


def _plugin_value(ctx: Context, bad: InvalidValue, what: str, plugin: str) -> Finding:
    """The file installs a package built on the engine (`pip install "fused-turboquant[cuda,vllm]"`, sample K370's
    README) and the launch runs on that host install: a plugin may register choices of its own (K370's registers
    `turboquant_k{K}v{V}_nc` cache types), so a choice stock releases lack is the plugin's to settle, as KV004 says of
    its options. A value outside a range (`--gpu-memory-utilization 1.5`) is no choice and stays the error."""
    engine = c.title(ctx.deployment.engine)
    return _decided_by(ctx, bad, what, f"the file installs {plugin}, a package built on {engine} that may add "
                                       "choices of its own: that package decides", plugin)


def _decided_by(ctx: Context, bad: InvalidValue, what: str, but: str, parser: str) -> Finding:
    """The info for a value stock engines refuse that the parser the launch really runs decides."""
    engine = c.title(ctx.deployment.engine)
    return check.rule.finding(
        ctx, f"stock {engine} rejects {what}: {bad.reason}; but {but}", bad.span or ctx.deployment.launch_span,
        fix=f"check that {parser} accepts {bad.raw}", flag=bad.flag, value=bad.raw, setting=bad.setting,
        severity=Severity.INFO)


def _chart_key_value(ctx: Context, bad: InvalidValue, what: str) -> Finding:
    """A value a key of a chart kvlint has no adapter for gives (`vllm: {logLevel: info}`, sample K310): kvlint maps
    the key to the option spelled like it, but the chart's template decides which option it becomes (vLLM 0.33's
    `--log-level` takes `INFO`; `--uvicorn-log-level`, which older charts write, takes `info`) and how it writes the
    value, so the refusal is not asserted. An operator's resource kvlint has no adapter for is the same: its
    controller writes the command (`gpuMemoryUtilization: 85`, a percentage it may divide by 100, turn 37's K329)."""
    engine = c.title(ctx.deployment.engine)
    return check.rule.finding(
        ctx, f"{engine} would reject {what} as that option: {bad.reason}; the value is a key of a chart or resource "
             "kvlint has no adapter for, whose template or controller decides which option it becomes and how it "
             "writes it: check the rendered command", bad.span or ctx.deployment.launch_span, fix=_fix(bad.reason),
        flag=bad.flag, value=bad.raw,
        setting=bad.setting, severity=Severity.INFO)


def _custom_value(ctx: Context, bad: InvalidValue, what: str, image: str) -> Finding:
    """A value no stock release lists, unrelated to every one (or a variant of one, or a word of the launch's own
    unknown options), on an image that is not a stock build (`sglang:v0.5.16-dsv4-sm120` with backported pull
    requests, sample K177's `--load-balance-method prefix_affinity`): the build decides, as KV004 says of its
    flags. A near miss stays the error."""
    engine = c.title(ctx.deployment.engine)
    release = ctx.pinned_version or _table_version(ctx.deployment.engine) or "as kvlint models it"
    return check.rule.finding(
        ctx, f"{engine} {release} rejects {what}: {bad.reason}; the image {image} is not a stock {engine} "
             "image and the value is no slip of a valid one, so the build (which may add it) decides",
        bad.span or ctx.deployment.launch_span, fix=_fix(bad.reason), flag=bad.flag, value=bad.raw,
        setting=bad.setting, severity=Severity.INFO)


def _image_decides(ctx: Context) -> bool:
    """An image runs the launch but names no release kvlint reads (`vendor/engine:${VERSION}`, a third-party build):
    its release decides whether an older reading applies, so the verdict is said as an info, as KV005 says it."""
    return ctx.pinned_version is None and ctx.version_source == "default" and ctx.deployment.image is not None


def _vendor_decides(ctx: Context) -> bool:
    """The launch runs a vendor's build its file marks (`NEURON_*` variables: an AWS Neuron build, a vendor image's
    launcher) and pins no release: that build's release decides an older reading, said as an info, as KV005 says a
    removed flag there (sample K254: `--limit-mm-per-prompt image=2` in a Neuron example)."""
    return ctx.pinned_version is None and ctx.version_source == "default" and bool(ctx.version_why)


def _older_may_accept(ctx: Context, bad: InvalidValue) -> str | None:
    """For a value that releases older than the flag table read (kvlint.engines.base older_readings: a word after
    a switch, `image=5,video=5` for a JSON option): "" when the pinned release is one of them (it accepts the value:
    no finding), the hedge when the release met may be one (a launch that pins none: a host install's or a README's
    release decides; a pin between the last release read with it and the first read without), else None (the error
    stands)."""
    engine, pinned = ctx.deployment.engine, ctx.pinned_version
    era = older_era(engine, bad.flag or "", bad.raw, bad.reason)
    if era is None:
        return None
    _, first, last, without = era
    title = c.title(engine)
    read = f"{title} {first} to {last} read {bad.flag} {bad.raw} as a value"
    if pinned is None and _image_decides(ctx):
        return (f" on the newest {title} release ({_table_version(engine)} assumed); the image "
                f"{ctx.deployment.image} names no release kvlint reads and {read}, so the image's release decides")
    if _vendor_decides(ctx):  # a vendor's build runs it
        return (f" on the newest {title} release ({_table_version(engine)} assumed); the launch pins none "
                f"({ctx.version_why}) and {read}, so that build's release decides")
    if pinned is None and ctx.release_open:  # a host install, or a command no image or setting pins (a README's)
        return (f" on the newest {title} release ({_table_version(engine)} assumed: the launch pins none; {read}, "
                "so an older install may accept it)")
    if pinned is None or not c.older(pinned, without) or c.older(pinned, first):
        return None
    if not c.older(last, pinned):
        return ""
    return f" from {without} on; {read}, and whether {pinned} (pinned) does is not known here"


def _extends_a_choice(raw: str, reason: str) -> str | None:
    """The valid choice an invalid one is, with more words after or before it (`layered_fp8` for SGLang's `layered`,
    sample K112's Intel XPU build; `hybrid_marlin` for `marlin`, K446's SGLang fork): a newer or forked build's
    variant of the choice, no slip; None for anything else."""
    if not reason.startswith("valid: ") or not raw:
        return None
    low = raw.lower()
    choices = [v.strip().lower() for v in reason[len("valid: "):].split(",") if v.strip()]
    return next((c for c in choices if len(c) >= 3 and len(low) > len(c) + 1 and (
        (low.startswith(c) and low[len(c)] in "_-") or (low.endswith(c) and low[-len(c) - 1] in "_-"))), None)


def _a_forks_word(raw: str, reason: str, dep: Deployment) -> bool:
    """A choice the same launch's options of no release name (`--grammar-backend ananke` beside `--ananke-language`,
    sample K64's SGLang fork): the build that adds those options adds the value too, so it is no slip."""
    low = raw.lower().replace("_", "-")  # `prefix_affinity` beside `--prefix-affinity-fallback` (sample K177)
    return reason.startswith("valid: ") and len(low) >= 3 and raw.isidentifier() and (any(
        u.reason == "unrecognized" and u.suggestion is None and low in u.flag.lower().split("=", 1)[0]
        for u in dep.unknown_flags) or _a_sibling_values_word(low, dep))


def _a_sibling_values_word(low: str, dep: Deployment) -> bool:
    """Whether a value is made of another of the launch's values that no release lists and that is unrelated to
    every choice (`--load-format exl3_mmap` beside `--quantization exl3`, sample K188's EXL3 build of SGLang): the
    build that adds the one adds the other, so neither is a slip."""
    words = set(low.split("-"))
    return any(other.raw.lower() != low and other.raw.lower().replace("_", "-") in words
               and c.unrelated_choice(other.raw, other.reason) for other in dep.invalid_values)


def _table_version(engine: str) -> str:
    """The newest release the engine's flag table was read from."""
    from kvlint.errors import KvlintError
    from kvlint.flags.flag_table import flag_table

    try:
        return flag_table(engine).version
    except KvlintError:
        return ""


def _fix(reason: str) -> str:
    if " takes no value, so " in reason:
        flag = reason.split(" ", 1)[0]
        off = f" (to turn it off: --no-{flag[2:]})" if f"--no-{flag[2:]} turns it off" in reason else ""
        return f"drop the word after {flag}: the switch alone turns it on{off}"
    if reason.startswith("valid: "):
        return "use one of " + reason[len("valid: "):]
    if reason.startswith("must"):
        return f"a value that {reason}"
    return "a value the engine accepts"
