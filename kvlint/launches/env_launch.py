"""A custom engine image configured by its environment: a container (or chart values) whose image is a build
named for the engine (`ghcr.io/org/foo-vllm-docker:latest`, not the engine's own image), with no command of its
own, a variable named like a model (`MODEL`, `MODEL_NAME`, `MODEL_ID`, `HF_MODEL`, `MODEL_PATH`) and a GPU
request. Its entry point (a script in the image) starts the engine with those variables, so the launch is:
the model from that variable, and as settings the variables that spell the engine's flags (`MAX_MODEL_LEN`,
`TENSOR_PARALLEL_SIZE`: the flag table decides, through kvlint.launches.keys.option_for_key). The entry point
script itself, when the repository holds it, is read as what it is (a script whose values all come from the
environment).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from kvlint.launches.env import Field
from kvlint.launches.images import named_engine
from kvlint.lazyre import lazy
from kvlint.record import record
from kvlint.span import Span


@record
class EnvImage:
    """A known engine wrapper image configured by its environment (kvlint/data/env_images.json)."""

    image: str
    engine: str
    model_vars: tuple[str, ...]
    aliases: tuple[tuple[str, str], ...]  # env name -> the flag's dest, for names that are not the flag upper-cased


@cache
def _table() -> tuple[EnvImage, ...]:
    from kvlint.data import load_json

    return tuple(EnvImage(e["image"], e["engine"], tuple(e["model_vars"]), tuple(sorted(e["aliases"].items())))
                 for e in load_json("env_images.json")["images"])


def env_image(image: str | None) -> EnvImage | None:
    """The table's entry for an image reference (`runpod/worker-v1-vllm:stable-cuda12.1.0`), longest match first."""
    low = (image or "").lower()
    found = [e for e in _table() if e.image in low]
    return max(found, key=lambda e: len(e.image)) if found else None


def configured_engine(image: str | None) -> str | None:
    """The engine an environment-configured image starts: a known wrapper image, else a custom build named for
    the engine."""
    entry = env_image(image)
    return entry.engine if entry is not None else named_engine(image)

def prefixed_engine(names: Iterable[str]) -> str | None:
    """The engine a container's environment names by its own variables' prefix when the image says nothing
    (`llm-worker:latest` given `VLLM_MODEL` and `VLLM_MAX_NUM_SEQS`, sample K58): a model variable with the engine's
    name before it, and one more variable so prefixed. vLLM's own variables (`VLLM_USE_V1`) name no model."""
    upper = [n.upper() for n in names]
    for engine in ("vllm", "sglang"):
        prefix = engine.upper() + "_"
        mine = [n[len(prefix):] for n in upper if n.startswith(prefix)]
        if len(mine) >= 2 and any(n in MODEL_VARS for n in mine):
            return engine
    return None


def vendor_stripped(name: str) -> str:
    """A variable's name without a vendor's word before the engine's (`SM_VLLM_MODEL` -> `VLLM_MODEL`)."""
    return _VENDOR.sub("", name.upper())


def spelled_engine(names: Iterable[str]) -> str | None:
    """The engine whose flags the variables spell with no prefix, beside a model variable: two or more that are
    only that engine's (`MAX_MODEL_LEN`, `GPU_MEMORY_UTILIZATION`: vLLM's; `CONTEXT_LENGTH`, `MEM_FRACTION_STATIC`:
    SGLang's), none only the other's. A spelling both take (`TENSOR_PARALLEL_SIZE`) decides nothing."""
    from kvlint.launches.keys import option_for_key

    upper = [base_name(n.upper())[0] for n in names]
    if not any(n in MODEL_VARS for n in upper):
        return None
    own = {e: {n for n in upper if n not in MODEL_VARS and option_for_key(e, n.lower())} for e in ("vllm", "sglang")}
    only = {e: mine - own["sglang" if e == "vllm" else "vllm"] for e, mine in own.items()}
    found = [e for e, mine in only.items() if len(mine) >= 2]
    return found[0] if len(found) == 1 and not only["sglang" if found[0] == "vllm" else "vllm"] else None


__all__ = ["MODEL_VARS", "NOTE", "EnvImage", "base_name", "configured_engine", "env_image", "fields_from_env",
           "named_engine", "prefixed_engine", "spelled_engine", "vendor_stripped"]

