"""Parameter counts and weight bytes per rank, from config shapes alone.

The KV pool is what is left after the weights, so the weights must be counted the way the engines
lay them out: which matrices split under tensor parallelism, which are replicated, which stages
hold which layers, and how many bytes a quantized weight really costs (packing plus scales).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from kvlint.errors import KvlintError
from kvlint.lazyre import lazy
from kvlint.models.layers import hybrid_pattern
from kvlint.models.outputs import LM_HEAD, SCORE, num_labels, output_head
from kvlint.models.spec import MAMBA, ModelSpec, Quantization
from kvlint.record import record

DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "half": 2, "bfloat16": 2, "fp8": 1}
NON_GATED_MLP = frozenset({"falcon", "RefinedWebModel", "RefinedWeb", "phi", "gpt2", "gpt_bigcode", "opt"})
BIASED_LINEAR_TYPES = frozenset({"phi", "opt"})  # every projection (q/k/v/o, fc1/fc2) carries a bias
OPT_POSITION_OFFSET = 2  # OPTLearnedPositionalEmbedding keeps two rows before position 0
QKV_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe", "qwen2_5_vl", "qwen2_vl"})
QK_NORM_TYPES = frozenset({"qwen3", "qwen3_moe", "qwen3_next", "gemma3_text", "olmo2"})
FOUR_NORM_TYPES = frozenset({"gemma2", "gemma3_text"})


@record
class LayerParams:
    """One decoder layer, split by how tensor parallelism treats each part."""

    attn_split: int = 0  # q/o (and MLA up-projections): divided by tp
    attn_kv: int = 0  # k/v projections: replicated when tp > kv heads
    attn_down: int = 0  # MLA down-projections (q_a, kv_a): linear layers replicated on every rank
    replicated: int = 0  # norms, routers, small state params: the same on every rank, never quantized
    mlp: int = 0  # dense FFN: divided by tp
    experts: int = 0  # routed experts: divided by tp, or by ep with expert parallelism
    shared: int = 0  # shared experts: divided by tp
    active_experts: int = 0  # routed-expert parameters one token uses

    @property
    def total(self) -> int:
        return self.attn_split + self.attn_kv + self.attn_down + self.replicated + self.mlp + self.experts + self.shared


@record
class ParamCount:
    total: int  # everything the checkpoint ships except the MTP module (see `mtp`)
    embedding: int
    lm_head: int  # 0 when tied to the embedding, or when the architecture has no vocabulary head (outputs.py)
    attention: int
    mlp: int  # dense FFN layers
    moe: int  # routed + shared experts
    norms: int  # norms, routers and other small parameters replicated on every rank
    vision: int
    mtp: int  # MTP / next-n draft module: one decoder layer + its projections, embedding and head
    active: int  # per token: all non-expert weights + the routed top-k, without the input embedding lookup
    layers: tuple[LayerParams, ...]
    score: int = 0  # a classifier's hidden x num_labels head (replicated, last stage), in place of the lm_head
    tied_head: bool = False  # the lm_head is the input embedding (a last PP stage holds its own copy)

    @property
    def total_with_mtp(self) -> int:
        return self.total + self.mtp


_Widths = tuple[int, int, int, int, int]  # (attention + embedding, lm_head, dense FFN, shared experts, expert TP)


@record
class Placement:
    """How wide the group each part of the model is split over, where it is not the whole TP group (None: tp).

    SGLang's attention DP (`--enable-dp-attention`, `--attn-dp-size`) runs attention and the input embedding over
    tp / attn_dp ranks (models/qwen3_moe.py `parallel_group="attn_tp"`, `get_embedding_tp_kwargs`), the lm_head
    over the same group only with `--enable-dp-lm-head`, dense FFN layers replicated with `--moe-dense-tp-size 1`,
    shared experts replicated under an all-to-all MoE backend (DeepEP and kin), and each routed expert over
    moe_tp = tp / ep ranks (ep x moe_tp = tp, so EP moves experts between ranks but not bytes)."""

    attn_tp: int | None = None
    head_tp: int | None = None
    dense_tp: int | None = None
    shared_tp: int | None = None
    expert_tp: int | None = None  # each routed expert's split; None: 1 with ep > 1 (vLLM's EP), else tp
    redundant_experts: int = 0  # vLLM's EPLB: E + redundant physical experts spread over the EP ranks

    def widths(self, tp: int, ep: int) -> _Widths:
        expert_tp = self.expert_tp if self.expert_tp is not None else (1 if ep > 1 else tp)
        return (self.attn_tp or tp, self.head_tp or tp, self.dense_tp or tp, self.shared_tp or tp, expert_tp)


# ---------------------------------------------------------------- counting


def count_params(spec: ModelSpec) -> ParamCount:
    """Count parameters from shapes (embeddings, attention incl. MLA/linear attention, MLP or
    experts, norms, vision tower); DeepSeek-V4's compressed attention is approximate."""
    text = _text(spec)
    layers = tuple(layer_params(spec, text, i) for i in range(spec.num_layers))
    embedding = spec.vocab_size * spec.hidden_size
    head = output_head(spec.architecture)  # an embedding or reward model has no vocabulary head
    tied = head == LM_HEAD and spec.tie_word_embeddings
    lm_head = 0 if tied or head != LM_HEAD else embedding + (spec.vocab_size if spec.model_type == "phi" else 0)
    score = spec.hidden_size * num_labels(spec.raw) if head == SCORE else 0
    final_norm = _norm_width(spec) + _learned_positions(spec)  # (OPT's position table: replicated, first stage)
    attention = sum(p.attn_split + p.attn_kv + p.attn_down for p in layers)
    moe = sum(p.experts + p.shared for p in layers)
    norms = sum(p.replicated for p in layers) + final_norm
    total = embedding + lm_head + score + sum(p.total for p in layers) + final_norm + spec.vision_params
    active = total - embedding + (embedding if tied else 0) - spec.vision_params
    active -= sum(p.experts - p.active_experts for p in layers)
    return ParamCount(
        total=total,
        embedding=embedding,
        lm_head=lm_head,
        attention=attention,
        mlp=sum(p.mlp for p in layers),
        moe=moe,
        norms=norms,
        vision=spec.vision_params,
        mtp=_mtp_params(spec, text),
        active=active,
        layers=layers,
        score=score,
        tied_head=tied,
    )


