"""vLLM's per-layer KV cache specs: the page one layer needs for one block, and a request's worst case.

vLLM never writes a bytes-per-token formula; it sizes one page per layer and lets the planner multiply
(engines.md 1.2). Mirroring that is what makes kvlint exact to the block: padding, MLA's missing V,
sliding windows' extra block and Mamba's per-request state all live in the page and its max usage.
"""

from __future__ import annotations

from kvlint.errors import InvalidSettingError, NotModelledError
from kvlint.models.spec import CHUNKED, FULL, MAMBA, MLA, SLIDING, LayerKV, ModelSpec
from kvlint.record import record, replace

INDEXER = "indexer"  # DeepSeek-V3.2 sparse indexer cache (an MLA-shaped spec with its own page)

# kv_cache_dtype -> bytes per stored element (engines.md 1.1); "auto" resolves to the model dtype first.
_ELEMENT_BYTES = {
    "float16": 2, "half": 2, "bfloat16": 2, "float32": 4, "float": 4,
    "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1, "fp8_ds_mla": 1, "nvfp4_ds_mla": 1,
    "int8_per_token_head": 1, "fp8_per_token_head": 1, "int4_per_token_head": 1, "nvfp4": 1,
    "nvfp4_4over6": 1,
}
_PACKED_UNMODELLED = ("turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_3bit_nc",
                      "octave_k3v4", "octave_k3v3", "octave_k3v3_compact", "ultraquant_4bit")
VALID_KV_DTYPES = ("auto", *(k for k in _ELEMENT_BYTES if k not in ("half", "float32", "float")), *_PACKED_UNMODELLED)


@record
class KVSpec:
    """One layer's cache as vLLM allocates it on one rank."""

    kind: str  # full | sliding | chunked | mla | indexer | mamba
    block_size: int
    num_heads: int = 1  # head slots per rank
    content_bytes: int = 0  # bytes per (head slot, token)
    window: int | None = None
    state_bytes: int = 0  # mamba: bytes of one request's state on this rank
    page_padded: int | None = None
    dcp: int = 1
    mamba_blocks: int = 1  # blocks one request's state holds (vllm.mamba_blocks: 1, or 2+ in "align" mode)

    @property
    def unpadded_page(self) -> int:
        if self.kind == MAMBA:
            return self.state_bytes
        return self.num_heads * self.block_size * self.content_bytes

    @property
    def page(self) -> int:
        return self.page_padded if self.page_padded is not None else self.unpadded_page

    @property
    def bytes_per_token(self) -> int:
        """Unpadded bytes one token costs in this layer (0 for per-request Mamba state)."""
        return 0 if self.kind == MAMBA else self.num_heads * self.content_bytes

    def max_memory(self, max_model_len: int, reserve_tokens: int) -> int:
        """Bytes one request at max_model_len may hold in this layer (engines.md 1.2 table).

        reserve_tokens is what a sliding/chunked layer keeps beyond its window: mnbt up to 0.21,
        extra_retained + max_in_flight_tokens from 0.27.
        """
        if self.kind == MAMBA:
            return self.page * self.mamba_blocks
        window = self.window or 0  # sliding and chunked specs always carry one
        if self.kind == SLIDING:
            tokens = min(window - 1 + reserve_tokens, max_model_len)
            return (cdiv(tokens, self.block_size) + 1) * self.page
        if self.kind == CHUNKED:
            tokens = min(window + reserve_tokens, max_model_len)
            return cdiv(tokens, self.block_size) * self.page
        length = cdiv(max_model_len, self.dcp) if self.dcp > 1 else max_model_len
        return cdiv(length, self.block_size) * self.page

    def blocks_per_request(self, max_model_len: int, reserve_tokens: int) -> int:
        return cdiv(self.max_memory(max_model_len, reserve_tokens), self.page)

    def as_full(self) -> KVSpec:
        """HMA off: sliding and chunked layers are allocated as full attention (engines.md 1.4 step 1)."""
        if self.kind in (SLIDING, CHUNKED):
            return replace(self, kind=FULL, window=None)
        return self


