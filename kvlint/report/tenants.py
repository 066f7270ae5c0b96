"""The card as four tenants (weights | non-KV | headroom | KV pool): the one reading of a Budget that the text
bar of `kvlint budget`, its SVG and the HTML report all draw, so the pictures cannot disagree."""

from __future__ import annotations

from kvlint.budget import Budget
from kvlint.engines import get_engine


def segments(b: Budget) -> list[tuple[str, str, int, bool]]:
    """(label, bar character, bytes, estimated) in card order; the KV pool never shows negative."""
    pool = max(b.kv_pool_bytes, 0)
    reserve = b.detail.reserve_bytes if b.detail is not None else None
    if reserve is not None:  # SGLang reserves (1 - mem_fraction_static) for activations and graphs
        head = reserve
    else:  # vLLM leaves what gpu_memory_utilization does not request
        head = max(b.gpu_memory_bytes - b.requested_bytes, 0) if b.requested_bytes else 0
    est = b.kv_pool_estimated
    non_kv, non_kv_est = b.non_kv_bytes, b.non_kv_source == "estimated"
    if b.fixed_pool is not None:  # a fixed pool: the working set still shares the card
        non_kv, non_kv_est = b.fixed_pool.non_kv_bytes, b.fixed_pool.estimated
    return [("weights", "W", b.weights_bytes, False), ("non-KV", "n", non_kv, non_kv_est),
            (get_engine(b.engine).headroom_label, ".", head, False),
            ("KV pool", "#", pool, est)]
