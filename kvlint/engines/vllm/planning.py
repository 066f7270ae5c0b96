"""vLLM's KV planner: groups, bytes per block, num_blocks, the one-request check and the length search.

Restates engines.md 1.4, 1.6 and 1.7. The planner is where hybrid models (sliding + full, Mamba) gain
or lose memory against the naive cell-size formula, so it follows vLLM's grouping rule exactly:
identical specs bucket together, the smallest bucket sets the group size unless buckets are within
1.5x of each other, and a block costs the sum of the pages of the largest group.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from kvlint.errors import InvalidSettingError, KvlintError
from kvlint.models.spec import CHUNKED, FULL, MAMBA, MLA, SLIDING
from kvlint.record import record, replace

from .specs import INDEXER, KVSpec, LayerKey, cdiv

_FULL_LIKE = (FULL, MLA, INDEXER)


@record
class Group:
    """Layers that share one block table; a UniformType group lists members with different pages."""

    layers: tuple[LayerKey, ...]
    specs: tuple[KVSpec, ...]  # one per layer, same order

    def blocks_per_request(self, max_model_len: int, reserve_tokens: int) -> int:
        """UniformType groups take the worst member (engines.md 1.2 table, last row)."""
        return max([s.blocks_per_request(max_model_len, reserve_tokens) for s in self.distinct_specs])

    @cached_property
    def distinct_specs(self) -> frozenset[KVSpec]:
        """set(specs) once: the length search asks ~40 times, and hashing every layer's spec each time dominated."""
        return frozenset(self.specs)

    def bytes_per_block(self, keep: set[LayerKey] | None = None) -> int:
        return sum([s.page for k, s in zip(self.layers, self.specs, strict=False) if keep is None or k in keep])

    @property
    def block_size(self) -> int:
        return min([s.block_size for s in self.specs])  # lists, not generators: asked per budget and length


def promote_hybrid(specs: dict[LayerKey, KVSpec]) -> dict[LayerKey, KVSpec]:
    """HMA disabled: beside full attention, sliding/chunked layers are allocated as full attention with the full
    layers' block size (their padded page grown to match); what is still not one type is a start-up error."""
    values = list(specs.values())
    if len(set(values)) == 1 or _uniform_type(values):
        return specs
    kinds = {s.kind for s in values}
    out = specs
    if kinds & {FULL, MLA, INDEXER} and kinds & {SLIDING, CHUNKED}:
        full_blocks = {s.block_size for s in values if s.kind in _FULL_LIKE}
        block = next(iter(full_blocks)) if len(full_blocks) == 1 else None
        out = {k: _promoted(s, block) if s.kind in (SLIDING, CHUNKED) else s for k, s in specs.items()}
    promoted = list(out.values())
    if not (len(set(promoted)) == 1 or _uniform_type(promoted)):
        raise InvalidSettingError("Failed to promote local KV cache specs to one unified type.",
                                  "disable_hybrid_kv_cache_manager",
                                  "these layer kinds need vLLM's hybrid KV cache manager")
    return out


