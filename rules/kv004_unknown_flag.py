"""A flag the engine's own argument parser would reject.

## What it checks
Every flag of a vLLM or SGLang launch is parsed with that engine's rules: vLLM turns `_` into `-` and accepts unique
prefixes; SGLang accepts only dash spellings and unique prefixes. A flag neither would accept, or a prefix that
matches several flags, is reported with a did-you-mean when an option is spelled like it (the words that differ alike,
not only a shared `--enable-` head). A flag that no release has and nothing is spelled like, or that is one of the
engine's options with more words after it (`--speculative-draft-model-override-args`: a newer option, no misspelling),
is a warning: it may belong to a fork, a plugin or a newer release; an info when the launch runs an image that is not
the engine's own published one (a local or third-party build, which may add it; a script run inside one says so in its
header comment, `# profile for org/sglang-fork`, which settles this question only, never the release), a launch beside
an install of a package built on the engine (`pip install arctic-inference[vllm]`: a plugin, whose options the launch
may use) or that passes a plugin's own switch with no image named (`vllm serve M --omni`: vllm-omni, by
kvlint/data/plugins.json; the stock image has no plugin), a launch that reads a file of the engine's own repository by
a relative path (`--chat-template ./examples/template_alpaca.jinja`: it runs from a checkout, a fork or a source
install), a launch whose file installs the engine from no stock release (a cloned tree, `pip install
./sglang/python[all]`, a git URL, a development or PR build pinned with `==`) or runs it from a checkout it finds in
place (`cd ~/sglang`) or runs a vendor's build its environment marks (`export PT_HPU_...`: Intel Gaudi's vLLM fork) or
its platform value names (`--device rbln`, `--attention-backend dcu_mla`: a platform no stock release serves,
kvlint.rules._common.vendor_platform; there a flag spelled near a stock option is an info too, the did-you-mean kept:
such a build adds options), or a nightly build (newer than the releases kvlint knows), for each of a family of three
or more such flags on one launch, or of two that share their first two words (`--token-pruning-alg`,
`--token-pruning-ratio`; one of them may be spelled near a stock option: `--scheduling-policy-path` beside
`--scheduling-policy-init-kwargs`), or a feature's switch and a knob of it (`--enable-decode-token-budget`,
`--decode-token-budget-stall-limit`; under a namespace, `--mooncake-enable-page-wise-load`,
`--mooncake-page-wise-load-threshold`) (a fork's or a plugin's own options), and for a flag that extends one of the
engine's own features (`--dllm-cuda-graph` beside SGLang's `--dllm-algorithm` options: a newer release or a fork that
builds on the feature adds it; a head many unrelated options share, `--enable-`, `--max-`, is no feature; a first word
that a dozen or more options share, `--speculative-`, is a family of features, whose first two or three words are
tried; a flag under such a feature's head whose nearest spelling is an option of another feature, `--kt-numa-nodes`
near `--numa-node`, is the feature's newer option too, not a slip of the other). An abbreviation that only later
releases find ambiguous (a second option came with the same prefix) is judged
on the release the launch pins, as KV005 judges a removed flag: an info when nothing pins one, a warning on a host
install that pins none (the newest release assumed, and said). One every release kvlint reads finds ambiguous, on a
pinned release older than them all (`--pp 2` on SGLang 0.4.10.post2, whose only `--pp` option was `--pp-size`), is a
warning naming the upgrade that breaks, never an exit. When the repository holds its own engine tree
(`python/sglang/srt/server_args.py`, `vllm/engine/arg_utils.py` between the file and the project root), the launch
runs that fork: an unknown flag is an info naming the tree and whether its parser defines the flag. Without such a
tree, a flag the repository's own Python code adds (`add_argument("--flag")`, a plugin or a patched entry point) is an
info naming where: it is the repository's flag, not a typo. A flag that is the other engine's own option
(`--enable-prefix-caching` on SGLang, `--mem-fraction-static` on vLLM) is said to be that engine's, with no
did-you-mean. A flag of the newest releases that the release the launch pins does not have yet (`--log-level` on
`vllm/vllm-openai:v0.6.2`: first read in 0.33.0, absent from 0.27.0) is an error on that release, when the launch
writes the flag (a chart's key may reach the engine another way). A flag glued to its value by a no-break or other
Unicode space (`--tool-call-parser` U+00A0 `qwen3`, pasted from a web page) is one word to the shell: the error names
the character, not a did-you-mean of the same flag. A flag that names a key of one of vLLM's JSON-valued options
(`--speculative-token-tree`: `speculative_token_tree` of `--speculative-config`, read from the config dataclasses by
bench/json_option_keys.py) says where the key goes instead of a did-you-mean, and the releases read with the key
(one the pinned or the newest release lacks is said to be missing there). An option whose name is an expansion
(`--"$p_type"`) is the caller's to name: never reported (the parallelism it may set is left open).

## Why it matters
argparse exits on the first unknown flag: the pod crash-loops with `unrecognized arguments` before
it loads a single weight, often after a long image pull and model download.

## Example
```
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context_length 32768
```

## Use instead
```
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32768
```

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kvlint.deployment import Deployment
from kvlint.findings import Finding, Severity
from kvlint.flags.flag_table import ConfigKey, config_key, releases_read
from kvlint.registry import Context, rule
from kvlint.rules import _common as c
from kvlint.span import Span


@rule("KV004", "unknown-flag", Severity.ERROR, "A flag the engine's argument parser rejects.")
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    engine = c.title(dep.engine) + (f"'s {dep.server} server" if dep.server else "")  # its table read the flags
    release = f"release of {engine}" if dep.server else f"{engine} release"
    stock = engine if dep.server else f"a stock {engine}"
    tree = ctx.engine_tree
    family = _build_family([u for u in dep.unknown_flags if tree is None or not tree.defines(u.flag)])
    yield from _not_yet(ctx, engine)
    for unknown in dep.unknown_flags:
        if unknown.reason == "removed":
            continue
        span = unknown.span or dep.launch_span
        tree = ctx.engine_tree
        if unknown.reason == "unrecognized" and tree is not None and (not tree.adds or tree.defines(unknown.flag)):
            yield _fork(ctx, unknown.flag, span)
            continue
        if unknown.flag in family:
            shown = ", ".join(sorted(family)[:4]) + (" ..." if len(family) > 4 else "")
            yield check.rule.finding(
                ctx, f"{unknown.flag} is an option of no {release} kvlint knows, one of {len(family)} such flags this "
                f"launch gives ({shown}): it runs a build that adds them (a fork or a plugin), so the build decides; "
                f"{stock} exits at start-up (unrecognized arguments)", span, severity=Severity.INFO,
                fix="keep them where the launch runs the build that defines them", flag=unknown.flag)
            continue
        keyed = config_key(dep.engine, unknown.flag) if unknown.reason == "unrecognized" and not dep.server else None
        longer = _extends(unknown.flag, unknown.suggestion)
        apart = unknown.reason == "unrecognized" and not longer and _outside_feature(dep, unknown.flag,
                                                                                    unknown.suggestion)
        switch = _switched_feature(dep, unknown.flag) if unknown.reason == "unrecognized" else None
        apart = apart or (switch is not None and bool(unknown.suggestion) and not longer)
        if unknown.reason == "unrecognized" and not keyed and (not unknown.suggestion or longer or apart):
            custom = c.custom_build(dep.image)
            said = c.custom_build(dep.said_image) if not dep.image else None  # a comment's, for this question only
            ahead = _nightly(dep.image)
            switched = _switched_plugin(dep) if not (custom or said or ahead) else None
            plugin = dep.extension or (switched[0] if switched else None) or _checkout_file(dep) \
                if not (custom or said or ahead) else None
            source = _unreleased(dep) if not (custom or said or ahead or plugin) else None
            kin = _feature_family(dep.engine, dep.server, unknown.flag) \
                if not (custom or ahead or said or plugin or source) else ()
            switch = switch if not (custom or ahead or said or plugin or source or kin) else None
            built = (f"; the image {custom} is not a stock {engine} image, so its build decides" if custom else
                     f"; the script's comment says it runs in {said}, not a stock {engine} image, so that build "
                     "decides" if said else
                     f"; the file installs {plugin}, a package built on {engine} whose options the launch may use, "
                     "so that package decides" if plugin and plugin == dep.extension else
                     f"; the launch passes {switched[1]}, the switch of {plugin}, a package built on {engine} that "
                     "adds options of its own, so that package decides" if switched and plugin == switched[0] else
                     f"; the launch reads {plugin} from its working folder, a file of {engine}'s own source tree: "
                     f"it runs from a checkout of {engine} (a fork or a source install), which decides" if plugin else
                     f"; {source}: that build decides" if source else
                     f"; the image {ahead} is a nightly build, newer than the releases kvlint knows: it may have it"
                     if ahead else f"; it extends {engine}'s own {', '.join(kin)} options, which a newer release or "
                     "a fork that builds on that feature adds to" if kin else
                     f"; the launch gives {switch[0]} with {switch[1]}: a feature no release has, switched on and "
                     "set, so a build that adds it (a fork or a plugin) decides" if switch else "")
            custom = custom or said or ahead or plugin or source or (unknown.flag if kin or switch else None)
            alike = f"it is {longer} with more words, not a misspelling of it" if longer else \
                f"the option spelled nearest it, {unknown.suggestion}, is of another feature" if apart else \
                "no option is spelled like it"
            yield check.rule.finding(
                ctx, f"{unknown.flag} is an option of no {release} kvlint knows, and {alike}: {stock} exits at "
                f"start-up (unrecognized arguments); a fork, a plugin or a newer release that adds it would not{built}",
                span,
                severity=Severity.INFO if custom else Severity.WARNING,
                fix="remove the flag, or keep it where the launch runs the build that defines it", flag=unknown.flag)
            continue
        if unknown.reason == "ambiguous" and unknown.since:
            yield _ambiguous_from(ctx, unknown.flag, unknown.since, unknown.suggestion or "", span)
            continue
        if unknown.reason == "ambiguous" and ctx.pinned_version and c.older(ctx.pinned_version,
                                                                              c.first_read(dep.engine)):
            yield _ambiguous_before_tables(ctx, unknown.flag, unknown.suggestion or "", span)
            continue
        if (blank := _odd_space(unknown.flag)) is not None:  # `--tool-call-parser\u00a0qwen3`, pasted from a page
            name = unknown.flag.split(blank, 1)[0]
            yield check.rule.finding(
                ctx, f"{engine} rejects {name} as written: the word holds a {_SPACE_NAMES.get(blank, 'Unicode space')} "
                f"(U+{ord(blank):04X}) after the flag, where the shell does not split, so the engine gets one "
                "unrecognized argument and exits before loading the model", span,
                fix=f"replace the U+{ord(blank):04X} after {name} with a plain space", flag=unknown.flag)
            continue
        why = "an ambiguous abbreviation" if unknown.reason == "ambiguous" else "an unrecognized argument"
        other = _other_engines_flag(dep.engine, unknown.flag) if unknown.reason == "unrecognized" else None
        if other is not None:  # `--enable-prefix-caching` on SGLang: vLLM's flag, not a typo of an SGLang one
            yield check.rule.finding(
                ctx, f"{engine} rejects {unknown.flag}: an unrecognized argument, the server exits before loading the "
                f"model; {unknown.flag} is {c.title(other)}'s option, not {engine}'s", span,
                fix=f"remove the flag, or write {engine}'s own option for it", flag=unknown.flag)
            continue
        hint = _key_hint(ctx, keyed) if keyed else f"; did you mean {unknown.suggestion}?" if unknown.suggestion else ""
        source = _unreleased(dep) if unknown.reason == "unrecognized" and not dep.image else None
        if source is None and unknown.reason == "unrecognized":
            # a plugin the launch runs adds options: a name near a stock one may be its own (K356: `--omni
            # --log-stats`, vLLM-Omni's, beside stock `--disable-log-stats`)
            # ... in a build that can carry it: no image, or one that is not the engine's stock image
            carried = c.switched_plugin(dep) if not dep.image or c.custom_build(dep.image) else None
            added = dep.extension or (carried.package if carried is not None else None)
            source = f"the launch runs {added}, a package built on {engine} that adds options of its own" \
                if added else None
        if source is not None:  # a source build adds options: a name near a stock one may be its own (K235)
            yield check.rule.finding(
                ctx, f"{stock} rejects {unknown.flag} (an unrecognized argument{hint}), but {source}: that build "
                "decides, and a build that adds options may add this one", span, severity=Severity.INFO,
                fix=f"use {unknown.suggestion} if the build does not define {unknown.flag}" if unknown.suggestion
                else "remove the flag if the build does not define it", flag=unknown.flag)
            continue
        yield check.rule.finding(
            ctx, f"{engine} rejects {unknown.flag}: {why}, the server exits before loading the model{hint}",
            span, fix=_key_fix(keyed) if keyed else f"use {unknown.suggestion}" if unknown.suggestion
            else "remove the flag", flag=unknown.flag)


def _key_hint(ctx: Context, keyed: ConfigKey) -> str:
    """Where the setting the flag names lives: a key of a JSON-valued option, on the releases read with it (a key
    the pinned or the newest release no longer has is said to be gone, so the fix is not offered as valid there)."""
    read = f"read from {keyed.first} to {keyed.last}" if keyed.first != keyed.last else f"read in {keyed.first}"
    newest = releases_read(ctx.deployment.engine)[-1:]
    release = ctx.pinned_version or (newest[0] if newest else keyed.last)
    gone = c.older(keyed.last, release) and keyed.last not in newest
    early = c.older(release, keyed.first)
    who = f"{release} (pinned)" if ctx.pinned_version else f"the newest release read, {release},"
    state = (f"; {who} does not have it ({read})" if gone or early else f" ({read})")
    return f"; {keyed.key} is a key of {keyed.option}, not an option of its own{state}"


def _key_fix(keyed: ConfigKey) -> str:
    return (f"give it inside {keyed.option}: `{keyed.option}.{keyed.key} VALUE` or "
            f"`{keyed.option} '{{\"{keyed.key}\": VALUE}}'`")


_SPACE_NAMES = {"\u00a0": "no-break space", "\u202f": "narrow no-break space", "\u2009": "thin space",
                "\u3000": "ideographic space", "\u200b": "zero-width space"}


def _unreleased(dep: Deployment) -> str | None:
    """How the launch's own file installs or runs the engine from no stock release (a cloned fork's tree, a git URL,
    a development or PR build pinned with `==`; a vendor's build its launcher or environment marks), for a launch no
    image runs: that build has the options its branch adds (sample K115: a model README that installs OpenMOSS's
    SGLang fork, another a PR build of SGLang; K124: a Gaudi script setting `PT_HPU_*`)."""
    from kvlint.resolve.lookups import unreleased_install, vendor_image

    if dep.image is not None:
        return None
    platform = c.vendor_platform(dep)
    if platform:
        return f"the launch passes {platform}, a platform only a vendor's build of {c.title(dep.engine)} serves"
    device = c.vendor_device(dep)
    if device:
        return f"it runs on {device}, which only a vendor's build or plugin of {c.title(dep.engine)} serves"
    vendor = vendor_image(dep.path)
    if vendor:
        return f"the file runs it in {vendor}"
    installed = unreleased_install(dep.path, dep.engine)
    return f"the file installs or runs {c.title(dep.engine)} from no stock release ({installed})" if installed else None


def _checkout_file(dep: Deployment) -> str | None:
    """A value of the launch that is a relative path into the engine's own repository (`--chat-template
    ./examples/template_alpaca.jinja`, sample K101's patched vLLM): the command runs from a checkout of the engine."""
    from kvlint.engines import get_engine

    marks = get_engine(dep.engine).source_tree_files
    for setting in dep.settings.values():
        value = setting.value if isinstance(setting.value, str) and setting.resolved else ""
        if value.removeprefix("./").startswith(marks) and not value.startswith("/"):
            return value
    return None


def _odd_space(flag: str) -> str | None:
    """The first blank in a flag word that is not one the shell splits at (a no-break space a web page or a word
    processor puts between a flag and its value)."""
    return next((ch for ch in flag if ch in _SPACE_NAMES or (ch.isspace() and ch not in " \t\n")), None)


def _not_yet(ctx: Context, engine: str) -> Iterator[Finding]:
    """Each flag the launch gives that the pinned release does not have yet (the tables read the release before
    its first one without it). Only an engine's own image or a project's lock pins a release this exactly; a
    third-party build tagged like a release may carry its own flags, and a fork's tree decides for itself."""
    dep = ctx.deployment
    if ctx.pinned_version is None or dep.server or ctx.engine_tree is not None:
        return  # nothing pins a release (most launches): no release to lack a flag
    # a chart's key (`attentionBackend`) is passed by its template, which may do it another way (an environment
    # variable on the older release): only a flag the launch writes is the release's to refuse
    given = [(s.name, s.flag_span or s.span) for s in dep.settings.values()  # "open": left to a cluster, unwritten
             if s.origin not in ("default", "chart", "chart-values", "chart-key", "open")]
    charted = any(s.origin in ("chart", "chart-values", "chart-key") for s in dep.settings.values())  # keys
    given += [(v.setting, v.span) for v in dep.invalid_values if v.setting and v.flag.startswith("-") and not charted]
    for name, span in given:
        found = c.added_after(ctx, name)
        if found is None or c.custom_build(dep.image):  # a third-party build tagged like a release: its own flags
            continue
        option, first = found
        yield check.rule.finding(
            ctx, f"{option} is not an option of {engine} {ctx.pinned_version} (pinned): the tables first read it in "
            f"{first}; that release exits at start-up (unrecognized arguments)", span or dep.launch_span,
            fix=f"remove {option}, or pin a release that has it ({first} or later)", flag=option)


_FAMILY_AT_LEAST = 3


def _build_family(unknown: Sequence[Any]) -> set[str]:
    """The flags of a launch that belong to a build's own family: when it gives at least three flags no release has
    and nothing is spelled like (`--tiered-moe-backend`, `--tiered-moe-hbm-reserve-gb`, `--mla-cache-tier`), the launch
    runs a fork or a plugin that adds them; a flag sharing its first word with one of them is the family's too, even
    when a stock option is spelled near it (`--tiered-moe-backend` is no typo of `--moe-backend`)."""
    plain = [u.flag for u in unknown if u.reason == "unrecognized" and not u.suggestion]
    if len(plain) < _FAMILY_AT_LEAST:
        # a flag spelled near a stock option (`--scheduling-policy-path`, near `--schedule-policy`) beside another
        # of its feature that nothing is spelled like (`--scheduling-policy-init-kwargs`, sample K426's SGLang fork)
        # is the feature's too: a typo does not come with a consistently named second flag
        spelled = [u.flag for u in unknown if u.reason == "unrecognized" and u.suggestion]
        grouped = _one_feature(plain + spelled)
        return {f for f in grouped if f in plain or _one_feature_with(f, plain)}
    heads = {f.lstrip("-").split("-", 1)[0] for f in plain}
    near = {u.flag for u in unknown if u.reason == "unrecognized" and u.suggestion
            and u.flag.lstrip("-").split("-", 1)[0] in heads}
    return set(plain) | near


def _one_feature_with(flag: str, plain: list[str]) -> bool:
    """Whether `flag` is of one feature with a flag of `plain`."""
    return any(flag in group and other in group for other in plain for group in (_one_feature([flag, other]),))


def _one_feature(plain: list[str]) -> set[str]:
    """Two or more such flags that share their first two words, the first no generic head (`--token-pruning-alg`
    and `--token-pruning-ratio`, sample K108's SGLang research fork): one feature's options, which a build adds
    together; a typo does not come in consistently named pairs. A feature's switch beside a knob of the same feature
    (`--enable-decode-token-budget` and `--decode-token-budget-stall-limit`, sample K387's SGLang fork) is such a
    family too; switches alone (`--enable-made-up-a`, `--enable-made-up-b`) share only the generic head."""
    heads: dict[str, list[str]] = {}
    knobs: set[str] = set()
    for flag in plain:
        words = flag.lstrip("-").split("=", 1)[0].split("-")
        switch = words[0] in _SWITCH_HEADS
        words = words[1:] if switch else words
        if len(words) > 2 and words[0] not in _GENERIC_HEADS and len(words[0]) >= 3:
            key = "-".join(words[:2])
            heads.setdefault(key, []).append(flag)
            knobs |= set() if switch else {key}
    return {f for key, group in heads.items() if len(group) >= 2 and key in knobs for f in group}


# first words that many unrelated options share (`--enable-`, `--max-`): no feature of their own
_GENERIC_HEADS = frozenset({"no", "enable", "disable", "max", "min", "num", "use", "allow", "allowed", "skip", "log",
                            "load", "model", "tokenizer", "data", "kv", "mm", "hf", "trust", "cpu", "gpu", "enforce",
                            "show", "return", "default", "api", "host", "port", "served", "download", "dtype", "seed",
                            "device", "is", "file", "config", "random", "chat", "quantization"})
_SWITCH_HEADS = frozenset({"enable", "disable", "no"})  # words that turn the feature the rest names on or off
_FAMILY_MOST = 12  # a feature's own options; a head more options share is a family of features


def _feature_family(engine: str, server: str | None, flag: str) -> tuple[str, ...]:
    """Up to two of the engine's options sharing the unknown flag's first words, when they name one feature
    (`--dllm-prefix-attention` beside SGLang's `--dllm-algorithm` and `--dllm-algorithm-config`): a flag that
    extends a feature the engine has is far likelier a newer release's or a fork's (Liquid AI's block-diffusion
    SGLang adds `--dllm-cuda-graph`) than a mistake, so it is an info, not a warning. A first word many options
    share (`--speculative-`) is a family of features: the first two or three words are tried then
    (`--speculative-draft-model-override-args` beside `--speculative-draft-model-path`, sample K104)."""
    from kvlint.flags.flag_table import flag_table

    words = flag.lstrip("-").split("=", 1)[0].split("-")
    # a two-letter head names a feature when more words follow it (`--kt-expert-placement-strategy` beside SGLang's
    # `--kt-cpuinfer`, `--kt-method`: KTransformers' options, sample K122); `--tp-x` alone is too little to tell
    if words[0] in _GENERIC_HEADS or len(words[0]) < 2 or len(words) < (2 if len(words[0]) >= 3 else 3):
        return ()
    options = flag_table(engine, server).by_option
    for n in range(1, min(len(words), 4)):
        head = "-".join(words[:n])
        kin = sorted(o for o in options if o.startswith(f"--{head}-"))
        if len(kin) < 2:
            return ()
        if len(kin) <= _FAMILY_MOST:
            return tuple(f"`{o}`" for o in kin[:2]) + (("...",) if len(kin) > 2 else ())
    return ()


def _outside_feature(dep: Deployment, flag: str, near: str | None) -> bool:
    """Whether the option spelled nearest the flag lies outside the feature the flag's first words name, when the
    engine has that feature (`--kt-numa-nodes` beside SGLang's `--kt-cpuinfer`, `--kt-method`; nearest `--numa-node`,
    sample K445's KTransformers launch): an option of the feature a newer release or a fork adds, not a slip of the
    other one. A slip inside the feature (`--kt-methd`, near `--kt-method`) stays a typo."""
    if not near:
        return False
    head = flag.lstrip("-").split("=", 1)[0].split("-", 1)[0]
    return not near.lstrip("-").startswith(head + "-") and bool(_feature_family(dep.engine, dep.server, flag))


def _switched_feature(dep: Deployment, flag: str) -> tuple[str, str] | None:
    """(switch, setting) of a feature no release has, when the flag is the switch or one of its settings: an unknown
    `--enable-X` beside an unknown `--X-...` (`--enable-rkv` with `--rkv-config`, sample K463's SGLang fork that adds
    R-KV and SnapKV compression), or under a namespace (`--mooncake-enable-page-wise-load` with
    `--mooncake-page-wise-load-threshold`, sample K544's vendor build). A slip makes no such pair: the two name one
    feature a build adds."""
    unknown = sorted({u.flag.split("=", 1)[0] for u in dep.unknown_flags if u.reason == "unrecognized"})
    name = flag.split("=", 1)[0]
    for switch in unknown:
        head = switch.replace("-enable-", "-", 1)  # `--enable-rkv` -> `--rkv`; `--ns-enable-x` -> `--ns-x`
        settings = [u for u in unknown if head != switch and u.startswith(f"{head}-")]
        if settings and name in (switch, *settings):
            return switch, settings[0]
    return None


def _extends(flag: str, known: str | None) -> str | None:
    """The engine's option the unknown flag is, with more words after it (`--speculative-draft-model-override-args`
    for `--speculative-draft-model`): a newer option built on it, never a misspelling the did-you-mean fixes."""
    name = flag.split("=", 1)[0]
    return known if known and name.startswith(known + "-") and len(name) > len(known) + 1 else None


def _nightly(image: str | None) -> str | None:
    """The image, when its tag follows the engine's main branch (`:nightly`, `:nightly-<sha>`, `:main`, `:dev`): a
    build after the newest release kvlint's tables hold, so a flag none of them has may be in it."""
    tag = (image or "").rsplit("/", 1)[-1].split("@", 1)[0].rpartition(":")[2].lower()
    return image if image and ":" in image.rsplit("/", 1)[-1] and tag.startswith(("nightly", "main", "dev")) else None


def _switched_plugin(dep: Deployment) -> tuple[str, str] | None:
    """(package, switch) of a plugin the launch turns on with its own switch (`vllm serve M --omni`: vllm-omni, sample
    K174's docs), by kvlint/data/plugins.json: the launch runs that package, whose options it may use. Only where
    the launch names no image: the engine's stock image does not carry the plugin (`--omni` exits there)."""
    if dep.image:
        return None
    plugin = c.switched_plugin(dep)
    return (plugin.package, plugin.switch) if plugin is not None else None


def _other_engines_flag(engine: str, flag: str) -> str | None:
    """The other engine whose exact option `flag` is (`--enable-prefix-caching` is vLLM's), or None."""
    from kvlint.engines.registered import engine_names
    from kvlint.flags.flag_table import flag_table, normalise

    name = flag.split("=", 1)[0]
    for other in engine_names():
        if other != engine:
            table = flag_table(other)
            if normalise(table, name) in table.by_option:
                return other
    return None


def _ambiguous_from(ctx: Context, flag: str, since: str, options: str, span: Span | None) -> Finding:
    """An abbreviation that only later releases find ambiguous: the release decides, as for a removed flag (KV005)."""
    engine = c.title(ctx.deployment.engine)
    pinned, severity = ctx.pinned_version, None
    exits = f"from {engine} {since} on, {flag} abbreviates several options ({options}) and the server exits"
    if pinned is None and ctx.version_source == "host":
        outcome = f"{exits}; the release installed today is assumed (the script pins none)"
        severity = Severity.WARNING
    elif pinned is None:
        outcome = (f"{exits}; before {since} it abbreviates one option. The launch pins no {engine} release, so the "
                   f"release decides (pin the image tag, or `engine-version:` in .kvlint.yaml, to settle it)")
        severity = Severity.INFO
    elif c.older(pinned, since):
        outcome = f"{exits}; {engine} {pinned} (pinned) reads it as the one option it abbreviates there"
        severity = Severity.WARNING
    else:
        outcome = f"{exits} ({pinned} pinned)"
    return check.rule.finding(ctx, outcome, span, severity=severity,
                              fix=f"spell the option out: one of {options}, or remove {flag}", flag=flag)


def _ambiguous_before_tables(ctx: Context, flag: str, options: str, span: Span | None) -> Finding:
    """An abbreviation every release kvlint reads finds ambiguous, on a launch that pins an older one (sample K250:
    `--pp 2` on `lmsysorg/sglang:v0.4.10.post2`, where `--pp-size` was the only `--pp` option): whether the pinned
    release has the other options is not known here, so it is said as the upgrade that breaks, never as an exit."""
    engine, first = c.title(ctx.deployment.engine), c.first_read(ctx.deployment.engine)
    return check.rule.finding(
        ctx, f"from {engine} {first} on, {flag} abbreviates several options ({options}) and the server exits; "
        f"{engine} {ctx.pinned_version} (pinned) is older than every release kvlint reads ({first} on), so whether "
        f"it abbreviates one option there is not known here: upgrading breaks the launch", span,
        severity=Severity.WARNING, fix=f"spell the option out: one of {options}", flag=flag)


def _fork(ctx: Context, flag: str, span: Span | None) -> Finding:
    """The repository holds its own engine tree: the launch runs it, not a release, and its own flags are its own."""
    tree = ctx.engine_tree
    assert tree is not None
    engine = c.title(ctx.deployment.engine)
    added = tree.added_at(flag)
    if added is not None:
        return check.rule.finding(
            ctx, f"{flag} is an option of no {engine} release, but the repository's own code adds it ({added[0]}, "
            f"line {added[1]}): the launch runs that code (a fork or a plugin), not a stock {engine}", span,
            severity=Severity.INFO, flag=flag, fork=added[0])
    said = "defines it" if tree.defines(flag) else "does not name it where kvlint looks (string literals)"
    return check.rule.finding(
        ctx, f"{flag} is an option of no {engine} release, but the repository holds its own {engine} tree "
        f"({tree.parser}), which {said}: the launch runs that fork", span, severity=Severity.INFO,
        fix=None if tree.defines(flag) else f"check that {tree.parser} adds {flag}", flag=flag, fork=tree.parser)
