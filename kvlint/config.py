"""Repository configuration: `.kvlint.yaml` or `[tool.kvlint]` in pyproject.toml.

Found by walking up from the checked file to the repository root (the directory holding .git), so
a monorepo can keep one file at the top. Validated against kvlint/data/config.schema.json; errors
name the file, the line and the key, because a typo in a CI config otherwise silently disables a rule.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from kvlint.data import load_json
from kvlint.engines.registered import engine_names
from kvlint.errors import KvlintError
from kvlint.findings import Severity
from kvlint.models.lockpath import remember
from kvlint.record import field, record

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

    from kvlint.launches.discover import Listings
    from kvlint.registry import Rule
    from kvlint.sources.yaml import YNode

Keys = Sequence[str | int]  # a path into the configuration: mapping keys and sequence indexes
Locate = Callable[[Keys], int]  # the line a path of keys starts on, for error messages

NAMES = (".kvlint.yaml", ".kvlint.yml")
MAX_BYTES = 1024 * 1024  # a configuration is a few hundred lines, calibrations included
MAX_NODES = 20_000  # YAML nodes with aliases expanded: an alias bomb stops here, not in the validator
MAX_DEPTH = 64  # nesting levels; the schema needs five, the validators recurse per level


class ConfigError(KvlintError):
    """The configuration file is invalid (exit code 2)."""


@record
class Config:
    path: str | None = None
    root: str = "."
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    fail_on: Severity | None = None
    severities: dict[str, Severity] = field(default_factory=dict)
    estimated_severities: dict[str, Severity] = field(default_factory=dict)
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    gpu: str | None = None
    gpu_memory: str | None = None
    engine_versions: dict[str, str] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)
    non_kv_gib: dict[str, float] = field(default_factory=dict)
    per_path_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    exclude: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    calibrations: tuple[Any, ...] = ()  # kvlint.calibration.entry.Calibration, from `calibration:`
    gpus: tuple[tuple[str, str], ...] = ()  # (glob, GPU) for launches that declare none; first match wins
    node_labels: dict[str, str] = field(default_factory=dict)  # "key=value" or "value" -> GPU
    variables: dict[str, str] = field(default_factory=dict)  # values for $(VAR) / ${VAR} left to deploy tooling
    vllm_config_files: tuple[str, ...] = ()  # globs read as vLLM --config files
    baseline: str | None = None  # `baseline:`, resolved against the configuration file's folder

    def relpath(self, path: str) -> str:
        """The path as the configuration's globs see it: relative to its root, `/`-separated. Asked several times per
        file (its per-path ignores, GPUs, config-file globs, exclusion): memoised, keyed by the working folder too
        for a relative path."""
        return _relative(path, self.root, "" if os.path.isabs(path) else os.getcwd())

    def ignored_here(self, path: str) -> frozenset[str]:
        rel = self.relpath(path)
        out: set[str] = set()
        for pattern, codes in self.per_path_ignores:
            if _glob(rel, pattern):
                out |= codes
        return frozenset(out)

    def is_vllm_config(self, path: str) -> bool:
        """The file is named by `vllm-config-files:` (read as a vLLM --config file whatever its keys)."""
        rel = self.relpath(path)
        return any(_glob(rel, p) for p in self.vllm_config_files)

    def excluded(self, path: str) -> bool:
        return bool(self.exclude) and _matcher(self.exclude)(self.relpath(path))

    def non_kv_for(self, model: str | None) -> float | None:
        return self.non_kv_gib.get(model or "", self.non_kv_gib.get("default"))

    def gpu_for_path(self, path: str) -> tuple[str, str] | None:
        """(GPU, glob) from `gpus:` for a file, the first glob that matches."""
        rel = self.relpath(path)
        return next(((gpu, glob) for glob, gpu in self.gpus if _glob(rel, glob)), None)

    def gpu_for_labels(self, labels: Iterable[tuple[str, str]]) -> tuple[str, str] | None:
        """(GPU, "key=value") from `node-labels:` for node-selection labels; `key=value` beats a bare value."""
        pairs = list(labels)
        for key, value in pairs:
            if f"{key}={value}" in self.node_labels:
                return self.node_labels[f"{key}={value}"], f"{key}={value}"
        for key, value in pairs:
            if value in self.node_labels:
                return self.node_labels[value], f"{key}={value}"
        return None


@lru_cache(maxsize=16)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """`_glob` for every pattern at once, built once per run: each of 5,000 `exclude:` globs tried in turn cost
    2,000 files 58 s. A pattern with a slash matches a leading run of the path's folders, so it is filed under
    its literal head (the text before its first wildcard) and a path tries only the heads it starts with; a
    slash-free one matches any one name of the path (its `*` never crosses a `/`), filed the same way."""
    from kvlint.ignore import parse_line

    anchored: dict[str, list[str]] = {}
    floating: dict[str, list[str]] = {}
    for pattern in patterns:
        glob = pattern.strip()
        parsed = parse_line(glob)
        if parsed is None or parsed.negated:
            continue
        bare = glob.rstrip("/")
        table = anchored if "/" in bare else floating
        table.setdefault(_head(bare.lstrip("/")), []).append(parsed.regex)
    compiled: dict[tuple[int, str], re.Pattern[str]] = {}  # a head's regexes as one pattern, when first met

    def tries(table: dict[str, list[str]], lengths: list[int], text: str) -> bool:
        for n in lengths:
            if n > len(text):
                break
            regexes = table.get(text[:n])
            if regexes is None:
                continue
            key = (id(table), text[:n])
            if key not in compiled:
                compiled[key] = re.compile("|".join(f"(?:{r})" for r in regexes))
            if compiled[key].match(text):
                return True
        return False

    a_lengths, f_lengths = sorted({len(h) for h in anchored}), sorted({len(h) for h in floating})

    def match(rel: str) -> bool:
        parts = rel.split("/")
        prefixes = ("/".join(parts[:k]) for k in range(len(parts), 0, -1))
        return any(tries(floating, f_lengths, name) for name in parts) or \
            any(tries(anchored, a_lengths, prefix) for prefix in prefixes)

    return match


def _head(glob: str) -> str:
    """The literal text before a glob's first wildcard (or escape)."""
    cut = min((i for i in (glob.find("*"), glob.find("?"), glob.find("["), glob.find("\\")) if i >= 0),
              default=len(glob))
    return glob[:cut]


