"""Baseline: the findings a repository already had when it adopted kvlint, so the gate starts green.

A finding is matched by its file, its code and a fingerprint of what it is about (the launch's name,
the model, the setting and the text of the flagged value), never by its line: moving a block, or adding
lines above it, must not bring a known finding back, while writing a different value (or pointing the
launch at another model) is a new finding. Messages are left out on purpose: they carry kvlint's
estimates, and a better estimate in a new release must not turn the whole baseline stale.

The file is sorted JSON (kvlint/data/baseline.schema.json), paths relative to the file's own folder,
written atomically, so it diffs cleanly in review and a crash never leaves half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from kvlint.deployment import Deployment
from kvlint.errors import KvlintError
from kvlint.findings import Finding
from kvlint.record import record
from kvlint.span import Span

VERSION = 1
MAX_VALUE = 200  # characters of the flagged text kept (a minified one-line manifest has long lines)
MAX_BYTES = 64 * 2**20  # a baseline larger than this is not one kvlint wrote


@record
class Subject:
    """What a finding is about, in words that survive moving lines."""

    launch: str = ""  # the launch's name (workload, container, chart entry)
    model: str = ""  # the model reference as written
    setting: str = ""  # the setting, field or flag the finding points at
    value: str = ""  # the text of the flagged value


@record
class Entry:
    path: str  # relative to the baseline file's folder, "/"-separated
    code: str
    fingerprint: str
    subject: Subject
    count: int = 1  # identical findings in the same file (two launches writing the same value)

    def to_json(self) -> dict[str, object]:
        s = self.subject
        out: dict[str, object] = {"path": self.path, "code": self.code, "fingerprint": self.fingerprint,
                                  "launch": s.launch, "model": s.model, "setting": s.setting, "value": s.value}
        if self.count != 1:
            out["count"] = self.count
        return out


@record
class Baseline:
    path: str  # the file, as given
    entries: tuple[Entry, ...] = ()

    @property
    def folder(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))


@record
class Outcome:
    """What a baseline did to one run: the findings still reported, how many it hid, what it no longer matches."""

    kept: list[Finding]
    matched: int
    unused: list[tuple[Baseline, Entry, int]]  # entry and how many of its count matched nothing


def fingerprint(code: str, subject: Subject, path: str = "", occurrence: int = 0) -> str:
    """A stable hex digest of a finding's identity; the baseline leaves out the path (an entry stores it
    beside the digest), the GitLab report puts it in with the occurrence so every issue is unique."""
    parts = [code, subject.launch, subject.model, subject.setting, subject.value]
    if path or occurrence:
        parts += [path, str(occurrence)]
    import hashlib

    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:32]


@record
class Origin:
    """What the reports and the baseline need of the launch a rule finding is about, kept instead of the whole
    Deployment so a run over thousands of files holds a few strings per finding (LintResult.origins)."""

    path: str
    launch_span: Span | None
    name: str
    model: str | None
    setting: str  # setting_of(finding, deployment)

    @classmethod
    def of(cls, f: Finding, dep: Deployment) -> Origin:
        return cls(dep.path, dep.launch_span, dep.name, dep.model, setting_of(f, dep))


def subject(f: Finding, dep: Deployment | Origin | None, text: str | None) -> Subject:
    """The finding's subject from the launch it was raised for (None: a reader's finding) and the file text."""
    value = _flagged_text(f.span, text) if f.span is not None and text else ""
    if dep is None:
        return Subject(setting=str(f.data.get("flag", "")), value=value)
    setting = dep.setting if isinstance(dep, Origin) else setting_of(f, dep)
    return Subject(launch=dep.name, model=dep.model or "", setting=setting, value=value)


def about(f: Finding, result: object) -> Subject:
    """subject() for a finding of a lint result (its `origins` and `texts`)."""
    path = f.span.path if f.span else f.path
    origins: Mapping[Finding, Deployment | Origin] = getattr(result, "origins", {})
    texts: Mapping[str, str] = getattr(result, "texts", {})
    return subject(f, origins.get(f), texts.get(path))


def setting_of(f: Finding, dep: Deployment) -> str:
    """The setting, field or flag of the launch the finding's span points at (else the finding's own flag)."""
    span = f.span
    if span is not None:
        named = _names_by_span(dep).get(span)
        if named is not None:
            return named
    return str(f.data.get("flag", ""))


_LAST: list[Any] = [None, {}]  # the last launch's index: its findings come one after another


def _names_by_span(dep: Deployment) -> dict[Span, str]:
    """Span -> the setting, field or flag it belongs to, the first in this order: settings, fields, unknown
    flags, invalid values. Built once per launch: matching every finding against every unknown flag cost a
    line of 10,000 unknown flags 10^8 comparisons (54 s)."""
    if _LAST[0] is dep:
        return _LAST[1]
    index: dict[Span, str] = {}
    for s in dep.settings.values():
        for where in (s.span, s.flag_span):
            if where is not None:
                index.setdefault(where, s.name)
    fields = (("model", dep.model_span), ("gpu", dep.gpu_span), ("gpu-count", dep.gpu_count_span),
              ("engine-version", dep.engine_version_span), ("launch", dep.launch_span))
    named = [(where, name) for name, where in fields] + [(u.span, u.flag) for u in dep.unknown_flags]
    named += [(v.span, v.setting or v.flag) for v in dep.invalid_values]
    for where, name in named:
        if where is not None:
            index.setdefault(where, name)
    _LAST[:] = [dep, index]
    return index


def _flagged_text(span: Span, text: str) -> str:
    lines = text.splitlines()
    if not 1 <= span.line <= len(lines):
        return ""
    line = lines[span.line - 1]
    end = span.end_col if span.end_line == span.line and span.end_col > span.col else len(line) + 1
    return line[span.col - 1:end - 1].strip()[:MAX_VALUE]


# ---------------------------------------------------------------- building and matching


def _key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


def _relative(path: str, folder: str) -> str:
    try:
        rel = os.path.relpath(os.path.abspath(path), folder)
    except ValueError:  # another drive on Windows
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")


def _finding_path(f: Finding) -> str:
    return f.span.path if f.span else f.path


def entries_for(findings: Iterable[Finding], result: object, folder: str) -> list[Entry]:
    """One entry per distinct (file, code, subject), counted; stdin findings have no file to match."""
    counts: Counter[tuple[str, str, Subject]] = Counter()
    for f in findings:
        path = _finding_path(f)
        if path and path != "-":
            counts[(_relative(path, folder), f.code, about(f, result))] += 1
    return sorted((Entry(p, c, fingerprint(c, s), shown(s), n) for (p, c, s), n in counts.items()), key=_order)


def shown(s: Subject) -> Subject:
    """The subject as the baseline file keeps it for a reader: credentials masked (a baseline is committed).
    Matching uses the fingerprint of the raw subject, so masking changes no match, and older baselines, which
    kept the raw text, still read and match as before."""
    from kvlint.redact import MASK, is_secret_name, redact_text

    value = MASK if s.value and is_secret_name(s.setting) else redact_text(s.value)
    return Subject(redact_text(s.launch), redact_text(s.model), s.setting, value)


def _order(e: Entry) -> tuple[str, str, str]:
    return (e.path, e.code, e.fingerprint)


def apply(findings: list[Finding], result: object, baselines: Iterable[Baseline],
          linted: Iterable[str]) -> Outcome:
    """Findings not in any baseline; each entry hides at most `count` findings of its file and code.

    `linted`: the files this run read; an entry of a file not read is neither matched nor unused.
    """
    left: Counter[tuple[str, str, str]] = Counter()
    owner: dict[tuple[str, str, str], tuple[Baseline, Entry]] = {}
    for b in baselines:
        for e in b.entries:
            key = (_key(os.path.join(b.folder, e.path)), e.code, e.fingerprint)
            left[key] += e.count
            owner.setdefault(key, (b, e))
    kept: list[Finding] = []
    for f in findings:
        key = (_key(_finding_path(f)), f.code, fingerprint(f.code, about(f, result)))
        if left[key] > 0:
            left[key] -= 1
        else:
            kept.append(f)
    read = {_key(p) for p in linted}
    unused = [(*owner[k], n) for k, n in sorted(left.items()) if n > 0 and k[0] in read]
    return Outcome(kept=kept, matched=len(findings) - len(kept), unused=unused)


def describe(entry: Entry) -> str:
    s = entry.subject
    what = ", ".join(f"{k} {v!r}" for k, v in (("launch", s.launch), ("model", s.model), ("setting", s.setting),
                                               ("value", s.value)) if v)
    return f"{entry.path}: {entry.code} ({what or 'whole file'})"


# ---------------------------------------------------------------- the file


def load(path: str) -> Baseline:
    """Read and validate a baseline file; a missing or foreign file is a usage error (exit 2)."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            raise KvlintError(f"{path}: not a kvlint baseline (larger than {MAX_BYTES // 2**20} MiB)")
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise KvlintError(f"baseline file not found: {path}",
                          "create it with `kvlint check PATHS --write-baseline FILE`") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise KvlintError(f"{path}: not a kvlint baseline ({_reason(exc)})") from None
    _validate(path, data)
    return Baseline(path=path, entries=tuple(_entry(e) for e in data["entries"]))


def _reason(exc: Exception) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc).splitlines()[0][:200]


def _validate(path: str, data: object) -> None:
    import jsonschema

    from kvlint.data import load_json

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(
        load_json("baseline.schema.json")).iter_errors(data))
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "(top level)"
        raise KvlintError(f"{path}: not a kvlint baseline: {where}: {error.message[:200]}")


