"""Dockerfiles: CMD / ENTRYPOINT (shell or exec form) with ARG / ENV defaults and the FROM image."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator, Mapping

from kvlint.deployment import Deployment
from kvlint.findings import Finding, Severity
from kvlint.launches import ReadResult
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.env import Field, with_supplied
from kvlint.launches.images import entrypoint_engine
from kvlint.launches.script import FoundLaunch, launch_in_argv
from kvlint.lazyre import lazy
from kvlint.sources.text import LineIndex, Mapped

_INSTR = lazy(r"^\s*(FROM|ARG|ENV|CMD|ENTRYPOINT)\s+(.*)$", re.I)


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds): a Dockerfile's launch, its comments, and a KV001 error
    where an engine's CMD / ENTRYPOINT is meant as an exec-form array but is not JSON."""
    from kvlint.sources.comments import scan_comments

    index = LineIndex(text)
    handed = _script_to_engine_cli(path, text, index)
    return ReadResult(path, read_dockerfile(path, text, index), findings=_broken_exec_forms(path, text, index) + handed,
                      comments=scan_comments(text))


_SCRIPT_WORD = lazy(r"(?:\.{0,2}/)?[\w./-]*\.(?:sh|bash|py)|(?:/usr)?(?:/local)?(?:/bin/)?(?:ba|da)?sh|python[\d.]*")


def _script_to_engine_cli(path: str, text: str, index: LineIndex) -> list[Finding]:
    """KV019: an exec-form `CMD ["./startup.sh"]` in a build FROM the engine's own image (its entry point starts the
    engine: `vllm serve`, or an older image's `python3 -m vllm.entrypoints.openai.api_server`) with no ENTRYPOINT
    of its own: Docker hands the CMD to that entry point, which reads the script's path as its own argument, and
    the script never runs (sample K280's LoRA server)."""
    image, env, parts = _instructions(text)
    cmd = parts.get("CMD")
    if cmd is None or "ENTRYPOINT" in parts or not cmd[1].lstrip().startswith("[") or entrypoint_engine(image) is None:
        return []
    words = _argv(path, text, index, *cmd, env)
    if not words or _SCRIPT_WORD.fullmatch(words[0].text) is None:
        return []
    program = " ".join(w.text for w in words[:3]) + (" ..." if len(words) > 3 else "")
    message = (f"CMD [{program}] is handed to the entry point of {image}, which starts the engine and reads "
               f"`{words[0].text}` as its own argument (a model, or a word it refuses): the container exits, and "
               f"{_script_run(words)} never runs")
    fix = f'set `ENTRYPOINT ["{_script_run(words)}"]` (or `ENTRYPOINT []` before the CMD) so the script runs'
    return [Finding("KV019", "cmd-handed-to-engine-cli", Severity.WARNING, message, words[0].span, fix=fix,
                    path=path)]


def _broken_exec_forms(path: str, text: str, index: LineIndex) -> list[Finding]:
    """`CMD ["bash", "-c", "... if [ \\$i ... ]"]`: an array JSON rejects (`\\$` is no JSON escape) is run by Docker as
    a shell command, `/bin/sh -c '["bash", ...'`, whose first word is no program: the container exits at start.
    Said when the instruction runs an engine (a broken CMD of another image is not this linter's business)."""
    from kvlint.launches.read import kv001
    from kvlint.launches.script import engines_named

    out: list[Finding] = []
    for start, body in _logical_lines(text):
        m = _INSTR.match(body)
        if m is None or m.group(1).upper() not in ("CMD", "ENTRYPOINT") or not m.group(2).lstrip().startswith("["):
            continue
        arg = m.group(2)
        try:
            json.loads(arg)
            continue
        except json.JSONDecodeError as exc:
            if not engines_named(arg):
                continue
            line, col = index.locate(start + m.start(2) + exc.pos)
            op = m.group(1).upper()
            out.append(kv001(path, f"{op} is not a JSON array ({exc.msg} at line {line}, column {col}): Docker runs "
                                   "the whole text as a shell command instead (`/bin/sh -c '[\"...'`), whose first "
                                   "word is no program, so the container exits and the engine never starts; the "
                                   "launch is read as the array was meant", line, col))
    return out


