"""The engine messages the parser knows, as (regex, fields) pairs, highest-priority first per field.

Formats come from engines.md sections 5-6 and the real lines in shared/logs: vLLM V0 and V1, the
two-line capacity log up to 0.27 and the one-line form from 0.30, SGLang 0.5.x. When two messages give
the same field (the block count is logged three ways), the earlier pattern wins. `agg` says how
per-worker values combine: "min" where the engine takes the minimum over ranks (the KV pool is
planned for the smallest worker), "rank0" where the engine reports rank 0, "sum" for per-phase totals.
"""

from __future__ import annotations

import re

from kvlint.lazyre import lazy
from kvlint.record import record

INT = r"(\d[\d,]*)"
NUM = r"(-?\d+(?:\.\d+)?)"


@record
class Pattern:
    regex: re.Pattern[str]
    fields: tuple[str, ...]  # one per capture group; "" skips a group
    engine: str | None = None  # which engine prints it (for engine detection)
    key: str = ""  # lower-case literal every match contains: a cheap test before the regex

    def search(self, message: str, lowered: str) -> re.Match[str] | None:
        return self.regex.search(message) if self.key in lowered else None


def _literal_key(regex: str) -> str:
    """The regex's leading literal text (lower-cased), so most lines are rejected without running it.

    Stops at the first metacharacter; a literal followed by a quantifier is dropped (it is optional), and
    a top-level alternation gives no key at all.
    """
    depth = 0
    for i, ch in enumerate(regex):
        if ch == "\\":
            continue
        depth += ch == "(" and (i == 0 or regex[i - 1] != "\\")
        depth -= ch == ")" and regex[i - 1] != "\\"
        if ch == "|" and depth == 0 and regex[i - 1] != "\\":
            return ""
    text = re.sub(r"^(\^|\\b)+", "", regex)
    parts = re.findall(r"\\[ .#\-,=:/']|[^\\()\[\]{}.*+?|^$]", text)
    out, pos = [], 0
    for part in parts:
        if not text.startswith(part, pos):
            break
        out.append(part[-1])
        pos += len(part)
    if pos < len(text) and text[pos] in "?*{" and out:
        out.pop()
    return "".join(out).lower()


def _p(regex: str, *fields: str, engine: str | None = "vllm") -> Pattern:
    return Pattern(re.compile(regex, re.IGNORECASE), fields, engine, _literal_key(regex))


AGG = {
    "available_kv_gib": "min",
    "avail_mem_gb_after_weights": "min",
    "avail_mem_gb_load_begin": "min",
    "avail_mem_gb_after_kv_pool": "min",
    "available_gpu_mem_gb": "min",
    "num_gpu_blocks": "min",
    "cuda_graph_gib": "rank0",
    "sglang_cuda_graph_gb": "sum",
}

INT_FIELDS = frozenset({
    "kv_tokens", "num_gpu_blocks", "num_cpu_blocks", "block_size", "max_concurrency_len",
    "max_model_len", "max_num_batched_tokens", "estimated_max_model_len", "kv_tokens_in_error",
    "max_total_num_tokens", "profiled_max_total_num_tokens", "context_len", "chunked_prefill_size",
    "max_prefill_tokens", "max_running_requests", "full_layer_tokens", "swa_layer_tokens",
})
STR_FIELDS = frozenset({"engine_version", "kv_cache_dtype", "gpu_hint"})
BOOL_FIELDS = {"flashinfer_sampler": {"using flashinfer": True, "falling back": False}}  # captured words -> value

