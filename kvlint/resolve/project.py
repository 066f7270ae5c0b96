"""The engine release a project's own files pin: `uv run vllm serve ...` runs the vllm its uv.lock holds.

A launch through a project runner (`uv run`, `poetry run`, `pixi run`, `pdm run`, `pipenv run`, `rye run`,
`hatch run`, `conda run`) runs the engine installed in the project's environment, and that environment is the
project's lock, not the newest release. A script that runs the engine on the host (`vllm serve` in a shell
script) runs whatever the project installs, which its requirements or lock may pin as well.

The project is the nearest folder at or above the launch's file that holds a project file (pyproject.toml,
pixi.toml, a lock, requirements*.txt), not past a repository root (a folder with `.git`) and at most eight
folders up. What is read there, in this order:
- the runner's own lock (uv.lock, poetry.lock, pixi.lock, pdm.lock, Pipfile.lock, requirements.lock; a host
  launch reads any of them): the engine's package entry is the release, with its line;
- the declared requirement (pyproject.toml's dependencies, optional dependencies and dependency groups,
  Poetry's and pixi's dependency tables, pixi.toml, requirements*.txt): `==X` is the release, a range bounds
  the releases it could be.

Each file is read once per run, at most 8 MiB (a lock) or 1 MiB (the others), with the standard library only
(tomllib, or tomli on 3.10; json; a line scan of the locks, which also gives the line); a file that cannot be
read or parsed is passed over, never an error.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from typing import Any

from kvlint.config import toml_reader
from kvlint.record import record

_LEVELS = 8
_LOCK_CAP = 8 * 1024 * 1024
_FILE_CAP = 1024 * 1024
_REQUIREMENTS = 10  # requirements*.txt files read in the project's folder (sorted by name)

# runner -> the lock files its environment follows (() : a runner whose environment no committed lock describes)
RUNNER_LOCKS: dict[str, tuple[str, ...]] = {
    "uv": ("uv.lock",), "poetry": ("poetry.lock",), "pixi": ("pixi.lock",), "pdm": ("pdm.lock",),
    "pipenv": ("Pipfile.lock",), "rye": ("requirements.lock",), "hatch": (), "conda": (), "mamba": (),
    "micromamba": (),
}
_ALL_LOCKS = ("uv.lock", "poetry.lock", "pixi.lock", "pdm.lock", "Pipfile.lock", "requirements.lock")
_DECLARED = ("pyproject.toml", "pixi.toml")
_MARKERS = _ALL_LOCKS + _DECLARED + ("Pipfile",)


@record
class Pin:
    """One place that names the engine's package: the release (==X) or the range it allows."""

    file: str  # relative to the project folder, for messages ("uv.lock")
    line: int
    version: str | None  # an exact release
    spec: str = ""  # a range (">=0.6,<0.8"), when not exact

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@record
class ProjectRelease:
    """What the project says of the engine's release."""

    folder: str | None  # the project's folder (None: no project file above the launch)
    pins: tuple[Pin, ...] = ()  # exact releases, the lock's first (several: a lock with forked resolutions)
    ranges: tuple[Pin, ...] = ()  # declared ranges
    locks_read: tuple[str, ...] = ()  # the runner's locks that exist and were read (none naming the engine: open)

    @property
    def pinned(self) -> Pin | None:
        """The one release the project pins (None: none, or several different ones)."""
        versions = {p.version for p in self.pins}
        return self.pins[0] if len(versions) == 1 else None


def project_release(path: str, package: str, runner: str | None) -> ProjectRelease:
    """What the project of the file at `path` pins for `package` (the engine's distribution name), read as the
    runner's environment (`runner` None: an install on the host, any lock)."""
    if path in ("", "-"):
        return ProjectRelease(None)
    folder = project_folder(os.path.dirname(os.path.abspath(path)))
    if folder is None:
        return ProjectRelease(None)
    locks = _ALL_LOCKS if runner is None else RUNNER_LOCKS.get(runner, ())
    pins: list[Pin] = []
    read: list[str] = []
    for name in locks:
        found = _lock_pins(os.path.join(folder, name), package)
        if found is not None:
            read.append(name)
            pins.extend(found)
    ranges: list[Pin] = []
    if not pins:
        for declared in _declared(folder, package):
            (pins if declared.version else ranges).append(declared)
    return ProjectRelease(folder, tuple(pins), tuple(ranges), tuple(read))


