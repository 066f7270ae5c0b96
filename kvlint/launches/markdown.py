"""Markdown runbooks (`docs/deploy.md`, `VLLM.md`, a README's "how to serve"): the commands they hold.

A deployment repository's Markdown holds the commands its operators paste: the held-out samples' collectors count
them (counting rule 4: a notes file with alternative commands counts one each), and a linter that passes them over
says they are fine. Read: the fenced blocks a shell runs (```` ``` ````, ```` ```bash ````, ```` ```console ````,
`~~~sh`, ...) together as one script, everything else blanked, so a variable set in one block is known in the next
(a runbook is one session) and every value keeps its line and column (a `$ ` prompt is the shell's:
kvlint.launches.script); PowerShell blocks together, by the PowerShell reader; YAML blocks that name an engine, each
alone as the manifest or compose file it shows (one YAML refuses is an excerpt: passed over); unit and program files
(```` ```ini ````: a systemd `ExecStart=`, a supervisor `command=`) by the text files' reader; and outside the fences,
command lines that start with the engine's program or a container run (an indented block, a pasted command), read as
a notes file's are, and inline code spans that are a whole engine command alone in a table cell or on their line (a
quick-reference table). Prose is never read, and a prose mention of an engine is no place for the never-silent net
(kvlint.launches.named looks at the blocks only). `<!-- kvlint: disable-file why -->` is the file's suppression
(kvlint.suppress).
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_left
from collections.abc import Callable
from functools import lru_cache

from kvlint.deployment import Deployment
from kvlint.findings import Finding
from kvlint.launches import ReadResult
from kvlint.launches.env import Field
from kvlint.launches.groups import one_per_group
from kvlint.lazyre import lazy, lazy_built
from kvlint.record import replace
from kvlint.span import Span

# a fence line (CommonMark: a backtick fence's info string holds no backtick, so ```` ```cmd``` ```` is a code span),
# also one that opens a list item (`  - ```bash`: its closing fence is indented as the item's content, sample K194)
_FENCE = lazy(r"^([ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)(`{3,}(?=[^`\n]*$)|~{3,})[ \t]*([^\s`{]*)[^\n]*$", re.M)
# info strings of blocks a shell runs; an unlabelled block is a command as often as not
_SHELL_INFO = frozenset({"", "bash", "sh", "shell", "zsh", "console", "shell-session", "sh-session", "shellsession",
                         "terminal", "text", "txt", "plaintext", "cmd", "command", "commandline", "ksh", "session",
                         "code", "shellscript", "script", "none"})
_NOT_NEWLINE = lazy(r"[^\n]")
_YAML_INFO = frozenset({"yaml", "yml"})
_JSON_INFO = frozenset({"json", "jsonc", "json5"})
# a block with no language (or plain text) drawn with box-drawing characters is a diagram of processes or folders
_PLAIN_INFO = frozenset({"", "text", "txt", "plaintext", "none"})
_DIAGRAM = lazy("[\u2500-\u257f]")
_PS_INFO = frozenset({"powershell", "ps1", "pwsh", "ps"})
# a unit, supervisor program or INI file a runbook shows: its `ExecStart=` / `command=` line starts the engine
_UNIT_INFO = frozenset({"ini", "dosini", "systemd", "service", "conf", "cfg", "supervisor", "supervisord", "toml",
                        "properties", "unit"})
# the engines' names, and a kind whose operator starts an engine it need not name (KServe's LLMInferenceService runs
# vLLM: sample K276's runbook applies one in a here-document, naming no engine anywhere)
_WORDS = ("vllm", "sglang", "llminferenceservice")
NOTE = "a command of a Markdown runbook (its code blocks and command lines; the prose is not read)"


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.launches.named import passed_over

    low = text.lower()
    if not any(w in low for w in _WORDS):
        return ReadResult(path)
    text = _without_html_comments(text) if "<!--" in text else text
    # a page pasted from a web editor writes its blanks as no-break spaces (sample K356's article:
    # `python3\u00a0-m\u00a0sglang.launch_server`): in a document they are the blanks a reader sees, one character
    # each, so every place stays
    text = text.replace("\u00a0", " ") if "\u00a0" in text else text
    script = shell_blocks(text)
    others = _yaml_launches(path, text) + _json_launches(path, text) + _powershell_launches(path, text) \
        + _unit_launches(path, text) + _python_launches(path, text) + _dockerfile_launches(path, text) \
        + _unfenced_launches(path, text) + _makefile_launches(path, text)
    if not others and not any(w in script.lower() for w in _WORDS):
        # code blocks that name no engine in a document that does: a server program of its own may start it
        # (`python -m api_server --model M` under "Start the vLLM inference server", sample K206): said, not passed
        hinted = _SERVER_HINT.search(script) or ("--gpus" in script and _CONTAINER_RUN.search(script)) \
            or "dynamo serve" in script  # Dynamo's graph of the document's engine workers (named.py)
        note = passed_over(path, script, "shell", named=True) if hinted else None
        note = note or _python_place(path, text) or _yaml_place(path, text)
        return ReadResult(path, [], [note] if note is not None else [])
    result = read_wrapped(path, script)
    deployments = [_placeholders_left(replace(d, notes=(*d.notes, NOTE))) for d in [*result.deployments, *others]]
    if "-smi" in text or "neuron-" in text:
        from kvlint.launches.shellfile import with_said_device

        deployments = with_said_device(deployments, script)  # a runbook whose blocks run the device's own tool
    deployments.sort(key=_place)
    # a runbook's "Node 0" and "Node 1" blocks (sample K460: `--nnodes 2 --node-rank 0|1`, one rendezvous) are the ranks
    # of one deployment, as a script's rank branches are
    deployments = one_per_group(deployments)
    deployments = _named_only(deployments, text)
    findings = list(result.findings)
    if not deployments and not any(f.code == "KV008" for f in findings):
        note = passed_over(path, script, "shell", named=True)  # the document names an engine (tested above)
        note = note or _python_place(path, text) or _yaml_place(path, text)
        findings += [note] if note is not None else []
    return ReadResult(path, deployments, findings, comments=result.comments)


# a line that starts one of these starts a command of its own: never the value of a wrapped option
_COMMAND_WORDS = frozenset({"curl", "wget", "python", "python3", "pip", "pip3", "docker", "podman", "kubectl", "helm",
                            "export", "cd", "echo", "source", "vllm", "sglang", "bash", "sh", "git", "sudo", "nohup",
                            "cat", "ls", "mkdir", "rm", "cp", "mv", "huggingface-cli", "hf", "uv", "conda", "make",
                            "exec", "set", "if", "for", "while", "then", "fi", "done", "else", "sleep", "wait", "kill"})
_SERVER_HINT = lazy(r"(?:api|start|launch|run)[-_]?serv(?:er|ing)\b")
# a container run (on GPUs, tested beside it): its image may be a placeholder (`<image>`) or a variable
_CONTAINER_RUN = lazy(r"\b(?:docker|podman)[ \t]+(?:container[ \t]+)?run\b")
_OPTION_AT_END = lazy(r"(?<=[ \t])(--?[A-Za-z][\w-]*)[ \t]*$")


def read_wrapped(path: str, script: str) -> ReadResult:
    """A document's script read as a shell script, its wrapped commands joined (`wrapped_joined`), every position
    given on the document's own lines."""
    from kvlint.launches import shellfile
    from kvlint.launches.terraform_helm import remap_spans
    from kvlint.sources.comments import scan_comments
    from kvlint.sources.text import LineIndex

    script = _powershell_continuations(script)
    joined = wrapped_joined(script)
    result = shellfile.read(path, joined)
    if joined is script:
        return result
    seen, own = LineIndex(joined), LineIndex(script)

    def move(span: Span) -> Span:
        if span.path != path:
            return span
        first, last = seen.offset(span.line, span.col), seen.offset(span.end_line, span.end_col)
        (line, col), (end_line, end_col) = own.locate(first), own.locate(max(last, first))
        return Span(path, line, col, end_line, end_col)

    return ReadResult(path, remap_spans(result.deployments, move), remap_spans(result.findings, move),
                      comments=scan_comments(script))


