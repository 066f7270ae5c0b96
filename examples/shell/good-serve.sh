#!/usr/bin/env bash
# Serve Qwen2.5-7B on one GPU (the card comes from examples/.kvlint.yaml: H100-SXM-80GB).
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-7B-Instruct}
exec vllm serve "$MODEL" \
  --max-model-len 32768 \
  --max-num-seqs 16 \
  --gpu-memory-utilization 0.9 \
  --port 8000
