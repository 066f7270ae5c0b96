#!/usr/bin/env bash
# Qwen2.5-32B at its full 32k context on one H100: vLLM refuses to start (KV101).
set -euo pipefail
MODEL=Qwen/Qwen2.5-32B-Instruct
# expect+1: KV101, KV301, KV302
vllm serve "$MODEL" --max-model-len 32768 \
  --port 8000
