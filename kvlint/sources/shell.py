"""An offset-keeping shell tokenizer: commands and words, each word knowing where it came from.

Only the parts of POSIX shell that launch scripts use: quoting, `\\` continuations, comments,
`;`, `&`, `&&`, `||`, `|`, redirections, here-documents, and `$VAR` / `${VAR:-d}` / `$(..)` /
`$((..))` kept as parts so they can be expanded later with whatever variables are known.
"""

from __future__ import annotations

import re

from kvlint import limits
from kvlint.lazyre import lazy
from kvlint.record import field, record
from kvlint.sources.templates import closing
from kvlint.sources.text import Mapped

_META = " \t\n;&|()<>"
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
MAX_DEFAULT_DEPTH = 4  # `${A:-${B:-x}}` nests two; each level re-reads the rest of the text, so deeper is kept raw
MAX_WORD = 131072  # Linux's MAX_ARG_STRLEN: execve refuses a longer argument (E2BIG), so no engine receives it


@record
class Part:
    """A piece of a word: literal text (with each char's offset) or an expansion kept unexpanded."""

    kind: str  # "lit" | "var" | "cmd" | "arith" | "tick" | "special"
    text: str  # literal text, variable name, or the inner text of $(..) / $((..)) / `..`
    quoted: bool  # inside single/double quotes: no field splitting
    offsets: tuple[int, ...] = ()  # lit: offset per char; others: (start, end)
    op: str = ""  # var: "", ":-", "-", ":=", "=", ":+", "+", or "?" forms
    default: tuple[Part, ...] = ()  # var: parts of the default word


@record
class Word:
    parts: tuple[Part, ...]
    start: int
    end: int
    elements: tuple[Word, ...] | None = None  # `NAME=( ... )` / `NAME+=( ... )`: the array's words

    @property
    def literal(self) -> str | None:
        """The word's text when it has no expansions at all."""
        text = ""  # a loop, not generators: asked ~30,000 times a run, mostly of one part
        for p in self.parts:
            if p.kind != "lit":
                return None
            text += p.text
        return text

    @property
    def raw_quoted(self) -> bool:
        return any(p.quoted for p in self.parts)


@record
class Command:
    words: tuple[Word, ...]
    sep: str  # what ended it: "\n", ";", "&", "&&", "||", "|", "(", ")", "" (end of text)
    after_comment: bool = False  # a comment ended the previous line of this command's text
    heredocs: tuple[str, ...] = field(default=(), compare=False)


class _Scanner:
    def __init__(self, m: Mapped, depth: int = 0):
        self.s = m.text
        self.n = len(m.text)
        self.i = 0
        self.errors: list[tuple[int, str]] = []
        self.depth = depth  # ${VAR:-${...}} defaults read inside this one
        self.last_close = m.text.rfind("}}")  # no `{{` after it can close: never search for one again

    def peek(self, k: int = 0) -> str:
        """The character k ahead, or NUL past the end (never "", which `in` would always match)."""
        j = self.i + k
        return self.s[j] if j < self.n else "\x00"


_CHECK_STEPS = 4  # tokenize's steps (a blank, a word, an operator) per limits.check: ~70,000 checks a 1,000-file run


