"""PowerShell scripts (*.ps1): the engine command lines, with backtick continuations and `$name = "value"`.

A backtick at the end of a line continues the command as a backslash does in a shell: it becomes one (the
same length), so the text goes to `run_script` at the file's own offsets and every value keeps its line and
column. Simple assignments (`$Model = "org/name"`, `$env:MODEL = "org/name"`) are the variables the command
lines see; `$env:NAME` reads as `$NAME` (positions looked up per character, so the shorter word keeps its place).
An array `$Args = @("--tp", $N, ...)` is read as the shell array `Args=( "--tp"  $N ... )` (same length: commas
become spaces) and a bare `$Args` in a command as `"${Args[@]}"`, the words it splats into. A `param(...)`
parameter with a default (`[string]$Model = "org/name"`) is a variable; one without stays unresolved, named.
"""

from __future__ import annotations

import re

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.launches.rewrite import mapped, substitute
from kvlint.lazyre import lazy

_ASSIGN = lazy(r"^[ \t]*\$(?:env:)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*[\"']?([^\"'\n]*)[\"']?[ \t]*$")
# `$image = if ($env:IMAGE) { $env:IMAGE } else { 'vllm/vllm-openai:latest' }`: the literal when the variable is unset
_ENV_OR = lazy(r"^[ \t]*\$(\w+)[ \t]*=[ \t]*if[ \t]*\([ \t]*\$env:(\w+)[ \t]*\)[ \t]*\{[ \t]*\$env:\2[ \t]*\}[ \t]*"
               r"else[ \t]*\{[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\")[ \t]*\}[ \t]*$", re.IGNORECASE)
_ENV_REF = lazy(r"\$env:(?=[A-Za-z_])")
_ARRAY_OPEN = lazy(r"^([ \t]*)\$([A-Za-z_][A-Za-z0-9_]*)([ \t]*(\+?)=[ \t]*@)\(")
# `$null = docker @args`, `$out = & docker run ...`: a command whose output is assigned (its words run all the same)
_CAPTURED = lazy(r"^([ \t]*)\$[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*(?=&[ \t]|(?:docker|podman|vllm|python\w*|sglang)\b)",
                 re.IGNORECASE)
_PARAM_DEFAULT = lazy(r"\]\s*\$([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:\"([^\"\n]*)\"|'([^'\n]*)'|([^\s,)]+))")


# a type cast before a variable (`[string]$Port`, `[int]$env:LEN`): the value is the variable's
# PowerShell's redirection of all its streams (`& $py @argv *>&1 | Tee-Object`, sample K453): the `*` is the
# operator's, not a word the program is given (a shell would glob it into the file names of the folder)
_ALL_STREAMS = lazy(r"(?<![^\s])\*(?=>)")
_CAST = lazy(r"(?<![\w\]])\[[A-Za-z][\w.]*\](?=\$)")
_NUMBER = lazy(r"^-?\d+(?:\.\d+)?$")
_REFERENCE = lazy(r"^\$(?:env:)?([A-Za-z_]\w*)$")
_GET_COMMAND = lazy(r"(?i)^Get-Command[ \t]+[\"']?([\w.-]+)")
# the program a `Get-Command` result names (`& $wsl.Source`, `-FilePath $py.Path`): the variable itself
_PROGRAM_OF = lazy(r"(\$[A-Za-z_]\w*)\.(?:Source|Path|Definition)\b")


def _assign(env: dict[str, str], name: str, value: str) -> None:
    """`$NAME = VALUE` as PowerShell evaluates it: a quoted string or a number is its text, `$OTHER` the other's
    value; anything else (`Resolve-ModelDir -Path $x`, `if (...) {...}`, `(Get-Item x).Name`) is computed when the
    script runs, so the name holds no value kvlint knows (never the command's first word)."""
    value = _CAST.sub("", value) if value.startswith("[") else value
    if (program := _GET_COMMAND.match(value)) is not None:  # `$wsl = Get-Command wsl.exe`: `$wsl.Source` runs it
        env[name] = program.group(1)
    elif value[:1] in ("'", '"') and value[-1:] == value[:1] and len(value) > 1:
        env[name] = value[1:-1]
    elif _NUMBER.match(value):
        env[name] = value
    elif (ref := _REFERENCE.match(value)) is not None and ref.group(1) in env:
        env[name] = env[ref.group(1)]
    else:
        env.pop(name, None)


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    deployments = read_powershell(path, text)
    if "@" in text and ("\n\"@" in text or "\n'@" in text):
        deployments += here_string_launches(path, text)
        deployments.sort(key=lambda d: (d.launch_span.line, d.launch_span.col) if d.launch_span else (0, 0))
    return ReadResult(path, deployments, comments=scan_comments(text))


