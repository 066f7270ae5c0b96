"""Calibration: replace the one estimated term (non-KV memory) with what a real startup measured.

Everything in a KV budget is exact arithmetic except non-KV memory (activation peak, CUDA graphs,
CUDA context, NCCL buffers). A startup log shows it indirectly: vLLM requests ceil(total x util) and
gives the rest after weights and non-KV to the pool, so non-KV = requested - weights - pool. Stored in
.kvlint.yaml per (model, GPU, TP, engine, engine version), later checks of that deployment use the
measured figure and say "calibrated" instead of "estimated".

The modules are split by who needs them, so `kvlint check` loads only what a calibration in its
configuration asks for and never the log parser:

- entry.py: the Calibration record and reading entries from a loaded configuration
- match.py: which entry applies to a deployment, and relabelling its budget as calibrated
- measure.py: the measured non-KV term from a parsed startup log (`kvlint verify`)
- render.py: the `calibration:` block as YAML text, spliced into a file, or as a TOML table
- store.py: finding, reading and writing the .kvlint.yaml that holds the block

Shape (a list; keys exactly these; kvlint/data/calibration.schema.json validates it):

    calibration:
      - model: meta-llama/Llama-3.1-8B-Instruct     # ModelSpec.model_id
        gpu: H100-SXM-80GB                         # catalogue id (aliases match too)
        tp: 2
        engine: vllm
        engine_version: 0.19.0
        non_kv_gib: 3.21
        source_log: logs/start.log

non_kv_gib is what compute_budget takes as `non_kv_bytes=` (in GiB): for vLLM activations + CUDA graphs +
non-torch memory; for SGLang the allocations made before the pool besides the weights.
"""
