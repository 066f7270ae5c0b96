"""`kvlint.lock`: the model configs a deployment repository's launches name, kept beside its configuration.

The HF cache is per machine and the Hub is not there in pre-commit.ci, an air-gapped runner or on a plane;
a lock checked into the repository is. `kvlint models lock` writes it (kvlint.commands.lock), `kvlint check`
reads it before anything else, offline, and a launch sized from it says `model_source: "lock"`.

Where: beside the configuration (`.kvlint.yaml`, `.kvlint.yml`, or pyproject.toml with [tool.kvlint]),
else at the git root, else in the current folder (`kvlint.models.lockpath.lock_dir`), the same place for
writing and reading.

The format is text made for review and diffs, with no new dependency (TOML has no null, which config.json
uses, and a YAML writer would add one; JSON puts a whole model on a reviewer's screen as one hunk):

    lock-version = 1

    [model "acme/tiny-llama"]
    source = "hub"
    revision = "0123456789abcdef0123456789abcdef01234567"
    names = ["acme/tiny-llama"]
    file.config.json = "sha256:..."
    config.hidden_size = 256
    ...
    digest = "sha256:..."

One block per model, sorted by id; one key per line in a fixed order (sorted within each group), each value
one line of JSON with sorted keys, so a changed field is a one-line diff and null, nested maps and lists
read exactly as config.json wrote them. `digest` hashes the block's canonical text (its lines rendered
again from the parsed values), so a hand edit of any value shows (`kvlint models lock --check`) while a
re-indent does not. `names` are the references the tree writes for the model (a path such as
`/data/Llama-3.3-70B-Instruct` matches only by name), `file.<name>` the sha256 of each file the entry was
made from (config.json and the quantization side files, never weights), `config.*` the trimmed config
(kvlint.models.trim) and `hf_quant_config` ModelOpt's side file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from kvlint.errors import KvlintError
from kvlint.lazyre import lazy
from kvlint.models.lockpath import LOCK_NAME
from kvlint.record import field, record

VERSION = 1
HEADER = (
    "# kvlint.lock: the model configs this repository's launches name, written by `kvlint models lock`.\n"
    "# Check it in: `kvlint check` reads it first, offline. Change it by running the command again;\n"
    "# `kvlint models lock --check` fails when a model named in the tree is missing or an entry was edited.\n"
)
_BLOCK = lazy(r'^\[model ("(?:[^"\\]|\\.)*")\]$')  # compiled when a lock is read: a run without one never is
_LINE = lazy(r"^([A-Za-z_][\w.\-/]*) = (.*)$")
_GROUPS = ("source", "revision", "names", "file.", "hf_quant_config", "config.")


class LockError(KvlintError):
    """kvlint.lock cannot be read (a line that is not `key = JSON`, a block without a model id)."""


@record
class LockEntry:
    """One model of the lock: what `check` sizes the launch from, and where it came from."""

    id: str
    source: str  # "hub" | "hf-cache" | "bundled" | "local" | "override"
    config: dict[str, Any]
    revision: str | None = None  # the Hub commit the files came from (None: not from the Hub)
    names: tuple[str, ...] = ()  # the references the tree writes for it
    files: dict[str, str] = field(default_factory=dict)  # file name -> "sha256:<hex>"
    hf_quant_config: dict[str, Any] | None = None
    digest: str = ""  # as stored (canonical digest when made here)
    line: int = 0  # the block's line in the file (0: not read from a file)

    @property
    def edited(self) -> bool:
        """The stored digest is not the digest of the block's values: the text was changed by hand."""
        return self.digest != digest_of(self)


@record
class Lock:
    path: str
    entries: tuple[LockEntry, ...] = ()

    def find(self, ref: str, aliases: Iterable[str] = ()) -> LockEntry | None:
        """The entry for a reference as written (by name), or for the Hub id it names; then for the launch's
        other names of the model, in order."""
        for name in (ref, *aliases):
            found = self._by_name(name.strip()) if isinstance(name, str) and name.strip() else None
            if found is not None:
                return found
        return None

    def _by_name(self, name: str) -> LockEntry | None:
        from kvlint.models.resolve import HUB_ID, candidate_ids, split_revision

        for entry in self.entries:
            if name in entry.names:
                return entry
        base, revision = split_revision(name)
        if revision is not None:
            return None  # `org/name@rev`: only the entry locked for that exact reference
        stripped = base[len("hf://"):] if base.lower().startswith("hf://") else base
        if not HUB_ID.match(stripped) and not stripped.lower().startswith(("http://", "https://")):
            return None  # a path names its model by `names` only (its last two segments are not an id)
        wanted = {i.lower() for i in candidate_ids(base)}
        return next((e for e in self.entries if e.id.lower() in wanted), None)


# ---------------------------------------------------------------- text