MODEL_VARS = ("MODEL", "MODEL_NAME", "MODEL_ID", "HF_MODEL", "HF_MODEL_ID", "MODEL_PATH", "MODEL_REPO", "MODEL_DIR",
              "HF_MODEL_NAME", "LLM_MODEL", "SERVED_MODEL", "REPO_ID", "HF_REPO_ID", "MODEL_REPO_ID")  # a Hub repo id
_PREFIXES = ("VLLM_", "SGLANG_", "ENGINE_")  # `VLLM_MAX_MODEL_LEN`: the engine's name before a flag's
# a vendor's word before the engine's (`SM_VLLM_MAX_MODEL_LEN`: SageMaker's convention, sample K175's entrypoint)
_VENDOR = lazy(r"^[A-Z][A-Z0-9]{0,7}_(?=(?:VLLM|SGLANG)_)")
_WORD = lazy(r"\S+")
_SECRET = ("TOKEN", "KEY", "SECRET", "PASSWORD")
NOTE = ("model and settings read from the container's environment: {image} is a custom build of the engine with "
        "no command here, whose entry point starts it with these variables")


# variables only a stand-in for the engine reads (a mock or a simulator configured with the model it pretends to serve)
_STAND_IN_VARS = ("MOCK_", "SIMULATOR_", "SIM_", "FAKE_")


def stand_in_env(names: Iterable[str]) -> bool:
    """Whether a container's environment configures a stand-in for the engine (`MOCK_ITL_MS`, `MOCK_PD_ROLE`: sample
    K410's mock decode server in a build named for vLLM), which answers as the engine would and holds no KV pool."""
    return any(n.upper().startswith(_STAND_IN_VARS) for n in names)


def fields_from_env(engine: str, items: Iterable[tuple[str, Span | None, Field]],
                    image: str | None = None, mode: bool = False) -> list[Field] | None:
    """(name, name span, value) of the environment as the engine's argv: `--model VALUE` first, then each
    variable that spells one of the engine's flags (or that a known wrapper image maps to one:
    kvlint/data/env_images.json); None without a model variable. Names are read through `base_name`, so
    `VLLM_MODEL` is a model variable and `MAX_MODEL_LEN1` the first engine's length. `mode`: the container names a
    mode of its image's entry point (`command: [glm53]`), which may read a model variable of its own naming."""
    from kvlint.launches.keys import option_for_key, spelled_as_flag

    items = list(items)
    if stand_in_env(n for n, _, _ in items):
        return None
    entry = env_image(image)
    model_vars = (entry.model_vars if entry is not None else ()) + MODEL_VARS
    aliases = dict(entry.aliases) if entry is not None else {}
    named = [(base_name(n.upper(), model_vars), span, value) for n, span, value in items]
    index = next((i for (b, i), _, v in named if b in model_vars and v.text), None)
    model: list[Field] = []
    flags: list[Field] = []
    for (upper, at), span, value in named:
        if at and at != index:
            continue  # another engine's variables (`MODEL2`) of a wrapper that starts several
        if upper in model_vars:
            model = model or [Field("--model", span or value.span), value]
            continue
        if any(s in upper for s in _SECRET) or not value.text:
            continue
        if upper.endswith("ARGS") and value.text.lstrip().startswith("--"):
            flags += extra_args(value)  # `VLLM_SERVE_ARGS="--max-model-len 8192 ..."`: appended to the command
            continue
        bare = _VENDOR.sub("", upper, count=1)
        key = aliases.get(upper) or next((bare[len(p) :] for p in _PREFIXES if bare.startswith(p)), upper).lower()
        # a known wrapper maps every flag's upper-cased name (`DTYPE` too); elsewhere a bare word is no evidence
        option = option_for_key(engine, key) if entry is not None or spelled_as_flag(key) else None
        option = option or (role_option(engine, key) if _ROLE_WORD.search(key) else None)
        if option is None:
            continue
        low = value.text.lower()
        if low in ("true", "false") or (low in _SWITCH_WORDS and no_value(engine, option)):
            flags += [Field(option, span or value.span)] if low in ("true", "1", "yes", "on") else []
        else:
            flags += [Field(option, span or value.span), value]
    if not model and mode:
        model = _prefixed_model(named)
    return model + flags if model else None