def base_image(text: str) -> str | None:
    """The image the last stage starts from (`FROM --platform=linux/amd64 vllm/vllm-openai:latest AS serve`)."""
    image = None
    for _, body in _logical_lines(text):
        m = _INSTR.match(body)
        words = [w for w in m.group(2).split() if not w.startswith("--")] if m is not None else []
        if m is not None and m.group(1).upper() == "FROM" and words:
            image = words[0]  # past `--platform=linux/amd64`
    return image


def read_dockerfile(path: str, text: str, index: LineIndex | None = None,
                    run_env: Mapping[str, str] | None = None) -> list[Deployment]:
    """The image's default launch (ENTRYPOINT + CMD with a model); `run_env` is the environment it is run with
    (a compose service that builds this file), which overrides the file's own ENV as `docker run -e` does."""
    index = index or LineIndex(text)
    image, env, parts = _instructions(text, run_env)
    fields = [f for op in ("ENTRYPOINT", "CMD") if op in parts for f in _argv(path, text, index, *parts[op], env)]
    default = entrypoint_engine(image) if "ENTRYPOINT" not in parts and not _program_cmd(parts, fields) \
        and not (fields and _SCRIPT_WORD.fullmatch(fields[0].text)) else None  # KV019: a script meant to run
    found = launch_in_argv(fields, env, image_default=default) if fields else None
    if found is None and "ENTRYPOINT" in parts and "CMD" in parts:
        found = _flags_for_entrypoint(_argv(path, text, index, *parts["CMD"], env), env)
    dep = finish(path, found, LaunchContext(image=image), ManifestGpu()) if found else None
    if dep is None and fields:
        entry = _script_run(fields)
        deps = _written_entry_script(path, text, entry, env, image)
        if not deps and run_env:  # run by a compose service with its environment: the script the build copies in
            deps = _copied_entry_script(path, text, entry, env, image)
        return [_with_pin(d, text, env, index) for d in deps]
    # an engine entry point with no model is the image, not a launch: it is launched where it is run with one; so is
    # one whose model is only a variable the build never sets (`CMD ["sh", "-c", "vllm serve \"$MODEL_ID\" ..."]`,
    # sample K267: the manifest that runs the image sets MODEL_ID, counting rule 5)
    if dep is None or dep.model is None or (run_env is None and _run_time_model(dep, env)):
        return []
    return [_with_pin(dep, text, env, index)]


def _run_time_model(dep: Deployment, env: Mapping[str, str]) -> bool:
    """Whether the launch's model is one variable that neither the build's ENV / ARG nor a default sets."""
    from kvlint.launches.entrypoint import env_model

    name = env_model(dep)
    return name is not None and name not in env


def _with_pin(dep: Deployment, text: str, env: Mapping[str, str], index: LineIndex) -> Deployment:
    """The launch with the release the build installs by an exact pin (`RUN pip install vllm==0.6.3` on a CUDA base,
    kvlint.builds), where the FROM image's tag gave none: the image runs the release its build put in it."""
    from kvlint.builds import pinned_release
    from kvlint.record import replace
    from kvlint.span import Span

    pin = pinned_release(text, dep.engine, env) if dep.engine_version is None else None
    if pin is None:
        return dep
    line, col = index.locate(pin[1])
    span = Span(dep.path, line, col, line, col + len(pin[0]))
    note = f"engine release {pin[0]} from the build's install pin (line {line})"
    return replace(dep, engine_version=pin[0], engine_version_span=span, notes=(*dep.notes, note))


def _program_cmd(parts: dict[str, tuple[int, str]], fields: list[Field]) -> bool:
    """A shell-form CMD that names a program (`CMD service nginx start && ollama serve` on an engine image, sample
    K94): the author means the container to run that command, not to hand it to the base image's engine as its
    arguments (which would start the engine on a model named `/bin/sh`, Docker's shell-form prefix). Read as a
    command; it is a launch only when it starts the engine itself."""
    cmd = parts.get("CMD")
    return cmd is not None and not cmd[1].lstrip().startswith("[") and bool(fields) \
        and not fields[0].text.startswith("-")