@lru_cache(maxsize=4096)
def _relative(path: str, root: str, cwd: str) -> str:
    try:
        return os.path.relpath(os.path.join(cwd, path) if cwd else path, root).replace(os.sep, "/")
    except ValueError:  # another drive (Windows)
        return path


def _glob(rel: str, pattern: str) -> bool:
    """gitignore semantics (kvlint.ignore): `*` stays within a folder, `**` crosses them, a slash-free pattern
    matches a name at any depth, a folder's pattern covers what it holds."""
    from kvlint.ignore import glob_match

    return glob_match(rel, pattern)


def find_config(start: str) -> str | None:
    """The nearest .kvlint.yaml (or pyproject.toml with [tool.kvlint]) from start up to the repo root."""
    here = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        found = _config_in(here)
        if found is not None or _is_top(here):
            return found
        here = os.path.dirname(here)


def _config_in(here: str, names: frozenset[str] | None = None) -> str | None:
    """This folder's own configuration file, if it has one (`names`: the folder's listing, when known, so a
    name it lacks is not looked for)."""
    for name in NAMES:
        if (names is None or name in names) and os.path.isfile(os.path.join(here, name)):
            return os.path.join(here, name)
    pyproject = os.path.join(here, "pyproject.toml")
    if (names is None or "pyproject.toml" in names) and os.path.isfile(pyproject) and _has_tool_section(pyproject):
        return pyproject
    return None


