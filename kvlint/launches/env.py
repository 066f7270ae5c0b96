"""Expanding words with the variables a reader can know: container env, script assignments,
compose/SkyPilot envs and `${VAR:-default}` defaults. Anything else stays as its expression.

An unresolved value is never guessed: the field keeps the raw expression and `resolved=False`,
and the inspect output says which variable was missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType

from kvlint import limits
from kvlint.lazyre import lazy
from kvlint.record import field, record, replace
from kvlint.sources.shell import Part, Word
from kvlint.sources.text import Mapped
from kvlint.span import Span, Token

_K8S_REF = lazy(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_ARITH_OK = lazy(r"^[\d\s+\-*/%()]+$")
_IDENT = lazy(r"\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_POSITIONAL = lazy(r"^\$(?:([0-9])|\{([0-9]+)\}|([@*#]))$")
_POSITIONAL_SLICE = lazy(r"^\$\{[@*]:[0-9]+(?::[0-9]+)?\}$")  # `${@:2}`, `${*:2:3}`: the parameters from $2 on
_DOTENV_LINE = lazy(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$")
_REF = lazy(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\$([A-Za-z_][A-Za-z0-9_]*)")


class Supplied(str):
    """A variable's value that does not come from the file being read: the user's configuration
    (`variables:` in .kvlint.yaml, origin "config-variable") or a chart's values.yaml ("chart-values").
    The origin travels with the text through env copies, so a Setting can say where it came from."""

    origin: str

    def __new__(cls, text: str, origin: str) -> Supplied:
        obj = super().__new__(cls, text)
        obj.origin = origin
        return obj


_SUPPLIED: ContextVar[Mapping[str, str]] = ContextVar("kvlint_supplied_variables", default=MappingProxyType({}))


@contextmanager
def supplying(variables: Mapping[str, str] | None) -> Iterator[None]:
    """Read with these values for variables the file leaves to its deploy tooling (`$(VAR)`, `${VAR}`).

    A context rather than a parameter: every reader that starts a variable table (a script, a
    container's env, compose interpolation, chart values) consults it, and none of them has to pass
    it along. The file's own definitions always win; these only fill what it leaves unset."""
    with _supplied_as({k: Supplied(str(v), "config-variable") for k, v in (variables or {}).items()}):
        yield


@contextmanager
def supplying_the_files(variables: Mapping[str, str]) -> Iterator[None]:
    """Read a text the file writes with the file's own variables around it (a script's `cat <<EOF | kubectl apply`
    manifest, whose `${MODEL_ID}` the shell fills from the script's assignments): over the configured ones, each
    with origin "variable" (the file's own value, from another of its lines)."""
    with _supplied_as({**_SUPPLIED.get(), **{k: Supplied(str(v), "variable") for k, v in variables.items()}}):
        yield


@contextmanager
def _supplied_as(values: Mapping[str, str]) -> Iterator[None]:
    token = _SUPPLIED.set(values)
    try:
        yield
    finally:
        _SUPPLIED.reset(token)


def supplied() -> Mapping[str, str]:
    """The configured variables for the read in progress (empty outside one)."""
    return _SUPPLIED.get()


def with_supplied(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with the configured variables underneath it: the file's own values win."""
    return {**supplied(), **env}


def substitute_supplied(text: str) -> tuple[str, str]:
    """`${VAR}`, `$(VAR)`, `$VAR` in a structured value (a chart key, a config field) replaced by
    configured variables; (text, origin) with origin "config-variable" when anything was replaced."""
    table = supplied()
    if "$" not in text or not table:
        return text, ""
    used = False

    def sub(m: re.Match) -> str:
        nonlocal used
        name = m.group(1) or m.group(2) or m.group(3)
        if name in table:
            used = True
            return table[name]
        return m.group(0)

    out = _REF.sub(sub, text)
    return out, "config-variable" if used else ""


def parse_dotenv(text: str) -> dict[str, str]:
    """KEY=VALUE lines as compose's `.env` and `docker run --env-file` read them: `#` comments,
    optional `export`, quoted values, an unquoted value ending at ` #`."""
    env: dict[str, str] = {}
    for line in text.splitlines():
        m = _DOTENV_LINE.match(line)
        if m and not line.lstrip().startswith("#"):
            env[m.group(1)] = _dotenv_value(m.group(2))
    return env


def _dotenv_value(raw: str) -> str:
    if len(raw) >= 2 and raw[0] in "'\"" and raw[0] in raw[1:]:
        return raw[1:raw.index(raw[0], 1)]
    return re.split(r"\s+#", raw, maxsplit=1)[0].strip()


@record
class Field:
    """One argv word after expansion, with its source span and what stayed unresolved."""

    text: str
    span: Span | None
    resolved: bool = True
    missing: tuple[str, ...] = ()  # expressions that could not be expanded
    offsets: tuple[int, ...] = field(default=(), compare=False, repr=False)  # per char, into `source`
    source: Mapped | None = field(default=None, compare=False, repr=False)
    origin: str = field(default="", compare=False)  # "default-expansion" | "variable" when text came from $VAR


    def token(self) -> Token:
        return Token(self.text, self.span)

    def mapped(self) -> Mapped:
        """This field's text as new shell input (eval, sh -c), each char still at its file position."""
        if self.source is None or len(self.offsets) != len(self.text):
            pos = ((self.span.line, self.span.col),) * (len(self.text) + 1) if self.span else ()
            return Mapped(self.span.path if self.span else "", self.text, pos)
        if not self.offsets:
            end = (self.span.line, self.span.col) if self.span else (1, 1)
            return Mapped(self.span.path if self.span else "", self.text, (end,))
        # positions looked up when asked: a (line, col) pair per character cost ~100 bytes each
        return self.source.view(self.span.path if self.span else "", self.text, self.offsets + (self.offsets[-1] + 1,))


def expand_k8s(text: str, env: Mapping[str, str]) -> tuple[str, tuple[str, ...]]:
    """Kubernetes `$(VAR)` in command/args: replaced when VAR is in the container env (or configured)."""
    out, missing, _ = expand_k8s_traced(text, env)
    return out, missing


def expand_k8s_traced(text: str, env: Mapping[str, str]) -> tuple[str, tuple[str, ...], str]:
    """`expand_k8s` plus where the substituted text came from ("" for the file's own env)."""
    missing: list[str] = []
    origins: list[str] = []
    table = supplied()

    def sub(m: re.Match) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group(1)
        value = env.get(name, table.get(name))
        if value is None:
            missing.append(m.group(0))
            return m.group(0)
        if isinstance(value, Supplied):
            origins.append(value.origin)
        limits.spend(len(value))  # `$(A)$(A)` per env entry doubles: bounded per file
        return value

    out = _K8S_REF.sub(sub, text)
    return out, tuple(missing), origins[0] if origins else ""


# the run-time origin kvlint.launches.script gives an array a file the script sources sets (read by build)
SOURCED_ARRAY = "an array set by "

Positional = tuple[Field, ...]  # $0, $1, ... of a `sh -c SCRIPT NAME ARGS...` (index 0 is $0)


def expand_word(word: Word, m: Mapped, env: Mapping[str, str], positional: Positional | None = None) -> list[Field]:
    """One shell word as the fields the shell would pass on. `positional` holds the script's
    positional parameters when they are known (`sh -c '... "$@"' -- ARGS`); unknown ones stay as
    their expression, like any unset variable."""
    whole = _positional_fields(word, m, positional)
    if whole is not None:
        return whole
    # text, offsets, splittable, quoted, missing, extent (start, end) of an expansion, origin
    segs: list[tuple] = []
    for part in word.parts:
        segs.extend(_expand_part(part, m, env, positional))
    # `IFS=,` then `set -- $GPU_ID` (sample K418: eight GPUs counted by `$#`): the script's separators split
    fields = _split_fields(segs, m) if "IFS" not in env else _split_fields(segs, m, seps=_separators(env["IFS"]))
    if len(fields) == 1 and word.literal is None and word.end > word.start:  # None: a part is an expansion
        # a value that came from an expansion points at the whole expression as written, quotes included
        fields = [replace(fields[0], span=m.span(word.start, word.end))]
        if fields[0].text == "" and fields[0].resolved:
            # `--port "$PORT"` after `PORT=""`: a placeholder the script fills where kvlint cannot see (`eval`, a
            # sourced file, the caller's environment); an empty value would be a verdict on a guess
            written = m.text[word.start : word.end].strip("\"'")
            fields = [replace(fields[0], text=written, resolved=False, missing=(written,), offsets=())]
    return fields


def expand_words(words: Sequence[Word], m: Mapped, env: Mapping[str, str],
                 positional: Positional | None = None) -> list[Field]:
    """The words of one command as the fields the shell passes on. A word that is only an empty default of a
    variable this file never sets (`${EXTRA_ARGS:-}`, `${X-}`) expands to nothing and the shell drops it;
    it stays an unresolved value only right after an option that may take one (`--api-key ${KEY:-}`), where the
    environment supplies what the launch means (read as "" it would swallow the next flag), unless its name
    says it is a list of arguments (`${VLLM_EXTRA_ARGS:-}`, `$OPTS`: never one option's value)."""
    out: list[Field] = []
    for word in words:
        if _empty_default(word, env) and (_arg_list(word) or not (out and _takes_value(out[-1].text))):
            continue
        out.extend(expand_word(word, m, env, positional))
    return out


def assigned_defaults(word: Word, m: Mapped, env: Mapping[str, str],
                      positional: Positional | None = None) -> list[tuple[str, str | None]]:
    """The variables a word's `${VAR:=d}` / `${VAR=d}` assign (bash sets VAR to d for every later command
    when VAR is unset, or empty with `:=`): (name, value), the value None when d is only known at run time.
    The builtin `:` with such a word (`: "${MODEL:=org/m}"`) exists only for this."""
    out: list[tuple[str, str | None]] = []
    for part in _var_parts(word.parts):
        val = env.get(part.text)
        if part.op == ":=" and not val or part.op == "=" and val is None:
            found = _var_value(part, m, env, positional)
            out.append((part.text, None if found is None else found[0]))
    return out


def _var_parts(parts: Sequence[Part]) -> Iterator[Part]:
    for part in parts:
        if part.kind == "var":
            yield part
            yield from _var_parts(part.default)


def _empty_default(word: Word, env: Mapping[str, str]) -> bool:
    if len(word.parts) != 1:
        return False
    part = word.parts[0]
    return (part.kind == "var" and not part.quoted and part.op in (":-", "-") and not part.default
            and not env.get(part.text))


def _arg_list(word: Word) -> bool:
    return word.parts[0].text.upper().endswith(_ARG_LISTS)


_ARG_LISTS = ("ARGS", "ARGUMENTS", "FLAGS", "OPTS", "OPTIONS", "PARAMS")


def _takes_value(text: str) -> bool:
    return text.startswith("-") and "=" not in text and len(text) > 1 and not text[1:2].isdigit()


def _positional_key(part: Part) -> str | None:
    """"@", "*", "#" or a digit string for `$@`, `"$*"`, `$#`, `$1`, `${12}`; "@:2" for a slice `${@:2}` (`"*:2:3"`
    for `${*:2:3}`: sample K543's `ssh "$1" "${@:2}"`); None for anything else."""
    if part.kind == "special":
        found = _POSITIONAL.match(part.text)
        if found is None:
            return part.text[2:-1] if _POSITIONAL_SLICE.match(part.text) else None
        return next((g for g in found.groups() if g), None)
    if part.kind == "var" and part.text.isdigit() and not part.op:
        return part.text
    return None


def _positional_fields(word: Word, m: Mapped, positional: Positional | None) -> list[Field] | None:
    """A word that is exactly one positional expansion becomes the arguments themselves, each
    keeping its own span (`"$@"` -> the `args:` items); None when the word is anything else."""
    parts = [p for p in word.parts if p.kind != "lit" or p.text]
    if positional is None or len(parts) != 1:
        return None
    part = parts[0]
    key = _positional_key(part)
    if key is None:
        return None
    args = _listed(key, positional)
    span = m.span(word.start, word.end)
    if key[0] == "@" or (key[0] == "*" and not part.quoted):
        return args
    if key[0] == "*" or key == "#":
        text = " ".join(f.text for f in args) if key[0] == "*" else str(len(args))
        missing = tuple(e for f in args for e in f.missing) if key[0] == "*" else ()
        return [Field(text, span, not missing, missing)]
    n = int(key)
    if n < len(positional):
        return [positional[n]]
    return [Field("", span)] if part.quoted else []


def _listed(key: str, positional: Positional) -> list[Field]:
    """The parameters `$@` / `$*` stand for ($1 on), or those of a slice (`${@:2}`: $2 on; `${@:2:3}`: three)."""
    if ":" not in key:
        return list(positional[1:])
    _, start, *length = key.split(":")
    first = int(start)
    return list(positional[first : first + int(length[0]) if length else None])


def _positional_text(key: str, positional: Positional) -> str:
    if key[0] in "@*":
        return " ".join(f.text for f in _listed(key, positional))
    if key == "#":
        return str(len(positional) - 1)
    n = int(key)
    return positional[n].text if n < len(positional) else ""


def _expand_part(part: Part, m: Mapped, env: Mapping[str, str], positional: Positional | None = None) -> list:
    if part.kind == "lit":
        return [(part.text, list(part.offsets), False, part.quoted, None, None, "")]
    start, end = part.offsets if len(part.offsets) == 2 else (0, 0)
    raw = m.text[start:end]
    value = _value_of(part, m, env, positional)
    if value is None:
        return [(raw, [start] * len(raw), False, True, raw, (start, end), "")]
    text, missing = value
    limits.spend(len(text))  # `A=$A$A` per line doubles: bounded per file
    held = env.get(part.text) if part.kind == "var" and not part.op else None
    if isinstance(held, Partial) and held == text:
        return _partial_segs(held, m, start, end, part.quoted, _origin_of(part, env))
    return [(text, [start] * len(text), not part.quoted, part.quoted, missing, (start, end), _origin_of(part, env))]


class Partial(str):
    """A command-like value assigned with expressions the file leaves unknown (`CMD="docker run -e T=${TOKEN}
    IMAGE --model M"`): its text with each unknown expression as written, and where they are. Expanded unquoted,
    the shell splits it into words: each word holding an unknown expression is unresolved, the others are known
    (the image, the model), so `exec $CMD` is still a launch."""

    holes: tuple[tuple[int, int], ...]
    offsets: tuple[int, ...]  # where each character was written, in `source` (empty: not known)
    source: object

    def __new__(cls, text: str, holes: tuple[tuple[int, int], ...], offsets: tuple[int, ...] = (),
                source: object = None) -> Partial:
        obj = super().__new__(cls, text)
        obj.holes, obj.offsets, obj.source = holes, offsets, source
        return obj


def _partial_segs(value: Partial, m: Mapped, start: int, end: int, quoted: bool, origin: str) -> list:
    """A Partial's expansion as segments: its known pieces splittable, its unknown expressions marked missing; each
    character at its place in the assignment when that is in the text being read, else at the expansion."""
    placed = _rebased(value, m) if len(value.offsets) == len(value) else None
    here = placed is not None

    def piece(a: int, b: int, missing: str | None) -> tuple:
        offs = list(placed[a:b]) if placed is not None else [start] * (b - a)
        extent = (min(offs), max(offs) + 1) if here and offs else (start, end)
        return (value[a:b], offs, missing is None and not quoted, quoted, missing, extent, origin)

    segs: list = []
    last = 0
    for a, b in value.holes:
        if a > last:
            segs.append(piece(last, a, None))
        segs.append(piece(a, b, value[a:b]))
        last = b
    if last < len(value):
        segs.append(piece(last, len(value), None))
    return segs


def _rebased(value: Partial, m: Mapped) -> Sequence[int] | None:
    """A Partial's character offsets as offsets of `m`: its own when it was assigned in `m`, or, when it was assigned
    in another stretch of the same file (a function body that printed it, sample K519's `build_server_command`),
    translated through the file: each body a contiguous view of it. None when the two share no file."""
    if value.source is m:
        return value.offsets
    if not isinstance(value.source, Mapped):
        return None
    source, first = _contiguous(value.source)
    here, base = _contiguous(m)
    if source is None or source is not here:
        return None
    if not all(0 <= o + first < len(source.text) for o in value.offsets):
        return None
    return [o + first - base for o in value.offsets]  # beyond `m`'s ends when the body lies elsewhere in the file


def _contiguous(m: Mapped) -> tuple[Mapped | None, int]:
    """(the outermost text, where `m` starts in it) when `m` is that text or a stretch of it (views whose offsets
    are ranges); (None, 0) otherwise."""
    start = 0
    while m.within is not None:
        if not isinstance(m.offsets, range) or m.offsets.step != 1:
            return None, 0
        start += m.offsets.start
        m = m.within
    return m, start


def _origin_of(part: Part, env: Mapping[str, str]) -> str:
    """Where an expanded value came from, for Setting.origin: a `${X:-d}` default, X's definition in
    the file ("variable"), or a value the file left to its deploy tooling (Supplied's origin)."""
    if part.kind == "cmd":
        val = env.get(part.text.strip())
        return val.origin if isinstance(val, Supplied) else "variable" if val is not None else ""
    if part.kind != "var":
        return ""
    val = env.get(part.text)
    defaulted = part.op in (":-", ":=") and not val or part.op in ("-", "=") and val is None
    if defaulted:
        return "default-expansion"
    return val.origin if isinstance(val, Supplied) else "variable"


_NAME = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
# a program looked up on the PATH (`command -v vllm`, `which sglang`, `type -P vllm`), with or without a fallback
# (the engine, or any program: a container runtime found the same way, `APPT=$(command -v apptainer)`, sample K391)
_LOOKUP = lazy(r"^\s*(?:command\s+-v|which|type\s+-[pP])\s+([A-Za-z][\w.-]*)\s*(?:(?:\|\||2>|>)[^()]*)?$")


def _value_of(part: Part, m: Mapped, env: Mapping[str, str],
              positional: Positional | None = None) -> tuple[str, str | None] | None:
    key = _positional_key(part) if positional is not None else None
    if key is not None and positional is not None:
        return _positional_text(key, positional), None
    if part.kind == "var":
        return _var_value(part, m, env, positional)
    if part.kind == "cmd" and _NAME.fullmatch(part.text.strip()):
        name = part.text.strip()  # Kubernetes $(VAR) reaching a shell string
        return (env[name], None) if name in env else None
    if part.kind == "cmd" and (found := _LOOKUP.match(part.text)) is not None:
        return found.group(1), None  # `$(command -v vllm || true)`: the program's path, read as the program
    if part.kind == "arith":
        result = eval_arith(part.text, env)
        return None if result is None else (str(result), None)
    return None


def _var_value(part: Part, m: Mapped, env: Mapping[str, str],
               positional: Positional | None = None) -> tuple[str, str | None] | None:
    """${VAR}, ${VAR:-d}, ${VAR-d}, ${VAR:+alt}; a variable not known here counts as unset, except
    that an empty default (`${VAR-}`) stays unresolved: it marks a value the environment supplies."""
    val = env.get(part.text)
    if positional is not None and part.text.isdigit():  # `${3:-8000}` with the positional parameters known
        n = int(part.text)
        val = positional[n].text if n < len(positional) else None
    op = part.op
    if op and op in _EDIT_OPS:  # most expansions have no operator
        edited = None if val is None else _edited(str(val), op, part.default)
        return None if edited is None else (edited, None)
    use_default = op in (":-", ":=") and not val or op in ("-", "=") and val is None
    use_alt = op == ":+" and bool(val) or op == "+" and val is not None
    if use_default or use_alt:
        fields = _split_fields([s for d in part.default for s in _expand_part(d, m, env, positional)], m,
                              keep_empty=True)
        if any(not f.resolved for f in fields):
            return None
        text = " ".join(f.text for f in fields)
        if use_default and val is None and not text:
            return None  # `${X-}` on a variable this file never sets: its value comes at run time
        return text, None
    if op in (":+", "+"):
        return "", None
    return None if val is None else (val, None)


_EDIT_OPS = frozenset({"##", "#", "%%", "%", "//", "/#", "/%", "/"})
_MAX_EDITED = 4096


def _edited(value: str, op: str, given: tuple[Part, ...]) -> str | None:
    """bash's pattern edit of a known value (`${M##*/}`, `${M//\\//--}`), its pattern a glob of `*` and `?` (a
    backslash quoting the next character); None for a bracket class, whose reading is left to run time."""
    pattern = _glob(given[0].text) if given else None
    if pattern is None or len(value) > _MAX_EDITED:
        return None  # a value longer than any path or model name is no launch's: not scanned at every cut
    with_end = {"#": "", "##": "", "%": "$", "%%": "$", "/#": "", "/%": "$"}.get(op, "")
    greedy = op in ("##", "%%", "//", "/", "/#", "/%")
    if op in ("#", "##"):
        ends = [k for k in range(len(value) + 1) if re.fullmatch(pattern, value[:k], re.S)]
        return value if not ends else value[(max(ends) if greedy else min(ends)):]
    if op in ("%", "%%"):
        starts = [k for k in range(len(value) + 1) if re.fullmatch(pattern, value[k:], re.S)]
        return value if not starts else value[:(min(starts) if greedy else max(starts))]
    into = re.sub(r"\\(.)", r"\1", given[1].text) if len(given) > 1 else ""
    anchored = ("^" if op == "/#" else "") + f"(?:{pattern})" + with_end
    return re.sub(anchored, lambda _: into, value, count=0 if op == "//" else 1, flags=re.S)


def _glob(text: str) -> str | None:
    """A shell pattern as a regular expression (`*` any text, `?` one character, `\\x` the character x)."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "[":
            return None
        if ch == "\\" and i + 1 < len(text):
            i += 1
            out.append(re.escape(text[i]))
        else:
            out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
        i += 1
    return "".join(out) if out else None


def eval_arith(expr: str, env: Mapping[str, str]) -> int | None:
    """Shell arithmetic on known integers only (`$((A * B))`); None when anything is unknown.

    Walks the expression's syntax tree instead of evaluating it: only integers, + - * / % and
    parentheses are accepted, with shell semantics (integer division truncating toward zero).
    """

    def sub(mm: re.Match) -> str:
        v = env.get(mm.group(1))
        return v.strip() if v is not None and v.strip().lstrip("-").isdigit() else "\x00"

    text = _IDENT.sub(sub, expr)
    if "\x00" in text or not _ARITH_OK.match(text) or "**" in text or len(text) > 200:
        return None
    from kvlint.launches.arith import evaluate  # only for a `$((...))`: the rest never imports ast

    try:
        return evaluate(text.strip())
    except (ArithmeticError, SyntaxError, ValueError, RecursionError):
        return None


_IFS_MARKS = frozenset(",:;|/+=@.")  # separators an IFS is set to that read the same whatever the quoting


def _separators(ifs: str) -> str:
    """The characters an IFS value splits at, when it is punctuation read for sure (`IFS=,`, `IFS=:`); else the
    default blanks: `IFS=$'\n\t'` (ANSI-C quoting, which the readers keep as text) is not guessed at."""
    return ifs if ifs and set(ifs) <= _IFS_MARKS else " \t\n"


def _split_fields(segs: list, m: Mapped, keep_empty: bool = False, seps: str = " \t\n") -> list[Field]:
    """The fields the shell makes of a word's segments: an unquoted expansion split at `seps` (the script's IFS)."""
    fields: list[Field] = []
    chars: list[str] = []
    offs: list[int] = []
    ends: list[int] = []  # exclusive end of the source each char came from (a whole $VAR for an expansion)
    missing: list[str] = []
    origins: list[str] = []
    quoted = False

    def close() -> None:
        nonlocal quoted
        if chars or quoted or keep_empty:
            span = m.span(min(offs), max(ends)) if offs else None
            origin = "default-expansion" if "default-expansion" in origins else origins[0] if origins else ""
            fields.append(Field("".join(chars), span, not missing, tuple(missing), tuple(offs), m, origin))
        chars.clear()
        offs.clear()
        ends.clear()
        missing.clear()
        origins.clear()
        quoted = False

    for k, (text, offsets, splittable, is_quoted, miss, extent, origin) in enumerate(segs):
        quoted = quoted or is_quoted
        if miss:
            missing.append(miss)
        if k & 3 == 3:  # a check per four segments, none for a word of fewer (most are one segment: a check per
            limits.check()  # call was ~19,000 of a 1,000-file run's checks; the tokenizer checks as it goes too)
        if not splittable:  # nothing to split on: the whole text at once (a 5 MiB word is one C-speed step)
            n = min(len(text), len(offsets))
            if n:
                chars.append(text[:n])
                offs.extend(offsets[:n])
                ends.append(extent[1] if extent else max(offsets[:n]) + 1)
                if origin and origin not in origins:
                    origins.append(origin)
            if not text and offsets == [] and is_quoted:
                quoted = True
            continue
        for ch, off in zip(text, offsets, strict=False):
            if splittable and ch in seps:
                if chars:
                    close()
                continue
            chars.append(ch)
            offs.append(off)
            ends.append(extent[1] if extent else off + 1)
            if origin and origin not in origins:
                origins.append(origin)
        if not text and offsets == [] and is_quoted:
            quoted = True
    close()
    return fields