def tokenize(m: Mapped) -> tuple[list[Command], list[tuple[int, str]]]:
    """Split shell text into commands. Returns (commands, errors as (offset, message))."""
    sc = _Scanner(m)
    commands: list[Command] = []
    words: list[Word] = []
    pending_heredocs: list[tuple[str, bool]] = []
    comment_before = False

    def finish(sep: str) -> None:
        nonlocal words
        if words:
            commands.append(Command(tuple(words), sep, comment_before))
        words = []

    steps = 0
    while sc.i < sc.n:
        steps += 1
        if not steps % _CHECK_STEPS:  # a step is bounded work (a word checks its own length as it goes)
            limits.check()
        c = sc.s[sc.i]
        if c in " \t\r":
            sc.i += 1
        elif c == "\\" and sc.peek(1) == "\n":
            sc.i += 2
        elif c == "\n":
            finish("\n")
            sc.i += 1
            comment_before = False
            if pending_heredocs:
                _skip_heredocs(sc, pending_heredocs)
                pending_heredocs = []
        elif c == "#":
            end = sc.s.find("\n", sc.i)
            sc.i = sc.n if end < 0 else end
            comment_before = bool(words) or comment_before
            if words:
                finish("#")
        elif sc.s.startswith("&&", sc.i) or sc.s.startswith("||", sc.i):
            finish(sc.s[sc.i : sc.i + 2])
            sc.i += 2
        elif c == "(" and words and words[-1].end == sc.i and _assigns(words[-1]):
            words[-1] = _array(sc, words[-1])
        elif c == "(" and sc.peek(1) == "(" and not words_in_progress(sc):
            # an arithmetic command (`(( n++ ))`, a C-style `for ((i=N; i>=1; i--))`): one word, its `;` and `=`
            # the arithmetic's, never a command separator or an assignment (sample K72: `i=GPUS_PER_NODE` read as one)
            end = _close(sc.s, sc.i + 2, "(", ")")
            end = end + 1 if end + 1 < sc.n and sc.s[end + 1] == ")" else end
            words.append(Word((Part("arith", sc.s[sc.i + 2 : max(end - 1, sc.i + 2)], False, (sc.i, end + 1)),),
                              sc.i, end + 1))
            sc.i = end + 1
        elif c in ";&|()":
            finish(c)  # `)` ends a subshell or a `case` pattern (`chat)`): kvlint.launches.script tells which
            sc.i += 1
        elif c == "<" and (held := _placeholder_at(sc, words)) is not None:
            # `--model <model_name>`, `CUDA_VISIBLE_DEVICES=<gpu_id>`: a placeholder the reader fills in, not two
            # redirections
            end = held
            part = Part("lit", sc.s[sc.i : end], False, tuple(range(sc.i, end)))
            if words_in_progress(sc):
                words[-1] = Word((*words[-1].parts, part), words[-1].start, end)
            else:
                words.append(Word((part,), sc.i, end))
            sc.i = end
        elif c in "<>" or (c.isdigit() and sc.peek(1) in "<>" and not words_in_progress(sc)):
            heredoc = _skip_redirection(sc)
            if heredoc:
                pending_heredocs.append(heredoc)
        else:
            word = _word(sc)
            if words and words[-1].end == word.start and _ends_in_placeholder(words[-1]):
                # `<weights>:/weights:ro`: the word goes on after its placeholder
                words[-1] = Word((*words[-1].parts, *word.parts), words[-1].start, word.end)
            elif not _comment_only(word):
                words.append(word)
    finish("")
    return commands, sc.errors


def _placeholder_at(sc: _Scanner, words: list[Word]) -> int | None:
    """The end of a placeholder at `<` (see the branch that calls it), else None. An option's value written as words
    in angle brackets (`--tensor-parallel-size <num of GPUs per node>`, sample K420's runbook) is one placeholder
    too: after an option only, and of words alone (no `.` or `/`: `sort <in.txt 2>/dev/null` stays redirections)."""
    found = _PLACEHOLDER.match(sc.s, sc.i)
    if found is not None and (not words_in_progress(sc) or _assigned(words, sc.i) or sc.s[sc.i - 1] in ":/"):
        return found.end()
    if found is None and not words_in_progress(sc) and words and words[-1].literal is not None \
            and words[-1].literal.startswith("-") and (spaced := _SPACED_PLACEHOLDER.match(sc.s, sc.i)) is not None:
        return spaced.end()
    return None


def _ends_in_placeholder(word: Word) -> bool:
    last = word.parts[-1] if word.parts else None
    return last is not None and last.kind == "lit" and last.text.endswith(">") and "<" in last.text


def _comment_only(word: Word) -> bool:
    """`` `# a note` `` on a continuation line: an unquoted command substitution that runs only a comment
    expands to nothing, so the shell drops the word (a documented idiom for commenting each flag)."""
    parts = word.parts
    if not parts or parts[0].kind != "tick":  # nearly every word: no generator for it
        return False
    return all(p.kind == "tick" and not p.quoted and p.text.lstrip().startswith("#") for p in parts)


def _assigns(word: Word) -> bool:
    """`NAME=` or `NAME+=` right before a `(`: a bash array assignment follows."""
    text = word.literal or ""
    return text.endswith("=") and text.rstrip("+=").replace("_", "a").isalnum() and not text[0].isdigit()


MAX_ELEMENTS = 4096  # words of one array literal read; an argv is never longer