# Messages read line by line.
LINE_PATTERNS: tuple[Pattern, ...] = (
    # --- versions
    _p(r"vLLM API server version\s+v?(\S+)", "engine_version"),
    _p(r"\bvLLM version:?\s*v?(\d[\w.+-]*)", "engine_version"),
    _p(r"█\s+version\s+v?(\d\S*)", "engine_version"),
    _p(r"LLM engine \(v(\d[^)]*)\)", "engine_version"),
    # --- vLLM config
    _p(r"Using max model len\s+" + INT, "max_model_len"),
    _p(r"Auto-fit max_model_len: reduced from \d+ to " + INT, "max_model_len"),
    _p(r"Chunked prefill is enabled with max_num_batched_tokens=" + INT, "max_num_batched_tokens"),
    _p(r"Setting (?:kv cache|attention) block size to " + INT, "block_size"),
    _p(r"device_name=(NVIDIA_[A-Za-z0-9_-]+?)(?:\.json|[,\s]|$)", "gpu_hint"),
    _p(r"(Using FlashInfer) for top-p & top-k sampling", "flashinfer_sampler"),
    _p(r"(Falling back) to the PyTorch-native implementation of top-p & top-k sampling", "flashinfer_sampler"),
    # --- vLLM memory
    _p(r"Model loading took:?\s*" + NUM + r"\s*GiB", "model_loading_gib"),
    _p(r"Loading model weights took:?\s*" + NUM + r"\s*GB", "model_loading_gib"),
    _p(r"Available KV cache memory:?\s*" + NUM + r"\s*GiB", "available_kv_gib"),
    _p(r"reserved\s+" + NUM + r"\s*GiB memory for KV Cache as specified", "available_kv_gib"),
    _p(r"Current kv cache memory in use is\s+" + NUM + r"\s*GiB", "available_kv_gib"),
    _p(r"\bKV cache size:?\s*" + INT + r"\s*tokens", "kv_tokens"),
    _p(r"Maximum concurrency for\s+" + INT + r"\s*tokens per request:?\s*" + NUM + "x",
       "max_concurrency_len", "max_concurrency"),
    _p(r"Overriding num_gpu_blocks=\d+ with num_gpu_blocks_override=" + INT, "num_gpu_blocks"),
    _p(r"num_gpu_blocks is:?\s*" + INT, "num_gpu_blocks"),
    _p(r"# GPU blocks:\s*" + INT + r",\s*# CPU blocks:\s*" + INT, "num_gpu_blocks", "num_cpu_blocks"),
    _p(r"\(" + INT + r" blocks x " + INT + r" tokens/block\)", "num_gpu_blocks", "block_size"),
    _p(r"\btotal_memory=" + NUM + r"\s*GiB", "total_gpu_memory_gib"),
    _p(r"Free memory on device(?: [\w:]+)?:?\s*\(?\s*" + NUM + r"\s*/\s*" + NUM + r"\s*GiB",
       "free_memory_gib", "total_gpu_memory_gib"),
    _p(r"Initial free memory:?\s*" + NUM + r"\s*GiB", "free_memory_gib"),
    _p(r"worker init memory snapshot:.*?\bfree_memory=" + NUM + r"\s*GiB", "free_memory_gib"),
    _p(r"Desired GPU (?:memory )?utilization(?: is)?:?\s*\(?\s*" + NUM + r",?\s*\(?\s*" + NUM + r"\s*GiB",
       "gpu_memory_utilization", "requested_memory_gib"),
    _p(r"Requested memory:\s*" + NUM + r"\s*\(util\),\s*" + NUM + r"\s*GiB",
       "gpu_memory_utilization", "requested_memory_gib"),
    _p(r"The current --gpu-memory-utilization=" + NUM + " is equivalent", "gpu_memory_utilization"),
    _p(r"Total non[- ]KV cache memory:?\s*" + NUM + r"\s*GiB", "non_kv_memory_gib"),
    _p(r"torch peak memory increase:?\s*" + NUM + r"\s*GiB", "torch_peak_increase_gib"),
    _p(r"non-torch forward increase memory:?\s*" + NUM + r"\s*GiB", "non_torch_increase_gib"),
    _p(r"Actual usage is\s+" + NUM + r"\s*GiB for consumed memory.*?" + NUM
       + r"\s*GiB for peak activation.*?" + NUM + r"\s*GiB for CUDAGraph memory",
       "consumed_memory_gib", "torch_peak_increase_gib", "cuda_graph_gib"),
    _p(r"Estimated CUDA graph memory:?\s*" + NUM + r"\s*GiB", "cuda_graph_gib"),
    _p(r"CUDA graph pool memory:?\s*" + NUM + r"\s*GiB \(actual\)", "cuda_graph_gib"),
    _p(r"Graph capturing finished in [\d.]+ secs?, took\s+" + NUM + r"\s*GiB", "cuda_graph_gib"),
    # --- SGLang
    _p(r"Load weight begin\. avail mem=" + NUM + r"\s*GB", "avail_mem_gb_load_begin", engine="sglang"),
    _p(r"Load weight end\..*?avail mem=" + NUM + r"\s*GB, mem usage=" + NUM + r"\s*GB",
       "avail_mem_gb_after_weights", "weights_mem_usage_gb", engine="sglang"),
    _p(r"max_total_num_tokens=" + INT + r", chunked_prefill_size=(-?\d+), max_prefill_tokens=" + INT
       + r", max_running_requests=" + INT + r", context_len=" + INT + r"(?:, available_gpu_mem=" + NUM + ")?",
       "max_total_num_tokens", "chunked_prefill_size", "max_prefill_tokens", "max_running_requests",
       "context_len", "available_gpu_mem_gb", engine="sglang"),
    _p(r"^KV Cache is (?:allocated|VA upper bound)\.(?: dtype: (\S+),)? #tokens: " + INT
       + r", K size: " + NUM + r" GB, V size: " + NUM + " GB",
       "kv_cache_dtype", "max_total_num_tokens", "k_size_gb", "v_size_gb", engine="sglang"),
    _p(r"^KV Cache is (?:allocated|VA upper bound)\.(?: dtype: (\S+),)? #tokens: " + INT + r", KV size: " + NUM + " GB",
       "kv_cache_dtype", "max_total_num_tokens", "kv_size_gb", engine="sglang"),
    _p(r"max_total_tokens=\d+ is larger than the profiled value " + INT, "profiled_max_total_num_tokens",
       engine="sglang"),
    _p(r"Memory pool end\. avail mem=" + NUM + r"\s*GB", "avail_mem_gb_after_kv_pool", engine="sglang"),
    _p(r"Use sliding window memory pool\. full_layer_tokens=" + INT + ", swa_layer_tokens=" + INT,
       "full_layer_tokens", "swa_layer_tokens", engine="sglang"),
    _p(r"Using KV cache dtype:\s*(\S+)", "kv_cache_dtype", engine="sglang"),
    _p(r"Capture (?:\w+ )*cuda graph end\..*?mem usage=" + NUM + r"\s*GB", "sglang_cuda_graph_gb",
       engine="sglang"),
)

