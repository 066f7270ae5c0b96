"""kvlint.errors: every user-facing error survives pickling whole, whatever its constructor takes.

`--jobs` workers hand memoised outcomes to one another (kvlint.parallel), and an outcome can hold the
engine's refusal; an error that came back with other arguments or a mangled message would change a report.
"""

from __future__ import annotations

import pickle

import pytest

from kvlint.config import ConfigError
from kvlint.errors import InputError, InvalidSettingError, KvlintError, UnknownFlagError, UnknownGpuError
from kvlint.models.config import ModelConfigError
from kvlint.models.weights import WeightsError
from kvlint.resolve.sizing import UnresolvedSetting

ERRORS = [
    KvlintError("plain", hint="a hint"),
    InvalidSettingError("gpu_memory_utilization must be in (0, 1], got 1.5", "gpu_memory_utilization",
                        "must be in (0, 1]", hint="lower it"),
    UnresolvedSetting(("tensor_parallel_size", "max_model_len")),
    UnknownFlagError("unknown flag --max-num-seq", "did you mean --max-num-seqs?"),
    UnknownGpuError("no GPU named H1000"),
    InputError("cannot read x.yaml"),
    ConfigError("bad .kvlint.yaml"),
    ModelConfigError("config.json: no num_hidden_layers"),
    WeightsError("no dtype"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_round_trip_keeps_class_message_and_attributes(error):
    back = pickle.loads(pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(back) is type(error)
    assert back.args == error.args and str(back) == str(error)
    assert vars(back) == vars(error)  # UnresolvedSetting rebuilt from its args would read "needs n, e, e, ..."

