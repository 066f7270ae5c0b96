"""Estimate of the memory an engine spends outside weights and KV: the one term no config states.

vLLM measures it at startup with a profiling run (gpu_model_runner.profile_run): one forward pass of
max_num_batched_tokens dummy tokens, then the dummy sampler over max_num_seqs rows, and it subtracts
torch's peak allocation plus the memory that grew outside torch. A static tool can only model that run, so
each term below is a mechanism read in the engine's code (engines.md 1.5), with its tensor counts and dtype
sizes, not a coefficient fitted per model:

- activation peak: the largest set of tensors alive at once in one decoder layer's forward with N tokens
  (`activation_peak`): the residual stream and the partial / reduced all-reduce tensors are full hidden width
  on every TP rank, the attention output and the MLP gate_up / activation outputs are column-parallel (split
  by TP), and the MLP width is the config's intermediate size, not the hidden size;
- sampler: it runs after the forward, whose intermediates are gone, so the torch peak is the larger of the two
  (`sampler_peak`), not their sum: logits, their fp32 copy and two fp32 tensors on the FlashInfer / Triton
  paths, the sort's buffers on torch's sort path (V0 and vLLM 0.12-0.16), beside the model output;
- MoE workspace: the fused-MoE kernel's workspaces live in a process-wide buffer that keeps its high-water mark
  (`moe_workspace`), so they are still allocated when the sampler runs: added to the peak, as is torch's cuBLAS
  workspace, allocated by the profile's first GEMM;
- non-torch: what the profile run adds outside torch's allocator at TP 1, and the all-reduce fusion workspace
  plus NCCL communicator from 0.17 (TP > 1, SM 9.0/10.x, DP == PP == 1, compiled): the two constants read off
  the logs' non-torch column (kvlint/data/nonkv.json carries the evidence for every number);
- CUDA graphs (vLLM >= 0.20 subtracts its estimate; not with --enforce-eager): ~22 MiB per layer at
  the 51 default capture sizes, scaled by the capture-size count, plus 0.5 GiB with collectives.

bench/pool_error.py prints the error on the cases the constants were read from and on the held-out ones.
Every number this module returns is marked estimated; `non_kv_bytes=` (CLI --non-kv-gib) replaces it, and
calibration from a real log feeds the same parameter.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from kvlint.data import load_json
from kvlint.models.spec import ModelSpec
from kvlint.record import record


@lru_cache(maxsize=1)
def coefficients() -> dict[str, Any]:
    return load_json("nonkv.json")


@record
class NonKV:
    total: int
    parts: tuple[tuple[str, int, str], ...]  # (term, bytes, how)


@record
class LiveTensor:
    """One activation tensor alive at the forward's peak: `width` elements per token on one rank (`full` before a
    column-parallel layer splits it by TP, equal to `width` for full-width tensors)."""

    name: str
    width: int
    full: int

    @property
    def split_by_tp(self) -> bool:
        return self.full != self.width

    def label(self, tp: int) -> str:
        return f"{self.name} {self.full}/{tp}" if self.split_by_tp else f"{self.name} {self.width}"


@record
class ActivationPeak:
    """The largest set of tensors alive at once in one decoder layer's forward of `tokens` tokens."""

    point: str  # where in the layer: "MLP", "MoE" or "all-reduce"
    tensors: tuple[LiveTensor, ...]
    tokens: int
    element_bytes: int

    @property
    def width(self) -> int:
        return sum(t.width for t in self.tensors)

    @property
    def bytes(self) -> int:
        return self.tokens * self.element_bytes * self.width

    def tensor_bytes(self) -> dict[str, int]:
        """Bytes per tensor name (a name repeated, as the two residuals, sums)."""
        out: dict[str, int] = {}
        for t in self.tensors:
            out[t.name] = out.get(t.name, 0) + self.tokens * self.element_bytes * t.width
        return out

    def formula(self, tp: int) -> str:
        counts: dict[str, int] = {}
        for t in self.tensors:
            counts[t.label(tp)] = counts.get(t.label(tp), 0) + 1
        terms = " + ".join(f"{n} x {label}" if n > 1 else label for label, n in counts.items())
        return f"{self.tokens} tokens x {self.element_bytes} B x ({terms}) at the {self.point} point of a layer"


def element_bytes(dtype: str | None) -> int:
    return 4 if (dtype or "").lower() in ("float32", "float", "fp32") else 2


def _piece_inputs(model: ModelSpec, tp: int) -> list[LiveTensor]:
    """What a compiled piece (o_proj .. MLP .. next qkv) keeps alive to its end: its inputs, the residual stream
    and the attention output, and the new residual of the post-attention add + RMSNorm."""
    c = coefficients()["vllm"]
    head = model.mla.v_head_dim if model.mla else (model.v_head_dim or model.head_dim)
    attention = model.num_attention_heads * head
    residuals = [full_width("residual", model.hidden_size)] * c["forward_residual_tensors"]
    return residuals + [split("attention output", attention, tp)] * c["forward_attention_output_tensors"]