def cdiv(a: int, b: int) -> int:
    return -(a // -b)


@record
class KVDtype:
    name: str  # resolved kv_cache_dtype ("bfloat16", "fp8", "fp8_ds_mla", ...)
    element_bytes: int
    source: str  # why: "flag", "model dtype", "checkpoint kv scheme"


def resolve_kv_dtype(flag: str | None, model: ModelSpec, model_dtype: str, checkpoint: bool = True) -> KVDtype:
    """--kv-cache-dtype auto follows the checkpoint's KV scheme (ModelOpt / compressed-tensors) where the release
    reads it (`checkpoint`, VllmVersion.checkpoint_kv_dtype), else the model dtype."""
    value = (flag or "auto").strip()
    if value not in VALID_KV_DTYPES:
        raise InvalidSettingError(f"Invalid kv_cache_dtype: {value!r}. Valid values are: {', '.join(VALID_KV_DTYPES)}",
                                  "kv_cache_dtype", f"valid: {', '.join(VALID_KV_DTYPES)}")
    if value in _PACKED_UNMODELLED:
        raise NotModelledError(f"kv_cache_dtype {value} uses a backend-packed layout kvlint does not model yet")
    if value != "auto":
        return KVDtype(value, _ELEMENT_BYTES[value], "flag")
    scheme = model.quant.kv_cache_dtype if model.quant and checkpoint else None
    if scheme:
        name = "nvfp4" if "fp4" in scheme.lower() else "fp8"
        return KVDtype(name, 1, "checkpoint kv scheme")
    return KVDtype(model_dtype, _ELEMENT_BYTES[model_dtype], "model dtype")


def _content(kind: str, head: int, head_v: int, dtype: KVDtype) -> tuple[int, int]:
    """(head-slot multiplier, bytes per slot per token) for one attention layer."""
    name = dtype.name
    if kind == MLA:
        if name == "fp8_ds_mla":
            return 1, 656
        if name == "nvfp4_ds_mla":
            return 1, 352
        if name.endswith("_per_token_head"):
            return 1, head + 8
        return 1, head * dtype.element_bytes
    if name in ("int8_per_token_head", "fp8_per_token_head"):
        return 1, head + head_v + 8
    if name == "int4_per_token_head":
        return 1, head // 2 + head_v // 2 + 8
    if name in ("nvfp4", "nvfp4_4over6"):
        return 2, head // 2 + head // 16
    if name in ("fp8_ds_mla", "nvfp4_ds_mla"):
        raise InvalidSettingError(f"kv_cache_dtype {name} is only valid for MLA models", "kv_cache_dtype",
                                  f"{name} is only valid for MLA models")
    return 1, (head + head_v) * dtype.element_bytes


LayerKey = tuple  # (decoder layer index, 0 for its attention / 1 for its indexer cache)


def layer_specs(model: ModelSpec, *, tp: int, dcp: int, block_size: int, dtype: KVDtype,
                ssm_dtype: str = "float32") -> dict[LayerKey, KVSpec]:
    """(layer, role) -> spec on one TP rank; KV-shared and attention-free layers get none.

    Mamba state is sharded over TP like its heads; its dtype follows the model (the Nemotron-H SSM state the
    release's `ssm_dtype`, VllmVersion.nemotron_h_ssm_dtype), not --kv-cache-dtype.
    """
    specs: dict[LayerKey, KVSpec] = {}
    for i, layer in enumerate(model.layers):
        if layer.kind == MAMBA:
            state = release_state_bytes(layer, ssm_dtype, _DTYPE_BYTES.get(model.dtype, 2))
            specs[(i, 0)] = KVSpec(MAMBA, block_size, state_bytes=state // max(tp, 1))
            continue
        if layer.kind not in (FULL, SLIDING, CHUNKED, MLA):
            continue
        heads = 1 if layer.kind == MLA else max(1, layer.num_kv_heads // tp)
        mult, content = _content(layer.kind, layer.head_dim_k, layer.head_dim_v, dtype)
        window = layer.window if layer.kind in (SLIDING, CHUNKED) else None
        specs[(i, 0)] = KVSpec(layer.kind, block_size, heads * mult, content, window, dcp=dcp)
    return specs


_DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}


def release_state_bytes(layer: LayerKV, ssm_dtype: str, model_bytes: int) -> int:
    """A Mamba layer's per-request state under a release's Nemotron-H SSM dtype rule (--mamba-ssm-cache-dtype
    auto): "model" (no NemotronHForCausalLMConfig hook, through 0.12: the model dtype even where the config names
    float32), else the config's mamba_ssm_cache_dtype and, when it names none, `ssm_dtype` (float16 0.15-0.19,
    float32 from 0.20)."""
    state = layer.state_bytes or 0
    if not layer.ssm_elements:
        return state
    if ssm_dtype == "model":
        per = model_bytes
    elif layer.ssm_named:
        return state
    else:
        per = _DTYPE_BYTES[ssm_dtype]
    return state + layer.ssm_elements * (per - layer.ssm_bytes)


def indexer_specs(model: ModelSpec, *, block_size: int) -> dict[LayerKey, KVSpec]:
    """DeepSeek-V3.2's per-layer indexer cache: index_head_dim + scales, uint8 (engines.md 1.2)."""
    mla = model.mla
    if mla is None or not mla.index_topk or not mla.index_head_dim:
        return {}
    content = mla.index_head_dim + mla.index_head_dim // 128 * 4
    return {(i, 1): KVSpec(INDEXER, block_size, 1, content)
            for i, layer in enumerate(model.layers) if layer.kind == MLA}
