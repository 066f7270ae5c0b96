"""A verdict without a declared GPU: the launch tried on every catalogue card, and the least memory it needs.

Most real manifests never name a GPU product (a node pool decides it), yet whether a deployment starts
is a question of per-GPU memory at its TP x PP. So instead of skipping, the launch is sized on each card
of the catalogue with the engine's own check (vLLM: one request at max_model_len fits, null block
included; SGLang: the pool holds the context), and the smallest total at which it starts is found by
bisection on the engine's arithmetic with the traits (compute capability, name) of the card that
brackets it: a figure the engine computes, not a rule of thumb.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from kvlint.budget import Budget
from kvlint.gpus import all_gpus
from kvlint.memory.common import quiet_steps
from kvlint.record import record
from kvlint.resolve.sizing import BudgetCache, Sizing, _key, settings_items
from kvlint.status import CardVerdict, Sweep

if TYPE_CHECKING:
    from kvlint.gpus import Gpu

from kvlint.sizes import MIB

UPPER_BYTES = 4096 * 2**30  # the search stops here: no card has 4 TiB


def starts(b: Budget | None) -> bool:
    """The engine starts with this budget and serves one full-length request (or fills the pool cap the launch
    set below its context: SGLang --max-total-tokens)."""
    return b is not None and b.holds_what_it_asks and not _overcommitted(b)


def _overcommitted(b: Budget) -> bool:
    """A pool fixed by --kv-cache-memory-bytes that does not fit beside the weights: CUDA OOM at allocation."""
    return b.fixed_pool is not None and b.fixed_pool.overcommit_bytes > 0


def holds(b: Budget | None, load: int | None) -> bool | None:
    """Whether the pool holds `load` full-length requests at once (None: no load to hold)."""
    if load is None:
        return None
    return starts(b) and b is not None and b.max_concurrency + 1e-9 >= load


@record
class Trial:
    gpu: Gpu
    budget: Budget | None


SWEPT_FROM_CC = (7, 0)  # vLLM's CUDA builds need compute capability 7.0+ (its GPU install docs); SGLang does not
# target Pascal either (sgl-project/sglang#1062)


def catalogue_cards() -> list[Gpu]:
    """Whole cards an engine starts on. MIG slices are products of a card, not cards a pool is made of; the Pascal
    boards (P100, P40) are catalogued so a manifest naming one resolves, but a sweep that offered one as a card
    that starts the launch would send the user to a card neither engine's build runs on."""

    return [g for g in all_gpus() if not g.mig_profile and _engines_run_on(g)]


def _engines_run_on(gpu: Gpu) -> bool:
    """False for an NVIDIA card below SWEPT_FROM_CC; an AMD card's gfx target is not a CUDA capability."""
    major, _, minor = (gpu.compute_capability or "").partition(".")
    if not (major.isdigit() and minor.isdigit()):
        return True
    return (int(major), int(minor)) >= SWEPT_FROM_CC


def sweep(sizing: Sizing, settings: dict[str, Any], cache: BudgetCache, *, load: int | None,
          cards: Iterable[Gpu] | None = None, candidates: bool = False) -> Sweep:
    """Every card tried at the launch's own settings, plus the least per-GPU memory to start / hold `load`.

    Memoised in `cache.sweeps` by the same inputs as the budgets (the card a sizing names plays no part:
    every card is tried), the load and the cards."""
    items = settings_items(settings)
    key = (_key(sizing.on(None), settings, items), load, tuple(g.id for g in cards) if cards else None, candidates)
    found = cache.sweeps.get(key)
    if found is None:
        if len(cache.sweeps) >= cache.sweep_bound:
            cache.sweeps.clear()
        found = cache.sweeps[key] = _sweep(sizing, settings, cache, items, load, cards, candidates)
    return found


