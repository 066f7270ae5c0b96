"""close_matches gives difflib.get_close_matches' answer, on real option, GPU and model names."""

from __future__ import annotations

import difflib
import random

import pytest

from kvlint.flags.flag_table import flag_table
from kvlint.gpus import all_gpus
from kvlint.models.resolve import registry_ids
from kvlint.suggest import close_matches


def _typo(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        i, op = rng.randrange(len(chars)), rng.choice("dis")
        if op == "d" and len(chars) > 3:
            del chars[i]
        elif op == "i":
            chars.insert(i, rng.choice("abcdefghijklmnopqrstuvwxyz-_0123456789"))
        else:
            chars[i] = rng.choice("abcdefghijklmnopqrstuvwxyz-_0123456789")
    return "".join(chars)


def _names() -> dict[str, list[str]]:
    return {"flags": sorted(set(flag_table("vllm").by_option) | set(flag_table("sglang").by_option)),
            "gpus": sorted({n for g in all_gpus() for n in (g.id, *g.aliases)}),
            "models": [m.lower() for m in registry_ids()]}


@pytest.mark.parametrize("kind", ["flags", "gpus", "models"])
def test_same_matches_as_difflib(kind):
    names = _names()[kind]
    rng = random.Random(kind)
    for _ in range(100):
        word = _typo(rng, rng.choice(names)) if rng.random() < 0.8 else rng.choice(["x", "--", "h100", "zz-top"])
        n, cutoff = rng.choice([1, 3]), rng.choice([0.5, 0.6, 0.75])
        assert close_matches(word, names, n=n, cutoff=cutoff) == difflib.get_close_matches(word, names, n, cutoff)


def test_ties_break_as_difflib_breaks_them():
    names = ["ab", "ba", "aa", "bb"]
    for word in ("a", "b", "ab"):
        assert close_matches(word, names, n=2, cutoff=0.0) == difflib.get_close_matches(word, names, 2, 0.0)


def test_bad_arguments_are_refused_as_difflib_refuses_them():
    with pytest.raises(ValueError):
        close_matches("x", ["x"], n=0)
    with pytest.raises(ValueError):
        close_matches("x", ["x"], cutoff=1.5)