def _instructions(text: str, run_env: Mapping[str, str] | None = None,
                  ) -> tuple[str | None, dict[str, str], dict[str, tuple[int, str]]]:
    """The image the file builds on (its last FROM), the environment its ARG / ENV lines and `run_env` give, and
    the last ENTRYPOINT and CMD (offset, text)."""
    env: dict[str, str] = with_supplied({})  # a build arg the file gives no default is left to `--build-arg`
    image: str | None = None
    parts: dict[str, tuple[int, str]] = {}
    for start, body in _logical_lines(text):
        m = _INSTR.match(body)
        if not m:
            continue
        op, arg = m.group(1).upper(), m.group(2)
        if op == "FROM":
            image = arg.split()[0] if arg.split() else None
        elif op == "ARG":
            env.update(_build_args(arg))
        elif op == "ENV":
            env.update(_assignments(arg))
        else:
            parts[op] = (start + m.start(2), arg)
    env.update(run_env or {})
    return image, env, parts


def entrypoint(path: str, text: str, run_env: Mapping[str, str] | None = None,
               ) -> tuple[list[Field], str | None, dict[str, str]]:
    """What the built image runs before the arguments a container is given (its ENTRYPOINT's words, each at its
    place in this file), the image it builds on (whose entry point runs when it sets none) and its environment."""
    image, env, parts = _instructions(text, run_env)
    words = _argv(path, text, LineIndex(text), *parts["ENTRYPOINT"], env) if "ENTRYPOINT" in parts else []
    return words, image, env


def default_command(path: str, text: str) -> tuple[list[Field], dict[str, str]]:
    """What the built image runs when a container is given no command: its ENTRYPOINT's words then its CMD's, each
    at its place in this file, and the environment its ARG / ENV lines give."""
    _, env, parts = _instructions(text)
    index = LineIndex(text)
    words = [w for op in ("ENTRYPOINT", "CMD") if op in parts for w in _argv(path, text, index, *parts[op], env)]
    return words, env


# the line that opens a here-document written to a file: `cat > /usr/local/bin/serve <<'SH'`, `tee /x.sh <<EOF`,
# or BuildKit's own `COPY [--chmod=755] <<'SH' /entrypoint.sh` (the destination after the marker)
# `cat > F <<EOF`, `tee F <<EOF`, `COPY <<EOF F`, and the redirection after the here-document (`cat <<'EOF' > F`,
# sample K277's start script)
_WRITES = lazy(r"(?:\bcat\s*>|\btee(?:\s+-a)?\s)\s*[\"']?([^\s\"'<>;&|]+)[\"']?[^\n]*<<"
               r"|^\s*(?:COPY|ADD)\s[^\n]*<<-?\s*[\"']?\w+[\"']?\s+[\"']?([^\s\"']+)[\"']?\s*$"
               r"|\bcat\s*<<-?\s*[\"']?\w+[\"']?\s*>\s*[\"']?([^\s\"'<>;&|]+)", re.I)


def _script_run(fields: list[Field]) -> str:
    """The script an entry point runs: its first word, or the script a shell is handed (`CMD ["/bin/bash",
    "/app/start_server.sh"]`, sample K120)."""
    first = fields[0].text
    if first.rsplit("/", 1)[-1] in _SHELLS and len(fields) > 1 and not fields[1].text.startswith("-"):
        return fields[1].text
    return first


_SHELLS = frozenset(("sh", "bash", "dash"))


def _written_entry_script(path: str, text: str, entry: str, env: dict[str, str], image: str | None) -> list[Deployment]:
    """An entry point the Dockerfile writes itself (`RUN <<EOF` / `cat > /usr/local/bin/serve <<'SH'` / `RUN echo
    '...\\n\\ ...' > /app/start.sh`, then `ENTRYPOINT ["/usr/local/bin/serve"]`): the image runs that script, so
    the launch is the engine command in its body, read at its own lines with the image's environment. A script it
    only runs at build time is none."""
    written = _heredoc_script(path, text, entry) if "<<" in text else None
    if written is None and ("echo" in text or "printf" in text):
        written = _echoed_script(path, text, entry)
    if written is None:
        return []
    return _script_launches(path, written, env, image,
                            f"read from the script the Dockerfile writes to {entry}, the script its container runs")


