"""`close_matches`: difflib.get_close_matches' answer, computing the full ratio for few candidates.

Why: a did-you-mean over an engine's 300-500 options was slow per mistyped flag, most of it in
`SequenceMatcher.ratio()` for every candidate that passes the cheap bounds. `quick_ratio()` is an upper
bound of `ratio()`, so candidates are taken in falling order of that bound and the search stops once
no bound left can reach the `n` best ratios found: the same matches, in the same order (ties broken
by the larger string, as `heapq.nlargest` over (ratio, string) pairs breaks them). The two bounds are computed
from each list's character counts, made once per list (a run asks the registry's 195 ids about every unknown model:
difflib's `quick_ratio()` per candidate was a tenth of a held-out run's instructions past its bound).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=32)
def _counted(possibilities: tuple[str, ...]) -> tuple[tuple[str, int, tuple[tuple[str, int], ...]], ...]:
    """Each possibility with its length and its characters' counts, made once per list (a flag table, the
    registry's ids): the bound below then costs a loop over a possibility's distinct characters."""
    out = []
    for candidate in possibilities:
        counts: dict[str, int] = {}
        for ch in candidate:
            counts[ch] = counts.get(ch, 0) + 1
        out.append((candidate, len(candidate), tuple(counts.items())))
    return tuple(out)


def close_matches(word: str, possibilities: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The `n` possibilities most like `word` with a ratio of at least `cutoff`, best first."""
    from difflib import SequenceMatcher

    if n <= 0 or not 0.0 <= cutoff <= 1.0:
        raise ValueError(f"n must be > 0 and cutoff in [0, 1], got n={n!r}, cutoff={cutoff!r}")
    matcher = SequenceMatcher()
    matcher.set_seq2(word)
    held: dict[str, int] = {}
    for ch in word:
        held[ch] = held.get(ch, 0) + 1
    size = len(word)
    bounded: list[tuple[float, str]] = []
    for candidate, length, counts in _counted(tuple(possibilities)):
        total = size + length
        if not total or 2.0 * min(size, length) / total < cutoff:  # real_quick_ratio
            continue
        matches = 0
        for ch, k in counts:  # quick_ratio: the characters both hold, as many times as both do
            w = held.get(ch)
            if w:
                matches += k if k < w else w
        bound = 2.0 * matches / total
        if bound >= cutoff:
            bounded.append((bound, candidate))
    bounded.sort(reverse=True)
    best: list[tuple[float, str]] = []  # the n best (ratio, candidate), largest first
    for bound, candidate in bounded:
        if len(best) == n and bound < best[-1][0]:
            break  # no candidate left can reach the n-th best ratio
        matcher.set_seq1(candidate)
        ratio = matcher.ratio()
        if ratio >= cutoff:
            best.append((ratio, candidate))
            best.sort(reverse=True)
            del best[n:]
    return [candidate for _, candidate in best]