# a line a document's shell block ends with PowerShell's continuation (` `` ` ` after a blank): a Windows variant
# written in a bash fence (sample K256: `uv pip install ... \`` lines under `# Windows PowerShell`)
_PS_CONTINUED = lazy(r"(?<=[ \t])`(?=[ \t]*$)", re.MULTILINE)


def _powershell_continuations(script: str) -> str:
    """The document's script with each PowerShell continuation backtick read as bash's `\\` (one character for one:
    every position stays): in bash a lone backtick opens a command substitution that swallows the blocks after it,
    their launches with it. The command's quoted JSON is read as PowerShell hands it on (`_native_quotes`)."""
    if "`" not in script:
        return script
    out = _PS_CONTINUED.sub("\\\\", script)
    return _native_quotes(script, out) if out != script and '\\"' in script else out


# a single-quoted word whose every backslash escapes a quote, with nothing a shell's double quotes would expand
_NATIVE_QUOTED = lazy(r"'((?:[^'\\\n$`]|\\\")*\\\"(?:[^'\\\n$`]|\\\")*)'")


def _native_quotes(script: str, out: str) -> str:
    """The PowerShell command's `'{\\"method\\":\\"mtp\\"}'` (sample K456's Windows recipe, written in an `sh` fence): a
    single-quoted PowerShell string keeps its backslashes, and a native program (docker) reads each `\\"` of its
    command line as a quote, so the engine is handed `{"method":"mtp"}`. Bash's single quotes would keep the
    backslashes, so on the lines of a continued PowerShell command (its backticks as written in `script`) the word of
    `out` is read in double quotes, where bash reads `\\"` as `"` too: one character for one, every position stays."""
    lines = out.split("\n")
    continued = False
    for k, written in enumerate(script.split("\n")):
        ps = continued or _PS_CONTINUED.search(written) is not None
        continued = _PS_CONTINUED.search(written) is not None
        if ps and '\\"' in written:
            lines[k] = _NATIVE_QUOTED.sub(lambda m: f'"{m.group(1)}"', lines[k])
    return "\n".join(lines)


def wrapped_joined(script: str) -> str:
    """A document's engine command wrapped at its prose's line length (sample K199's ROCm guide: `... --model` ending
    one line of a code block, `/path/to/model --dtype float16 -tp 2` the next, no `\\`): a line that ends with one of
    the engine's options that takes a value is joined to the next non-blank line, which holds that value. The shell
    would run the option with no value, which the engine refuses, so the joined reading is the one meant; the
    newline becomes a space, every other character keeps its place."""
    from kvlint.launches.env_launch import no_value

    if "vllm" not in script and "sglang" not in script:
        return script
    joins: list[int] = []
    engine: str | None = None
    pos = 0
    lines = script.split("\n")
    for k, line in enumerate(lines[:-1]):
        named = "sglang" if "sglang" in line else "vllm" if "vllm" in line else None
        engine = named or (engine if joins and joins[-1] == pos - 1 else None)
        m = _OPTION_AT_END.search(line) if engine else None
        following = lines[k + 1].strip()
        if engine and m and following and not following.startswith(("#", "-", "$")) \
                and following.split(None, 1)[0] not in _COMMAND_WORDS and not no_value(engine, m.group(1)):
            joins.append(pos + len(line))  # (a next line that starts a command of its own is no wrapped value)
        pos += len(line) + 1
    if not joins:
        return script
    chars = list(script)
    for at in joins:
        chars[at] = " "
    return "".join(chars)


# a value a runbook leaves for its reader to fill in: a variable's name written without `$` (`--port
# QWEN_RETRIEVER_EMB_PORT`), one capital letter (`--node-rank N`, sample K430), `<port>`, `your-port`, a choice among
# values (`--node-rank {0,1}`, `0|1`: sample K301)
_PLACEHOLDER_VALUE = lazy(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]|<[^<>\s]+>|(?i:your|my)[-_][\w-]+"
                          r"|\{[\w.-]+(?:[,|][\w.-]+)+\}|\[?[\w.-]+(?:\|[\w.-]+)+\]?")


def _placeholders_left(dep: Deployment) -> Deployment:
    """A runbook's command with a value its reader fills in: not a value the engine refuses (KV007), but one the
    document leaves open (sample K195: `vllm serve M --port QWEN_RETRIEVER_EMB_PORT`, an error at measurement). A
    script that writes the same runs it as written, so this is the Markdown reader's only."""
    held = [v for v in dep.invalid_values if _PLACEHOLDER_VALUE.fullmatch(v.raw.strip("\"'"))]
    if not held:
        return dep
    notes = tuple(f"{v.flag} {v.raw} is a placeholder the document leaves for its reader to fill in" for v in held)
    return replace(dep, invalid_values=tuple(v for v in dep.invalid_values if v not in held),
                   notes=(*dep.notes, *notes))


# a command line of a runbook's own text: an engine's program first (after `VAR=x`, `sudo`, `nohup`), not prose
_STARTS = (r"(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*(?:(?:sudo|nohup|exec|time)[ \t]+)*"
           r"(?:vllm|sglang|python[\d.]*|trl|docker|podman|apptainer|singularity|srun|uv|torchrun{wrappers})[ \t]")


def _starts() -> str:
    """_STARTS with the programs that start an engine under their own name (kvlint.launches.argv.wrapper_programs:
    `paddlex_genai_server --model_name M --backend vllm`, sample K422's runbook line)."""
    from kvlint.launches.argv import wrapper_programs

    return _STARTS.format(wrappers="".join(f"|{re.escape(p)}" for p in wrapper_programs()))


_COMMAND_START = lazy_built(_starts)