def _key_index(patterns: tuple[Pattern, ...]) -> tuple[re.Pattern[str], dict[str, list[int]], list[int]]:
    """One regex finding every pattern key present in a line (overlaps included), so a line costs one scan."""
    by_key: dict[str, list[int]] = {}
    keyless = []
    for i, pat in enumerate(patterns):
        if pat.key:
            by_key.setdefault(pat.key, []).append(i)
        else:
            keyless.append(i)
    alternation = "|".join(re.escape(k) for k in sorted(by_key, key=len, reverse=True))
    return re.compile(f"(?=({alternation}))"), by_key, keyless


KEY_FINDER, KEY_INDEX, KEYLESS = _key_index(LINE_PATTERNS)


def candidates(lowered: str) -> list[int]:
    """Indices (priority order) of the line patterns that can match this lower-cased message."""
    found = set(KEYLESS)
    for key in KEY_FINDER.findall(lowered):
        found.update(KEY_INDEX[key])
    return sorted(found)


# Messages that may wrap over several lines: matched on the messages joined by spaces.
# Each is (failure_kind, regex, fields); the first that matches names the failure.
FAILURES: tuple[tuple[str, Pattern], ...] = (
    ("kv_needed_gt_available", _p(
        r"To serve at least one request with the models?'?s? max seq len \(" + INT + r"\),?\s*\(?\s*" + NUM
        + r"\s*GiB KV cache is needed, which is larger than the available KV cache memory\s*\(" + NUM
        + r"\s*GiB\)\.(?:\s*Based on the available memory, the estimated maximum model length is " + INT + ")?",
        "max_model_len", "kv_needed_gib", "available_kv_gib", "estimated_max_model_len")),
    ("max_seq_len_gt_kv_tokens", _p(
        r"The model'?s max seq len \(" + INT + r"\) is larger than the maximum number of tokens that can be"
        r" stored in KV cache \(" + INT + r"\)", "max_model_len", "kv_tokens_in_error")),
    ("negative_available_kv", _p(r"No available memory for the cache blocks")),
    ("free_memory_below_requested", _p(
        r"Free memory on device.{0,80}? on startup is less than desired GPU memory utilization")),
    ("weights_oom", _p(r"Failed to load model - not enough GPU memory")),
    ("autofit_failed", _p(r"Cannot auto-fit max_model_len")),
    ("max_model_len_gt_derived", _p(
        r"User-specified max_model_len \(" + INT + r"\) is greater than the derived max_model_len", "")),
    ("sglang_no_kv_memory", _p(
        r"Loaded weights leave no GPU memory for the KV cache(?: under --mem-fraction-static=(\d+(?:\.\d+)?))?",
        "mem_fraction_static", engine="sglang")),
    ("sglang_not_enough_memory", _p(
        r"Not enough memory\. Please try to increase --mem-fraction-static\.(?: Current value: mem_fraction_static="
        r"(\d+(?:\.\d+)?))?", "mem_fraction_static", engine="sglang")),
    ("sglang_swa_pool_too_small", _p(r"SWA pool \(" + INT + r" tokens\) cannot hold even one request", "",
                                     engine="sglang")),
    ("sglang_pool_too_small", _p(r"Memory pool size is too small|max_running_request is zero", engine="sglang")),
)
NEGATIVE_KIND = "negative_available_kv"
OOM = lazy(r"CUDA out of memory|OutOfMemoryError|HIP out of memory", re.IGNORECASE)
GENERIC_FAILURE = lazy(
    r"EngineCore failed to start|Engine core initialization failed|Error execut|Traceback \(most recent call"
    r"|\b(?:ValueError|RuntimeError|AssertionError)\b:",
)

ARGS_PATTERNS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"non-default args:\s*(\{.*)$"), "dict", "vllm"),
    (re.compile(r"\bargs:\s*(Namespace\(.*)$"), "call", "vllm"),
    (re.compile(r"server_args=(ServerArgs\(.*)$"), "call", "sglang"),
)

# Benchmark write-ups tabulate the same quantities under these headers (Markdown tables).
TABLE_COLUMNS = {
    "model weight (gib)": "model_loading_gib",
    "peak activation (gib)": "torch_peak_increase_gib",
    "non-torch memory (gib)": "non_torch_increase_gib",
    "cudagraph memory (gib)": "cuda_graph_gib",
    "available kv cache (gib)": "available_kv_gib",
    "max model len": "max_model_len",
    "status": "outcome",
}
TABLE_STATUS = {"success": "started", "failed": "failed", "ok": "started", "fail": "failed"}