def _text(spec: ModelSpec) -> dict[str, Any]:
    raw = spec.raw.get(spec.text_config_key) if spec.text_config_key else spec.raw
    return raw if isinstance(raw, dict) else {}


def _norm_width(spec: ModelSpec) -> int:
    """LayerNorm (Falcon, Phi-2) carries a bias, RMSNorm does not."""
    return 2 * spec.hidden_size if spec.model_type in NON_GATED_MLP else spec.hidden_size


def layer_params(spec: ModelSpec, text: dict[str, Any], index: int) -> LayerParams:
    pattern = hybrid_pattern(text)
    if pattern is not None:
        return _hybrid_block(spec, text, pattern[index])
    split, kv, down, replicated = _attention(spec, text, index)
    replicated += _layer_norms(spec)
    dense, experts, shared, router, active = _ffn(spec, text, index)
    return LayerParams(split, kv, down, replicated + router, dense, experts, shared, active)


def _hybrid_block(spec: ModelSpec, text: dict[str, Any], block: str) -> LayerParams:
    """Nemotron-H: each block is ONE of Mamba-2 mixer (M), attention (*), MLP (-) or MoE (E), with one norm.
    Its MLPs and experts are non-gated (squared ReLU: up and down only); with moe_latent_size the routed
    experts work in that latent width between a down- and an up-projection of the hidden state."""
    h = norm = spec.hidden_size
    if block == "M":
        heads, head_dim = int(text["mamba_num_heads"]), int(text.get("mamba_head_dim") or 64)
        inner = heads * head_dim
        groups_state = 2 * int(text.get("n_groups") or 1) * int(text.get("ssm_state_size") or 128)
        conv = (inner + groups_state) * (int(text.get("conv_kernel") or 4) + (1 if text.get("use_conv_bias") else 0))
        split = h * (2 * inner + groups_state + heads) + inner * h + conv
        return LayerParams(attn_split=split, replicated=norm + 3 * heads + inner)
    if block == "*":
        q_o = 2 * h * spec.num_attention_heads * spec.head_dim
        return LayerParams(attn_split=q_o, attn_kv=2 * h * spec.num_kv_heads * spec.head_dim, replicated=norm)
    if block == "-":
        return LayerParams(replicated=norm, mlp=2 * h * spec.intermediate_size)
    moe = spec.moe
    assert moe is not None
    latent = int(text.get("moe_latent_size") or h)
    per_expert = 2 * latent * moe.moe_intermediate_size
    router = moe.num_experts * (h + 1)  # gate weight and e_score_correction_bias
    shared = 2 * h * (moe.shared_intermediate_size or 0) + (2 * h * latent if latent != h else 0)
    return LayerParams(replicated=norm + router, experts=per_expert * moe.num_experts, shared=shared,
                       active_experts=per_expert * moe.experts_per_token)