def project_folder(start: str) -> str | None:
    """The nearest folder at or above `start` holding a project file, not past a repository root."""
    return _project_folder(os.path.abspath(start))


@lru_cache(maxsize=2048)
def _project_folder(here: str) -> str | None:
    for _ in range(_LEVELS):
        marked, root = _marks(here)
        if marked:
            return here
        if root:
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
    return None


@lru_cache(maxsize=2048)
def _marks(folder: str) -> tuple[bool, bool]:
    """(holds a project file, is a repository's root) of one folder: asked once per folder however many files below
    it walk up through it (a repository root with a thousand entries was listed again for each of its folders)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return False, False
    return any(n in _MARKERS or (n.startswith("requirements") and n.endswith(".txt")) for n in names), ".git" in names


def _read(path: str, cap: int) -> str | None:
    """The file's text, or None when it is missing, unreadable, not a regular file or larger than the cap (a
    truncated lock would hide the entry it is read for)."""
    from kvlint.sidefile import side_text

    return side_text(path, cap)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.strip().strip("\"'")).lower()


# ------------------------------------------------------------------------------------------- locks

def _lock_pins(path: str, package: str) -> tuple[Pin, ...] | None:
    """The releases a lock holds for the package (() : the lock names it not), None when there is no readable lock."""
    return _lock_pins_cached(path, _norm(package))


@lru_cache(maxsize=256)
def _lock_pins_cached(path: str, package: str) -> tuple[Pin, ...] | None:
    text = _read(path, _LOCK_CAP)
    if text is None:
        return None
    name = os.path.basename(path)
    try:
        if name == "Pipfile.lock":
            return _pipfile_lock(text, name, package)
        if name == "pixi.lock":
            return _pixi_lock(text, name, package)
        if name == "requirements.lock":
            return tuple(p for p in _requirement_lines(text, name, package) if p.version)
        return _toml_packages(text, name, package)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None


def _toml_packages(text: str, name: str, package: str) -> tuple[Pin, ...] | None:
    """uv.lock, poetry.lock, pdm.lock: `[[package]]` tables with `name = "..."` and `version = "..."` lines. A file
    with no such table, or whose entry for the package has no readable version, is not a lock kvlint can read."""
    pins: list[Pin] = []
    in_package, current, version = False, None, None
    tables = 0
    for number, line in enumerate([*text.splitlines(), "[end]"], 1):
        stripped = line.strip()
        if stripped.startswith("["):
            if in_package and current == package:
                if version is None:
                    return None
                pins.append(Pin(name, version[1], version[0]))
            in_package, current, version = stripped == "[[package]]", None, None
            tables += in_package
            continue
        if not in_package:
            continue
        m = re.match(r"(name|version)\s*=\s*[\"']([^\"']+)[\"']\s*$", stripped)
        if m and m.group(1) == "name":
            current = _norm(m.group(2))
        elif m:
            version = (m.group(2), number)
    return tuple(_distinct(pins)) if tables else None


def _pixi_lock(text: str, name: str, package: str) -> tuple[Pin, ...]:
    """pixi.lock (YAML): a package's `name:` / `version:` lines (first), or its wheel or conda archive URL."""
    pins: list[Pin] = []
    urls: list[Pin] = []
    lines = text.splitlines()
    url = re.compile(rf"/{re.escape(package).replace('-', '[-_]')}-(\d+(?:\.\d+)+(?:\.post\d+)?)[-.]", re.I)
    for number, line in enumerate(lines, 1):
        stripped = line.strip().lstrip("- ").strip()
        m = re.match(r"name:\s*(\S+)\s*$", stripped)
        if m and _norm(m.group(1)) == package:
            for k in range(number, min(number + 6, len(lines))):
                v = re.match(r"\s*version:\s*['\"]?([^'\"\s]+)", lines[k])
                if v:
                    pins.append(Pin(name, k + 1, v.group(1)))
                    break
            continue
        if stripped.startswith(("conda:", "pypi:", "url:")):
            u = url.search(stripped)
            if u:
                urls.append(Pin(name, number, u.group(1)))
    return tuple(_distinct(pins + urls))