def _sweep(sizing: Sizing, settings: dict[str, Any], cache: BudgetCache, items: tuple[tuple[str, str], ...],
           load: int | None, cards: Iterable[Gpu] | None, candidates: bool) -> Sweep:
    # the cards' and the bisection's budgets are not kept one by one: the sweep is kept whole (about 50 of them).
    # They are read for their verdict only, so they are computed without their derivation log (quiet_steps: the
    # same numbers, a sixth less work); the one card whose budget the resolver draws (picture_card) is computed
    # again with its log and kept.
    with quiet_steps():
        tried = _trials(sizing, settings, cache, items, cards or catalogue_cards())
        tried.sort(key=lambda t: (_total(sizing, t.gpu), t.gpu.id))
        verdicts = tuple(CardVerdict(t.gpu.id, _total(sizing, t.gpu), starts(t.budget), holds(t.budget, load),
                                     t.gpu.marketing_gb) for t in tried)
        minimum = least_memory(sizing, settings, cache, tried, starts, items, target=1.0)
        least_load = None
        if load is not None:
            least_load = least_memory(sizing, settings, cache, tried, lambda b: bool(holds(b, load)), items,
                                      target=float(load))
    found = Sweep(minimum, least_load, verdicts, candidates)
    drawn = next((t.gpu for t in tried if t.gpu.id == picture_card(found)), None)
    if drawn is not None:
        cache.get(sizing.on(drawn), settings, items)
    return found


def _trials(sizing: Sizing, settings: dict[str, Any], cache: BudgetCache, items: tuple[tuple[str, str], ...],
            cards: Iterable[Gpu]) -> list[Trial]:
    """Each card's budget. Cards equal in every fact the memory model reads (Engine.card_reads: an H100 SXM and
    an H800, two V100s of 16 GB) share one: the sweep reads a trial's verdicts only (starts, holds), never the
    card's name a budget carries. A calibration is matched by the card's id, so with calibrations every card is
    sized on its own."""
    shared: dict[Any, Budget | None] = {}
    out = []
    for g in cards:
        reads = sizing.engine.card_reads(g) if not sizing.calibrations else g.id
        if reads not in shared:
            shared[reads] = cache.get(sizing.on(g), settings, items, keep=False).budget
        out.append(Trial(g, shared[reads]))
    return out


def picture_card(found: Sweep) -> str | None:
    """The card a swept launch's memory picture is drawn on: the smallest that starts it, else the largest."""
    return next(iter(found.passing), None) or (found.cards[-1].gpu if found.cards else None)


def _total(sizing: Sizing, gpu: Gpu) -> int:
    return gpu.total_bytes(sizing.engine.name)


def least_memory(sizing: Sizing, settings: dict[str, Any], cache: BudgetCache, tried: list[Trial],
                 ok: Callable[[Budget | None], bool], items: tuple[tuple[str, str], ...] | None = None,
                 target: float | None = None) -> int | None:
    """The least total (MiB steps) from which every card tried passes `ok`.

    Cards differ in more than memory (vLLM gives cards of 70 GiB and more, except A100s, larger batch
    defaults), so the search runs on the traits of the card just above the largest one that fails,
    between the two; a smaller card of other traits may still pass (the rule names those). With the
    largest card failing, the search runs above it on its traits up to 4 TiB. None: not even 4 TiB.

    `target`: the concurrency `ok` asks for (1 to start, the load to hold it), from which a known budget of the
    reference card predicts where `ok` turns (`_predicted`); the search starts there (`first_passing`).
    """
    if not tried:
        return None
    last_fail = max((i for i, t in enumerate(tried) if not ok(t.budget)), default=None)
    if last_fail is None:
        ref, lo, hi = tried[0].gpu, 2**30, _total(sizing, tried[0].gpu)
        known = tried[0].budget
        if ok(_at(sizing, settings, cache, ref, lo, items)):
            return lo
    elif last_fail == len(tried) - 1:
        ref, lo, hi = tried[-1].gpu, _total(sizing, tried[-1].gpu), UPPER_BYTES
        known = _at(sizing, settings, cache, ref, hi, items)
        if not ok(known):
            return None
    else:
        ref = tried[last_fail + 1].gpu
        known = tried[last_fail + 1].budget
        lo, hi = _total(sizing, tried[last_fail].gpu), _total(sizing, ref)
    probed: dict[int, Budget | None] = {}

    def passes(mib: int) -> bool:
        probed[mib] = _at(sizing, settings, cache, ref, mib * MIB, items)
        return ok(probed[mib])

    return MIB * first_passing(lo // MIB, -(-hi // MIB), passes, _predicted(known, target),
                               lambda mib: _secant(known, probed.get(mib), target))


