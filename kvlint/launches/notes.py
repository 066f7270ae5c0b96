"""Notes files (`*.txt`): the commands a deployment repository keeps beside its manifests (`vllm.txt`, `commands.txt`,
a pasted terminal session), read as shell from each line that starts an engine.

What a demanding user expects decides the scope. A `.txt` in a deployment repository that holds `vllm serve ...` is
what its author runs, so it is walked and its findings are as real as a script's; a Markdown file is read from its
shell code blocks only (kvlint.launches.markdown), and an `.rst` is not walked. The walk stays cheap: a notes file
with no engine entry command (kvlint.launches.textfile's entry words: `vllm serve`, `sglang.launch_server`,
`vllm.entrypoints`, ...) costs one regular-expression scan, and requirements.txt (`vllm==0.9.2`) or a licence has
none.

Only the command itself is read, never the prose or client code around it: from the start of the line that names the
entry point (after a shell prompt such as `$ `, `user@host:~$ ` or `(venv) $ `) through its `\\` continuation lines.
Each command goes to `run_script` at the file's offsets, so every value keeps its line and column; environment
prefixes (`CUDA_VISIBLE_DEVICES=0 vllm serve ...`) are the shell's.
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.lazyre import lazy

# a repository's own wrapper named for an engine and for serving (`scripts/launch_vllm.py MODEL -- --tp 2`):
# kvlint.launches.byflags reads it when what follows is the engine's. Found from the engine's name (a scan for a
# literal), then the word around it: a pattern starting with a character class costs a 256 KiB data file a second
_ENGINE_WORD = lazy(r"vllm|sglang")
_SERVER_WORD = lazy(r"launch|serve|server|start")
_PROGRAM_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_MAX_ENGINE_WORDS = 256  # engine names looked at per text (a notes file names its wrapper early)


def _names_launcher_file(text: str) -> bool:
    """Whether the text names a program file named for an engine and for serving (`launch_vllm.py`)."""
    text = text.lower()
    if "vllm" not in text and "sglang" not in text:
        return False
    for k, m in enumerate(_ENGINE_WORD.finditer(text)):
        if k >= _MAX_ENGINE_WORDS:
            return False
        start, end = m.start(), m.end()
        while start > 0 and text[start - 1] in _PROGRAM_CHARS:
            start -= 1
        while end < len(text) and text[end] in _PROGRAM_CHARS:
            end += 1
        word = text[start:end]
        if word.endswith((".py", ".sh")) and _SERVER_WORD.search(word.replace(m.group(), " ")):
            return True
    return False


# what comes before a command on its line: indentation, a list item's bullet or number (a runbook's `- vllm serve M`,
# sample K127), a virtual environment's `(venv)`, a shell prompt (`user@host:~$ `, `# `) or a quote's `> `
_PROMPT = lazy(r"[ \t]*(?:(?:[-*+\u2022]|\d{1,2}[.)])[ \t]+(?=\S))?(?:\([^()\n]*\)[ \t]*)?"
               r"(?:[^\s$#]*[$#][ \t]+|>[ \t]+)?")


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds): the command lines, and the container runs of an engine
    image pasted as lines (`docker run --gpus all -e MODEL=M org/vllm:0.2.4`, sample K113's notes)."""
    from kvlint.launches.textfile import _ENTRY
    from kvlint.sources.comments import scan_comments

    if "```" in text and len(_FENCE_LINE.findall(text)) >= 2:
        # notes written in Markdown (sample K388's cheatsheet.txt: a bash block, then a compose service in a yaml
        # block): read as the document they are
        from kvlint.launches import markdown

        return markdown.read(path, text)
    runs = container_runs(text)
    if _ENTRY.search(text) is None and not _names_launcher_file(text) and not runs:
        return ReadResult(path)
    # a command line inside a container run's continuation (`rocm/vllm:latest \` then `  vllm serve $MODEL`, sample
    # K123) is that run's command: read once, with the run
    found = [c for c in commands(text) if not any(s < c[0] < e for s, e in runs)]
    found += [c for c in runs if not any(s <= c[0] < e for s, e in found)]
    return ReadResult(path, _lines_and_heredocs(path, text, found), comments=scan_comments(text))


