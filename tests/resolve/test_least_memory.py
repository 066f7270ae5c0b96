"""The catalogue sweep's bisection (kvlint.resolve.sweep.least_memory) at its exact bounds.

A stand-in sizing whose budget is the total it is given, and a check that passes from a threshold on: the answer
must be the threshold rounded up to the MiB, searched on the traits of the card just above the largest failing one,
between the two; from 1 GiB when every card passes; up to 4 TiB above the largest card; None past that.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kvlint.gpus import lookup_gpu
from kvlint.resolve.sweep import UPPER_BYTES, Trial, holds, least_memory, starts
from kvlint.sizes import GIB, MIB


class Card(SimpleNamespace):
    def total_bytes(self, engine: str) -> int:
        return self.total


class Sizing:
    engine = SimpleNamespace(name="vllm")

    def __init__(self) -> None:
        self.asked: list[tuple[str, int | None]] = []

    def on(self, gpu, total=None):
        self.asked.append((gpu.id, total))
        return (gpu, total)


class Cache:
    def get(self, sizing, settings, items=None, keep=True):
        gpu, total = sizing
        return SimpleNamespace(budget=(gpu.id, total if total is not None else gpu.total))


CARDS = [Card(id="small", total=16 * GIB), Card(id="mid", total=24 * GIB), Card(id="big", total=80 * GIB)]


def _least(threshold: int, cards=CARDS, on: str | None = None):
    """The least total the stand-in check passes from (only on card `on`, when given: other traits fail)."""
    sizing = Sizing()
    def ok(b):
        return b is not None and b[1] >= threshold and (on is None or b[0] == on)

    tried = [Trial(c, (c.id, c.total)) for c in cards]
    return least_memory(sizing, {}, Cache(), tried, ok), sizing.asked


@pytest.mark.parametrize("threshold", [
    20 * GIB, 20 * GIB + 1, 20 * GIB - 1, 16 * GIB + 1, 16 * GIB + MIB, 16 * GIB + MIB + 1, 24 * GIB - MIB,
    24 * GIB - MIB + 1, 24 * GIB, 17 * GIB + 12345,
], ids=lambda t: f"{t // MIB}MiB+{t % MIB}")
def test_between_the_largest_failing_card_and_the_next_the_threshold_rounded_up_to_the_mib(threshold):
    found, asked = _least(threshold)
    assert found == -(-threshold // MIB) * MIB
    assert {gpu for gpu, total in asked if total is not None} == {"mid"}  # the traits of the card above the gap
    assert all(16 * GIB < total <= 24 * GIB for _, total in asked if total is not None)


def test_a_threshold_on_a_card_is_that_card():
    assert _least(24 * GIB)[0] == 24 * GIB
    assert _least(80 * GIB)[0] == 80 * GIB
    assert _least(16 * GIB)[0] == 16 * GIB  # every card passes; bisected below the smallest, on its traits


@pytest.mark.parametrize(("threshold", "want"), [
    (GIB, GIB), (GIB - 5, GIB), (GIB + 1, GIB + MIB), (3 * GIB + 7 * MIB, 3 * GIB + 7 * MIB),
    (15 * GIB + 1, 15 * GIB + MIB),
], ids=["1GiB", "1GiB-5", "1GiB+1", "3GiB+7MiB", "15GiB+1"])
def test_every_card_passing_searches_from_one_gib_on_the_smallest(threshold, want):
    found, asked = _least(threshold)
    assert found == want
    assert {gpu for gpu, total in asked if total is not None} == {"small"}


@pytest.mark.parametrize("threshold", [80 * GIB + 1, 100 * GIB + 3 * MIB, UPPER_BYTES - MIB, UPPER_BYTES],
                         ids=["80GiB+1", "100GiB+3MiB", "upper-1MiB", "upper"])  # ids not made of the module's values
def test_above_the_largest_card_up_to_four_tib(threshold):
    found, asked = _least(threshold)
    assert found == -(-threshold // MIB) * MIB
    assert {gpu for gpu, total in asked if total is not None} == {"big"}


def test_past_four_tib_is_none_and_no_cards_is_none():
    tib4 = 4 * 2**40  # written out: the search's ceiling is a fact the test states, not the module's constant
    assert _least(tib4 + 1) == (None, [("big", tib4)])
    assert _least(tib4)[0] == tib4
    assert least_memory(Sizing(), {}, Cache(), [], lambda b: True) is None


def test_a_smaller_card_of_other_traits_that_passes_does_not_move_the_search():
    """Only `mid`'s traits pass (the others fail whatever their memory): the largest failing card is `big`, so the
    search runs above it on its traits and never passes: None."""
    assert _least(10 * GIB, on="mid")[0] is None
    tried = [Trial(c, (c.id, c.total)) for c in CARDS[:2]]
    sizing = Sizing()
    found = least_memory(sizing, {}, Cache(), tried, lambda b: b is not None and b[0] == "mid" and b[1] >= 20 * GIB)
    assert found == 20 * GIB  # between small (fails) and mid, on mid's traits


def test_starts_and_holds():
    assert not starts(None)
    budget = SimpleNamespace(holds_what_it_asks=True, fixed_pool=None, max_concurrency=3.0)
    assert starts(budget) and holds(budget, None) is None
    assert holds(budget, 3) is True and holds(budget, 4) is False
    assert holds(SimpleNamespace(**{**vars(budget), "max_concurrency": 3.0 - 1e-10}), 3) is True
    assert holds(SimpleNamespace(**{**vars(budget), "max_concurrency": 3.0 - 1e-8}), 3) is False
    assert not starts(SimpleNamespace(**{**vars(budget), "holds_what_it_asks": False}))
    over = SimpleNamespace(**{**vars(budget), "fixed_pool": SimpleNamespace(overcommit_bytes=1)})
    fits = SimpleNamespace(**{**vars(budget), "fixed_pool": SimpleNamespace(overcommit_bytes=0)})
    assert not starts(over) and starts(fits) and holds(over, 1) is False


def _turning_at(threshold: int):
    asked: list[int] = []

    def passes(n: int) -> bool:
        asked.append(n)
        return n >= threshold

    return passes, asked


@pytest.mark.parametrize("guess", [None, -5, 0, 1, 3, 9, 10, 11, 17, 31, 32, 33, 40, 1000])
def test_first_passing_is_the_bisections_answer_whatever_the_guess(guess):
    """For a test that turns once, the search started at a guess finds what the bisection alone finds: the least
    passing n in (lo, hi], hi when none below it passes; lo is never asked, and nothing outside (lo, hi)."""
    from kvlint.resolve.sweep import first_passing

    lo, hi = 2, 32
    for threshold in range(-1, 40):
        passes, asked = _turning_at(threshold)
        want = min(max(threshold, lo + 1), hi)
        assert first_passing(lo, hi, passes, guess) == want, (threshold, guess)
        assert all(lo < n < hi for n in asked)


def test_first_passing_from_a_good_guess_asks_a_few_points():
    from kvlint.resolve.sweep import first_passing

    for guess, most in ((50_000, 2), (49_999, 2), (50_003, 6), (49_990, 8)):  # ~2 + 2 log2(distance)
        passes, asked = _turning_at(50_000)
        assert first_passing(1_000, 100_000, passes, guess) == 50_000
        assert len(asked) <= most, asked
    passes, asked = _turning_at(50_000)
    assert first_passing(1_000, 100_000, passes) == 50_000 and len(asked) >= 16  # the bisection alone


@pytest.mark.parametrize("guess", [None, 1, 9, 17, 31, 1000])
@pytest.mark.parametrize("second", [[], [None], [None, None, 5], [-3], [2], [3], [12], [17], [31], [32], [40],
                                    [None, 20], [None, None, None, None, None, 29]])
def test_a_second_guess_leaves_the_answer_as_it_is(guess, second):
    """`again` may say anything (a point outside what is known, the one just probed, None until some probe): the
    answer is still the least passing n, and nothing outside (lo, hi) is asked."""
    from kvlint.resolve.sweep import first_passing

    lo, hi = 2, 32
    for threshold in range(-1, 40):
        passes, asked = _turning_at(threshold)
        said = iter(second)
        want = min(max(threshold, lo + 1), hi)
        assert first_passing(lo, hi, passes, guess, lambda n, said=said: next(said, None)) == want, (threshold, guess)
        assert all(lo < n < hi for n in asked)


def test_a_good_second_guess_makes_a_far_first_one_cheap():
    from kvlint.resolve.sweep import first_passing

    for guess in (1_001, 20_000, 99_999):
        passes, asked = _turning_at(50_000)
        assert first_passing(1_000, 100_000, passes, guess, lambda n: 50_000) == 50_000
        assert len(asked) <= 3, asked
        passes, alone = _turning_at(50_000)
        assert first_passing(1_000, 100_000, passes, guess) == 50_000 and len(alone) > 3 * len(asked) // 2


def test_the_secant_of_two_sglang_budgets_finds_where_one_request_fits():
    """SGLang takes its context reserve before the static fraction, so one budget's average share predicts the turn
    tens of MiB off (`_predicted`); the line through two budgets of the launch on the card (`_secant`) lands on it
    (the least total, bisected, at which the pool holds the context), within the page rounding of the pool."""
    from kvlint.engines import get_engine
    from kvlint.models.resolve import from_registry
    from kvlint.resolve.sweep import _predicted, _secant, first_passing

    engine, model, card = get_engine("sglang"), from_registry("meta-llama/Llama-3.1-8B-Instruct"), lookup_gpu("L40S")
    settings = {"context_length": 131072}

    def at(mib: int):
        return engine.budget(model, settings, card, gpu_memory_bytes=mib * MIB)

    known = engine.budget(model, settings, card)
    turn = first_passing(16_384, known.gpu_memory_bytes // MIB, lambda mib: starts(at(mib)))
    guess = _predicted(known, 1.0)
    assert guess is not None and abs(guess - turn) > 8  # the single budget's guess misses
    second = _secant(known, at(guess), 1.0)
    assert second is not None and abs(second - turn) <= 1
    assert _secant(known, known, 1.0) is None  # no line through one point