def _learned_positions(spec: ModelSpec) -> int:
    """OPT's learned position table ((max positions + 2) x hidden), replicated on every rank like the norms."""
    if spec.model_type != "opt":
        return 0
    return (int(_text(spec).get("max_position_embeddings") or 2048) + OPT_POSITION_OFFSET) * spec.hidden_size


def _layer_norms(spec: ModelSpec) -> int:
    if spec.model_type in FOUR_NORM_TYPES:
        return 4 * spec.hidden_size
    if spec.model_type == "opt":
        return 2 * _norm_width(spec)  # self_attn_layer_norm and final_layer_norm, each with a bias
    if spec.model_type in NON_GATED_MLP:
        return _norm_width(spec)  # one LayerNorm before the parallel attention + MLP
    return 2 * spec.hidden_size


def _attention(spec: ModelSpec, text: dict[str, Any], index: int) -> tuple[int, int, int, int]:
    """(split by tp, k/v projections, replicated linear, replicated small) parameters."""
    if spec.layers[index].kind == MAMBA:
        return _gated_delta_net(spec, text)
    if spec.mla is not None:
        return _mla_attention(spec, text)
    h, heads, kv_heads = spec.hidden_size, spec.num_attention_heads, spec.num_kv_heads
    dk, dv = spec.head_dim, spec.v_head_dim
    q_width = heads * dk * (2 if spec.model_type == "qwen3_next" else 1)  # Qwen3-Next gates its output
    biased = spec.model_type in BIASED_LINEAR_TYPES
    qkv_bias = spec.model_type in QKV_BIAS_TYPES or biased or bool(text.get("attention_bias"))
    o_bias = biased or bool(text.get("attention_bias")) and spec.model_type not in QKV_BIAS_TYPES
    q = h * q_width + (q_width if qkv_bias else 0)
    kv = h * kv_heads * (dk + dv) + (kv_heads * (dk + dv) if qkv_bias else 0)
    o = heads * dv * h + (h if o_bias else 0)
    norms = 2 * dk if spec.model_type in QK_NORM_TYPES or text.get("use_qk_norm") and "glm" in spec.model_type else 0
    sinks = heads if spec.model_type == "gpt_oss" else 0
    return q + o, kv, 0, norms + sinks


def _mla_attention(spec: ModelSpec, text: dict[str, Any]) -> tuple[int, int, int, int]:
    """MLA: the down-projections (q_a, kv_a) are replicated on every TP rank, the up-projections split."""
    m, h, heads = spec.mla, spec.hidden_size, spec.num_attention_heads
    assert m is not None
    qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim
    if spec.model_type == "deepseek_v4":
        return _v4_attention(spec, text)
    q_lora = int(m.q_lora_rank or 0)
    q_down, q_up = (h * q_lora, q_lora * heads * qk_head) if q_lora else (0, h * heads * qk_head)
    kv_down = h * (m.kv_lora_rank + m.qk_rope_head_dim)
    norms = q_lora + m.kv_lora_rank  # q_a_layernorm, kv_a_layernorm
    kv_up = m.kv_lora_rank * heads * (m.qk_nope_head_dim + m.v_head_dim)
    o = heads * m.v_head_dim * h
    indexer = _v32_indexer(text, h, m.q_lora_rank)
    return q_up + kv_up + o, 0, q_down + kv_down + indexer, norms