def _is_top(here: str, names: frozenset[str] | None = None) -> bool:
    """The search stops at a repository root (a .git entry) or the filesystem root."""
    return ((names is None or ".git" in names) and os.path.exists(os.path.join(here, ".git"))
            or os.path.dirname(here) == here)


def _has_git(here: str, names: frozenset[str] | None = None) -> bool:
    return (names is None or ".git" in names) and os.path.exists(os.path.join(here, ".git"))


def _has_tool_section(path: str) -> bool:
    from kvlint.sources.text import SourceError, read_head

    try:  # a regular file, and no more of it than a configuration may hold
        head = read_head(path, MAX_BYTES + 1).decode("utf-8", "replace")
    except (OSError, SourceError):
        return False
    return re.search(r"^\[tool\.kvlint[\].]", head, re.MULTILINE) is not None


def read_config_text(path: str) -> str:
    """A configuration file's text: a regular file within MAX_BYTES, UTF-8, else a ConfigError with file:line."""
    from kvlint.sources.text import SourceError, decode, read_bytes

    try:
        return decode(read_bytes(path, MAX_BYTES))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc.strerror or exc}") from None
    except SourceError as exc:
        reason = exc.reason.replace("for manifests", "for configuration files")
        raise ConfigError(f"{path}:{exc.line or 1}: {reason}") from None


def load_config(path: str) -> Config:
    """Read and validate one configuration file."""
    text = read_config_text(path)
    if os.path.basename(path) == "pyproject.toml":
        data, locate, notes = _from_pyproject(path, text)
    else:
        data, locate = _from_yaml(path, text)
        notes = ()
    if data is None or locate is None:  # together: [tool.kvlint] skipped on Python 3.10
        return Config(path=path, root=os.path.dirname(os.path.abspath(path)), notes=notes)
    _validate(path, data, locate)
    _check_gpu(path, data, locate)
    return _build(path, data, locate, notes)


def _from_yaml(path: str, text: str) -> tuple[dict[str, Any], Locate]:
    data, root = parse_config_yaml(path, text)
    return data, lambda keys: _yaml_line(root, keys)


def parse_config_yaml(path: str, text: str) -> tuple[dict, YNode | None]:
    """The configuration mapping and its node tree, composed by kvlint.sources.yaml (libyaml, bounded alias
    expansion, no recursion) and checked for size and depth before any validator walks it."""
    from kvlint.sources.yaml import parse_yaml

    yf = parse_yaml(path, text)
    if yf.templated is not None:
        raise ConfigError(f"{path}:{yf.templated.first_line}: invalid YAML: template expressions ({{{{ }}}}) are "
                          "not allowed in a configuration file")
    problem = next((p for p in yf.problems if p.severity == "error" and p.kind != "duplicate"), None)
    if problem is not None:
        raise ConfigError(f"{path}:{problem.line}: {problem.message}")
    if len(yf.docs) > 1:
        raise ConfigError(f"{path}:{yf.docs[1].span.line}: one YAML document expected, found {len(yf.docs)}")
    root = yf.docs[0] if yf.docs else None
    if root is None or (root.is_scalar and root.value is None):  # empty, comments only, or `~`
        return {}, None
    if not root.is_map:
        raise ConfigError(f"{path}:{root.span.line}: the configuration must be a mapping of keys")
    if root.size > MAX_NODES:
        raise ConfigError(f"{path}:{root.span.line}: the configuration expands to {root.size:,} YAML nodes, over "
                          f"{MAX_NODES:,} (an alias bomb?)")
    deep = _too_deep(root)
    if deep is not None:
        raise ConfigError(f"{path}:{deep.span.line}: nested over {MAX_DEPTH} levels deep")
    return root.data(), root