def full_width(name: str, width: int) -> LiveTensor:
    return LiveTensor(name, width, width)


def split(name: str, width: int, tp: int) -> LiveTensor:
    """A column-parallel output: each rank holds width / tp."""
    return LiveTensor(name, width // tp, width)


def _ffn_widths(model: ModelSpec) -> list[tuple[str, int]]:
    """(point, MLP intermediate width) of the decoder layer kinds present: dense layers at the intermediate size,
    MoE layers at their shared experts' width (0 without shared experts)."""
    moe = model.moe
    if moe is None or not moe.experts_per_token:
        return [("MLP", model.intermediate_size)]
    shared = moe.shared_intermediate_size or moe.moe_intermediate_size * moe.num_shared_experts
    out = [("MoE", shared)]
    partial = bool(moe.moe_layer_ids) and len(moe.moe_layer_ids) < model.num_layers
    if moe.first_dense_layers or moe.layer_freq > 1 or partial:
        out.append(("MLP", moe.dense_intermediate_size or model.intermediate_size))
    return out


def forward_points(model: ModelSpec, tp: int) -> list[tuple[str, tuple[LiveTensor, ...]]]:
    """Every candidate peak of one layer's forward: the MLP's gate_up + activation outputs (per layer kind), and
    at TP > 1 the down_proj partial sum beside the all-reduce's out-of-place result."""
    c = coefficients()["vllm"]
    tp = max(tp, 1)
    base = _piece_inputs(model, tp)
    points = []
    for point, width in _ffn_widths(model):
        mlp = [split("gate_up output", width, tp)] * c["forward_gate_up_tensors"]
        mlp += [split("activation output", width, tp)] * c["forward_activation_tensors"]
        if point == "MoE":
            mlp.append(full_width("routed output", model.hidden_size))
        points.append((point, tuple(t for t in base + mlp if t.width)))
    if tp > 1:
        reduce = [full_width("partial/reduced sum", model.hidden_size)] * c["forward_allreduce_tensors"]
        points.append(("all-reduce", tuple(base + reduce)))
    return points


def activation_peak(model: ModelSpec, tokens: int, tp: int, dtype: str | None = "bfloat16") -> ActivationPeak:
    """The forward's peak: the candidate point with the most elements per token."""
    point, tensors = max(forward_points(model, tp), key=lambda p: sum(t.width for t in p[1]))
    return ActivationPeak(point, tensors, tokens, element_bytes(dtype))


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


def moe_workspace(model: ModelSpec, tokens: int, tp: int, dtype: str | None = "bfloat16") -> tuple[int, str] | None:
    """The fused-MoE workspaces (workspace_shapes of the expert backend the checkpoint selects), which the
    workspace manager keeps after the forward: per token, by backend, in the model dtype."""
    moe = model.moe
    if moe is None or not moe.experts_per_token:
        return None
    m = min(tokens, coefficients()["vllm"]["moe_chunk_tokens"])
    k, h, inter = moe.experts_per_token, model.hidden_size, moe.moe_intermediate_size // max(tp, 1)
    backend = _moe_backend(model)
    if backend == "gpt-oss triton kernels":
        width = k * inter + h
    elif backend == "Marlin":
        width = k * max(2 * inter, h) + max(k * inter, h)
    else:
        width = k * (max(inter, h) + max(2 * inter, h))
    size = element_bytes(dtype)
    return m * width * size, (f"{m} tokens x {width} ({backend} workspaces: top-{k}, intermediate "
                              f"{moe.moe_intermediate_size}/{tp}, hidden {h}) x {size} B")


def _moe_backend(model: ModelSpec) -> str:
    quant = model.quant
    method = (quant.method if quant else "").lower()
    if method == "mxfp4":
        return "gpt-oss triton kernels"
    if quant is not None and quant.bits == 4:
        return "Marlin"
    return "Triton experts"


SORTING_SAMPLERS = frozenset({"v0", "torch_sort"})


def sampler_peak(model: ModelSpec, max_num_seqs: int, sampler: str, dtype: str | None = "bfloat16") -> tuple[int, str]:
    """The dummy sampler's peak over max_num_seqs rows of the vocabulary (top-k = vocab - 1 and top-p 0.9, so the
    filtering path runs): the logits at the model dtype and their fp32 copy, then two fp32 tensors (softmax probs,
    exponential draw) on the FlashInfer / Triton paths, or the sort's buffers on torch's sort path (V0 and vLLM
    0.12-0.16); the Triton kernel (0.17+) keeps one fp32 row per program."""
    c = coefficients()["vllm"]
    logits = element_bytes(dtype)
    per = logits + (4 if logits != 4 else 0)
    if sampler in SORTING_SAMPLERS:
        per += c["sampler_sort_bytes_per_entry"]
        how = f"{max_num_seqs} seqs x vocab {model.vocab_size} x {per} B (logits, fp32 copy, torch sort buffers)"
    else:
        per += 4 * c["sampler_fp32_tensors"]
        how = f"{max_num_seqs} seqs x vocab {model.vocab_size} x {per} B (logits, fp32 copy, probs, draw)"
    size = max_num_seqs * model.vocab_size * per
    rows = c["sampler_hidden_row_tensors"]
    size += rows * max_num_seqs * model.hidden_size * logits
    how += f" + {rows} x {max_num_seqs} rows x hidden {model.hidden_size} (sampled hidden states, their random copy)"
    if sampler == "triton":
        programs = min(c["sampler_triton_buffer_rows"], max_num_seqs)
        size += programs * model.vocab_size * 4
        how += f" + Triton buffer {programs} rows x 4 B"
    return size, how


def torch_peak_parts(model: ModelSpec, max_num_seqs: int, max_num_batched_tokens: int, tp: int, sampler: str,
                     dtype: str | None) -> list[tuple[str, int, str]]:
    """The forward's activation peak, what the sampler adds above it (they run one after the other, so only the
    excess counts), and the MoE workspace kept through both."""
    peak = activation_peak(model, max_num_batched_tokens, tp, dtype)
    sampler_bytes, how = sampler_peak(model, max_num_seqs, sampler, dtype)
    output = max_num_batched_tokens * model.hidden_size * element_bytes(dtype)
    excess = max(0, sampler_bytes + output - peak.bytes)
    total = sampler_bytes + output
    parts = [("activation peak", peak.bytes, peak.formula(tp)),
             ("sampler", excess, f"{total:,} B ({how} + model output {max_num_batched_tokens} x hidden "
                                 f"{model.hidden_size}) minus the activation peak: it runs after the forward")]
    workspace = moe_workspace(model, max_num_batched_tokens, tp, dtype)
    if workspace is not None:
        parts.insert(1, ("MoE workspace", *workspace))
    parts.append(("cuBLAS workspace", coefficients()["vllm"]["cublas_workspace_bytes"],
                  "torch's per-stream cuBLAS workspace, allocated by the profile's first GEMM (32 MiB on SM 9.0)"))
    return parts


def vllm_non_kv(model: ModelSpec, *, max_num_seqs: int, max_num_batched_tokens: int, tp: int, pp: int,
                layers_on_rank: int, cudagraphs: bool, blackwell: bool = False, spec_tokens: int = 0,
                extra: tuple[tuple[str, int, str], ...] = (), collectives: bool = True,
                sampler: str = "triton", dtype: str | None = "bfloat16") -> NonKV:
    """`collectives`: the all-reduce fusion pass is built during profiling (vLLM 0.17+ on SM 9.0/10.x, TP > 1,
    DP == PP == 1, compiled); `sampler`: the release's dummy-sampler path (VllmVersion.sampler); `dtype`: the
    model (activation) dtype."""
    c = coefficients()["vllm"]
    multi = tp * pp > 1
    parts = torch_peak_parts(model, max_num_seqs, max_num_batched_tokens, tp, sampler, dtype)
    parts.append(("non-torch", c["non_torch_bytes"], "memory outside torch's allocator the profile run adds "
                                                    "(read off the TP-1 logs)"))
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


@record
class PoolBand:
    """How much larger than estimated the pool has been on the logs of one release era (kvlint/data/nonkv.json
    `uncertainty`): a predicted refusal whose shortfall lies inside it is not stated as a refusal (KV101)."""

    bytes: int
    era: str
    logs: int
    release: str  # the era's representative release (a launch pinning none is also judged on it)


def pool_band(sampler: str, cudagraph_estimate: bool) -> PoolBand:
    """The band of the era a vLLM release belongs to (its sampler path and whether it subtracts CUDA graphs)."""
    for era in coefficients()["uncertainty"]["vllm"]:
        if era["sampler"] == sampler and era["cudagraph_estimate"] == cudagraph_estimate:
            return PoolBand(era["pool_above_bytes"], era["era"], era["logs"], era["release"])
    return max(pool_bands(), key=lambda b: b.bytes)  # an era the table lacks: the widest band


def pool_bands() -> tuple[PoolBand, ...]:
    """Every era's band, oldest first: the releases a launch that pins none could run."""
    return tuple(PoolBand(e["pool_above_bytes"], e["era"], e["logs"], e["release"])
                 for e in coefficients()["uncertainty"]["vllm"])


def sglang_context(tp: int, pp: int) -> int:
    """Memory gone before SGLang's pre-load measurement: CUDA context, plus NCCL when multi-GPU."""
    c = coefficients()["sglang"]
    return c["context_bytes"] + (c["context_bytes_multi_gpu"] if tp * pp > 1 else 0)


def sglang_pre_pool() -> int:
    """Allocations between weight loading and pool sizing (buffers); small at default settings."""
    return coefficients()["sglang"]["pre_pool_bytes"]