def _unfenced_launches(path: str, text: str) -> list[Deployment]:
    """The launches of command lines outside every fenced block (an indented code block, a runbook that pastes its
    commands as plain lines: samples K70/K71), read as a notes file's are (kvlint.launches.notes), only where the
    line starts with the engine's program or a wrapper of it, so prose that names a command is not one."""
    from kvlint.launches.argv import names_wrapper
    from kvlint.launches.notes import commands, container_runs
    from kvlint.launches.textfile import _ENTRY, read_lines

    outside = blank_ranges(text, _block_ranges(text, None))
    found = [(s, e) for s, e in commands(outside) if (_COMMAND_START.match(outside, s) or _handed(outside[s:e]))
             and not _prose(outside[s:e])] if _ENTRY.search(outside) is not None or names_wrapper(outside) else []
    # a command continued PowerShell's way (`` ` `` at each line's end, sample K120's runbook pasted unfenced) is
    # read by the PowerShell reader, its continuation lines with it
    ps = [(s, _backtick_end(outside, s)) for s, e in found if outside[s:e].rstrip().endswith("`")]
    found = [(s, e) for s, e in found if not outside[s:e].rstrip().endswith("`")]
    found += [c for c in _inline_commands(outside) if not any(s <= c[0] < e for s, e in found + ps)]
    opened = _spans_opened(outside) if "`" in outside else outside
    runs = container_runs(opened)
    found = [c for c in found if not any(s < c[0] < e for s, e in runs)]  # a run's own continued command line
    found += [c for c in runs if not any(s <= c[0] < e for s, e in found + ps)]
    return (read_lines(path, opened, sorted(found)) if found else []) + _form_launches(path, outside) \
        + (_powershell_lines(path, outside, ps) if ps else [])


def _spans_opened(text: str) -> str:
    """The text with the backticks of each inline code span over several lines that is its lines' whole content
    blanked (sample K364's README: a `docker run ... vllm/vllm-openai:latest ... --model M` command over seven lines,
    between single backticks): its lines are then read as a pasted command's are."""
    def opened(m: re.Match[str]) -> str:
        whole = "\n" in m.group(2) and _alone(text, m)
        return " " * len(m.group(1)) + m.group(2) + " " * len(m.group(1)) if whole else m.group()

    return _INLINE.sub(opened, text)


def _backtick_end(text: str, start: int) -> int:
    """The end of a command whose lines end in PowerShell's continuation backtick: its last such line's next."""
    end = text.find("\n", start)
    while end >= 0 and text[start:end].rstrip().endswith("`"):
        nxt = text.find("\n", end + 1)
        end = len(text) if nxt < 0 else nxt
        if nxt < 0:
            break
    return len(text) if end < 0 else end


def _powershell_lines(path: str, text: str, ranges: list[tuple[int, int]]) -> list[Deployment]:
    from kvlint.launches.powershell import read_powershell

    return read_powershell(path, blank_ranges(text, _between(sorted(ranges), len(text))))


# an inline code span that is an engine image (`vllm/vllm-openai:latest`, `lmsysorg/sglang:v0.5.4`)
_IMAGE_SPAN = lazy(r"`([\w.-]+(?:\.[\w-]+)*(?::\d+)?/[\w./-]+(?::[\w.-]+)?)`")
_FORM_REACH = 20  # lines between a form's image and its arguments


def _form_launches(path: str, text: str) -> list[Deployment]:
    """A hosted platform's deployment form written out as a runbook's list (sample K116: "Image:
    `vllm/vllm-openai:latest`" then "Arguments: `--model M --max-model-len 32000 ...`", twice, for two
    alternatives): each inline argument list alone on its line, the engine's by the flag tables, under an engine
    image named in a code span of the lines above it, is that image run with those arguments, as `docker run IMAGE
    ARGS` would be, each value at its place."""
    from kvlint.engines.registered import facts
    from kvlint.launches.images import entrypoint_engine
    from kvlint.launches.infer import engine_from_flags

    if "`--" not in text:
        return []
    images = [(m.start(1), m.group(1)) for m in _IMAGE_SPAN.finditer(text) if entrypoint_engine(m.group(1))]
    if not images:
        return []
    breaks = [i for i, ch in enumerate(text) if ch == "\n"]  # line of an offset: bisect, not a count per span
    out: list[Deployment] = []
    for m in _INLINE.finditer(text):
        body = m.group(2)
        if not body.startswith("--") or not _alone(text, m):
            continue
        line = bisect_left(breaks, m.start())
        image = next(((at, name) for at, name in reversed(images)
                      if at < m.start() and line - bisect_left(breaks, at) <= _FORM_REACH), None)
        engine = entrypoint_engine(image[1]) if image is not None else None
        if image is None or engine is None or engine_from_flags(_words(body)) not in (engine, None) or \
                not body.startswith(facts(engine).MODEL_FLAG + " "):
            continue  # the arguments are the other engine's, or start with no model: not this image's form
        out += _run_form(path, text, image, (m.start(2), m.end(2)))
    return out


def _words(body: str) -> list[Field]:
    return [Field(w, None) for w in body.split()]


def _run_form(path: str, text: str, image: tuple[int, str], args: tuple[int, int]) -> list[Deployment]:
    """The form read as `docker run IMAGE ARGS`: the run's words at the image's place, the arguments at theirs."""
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.script import run_script
    from kvlint.sources.text import LineIndex, Mapped

    at, name = image
    head = "docker run "
    body = head + name + " " + text[args[0]:args[1]]
    offsets = [at] * len(head) + list(range(at, at + len(name))) + [args[0]] + list(range(args[0], args[1] + 1))
    launches, _, notes = run_script(Mapped(path, body, index=LineIndex(text), offsets=offsets), {})
    note = "a deployment form of the runbook: the image and the arguments given to it, read as that image run"
    ctx = LaunchContext(notes=(note, *notes))
    return [finish(path, f, ctx, ManifestGpu()) for f in launches]


# a line that starts like a command and goes on as a sentence: `vllm serve in 4090 x4` (sample K118's heading)
_PROSE = lazy(r"[ \t]*(?:vllm[ \t]+serve|sglang[ \t]+serve)[ \t]+(?:in|on|with|for|the|a|an|and|to|of|using|via|"
              r"mode|is|was|will|can|should|must|example|command)\b[^-\n]*$", re.IGNORECASE)


def _prose(line: str) -> bool:
    """Whether a line outside the code blocks is prose that opens with the engine's command: its next word is a
    sentence's, and no option follows; or a sentence's words follow the command, no option among them (`vllm serve
    KV cache does not seem to persist properly.`, sample K279's note): the engine's parser takes one positional."""
    if _PROSE.match(line) is not None:
        return True
    m = _SERVE.match(line)
    if m is None:
        return False
    words = line[m.end():].split()
    return not any(w.startswith("-") for w in words) and sum(1 for w in words if _WORD.fullmatch(w)) >= _SENTENCE


_SERVE = lazy(r"[ \t]*(?:vllm|sglang)[ \t]+serve[ \t]", re.IGNORECASE)
_WORD = lazy(r"[A-Za-z][a-z']*[.,;:]?")  # a sentence's word, not a model id, a path or a variable
_SENTENCE = 4  # such words after the command: a sentence, not a command line


# a tool of the repository's own handed the engine's command after `--` (`k8shazgpu vllm run --name x -- vllm serve m`):
# one program word first, then its options, then the command: a command line, not prose
_HANDED = lazy(r"[ \t]*[\w./-]+(?:[ \t]+[^\s]+)*?[ \t]--[ \t]+(?:[A-Za-z_]\w*=\S*[ \t]+)*"
               r"(?:vllm|sglang|python[\d.]*|trl)[ \t]")


