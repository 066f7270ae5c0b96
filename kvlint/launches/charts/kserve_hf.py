"""KServe's Hugging Face server (`kserve/huggingfaceserver`, `modelFormat: huggingface`): vLLM behind KServe's flags.

The server parses its own flags (`--model_name`, `--model_id`, `--model_dir`, `--backend`, `--task`, ...)
and hands the rest to vLLM's engine arguments when the backend is vLLM (`--backend=vllm`, or `auto`, its
default, which picks vLLM for the text-generation models it supports). So the model is `--model_id` (else
the storageUri KServe mounts, else `--model_dir`), KServe's own flags are never vLLM's (no KV004 for them),
and everything else is read by vLLM's own table. `--backend=huggingface` is Transformers: not an engine launch.
"""

from __future__ import annotations

from collections.abc import Sequence

from kvlint.flags.token_spans import sub_span
from kvlint.launches.env import Field
from kvlint.sources.yaml import YNode

# the server's own arguments (kserve/python/huggingfaceserver/huggingfaceserver/__main__.py and kserve's
# model_server.py); underscores and dashes both parse there
_OWN = frozenset({
    "model_name", "model_id", "model_dir", "model_revision", "tokenizer_revision", "backend", "task",
    "return_token_type_ids", "return_probabilities", "disable_lower_case", "disable_special_tokens", "max_length",
    "return_raw_logits", "http_port", "grpc_port", "workers", "max_threads", "max_asyncio_workers",
    "enable_grpc", "enable_docs_url", "enable_latency_logging", "configure_logging", "log_config_file",
    "access_log_format", "predictor_host", "predictor_protocol", "predictor_use_ssl",
    "predictor_request_timeout_seconds", "predictor_request_retries", "predictor_health_check", "model_kind",
    "input_names", "tensor_input_names",
    "request_timeout_seconds",
})
_NOT_VLLM = ("huggingface", "transformers", "hf")
NOTE = ("KServe Hugging Face server: --model_id names the model, its own flags ({own}) are KServe's, the rest "
        "are vLLM's ({backend})")


def is_server(c: YNode, anc: Sequence[YNode], image: str | None, fields: Sequence[Field]) -> bool:
    """The container runs KServe's Hugging Face server: its image, `huggingfaceserver` in the command, or
    a predictor `modelFormat: huggingface` whose arguments carry the server's flags."""
    if image and "huggingfaceserver" in image:
        return True
    if any("huggingfaceserver" in f.text for f in fields[:3]):
        return True
    fmt = c.path("modelFormat", "name")
    own = any(_name(f.text) in ("model_id", "model_name", "backend") for f in fields)
    return own and fmt is not None and fmt.is_scalar and fmt.text.lower() == "huggingface"


def launch_fields(fields: Sequence[Field], storage: YNode | None) -> tuple[list[Field], str] | None:
    """vLLM's argv for the server's arguments (model first), and the note; None when the backend is not vLLM."""
    model: list[Field] = []
    rest: list[Field] = []
    own: list[str] = []
    backend = "backend auto: vLLM for a model it supports"
    i = next((k for k, f in enumerate(fields) if f.text.startswith("--")), len(fields))  # after the command
    while i < len(fields):
        f = fields[i]
        name = _name(f.text)
        value, width = _value(fields, i)
        if name in _OWN:
            own.append("--" + name)
            if name == "backend" and value is not None:
                if value.text.lower() in _NOT_VLLM:
                    return None
                backend = f"--backend={value.text}"
            by_dir = name == "model_dir" and not model and storage is None  # --model_id and storageUri come first
            if value is not None and (name == "model_id" or by_dir):
                model = [Field("--model", f.span), value]
            i += width
            continue
        rest.append(f)
        i += 1
    if not model and storage is not None and storage.is_scalar and storage.text:
        model = [Field("--model", storage.span), Field(storage.text, storage.span)]
    return model + rest, NOTE.format(own=", ".join(dict.fromkeys(own)) or "none", backend=backend)


def _name(text: str) -> str:
    return text.lstrip("-").split("=", 1)[0].replace("-", "_") if text.startswith("--") else ""


def _value(fields: Sequence[Field], i: int) -> tuple[Field | None, int]:
    """The value of the flag at `i` (`--x=v` or `--x v`) and how many fields the pair takes."""
    f = fields[i]
    if "=" in f.text:
        flag, val = f.text.split("=", 1)
        span = sub_span(f.token(), len(flag) + 1, val)
        return Field(val, span, f.resolved, f.missing, origin=f.origin), 1
    if i + 1 < len(fields) and not fields[i + 1].text.startswith("--"):
        return fields[i + 1], 2
    return None, 1