def _array(sc: _Scanner, head: Word) -> Word:
    """`NAME=( w1 w2 ... )` across lines and comments: the assignment word carrying the array's words."""
    sc.i += 1
    elements: list[Word] = []
    while sc.i < sc.n and len(elements) < MAX_ELEMENTS:
        limits.check()
        c = sc.s[sc.i]
        if c == ")":
            sc.i += 1
            break
        if c in " \t\r\n" or (c == "\\" and sc.peek(1) == "\n"):
            sc.i += 1 if c != "\\" else 2
        elif c == "#":
            end = sc.s.find("\n", sc.i)
            sc.i = sc.n if end < 0 else end
        else:
            w = _word(sc)
            if w.end == w.start:  # a metacharacter the array has no use for
                sc.i += 1
            else:
                elements.append(w)
    return Word(head.parts, head.start, sc.i, tuple(elements))


def _assigned(words: list[Word], at: int) -> bool:
    """Whether the word just before `at` ends in `=` there (`NAME=<value>`, `--flag=<value>`): a placeholder value."""
    last = words[-1] if words else None
    return last is not None and last.end == at and bool(last.parts) and last.parts[-1].kind == "lit" and \
        last.parts[-1].text.endswith("=")


def words_in_progress(sc: _Scanner) -> bool:
    return sc.i > 0 and sc.s[sc.i - 1] not in _META


def _skip_redirection(sc: _Scanner) -> tuple[str, bool] | None:
    """Consume a redirection and its target; return a here-document delimiter to skip later."""
    while sc.i < sc.n and sc.s[sc.i].isdigit():
        sc.i += 1
    op_start = sc.i
    while sc.i < sc.n and sc.s[sc.i] in "<>&-|":
        sc.i += 1
    op = sc.s[op_start : sc.i]
    if op.endswith("&") and sc.peek().isdigit():
        sc.i += 1
        return None
    while sc.i < sc.n and sc.s[sc.i] in " \t":
        sc.i += 1
    if sc.i >= sc.n or sc.s[sc.i] in "\n;&|":
        return None
    target = _word(sc)
    if op.startswith("<<") and not op.startswith("<<<"):
        delim = "".join(p.text for p in target.parts)
        return delim, op.startswith("<<-")
    return None


def _skip_heredocs(sc: _Scanner, pending: list[tuple[str, bool]]) -> None:
    """Past each here-document's lines. One never closed (sample K245: `cat >"$LOG" <<EOF` then the server's
    `docker run`, and no `EOF` line) takes every line to the end of the file: bash writes them and runs none. Its
    lines are read as the commands they were meant as, and the open here-document is said."""
    for delim, strip_tabs in pending:
        start = sc.i
        while sc.i < sc.n:
            end = sc.s.find("\n", sc.i)
            line = sc.s[sc.i : sc.n if end < 0 else end]
            sc.i = sc.n if end < 0 else end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delim:
                break
        else:
            sc.errors.append((start, f"the here-document opened on the line before is never closed (no `{delim}` "
                                     "line): bash writes every line after it into its target and runs none of them; "
                                     "they are read here as the commands they were meant as"))
            sc.i = start
            return


# (a mount's or a port's piece goes on after it: `-v <weights>:/weights:ro`, `-p 127.0.0.1:<port>:8000`, sample K245)
_PLACEHOLDER = lazy(r"<[A-Za-z][A-Za-z0-9_.:/-]*>(?=[ \t\n\\;&|):/]|$)")
_SPACED_PLACEHOLDER = lazy(r"<[\"']?[A-Za-z][A-Za-z0-9_'\"-]*(?: [A-Za-z0-9_'\"-]+)+>(?=[ \t\n\\;&|)]|$)")
_PLAIN_RUN = lazy(r"[^ \t\n;&|()<>\\'\"{$`]+")  # word characters with no meaning to the shell
_DOUBLE_RUN = lazy(r"[^\\\"$`]+")  # inside double quotes
CHECK_EVERY = 4096  # characters between two looks at the file's time budget