def _value(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def _pairs(entry: LockEntry) -> list[tuple[str, Any]]:
    """The block's keys and values in their fixed order (the canonical text is made from these)."""
    out: list[tuple[str, Any]] = [("source", entry.source), ("revision", entry.revision),
                                  ("names", sorted(entry.names))]
    out += [(f"file.{name}", entry.files[name]) for name in sorted(entry.files)]
    if entry.hf_quant_config is not None:
        out.append(("hf_quant_config", entry.hf_quant_config))
    out += [(f"config.{key}", entry.config[key]) for key in sorted(entry.config)]
    return out


def _canonical(entry: LockEntry) -> str:
    lines = [f"[model {_value(entry.id)}]"] + [f"{k} = {_value(v)}" for k, v in _pairs(entry)]
    return "\n".join(lines) + "\n"


def digest_of(entry: LockEntry) -> str:
    import hashlib  # only where a lock is read or written: a one-file check without one skips its import

    return "sha256:" + hashlib.sha256(_canonical(entry).encode("utf-8")).hexdigest()


def render(entries: Iterable[LockEntry]) -> str:
    """The whole file: header, version, one block per model sorted by id (case-insensitive). An entry keeps the
    digest it has (an edited entry kept as it is stays edited); a new one gets its own."""
    blocks = [_canonical(e) + f"digest = {_value(e.digest or digest_of(e))}\n" for e in
              sorted(entries, key=lambda e: (e.id.lower(), e.id))]
    return HEADER + f"lock-version = {VERSION}\n" + "".join("\n" + b for b in blocks)


def parse(text: str, path: str = LOCK_NAME) -> Lock:
    """The lock's entries; LockError naming the line for anything that is not the format above."""
    entries: list[LockEntry] = []
    current: dict[str, Any] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        block = _BLOCK.match(line)
        if block:
            if current is not None:
                entries.append(_entry(current, path))
            current = {"id": _json(block.group(1), path, number), "line": number, "pairs": {}}
            continue
        pair = _LINE.match(line)
        if pair is None:
            raise LockError(f"{path}:{number}: expected `[model \"<id>\"]` or `key = <JSON value>`, got {raw[:80]!r}")
        key, value = pair.group(1), _json(pair.group(2), path, number)
        if current is None:
            if key != "lock-version" or value != VERSION:
                raise LockError(f"{path}:{number}: only `lock-version = {VERSION}` may come before the first model")
            continue
        if key in current["pairs"]:
            raise LockError(f"{path}:{number}: {key} is given twice in the block of {current['id']}")
        current["pairs"][key] = (value, number)
    if current is not None:
        entries.append(_entry(current, path))
    return Lock(path, tuple(entries))


def _json(text: str, path: str, number: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LockError(f"{path}:{number}: the value is not JSON ({exc.msg})") from None


def _entry(block: dict[str, Any], path: str) -> LockEntry:
    pairs: dict[str, tuple[Any, int]] = block["pairs"]
    where = f"{path}:{block['line']}"
    model_id, config, files = block["id"], {}, {}
    for key, (value, number) in pairs.items():
        if key.startswith("config."):
            config[key[len("config."):]] = value
        elif key.startswith("file."):
            files[key[len("file."):]] = str(value)
        elif key not in ("source", "revision", "names", "hf_quant_config", "digest"):
            raise LockError(f"{path}:{number}: unknown key {key!r} in the block of {model_id}")
    source, revision = pairs.get("source", (None, 0))[0], pairs.get("revision", (None, 0))[0]
    names, quant = pairs.get("names", ([], 0))[0], pairs.get("hf_quant_config", (None, 0))[0]
    if not isinstance(model_id, str) or not model_id or not isinstance(source, str) or not config:
        raise LockError(f"{where}: a model block needs an id, `source` and `config.*` lines")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or \
            not (revision is None or isinstance(revision, str)) or not (quant is None or isinstance(quant, dict)):
        raise LockError(f"{where}: `names` must be a list of strings, `revision` a string or null, "
                        f"`hf_quant_config` an object")
    return LockEntry(id=model_id, source=source, config=config, revision=revision, names=tuple(names),
                     files=files, hf_quant_config=quant, digest=str(pairs.get("digest", ("", 0))[0]),
                     line=block["line"])


# ---------------------------------------------------------------- reading it for `check` (where: lockpath)


def load(path: str) -> Lock | None:
    """The lock at `path`, None when there is none; LockError when it cannot be read. Read once per change."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _load(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _load(path: str, mtime_ns: int, size: int) -> Lock:
    from kvlint.sources.text import SourceError, decode, read_bytes

    try:
        text = decode(read_bytes(path))
    except (OSError, SourceError) as exc:
        raise LockError(f"{path}: cannot read the lock ({exc})") from None
    return parse(text, path)


def spec_of(entry: LockEntry) -> Any:
    """The ModelSpec a lock entry gives; its source says `lock:<id>@<revision>`."""
    from kvlint.models.config import spec_from_config

    at = f"@{entry.revision[:12]}" if entry.revision else f" ({entry.source})"
    return spec_from_config(entry.config, entry.id, f"lock:{entry.id}{at}", hf_quant_config=entry.hf_quant_config)


def sha256_of(data: bytes) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(data).hexdigest()


def names_of(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(set(values)))