def first_passing(lo: int, hi: int, passes: Callable[[int], bool], guess: int | None = None,
                  again: Callable[[int], int | None] | None = None) -> int:
    """The least n in (lo, hi] that passes, for a test that passes from some n on (hi is taken to pass, lo is not
    asked): a bisection, after probes around `guess` (n MiB) at distances that double from it. For a test that
    turns once the answer is the same whatever the guess; a good guess (a budget's pool grows with the memory
    given, so one budget predicts where it holds a request) takes 2-4 budgets where the bisection took ~15.
    `again(n)`: a second guess from the point n just probed (None: none from there; it is asked after each probe
    until it gives one). Probed when it lies between what is known to fail and to pass, and the doubling starts
    again from it; whatever it says, the answer is the same."""
    if guess is not None and lo + 1 < hi:
        at = min(max(guess, lo + 1), hi - 1)
        up = not passes(at)
        lo, hi = (at, hi) if up else (lo, at)
        step = 1
        while True:
            second = again(at) if again is not None else None
            if second is not None:
                again = None
                if lo < second < hi:
                    at, up, step = second, not passes(second), 1
                    lo, hi = (at, hi) if up else (lo, at)
                    continue
            at = lo + step if up else hi - step
            if not lo < at < hi:
                break
            if passes(at):
                hi = at
                if up:
                    break
            else:
                lo = at
                if not up:
                    break
            step *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if passes(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _predicted(known: Budget | None, target: float | None) -> int | None:
    """Where (MiB) a launch's pool would hold `target` full-length requests, from one budget of it: the pool grows
    with the total by the share the engine takes of it (vLLM's utilisation, SGLang's static fraction) and the
    concurrency with the pool. A first probe only: the search checks it (None: no budget to predict from)."""
    if target is None or not isinstance(known, Budget) or known.gpu_memory_bytes <= 0:
        return None
    pool, held, share = known.kv_pool_bytes, known.max_concurrency, known.requested_bytes / known.gpu_memory_bytes
    if pool <= 0 or held <= 0 or share <= 0:
        return None
    total = known.gpu_memory_bytes + pool * (target / held - 1) / share
    return max(1, -(-int(total) // MIB))


def _secant(first: Budget | None, second: Budget | None, target: float | None) -> int | None:
    """Where (MiB) the concurrency reaches `target`, on the line through two budgets of one launch on one card at two
    totals: the pool grows linearly with the total (by the engine's marginal share, which `_predicted`'s average
    share only approximates where a fixed term is taken before the share: SGLang's context reserve, 50-265 MiB
    off). A probe only, checked by the search (None: no two distinct points)."""
    if target is None or not isinstance(first, Budget) or not isinstance(second, Budget):
        return None
    span, rise = second.gpu_memory_bytes - first.gpu_memory_bytes, second.max_concurrency - first.max_concurrency
    if span == 0 or rise / span <= 0 or first.kv_pool_bytes <= 0 or second.kv_pool_bytes <= 0:
        return None  # the same total, or a pool that does not grow with it (none left: the concurrency is 0)
    total = second.gpu_memory_bytes + (target - second.max_concurrency) * span / rise
    return max(1, -(-int(total) // MIB))


def _at(sizing: Sizing, settings: dict[str, Any], cache: BudgetCache, ref: Gpu, total: int,
        items: tuple[tuple[str, str], ...] | None = None) -> Budget | None:
    return cache.get(sizing.on(ref, total), settings, items, keep=False).budget