class _Literal:
    """The literal text of a word being read, kept as one part while the quoting stays the same (`"a""b"`
    and a million `""` are each one part: the same meaning, and memory and time stay linear)."""

    def __init__(self, parts: list[Part]):
        self.parts = parts
        self.text: list[str] = []
        self.offs: list[int] = []
        self.quoted: bool | None = None  # None: nothing held

    def add(self, text: str, offsets: range | tuple[int, ...] | list[int], quoted: bool) -> None:
        if self.quoted is not None and self.quoted != quoted:
            self.flush()
        self.quoted = quoted
        self.text.append(text)
        self.offs.extend(offsets)

    def flush(self) -> None:
        if self.quoted is not None:  # an empty quoted literal ("") is still an argument
            self.parts.append(Part("lit", "".join(self.text), self.quoted, tuple(self.offs)))
        self.text, self.offs, self.quoted = [], [], None


def _word(sc: _Scanner) -> Word:
    start = sc.i
    parts: list[Part] = []
    lit = _Literal(parts)
    next_check = sc.i + CHECK_EVERY
    while sc.i < sc.n:
        if sc.i >= next_check:
            limits.check()
            _word_length(sc.i - start)
            next_check = sc.i + CHECK_EVERY
        c = sc.s[sc.i]
        if c in _META:
            break
        run = _PLAIN_RUN.match(sc.s, sc.i)
        if run is not None:
            _word_length(run.end() - start)
            lit.add(run.group(), range(sc.i, run.end()), False)
            sc.i = run.end()
        elif c == "\\":
            if sc.peek(1) == "\n":
                sc.i += 2
                continue
            if sc.i + 1 < sc.n:
                lit.add(sc.s[sc.i + 1], (sc.i + 1,), False)
            sc.i += 2
        elif c == "'" or (c == "$" and sc.peek(1) == "'"):
            single = _single(sc, ansi=c == "$")
            lit.add(single.text, single.offsets, True)
        elif c == '"':
            for part in _double(sc):
                if part.kind == "lit":
                    lit.add(part.text, part.offsets, True)
                else:
                    lit.flush()
                    parts.append(part)
        elif c == "{" and sc.peek(1) == "{" and sc.last_close >= sc.i + 2:
            # a Go/Helm template is rendered before any shell sees the line: one word, spaces and all
            close = closing(sc.s, sc.i)  # `{{ "}}" }}` is one action (kvlint.sources.templates.closing)
            close = close if close >= 0 else sc.s.find("}}", sc.i + 2)
            _word_length(close + 2 - start)
            lit.add(sc.s[sc.i : close + 2], range(sc.i, close + 2), False)
            sc.i = close + 2
        elif c == "$" or c == "`":
            exp = _expansion(sc, quoted=False)
            if exp is None:
                lit.add(c, (sc.i,), False)
                sc.i += 1
            else:
                lit.flush()
                parts.append(exp)
        else:  # a lone `{`
            lit.add(c, (sc.i,), False)
            sc.i += 1
    lit.flush()
    _word_length(sc.i - start)  # an unterminated `$(` or `${` swallows the rest of the text into one word
    return Word(tuple(parts), start, sc.i)


def _word_length(n: int) -> None:
    """A word longer than any argument a program can receive stops the file (its offsets alone would take
    36 bytes a character)."""
    if n > MAX_WORD:
        raise limits.LimitExceeded(f"a shell word of over {MAX_WORD:,} characters: longer than any argument a "
                                   "program can receive (Linux MAX_ARG_STRLEN); not read")


def _single(sc: _Scanner, ansi: bool) -> Part:
    sc.i += 2 if ansi else 1
    if not ansi:  # no escapes at all: up to the next quote in one step
        end = sc.s.find("'", sc.i)
        end = sc.n if end < 0 else end
        _word_length(end - sc.i)
        part = Part("lit", sc.s[sc.i : end], True, tuple(range(sc.i, end)))
        sc.i = end
    else:
        chars: list[str] = []
        offs: list[int] = []
        while sc.i < sc.n and sc.s[sc.i] != "'":
            _word_length(len(chars))
            if sc.s[sc.i] == "\\" and sc.i + 1 < sc.n:
                sc.i += 1
            chars.append(sc.s[sc.i])
            offs.append(sc.i)
            sc.i += 1
        part = Part("lit", "".join(chars), True, tuple(offs))
    if sc.i >= sc.n:
        sc.errors.append((sc.i, "unterminated single quote"))
    sc.i += 1
    limits.check()
    return part