def _handed(line: str) -> bool:
    """Whether the line is a program's command handing the engine's command on after `--`: its first word not a
    sentence's (lower case) and an option of its own before the `--` (prose's ` -- ` is a dash)."""
    if " -- " not in line or _HANDED.match(line) is None:
        return False
    head = line.split(" -- ", 1)[0].split()
    return bool(head) and not head[0][:1].isupper() and any(w.startswith("-") and len(w) > 1 for w in head[1:])


# a code span: a run of backticks, then text, then a run of the same length (CommonMark: ``` ``cmd`` ``` and a line's
# ```` ```cmd``` ````, which is no fence because its info string holds backticks); a span may go on over line ends
# within its paragraph (sample K166's runlog: a command wrapped by the editor, `vllm serve M --speculative-config
# '...'` over three lines), never over a blank line
_INLINE = lazy(r"(?<!`)(`+)(?!`)((?:[^\n]|\n(?![ \t]*\n)){1,2000}?)(?<!`)\1(?!`)")


def _inline_commands(text: str) -> list[tuple[int, int]]:
    """(start, end) of each inline code span that is a whole engine command standing alone in a table cell or on its
    line (a quick-reference table's `` `python -m vllm.entrypoints.api_server --model X --port 8000` ``): its
    program first, an entry point named; a span inside a sentence is prose's unless it is a whole command (a model
    written out, options after it), and one that only names the program (`` `vllm serve` ``) is no launch without a
    model (kvlint.launches.groups)."""
    from kvlint.launches.textfile import _ENTRY

    if "`" not in text:
        return []
    # a span's blank after its opening backtick is no part of the command (`` ` VLLM_USE_V1=1 vllm serve M ...` ``,
    # sample K424's README): the command starts after it
    return [(m.start(2) + _lead(m.group(2)), m.end(2)) for m in _INLINE.finditer(text)
            if _starts_command(m.group(2)[_lead(m.group(2)):]) and not _ELIDED.search(m.group(2)) and (
                (_ENTRY.search(m.group(2)) is not None
                 and (_alone(text, m) or (_complete(m.group(2)) and not _in_table(text, m.start()))
                      or (_introduced(text, m) and _SERVES_WORD.search(m.group(2)) is not None)))
                or (_introduced(text, m) and _IMAGE_GIVEN.search(m.group(2)) is not None))]


# a span whose arguments are an ellipsis (`vllm serve ...`, a table's "Command" cell in sample K524's doc): the command
# named, its arguments left out, no command to run
_ELIDED = lazy(r"^\S+(?:[ \t]+\S+){0,2}[ \t]+(?:\.\.\.|…)[ \t]*$")


def _named_only(deployments: list[Deployment], text: str) -> list[Deployment]:
    """A bare engine command (no model, no flag) alone in its code block, in a document that writes the same
    engine's command with its arguments elsewhere (sample K521's "Command Breakdown": `python -m
    vllm.entrypoints.openai.api_server` alone, then its flags explained one by one): the command named, not another
    server started on the engine's default model. One among other lines (`export VLLM_MODEL=...` then `vllm serve &`,
    sample K391) is run."""
    from kvlint.launches.shellfile import BARE

    full = {d.engine for d in deployments if BARE not in d.notes}
    if not full or all(BARE not in d.notes for d in deployments):
        return deployments
    lines = text.split("\n")
    return [d for d in deployments if BARE not in d.notes or d.engine not in full or not _fenced_alone(d, lines)]


def _fenced_alone(dep: Deployment, lines: list[str]) -> bool:
    """Whether a launch's line is the only line of its code block (a fence just before and just after it)."""
    at = dep.launch_span.line - 1 if dep.launch_span is not None else -1
    return 0 < at < len(lines) - 1 and lines[at - 1].lstrip().startswith(("```", "~~~")) \
        and lines[at + 1].strip() in ("```", "~~~")


def _lead(body: str) -> int:
    """The blanks a code span's text starts with."""
    return len(body) - len(body.lstrip(" ")) if body[:1] == " " else 0


def _starts_command(body: str) -> bool:
    """Whether a code span is a command line whose own command, or one of a list's (`cd ~/app && source
    .venv/bin/activate && nohup vllm serve M ...`, sample K371's recovery step), starts with an engine's program or
    a wrapper of it."""
    if _COMMAND_START.match(body):
        return True
    return ("&&" in body or ";" in body) and any(_COMMAND_START.match(part.lstrip())
                                                 for part in _COMMAND_LIST.split(body)[1:])


_COMMAND_LIST = lazy(r"&&|\|\||;")
# an engine's image followed by its arguments: the model (or the options) the image's entry point serves (`docker run
# --gpus all vllm/vllm-openai:latest <model> <flags>`, sample K373's setup list)
_IMAGE_GIVEN = lazy(r"(?:\bvllm/vllm-openai|\blmsysorg/sglang)(?::\S+)?[ \t]+\S")


def _in_table(text: str, at: int) -> bool:
    """Whether the offset is on a table row (`| shape | count | example |`): a catalogue's example cell is read only
    under a column headed as commands (`_alone`)."""
    return text[text.rfind("\n", 0, at) + 1 : at].lstrip().startswith("|")


# a model written out in a command: after `serve` or the model flag, a Hub id, an absolute path, a variable the
# runbook set before (`rerun \`uv run vllm serve $MODEL --tensor-parallel-size $TP_SIZE\``, sample K300) or a
# placeholder for the reader's model (`Start vLLM with \`vllm serve <model> --served-model-name my-model\``, K309;
# `- vLLM server running: \`vllm serve MODEL_NAME --max-model-len 8192\``, K323's capitalised name)
_MODEL_GIVEN = lazy(r"(?:\bserve[ \t]+|--model(?:-path)?[ \t=]+)[\"']?"
                    r"(?:[A-Za-z0-9][\w.-]*/[\w.-]*\w|/[\w./-]+|\$\{?[A-Za-z_]\w*\}?|<[\w.-]+>|[A-Z][A-Z0-9]*_[A-Z0-9_]+\b)")


def _complete(body: str) -> bool:
    """A code span inside a sentence that is a whole command to run (sample K120: "serve the model by running
    `vllm serve meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8 ...`"): a model written out and an
    option after it; a span that only names the command (`vllm serve`, `vllm serve <model>`) stays prose."""
    m = _MODEL_GIVEN.search(body)
    return m is not None and " --" in body[m.end():]


# a model word after `serve` or the model flag: a command that names what it serves, not the program's name alone
_SERVES_WORD = lazy(r"(?:\bserve[ \t]+|--model(?:-path)?[ \t=]+)[\"']?[\w<$~./][^\s]*")
_INTRODUCED = lazy(r":[ \t]*$")


