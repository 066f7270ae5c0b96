"""The engine a flags-only argument list starts when the image does not say.

A Kubernetes container with `args:` and no `command:`, a compose service with `command:` and no
`entrypoint:`, and `docker run IMAGE --flags` without `--entrypoint` all hand their flags to the
image's own entry point. When the image is one kvlint does not know (built locally, a third-party
rebuild), the flags are the only evidence of what that entry point is. All three readers ask this one
rule, so the same argv is a launch in each or in none.
"""

from __future__ import annotations

from collections.abc import Sequence

from kvlint.launches.env import Field

# engine -> flags that mark its server; looked at in this order (the first engine with a match wins)
_DISTINCTIVE: tuple[tuple[str, frozenset[str]], ...] = (
    ("sglang", frozenset({"--model-path", "--tp-size", "--mem-fraction-static", "--context-length"})),
    ("vllm", frozenset({"--model", "--max-model-len", "--tensor-parallel-size", "--gpu-memory-utilization",
                        "--max_model_len"})),
)


def engine_from_flags(fields: Sequence[Field]) -> str | None:
    """The engine whose own flags an argument list that starts with a flag carries, or None.

    The caller has already found that nothing else starts an engine (no engine command, an image whose
    entry point kvlint does not know) and that the list goes to the image's entry point unchanged."""
    if not fields or not fields[0].text.startswith("--"):
        return None
    flags = {f.text.split("=", 1)[0] for f in fields if f.text.startswith("--")}
    return next((engine for engine, own in _DISTINCTIVE if flags & own), None)


def inferred_note(engine: str, absent: str) -> str:
    """The note on a launch found by `engine_from_flags`; `absent` names the override the file does not
    set (`command` in Kubernetes, `entrypoint` in compose, `--entrypoint` for docker run)."""
    return f"engine {engine} inferred from the flags: no {absent}, and the image does not name an engine"