def _double(sc: _Scanner) -> list[Part]:
    sc.i += 1
    parts: list[Part] = []
    chars: list[str] = []
    offs: list[int] = []
    next_check, begin = sc.i + CHECK_EVERY, sc.i
    while sc.i < sc.n and sc.s[sc.i] != '"':
        if sc.i >= next_check:
            limits.check()
            _word_length(sc.i - begin)
            next_check = sc.i + CHECK_EVERY
        c = sc.s[sc.i]
        run = _DOUBLE_RUN.match(sc.s, sc.i)
        if run is not None:
            _word_length(run.end() - begin)
            chars.append(run.group())
            offs.extend(range(sc.i, run.end()))
            sc.i = run.end()
            continue
        if c == "\\" and sc.peek(1) in '$`"\\\n':
            if sc.peek(1) != "\n":
                chars.append(sc.s[sc.i + 1])
                offs.append(sc.i + 1)
            sc.i += 2
            continue
        exp = _expansion(sc, quoted=True) if c in "$`" else None
        if exp is None:
            chars.append(c)
            offs.append(sc.i)
            sc.i += 1
            continue
        if chars:
            parts.append(Part("lit", "".join(chars), True, tuple(offs)))
            chars, offs = [], []
        parts.append(exp)
    if sc.i >= sc.n:
        sc.errors.append((sc.i, "unterminated double quote"))
    sc.i += 1
    if chars or not parts:
        parts.append(Part("lit", "".join(chars), True, tuple(offs)))
    return parts


def _expansion(sc: _Scanner, quoted: bool) -> Part | None:
    s, i = sc.s, sc.i
    if s[i] == "`":
        end = _close(s, i + 1, "`", "`")
        sc.i = end + 1
        return Part("tick", s[i + 1 : end], quoted, (i, sc.i))
    nxt = s[i + 1] if i + 1 < sc.n else ""
    if s.startswith("$((", i):
        end = _close(s, i + 3, "(", ")")
        end2 = end + 1 if end + 1 < sc.n and s[end + 1] == ")" else end
        sc.i = end2 + 1
        return Part("arith", s[i + 3 : end], quoted, (i, sc.i))
    if nxt == "(":
        end = _close(s, i + 2, "(", ")")
        sc.i = end + 1
        return Part("cmd", s[i + 2 : end], quoted, (i, sc.i))
    if nxt == "{":
        end = _close(s, i + 2, "{", "}", text_quote=quoted)
        sc.i = end + 1  # an unterminated `${` is not read as a default (the shell refuses it too)
        return _braced(s[i + 2 : end], i + 2, quoted, (i, sc.i), sc.depth if end < sc.n else MAX_DEFAULT_DEPTH)
    if nxt and (nxt.isalpha() or nxt == "_"):
        j = i + 1
        while j < sc.n and s[j] in _NAME_CHARS:
            j += 1
        sc.i = j
        return Part("var", s[i + 1 : j], quoted, (i, j))
    if nxt and nxt in "0123456789@*#?$!-":
        sc.i = i + 2
        return Part("special", s[i : i + 2], quoted, (i, i + 2))
    return None


def _braced(inner: str, base: int, quoted: bool, offs: tuple[int, int], depth: int = 0) -> Part:
    j = 0
    while j < len(inner) and inner[j] in _NAME_CHARS:
        j += 1
    name, rest = inner[:j], inner[j:]
    for op in (":-", ":=", ":+", ":?", "-", "=", "+", "?"):
        if rest.startswith(op) and name and depth < MAX_DEFAULT_DEPTH:
            sub = _Scanner(Mapped("", rest[len(op) :]), depth + 1)
            parts = _word_until_end(sub, base + j + len(op))
            return Part("var", name, quoted, offs, op, parts)
    edit = _edit(rest, base + j) if name and rest else None
    if edit is not None:
        return Part("var", name, quoted, offs, edit[0], edit[1])
    if rest or not name:
        return Part("special", "${" + inner + "}", quoted, offs)
    return Part("var", name, quoted, offs)


# bash's pattern edits of a value: `${M##*/}` (the longest `*/` off the front: a path's last part), `${M%/}`,
# `${MODEL//\//--}` (each `/` made `--`: the Hub cache's folder name, sample K498); longest operators first
_EDIT_OPS = ("##", "#", "%%", "%", "//", "/#", "/%", "/")