def _introduced(text: str, m: re.Match[str]) -> bool:
    """Whether a code span ends its line after a colon that introduces it (sample K355's README: "- Deploy
    DeepAnalyze-8B via vllm: `vllm serve DeepAnalyze-8B`"): a command the runbook gives to run, as a span alone on its
    line is, though the line's words before it are prose; never in a table (a catalogue's cell)."""
    before, after = _around_span(text, m)
    return _INTRODUCED.search(before) is not None and _AFTER.match(after.rstrip(".;")) is not None \
        and not before.lstrip().startswith("|")


# before the span: a list marker, then perhaps a bold label (`- **SGLang** \`python -m sglang.launch_server ...\``,
# sample K526's README: one command per engine)
_BEFORE = lazy(r"(?:^|\|)[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?(?:(?:\*\*|__)[^*_\n|`]{1,40}(?:\*\*|__):?[ \t]+)?$")
_AFTER = lazy(r"[ \t]*(?:\||$)")


def _alone(text: str, m: re.Match[str]) -> bool:
    """Whether the code span is a line's (a list item's) whole content, or a whole cell of a table column headed as
    commands: a command the runbook gives, not words of a sentence (`Start the server with `vllm serve m` ...` is
    prose) nor a catalogue's example."""
    before, after = _around_span(text, m)
    if _BEFORE.search(before) is None or _AFTER.match(after) is None:
        return False
    return not before.lstrip().startswith("|") or _command_column(text, m.start() - len(before), before.count("|"))


def _around_span(text: str, m: re.Match[str]) -> tuple[str, str]:
    """The words of the span's first line before it, and of its last line after it."""
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = text.find("\n", m.end())
    return text[line_start : m.start()], text[m.end() : len(text) if line_end < 0 else line_end]


_COMMAND_HEADS = ("command", "cmd", "run", "usage", "launch", "start", "serve", "script", "命令", "启动")


def _command_column(text: str, line_start: int, column: int) -> bool:
    """Whether a table cell's column is headed as commands (`| Task | Command |`): a quick-reference table's cells
    are what to run, a catalogue's example column (`| shape | count | example |`) shows what a file looks like."""
    start = line_start
    while start > 0:
        above = text.rfind("\n", 0, start - 1) + 1
        if not text[above : start - 1].lstrip().startswith("|"):
            break
        start = above
    end = text.find("\n", start)
    cells = text[start : len(text) if end < 0 else end].split("|")
    head = cells[column].strip().lower() if column < len(cells) else ""
    return any(word in head for word in _COMMAND_HEADS)


def _unit_launches(path: str, text: str) -> list[Deployment]:
    """The launches of the unit and program files a runbook shows (```` ```ini ````: a systemd unit's `ExecStart=`,
    a supervisor program's `command=`), read together by the text files' reader at their lines."""
    from kvlint.launches import textfile

    ranges = _block_ranges(text, _UNIT_INFO)
    if not ranges:
        return []
    body = blank_ranges(text, _between(ranges, len(text)))
    return textfile.read(path, body).deployments if any(w in body.lower() for w in _WORDS) else []


_DOCKERFILE_INFO = frozenset({"dockerfile", "docker", "containerfile"})


def _dockerfile_launches(path: str, text: str) -> list[Deployment]:
    """The launches of the Dockerfiles a runbook shows (```` ```dockerfile ````), each block alone as the image it
    builds: a CMD that carries a model for the engine's entry point is that image's default launch (counting rule
    5), one with no model is the image, no launch (kvlint.launches.dockerfile reads both; sample K261)."""
    from kvlint.launches.dockerfile import read_dockerfile

    return _each_block(path, text, _DOCKERFILE_INFO, read_dockerfile)


_MAKE_INFO = frozenset({"make", "makefile", "mk", "just", "justfile"})


def _makefile_launches(path: str, text: str) -> list[Deployment]:
    """The launches of the Makefiles a runbook shows (```` ```make title="Makefile" ````: a target whose recipe runs
    the engine's container, sample K295), each block alone as the Makefile it is, its variables (`$(VLLM_IMAGE_TAG)`)
    its own, every value at its line."""
    from kvlint.launches.makefile import read_recipes

    return _each_block(path, text, _MAKE_INFO, read_recipes)


def _each_block(path: str, text: str, kinds: frozenset[str],
                read: Callable[[str, str], list[Deployment]]) -> list[Deployment]:
    """Each fenced block of these kinds that names an engine, read alone by its format's reader at its lines."""
    out: list[Deployment] = []
    for start, end in _block_ranges(text, kinds):
        body = text[start:end]
        if any(w in body.lower() for w in _WORDS):
            out.extend(read(path, "\n" * text.count("\n", 0, start) + body))
    return out


_PY_INFO = frozenset({"python", "py", "python3", "ipython", "pycon"})


def _python_launches(path: str, text: str) -> list[Deployment]:
    """The launches of a runbook's Python blocks (```` ```python ````: a notebook's cells pasted as a tutorial), read
    together as one program by the Python reader, each at its line, so a name one block sets (`BASE_CACHE = ...`)
    is known in the block that starts the engine (sample K109)."""
    from kvlint.launches import pyfile

    # a block a notebook's `%%writefile NAME` heads is that file: Python only when NAME is a program (sample K360's
    # tutorial writes requirements.txt, ubiops.yaml and deployment.py this way)
    ranges = [r for r in _block_ranges(text, _PY_INFO) if not _writes_other_file(text, r)]
    if not ranges:
        return []
    body = blank_ranges(text, _between(ranges, len(text)))
    if not any(w in body for w in pyfile.engine_words()):
        return []
    # a notebook's magic lines pasted with its cells (`%%writefile {dir}/deployment.py` heading a block, sample K360's
    # tutorial) are IPython's, not Python: blanked, so the block's program is read
    magic = "%" in body and _MAGIC_LINE.search(body) is not None
    body = _MAGIC_LINE.sub(lambda m: " " * len(m.group()), body) if magic else body
    body, dropped = _parsed_blocks(body if magic else text, body, ranges)
    from kvlint.launches import shellfile

    # the lines no Python, a shell's command lines fenced as ```python (sample K308: `python -m sglang.launch_server
    # --model-path M ...` run in two windows), read as the shell's
    shell_lines = blank_ranges(text, _between(dropped, len(text))) if dropped else ""
    commands = shellfile.read(path, shell_lines).deployments if _COMMAND_LINE.search(shell_lines) else []
    if "!" not in body:
        return pyfile.read(path, body).deployments + commands
    from kvlint.launches.notebook import split_cell

    # a notebook's lines pasted as a block (`!vllm serve M --share` in a Colab tutorial, sample K264): the `!` lines
    # are the shell's, the rest Python, as kvlint.launches.notebook reads a cell
    shell, python = split_cell(body)
    return pyfile.read(path, python).deployments + shellfile.read(path, shell).deployments + commands


def _writes_other_file(text: str, block: tuple[int, int]) -> bool:
    """Whether a block opens with `%%writefile NAME` for a file that is not a Python program."""
    first = text[block[0] : block[1]].split("\n", 1)[0].strip()
    return first.startswith("%%writefile") and not first.endswith(".py")


_MAGIC_LINE = lazy(r"(?m)^[ \t]*%%?[A-Za-z][^\n]*")
# a line that starts an engine's program (after `VAR=x`, `sudo`, `nohup`): what a dropped line must hold to be read
_COMMAND_LINE = lazy_built(lambda: r"(?m)^[ \t]*" + _starts())