def _copied_entry_script(path: str, text: str, entry: str, env: dict[str, str], image: str | None
                         ) -> list[Deployment]:
    """The launch of the script the build copies in as its entry point (`COPY start.sh /app/start.sh`, `CMD
    ["/app/start.sh"]`), read with the environment the image is run with (a compose service's, sample K130: its
    `MODEL_NAME` is the model the script's `--model "${MODEL_NAME}"` serves). Asked only with that environment: alone,
    such a script is the image (its own reading says where its launch is). A model still only the environment's is
    none; a script outside the Dockerfile's folder is not looked for."""
    import os

    from kvlint.builds import copies, landed
    from kvlint.launches.entrypoint import env_model
    from kvlint.sources.text import read_small

    for sources, dest in copies(text):
        for source in sources:
            if not _same_file(landed(source, dest), entry) or ".." in source or source.startswith("/"):
                continue
            script_path = os.path.join(os.path.dirname(path), source)
            body = read_small(script_path, 256 * 1024)
            if body is None:
                return []
            note = f"read from {source}, which the Dockerfile copies to {entry}, the script its container runs"
            deps = _script_launches(script_path, Mapped.whole(script_path, body), env, image, note)
            return [d for d in deps if env_model(d) is None]
    return []


def _script_launches(path: str, script: Mapped, env: dict[str, str], image: str | None, note: str
                     ) -> list[Deployment]:
    """The launches with a model of a script the image runs, read with the image's environment."""
    from kvlint.launches.script import unread_in

    launches, notes, _, _ = unread_in(script, dict(env))
    ctx = LaunchContext(image=image, notes=(note, *notes))
    deps = [finish(path, f, ctx, ManifestGpu()) for f in launches]
    return [d for d in deps if d is not None and d.model is not None]


def _heredoc_script(path: str, text: str, entry: str) -> Mapped | None:
    """The body of the here-document the Dockerfile writes to `entry`, at its own lines."""
    from kvlint.launches.shellfile import as_written, heredoc_bodies

    for start, body, opened in heredoc_bodies(text):
        opening = text[text.rfind("\n", 0, max(start - 1, 0)) + 1 : start]
        m = _WRITES.search(opening)
        if m is not None and _same_file(m.group(1) or m.group(2) or m.group(3), entry):
            padded = "\n" * text.count("\n", 0, start) + body
            # an unquoted delimiter: the script as the shell writes it (`\\` one backslash, so `... \\` then a
            # newline continues the written script's command; `\$` a dollar), each character at its place
            return as_written(path, padded) if opened is not None and "\\" in body else Mapped.whole(path, padded)
    return None


def _echoed_script(path: str, text: str, entry: str) -> Mapped | None:
    """What `echo` / `printf` write to `entry`, each character at the place in the Dockerfile it comes from."""
    from kvlint.launches.echo_writes import echo_writes

    for target, (body, offsets) in echo_writes(text).items():
        if _same_file(target, entry):
            return Mapped(path, body, index=LineIndex(text), offsets=offsets)
    return None


def _same_file(written: str, run: str) -> bool:
    """`/app/start.sh` written and `/app/start.sh` or `./start.sh` (run from the WORKDIR) run; a bare name is
    a program on PATH, not this file."""
    if run.startswith("/"):
        return written == run
    # a relative name written from the WORKDIR (`cat <<EOT > run.sh`, turn 38's K347) is the `./run.sh` run there
    return run.startswith("./") and (written.endswith("/" + run[2:]) or written.removeprefix("./") == run[2:])


