"""Finding engine launches in deployment files: the public entry points for the check helper.

`read_path` never raises for bad input: problems come back as KV001 findings or a skip reason,
so one broken file never stops a run over a folder.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from kvlint.deployment import Deployment
from kvlint.findings import Finding
from kvlint.record import field, record

if TYPE_CHECKING:
    from kvlint.launches.discover import Listings


@record
class ReadResult:
    path: str
    deployments: list[Deployment] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)  # line -> comment text (without '#')
    skipped: str | None = None  # why the file was not read at all (not a deployment format)


def read_path(path: str, text: str | None = None, *, variables: Mapping[str, str] | None = None,
              as_vllm_config: bool | None = None) -> ReadResult:
    """Read one file (or `text` as if it were that file) and return every engine instance in it.

    `variables` gives values for variables the file leaves to its deploy tooling (`$(VAR)`,
    `${VAR}`, `$VAR`), used only where the file itself does not set them; Settings filled from
    them have origin "config-variable". `as_vllm_config` True reads a YAML map as a vLLM
    `--config` file (a launch or the configuration names it), False never does, None (default)
    only when every top-level key is a vLLM argument."""
    from kvlint.launches.read import read_one

    return read_one(path, text, variables, as_vllm_config)


def iter_files(paths: Iterable[str], listings: Listings | None = None) -> Iterator[tuple[str, str | None]]:
    """Walk files and folders, yielding (path, None) to read or (path, reason) for skipped ones (`listings`:
    kvlint.launches.discover.Listings, the names of the folders the walk is in, for configuration lookups)."""
    from kvlint.launches.discover import iter_files as _iter

    return _iter(paths, listings)


__all__ = ["ReadResult", "read_path", "iter_files"]