# a model variable under a name of the deployment's own (`GLM53_MODEL`, `FLASH_NEXT_MODEL_PATH`): one word or more
# before a model variable's name; a draft model's or a tokenizer's is another model than the one served
_PREFIXED_MODEL = lazy(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_MODEL(?:_PATH|_ID|_NAME|_DIR)?")
_NOT_SERVED = lazy(r"DRAFT|SPEC|TOKENIZER|REVISION")


def _prefixed_model(named: list[tuple[tuple[str, str], Span | None, Field]]) -> list[Field]:
    """`--model VALUE` from the one variable named as a model under a prefix of the deployment's own (sample K204:
    an image whose entry point picks the model variable by the mode the service's command names, `glm53` reading
    `GLM53_MODEL`), when the environment holds no model variable kvlint knows by name; none when two such variables
    compete. Only for a container that names such a mode: elsewhere a prefix is the engine's or none (K175)."""
    found = [(span, value) for (upper, _), span, value in named
             if value.text and _PREFIXED_MODEL.fullmatch(upper) and not _NOT_SERVED.search(upper)]
    if len(found) != 1:
        return []
    span, value = found[0]
    return [Field("--model", span or value.span), value]


_SWITCH_WORDS = frozenset({"1", "0", "yes", "no", "on", "off"})
_ROLES = ("tp", "pp", "dp")
_ROLE_WORD = lazy(r"(?:^|_)(?:tp|pp|dp)(?:_|$)|parallel")  # a name that may spell a parallelism size


def role_option(engine: str, key: str, roles: tuple[str, ...] = _ROLES) -> str | None:
    """This engine's flag for a parallelism size spelled as another engine's (`TP_SIZE` is SGLang's `--tp-size`, so
    an image's entry point hands it to vLLM as `--tensor-parallel-size`): a size is never left at the default of 1
    because the variable is spelled for the other engine."""
    from kvlint.engines import get_engine
    from kvlint.engines.registered import engine_names
    from kvlint.launches.keys import option_for_key

    for other in (e for e in engine_names() if e != engine):
        option = option_for_key(other, key)
        spec = get_engine(other).flag_table().by_option.get(option) if option else None
        role = next((r for r in roles if spec is not None and get_engine(other).setting(r) == spec.dest), None)
        if role is not None:
            return get_engine(engine).flag(role)
    return None


def no_value(engine: str, option: str) -> bool:
    """Whether the engine's flag takes no value (`--trust-remote-code`): `VLLM_TRUST_REMOTE_CODE=1` turns it on, and
    the `1` is no argument of its own (as a word after the flag it would be read as the positional model)."""
    from kvlint.errors import KvlintError
    from kvlint.flags.flag_table import flag_table, match

    try:
        spec, _, _ = match(flag_table(engine), option)
    except KvlintError:
        return False
    return spec is not None and spec.kind in ("store_true", "store_false", "store_const", "bool_optional")


def extra_args(value: Field) -> list[Field]:
    """The words of a variable an entry point appends to the engine's command (`EXTRA_ARGS`, `VLLM_SERVE_ARGS`),
    each at its place inside the value when the value is written as it reads."""
    from kvlint.span import Span

    out: list[Field] = []
    sp = value.span
    for m in _WORD.finditer(value.text):
        at = (Span(sp.path, sp.line, sp.col + m.start(), sp.line, sp.col + m.end())
              if sp is not None and sp.line == sp.end_line and sp.end_col - sp.col == len(value.text) else sp)
        out.append(Field(m.group(0), at, value.resolved, value.missing))
    return out


def base_name(upper: str, model_vars: tuple[str, ...] = MODEL_VARS) -> tuple[str, str]:
    """(name, index) of an upper-cased variable: an engine prefix before a model variable is dropped
    (`VLLM_MODEL`, `SGLANG_MODEL_PATH`), and a trailing index is split off (`MODEL1`, `MAX_MODEL_LEN_2`): wrapper
    images that start one engine per index number their variables so. A name that is whole as written
    (`MODEL`, `HF_MODEL_ID`) keeps an empty index."""
    stem = upper.rstrip("0123456789")
    index = upper[len(stem) :]
    if index and stem.endswith("_"):
        stem = stem[:-1]
    if not index or not stem or stem.endswith(("V", "FP", "INT")):  # `MODEL_V2`, `..._FP8` are names, not indexes
        stem, index = upper, ""
    stem = _VENDOR.sub("", stem, count=1)
    for p in (*_PREFIXES, "DEFAULT_"):  # `DEFAULT_MODEL_ID`: the model a wrapper serves unless asked for another
        if stem.startswith(p) and stem[len(p) :] in model_vars:
            stem = stem[len(p) :]
    return stem, index
