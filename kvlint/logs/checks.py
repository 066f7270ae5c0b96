"""The seed chapter's three consistency checks, run on what a log printed.

They catch a misread log (or a misremembered cell size) before any prediction is trusted:
(a) vLLM tokens / max_model_len = the logged concurrency;
(b) vLLM tokens x cell = the logged pool, within one block (plus the log's 0.01 GiB rounding);
(c) SGLang max_total_num_tokens x cell = K size + V size (the buffers carry one extra page per layer).
Each returns a Check whose status is "pass", "fail" or "n/a" (the log lacks an input).
"""

from __future__ import annotations

from kvlint.logs.record import GIB, LogRecord
from kvlint.record import record

GIB_ROUNDING = 0.005 * GIB  # the engines print GiB rounded to two decimals


@record
class Check:
    name: str
    status: str  # "pass" | "fail" | "n/a"
    detail: str


def _na(name: str, why: str) -> Check:
    return Check(name, "n/a", why)


def concurrency_check(record: LogRecord, uniform: bool = True) -> Check:
    name = "(a) tokens / max_model_len = concurrency"
    if not uniform:
        return _na(name, "hybrid model: vLLM counts tokens per KV group, so the identity does not hold")
    tokens, length, conc = record.kv_tokens, record.max_concurrency_len, record.max_concurrency
    if tokens is None or not length or conc is None:
        return _na(name, "the log lacks the token count or the concurrency line")
    ratio = tokens / length
    # tokens may be num_blocks x block (<= 0.20) while concurrency divides by whole blocks per request
    slack = 0.005 + conc * (record.block_size or 16) / length
    ok = abs(ratio - conc) <= slack
    return Check(name, "pass" if ok else "fail", f"{tokens:,} / {length:,} = {ratio:.2f} vs logged {conc:.2f}x")


def pool_check(record: LogRecord, cell_bytes: int | None, block_size: int | None) -> Check:
    name = "(b) tokens x cell = pool (within one block)"
    tokens, avail = record.kv_tokens, record.available_kv_bytes
    if tokens is None or avail is None or not cell_bytes:
        return _na(name, "needs the token count, the available KV line and the model's cell size")
    block = (block_size or record.block_size or 16) * cell_bytes
    used = tokens * cell_bytes
    gap = avail - used
    ok = -GIB_ROUNDING <= gap <= block + GIB_ROUNDING
    return Check(name, "pass" if ok else "fail",
                 f"{tokens:,} x {cell_bytes:,} B = {used / GIB:.3f} GiB vs logged {record.available_kv_gib} GiB "
                 f"(gap {gap / GIB:+.3f} GiB, one block = {block / GIB:.4f} GiB)")


def sglang_pool_check(record: LogRecord, cell_bytes: int | None, page_size: int = 1) -> Check:
    name = "(c) max_total_num_tokens x cell = K + V"
    tokens = record.max_total_num_tokens
    kv_gb = (record.k_size_gb + record.v_size_gb) if record.k_size_gb is not None and record.v_size_gb is not None \
        else record.kv_size_gb
    if tokens is None or kv_gb is None or not cell_bytes:
        return _na(name, "needs max_total_num_tokens, the 'KV Cache is allocated' sizes and the cell size")
    used = (tokens + page_size) * cell_bytes
    logged = kv_gb * GIB
    ok = abs(logged - used) <= 2 * GIB_ROUNDING
    return Check(name, "pass" if ok else "fail",
                 f"({tokens:,} + {page_size}) x {cell_bytes:,} B = {used / GIB:.2f} GB vs logged {kv_gb:.2f} GB")


def run_checks(record: LogRecord, cell_bytes: int | None, block_size: int | None, *,
               uniform: bool = True, page_size: int = 1) -> list[Check]:
    """The checks for this log's engine; cell_bytes None (model unknown, or hybrid) leaves (b)/(c) n/a."""
    from kvlint.engines import get_engine

    if not get_engine(record.engine or "vllm").log.block_rows:  # a token pool: the seed's check (c)
        return [sglang_pool_check(record, cell_bytes if uniform else None, page_size)]
    return [concurrency_check(record, uniform), pool_check(record, cell_bytes if uniform else None, block_size)]