def _v32_indexer(text: dict[str, Any], h: int, q_lora: int | None) -> int:
    """DeepSeek-V3.2's sparse indexer: wq_b, wk, weights_proj and a k norm."""
    if not text.get("index_topk") or not text.get("index_head_dim"):
        return 0
    dim, n = int(text["index_head_dim"]), int(text.get("index_n_heads") or 64)
    return int(q_lora or h) * n * dim + h * dim + 2 * dim + h * n


def _v4_attention(spec: ModelSpec, text: dict[str, Any]) -> tuple[int, int, int, int]:
    """DeepSeek-V4 (approximate): low-rank q, one shared KV head of head_dim, grouped low-rank output."""
    m, h, heads = spec.mla, spec.hidden_size, spec.num_attention_heads
    assert m is not None
    head = m.kv_lora_rank + m.qk_rope_head_dim
    q_lora = int(m.q_lora_rank or h)
    groups, o_rank = int(text.get("o_groups") or 1), int(text.get("o_lora_rank") or h)
    o = heads * head * o_rank // groups + groups * o_rank * h
    return q_lora * heads * head + o, 0, h * q_lora + h * head + _v32_indexer(text, h, q_lora), q_lora + head


def _gated_delta_net(spec: ModelSpec, text: dict[str, Any]) -> tuple[int, int, int, int]:
    """Qwen3-Next linear-attention layer: in_proj_qkvz, in_proj_ba, conv1d, decay params, norm, out_proj."""
    h = spec.hidden_size
    key_dim = int(text["linear_num_key_heads"]) * int(text["linear_key_head_dim"])
    v_heads, v_dim = int(text["linear_num_value_heads"]), int(text["linear_value_head_dim"])
    value_dim = v_heads * v_dim
    conv = (2 * key_dim + value_dim) * int(text.get("linear_conv_kernel_dim") or 4)
    split = h * (2 * key_dim + 2 * value_dim) + h * 2 * v_heads + value_dim * h
    return split + conv, 0, 0, 2 * v_heads + v_dim


def _ffn(spec: ModelSpec, text: dict[str, Any], index: int) -> tuple[int, int, int, int, int]:
    """(dense, routed experts, shared experts, router, active routed) parameters of one layer."""
    h, moe = spec.hidden_size, spec.moe
    if moe is None or index not in moe.moe_layer_ids:
        width = moe.dense_intermediate_size if moe and moe.dense_intermediate_size else spec.intermediate_size
        return _dense_mlp(spec, width), 0, 0, 0, 0
    per_expert = 3 * h * moe.moe_intermediate_size
    router = h * moe.num_experts
    if spec.model_type == "gpt_oss":
        per_expert += 2 * moe.moe_intermediate_size + h
        router += moe.num_experts
    if text.get("topk_method") == "noaux_tc":
        router += moe.num_experts  # e_score_correction_bias
    shared_width = moe.shared_intermediate_size or moe.num_shared_experts * moe.moe_intermediate_size
    shared = 3 * h * shared_width if moe.num_shared_experts else 0
    if spec.model_type in ("qwen2_moe", "qwen3_next") and shared:
        router += h  # shared_expert_gate
    experts = per_expert * moe.num_experts
    return 0, experts, shared, router, per_expert * moe.experts_per_token


def _dense_mlp(spec: ModelSpec, width: int) -> int:
    h = spec.hidden_size
    if spec.model_type in NON_GATED_MLP:
        return 2 * h * width + ((width + h) if spec.model_type in BIASED_LINEAR_TYPES else 0)
    return 3 * h * width


