"""User-facing errors. The CLI turns these into one clear line and an exit code, never a traceback."""

from __future__ import annotations

from typing import Any


class KvlintError(Exception):
    """A usage or configuration problem the user can fix (exit code 2)."""

    exit_code = 2

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its class, args and attributes, whatever its constructor takes: an engine's refusal
        travels between `--jobs` workers inside memoised outcomes (kvlint.parallel)."""
        return _restore, (type(self), self.args, self.__dict__)


def _restore(cls: type[KvlintError], args: tuple[Any, ...], state: dict[str, Any]) -> KvlintError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class UnknownModelError(KvlintError):
    """The model's config.json could not be found offline (nor in the bundled registry)."""


class NotModelledError(KvlintError):
    """The model's architecture (kvlint/data/architectures.json not_modelled) or a KV cache layout (a backend-packed
    kv_cache_dtype) is one kvlint does not model: refused by name instead of sized with a guess, and never swept
    over the GPU catalogue as memory (no card changes it)."""


class UnknownGpuError(KvlintError):
    """The GPU name matches nothing in the catalogue; the message lists close names."""


class InvalidSettingError(KvlintError):
    """A setting value the engine itself refuses at start-up (range, type, model support).

    `setting` is the canonical name (`gpu_memory_utilization`) so `kvlint check` can point at the value
    as written; `reason` is the engine's rule without the value (`must be in (0, 1]`).
    """

    def __init__(self, message: str, setting: str | None = None, reason: str | None = None, hint: str | None = None,
                 after_load: bool = False):
        super().__init__(message, hint)
        self.setting = setting
        self.reason = reason or message
        self.after_load = after_load  # the engine fails once the weights are loaded (allocating its pool), not before


class UnknownFlagError(KvlintError):
    """An engine flag the engine's own parser would reject; the message carries a did-you-mean."""


class InputError(KvlintError):
    """An input could not be read at all (exit code 3)."""

    exit_code = 3
