"""The engine records: what differs between vLLM and SGLang, behind one protocol (see base.py)."""

ENGINE_NAMES = ("vllm", "sglang")