def _flags_for_entrypoint(cmd: list[Field], env: dict[str, str]) -> FoundLaunch | None:
    """`ENTRYPOINT ["/start.sh"]` + `CMD ["--model", "/model", "--gpu-memory-utilization", "0.9"]`: an entry
    point kvlint cannot see into, handed flags that are unmistakably one engine's (the rule a Kubernetes
    args-only container and `docker run IMAGE --flags` follow), starts that engine."""
    from kvlint.launches.infer import engine_from_flags, inferred_note

    engine = engine_from_flags(cmd)
    if engine is None:
        return None
    return FoundLaunch(engine, tuple(cmd), cmd[0].span, env, notes=(inferred_note(engine, "engine ENTRYPOINT"),))


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, text) per instruction, `\\`-continued lines joined with their offsets kept. A comment line or an
    empty line inside a continuation is dropped and the instruction goes on, as Docker's parser does (sample K109:
    `# ...` lines between the items of an exec-form CMD)."""
    offset, buf_start = 0, 0
    buf: list[str] | None = None
    for line in text.split("\n"):
        if buf and (not line.strip() or line.lstrip().startswith("#")):
            buf.append(" " * (len(line) + 1))  # blanked, its length kept: offsets still match the file
            offset += len(line) + 1
            continue
        if buf is None and line.lstrip().startswith("#"):
            offset += len(line) + 1  # a comment of its own continues nothing, whatever it ends with (sample K115:
            continue  # `# Run: docker run --gpus all \` in a header swallowed the FROM below it)
        if buf is None:
            buf_start, buf = offset, []
        stripped = line.rstrip()
        # a continued line keeps its length (+1 for the newline) so offsets still match the file
        buf.append((stripped[:-1] + " " * (len(line) - len(stripped) + 2)) if stripped.endswith("\\") else line)
        offset += len(line) + 1
        if not stripped.endswith("\\"):
            yield buf_start, "".join(buf)  # parts joined once (`+=` per line is quadratic outside CPython)
            buf = None
    if buf:
        yield buf_start, "".join(buf)


def _build_args(arg: str) -> dict[str, str]:
    """`ARG NAME=default` sets a default; a bare `ARG NAME` sets nothing (its value is a build argument)."""
    return {k: v for k, eq, v in (tok.partition("=") for tok in _quoted_words(arg)) if eq}


def _assignments(arg: str) -> dict[str, str]:
    words = arg.split()
    if not words:
        return {}
    if "=" not in words[0]:  # legacy `ENV KEY value`
        key, _, value = arg.partition(" ")
        return {key: value.strip()}
    return {k: v for k, _, v in (tok.partition("=") for tok in _quoted_words(arg))}


_SHLEX_MAX = 64 * 1024  # characters of one `ENV` / `ARG` line split as a shell does


def _quoted_words(arg: str) -> list[str]:
    """`ENV CMD="python3 -m sglang.launch_server --model-path M" PORT=30000`: Docker splits the pairs as a shell
    does, so a quoted value keeps its spaces (a whole engine command a `CMD ["bash", "-c", "$CMD"]` runs, sample
    K323's RunPod worker); an unbalanced quote falls back to plain words, quotes stripped, and so does a line longer
    than any real one (shlex reads a character per step of Python, and its token grows by copies: a 2 MB `ENV` line
    of fuzz seed 109 took four minutes)."""
    if len(arg) > _SHLEX_MAX:
        return [w.strip("\"'") for w in arg.split()]
    try:
        return shlex.split(arg, comments=False, posix=True)
    except ValueError:
        return [w.strip("\"'") for w in arg.split()]


def _argv(path: str, text: str, index: LineIndex, off: int, arg: str, env: dict[str, str]) -> list[Field]:
    if arg.lstrip().startswith("["):
        fixed, back = arg, list(range(len(arg) + 1))
        try:
            items = json.loads(arg)
        except ValueError:  # Docker runs it as a shell command (KV001); read as it was meant
            fixed, back = _lenient(arg)
            try:
                items = json.loads(fixed)
            except ValueError:
                items = None
        whole = Mapped.whole(path, text, index)
        if isinstance(items, list):
            starts = _literal_starts(fixed)
            starts = starts if len(starts) == len(items) else [-1] * len(items)
            return [_exec_item(path, index, off, fixed, back, str(i), whole, at)
                    for i, at in zip(items, starts, strict=True)]
        if items is None and fixed.rstrip().endswith("]"):
            return _loose_items(path, index, off, fixed, back, whole)
    # continued lines keep their length, so the instruction's text is a slice of the file: offsets, not positions
    return _shell_words(Mapped(path, arg, index=index, offsets=range(off, off + len(arg) + 1)), env)


_ITEM = lazy(r'"(?:[^"\\]|\\.)*"|[^\s,\[\]"]+')  # a string literal, or a bare word between the commas


def _loose_items(path: str, index: LineIndex, off: int, arg: str, back: list[int], whole: Mapped) -> list[Field]:
    """The items of an array JSON refuses even leniently (sample K109: `"--model", env.MODEL_NAME,`), read as the
    author meant them (KV001 says Docker does not): each string literal as its text, each bare word as an expression
    kvlint does not resolve, each at its place."""
    from kvlint.span import Span

    out: list[Field] = []
    for m in _ITEM.finditer(arg, arg.find("[") + 1):
        word = m.group(0)
        if word.startswith('"'):
            try:
                item = json.loads(word)
            except ValueError:
                item = word[1:-1]
            out.append(_exec_item(path, index, off, arg, back, str(item), whole, m.start()))
            continue
        line, col = index.locate(off + back[m.start()])
        out.append(Field(word, Span(path, line, col, line, col + len(word)), False, (word,)))
    return out


def _shell_words(m: Mapped, env: Mapping[str, str]) -> list[Field]:
    from kvlint.launches.env import expand_word
    from kvlint.sources.shell import tokenize

    cmds, _ = tokenize(m)
    return [f for c in cmds for w in c.words for f in expand_word(w, m, env)]


_JSON_ESCAPES = frozenset('"\\/bfnrtu')


def _lenient(arg: str) -> tuple[str, list[int]]:
    """The array text with each backslash JSON does not allow (`\\$`, `\\.`) kept as a literal one (`\\\\$`), as the
    author meant the exec form (the KV001 error says Docker does not); (text, where each of its characters is in
    `arg`). A valid escape (`\\\\`, `\\"`) is passed over whole, so its second character is never taken for one."""
    out: list[str] = []
    back: list[int] = []
    k = 0
    while k < len(arg):
        if arg[k] == "\\":
            pair = arg[k : k + 2]
            if len(pair) == 2 and pair[1] in _JSON_ESCAPES:
                out.append(pair)
                back.extend((k, k + 1))
                k += 2
                continue
            out.append("\\")  # the doubled backslash stands where the lone one was
            back.append(k)
        out.append(arg[k])
        back.append(k)
        k += 1
    back.append(len(arg))
    return "".join(out), back


def _literal_starts(arg: str) -> list[int]:
    """Where each string literal of a JSON array opens (its quote), in order."""
    out: list[int] = []
    k, inside = 0, False
    while k < len(arg):
        ch = arg[k]
        if inside and ch == "\\":
            k += 2
            continue
        if ch == '"':
            inside = not inside
            if inside:
                out.append(k)
        k += 1
    return out


def _exec_item(path: str, index: LineIndex, off: int, arg: str, back: list[int], item: str,
               whole: Mapped | None = None, at: int = -1) -> Field:
    """An exec-form item as a word, each of its characters at its place in the file (a JSON escape's character at
    the escape), so a `sh -c` script written over `\\`-continued lines keeps every value's line and column."""
    from kvlint.span import Span

    k = at if at >= 0 else arg.find(json.dumps(item))
    line, col = index.locate(off + (back[k] + 1 if k >= 0 else 0))
    span = Span(path, line, col, line, col + len(item))
    offsets = _decoded_offsets(arg, k + 1, len(item)) if k >= 0 and whole is not None else None
    if offsets is None:
        return Field(item, span)
    return Field(item, span, offsets=tuple(off + back[o] for o in offsets), source=whole)


def _decoded_offsets(arg: str, start: int, length: int) -> list[int] | None:
    """Where each decoded character of the JSON string literal at `start` (after its quote) sits in `arg`: an escape
    (`\\"`, `\\u00e9`) is one character at its backslash; None when the literal does not decode to `length`."""
    out: list[int] = []
    k = start
    while k < len(arg) and arg[k] != '"' and len(out) < length:
        out.append(k)
        k += (6 if arg[k + 1 : k + 2] == "u" else 2) if arg[k] == "\\" else 1
    return out if len(out) == length else None
