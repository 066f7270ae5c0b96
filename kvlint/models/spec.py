"""The model facts the memory models need, read once from config.json.

Every engine computation (cell size, pages, weights) reads a ModelSpec, never the raw config, so the
quirks of config.json (text_config nesting, head_dim vs hidden/heads, MLA dims, layer patterns) are
decided in exactly one place: kvlint.models.config.
"""

from __future__ import annotations

from typing import Any

from kvlint.record import field, record

# Attention kinds of one layer, as the engines allocate KV for them.
FULL = "full"  # full attention: KV for every token of the request
SLIDING = "sliding"  # sliding window of `window` tokens
CHUNKED = "chunked"  # chunked local attention (Llama-4), chunk of `window` tokens
MLA = "mla"  # multi-head latent attention: one latent of head_dim_k per token, no V, not split by TP
MAMBA = "mamba"  # linear-attention / Mamba state: fixed bytes per request, not per token
NONE = "none"  # no KV of its own (KV-shared layer, or attention-free)
LAYER_KINDS = (FULL, SLIDING, CHUNKED, MLA, MAMBA, NONE)


@record
class LayerKV:
    """What one decoder layer stores per token (or per request for MAMBA)."""

    kind: str
    num_kv_heads: int = 0  # total over all ranks (MLA: 1)
    head_dim_k: int = 0  # MLA: kv_lora_rank + qk_rope_head_dim
    head_dim_v: int = 0  # MLA: 0
    window: int | None = None  # SLIDING: window W; CHUNKED: chunk size C
    state_bytes: int | None = None  # MAMBA: state bytes per request at model dtype, whole model width
    ssm_elements: int = 0  # Mamba-2: SSM state elements per request inside state_bytes (whole width), whose dtype
    ssm_bytes: int = 0  # is an engine default: counted at ssm_bytes each (config's mamba_ssm_cache_dtype, else float32)
    ssm_named: bool = False  # the config names mamba_ssm_cache_dtype


@record
class MLADims:
    kv_lora_rank: int
    qk_rope_head_dim: int
    qk_nope_head_dim: int
    v_head_dim: int
    q_lora_rank: int | None = None
    index_head_dim: int | None = None  # DeepSeek-V3.2 sparse indexer
    index_topk: int | None = None
    index_kpool: int = 1  # tokens pooled into one indexer key (index_kpool)
    index_shared_layers: tuple[int, ...] = ()  # layers reusing the previous layer's top-k: no indexer key of their own


@record
class MoE:
    num_experts: int
    experts_per_token: int
    moe_intermediate_size: int
    num_shared_experts: int = 0
    shared_intermediate_size: int | None = None  # when it differs from moe_intermediate_size * n_shared
    first_dense_layers: int = 0  # DeepSeek first_k_dense_replace
    layer_freq: int = 1  # every n-th layer is MoE (Llama-4 interleave, Qwen decoder_sparse_step)
    dense_intermediate_size: int | None = None  # FFN width of the dense layers
    moe_layer_ids: tuple[int, ...] = ()  # decoder layers that carry experts (the others are dense)


@record
class Quantization:
    """Weight (and checkpoint KV) quantization as the checkpoint declares it."""

    method: str  # awq, gptq, fp8, compressed-tensors, modelopt, bitsandbytes, mxfp4, ...
    bits: int | None = None  # weight bits (4 for AWQ/GPTQ int4, 8 for fp8)
    group_size: int | None = None
    kv_cache_dtype: str | None = None  # "fp8" when the checkpoint carries a KV scheme
    ignored: tuple[str, ...] = ()  # module name patterns left unquantized (lm_head, ...)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@record
class LengthCandidate:
    """One context length the real model may derive when its own config.json is not at hand: the lengths a
    bundled relative's config gives each engine (a fine-tune's or a sibling's length is not its base's)."""

    max_len_vllm: int
    max_len_sglang: int
    source: str  # the bundled id whose config gives these lengths