def _entry(e: dict) -> Entry:
    s = Subject(e.get("launch", ""), e.get("model", ""), e.get("setting", ""), e.get("value", ""))
    return Entry(e["path"], e["code"], e["fingerprint"], s, e.get("count", 1))


def document(entries: Iterable[Entry]) -> str:
    body = {"version": VERSION, "tool": "kvlint", "entries": [e.to_json() for e in sorted(entries, key=_order)]}
    return json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write(path: str, findings: list[Finding], result: object, linted: Iterable[str],
          keep_codes: frozenset[str] = frozenset()) -> int:
    """Rewrite the baseline from this run; returns the number of findings it now holds.

    Entries of files this run read are replaced (a fixed finding drops out); entries of files it did
    not read are kept while the file exists, as are entries whose code is in keep_codes (rules this
    run did not select), so writing from a subset of the tree or of the rules loses nothing.
    """
    folder = os.path.dirname(os.path.abspath(path))
    fresh = entries_for(findings, result, folder)
    with _locked(folder):  # read, merge and replace as one step: two runs writing one baseline lose nothing
        old = load(path) if os.path.exists(path) else Baseline(path)
        read = {_key(p) for p in linted}
        kept = [e for e in old.entries
                if e.code in keep_codes or (_key(os.path.join(folder, e.path)) not in read
                                            and os.path.exists(os.path.join(folder, e.path)))]
        entries = _merge(kept + fresh)
        write_atomic(path, document(entries))
    return sum(e.count for e in entries)


@contextlib.contextmanager
def _locked(folder: str) -> Iterator[None]:
    """An exclusive advisory lock (flock) on the baseline's folder while a write reads and replaces the file.
    The folder, not the file: the file is replaced by a rename, so a lock on it would guard an inode the
    next writer no longer opens, and the folder needs no lock file left beside the baseline. Where flock is
    missing (Windows) or the folder cannot be opened for it, the write goes on unlocked, as before."""
    try:
        import fcntl

        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _merge(entries: list[Entry]) -> list[Entry]:
    by_key: dict[tuple[str, str, str], Entry] = {}
    for e in entries:
        k = _order(e)
        by_key[k] = e if k not in by_key else Entry(e.path, e.code, e.fingerprint, e.subject,
                                                    max(e.count, by_key[k].count))
    return list(by_key.values())


def write_atomic(path: str, text: str) -> None:
    """Write text to path through a temporary file in the same folder: readers see the old or the new file."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise KvlintError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode(path))
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise KvlintError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def _mode(path: str) -> int:
    """The existing file's permissions, else what a plain open() would give (0o666 less the umask)."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