def _promoted(spec: KVSpec, block: int | None) -> KVSpec:
    full = spec.as_full()
    if block is None or block == spec.block_size:
        return full
    padded = None if spec.page_padded is None else max(spec.page_padded, spec.unpadded_page * block // spec.block_size)
    return replace(full, block_size=block, page_padded=padded)


def _uniform_type(specs: list[KVSpec]) -> bool:
    """All full-attention-like (MLA + indexer count as one base type) or all the same window kind, one block size."""
    kinds = {s.kind for s in specs}
    same_base = kinds <= set(_FULL_LIKE) or len(kinds) == 1
    windows = {s.window for s in specs}
    return same_base and len(windows) == 1 and len({s.block_size for s in specs}) == 1 and MAMBA not in kinds


def unify_pages(specs: dict[LayerKey, KVSpec]) -> dict[LayerKey, KVSpec]:
    """Make every page the largest one: scale the block size when it divides, else pad (engines.md 1.4 step 6)."""
    top = max(s.page for s in specs.values())
    out = {}
    for key, s in specs.items():
        if s.page == top:
            out[key] = s
        elif s.kind != MAMBA and top % s.page == 0:
            out[key] = replace(s, block_size=s.block_size * (top // s.page))
        elif s.kind in (FULL, SLIDING, CHUNKED, MAMBA):
            out[key] = replace(s, page_padded=top)
        else:
            raise KvlintError(f"vLLM cannot unify KV page sizes here ({s.kind} page {s.page} vs {top}); "
                              "the engine would fail at startup")
    return out


def kv_groups(specs: dict[LayerKey, KVSpec], *, hybrid_manager: bool, unify: bool = True,
              ratio: float = 1.5) -> list[Group]:
    """vLLM's KV cache groups (get_kv_cache_groups). Buckets of one spec are cut into groups of the smallest bucket's
    size, or of the largest's when it is below `ratio` x the smallest (VllmVersion.group_size_ratio)."""
    if not specs:
        return []
    if not hybrid_manager:
        specs = promote_hybrid(specs)
    keys = sorted(specs)
    values = [specs[k] for k in keys]
    if len(set(values)) == 1 or _uniform_type(values):
        return [Group(tuple(keys), tuple(values))]
    if not unify and len({s.page for s in values}) > 1:
        raise InvalidSettingError(
            "this vLLM release cannot group KV layers with different page sizes (get_kv_cache_groups raises "
            "NotImplementedError at startup)", None, "KV layers of different page sizes need vLLM 0.12 or newer")
    specs = unify_pages(specs)
    buckets: dict[KVSpec, list[LayerKey]] = {}
    for key in keys:
        buckets.setdefault(specs[key], []).append(key)
    sizes = [len(b) for b in buckets.values()]
    group_size = max(sizes) if max(sizes) < ratio * min(sizes) else min(sizes)
    groups = []
    for spec, members in buckets.items():
        count = cdiv(len(members), group_size)
        for i in range(count):
            part = tuple(members[i::count])
            groups.append(Group(part, (spec,) * len(part)))
    return groups


def padding_layers(groups: list[Group]) -> int:
    """Layers vLLM pads with so every group has group_size members (its 'Add %d padding layers' warning)."""
    if len(groups) < 2:
        return 0
    size = max(len(g.layers) for g in groups)
    return sum(size - len(g.layers) for g in groups)


@record
class Worker:
    """One PP stage (all TP ranks of a stage are identical): its layers and KV memory."""

    layers: frozenset[LayerKey]
    available: int  # bytes for KV on this worker


def bytes_per_block(groups: list[Group], layers: frozenset[LayerKey]) -> int:
    """max over groups of the summed pages of the group's layers that live on this worker."""
    return max((g.bytes_per_block(set(layers)) for g in groups), default=0)


def worker_groups(groups: list[Group], layers: frozenset[LayerKey]) -> list[Group]:
    out = []
    for g in groups:
        keep = [(k, s) for k, s in zip(g.layers, g.specs, strict=False) if k in layers]
        if keep:
            out.append(Group(tuple(k for k, _ in keep), tuple(s for _, s in keep)))
    return out


def needed_bytes(groups: list[Group], bpb: int, max_model_len: int, reserve: int) -> int:
    return bpb * sum([g.blocks_per_request(max_model_len, reserve) for g in groups])


def estimate_max_len(groups: list[Group], bpb: int, check_mem: int, upper: int, reserve: int) -> int:
    """Largest model length in [1, upper] whose one request fits check_mem; 0 if none (binary search)."""
    return longest_length(lambda n: needed_bytes(groups, bpb, n, reserve), check_mem, upper)


def layer_needed_bytes(specs: list[KVSpec], max_model_len: int, reserve: int) -> int:
    """vLLM 0.11's check: the sum of every layer's own worst case on the raw specs (no grouping, no padding)."""
    return sum(s.max_memory(max_model_len, reserve) for s in specs)


def longest_length(needed: Callable[[int], int], check_mem: int, upper: int) -> int:
    """Binary search for the largest length in [1, upper] with needed(length) <= check_mem; 0 if even 1 fails.

    needed() grows with the length (every term is a ceiling division of a length, or a window capped by it, times
    a page), so when `upper` fits it is the answer the search would reach: one call instead of ~17 (most budgets
    of a sweep fit the launch's own length, and every budget asks this once per stage)."""
    if upper < 1 or needed(1) > check_mem:
        return 0
    if needed(upper) <= check_mem:
        return upper
    lo, hi = 1, upper
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if needed(mid) <= check_mem:
            lo = mid
        else:
            hi = mid - 1
    return lo


def layers_of_stage(num_layers: int, pp: int, rank: int) -> range:
    """get_pp_indices: equal split; the remainder goes one each to stages -2, -3, ... (never the last)."""
    per, rem = divmod(num_layers, pp)
    sizes = [per] * pp
    for i in range(rem):
        sizes[-2 - i if pp > 1 else 0] += 1
    start = sum(sizes[:rank])
    return range(start, start + sizes[rank])