def _too_deep(root: YNode) -> YNode | None:
    """The first node nested deeper than MAX_DEPTH, found without recursion (a non-scalar key is an error)."""
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return node
        if node.is_map:
            key = next((k for k, _ in node.items if not k.is_scalar), None)
            if key is not None:  # what a loader refuses as an unhashable key (`{{ x }}` reads as one)
                raise ConfigError(f"{key.span.path}:{key.span.line}: invalid YAML: a mapping key must be a plain "
                                  "value (a template expression?)")
        children = node.elements if node.is_seq else [v for _, v in node.items] if node.is_map else []
        stack.extend((child, depth + 1) for child in children)
    return None


def _yaml_line(node: YNode | None, keys: Keys) -> int:
    line = node.span.line if node is not None else 1
    for key in keys:
        if node is None:
            break
        nxt = None
        if node.is_map:
            for k, v in node.items:
                if k.is_scalar and k.text == str(key):
                    line, nxt = k.span.line, v
        elif node.is_seq and isinstance(key, int) and key < len(node.items):
            nxt = node.items[key]
            line = nxt.span.line
        node = nxt
    return line


def toml_reader() -> Any:
    """tomllib (3.11+), or tomli on 3.10 (a dependency there: `tomli; python_version < "3.11"`, the same parser
    tomllib was made from); None when neither is importable (an install that skipped dependencies)."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    try:
        import tomli
    except ImportError:
        return None
    return tomli


def _from_pyproject(path: str, text: str) -> tuple[dict[str, Any] | None, Locate | None, tuple[str, ...]]:
    tomllib = toml_reader()
    if tomllib is None:
        skipped = f"{path}: [tool.kvlint] skipped: reading TOML on Python 3.10 needs tomli (pip install tomli)"
        return None, None, (skipped,)
    try:
        data = tomllib.loads(text).get("tool", {}).get("kvlint", {})
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"at line (\d+)", str(exc))
        raise ConfigError(f"{path}:{at.group(1) if at else 1}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses per nesting level
        raise ConfigError(f"{path}:{_deep_line(text)}: nested over {MAX_DEPTH} levels deep") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:{_toml_line(text, [])}: [tool.kvlint] must be a table")
    deep = _too_deep_data(data)
    if deep:
        raise ConfigError(f"{path}:{_deep_line(text)}: nested over {MAX_DEPTH} levels deep")
    return data, lambda keys: _toml_line(text, keys), ()


def _too_deep_data(data: Any) -> bool:
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return False


def _deep_line(text: str) -> int:
    """The line where bracket nesting first passes MAX_DEPTH (quotes ignored: a best effort for the message)."""
    depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        for ch in line:
            depth += ch in "[{"
            depth -= ch in "]}"
            if depth > MAX_DEPTH:
                return number
    return 1


def _toml_line(text: str, keys: Keys) -> int:
    """Best effort: the line of the deepest key spelled out under [tool.kvlint]."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip().startswith("[tool.kvlint")), 0)
    best = start + 1
    for key in (k for k in keys if isinstance(k, str)):
        name = re.escape(key)
        pat = re.compile(rf'^\s*"?{name}"?\s*=|^\[tool\.kvlint\.{name}\]|[{{,]\s*"?{name}"?\s*=')
        hit = next((i for i in range(best - 1, len(lines)) if pat.search(lines[i])), None)
        if hit is not None:
            best = hit + 1
    return best


def _schema(name: str = "config.schema.json") -> dict:
    return load_json(name)


def _validator() -> Validator:
    """The config schema with the calibration schema it $refs registered: one source of truth for the block."""
    import jsonschema
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    calibration = _schema("calibration.schema.json")
    registry = Registry().with_resource(calibration["$id"], DRAFT202012.create_resource(calibration))
    return jsonschema.Draft202012Validator(_schema(), registry=registry)


def _validate(path: str, data: dict[str, Any], locate: Locate) -> None:
    from kvlint.quickschema import is_valid

    if is_valid(data, _schema(), {"calibration.schema.json": _schema("calibration.schema.json")}):
        return  # the usual valid file, decided without importing jsonschema (a large import)
    validator = _validator()
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        err = errors[0]
        keys = list(err.absolute_path)
        if err.validator == "additionalProperties":
            extra = re.findall(r"'([^']+)'", err.message)
            keys, msg = keys + extra[:1], f"unknown key {extra[0]!r}" if extra else err.message
        else:
            msg = _explain(err)
        where = ".".join(map(str, keys)) or "(top level)"
        raise ConfigError(f"{path}:{locate(keys)}: {where}: {msg}")


def _check_gpu(path: str, data: dict[str, Any], locate: Locate) -> None:
    """A misspelt GPU would otherwise surface as KV003 (or a sweep) on every file. With `gpu-memory:` the
    `gpu:` name may be a card the catalogue does not list, so it is left alone; fleet maps must name cards."""
    named = [(["gpu"], data["gpu"])] if "gpu" in data and "gpu-memory" not in data else []
    for key in ("gpus", "node-labels"):
        named += [([key, k], v) for k, v in (data.get(key) or {}).items()]
    if not named:
        return
    from kvlint.gpus import lookup_gpu  # the catalogue is loaded only when a config names a GPU

    for keys, name in named:
        try:
            lookup_gpu(name)
        except KvlintError as exc:
            raise ConfigError(f"{path}:{locate(keys)}: {'.'.join(keys)}: {exc}") from None


def _explain(err: ValidationError) -> str:
    """For oneOf/anyOf, the reason from the alternative of the value's own type (not 'not of type object')."""
    specific = [e for e in err.context if e.validator != "type" and not e.relative_path]
    if specific:
        return specific[0].message
    deeper = [e for e in err.context if e.relative_path]
    if deeper:
        return f"{'.'.join(map(str, deeper[0].relative_path))}: {deeper[0].message}"
    return err.message


def _build(path: str, data: dict[str, Any], locate: Locate, notes: tuple[str, ...]) -> Config:
    from kvlint.registry import expand_selector, get_rule

    root = os.path.dirname(os.path.abspath(path))

    def codes(key: str, values: Iterable[str]) -> tuple[str, ...]:
        out = []
        for i, v in enumerate(values):
            try:
                out.extend(sorted(expand_selector(v)))
            except KvlintError as exc:
                raise ConfigError(f"{path}:{locate([key, i])}: {key}: {exc}") from None
        return tuple(out)

    def by_rule(key: str, mapping: dict[str, Any], convert: Callable[[Rule, Any, Keys], Any]) -> dict[str, Any]:
        out = {}
        for name, value in mapping.items():
            try:
                rule = get_rule(name)
            except KvlintError as exc:
                raise ConfigError(f"{path}:{locate([key, name])}: {key}: {exc}") from None
            out[rule.code] = convert(rule, value, [key, name])
        return out

    def options(rule: Rule, value: dict[str, Any], keys: Keys) -> dict[str, Any]:
        known = rule.option_defaults()
        for opt, v in value.items():
            if opt not in known:
                have = ", ".join(known) or "none"
                raise ConfigError(f"{path}:{locate([*keys, opt])}: rules.{keys[1]}: unknown option {opt!r} "
                                  f"for {rule.code} (options: {have})")
            if isinstance(known[opt], (int, float)) and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise ConfigError(f"{path}:{locate([*keys, opt])}: rules.{keys[1]}.{opt}: expected a number")
        return dict(value)

    ev = data.get("engine-version")
    nk = data.get("non-kv-gib")
    return Config(
        path=path, root=root,
        select=codes("select", data["select"]) if "select" in data else None,
        ignore=codes("ignore", data.get("ignore", [])),
        fail_on=Severity.parse(data["fail-on"]) if "fail-on" in data else None,
        severities=by_rule("severity", data.get("severity", {}), lambda r, v, k: Severity.parse(v)),
        estimated_severities=by_rule("estimated-severity", data.get("estimated-severity", {}),
                                     lambda r, v, k: Severity.parse(v)),
        rule_options=by_rule("rules", data.get("rules", {}), options),
        gpu=data.get("gpu"), gpu_memory=data.get("gpu-memory"),
        engine_versions=dict.fromkeys(engine_names(), ev) if isinstance(ev, str) else dict(ev or {}),
        models={k: os.path.normpath(os.path.join(root, v)) for k, v in data.get("models", {}).items()},
        non_kv_gib=({"default": float(nk)} if isinstance(nk, (int, float))
                    else {k: float(v) for k, v in (nk or {}).items()}),
        per_path_ignores=tuple((g, frozenset(codes("per-path-ignores", v))) for g, v in
                               data.get("per-path-ignores", {}).items()),
        exclude=tuple(data.get("exclude", [])), notes=tuple(notes), calibrations=_calibrations(data),
        gpus=tuple((str(g), str(v)) for g, v in (data.get("gpus") or {}).items()),
        node_labels={str(k): str(v) for k, v in (data.get("node-labels") or {}).items()},
        variables={str(k): _scalar_text(v) for k, v in (data.get("variables") or {}).items()},
        vllm_config_files=tuple(data.get("vllm-config-files", [])),
        baseline=os.path.normpath(os.path.join(root, data["baseline"])) if "baseline" in data else None)


def _scalar_text(value: Any) -> str:
    """A variable's value as the shell would substitute it (YAML `true` -> `true`, 8 -> `8`)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _calibrations(data: dict) -> tuple:
    if not data.get("calibration"):
        return ()
    from kvlint.calibration.entry import entries

    return tuple(entries(data))


class ConfigCache:
    """One Config per configuration file, looked up per checked file (memoised by directory)."""

    def __init__(self, explicit: str | None = None, listings: Listings | None = None) -> None:
        """`listings`: the names of the folders a walk is in (kvlint.launches.discover), read instead of
        four stats per folder while the walk that fills them is running."""
        self.explicit = load_config(explicit) if explicit else None
        self.listings = listings
        self._by_dir: dict[str, Config] = {}
        self._by_path: dict[str, Config] = {}
        self._nearest_by_dir: dict[str, str | None] = {}
        self._root_by_dir: dict[str, str] = {}  # the project root of each folder (kvlint.models.lockpath.lock_dir)
        self._default: Config | None = None

    def for_file(self, path: str) -> Config:
        if self.explicit is not None:
            return self.explicit
        directory = os.path.dirname(os.path.abspath(path)) if path != "-" else os.getcwd()
        if directory not in self._by_dir:
            found = self._nearest(directory)
            if found is None:  # one default for every folder without a configuration, not one per folder
                if self._default is None:
                    self._default = Config(root=os.getcwd())
                self._by_dir[directory] = self._default
            else:
                if found not in self._by_path:
                    self._by_path[found] = load_config(found)
                self._by_dir[directory] = self._by_path[found]
        return self._by_dir[directory]

    def _nearest(self, directory: str) -> str | None:
        """find_config with every folder's answer kept: sibling folders share their parents' walk up. The same
        walk finds each folder's project root (where its kvlint.lock lives), told to kvlint.models.lockpath so
        the launches' lock lookups need no stat of their own."""

        chain: list[str] = []
        here = directory
        while here not in self._nearest_by_dir:
            chain.append(here)
            names = self.listings.names(here) if self.listings is not None else None
            found = _config_in(here, names)
            if found is not None or _is_top(here, names):
                self._nearest_by_dir[here] = found
                self._root_by_dir[here] = here if found is not None or _has_git(here, names) else os.getcwd()
                break
            here = os.path.dirname(here)
        answer, root = self._nearest_by_dir[here], self._root_by_dir[here]
        for folder in chain:
            self._nearest_by_dir[folder] = answer
            self._root_by_dir[folder] = root
            remember(folder, root)
        return answer

    def loaded(self) -> list[Config]:
        return ([self.explicit] if self.explicit else []) + list(self._by_path.values())