def _pipfile_lock(text: str, name: str, package: str) -> tuple[Pin, ...]:
    data = json.loads(text)
    pins: list[Pin] = []
    for section in ("default", "develop"):
        entries = data.get(section) if isinstance(data, dict) else None
        for key, entry in (entries or {}).items():
            if _norm(key) == package and isinstance(entry, dict) and str(entry.get("version", "")).startswith("=="):
                pins.append(Pin(name, _line_of(text, rf"[\"']{re.escape(key)}[\"']\s*:"), entry["version"][2:]))
    return tuple(_distinct(pins))


def _distinct(pins: list[Pin]) -> list[Pin]:
    seen: dict[str | None, Pin] = {}
    for p in pins:
        seen.setdefault(p.version, p)
    return list(seen.values())


# ------------------------------------------------------------------------------------------- declared

def _declared(folder: str, package: str) -> list[Pin]:
    return list(_declared_cached(folder, _norm(package)))


@lru_cache(maxsize=256)
def _declared_cached(folder: str, package: str) -> tuple[Pin, ...]:
    out: list[Pin] = []
    for name in _DECLARED:
        text = _read(os.path.join(folder, name), _FILE_CAP)
        if text is None:
            continue
        toml = toml_reader()
        if toml is None:
            continue
        try:
            data = toml.loads(text)
        except (ValueError, RecursionError):  # TOMLDecodeError is a ValueError
            continue
        for spec in _toml_specs(data, package):
            out.append(_pin(name, _line_of(text, rf"(?i)(^|[\s\"'\[,]){_name_pattern(package)}"), spec))
    try:
        listed = sorted(n for n in os.listdir(folder) if n.startswith("requirements") and n.endswith(".txt"))
    except OSError:
        listed = []
    for name in listed[:_REQUIREMENTS]:
        text = _read(os.path.join(folder, name), _FILE_CAP)
        if text is not None:
            out.extend(_requirement_lines(text, name, package))
    return tuple(out)


def _name_pattern(package: str) -> str:
    return re.escape(package).replace("\\-", "[-_.]")


def _sub(data: Any, key: str) -> dict[str, Any]:
    """data[key] when both are tables, else an empty one (a file of another shape is read as naming nothing)."""
    found = data.get(key) if isinstance(data, dict) else None
    return found if isinstance(found, dict) else {}


def _toml_specs(data: dict[str, Any], package: str) -> list[str]:
    """The package's version specifiers in a pyproject.toml or pixi.toml (PEP 621, dependency groups, Poetry, pixi)."""
    specs: list[str] = []
    project = _sub(data, "project")
    lists = [project.get("dependencies"), *_sub(project, "optional-dependencies").values(),
             *_sub(data, "dependency-groups").values()]
    for listed in lists:
        for item in listed if isinstance(listed, list) else []:
            if isinstance(item, str):
                spec = _pep508(item, package)
                if spec is not None:
                    specs.append(spec)
    tool = _sub(data, "tool")
    poetry = _sub(tool, "poetry")
    tables: list[dict[str, Any]] = [_sub(poetry, "dependencies")]
    tables += [_sub(group, "dependencies") for group in _sub(poetry, "group").values()]
    for pixi in (_sub(tool, "pixi"), data):  # pyproject's [tool.pixi.*], pixi.toml's top level
        tables += [_sub(pixi, "dependencies"), _sub(pixi, "pypi-dependencies")]
        for feature in _sub(pixi, "feature").values():
            tables += [_sub(feature, "dependencies"), _sub(feature, "pypi-dependencies")]
    for table in tables:
        for key, value in table.items():
            if _norm(key) != package:
                continue
            raw = value.get("version") if isinstance(value, dict) else value
            if isinstance(raw, str):
                specs.append(_poetry_spec(raw))
    return specs


def _pep508(item: str, package: str) -> str | None:
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*\(?([^;@)]*)", item)
    if m is None or _norm(m.group(1)) != package:
        return None
    return m.group(3).strip().replace(" ", "")