def _parsed_blocks(text: str, body: str, ranges: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """The Python blocks read together, without what is no Python: a `docker pull` fenced as ```python, or a line
    with a placeholder (`region = <your-region>`) in sample K276's runbook. One such line would fail the whole
    program: a block that does not parse loses the lines the parser stops at (a few at most), else the whole
    block; those are returned too. A notebook's `!` lines are kept: the reader splits them off."""
    if _parse_error(body) is None:
        return body, []
    bad: list[tuple[int, int]] = []
    for start, end in ranges:
        bad += _unparsed(text, start, end)
    return (blank_ranges(body, sorted(bad)) if bad else body), sorted(bad)


_MAX_DROPPED = 4  # lines a block may lose to the parser before the whole block is taken for another language


def _unparsed(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The ranges of one block that keep it from parsing (lines, else the block), none when it parses."""
    lines: list[tuple[int, int]] = []
    at = start
    for line in text[start:end].splitlines(keepends=True):
        lines.append((at, at + len(line.rstrip("\r\n"))))
        at += len(line)
    dropped: list[tuple[int, int]] = []
    for _ in range(_MAX_DROPPED + 1):
        kept = [text[s:e] if (s, e) not in dropped and not text[s:e].lstrip().startswith("!") else ""
                for s, e in lines]
        error = _parse_error(textwrap.dedent("\n".join(kept)))
        if error is None:
            return dropped
        if error < 1 or error > len(lines) or lines[error - 1] in dropped:
            break
        dropped.append(lines[error - 1])
    return [(start, end)]


def _parse_error(code: str) -> int | None:
    """The line Python's parser stops at (0 when it does not say), or None when the code parses."""
    import ast

    try:
        ast.parse(code)
    except SyntaxError as e:
        return e.lineno or 0
    except (ValueError, MemoryError, RecursionError):
        return 0
    return None


def _yaml_place(path: str, text: str) -> Finding | None:
    """The KV008 for an engine's image named in a runbook's YAML blocks that gave no launch (sample K282's guide: a
    Deployment of `vllm/vllm-openai:latest` given no arguments, a snippet with no selector): the net the shell
    blocks have, over the YAML ones."""
    from kvlint.launches.named import passed_over

    # only a block that runs something (a Kubernetes object's or a compose file's containers), not a values
    # snippet a README shows (`image: vllm/vllm-openai:v0.11.0`: documentation)
    ranges = [(s, e) for s, e in _block_ranges(text, _YAML_INFO) if _RUNS.search(text, s, e) is not None]
    if not ranges:
        return None
    body = blank_ranges(text, _between(ranges, len(text)))
    return passed_over(path, body, "yaml") if "vllm" in body or "sglang" in body else None


_RUNS = lazy(r"(?m)^[ \t]*(?:containers|services)[ \t]*:")


def _python_place(path: str, text: str) -> Finding | None:
    """The KV008 for an engine's image or entry point named in a runbook's Python blocks that gave no launch (sample
    K218's README: `Endpoint(name="vllm-service", image="vllm/vllm-openai:latest", gpu=...)`, a platform's container
    of the engine's image whose model is not given): the net the shell blocks have, over the Python ones."""
    from kvlint.launches.named import passed_over

    ranges = _block_ranges(text, _PY_INFO)
    if not ranges:
        return None
    body = blank_ranges(text, _between(ranges, len(text)))
    return passed_over(path, body, "python") if "vllm" in body or "sglang" in body else None


def _without_html_comments(text: str) -> str:
    """The text with each HTML comment outside a fenced block blanked (newlines kept): a rendered page does not
    show `<!-- vllm serve ... -->` (a command its author put away, sample K137), nor a block inside one."""
    comments: list[tuple[int, int]] = []
    pos = 0
    while (opened := text.find("<!--", pos)) >= 0:
        fence = _FENCE.search(text, pos, opened)
        if fence is not None:  # a fenced block before the comment: a `<!--` inside it is the block's text
            close = _closing(fence.group(2), len(fence.group(1).expandtabs(4))).search(text, fence.end() + 1)
            pos = close.end() if close is not None else len(text)
            continue
        end = text.find("-->", opened + 4)
        end = len(text) if end < 0 else end + 3
        comments.append((opened, end))
        pos = end
    return blank_ranges(text, comments)


def blank_ranges(text: str, ranges: list[tuple[int, int]]) -> str:
    """The text with each range's characters blanked (newlines kept): what lies outside the fenced blocks."""
    out: list[str] = []
    last = 0
    for start, end in ranges:
        out += [text[last:start], _NOT_NEWLINE.sub(" ", text[start:end])]
        last = end
    out.append(text[last:])
    return "".join(out)


def _place(dep: Deployment) -> tuple[int, int]:
    at = dep.launch_span or dep.model_span
    return (at.line, at.col) if at is not None else (0, 0)


def read_document(path: str, text: str, blocks: list[tuple[int, int, str]], note: str) -> ReadResult:
    """A document's launches (reStructuredText, AsciiDoc) from its code blocks, given as (start, end, language): the
    shell ones read together as one script, its wrapped commands joined (read_wrapped), the YAML ones as manifests
    (yaml_block_launches), each launch with the document's `note`; the KV008 for a script that names an engine and
    gave none. Every other character is blanked, so each value keeps its line and column."""
    from kvlint.launches.named import passed_over

    shell = [(s, e) for s, e, lang in blocks if lang in _SHELL_INFO]
    script = blank_ranges(text, _between(shell, len(text)))
    others = yaml_block_launches(path, text, [(s, e) for s, e, lang in blocks if lang in _YAML_INFO])
    if not others and not any(w in script.lower() for w in _WORDS):
        return ReadResult(path)
    result = read_wrapped(path, script)
    deployments = [replace(d, notes=(*d.notes, note)) for d in [*result.deployments, *others]]
    findings = list(result.findings)
    if not deployments and not any(f.code == "KV008" for f in findings):
        found = passed_over(path, script, "shell")
        findings += [found] if found is not None else []
    return ReadResult(path, deployments, findings, comments=result.comments)


def _yaml_launches(path: str, text: str) -> list[Deployment]:
    """The launches of the YAML blocks (```` ```yaml ````) that name an engine (yaml_block_launches)."""
    return yaml_block_launches(path, text, _block_ranges(text, _YAML_INFO))


def _json_launches(path: str, text: str) -> list[Deployment]:
    """The launches of the JSON blocks (```` ```json ````) that name an engine: a job or container definition a
    document shows (a Nosana job's `{"image": "vllm/vllm-openai:v0.5.4", "cmd": ["--model", ...]}`, turn 37's K330),
    read as the JSON file it is (JSON is YAML), each value at its place."""
    return yaml_block_launches(path, text, _block_ranges(text, _JSON_INFO)) if "```json" in text.lower() else []


def yaml_block_launches(path: str, text: str, ranges: list[tuple[int, int]]) -> list[Deployment]:
    """The launches of the YAML blocks at `ranges` that name an engine: a manifest or compose file a document shows,
    each block read alone at its lines (indented as written: YAML takes a uniformly indented document). A block YAML
    refuses is an excerpt, passed over (no KV001 for it). The Kubernetes objects of the document's blocks are read
    together, as one file of documents (_manifest_stream), so a serving runtime and the services naming it are one
    launch each service, not a runtime and a service each (sample K226's KServe guide)."""
    from kvlint.launches.read import read_yaml

    text = _BREAK.sub("---", text) if "***" in text or "___" in text else text
    named = [(s, e) for s, e in ranges if any(w in text[s:e].lower() for w in _WORDS)]
    objects = [(s, e) for s, e in named if _OBJECT.search(text[s:e][:4096]) is not None] if len(named) > 1 else []
    together = read_yaml(path, _manifest_stream(text, objects)) if len(objects) > 1 else None
    if together is not None and any(f.code == "KV001" for f in together.findings):
        together = None  # one block is an excerpt YAML refuses: each read alone, as before
    out: list[Deployment] = list(together.deployments) if together is not None else []
    for start, end in named:
        if together is None or (start, end) not in objects:
            out.extend(read_yaml(path, "\n" * text.count("\n", 0, start) + text[start:end]).deployments)
    return out


# a Markdown thematic break at the margin of a YAML block, where YAML's document marker `---` was meant: a converter
# that rewrites Markdown's `---` as `***` rewrote the blocks' too (sample K455's MDX page: a RoleBasedGroup, then
# `***`, then its Service, refused whole as YAML). Same width, so every value keeps its column.
_BREAK = lazy(r"(?m)^(?:\*\*\*|___)(?=[ \t]*$)")
# a block that is a Kubernetes object written at the margin: `apiVersion:` or `kind:` on its first line that is not
# blank or a comment (a block opens with `# file.yaml - what it defines` as often as not)
_OBJECT = lazy(r"\A(?:[ \t]*(?:#[^\n]*)?\n)*(?:apiVersion|kind)[ \t]*:")


def _manifest_stream(text: str, ranges: list[tuple[int, int]]) -> str:
    """The blocks at `ranges` as one stream of YAML documents, every other character blanked (newlines kept): the line
    that opens each block (its fence or delimiter, never the block's own text) becomes `---`, so each block is a
    document of its own and every value keeps its line and column."""
    blanked = blank_ranges(text, _between(ranges, len(text)))
    out, last = [], 0
    for start, _ in ranges:
        opener = text.rfind("\n", 0, max(start - 1, 0)) + 1 if start else 0
        if opener >= last and start - opener >= 4:  # the opening line holds `---` and its newline
            out += [blanked[last:opener], "---"]
            last = opener + 3
    out.append(blanked[last:])
    return "".join(out)


def _powershell_launches(path: str, text: str) -> list[Deployment]:
    """The launches of the PowerShell blocks (```` ```powershell ````, sample K73's runbook: `$MODEL = '...'` then
    `sglang serve `` ` `` continued lines), read together as one script by the PowerShell reader, at their lines."""
    from kvlint.launches.powershell import read_powershell

    ranges = _block_ranges(text, _PS_INFO)
    if not ranges:
        return []
    script = blank_ranges(text, _between(ranges, len(text)))
    return read_powershell(path, script) if any(w in script.lower() for w in _WORDS) else []


def _between(ranges: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """The stretches of a text of `length` outside the given (start, end) ranges, in order."""
    out, last = [], 0
    for start, end in ranges:
        out.append((last, start))
        last = end
    out.append((last, length))
    return out


def shell_blocks(text: str) -> str:
    """The text with every character outside a shell code block blanked (newlines kept): the blocks' lines at their
    places, the fences and the prose empty."""
    ranges = [_quotes_closed(text, start, end) for start, end in _block_ranges(text)]
    script = blank_ranges(text, _between(ranges, len(text)))
    script = _REPL_PROMPT.sub(lambda m: " " * len(m.group(0)), script) if ">>>" in script else script
    script = _LABEL.sub(lambda m: " " * len(m.group(0)), script) if ": " in script else script
    return _outdent_delimiters(script, ranges) if "<<" in script else script


# a runbook's label before a command in its block (`vLLM: CUDA_VISIBLE_DEVICES=0,1 vllm serve M ...` beside
# `Layered-prefill: python nanovllm/...`, sample K429): the reader's caption, no word of the command
_LABEL = lazy_built(lambda: r"(?m)^[ \t]*[A-Za-z][\w.+-]*(?: [\w.+-]+){0,3}:[ \t]+(?=" + _starts() + ")")


# a session's prompts written as a REPL's (`>>> hf jobs run ... \` then `...   vllm serve M`, sample K262's docs):
# in a block the shell reads they are no words, and the continuation prompt must not join the command
_REPL_PROMPT = lazy(r"(?m)^[ \t]*(?:>>>|\.\.\.)(?=[ \t]|$)")


def _quotes_closed(text: str, start: int, end: int) -> tuple[int, int]:
    """A block whose last command leaves a quote open (`--prompt="Continue the sequence: 1, 1, 2,` and the fence,
    sample K100) ends before that command's line: each block is a snippet of its own, so its open quote must not
    take the blocks after it into one word (the runbook's later launches were passed over)."""
    from kvlint.sources.shell import tokenize
    from kvlint.sources.text import Mapped

    block = text[start:end]
    if '"' not in block and "'" not in block:
        return start, end
    commands, errors = tokenize(Mapped("", block))
    if not _unterminated(errors):
        return start, end
    opened = commands[-1].words[0].start if commands and commands[-1].words else 0  # the command left open
    return start, start + block.rfind("\n", 0, opened) + 1


def _unterminated(errors: list[tuple[int, str]]) -> bool:
    return any(msg.startswith("unterminated") for _, msg in errors)


_HEREDOC_WORD = lazy(r"<<-?[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def _outdent_delimiters(script: str, ranges: list[tuple[int, int]]) -> str:
    """A block indented with its list item (`    sudo tee f <<EOF` ... `    EOF`) carries Markdown's indentation on
    every line, the here-document's closing word too, which the shell would then never meet and the rest of the
    runbook would be the body (sample K83: no launch after Docker's install steps). Each block's delimiter lines
    lose their indentation (no other line changes, so every span stays: spans are lines and columns)."""
    out, last = [], 0
    for start, end in ranges:
        words = {m.group(2) for m in _HEREDOC_WORD.finditer(script, start, end)}
        if not words:
            continue
        line = re.compile(rf"(?m)^([ \t]+)({'|'.join(map(re.escape, sorted(words)))})([ \t]*)$")
        out += [script[last:start], line.sub(r"\2", script[start:end])]
        last = end
    out.append(script[last:])
    return "".join(out)


@lru_cache(maxsize=64)
def _closing(fence: str, indent: int) -> re.Pattern[str]:
    """The line that closes a block opened by `fence` at `indent` columns: the same character, at least as many, at
    most three columns further in (a list item's block is indented with its item: samples K83, K63)."""
    return re.compile(rf"^[ \t]{{0,{indent + 3}}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.M)


# a compose file's or a Kubernetes object's top-level key, at the start of a line (no shell command is named so)
_YAML_TOP = lazy(r"(?m)^(?:services|apiVersion|kind):(?:[ \t]|$)")
_KEY_LINE = lazy(r"[A-Za-z_][\w.-]*:(?:[ \t]|$)")


def _yaml_shaped(body: str) -> bool:
    """A block whose lines are a YAML document a runner takes (a compose file's `services:`, a manifest's `apiVersion:`
    and `kind:`), its first line that is no comment a key: not a script (a here-document's body is the script's)."""
    if ("services:" not in body and "apiVersion:" not in body) or "<<" in body or \
            _YAML_TOP.search(body, 0, 4096) is None:
        return False
    first = next((line for line in body[:4096].splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
    return _KEY_LINE.match(first) is not None


def _mislabelled(label: str, body: str) -> bool:
    """A block labelled for a language no reader of a runbook takes (```` ```cpp ````, sample K125's cookbook) whose
    first line is an engine command (`python -m sglang.launch_server --model-path M`): the command it shows."""
    if label in _OTHER_READERS:
        return False
    first = next((line for line in body[:4096].splitlines() if line.strip()), "")
    from kvlint.launches.textfile import _ENTRY

    if _COMMAND_START.match(first.lstrip()) is not None and _ENTRY.search(first) is not None:
        return True
    # a script under another language's label (```` ```javascript ```` over `# comment`, `NAME="..."` lines and a
    # `sudo bash -c "cat <<EOF > unit ... EOF"`, sample K271): shell comments, then shell assignments, in a block
    # that starts the engine somewhere
    code = [line.strip() for line in body[:4096].splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return bool(code) and _SHELL_ASSIGN.match(code[0]) is not None and body.lstrip().startswith("#") \
        and _ENTRY.search(body) is not None


_SHELL_ASSIGN = lazy(r"(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*=(?:\"[^\"]*\"|'[^']*'|[^\s;]*)$")


def _heredoc_opened(body: str) -> bool:
    """A block whose first line is a shell command feeding a here-document (`cat <<EOF | kubectl apply -f -`, sample
    K130's runbook, each such block labelled ```` ```yaml ```` for the manifest inside): a shell block, whose
    here-document the shell reader reads as the manifest it applies; YAML would refuse the first line."""
    first = next((line for line in body[:4096].splitlines() if line.strip()), "")
    return "<<" in first and _YAML_LINE.match(first) is None


_YAML_LINE = lazy(r"[ \t]*(?:-[ \t]|#|---|[\w.\"'-]+[ \t]*:(?:[ \t]|$))")
# labels another reader takes (YAML, PowerShell, units, Python) or that hold no command (JSON, diffs, output)
_OTHER_READERS = frozenset({"yaml", "yml", "powershell", "ps1", "pwsh", "ps", "ini", "dosini", "systemd", "service",
                            "conf", "cfg", "supervisor", "supervisord", "toml", "properties", "unit", "python", "py",
                            "python3", "ipython", "pycon", "json", "jsonc", "diff", "patch", "log", "output",
                            "dockerfile", "docker", "containerfile"})


def _command_on_fence(info: str) -> bool:
    r"""Whether an opening fence's info string is a command that starts an engine (```` ```vllm serve M \ ````, the
    block's first line written on the fence, sample K189's README): CommonMark takes it for the block's language,
    its author for the command the block goes on with. A language's name alone (```` ```python ````) is none."""
    return " " in info.strip() and _COMMAND_START.match(info) is not None and any(w in info for w in _WORDS)


def _block_ranges(text: str, kinds: frozenset[str] | None = _SHELL_INFO) -> list[tuple[int, int]]:
    """(start, end) offsets of each shell block's body: after its opening fence line, up to its closing fence (a
    fence of the same character, at least as long); an unclosed block runs to the end, as Markdown renders it."""
    out: list[tuple[int, int]] = []
    pos = 0
    while (m := _FENCE.search(text, pos)) is not None:
        fence, body = m.group(2), m.end() + 1
        close = _closing(fence, len(m.group(1).expandtabs(4))).search(text, body)
        end = close.start() if close is not None else len(text)
        reopened = _reopening(fence).search(text, body, end)
        if reopened is not None:  # the block was left open: it ends where the next one is opened
            end, close = reopened.start(), None
        label = m.group(3).lower().strip("*_.:[]()")  # ```` ```**bash** ````: emphasis its author wrote (K233)
        if kinds is _SHELL_INFO and _command_on_fence(text[m.start(3):m.end()]):
            out.append((m.start(3), end))  # ```` ```vllm serve M \ ```` then its flag lines: the command starts there
        elif body < end and _of_kind(kinds, label, text[body:end]):
            out.append((body, end))
        pos = close.end() if close is not None else end if reopened is not None else len(text)
    return out


def _of_kind(kinds: frozenset[str] | None, label: str, inside: str) -> bool:
    """Whether a block is one of the `kinds` asked for (None: any): its label's language, unless its body is plainly
    another's (```yaml over `cat <<EOF | kubectl apply -f -` is the shell's; ```bash over a compose file or a manifest,
    sample K312's runbook, is YAML's), or a shell command under another language's label (_mislabelled)."""
    if kinds is None:
        return True
    if kinds is _SHELL_INFO:
        if label in _PLAIN_INFO and _DIAGRAM.search(inside):
            return False  # a drawing: `vllm serve (main process)` above `├─ AsyncLLM` (turn 37's K325) names no command
        if label in _PLAIN_INFO and _PYTHON_FIRST.match(inside):
            return False  # a program pasted with no label: the Python reader's (_python_launches)
        shell_here = label in _YAML_INFO and _heredoc_opened(inside)
        return (label in kinds and not _yaml_shaped(inside)) or shell_here or _mislabelled(label, inside)
    if kinds is _YAML_INFO:
        yaml_here = label in _SHELL_INFO and _yaml_shaped(inside)
        return (label in kinds and not _heredoc_opened(inside)) or yaml_here
    if kinds is _PY_INFO:  # a block with no label that opens with an import is Python (turn 38's K345: TeleChat3's
        # `from sglang.test.doc_patch import launch_server_cmd` then `launch_server_cmd("python3 -m sglang...")`)
        return label in kinds or (label in _PLAIN_INFO and _PYTHON_FIRST.match(inside) is not None)
    return label in kinds


_PYTHON_FIRST = lazy(r"\s*(?:from[ \t]+[\w.]+[ \t]+import[ \t]|import[ \t]+[\w.]+[ \t]*(?:,|as[ \t]|$))", re.M)


def _reopening(fence: str) -> re.Pattern[str]:
    """A line inside a block that opens one with the same fence and a language (```` ```bash ````, at most three
    columns in): a block cannot hold its own fence, so its author left the block before unclosed (sample K213's
    guide: a stray ```` ``` ```` made the prose after it a block and the next ```` ```bash ```` a command whose
    backquotes took every launch after it). The block ends there and the line opens the next one."""
    return re.compile(rf"^[ \t]{{0,3}}{re.escape(fence)}[ \t]*[A-Za-z][\w+-]*[ \t]*$", re.M)
