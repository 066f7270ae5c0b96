"""Estimate of the memory an engine spends outside weights and KV: the one term no config states.

vLLM measures it at startup with a profiling forward pass; a static tool can only model it. The model
is deliberately small, each term a mechanism (engines.md 1.5) with one coefficient fitted on the real
start-ups in shared/logs/cases.json (vLLM 0.19, H100: non-KV = total*util - weights - logged pool):

- activation peak: the profile run pushes max_num_batched_tokens tokens through one layer at a time;
  the live working set scales with tokens x hidden size (22 B per token per hidden unit fits 0.3 GiB
  at 2k tokens to 0.9 GiB at 8k tokens);
- sampler: the dummy sampler holds fp32 logits for max_num_seqs rows plus sorted / softmaxed copies
  (13 B per row per vocab entry, about three fp32 copies): this is why Gemma's 256k vocabulary costs
  ~3 GiB more than Granite's 49k at 1024 sequences;
- sampler path: torch's sort-based top-k/top-p (V0 and vLLM 0.12-0.16) holds 14 B more per entry than the
  FlashInfer (0.8-0.11) and Triton (0.17+) paths: the "3 GiB step" between 0.16 and 0.17 at 1024 sequences;
- collectives: from 0.17 the all-reduce + RMSNorm fusion pass (TP > 1, SM 9.0/10.x, DP == PP == 1, compiled)
  creates its IPC workspace and the TP group's NCCL communicator during the profile run (~1.6 GiB);
- CUDA graphs (vLLM >= 0.20 subtracts its estimate; not with --enforce-eager): ~22 MiB per layer at
  the 51 default capture sizes, scaled by the capture-size count, plus 0.5 GiB with collectives.

The median absolute error on the fitting cases is printed by bench/pool_error.py. Every number this
module returns is marked estimated; `non_kv_bytes=` (CLI --non-kv-gib) replaces it, and calibration
from a real log feeds the same parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kvlint.data import load_json
from kvlint.models.spec import MAMBA, NONE, ModelSpec


@lru_cache(maxsize=1)
def coefficients() -> dict[str, Any]:
    return load_json("nonkv.json")


@dataclass(frozen=True)
class NonKV:
    total: int
    parts: tuple[tuple[str, int, str], ...]  # (term, bytes, how)


def capture_sizes(max_num_seqs: int, max_num_batched_tokens: int, *, spec_tokens: int = 0,
                  blackwell: bool = False) -> list[int]:
    """vLLM's default CUDA-graph capture sizes (engines.md 1.1)."""
    cap = min(max_num_seqs * (1 + spec_tokens) * 2, 1024 if blackwell else 512)
    cap = min(cap, max_num_batched_tokens)
    sizes = {s for s in (1, 2, 4) if s <= cap}
    if cap >= 8:
        sizes.update(range(8, min(cap, 248) + 1, 8))
    if cap >= 256:
        sizes.update(range(256, cap + 1, 16))
    sizes.update(s for s in (max_num_batched_tokens, max_num_seqs) if s <= cap)
    return sorted(sizes)


def moe_activation(model: ModelSpec, tokens: int, tp: int, per_unit: int) -> list[tuple[str, int, str]]:
    """The fused-MoE workspace of the profile run: every token goes to top_k experts of moe_intermediate width
    (split by TP), held in a few activation-dtype caches at once."""
    if model.moe is None or not model.moe.experts_per_token:
        return []
    width = model.moe.moe_intermediate_size // max(tp, 1)
    size = tokens * model.moe.experts_per_token * width * per_unit
    return [("MoE activation", size, f"{tokens} tokens x top-{model.moe.experts_per_token} x intermediate "
                                     f"{model.moe.moe_intermediate_size}/{tp} x {per_unit} B")]


def kv_layers(model: ModelSpec) -> int:
    return sum(1 for layer in model.layers if layer.kind not in (NONE, MAMBA)) or model.num_layers


SORTING_SAMPLERS = frozenset({"v0", "torch_sort"})


def sampler_term(model: ModelSpec, max_num_seqs: int, sampler: str) -> tuple[str, int, str]:
    """The dummy sampler's peak over max_num_seqs rows of the vocabulary (top-k = vocab - 1 and top-p 0.9, so the
    filtering path runs). The FlashInfer and Triton paths hold the bf16 logits, an fp32 copy, softmax probs and
    the exponential draw (about 14 B per entry; 13 fitted); torch's sort path (V0, and V1 0.12-0.16 where
    FlashInfer became opt-in) also holds the sorted fp32 values, their int64 indices, two bool masks, the sorted
    softmax and the scatter output at once: 14 B more per entry (topk_topp_sampler.apply_top_k_top_p)."""
    c = coefficients()["vllm"]
    per = c["sampler_bytes_per_seq_per_vocab"]
    how = f"{max_num_seqs} seqs x vocab {model.vocab_size} x {per} B"
    if sampler in SORTING_SAMPLERS:
        per += c["sampler_sort_extra_bytes_per_seq_per_vocab"]
        how += f" + {c['sampler_sort_extra_bytes_per_seq_per_vocab']} B (torch sort top-k/top-p)"
    return "sampler", max_num_seqs * model.vocab_size * per, how


def vllm_non_kv(model: ModelSpec, *, max_num_seqs: int, max_num_batched_tokens: int, tp: int, pp: int,
                layers_on_rank: int, cudagraphs: bool, blackwell: bool = False, spec_tokens: int = 0,
                extra: tuple[tuple[str, int, str], ...] = (), collectives: bool = True,
                sampler: str = "triton") -> NonKV:
    """`collectives`: the all-reduce fusion pass is built during profiling (vLLM 0.17+ on SM 9.0/10.x, TP > 1,
    DP == PP == 1, compiled); `sampler`: the release's dummy-sampler path (VllmVersion.sampler)."""
    c = coefficients()["vllm"]
    act = max_num_batched_tokens * model.hidden_size * c["activation_bytes_per_token_per_hidden"]
    multi = tp * pp > 1
    parts = [
        ("activation peak", act, f"{max_num_batched_tokens} tokens x hidden {model.hidden_size} x "
                                 f"{c['activation_bytes_per_token_per_hidden']} B"),
        *moe_activation(model, max_num_batched_tokens, tp, c["moe_activation_bytes_per_token_per_topk_intermediate"]),
        sampler_term(model, max_num_seqs, sampler),
    ]
    if multi and collectives:
        parts.append(("collectives", c["collective_bytes_multi_gpu"],
                      "all-reduce fusion workspace + TP group NCCL communicator, made while profiling"))
    if cudagraphs:
        n = len(capture_sizes(max_num_seqs, max_num_batched_tokens, spec_tokens=spec_tokens, blackwell=blackwell))
        graphs = layers_on_rank * c["cudagraph_bytes_per_layer"] * n // c["cudagraph_reference_sizes"]
        graphs += c["cudagraph_bytes_multi_gpu"] if multi else 0
        parts.append(("CUDA graphs", graphs, f"{layers_on_rank} layers x {n} capture sizes"))
    parts.extend(extra)
    return NonKV(sum(p[1] for p in parts), tuple(parts))


def sglang_context(tp: int, pp: int) -> int:
    """Memory gone before SGLang's pre-load measurement: CUDA context, plus NCCL when multi-GPU."""
    c = coefficients()["sglang"]
    return c["context_bytes"] + (c["context_bytes_multi_gpu"] if tp * pp > 1 else 0)


def sglang_pre_pool() -> int:
    """Allocations between weight loading and pool sizing (buffers); small at default settings."""
    return coefficients()["sglang"]["pre_pool_bytes"]