# a here-string: `@"` (expandable) or `@'` (literal) ending its line, its body, then `"@` / `'@` at a line's start
_HERE_STRING = lazy(r"@([\"'])[ \t]*\n(.*?)\n\1@", re.DOTALL)
_BACKTICK = lazy(r"`([$`\"])")  # an expandable here-string's escapes: `` `$ `` is a `$` in the text written
_NOT_SHELL = ("FROM ", "ARG ", "apiVersion:", "services:", "kind:")


def here_string_launches(path: str, text: str) -> list[Deployment]:
    """Launches in the scripts a PowerShell script writes from here-strings (`@" #!/bin/bash ... exec vllm serve
    ... "@ | Out-File entrypoint.sh`, sample K65): the body read as shell, each character at its place in the file
    (an expandable string's `` `$ `` escapes undone). A Dockerfile or YAML body is not a shell script."""
    from kvlint.launches.named import ENTRY_MARKERS
    from kvlint.launches.shellfile import read_shell

    out: list[Deployment] = []
    for m in _HERE_STRING.finditer(text):
        body = m.group(2)
        if not any(mark in body for mark in ENTRY_MARKERS) or body.lstrip().startswith(_NOT_SHELL):
            continue
        padded = "\n" * text.count("\n", 0, m.start(2)) + body
        if m.group(1) == '"' and "`" in body:
            script, offsets = substitute(padded, _BACKTICK, lambda e: e.group(1))
            out.extend(read_shell(path, padded, mapped=mapped(path, padded, script, offsets)))
        else:
            out.extend(read_shell(path, padded))
    return out


def _array_line(line: str, start: int, depth: int) -> tuple[str, int]:
    """One line of an `@( ... )` array from `start`: unquoted commas as spaces, and the parenthesis depth after
    it (0 once the array's `)` is passed)."""
    out = list(line)
    quote = ""
    for k in range(start, len(line)):
        c = line[k]
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "#":
            break
        elif c == ",":
            out[k] = " "
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
    return "".join(out), depth


# PowerShell's `if (...) {`, `} elseif (...) {`, `} else {` and the `}` that ends them, as the shell's `if`, `elif`,
# `else` and `fi` (the condition is not read: each arm is a candidate, as a shell script's are), a one-line
# `if (...) { STATEMENT }` too
_IF_OPEN = lazy(r"^([ \t]*)(\}[ \t]*)?(if|elseif)[ \t]*\(.*\)[ \t]*\{[ \t]*$", re.IGNORECASE)
_ELSE = lazy(r"^([ \t]*)\}[ \t]*else[ \t]*\{[ \t]*$", re.IGNORECASE)
_ONE_LINE_IF = lazy(r"^([ \t]*)(if[ \t]*\((?:[^(){}]|\([^(){}]*\))*\)[ \t]*\{)(.*)\}[ \t]*$", re.IGNORECASE)
_FI = "\x01"  # the `}` closing an `if`: one character here, `fi` once the text is substituted
_END_FI = "\x02"  # the `}` closing a one-line `if`: `;fi`


def _block_line(line: str, blocks: list[bool]) -> str:
    """A line that opens or closes a `{ }` block, as the shell reads the same statement (same length, except the
    `}` of an `if`, marked _FI for the substitution that writes `fi`)."""
    if (m := _IF_OPEN.match(line)) is not None:
        word = "elif :; then" if m.group(2) else "if :; then"
        if not m.group(2):
            blocks.append(True)
        return m.group(1) + word + " " * max(len(line) - len(m.group(1)) - len(word), 0) \
            if len(line) - len(m.group(1)) >= len(word) else " " * len(line)
    if (m := _ELSE.match(line)) is not None:
        return m.group(1) + "else" + " " * (len(line) - len(m.group(1)) - 4)
    if (m := _ONE_LINE_IF.match(line)) is not None and len(m.group(2)) >= len("if :; then"):
        head, statement = m.group(2), m.group(3)
        return m.group(1) + "if :; then".ljust(len(head)) + statement + _END_FI.ljust(len(line) - len(m.group(1))
                                                                                     - len(head) - len(statement))
    stripped = line.strip()
    if stripped == "}" and blocks:
        return line.replace("}", _FI, 1) if blocks.pop() else line
    if stripped.endswith("{"):
        blocks.append(False)
    return line


