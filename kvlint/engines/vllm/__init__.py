"""vLLM: its facts, argument syntax, memory model, releases, non-KV estimate and log patterns."""