def _edit(rest: str, at: int) -> tuple[str, tuple[Part, ...]] | None:
    """(operator, (pattern[, replacement])) of a `${NAME<op>...}` pattern edit written in plain text (a backslash
    quoting the next character); None for anything else (an expansion or a quote in it: left as written)."""
    op = next((o for o in _EDIT_OPS if rest.startswith(o)), None)
    if op is None:
        return None
    body, k = rest[len(op):], at + len(op)
    pieces: list[tuple[str, list[int]]] = [("", [])]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch in "$`'\"" or (ch == "\\" and i + 1 >= len(body)):
            return None
        if ch == "\\":
            i += 1
            text, offs = pieces[-1]
            pieces[-1] = (text + "\\" + body[i], [*offs, k + i - 1, k + i])
        elif ch == "/" and op.startswith("/") and len(pieces) == 1:
            pieces.append(("", []))
        else:
            text, offs = pieces[-1]
            pieces[-1] = (text + ch, [*offs, k + i])
        i += 1
    if not op.startswith("/") and len(pieces) > 1:
        return None
    return op, tuple(Part("lit", text, True, tuple(offs)) for text, offs in pieces)


def _word_until_end(sc: _Scanner, shift: int) -> tuple[Part, ...]:
    """A ${VAR:-default} default: quotes and expansions apply, spaces do not split."""
    parts: list[Part] = []
    while sc.i < sc.n:
        if sc.s[sc.i] in " \t\n":
            parts.append(Part("lit", sc.s[sc.i], True, (sc.i,)))
            sc.i += 1
            continue
        w = _word(sc)
        if sc.i < sc.n and sc.s[sc.i] in _META and w.start == sc.i:
            parts.append(Part("lit", sc.s[sc.i], True, (sc.i,)))
            sc.i += 1
        parts.extend(w.parts)
    return tuple(_shift(p, shift) for p in parts)


def _shift(p: Part, by: int) -> Part:
    offsets = tuple(o + by for o in p.offsets)
    return Part(p.kind, p.text, p.quoted, offsets, p.op, tuple(_shift(d, by) for d in p.default))


_CLOSE_STOPS = {pair: re.compile("[" + re.escape("\\'" + ('"' if pair != "``" else "") + pair[0] + pair[1]) + "]")
                for pair in ("()", "{}", "``")}
_DOUBLE_STOPS = re.compile(r'[\\"$`]')


def _close(s: str, i: int, opener: str, closer: str, text_quote: bool = False) -> int:
    """Index of the matching closer, skipping quoted text; len(s) when unterminated.

    `text_quote`: a `${...}` inside double quotes, where a single quote is text as POSIX sh reads it
    (`: "${HOST_IP:?set this rank's IP}"`, sample K406: bash 5.2 looks for a closing quote to the file's end and
    fails; dash and the script's author read it as an apostrophe, and a linter reads on).

    Jumps from one character that matters (a backslash, a quote, an opener, a closer) to the next, so a
    long `$( ...` costs one pass at the regex engine's speed.
    """
    depth, n = 1, len(s)
    stops = _CLOSE_STOPS[opener + closer]
    steps = 0
    while i < n:
        steps += 1
        if not steps & 0xFFF:
            limits.check()
        m = stops.search(s, i)
        if m is None:
            return n
        i = m.start()
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and opener != "`" and not text_quote:
            j = s.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == "'":
            i += 1
            continue
        if c == '"':  # `$(grep "a \\(b" f)`: a parenthesis inside double quotes is text, not a closer
            i = _after_double(s, i + 1)
            continue
        if c == closer and (opener == closer or depth == 1):
            return i
        if c == opener and opener != closer:
            # inside `${...}` only a `${` nests: bash reads `${X:-{a\}}` as `{a}` and `${X:-a{b}c}` as `a{b` + `c}`
            depth += 1 if opener != "{" or (i > 0 and s[i - 1] == "$") else 0
        elif c == closer:
            depth -= 1
        i += 1
    return n


def _after_double(s: str, i: int) -> int:
    """Index after the double quote that closes the string opened before `i` (len(s) when unterminated): its
    `\\` escapes, and a `$(...)` or `` `...` `` inside it (whose own quotes nest), skipped whole."""
    n = len(s)
    while i < n:
        m = _DOUBLE_STOPS.search(s, i)
        if m is None:
            return n
        i = m.start()
        c = s[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "`":
            i = _close(s, i + 1, "`", "`") + 1
        elif s.startswith("$(", i):
            i = _close(s, i + 2, "(", ")") + 1
        else:
            i += 1
    return n