_START_PROCESS = lazy(r"(?i)\bStart-Process\b")
_KEPT_AS = lazy(r"[ \t]*(\$[A-Za-z_]\w*[ \t]*=)[ \t]*$")  # the process object assigned to a variable
_SP_TOKEN = lazy(r"""[ \t]+(-[A-Za-z]+|"[^"\n]*"|'[^'\n]*'|@\(|[^\s,]+)""")
_SP_VALUED = frozenset({"-windowstyle", "-workingdirectory", "-redirectstandardoutput", "-redirectstandarderror",
                        "-redirectstandardinput", "-credential", "-verb", "-environment"})
# the cmdlet's own parameters, after its argument list too (`-ArgumentList $a -WorkingDirectory $d -PassThru`)
_SP_OWN = _SP_VALUED | {"-nonewwindow", "-passthru", "-wait", "-loaduserprofile", "-usenewenvironment"}
_SP_MAX = 64
_SP_SWITCH = lazy(r"^-[A-Za-z]{2,}$")  # a cmdlet's own switch (an engine flag after the program is `--x` or quoted)


def _start_processes(text: str) -> str:
    """`Start-Process [-NoNewWindow] python -ArgumentList @("-m", "vllm...", ...)` (or a string, or `"a","b"`) as
    the command `python -m vllm... ...` at the same offsets: the cmdlet and its own switches become spaces, the
    array's `@(`, `)`, commas and line breaks too, so the arguments are one command line, each word in place."""
    out = list(text)
    for k, m in enumerate(_START_PROCESS.finditer(text)):
        if k >= _SP_MAX:
            break
        _blank(out, m.start(), m.end())
        line_start = text.rfind("\n", 0, m.start()) + 1
        if (kept := _KEPT_AS.match(text, line_start, m.start())) is not None:  # `$proc = Start-Process ... -PassThru`
            _blank(out, kept.start(1), kept.end(1))
        pos, line_end = m.end(), _line_end(text, m.end())
        skip_value = in_args = False
        while pos < line_end:
            t = _SP_TOKEN.match(text, pos, line_end)
            if t is None:
                break
            word, pos = t.group(1), t.end()
            low = word.lower()
            if skip_value or low in ("-filepath", "-argumentlist", "-args"):
                _blank(out, t.start(1), t.end(1))  # the value of a switch of the cmdlet's own, or a parameter name
                skip_value, in_args = False, in_args or low in ("-argumentlist", "-args")
            elif (not in_args and _SP_SWITCH.match(word)) or low in _SP_OWN:  # `-NoNewWindow`, `-WindowStyle Hidden`
                _blank(out, t.start(1), t.end(1))
                skip_value = low in _SP_VALUED
            elif word == "@(":
                close = _closing_paren(text, t.start(1) + 1)
                _blank(out, t.start(1), t.end(1))
                for j in range(t.end(1), min(close + 1, len(text))):
                    if (text[j] in ",\n\r" and not _quoted_at(text, t.end(1), j)) or j == close:
                        out[j] = " "
                break
            elif word[0] in "\"'" and any(c in word for c in " \t"):  # `-ArgumentList "-m vllm.x --model m"`
                out[t.start(1)] = out[t.end(1) - 1] = " "
        for j in range(m.end(), line_end):  # `"a","b"`: the list's commas
            if out[j] == "," and not _quoted_at(text, m.end(), j):
                out[j] = " "
    return "".join(out)


def _blank(out: list[str], start: int, end: int) -> None:
    for j in range(start, end):
        if out[j] != "\n":
            out[j] = " "


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _closing_paren(text: str, opened: int, pair: str = "()") -> int:
    """The index of the bracket closing the one at `opened` (`()` by default, `{}` for a function body), quotes
    passed over (the text's end when none does)."""
    depth, quote = 0, ""
    for j in range(opened, len(text)):
        c = text[j]
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == pair[0]:
            depth += 1
        elif c == pair[1]:
            depth -= 1
            if depth == 0:
                return j
    return len(text)


def _quoted_at(text: str, start: int, at: int) -> bool:
    """Whether offset `at` is inside a quoted string that opens after `start` (per line: strings do not span)."""
    line_start = max(start, text.rfind("\n", 0, at) + 1)
    quote = ""
    for c in text[line_start:at]:
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
    return bool(quote)