def _mtp_params(spec: ModelSpec, text: dict[str, Any]) -> int:
    """DeepSeek-style next-n module: a full (MoE) decoder layer, enorm/hnorm, eh_proj (2h x h), a
    final norm, and its own copies of the embedding and output head as the checkpoint stores them (Qwen3.5's
    MTP shares the target's: `mtp_shares_embeddings`)."""
    if not spec.num_mtp_layers:
        return 0
    last = layer_params(spec, text, spec.num_layers - 1).total
    h, embed = spec.hidden_size, 0 if spec.mtp_shares_embeddings else spec.vocab_size * spec.hidden_size
    return spec.num_mtp_layers * (last + 2 * h * h + 3 * h + 2 * embed)


# ---------------------------------------------------------------- bytes per rank


def rope_cache_bytes(spec: ModelSpec, dtype: str | None = None) -> int:
    """Bytes of vLLM's precomputed RoPE cos/sin tables, on every rank.

    Not weights, but allocated at model load and included in vLLM's "Model loading took" figure:
    one table of (positions x rotary_dim) per distinct RoPE (layers share it), positions being the
    derived length (the scaled length for linear/dynamic/yarn tables). Small for most models, but
    Llama-4 Scout's 10,485,760 positions x 128 x 2 B are 2.5 GiB per GPU.
    """
    if spec.mla is not None:
        rotary = spec.mla.qk_rope_head_dim
    else:
        rotary = int(spec.head_dim * float(_text(spec).get("partial_rotary_factor") or 1.0))
    tables = 2 if spec.model_type == "gemma3_text" else 1  # local and global RoPE bases
    size = DTYPE_BYTES.get((dtype or spec.dtype or "bfloat16").replace("torch.", ""), 2)
    if size == 4 and dtype is None:
        size = 2  # --dtype auto downcasts a float32 checkpoint
    return spec.max_len_vllm * rotary * size * tables



MXFP4_BACKENDS = ("checkpoint", "marlin", "triton", "flashinfer")