def _poetry_spec(raw: str) -> str:
    """Poetry's and pixi's spellings as PEP 440 clauses: `^0.6.3`, `~0.6.3`, a bare `0.6.3`, `0.6.*`, `*`."""
    out: list[str] = []
    for part in (p.strip() for p in raw.replace(" ", "").split(",") if p.strip()):
        if part == "*":
            continue
        if part[0] in "^~" and not part.startswith("~="):
            nums = _key(part[1:])
            if not nums:
                continue
            if part[0] == "^":
                bump = next((i for i, n in enumerate(nums) if n), len(nums) - 1)
            else:
                bump = min(1, len(nums) - 1) if len(nums) > 1 else 0
            upper = list(nums[: bump + 1])
            upper[-1] += 1
            out += [f">={part[1:]}", "<" + ".".join(map(str, upper))]
        elif part[0].isdigit():
            out.append(f"=={part}")
        else:
            out.append(part)
    return ",".join(out)


def _requirement_lines(text: str, name: str, package: str) -> list[Pin]:
    pattern = re.compile(rf"^\s*{_name_pattern(package)}\s*(\[[^\]]*\])?\s*"
                         r"([=<>!~][^;#\s]*(?:\s*,\s*[=<>!~][^;#\s,]*)*)?\s*(?:[;#].*)?$", re.I)
    out: list[Pin] = []
    for number, line in enumerate(text.splitlines(), 1):
        m = pattern.match(line)
        if m:
            out.append(_pin(name, number, (m.group(2) or "").replace(" ", "")))
    return out


def _pin(file: str, line: int, spec: str) -> Pin:
    exact = re.fullmatch(r"===?\s*v?(\d+(?:\.\d+)*(?:\.?post\d+)?)", spec)
    return Pin(file, line, exact.group(1)) if exact else Pin(file, line, None, spec)


def _line_of(text: str, pattern: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if re.search(pattern, line):
            return number
    return 1


# ------------------------------------------------------------------------------------------- ranges

def _key(version: str) -> tuple[int, ...]:
    m = re.match(r"v?(\d+(?:\.\d+)*)", version.strip())
    return tuple(int(p) for p in m.group(1).split(".")) if m else ()


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    width = max(len(a), len(b))
    pa, pb = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return (pa > pb) - (pa < pb)


def allows(spec: str, version: str) -> bool:
    """Whether a PEP 440 specifier (`>=0.6,<0.8`, `~=0.6.3`, `==0.6.*`, `!=0.7.0`) admits `version`; a clause it
    cannot read admits every release (the range stays as wide as the file may mean)."""
    have = _key(version)
    for clause in (c.strip() for c in spec.split(",") if c.strip()):
        m = re.fullmatch(r"(===|==|!=|<=|>=|~=|<|>)\s*v?(\d+(?:\.\d+)*)(\.\*)?\S*", clause)
        if m is None or not have:
            continue
        op, want, star = m.group(1), _key(m.group(2)), bool(m.group(3))
        if star:
            same = have[: len(want)] == want
            if (op in ("==", "===") and not same) or (op == "!=" and same):
                return False
            continue
        c = _cmp(have, want)
        if op == "~=":
            prefix = want[: max(1, len(want) - 1)]
            if c < 0 or have[: len(prefix)] != prefix:
                return False
        elif not {"==": c == 0, "===": c == 0, "!=": c != 0, "<=": c <= 0, ">=": c >= 0, "<": c < 0,
                  ">": c > 0}[op]:
            return False
    return True


def releases_within(spec: str, documented: list[str], eras: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """(the documented releases a range could be, newest first, at most one per era plus the range's ends;
    whether they are the nearest modelled because the range holds no documented release)."""
    inside = [v for v in documented if allows(spec, v)]
    if not inside:
        below = [v for v in documented if not allows(spec, v) and _upper_excludes(spec, v)]
        nearest = documented[0] if len(below) == len(documented) else documented[-1]
        return (nearest,), True
    kept = [v for v in inside if v in eras or v in (inside[0], inside[-1])] if eras else inside
    return tuple(reversed(kept)), False


def _upper_excludes(spec: str, version: str) -> bool:
    """The release is above the range (an upper bound excludes it), not below it."""
    for clause in (c.strip() for c in spec.split(",") if c.strip()):
        m = re.fullmatch(r"(<=|<|==|~=)\s*v?([\d.]+)\S*", clause)
        if m and _cmp(_key(version), _key(m.group(2))) > 0:
            return True
    return False


__all__ = ["RUNNER_LOCKS", "Pin", "ProjectRelease", "allows", "project_folder", "project_release", "releases_within"]