def _lines_and_heredocs(path: str, text: str, found: list[tuple[int, int]]) -> list[Deployment]:
    """The launches of the command lines `found`, and of each here-document body the text pastes, read as a script
    reads them: a Python program fed to `python - <<'PY'` (sample K217's notes: `sys.argv = [...]` then
    `runpy.run_module(...)`), a script or manifest written to a file. A body's lines are no command lines."""
    from kvlint.launches.shellfile import heredoc_bodies, heredoc_launches
    from kvlint.launches.textfile import read_lines

    bodies = [(start, start + len(body)) for start, body, _ in heredoc_bodies(text)] if "<<" in text else []
    if not bodies:
        return read_lines(path, text, sorted(found))
    found = [c for c in found if not any(s <= c[0] < e for s, e in bodies)]
    return sorted([*read_lines(path, text, sorted(found)), *heredoc_launches(path, text)], key=_line)


def _line(dep: Deployment) -> int:
    span = dep.launch_span or dep.model_span
    return span.line if span is not None else 0


# a Markdown fence line (two make a fenced code block)
_FENCE_LINE = lazy(r"(?m)^[ \t]{0,3}```")
_RUN_LINE = lazy(r"(?m)^[ \t]*(?:sudo[ \t]+)?(?:docker|podman)[ \t]+(?:container[ \t]+)?run\b")