def _round_up(x: int, m: int) -> int:
    return -(-x // m) * m


def _mxfp4_expert_bytes(backend: str, hidden: int, inter: int, biased: bool) -> float:
    """Bytes of one routed expert (w13 + w2, their e8m0 scales, biases) as vLLM's mxfp4 MoE backend keeps them.

    `inter` is the intermediate width on this rank. From vLLM's Mxfp4MoEMethod.create_weights and
    process_weights_after_loading (0.10.1-0.19 wheels):
    - checkpoint: fp4 weights (0.5 B), one scale byte per 32, bf16 biases;
    - marlin (SM < 9.0, or 0.10.1 on Hopper): intermediate padded to a multiple of 128, hidden to 256, weights
      repacked at the same bytes, scales kept at one byte per 32 (float8_e8m0fnu), biases bf16;
    - triton (SM 9.x / 10.x with triton_kernels): intermediate padded to 64, biases cast to fp32, the weights
      swizzled and the original tensors deleted, but the original scale parameters stay registered beside the
      swizzled copy, whose rows (2 x intermediate, hidden) are padded to 256 (HopperMXScaleLayout,
      num_warps 8) and columns to an even count;
    - flashinfer (SM 10.x): intermediate and hidden padded to multiples of 256, scales shuffled in place.
    """
    h, i = hidden, inter
    if backend == "marlin":
        i, h = _round_up(inter, 128), _round_up(hidden, 256)
    elif backend == "triton":
        i = _round_up(inter, 64)
    elif backend == "flashinfer":
        i, h = _round_up(inter, 256), _round_up(hidden, 256)
    weights = 3 * h * i / 2
    scales = 3 * h * i / 32
    bias = (2 * i + h) * (4 if backend == "triton" else 2) if biased else 0
    if backend == "triton":
        scales += _round_up(2 * i, 256) * _round_up(h // 32, 2) + _round_up(h, 256) * _round_up(i // 32, 2)
    return weights + scales + bias


@lru_cache(maxsize=1024)
def mxfp4_layout_bytes(spec: ModelSpec, backend: str, *, tp: int = 1, pp: int = 1, pp_rank: int | None = None,
                       ep: int = 1) -> int:
    """Bytes an mxfp4 MoE backend adds to (or, never in practice, saves on) the experts `weights_bytes` counts in
    the checkpoint layout, on the largest rank or stage `pp_rank`; 0 for any other model.

    gpt-oss-120b on one H100: the checkpoint layout is 60.71 GiB; Marlin (vLLM 0.10.1) pads to 65.84 GiB (logged
    65.97), the Triton backend keeps both scale copies for 64.25 GiB (logged 64.38)."""
    if backend not in MXFP4_BACKENDS:
        raise WeightsError(f"unknown mxfp4 backend {backend!r}: one of {', '.join(MXFP4_BACKENDS)}")
    if backend == "checkpoint" or spec.moe is None or spec.quant is None or spec.quant.method != "mxfp4":
        return 0
    if tp < 1 or pp < 1 or ep < 1 or (pp_rank is not None and not 0 <= pp_rank < pp) or pp > spec.num_layers:
        raise WeightsError(f"invalid parallel sizes tp={tp} pp={pp} pp_rank={pp_rank} ep={ep}")
    moe, h = spec.moe, spec.hidden_size
    experts, inter = (-(-moe.num_experts // ep), moe.moe_intermediate_size) if ep > 1 else \
        (moe.num_experts, moe.moe_intermediate_size // tp)
    biased = spec.model_type == "gpt_oss"
    extra = experts * (_mxfp4_expert_bytes(backend, h, inter, biased) - _mxfp4_expert_bytes("checkpoint", h, inter,
                                                                                           biased))
    ranks = [pp_rank] if pp_rank is not None else list(range(pp))
    ids = set(moe.moe_layer_ids)
    return int(max(sum(1 for i in pp_layer_range(spec.num_layers, pp, r) if i in ids) for r in ranks) * extra)


class WeightsError(KvlintError):
    """Parallel sizes that cannot describe a real launch (tp < 1, pp_rank outside 0..pp-1)."""


def pp_layer_range(num_layers: int, pp: int, rank: int) -> range:
    """vLLM get_pp_indices: L // pp layers each; the remainder goes one each to partitions -2, -3, ..."""
    sizes = [num_layers // pp] * pp
    for k in range(num_layers % pp):
        sizes[-2 - k if pp > 1 else 0] += 1
    start = sum(sizes[:rank])
    return range(start, start + sizes[rank])


@lru_cache(maxsize=4096)  # a run sizes one model at many cards and lengths: the count depends on none of them
def weights_bytes(
    spec: ModelSpec,
    *,
    tp: int = 1,
    pp: int = 1,
    pp_rank: int | None = None,
    ep: int = 1,
    dtype: str | None = None,
    quantization: str | None = None,
    mtp: bool = False,
    placement: Placement | None = None,
) -> int:
    """Weight bytes one GPU holds: the largest rank, or stage `pp_rank` when given.

    Bytes per weight follow the checkpoint's quantization_config (AWQ/GPTQ int4: 0.5 B + fp16 scale
    and packed 4-bit zero per group per output column; fp8: 1 B + block/channel scales; mxfp4 on
    experts: 0.5 B + an e8m0 scale per 32). Quantized modules are the linear layers; embeddings,
    lm_head, norms and routers stay at the model dtype unless the checkpoint says otherwise.
    `quantization="fp8"` models vLLM's online fp8 (`--quantization fp8` on a bf16 checkpoint):
    linear layers become 1 B/weight with per-tensor scales, embeddings and lm_head stay bf16.
    A float32 checkpoint is counted at bf16 (vLLM's `--dtype auto` downcast on SM80+).
    Under TP attention and MLP split by tp (KV projections keep max(1, h_kv // tp) heads per rank),
    embeddings and lm_head split by tp (vocab parallel), norms and routers are replicated; routed
    experts split by ep when ep > 1 (expert parallel, ep = tp x dp), else by tp; the largest EP rank holds
    ceil(experts / ep) of them (vLLM's determine_expert_map, SGLang's EP layers). `placement` gives other
    group widths per part (SGLang's attention DP: attention and embedding over tp / attn_dp). PP uses vLLM's
    layer split, the embedding (and vision tower) on the first stage, the lm_head on the last. MTP weights
    are loaded only for MTP speculative decoding (`mtp=True`).
    """
    if tp < 1 or pp < 1 or ep < 1 or (pp_rank is not None and not 0 <= pp_rank < pp):
        raise WeightsError(f"invalid parallel sizes tp={tp} pp={pp} pp_rank={pp_rank} ep={ep}")
    if pp > spec.num_layers:
        raise WeightsError(f"pp={pp} is larger than the model's {spec.num_layers} layers")
    counts = count_params(spec)
    price = _Pricing(spec, dtype, quantization)
    if placement is not None and (min(placement.widths(tp, ep)) < 1 or placement.redundant_experts < 0):
        raise WeightsError(f"invalid placement {placement} for tp={tp} ep={ep}")
    widths = (placement or Placement()).widths(tp, ep)
    share = _expert_share(spec, ep, placement.redundant_experts if placement is not None else 0)
    ranks = [pp_rank] if pp_rank is not None else list(range(pp))
    return int(max(_stage_bytes(spec, counts, price, widths, pp, r, share, mtp) for r in ranks))


def _stage_bytes(
    spec: ModelSpec, counts: ParamCount, price: _Pricing, widths: _Widths, pp: int, rank: int, share: float, mtp: bool
) -> float:
    attn_tp, head_tp = widths[0], widths[1]
    total = 0.0
    for i in pp_layer_range(spec.num_layers, pp, rank):
        total += _layer_bytes(spec, counts.layers[i], price, widths, share)
    if rank == 0:
        total += counts.embedding / attn_tp * price.unquantized + counts.vision / attn_tp * price.unquantized
        total += _learned_positions(spec) * price.unquantized
    if rank == pp - 1:
        head = counts.lm_head or (counts.embedding if pp > 1 and counts.tied_head else 0)
        total += head / head_tp * price.head + (counts.score + _norm_width(spec)) * price.unquantized
        if mtp and counts.mtp:
            last = counts.layers[-1]
            total += _layer_bytes(spec, last, price, widths, share)
            total += (counts.mtp - last.total) / attn_tp * price.unquantized
    return int(round(total))


def _layer_bytes(spec: ModelSpec, layer: LayerParams, price: _Pricing, widths: _Widths, share: float) -> float:
    attn_tp, _, dense_tp, shared_tp, expert_tp = widths
    kv_share = max(1, spec.num_kv_heads // attn_tp) / spec.num_kv_heads if spec.num_kv_heads else 1 / attn_tp
    total = layer.attn_split / attn_tp * price.attn + layer.attn_kv * kv_share * price.attn
    total += layer.attn_down * price.attn + layer.replicated * price.unquantized
    total += layer.mlp / dense_tp * price.mlp + layer.shared / shared_tp * price.mlp
    total += layer.experts * share / expert_tp * price.experts
    return total


def _expert_share(spec: ModelSpec, ep: int, redundant: int) -> float:
    """The share of a layer's routed experts the largest EP rank holds: ceil((E + redundant) / ep) / E (the first
    (E + redundant) % ep ranks take one more; EPLB's redundant copies are physical experts too), 1 without EP."""
    if ep <= 1 or spec.moe is None or spec.moe.num_experts < 1:
        return 1.0
    experts = spec.moe.num_experts
    return -(-(experts + redundant) // ep) / experts


class _Pricing:
    """Bytes per weight for each module group, from dtype and quantization."""

    def __init__(self, spec: ModelSpec, dtype: str | None, override: str | None):
        base = (dtype or spec.dtype or "bfloat16").replace("torch.", "")
        if base in ("float32", "float") and dtype is None:
            base = "bfloat16"
        if base not in DTYPE_BYTES:
            raise WeightsError(f"unknown dtype {base!r}: use float16, bfloat16 or float32")
        self.unquantized = float(DTYPE_BYTES[base])
        self.head = self.unquantized
        quant = _choose_quant(spec, override)
        linear = self.unquantized if quant is None else _linear_bytes(quant, spec.hidden_size)
        self.attn = self.mlp = self.experts = linear
        if quant is not None:
            self._apply_scope(quant)

    def _apply_scope(self, quant: Quantization) -> None:
        # A pattern naming one decoder layer (`model.layers.0.self_attn.q_proj`) leaves that layer alone,
        # not the module kind everywhere: only layer-wide patterns decide a module group's price.
        ignored = " ".join(p for p in quant.ignored if "vision" not in p and not _ONE_LAYER.search(p))
        if quant.method == "mxfp4":  # vLLM's mxfp4 applies to the MoE experts only
            self.attn = self.mlp = self.unquantized
            return
        if "self_attn" in ignored or "q_proj" in ignored:
            self.attn = self.unquantized
        if quant.method == "modelopt" and "lm_head" not in ignored:
            self.head = self.experts


_ONE_LAYER = lazy(r"layers\.\d+\.")


def _choose_quant(spec: ModelSpec, override: str | None) -> Quantization | None:
    """The scheme the engine will load: a quantized checkpoint's own (vLLM rejects a --quantization
    that contradicts it), else online quantization named on the command line (fp8, bitsandbytes)."""
    if not override or spec.quant is not None:
        return spec.quant
    name = override.lower().replace("-", "_")
    if name in ("fp8", "ptpc_fp8", "fp8_dynamic"):
        return Quantization("fp8-online", 8)
    if name == "bitsandbytes":  # in-flight 4-bit with fp32 absmax per 64 weights
        return Quantization("bitsandbytes", 4, 64)
    if name in _CHECKPOINT_ONLY and spec.derived_from is not None:
        # the config is a stand-in (a local folder named after a public model, sample K118's `quantize/model/
        # Qwen2.5-1.5B-Instruct`): whether the checkpoint itself is quantized so, the flag says it is, is unknown
        raise WeightsError(f"--quantization {override} needs a checkpoint quantized that way; the config kvlint holds "
                           f"stands in for {spec.model_id} ({spec.derived_from}) and cannot say whether it is")
    if name in _CHECKPOINT_ONLY:  # the engine looks for the method's config in the checkpoint and stops without it
        from kvlint.errors import InvalidSettingError

        reason = (f"needs a checkpoint quantized with {override} (the engine reads its quantization config from the "
                  f"checkpoint); {spec.model_id} declares none")
        raise InvalidSettingError(f"--quantization {override} {reason}", setting="quantization", reason=reason)
    raise WeightsError(f"--quantization {override} needs a checkpoint quantized that way; "
                       f"{spec.model_id} declares none")


# methods that only load a checkpoint already quantized that way (no online quantization exists for them)
_CHECKPOINT_ONLY = frozenset({"awq", "awq_marlin", "gptq", "gptq_marlin", "gptq_marlin_24", "marlin",
                              "compressed_tensors", "modelopt", "modelopt_fp4", "gguf", "aqlm", "mxfp4"})


def _linear_bytes(quant: Quantization, hidden: int) -> float:
    method, bits = quant.method, quant.bits or 16
    if method == "fp8-online":
        return 1.0
    if method == "mxfp4":
        return 0.5 + 1 / 32
    if method in ("awq", "gptq") or (bits <= 4 and quant.group_size):
        group = quant.group_size if quant.group_size and quant.group_size > 0 else hidden
        zeros = 0.0 if quant.method == "compressed-tensors" and _symmetric(quant) else bits / 8 / group
        return bits / 8 + 2 / group + zeros
    if method == "bitsandbytes":
        return bits / 8 + 4 / (quant.group_size or 64)
    if bits == 8:
        return 1.0 + _fp8_scale_bytes(quant, hidden)
    return bits / 8


def _symmetric(quant: Quantization) -> bool:
    groups = quant.raw.get("config_groups") or {}
    weights = next((g.get("weights") for g in groups.values() if isinstance(g, dict)), None) or {}
    return bool(weights.get("symmetric", True))


def _fp8_scale_bytes(quant: Quantization, hidden: int) -> float:
    """fp32 scales: one per 128x128 block (DeepSeek/Qwen fp8), or one per output channel."""
    block = quant.raw.get("weight_block_size")
    if isinstance(block, list) and len(block) == 2 and all(block):
        return 4 / (int(block[0]) * int(block[1]))
    if quant.method in ("compressed-tensors", "fbgemm_fp8"):
        return 4 / hidden
    return 0.0