@record
class ModelSpec:
    model_id: str
    source: str  # where the config came from: a path, "hf-cache:<path>", "bundled:<id>"
    architecture: str  # architectures[0]
    model_type: str
    num_layers: int  # decoder layers (num_hidden_layers), excluding MTP/draft layers
    # one per decoder layer; compared, not hashed: num_layers and the rest tell specs apart, and hashing ~50 layer
    # records each time a spec keys a memo was a third of every record hash a run made
    layers: tuple[LayerKV, ...] = field(hash=False)
    hidden_size: int
    num_attention_heads: int
    num_kv_heads: int  # total KV heads as vLLM counts them (MLA models: as declared)
    head_dim: int  # K head dim (head_dim when present, else hidden // heads)
    v_head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool
    dtype: str  # checkpoint torch_dtype: bfloat16, float16, float32
    max_len_vllm: int  # derived max model length as vLLM 0.33 derives it (engines.md 1.1)
    max_len_sglang: int  # derived context length as SGLang derives it (engines.md 3.2)
    max_len_key: str | None  # the config.json key the length came from (for related spans)
    mla: MLADims | None = None
    moe: MoE | None = None
    quant: Quantization | None = None
    num_mtp_layers: int = 0  # num_nextn_predict_layers / mtp_num_hidden_layers (weights shipped, not in num_layers)
    # True when the config kvlint holds is a trimmed or derived copy (bundled registry, kvlint.lock, a
    # quantized re-host derived from its base) that states no MTP layer count: the key may have been dropped
    # on the way, so 0 above means "not known", never "the model has none" (no refusal may rest on it).
    mtp_unknown: bool = field(default=False, compare=False)  # a fact of the copy, not of the model
    # Qwen3.5-style MTP (mtp_num_hidden_layers) shares the target's embedding and output head unless
    # mtp_use_dedicated_embeddings says otherwise; DeepSeek-style next-n modules store their own copies.
    mtp_shares_embeddings: bool = False
    sliding_window: int | None = None
    is_multimodal: bool = False
    vision_params: int = 0  # parameters of a vision tower, counted in weights
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)
    text_config_key: str | None = None  # "text_config" when the decoder's keys are nested (multimodal)
    max_len_key_sglang: str | None = None  # the config.json key SGLang's context length came from
    max_len_vllm_legacy: int | None = None  # LongRoPE: what vLLM <= 0.11 derives (0.12+ starts at the original)
    # A quantization or re-host resolved from a bundled base: "<base id> (<scheme>)", e.g.
    # "meta-llama/Llama-3.3-70B-Instruct (fp8 dynamic, compressed-tensors)"; None for a config read as is.
    derived_from: str | None = None
    # Set when this config stands in for a sibling id that is not bundled (a base for its -Instruct, or back)
    # and bundled pairs of the same family differ in context length: what the engine would derive for the
    # real model is then unknown. "<why>", with the smaller length such a pair showed.
    length_unknown: str | None = None
    length_floor: int | None = None
    # With length_unknown: every length the real model may derive, the stand-in's own among them (two or more
    # distinct). A verdict that holds for each candidate holds for the real model (resolve: robust verdicts).
    length_candidates: tuple[LengthCandidate, ...] = ()
    # A bundled config with no published parameter total to check its weights against (registry/weights.json
    # `unchecked`): the reason, which budgets and notes repeat; None when checked or not bundled.
    weights_unchecked: str | None = field(default=None, compare=False, hash=False)

    @property
    def is_mla(self) -> bool:
        return self.mla is not None

    def field_name(self, fact: str) -> str | None:
        """The config.json key a fact came from (for a finding's related span), if known."""
        names = self._limit_keys() if fact == "max_len_limit" else {
            "num_kv_heads": ("num_key_value_heads", "n_head_kv", "num_kv_heads", "multi_query_group_num"),
            "head_dim": ("head_dim",),
            "num_layers": ("num_hidden_layers", "n_layer", "num_layers"),
            "kv_lora_rank": ("kv_lora_rank",),
            "max_len": (self.max_len_key,) if self.max_len_key else (),
        }.get(fact, (fact,))
        for name in names:
            if name and name in self.raw:
                return name
        return None

    def _limit_keys(self) -> tuple[str, ...]:
        """The key a LongRoPE model's full length came from (its default is original_max_position_embeddings)."""
        if self.max_len_vllm_legacy is None:
            return (self.max_len_key,) if self.max_len_key else ()
        return tuple(k for k in ("model_max_length", "max_position_embeddings", "n_positions", "max_seq_len",
                                 "seq_length") if self.raw.get(k) == self.max_len_vllm_legacy)