def container_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each `docker run` / `podman run` line, through its `\\` continuation lines, that names an
    engine: a container run pasted as plain lines (its engine is its image, which no entry word names)."""
    out: list[tuple[int, int]] = []
    for m in _RUN_LINE.finditer(text) if "run" in text else ():
        start = m.start() + len(m.group()) - len(m.group().lstrip())
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        while text[start:end].rstrip().endswith("\\") and end < len(text):
            nxt = text.find("\n", end + 1)
            end = len(text) if nxt < 0 else nxt
        if any(w in text[start:end].lower() for w in _ENGINE_WORDS):
            out.append((start, end))
    return out
_ENGINE_WORDS = ("vllm", "sglang")


def read_code(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """A program of a language kvlint has no reader for (a Jenkinsfile's `sh '...'`, `execSync("...")`, Go's
    `exec.Command("bash", "-c", "...")`): each command line, and each string on a line that holds a command (the
    engine's entry point inside quotes), read as shell at its place."""
    from kvlint.launches.textfile import _ENTRY
    from kvlint.sources.comments import scan_comments

    if _ENTRY.search(text) is None:
        return ReadResult(path)
    # inside a string of the program's language `\\` is one `\`: a script in a JavaScript template literal or a
    # Groovy `sh """..."""` continues its lines with `\\` then a newline (sample K283's SlurmUI job templates).
    # Rewritten in place (same length: every character keeps its column), the shell reads the continuation.
    text = _ESCAPED_CONTINUATION.sub(lambda _: " \\\n", text) if "\\\n" in text else text
    # Ruby's, Elixir's and CoffeeScript's interpolation `"... --served-model-name #{name} ..."` is a value the program
    # fills in, not a shell comment that would drop the rest of the line: read as `${name}`, at the same columns
    text = _INTERPOLATION.sub(r"$\1", text) if "#{" in text else text
    # a string of several command lines written with `\n` escapes (`code: "pip install sglang\npython -m
    # sglang.launch_server --model-path M ..."`, sample K467's TSX page): each escape ends a command, as `; ` does
    text = _NEWLINE_ESCAPE.sub("; ", text) if "\\n" in text else text
    return ReadResult(path, _lines_and_heredocs(path, text, commands(text, quoted=True)), comments=scan_comments(text))


_ESCAPED_CONTINUATION = lazy(r"(?<!\\)\\\\\n")  # exactly two backslashes, then the line's end
_INTERPOLATION = lazy(r"#(\{[^{}\n]*\})")
_NEWLINE_ESCAPE = lazy(r"(?<!\\)\\n")  # `\n` in a string, not an escaped backslash before an `n`


def _entry_continued(text: str, line_start: int, line: str) -> bool:
    """Whether a line continued with `\\` names the entry point on a continuation line (`docker exec -d CTR bash -lc
    \\` then `"vllm serve M \\`, sample K282's runbook): the command starts at this line."""
    from kvlint.launches.textfile import _ENTRY

    if not line.rstrip().endswith("\\"):
        return False
    end = _continued_end(text, line_start, line_start + len(line), _MAX_CONTINUED)
    return _ENTRY.search(text, line_start + len(line), end) is not None


def _continued_end(text: str, line_start: int, line_end: int, most: int | None = None) -> int:
    """Where a command that starts at `line_start` ends: the end of its last `\\`-continued line (`most` lines at
    the most)."""
    end, steps = line_end, 0
    while end < len(text) and text[line_start:end].rstrip().endswith("\\") and (most is None or steps < most):
        nxt = text.find("\n", end + 1)
        end = len(text) if nxt < 0 else nxt
        steps += 1
    return end


_SHOWN = lazy(r"(?i)\b(?:placeholder|example|hint|helper_?text)\s*[=:]\s*\{?\s*$")
_MAX_CONTINUED = 64  # continuation lines looked through for the entry point


def commands(text: str, quoted: bool = False) -> list[tuple[int, int]]:
    """(start, end) offsets of each command: a line naming an entry point that is not a comment, from after
    its prompt to the end of its last continuation line; with `quoted`, a line whose entry point sits inside a
    string gives that string's content instead (code calling a shell)."""
    from kvlint.launches.argv import names_wrapper
    from kvlint.launches.textfile import _ENTRY

    found: list[tuple[int, int]] = []
    line_start = 0
    wrapped = names_wrapper(text)  # a program that starts an engine under its own name (`paddlex_genai_server`)
    while line_start < len(text):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        line = text[line_start:line_end]
        if (_ENTRY.search(line) is None and not _names_launcher_file(line)
                and not _entry_continued(text, line_start, line)
                and not (wrapped and names_wrapper(line))) or line.lstrip().startswith("#"):
            line_start = line_end + 1
            continue
        inside = _quoted_command(line) if quoted else None
        if inside is not None and _SHOWN.search(line, 0, max(inside[0] - 1, 0)) is not None:
            line_start = line_end + 1  # an editor's placeholder (`placeholder={"vllm serve your-model ..."}`, sample
            continue  # K283's job form): text shown in an empty field, no command the program runs
        if inside is not None:
            found.append((line_start + inside[0], line_start + inside[1]))
            line_start = line_end + 1
            continue
        prompt = _PROMPT.match(line)
        start = line_start + (prompt.end() if prompt is not None else 0)
        end = _continued_end(text, line_start, line_end)
        if quoted:
            start, end = _in_open_string(text, line_start, line, start, end)
        found.append((start, end))
        line_start = end + 1
    return found


_MULTILINE_QUOTES = ("`", '"""', "'''")


def _in_open_string(text: str, line_start: int, line: str, start: int, end: int) -> tuple[int, int]:
    """A command a program writes in a string over several lines (a JavaScript template literal, a Groovy or Python
    triple-quoted string; turn 38's K335: Hugging Face's `const dockerCommand = `docker run ... \\` then `python3 -m
    sglang.launch_server ... --port 30000`;`): it starts after the string's opening quote when that quote opens on
    its first line and stays open, and ends before the quote that closes it (the program's `;` is no argument). A
    string opened on an earlier line is closed by the one quote of its kind the command holds unpaired."""
    from kvlint.launches.textfile import _ENTRY

    entry = _ENTRY.search(text, start, end)
    first = entry.start() if entry is not None else end
    for quote in _MULTILINE_QUOTES:
        opened = line.rfind(quote)
        if opened >= 0 and line.count(quote) % 2 == 1 and start <= line_start + opened < first:
            start = line_start + opened + len(quote)
            close = text.find(quote, start, end)
        else:
            close = text.find(quote, start, end) if text.count(quote, start, end) % 2 == 1 else -1
        if close >= 0:
            end = close
    return start, end


def _quoted_command(line: str) -> tuple[int, int] | None:
    """(start, end) of the string on the line that holds the entry point (`sh 'vllm serve m --tp 2'`), when the
    entry point is inside quotes: the nearest opening quote before it and its closing quote after."""
    from kvlint.launches.textfile import _ENTRY

    m = _ENTRY.search(line)
    if m is None:
        return None
    quote, opened = "", -1
    for k, c in enumerate(line[: m.start()]):
        if quote and c == quote and line[k - 1 : k] != "\\":
            quote, opened = "", -1
        elif not quote and c in "'\"`":
            quote, opened = c, k
    if not quote:
        return None
    close = line.find(quote, m.end())
    return (opened + 1, close if close >= 0 else len(line))
