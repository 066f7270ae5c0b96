"""kvlint: KV-cache arithmetic for vLLM and SGLang deployments, checked at commit time."""

__version__ = "0.1.0"
