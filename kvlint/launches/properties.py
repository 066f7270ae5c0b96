"""DJL-Serving / SageMaker LMI `serving.properties`: `key=value` lines that configure an engine without a
command line (`engine=Python`, `option.model_id=org/name`, `option.rolling_batch=vllm`,
`option.max_model_len=32768`).

`option.rolling_batch` names the engine (`vllm`, and LMI's vLLM-based `lmi-dist` / `auto`; an `sglang` one);
a file with a model and no rolling batch but `engine=Python|MPI` is LMI's default, vLLM. Every other key, its
`option.` prefix stripped, is read through the engine's own flag table (`kvlint.launches.keys.option_for_key`,
the spelling normaliser structured settings use), plus LMI's own names for two settings. A value ends at an
inline ` #` comment; a model written as an instruction (`your-model-id`) is a placeholder, left unresolved.
Each key and value keeps its line and column.
"""

from __future__ import annotations

from kvlint import limits
from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.launches.env import Field
from kvlint.lazyre import lazy
from kvlint.span import Span

_MODEL_KEYS = ("model_id", "model", "s3url")
_LMI_NAMES = {"tensor_parallel_degree": "tensor_parallel_size", "max_rolling_batch_size": "max_num_seqs",
              "pipeline_parallel_degree": "pipeline_parallel_size"}
_ENGINE_OF_BATCH = {"vllm": "vllm", "lmi-dist": "vllm", "auto": "vllm", "sglang": "sglang"}
_DEFAULT_ENGINES = ("python", "mpi")  # `engine=` values whose default rolling batch is vLLM-based
_PLACEHOLDER = lazy(r"^(?:your|my|enter|insert|replace)[-_ ]|^<.*>$|^\$\{?[A-Za-z_]")
MAX_LINES = 2000


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    return ReadResult(path, read_properties(path, text), comments=scan_comments(text))


def _pairs(path: str, text: str) -> dict[str, tuple[str, Span, Span]]:
    """key -> (value, key span, value span), the last line of a key winning as in java.util.Properties."""
    out: dict[str, tuple[str, Span, Span]] = {}
    for n, line in enumerate(text.split("\n")[:MAX_LINES], start=1):
        limits.check()
        stripped = line.strip()
        if not stripped or stripped[0] in "#!":
            continue
        cut = min((k for k in (line.find("="), line.find(":")) if k > 0), default=-1)
        if cut < 0:
            continue
        key = line[:cut].strip()
        raw = line[cut + 1 :]
        comment = raw.find(" #")
        value = (raw if comment < 0 else raw[:comment]).strip()
        if not key or not value:
            continue
        kcol = line.index(key) + 1
        vcol = cut + 2 + raw.index(value)
        kspan, vspan = Span(path, n, kcol, n, kcol + len(key) - 1), Span(path, n, vcol, n, vcol + len(value) - 1)
        out[key.lower()] = (value, kspan, vspan)
    return out


def _engine(pairs: dict[str, tuple[str, Span, Span]]) -> str | None:
    batch = pairs.get("option.rolling_batch")
    if batch is not None:
        return _ENGINE_OF_BATCH.get(batch[0].lower())
    engine = pairs.get("engine")
    return "vllm" if engine is not None and engine[0].lower() in _DEFAULT_ENGINES else None


def read_properties(path: str, text: str) -> list[Deployment]:
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.keys import option_for_key
    from kvlint.launches.script import FoundLaunch

    pairs = _pairs(path, text)
    engine = _engine(pairs)
    model_key = next((k for k in ("option." + m for m in _MODEL_KEYS) if k in pairs), None)
    if engine is None or model_key is None:
        return []
    value, kspan, vspan = pairs[model_key]
    placeholder = _PLACEHOLDER.search(value) is not None
    fields = [Field("--model", kspan), Field(value, vspan, not placeholder, (value,) if placeholder else ())]
    for key, (value, kspan, vspan) in pairs.items():
        name = key.removeprefix("option.")
        if key == model_key or not key.startswith("option.") or name in ("rolling_batch", "engine"):
            continue
        flag = option_for_key(engine, _LMI_NAMES.get(name, name))
        if flag is not None and value.lower() in ("true", "false"):  # a switch: on, or left at its default
            fields += [Field(flag, kspan)] if value.lower() == "true" else []
        elif flag is not None:
            fields += [Field(flag, kspan), Field(value, vspan)]
    notes = (f"model {pairs[model_key][0]!r} is a placeholder to fill in",) if placeholder else ()
    found = FoundLaunch(engine, tuple(fields), pairs[model_key][1])
    return [finish(path, found, LaunchContext(notes=notes), ManifestGpu())]