def _rewritten(m: re.Match[str]) -> str:
    """`$Args` / `@Args` splatted as the shell array's words; a function that runs docker with its arguments as
    `docker` (indentation kept); `($env:X ?? 'lit')` as `"${X:-lit}"`; `$env:` as `$`."""
    if m.group(1):
        return f'"${{{m.group(1)}[@]}}"'
    if m.group(2):
        return m.group(0)[: len(m.group(0)) - len(m.group(2))] + "docker"
    if m.group(0) in (_FI, _END_FI):
        return "fi" if m.group(0) == _FI else ";fi"
    if m.group(3):  # `($env:LEN ?? '4096')`: the variable, else the literal (the shell's `${LEN:-4096}`)
        return f'"${{{m.group(3)}:-{next(g for g in m.groups()[3:] if g is not None)}}}"'
    return "$"


_FUNCTION = lazy(r"(?im)^[ \t]*function[ \t]+([A-Za-z_][\w-]*)[ \t]*\{")
_RUNS_DOCKER = lazy(r"(?i)&[ \t]*\$\w*(?:docker|podman)\w*[ \t]+@\w+|\b(?:docker|podman)(?:\.exe)?[ \t]+@\w+")


def _container_functions(text: str) -> set[str]:
    """Functions whose body runs docker (or podman) with all the arguments they are given (`function
    Invoke-Docker { param(...$DockerArgs) & $docker @DockerArgs }`): a call of one is a docker command."""
    out: set[str] = set()
    for m in _FUNCTION.finditer(text):
        body = text[m.end() : _closing_paren(text, m.end() - 1, "{}")]
        if _RUNS_DOCKER.search(body):
            out.add(m.group(1))
    return out


def read_powershell(path: str, text: str) -> list[Deployment]:
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.groups import is_launch
    from kvlint.launches.script import run_script

    env: dict[str, str] = {}
    lines = []
    arrays: set[str] = set()
    depth = 0  # inside an `@( ... )` array this many parentheses deep
    blocks: list[bool] = []  # the open `{ }` blocks, innermost last: True for an `if` statement's
    source = text
    text = _start_processes(text) if _START_PROCESS.search(text) else text
    for line in text.split("\n"):
        if (captured := _CAPTURED.match(line)) is not None:
            line = captured.group(1) + " " * (captured.end() - len(captured.group(1))) + line[captured.end():]
        m = _ASSIGN.match(line) if _ARRAY_OPEN.match(line) is None else None  # `$A = @(` opens an array
        if not depth and (fallback := _ENV_OR.match(line)) is not None:
            env[fallback.group(1)] = next(g for g in fallback.groups()[2:] if g is not None)  # the variable's default
            line = " " * len(line)
        elif m is not None and not depth:
            _assign(env, m.group(1), line[line.index("=") + 1 :].strip())
            line = " " * len(line)
        elif "$" in line and "[" in line and "=" in line:
            for d in _PARAM_DEFAULT.finditer(line):  # `param([string]$Model = "org/name")`
                env[d.group(1)] = next(g for g in d.groups()[1:] if g is not None)
        opened = _ARRAY_OPEN.match(line) if not depth else None
        if opened is not None:
            arrays.add(opened.group(2))
            head = opened.group(1) + opened.group(2) + opened.group(4) + "=("  # `$A += @(` adds to it
            line = head + " " * (opened.end() - len(head)) + line[opened.end() :]
            depth = 1
        if depth:
            line, depth = _array_line(line, len(head) if opened is not None else 0, depth)
        elif "{" in line or "}" in line:
            line = _block_line(line, blocks)
        line = _CAST.sub(lambda c: " " * len(c.group()), line) if "]$" in line else line
        line = _ALL_STREAMS.sub(" ", line) if "*>" in line else line
        line = _PROGRAM_OF.sub(lambda c: c.group(1) + " " * (len(c.group()) - len(c.group(1))), line) \
            if "." in line else line
        lines.append(line[:-1] + "\\" if line.endswith("`") else line)
    names = "|".join(sorted(arrays))
    runners = "|".join(re.escape(f) for f in sorted(_container_functions(source)))
    ref = lazy(rf"\$env:(?=[A-Za-z_])|[$@]({names or '(?!)'})\b(?!\s*\+?=)"
               rf"|(?m:^[ \t]*(?:&[ \t]*)?)({runners or '(?!)'})(?=[ \t])"
               r"|\([ \t]*\$(?:env:)?([A-Za-z_]\w*)[ \t]*\?\?[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|(\d+))[ \t]*\)"
               rf"|{_FI}|{_END_FI}")
    script, offsets = substitute("\n".join(lines), ref, _rewritten)
    launches, _, notes = run_script(mapped(path, source, script, offsets), env)
    ctx = LaunchContext(notes=tuple(notes))
    return [d for d in (finish(path, f, ctx, ManifestGpu()) for f in launches) if is_launch(d)]
