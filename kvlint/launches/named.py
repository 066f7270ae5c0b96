"""Never silent: a file that names an engine entry point or image on a code or config line, and from which
no reader assembled a launch, gets one KV008 info finding at the first such place.

A linter that skips a launch tells its user the launch is fine. The readers are built shape by shape; this
is the net under all of them, so a shape kvlint does not read yet is reported, not passed over. Prose is not
a place: only the kinds the readers claim are looked at (a README is not read), and a mention in a comment
(`#`, `//`, `REM`) or a Python docstring does not count.
"""

from __future__ import annotations

import re

from kvlint.findings import Finding, Severity
from kvlint.lazyre import lazy
from kvlint.span import Span

KV008 = ("KV008", "unknown-launch-layout")
# what starts an engine (commands, modules, wrappers) and the images whose entry point is one or that carry one
ENTRY_MARKERS = ("vllm serve", "sglang serve", "sglang.launch_server", "vllm.entrypoints", "vllm-serve",
                 "trl.scripts.vllm_serve", "sglang_router.launch_server")
_NAMED = lazy(r"\bvllm[\"']?[ \t]+serve\b|\bsglang[\"']?[ \t]+serve\b|\bsglang(?:_router)?\.launch_server\b"
              r"|\bvllm\.entrypoints\b"
              r"|\btrl[ \t]+vllm-serve\b|\btrl\.scripts\.vllm_serve\b"
              # a wrapper program named for serving the engine (Flox's `vllm-serve`, turn 37's K328 Deployment)
              r"|(?<![\w./-])(?:vllm|sglang)-serve(?![\w.-])"
              r"|\bvllm/vllm-openai\b|\bvllm/vllm-tpu\b|\blmsysorg/sglang\b"
              # SageMaker's LMI (DJL Serving) container running vLLM: its entry point module, or the rolling batch
              r"|\bdjl_python\.lmi_vllm\b|\bOPTION_ROLLING_BATCH[\"']?[ \t]*[:=,][ \t]*[\"']?vllm\b"
              # any image whose name carries an engine's, as a manifest, values file, HCL, TOML or JSON writes it
              # (a Makefile's `IMAGE ?= org/app-vllm:latest` too), or a compose container's name (`container_name:
              # vllm-server` of a service built from a Dockerfile not in the file, sample K236)
              r"|(?i:\bimage|\brepository|\bimage[_-]?repo(?:sitory)?|\bdockerfile|\bcontainer_name)[\"']?[ \t]*"
              r"(?:[?+!]?=|::?=?)"
              r"[ \t]*[\"']?"
              r"(?P<image>[^\s\"'#,]*(?:vllm|sglang)[^\s\"'#,]*)")
# a container run from an image variable named for an engine (`docker run -d \` ... `"$SGLANG_IMAGE" $ARGS`), over
# `\` continuation lines
_RUN_VAR = lazy(r"\b(?:docker|podman)[ \t]+(?:container[ \t]+)?run\b(?:[^\n#\\]|\\\n|\\){0,2400}?"
                r"(?<=[\s\"'])(\$\{?[A-Za-z_]*(?:vllm|sglang|VLLM|SGLANG)[A-Za-z0-9_]*(?:\[[@*]\])?\}?)(?=[\s\"'\\]|$)")
# (a word of its own: not `${VLLM_X:+-e VLLM_X=$VLLM_X}`, an option given only when a variable is set)
# a container run under a name that says it is an engine's (`docker run -d --name vllm-ci ... vllm-inference:ci-test`),
# its image the repository's own build whose entry point kvlint does not see
_RUN_NAMED = lazy(r"\b(?:docker|podman)[ \t]+(?:container[ \t]+)?run\b(?:[^\n#\\]|\\\n|\\){0,600}?--name[ \t=]+[\"']?"
                  r"([\w.-]*(?:vllm|sglang|VLLM|SGLANG)[\w.-]*)")
# a container run of an image named for an engine (`docker run -d --gpus all ... myorg/vllm-server:latest`): a build
# whose entry point kvlint does not see; a word holding `/` or a tag, not a mount (`:/`), an assignment or an option
_RUN_IMAGE = lazy(r"\b(?:docker|podman)[ \t]+(?:container[ \t]+)?run\b(?:[^\n#\\]|\\\n|\\){0,600}?(?<=[\s\"'])"
                  r"((?:[\w.-]+/)+[\w.-]*(?:vllm|sglang)[\w.-]*(?::[\w.-]+)?|[\w.-]*(?:vllm|sglang)[\w.-]*:[\w.-]+)"
                  r"(?=[\s\"'\\]|$)")
_ENTRY_WORDS = lazy(r"serve|launch_server|entrypoints")
_COMMENT = lazy(r"(^|\s)(#|//|REM\s|::)")
_DOCSTRING = ('"""', "'''")
_PASS_THROUGH = ("$@", "${@}", "[@]}", "$*")
# a Dockerfile's shell-form CMD naming a program (kvlint.launches.dockerfile._program_cmd), and an ENTRYPOINT of its own
_PROGRAM_CMD = lazy(r"(?im)^[ \t]*CMD[ \t]+(?![\[-])\S")
_ENTRYPOINT = lazy(r"(?im)^[ \t]*ENTRYPOINT\b")


# documents whose readers look at their code blocks themselves: their prose is no place
_DOCUMENTS = frozenset({"markdown", "rst", "asciidoc", "org"})


def _entry_engine(image: str) -> str | None:
    """The engine an image's own entry point starts (vLLM's images: `vllm serve`), None for one with none."""
    from kvlint.launches.images import entrypoint_engine

    return entrypoint_engine(image)


def passed_over(path: str, text: str, kind: str, named: bool = False) -> Finding | None:
    """The KV008 for a file that names an engine and gave no launch, at the first named place; None when no
    code or config line names one. `named`: the whole document names an engine where `text` (a document's code
    blocks alone) may not (a README's prose: "Start the vLLM inference server")."""
    if kind in _DOCUMENTS:
        return None  # prose: a document's reader looks at its code blocks itself (kvlint.launches.markdown, ...)
    found = _first_place(text, kind)
    if found is not None and kind == "notes" and not _ENTRY_WORDS.search(found[2]):
        return None  # prose that names an image is no place in a notes file: only a command is
    listed = False  # the place is a `[NAME, "serve", ...]` list whose program is a run-time name
    if found is None and kind == "python":
        found = _run_from_name(text) or _ray_config(text) or _engine_decorator(text)
        if found is None:
            found = _serve_list(text)
            listed = found is not None
        found = found or _container_list(text) or _built_command(text)
    if found is None and "--gpus" in text and (named or _ENGINE_WORD.search(text) is not None):
        found = _gpu_run_with_flags(text)
    if found is None and " serve" in text and (named or _ENGINE_WORD.search(text) is not None):
        found = _image_run_serving(text)
    if found is None:
        return _flag_shaped(path, text, kind) or _array_shaped(path, text, kind) \
            or _launch_shaped(path, text, kind, named) \
            or _named_file(path, text, kind) \
            or _named_manifest(path, text, kind) or _engine_environment(path, text, kind) \
            or _tagged_image(path, text, kind) \
            or _configured_engine(path, text, kind) \
            or _installed_engine_script(path, text, kind) or _launcher_with_model(path, text, kind) \
            or (_entry_named_module(path, text) if "launch_server" in text and kind not in _DOCUMENTS else None) \
            or (_engine_own_module(path, text) if ("-m sglang." in text or "-m vllm." in text)
                and kind not in _DOCUMENTS else None) \
            or (_dynamo_graph(path, text) if "dynamo serve" in text else None)
    line, col, what = found
    named_run = what.startswith("--name ")
    what = what.removeprefix("--name ")
    if _around_engine(what):
        return None  # `vllm-benchmark`, `sglang-router`: a program beside the engine, run here, is no engine's start
    span = Span(path, line, col, line, col + len(what.removeprefix("flag ").removeprefix("built ")))
    source_line = text.split("\n", line)[line - 1]
    if re.fullmatch(r"\$\{[A-Za-z_]\w*\[[@*]\]\}", what):
        message = (f"a container is run here with the engine's arguments of the array {what}, which this file does "
                   "not set (a file it sources, or its caller), so kvlint could not read "
                   "a launch from it; nothing here is checked")
    elif what == "serve" and _IMAGE_SERVE.search(source_line):
        message = ("a container is run here with the engine's subcommand `serve` from an image set at run time (an "
                   "engine's build this file does not name, its model the image's own or its caller's): kvlint could "
                   "not read a launch from it; nothing here is checked")
    elif any(mark in source_line for mark in _PASS_THROUGH):
        message = (f"`{what}` is started here with arguments known only at run time (passed to this file, or "
                   "gathered from its environment: an image's entry point or a wrapper script): the launch is where "
                   "it is called with a model; nothing here is checked")
    elif named_run:
        message = (f"a container named {what} is run here, from an image kvlint could not read a launch from (the "
                   "repository's own build, whose entry point and model are not in this file); nothing here is checked")
    elif kind == "dockerfile" and _PROGRAM_CMD.search(text) and not _ENTRYPOINT.search(text) \
            and _entry_engine(what) is not None:
        message = (f"this image builds on `{what}` and its shell-form CMD runs a program of its own, which Docker "
                   "hands to the base image's entry point as arguments (`/bin/sh -c ...`): as written the container "
                   "starts the engine on a model named /bin/sh; reset the entry point (`ENTRYPOINT []`) to run the "
                   "command. No launch is read here")
    elif kind == "dockerfile":
        message = (f"this image starts the engine (`{what}`) with no model: the launch is where the image is run "
                   "with one (docker run, a manifest, a compose file); nothing here is checked")
    elif kind == "python" and what.startswith("@"):
        message = (f"a function decorated with `{what}(...)` here has a plugin start a {what[1:]} server for it "
                   "(Metaflow's `@vllm` step decorator and the like), with the model and settings its arguments give: "
                   "kvlint does not read such a decorator as a launch yet; nothing here is checked")
    elif kind == "python" and what in _RAY_CALLS:
        message = (f"a Ray Serve LLM deployment is configured here ({what}: it runs vLLM), but kvlint could not read "
                   "its model from it (a config built elsewhere or at run time); nothing here is checked")
    elif "lmi_vllm" in what or what.startswith("OPTION_ROLLING_BATCH"):
        message = (f"SageMaker's LMI container is configured here to run vLLM (`{what}`): its model and settings are "
                   "the container's environment (HF_MODEL_ID, OPTION_*), which kvlint does not read as a launch yet; "
                   "nothing here is checked")
    elif listed:
        message = (f"a program is started here from the argument list `[{what.removesuffix(' serve')}, \"serve\", "
                   "...]`, whose program is set at run time (a path kvlint cannot name), in a file that names an "
                   "engine: kvlint read no launch from it; nothing here is checked")
    elif kind == "python" and re.fullmatch(r"[A-Za-z_][\w.]*", what):
        message = (f"a program is started here from {what}, an argument list named for an engine that this file does "
                   "not hold (imported or built elsewhere): the launch is where the list is written; nothing here "
                   "is checked")
    elif what.startswith("--env "):
        message = (f"a service is deployed here on GPUs with its model in {what[6:]}, from an image or source this "
                   "file does not name (the repository's own build, whose entry point holds the command), in a file "
                   "that names an engine: kvlint could not read a launch from it; nothing here is checked")
    elif what.startswith("-e "):
        message = (f"a container is run here on GPUs with its model in {what[3:]}, from an image kvlint cannot tie to "
                   "an engine (a variable set elsewhere, or a build named for none), in a file that names an engine: "
                   "kvlint could not read a launch from it; nothing here is checked")
    elif what.startswith("built "):
        message = (f"a process is started in this file from a command built at run time that holds an engine's flag "
                   f"({what[6:]}), in a file that names an engine: kvlint could not read a launch from it (its program "
                   "or model is an expression of the program's); nothing here is checked")
    elif what.startswith("flag "):
        message = (f"a container is run here on GPUs with an engine's flag ({what[5:]}), from an image this file does "
                   "not name (a placeholder or a variable set elsewhere), in a file that names an engine: kvlint "
                   "could not read a launch from it; nothing here is checked")
    elif re.fullmatch(r"\$\{?[A-Za-z_]\w*\}?", what):
        message = (f"a container is run here from {what}, an image named for an engine, but kvlint could not read a "
                   "launch from it (no model and engine flags it can read: the arguments are not in this file, or "
                   "the image's entry point is not the engine); nothing here is checked")
    elif "container_name" in source_line[: max(col - 1, 0)].lower():
        message = (f"a container named {what}, for an engine, is run here, but kvlint found no launch in this file "
                   "(its image or build's entry point and model are not read from here); nothing here is checked")
    elif "dockerfile" in source_line[: max(col - 1, 0)].lower():
        from kvlint.launches.built import runs_built

        if not runs_built(text):
            return None  # an image build (a workflow over Dockerfiles, sample K241): nothing is run here
        message = (f"a build of {what}, named for an engine, is run here, but kvlint found no launch in this file (the "
                   "build's entry point and model are not read from here); nothing here is checked")
    elif "/" in what or ":" in what or what.startswith(("vllm/", "lmsysorg/")):
        message = (f"engine image {what} named here, but kvlint found no launch in this file (no model and engine "
                   "flags it can read); nothing here is checked")
    else:
        message = (f"engine entry point `{what}` named here, but kvlint could not read a launch from it (a command "
                   "shape, wrapper or file layout it does not know yet); nothing here is checked")
    fix = ("write the launch as a command line kvlint reads (`vllm serve MODEL --flags`), or add "
           "`# kvlint: disable-file` when this file does not start the engine")
    return _said(span, message, fix)


def _said(span: Span, message: str, fix: str) -> Finding:
    """The KV008 info every passed-over place gets: what kvlint saw there and could not read."""
    return Finding(KV008[0], KV008[1], Severity.INFO, message, span, fix=fix, path=span.path)


def _first_place(text: str, kind: str) -> tuple[int, int, str] | None:
    """(line, col, the words) of the first engine name on a line that is not a comment or docstring (a notebook's
    JSON holds prose cells too: kvlint.launches.notebook looks at its code cells)."""
    if kind == "notebook":
        return None
    if not _names_engine(text) or _named_line(text) is None:
        return (_run_from_variable(text) if "run" in text else None) or _gpu_deploy_with_model(text)
    in_doc = in_string = False
    printed: tuple[int, int, str] | None = None  # the first name an `echo` prints: the place only if no command has one
    for number, line in enumerate(text.split("\n"), 1):
        if kind == "python" and _toggles_docstring(line):
            if in_doc or in_string:
                in_doc = in_string = False
                continue
            # a bare string opening on its own line is prose (a docstring); one a statement assigns or passes
            # (`config = f"""\`: a compose file a program writes) is data whose lines name the image it runs
            in_doc = _DOC_OPENS.match(line) is not None
            in_string = not in_doc
            if in_doc:
                continue
        if in_doc or (kind in ("python", "notebook") and _IMPORT.match(line)):
            continue  # `from vllm.entrypoints.openai... import X` is library use in a program, not a launch
        m = _NAMED.search(line) if _names_engine(line) else None
        if m is None:
            continue
        comment = _COMMENT.search(line)
        if comment is not None and comment.start(2) < m.start():
            continue
        if m.group("image") and kind == "python" and not any(c in m.group("image") for c in "/:{") \
                and line[m.start("image") - 1] not in "\"'":
            continue  # `image=vllm_image`: a Python keyword given a variable, not an image's name (an f-string's
            # `image: vllm/vllm-openai:{tag}` line is one)
        if m.group("image"):  # `image: X`, `image = "X"`, `"image": "X"`: the place is the image's name
            return number, m.start("image") + 1, m.group("image")
        if line.lstrip().removeprefix("sudo ").startswith(_PROCESS_TOOLS):
            continue  # `pkill -f "vllm.entrypoints"` (sample K317): a pattern matched against running processes
        what = m.group().strip("\"'")
        place = number, m.start() + 1 + (m.group() != what and m.group()[0] in "\"'"), re.sub(r"[ \t]+", " ", what)
        if not line.lstrip().startswith(_PRINTS):
            return place
        printed = printed or place  # `echo "Running: exec python3 -m sglang.launch_server ${ARGS[@]}"`
    return printed or (_run_from_variable(text) if "run" in text else None) or _gpu_deploy_with_model(text)


_PRINTS = ("echo ", "printf ", "logger ")
_PROCESS_TOOLS = ("pkill ", "pgrep ", "killall ", "kill ", "ps ", "pidof ")


def _names_engine(text: str) -> bool:
    """Whether _NAMED can match in `text`: each of its branches holds "vllm" or "sglang" as written (the pattern
    is case-sensitive), and two substring tests cost far less than the pattern's scan, which tries every branch
    at every character (a file the readers took no launch from is scanned whole)."""
    return "vllm" in text or "sglang" in text


def _named_line(text: str) -> re.Match[str] | None:
    """_NAMED.search(text), tried only on the lines that hold "vllm" or "sglang" (every match holds one and none
    crosses a line: the same first match, without scanning every character of a long file that names an engine
    once). A line is searched in place (pos, endpos), so a lookbehind and \\b see what they see in the text."""
    at = _next_name(text, 0)
    while at >= 0:
        start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
        end = len(text) if end < 0 else end
        found = _NAMED.search(text, start, end)
        if found is not None:
            return found
        at = _next_name(text, end)
    return None


def _next_name(text: str, pos: int) -> int:
    """Where the next "vllm" or "sglang" from `pos` starts; -1 when none."""
    found = [at for at in (text.find("vllm", pos), text.find("sglang", pos)) if at >= 0]
    return min(found) if found else -1


# `subprocess.Popen(VLLM_SERVER_ARGS)`: a Python program started from a name that says it is an engine's argv
_PY_RUN_NAME = lazy(r"\b(?:subprocess\.(?:Popen|run|call|check_call|check_output)|os\.exec\w+|Popen)\(\s*"
                    r"(?:\w+\s*,\s*)?([A-Za-z_][\w.]*)")


def _run_from_name(text: str) -> tuple[int, int, str] | None:
    """(line, col, the name) of the first process started from a name holding "vllm" or "sglang" (any case)."""
    for k, m in enumerate(_PY_RUN_NAME.finditer(text)):
        if k >= 16:
            break
        name, at = m.group(1), m.start(1)
        if "vllm" not in name.lower() and "sglang" not in name.lower():
            built = _built_by_engine_call(text, name)  # `command = vllm_command()` ... `Popen(command)`
            if built is None:
                continue
            name, at = built
        line_start = text.rfind("\n", 0, at) + 1
        if text[line_start : at].lstrip().startswith("#"):
            continue
        return text.count("\n", 0, at) + 1, at - line_start + 1, name
    return None


# an argument list whose program is a name and whose first argument is an engine's subcommand (`[vllm_bin, "serve",
# model, ...]`, sample K139): the program's path is set at run time
# (the program a name, or an expression that builds its path: `sys.executable.removesuffix('/python') + '/vllm'`,
# sample K355's wrapper class)
_SERVE_LIST = lazy(r"^[^#\n]*?\[\s*([A-Za-z_][\w.]*(?:\([^()\n]{0,60}\))?(?:\s*\+\s*[\"'][^\"'\n]{1,60}[\"'])?)\s*,"
                   r"\s*[\"']serve[\"']", re.M)


def _serve_list(text: str) -> tuple[int, int, str] | None:
    """(line, col, "NAME serve") of the first `[NAME, "serve", ...]` in a Python file that names an engine."""
    if "serve" not in text or not any(e in text.lower() for e in ("vllm", "sglang")):
        return None
    m = _SERVE_LIST.search(text)
    if m is None:
        return None
    line_start = text.rfind("\n", 0, m.start(1)) + 1
    return text.count("\n", 0, m.start(1)) + 1, m.start(1) - line_start + 1, f"{m.group(1)} serve"


def _built_command(text: str) -> tuple[int, int, str] | None:
    """(line, col, "built --X") of the first of the engines' own flags written in a string of a Python file that
    starts a process (sample K392's model launcher: `cmd = f"{vllm_cmd} {shlex.quote(source)} ... --max-model-len
    {maxlen} ..."` run with `Popen(f"exec {cmd}", shell=True)`, its program and model expressions): said at the flag,
    never passed over. Asked only of a file that names an engine and gave no launch."""
    if _PROCESS_START.search(text) is None:
        return None
    m = _QUOTED_FLAG.search(text)
    if m is None:
        return None
    at = m.start(1)
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at), f"built {m.group(1)}"


def _container_list(text: str) -> tuple[int, int, str] | None:
    """(line, col, "flag --X") of an engine's flag in a Python argument list that runs a container on GPUs (`["docker",
    "run", ..., "--gpus", "all", ..., image, model, "--served-model-name", ...]`, sample K382's recipe runtime), its
    image a name set at run time: said at the flag, as a shell's `docker run --gpus` with an unnamed image is."""
    if "--gpus" not in text or "docker" not in text and "podman" not in text:
        return None
    for k, m in enumerate(_RUN_LIST.finditer(text)):
        if k >= 8:
            break
        region = text[m.start() : m.start() + 4000]
        close = region.find("]\n")
        region = region[: close if close > 0 else len(region)]
        flag = _LISTED_FLAG.search(region) if "--gpus" in region else None
        if flag is not None:
            at = m.start() + flag.start(1)
            return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at), f"flag {flag.group(1)}"
    return None


# the engines' own flags no other program takes (what makes a container run an engine's, its image unnamed)
_ENGINE_FLAG_NAMES = (r"served[-_]model[-_]name|tensor[-_]parallel[-_]size|max[-_]model[-_]len|"
                      r"gpu[-_]memory[-_]utilization|mem[-_]fraction[-_]static|context[-_]length")
_RUN_LIST = lazy(r"[\"'](?:docker|podman)[\"'],\s*[\"']run[\"']")
_LISTED_FLAG = lazy(rf"[\"'](--(?:{_ENGINE_FLAG_NAMES}))\b")  # a flag as a list's string item
# a process started from Python (a shell string or an argument list), and an engine's own flag written in a string
_PROCESS_START = lazy(r"\b(?:subprocess\.(?:Popen|run|call|check_call|check_output)|Popen|os\.system|os\.exec\w+|"
                      r"asyncio\.create_subprocess_(?:exec|shell))\(")
_QUOTED_FLAG = lazy(rf"^[^#\n]*?[\"'](?:[^\"'\n]*?[ \t])?(--(?:{_ENGINE_FLAG_NAMES}))\b", re.M)
_RAY_CONFIG = lazy(r"^[^#\n]*?\b(LLMConfig|build_llm_deployment|build_openai_app)\(", re.M)
_RAY_CALLS = ("LLMConfig", "build_llm_deployment", "build_openai_app")


def _ray_config(text: str) -> tuple[int, int, str] | None:
    """(line, col, the call) of Ray Serve LLM's config call, or of its deployment builders where the file imports
    `ray.serve.llm` (sample K173: `build_llm_deployment(model_id=path, engine_config=...)`), which run vLLM
    without naming it."""
    if "LLMConfig(" not in text and "ray.serve.llm" not in text:
        return None
    return _match_place(text, _RAY_CONFIG.search(text))


def _match_place(text: str, m: re.Match[str] | None) -> tuple[int, int, str] | None:
    """(line, col, the words) of a match's first group, or None for no match."""
    if m is None:
        return None
    at = m.start(1)
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at), m.group(1)


_DECORATOR = lazy(r"(?m)^[ \t]*(@(?:vllm|sglang))[ \t]*\((?=[^)]*\bmodel[ \t]*=)")


def _engine_decorator(text: str) -> tuple[int, int, str] | None:
    """(line, col, `@vllm`) of a decorator named for an engine and given a `model=` (sample K316: Metaflow's
    `@vllm(model=..., openai_api_server=True)` on a step), which has a plugin start the engine for the function."""
    if "@vllm" not in text and "@sglang" not in text:
        return None
    return _match_place(text, _DECORATOR.search(text))


def _built_by_engine_call(text: str, name: str) -> tuple[str, int] | None:
    """(the function, where) when `name` is assigned from a call of a function named for an engine (`command =
    vllm_command()`, `argv = build_sglang_argv(cfg)`): the argument list is built there, out of this file's sight."""
    m = re.search(rf"(?m)^[ \t]*{re.escape(name)}[ \t]*=[ \t]*([A-Za-z_][\w.]*)\(", text)
    if m is None or ("vllm" not in m.group(1).lower() and "sglang" not in m.group(1).lower()):
        return None
    return m.group(1), m.start(1)


def _run_from_variable(text: str) -> tuple[int, int, str] | None:
    """(line, col, the variable) of the first `docker|podman run` of an image variable named for an engine that
    is not on a comment line; else (line, col, "--name NAME") of the first container run under a name that says it
    is an engine's."""
    if "docker" not in text and "podman" not in text:
        return None  # two substring tests, not the patterns' scans (they have no literal prefix to skip ahead by)
    found = _first_run(text, _RUN_VAR)
    found = found if found is not None or "--name" not in text else _first_run(text, _RUN_NAMED, "--name ")
    found = found if found is not None else _first_run(text, _RUN_IMAGE)
    return found if found is not None or "MODEL" not in text else _gpu_run_with_model(text)


_CONTAINER_RUN = lazy(r"(?m)^[^#\n]*?\b(?:docker|podman)[ \t]+run\b")
# a container given GPUs: NVIDIA's `--gpus`, or a GPU's device node (WSL's /dev/dxg, Intel's /dev/dri, AMD's /dev/kfd)
_GPU_RUN = lazy(r"--gpus\b|--device[ \t=]+[\"']?/dev/(?:dxg|dri|kfd)\b")
# (not a length named for the model: `VLLM_ALLOW_LONG_MAX_MODEL_LEN`, K466)
_RUN_MODEL_VAR = lazy(r"(?:-e|--env)[ \t=]+[\"']?(\w*(?:MODEL|REPO_ID)(?!_LEN)\w*)=")


def _gpu_run_with_model(text: str) -> tuple[int, int, str] | None:
    """(line, col, "-e VAR") of the first container run on GPUs whose model is one of its `-e` variables, its image
    one the file does not name (sample K135: `docker run --gpus ... -e MODEL_PATH=... --entrypoint bash "$IMAGE"
    /host/kit/start_server.sh`, the image and the script set elsewhere; sample K242: PowerShell's `docker run
    --device /dev/dxg ... -e MODEL_NAME=$m` of an Arc GPU under WSL): asked only of a file naming an engine."""
    for k, m in enumerate(_CONTAINER_RUN.finditer(text)):
        if k >= 8:
            break
        end = text.find("\n", m.end())
        while end >= 0 and text[m.start() : end].rstrip().endswith(("\\", "`")) and end - m.start() < 8192:
            end = text.find("\n", end + 1)  # the command's continued lines (a bounded run; PowerShell's backtick)
        command = text[m.start() : end if end >= 0 else len(text)]
        model = _RUN_MODEL_VAR.search(command)
        if _GPU_RUN.search(command) is not None and model is not None:
            at = m.start() + model.start()
            line_start = text.rfind("\n", 0, at) + 1
            return text.count("\n", 0, at) + 1, at - line_start + 1, f"-e {model.group(1)}"
    return None


# an engine's own flag: what its sizing is given by, or the name it serves its model under
_ENGINE_FLAG = lazy(rf"(?<=\s)--(?:{_ENGINE_FLAG_NAMES})\b")


def _gpu_run_with_flags(text: str) -> tuple[int, int, str] | None:
    """(line, col, "flag --X") of the first container run on GPUs (over its continuation lines) handed one of an
    engine's own flags, its image one kvlint cannot name (sample K204's runbook: `docker run --gpus all ... <image>
    <model> --served-model-name <name>`): asked only where the file or its document names an engine."""
    for k, m in enumerate(_CONTAINER_RUN.finditer(text)):
        if k >= 8:
            break
        start, end = _continued(text, m.start())
        if "--gpus" not in text[start:end]:
            continue
        flag = _ENGINE_FLAG.search(text, start, end)
        if flag is not None:
            line_start = text.rfind("\n", 0, flag.start()) + 1
            return (text.count("\n", 0, flag.start()) + 1, flag.start() - line_start + 1,
                    f"flag {flag.group()}")
    return None


# a container run's image given by an expansion, then the engine's subcommand (`docker run "${ARGS[@]}" "$IMAGE"
# serve`): the image's entry point is an engine CLI this file does not name
_IMAGE_SERVE = lazy(r"[ \t](\"?\$\{?[A-Za-z_]\w*\}?\"?)[ \t]+(serve)(?=[ \t]*(?:\\?$|[ \t]--|[ \t]*[;&|]))", re.M)


def _image_run_serving(text: str) -> tuple[int, int, str] | None:
    """(line, col, "serve") of a container run whose image is an expansion and whose command is `serve` (sample K393's
    remote script: `docker run "${ARGS[@]}" "$IMAGE" serve`, the image an engine's build chosen at run time): said
    where the file names an engine, never passed over."""
    for k, m in enumerate(_CONTAINER_RUN.finditer(text)):
        if k >= 8:
            break
        start, end = _continued(text, m.start())
        found = _IMAGE_SERVE.search(text, m.end(), end)
        if found is not None:
            at = found.start(2)
            return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at), "serve"
    return None


# a platform's deploy command handing a service its model by an environment option (`koyeb services create ...
# --env MODEL=org/m`, `gcloud run deploy --set-env-vars MODEL=org/m`), and a GPU in that command
_DEPLOY_MODEL = lazy(r"(?:--env|--set-env-vars|--env-vars|-e)[ \t=]+[\"']?(\w*MODEL(?!_LEN)\w*)=")
_GPU_WORD = lazy(r"--gpus?\b|[\s=\"']gpu[\w-]*", re.IGNORECASE)


def _gpu_deploy_with_model(text: str) -> tuple[int, int, str] | None:
    """(line, col, "--env VAR") of the first command (over its `\\` continuation lines) that deploys a service on a
    GPU with its model in an environment variable, in a file naming an engine in any case (`VLLM_API_KEY`): the
    service runs the repository's own build (sample K189's Koyeb workflow), whose command kvlint does not see."""
    if "MODEL" not in text or "gpu" not in text.lower() or _ENGINE_WORD.search(text) is None:
        return None
    for k, m in enumerate(_DEPLOY_MODEL.finditer(text)):
        if k >= 8:
            break
        start, end = _continued(text, m.start())
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start : m.start()].lstrip().startswith("#"):
            continue
        if _GPU_WORD.search(text, start, end) is None:
            start, end = _listed_with(text, line_start)  # a YAML list of the command's words (a Cloud Build step's
            if _GPU_WORD.search(text, start, end) is None:  # `args:`: `- --gpu=1` lines from `- run`, turn 37's K328)
                continue
        return text.count("\n", 0, m.start(1)) + 1, m.start(1) - line_start + 1, f"--env {m.group(1)}"
    return None


_LIST_ITEM = lazy(r"[ \t]*- ")


def _listed_with(text: str, line_start: int) -> tuple[int, int]:
    """(start, end) of the YAML list items around the line at `line_start` that sit at its indentation (64 lines
    each way at most); the line alone when it is no list item. Walked line by line from the line itself."""
    item = _LIST_ITEM.match(text, line_start)
    if item is None:
        return line_start, line_start
    lead = item.group()
    start = line_start
    for _ in range(64):
        prev = text.rfind("\n", 0, max(start - 1, 0)) + 1 if start > 0 else -1
        if prev < 0 or prev == start or not text.startswith(lead, prev):
            break
        start = prev
    end = line_start
    for _ in range(64):
        nxt = text.find("\n", end)
        if nxt < 0 or not text.startswith(lead, nxt + 1):
            end = len(text) if nxt < 0 else nxt
            break
        end = nxt + 1
    return start, end


def _continued(text: str, at: int) -> tuple[int, int]:
    """(start, end) of the command line holding offset `at`, over `\\` continuation lines (64 each way at most)."""
    start = text.rfind("\n", 0, at) + 1
    for _ in range(64):
        before = text.rfind("\n", 0, start - 1) + 1 if start > 0 else -1
        if before < 0 or not text[before : start - 1].rstrip(" \t").endswith("\\"):
            break
        start = before
    end = text.find("\n", at)
    for _ in range(64):
        line_start = text.rfind("\n", 0, end) + 1 if end >= 0 else -1
        if line_start < 0 or not text[line_start:end].rstrip(" \t").endswith("\\"):
            break
        end = text.find("\n", end + 1)
    return start, len(text) if end < 0 else end


def _around_engine(what: str) -> bool:
    """Whether a container or image name the note would show says it is a program around the engine (a benchmark, a
    router, a client: kvlint.launches.images.around_engine), not the engine."""
    from kvlint.launches.images import around_engine

    return re.fullmatch(r"[\w./:-]+", what) is not None and around_engine(what)


def _first_run(text: str, pattern: re.Pattern[str], prefix: str = "") -> tuple[int, int, str] | None:
    """(line, col, prefix + the pattern's group) of its first match that is not on a comment line."""
    for k, m in enumerate(pattern.finditer(text)):
        if k >= 8:
            break
        start = text.rfind("\n", 0, m.start()) + 1
        if text[start : m.start()].lstrip().startswith(("#", "//")):
            continue
        at = m.start(1)
        line_start = text.rfind("\n", 0, at) + 1
        return text.count("\n", 0, at) + 1, at - line_start + 1, prefix + m.group(1)
    return None


_IMPORT = lazy(r"\s*(?:from|import)\s")
_FLAG_SHAPED = lazy(r"--model(?:[-_]path)?[= \t]+\S")
_SIZING = lazy(r"--(?:tensor[-_]parallel(?:[-_]size)?|tp[-_]size|pipeline[-_]parallel(?:[-_]size)?|max[-_]model[-_]len|"
               r"gpu[-_]memory[-_]utilization|mem[-_]fraction[-_]static|context[-_]length)\b")
_COMMAND_KINDS = ("shell", "make", "powershell", "text", "dockerfile")


def _flag_shaped(path: str, text: str, kind: str) -> Finding | None:
    """The KV008 for a command whose arguments are shaped like an engine's (a model flag and a sizing flag) in a
    file that names an engine, when no reader made a launch of it: a program kvlint does not know, which may or
    may not start a server (kvlint.launches.byflags reads the ones that show it); said, never passed over."""
    if kind not in _COMMAND_KINDS or not any(e in text.lower() for e in ("vllm", "sglang")):
        return None
    lines = text.split("\n")
    k = 0
    model_set: bool | None = None
    while k < len(lines):
        first, joined = k, lines[k]
        while joined.rstrip().endswith(("\\", "`")) and k + 1 < len(lines):
            k += 1
            joined = joined.rstrip()[:-1] + " " + lines[k]
        k += 1
        stripped = joined.lstrip()
        if "--" not in joined or stripped.startswith(("#", "//", "REM ")) or not _SIZING.search(joined):
            continue
        program = _program(stripped.split())
        if not (_FLAG_SHAPED.search(joined) or _engine_named_program(program)):
            model_set = _model_set_apart(text) if model_set is None else model_set  # asked once a file
            if not model_set:
                continue
        at = lines[first].find(program) if program else -1
        col = at + 1 if at >= 0 else len(joined) - len(stripped) + 1
        message = (f"`{program}` is run here with arguments shaped like an engine's flags (sizing flags, with a model "
                   "flag or a model the script sets, or from a program named for an engine), but kvlint could not "
                   "tell that it starts an engine server (a benchmark, an offline job, or a program it does not know); "
                   "nothing here is checked")
        fix = ("if this starts a server, write the engine's own command (`vllm serve MODEL --flags`), or add "
               "`# kvlint: disable-file` when it does not")
        return _said(Span(path, first + 1, col, first + 1, col + len(program)), message, fix)
    return None


# NVIDIA Dynamo's SDK serving a graph of components (`dynamo serve graphs.disagg:Frontend -f configs/disagg.yaml`): its
# vLLM or SGLang workers are started with the settings of the config file's sections
_DYNAMO_GRAPH = lazy(r"(?m)^[^#\n]*?\b(dynamo[ \t]+serve)[ \t]+[\w.]+:\w+")


def _dynamo_graph(path: str, text: str) -> Finding | None:
    """The KV008 for a Dynamo graph served from a config (sample K468's ECS task definitions and runbook, Dynamo
    0.3): its workers are engine launches whose model and flags are the config's sections (`Common:`, `VllmWorker:`,
    `common-configs:`), which kvlint does not read; said at the command, never passed over."""
    m = _DYNAMO_GRAPH.search(text)
    if m is None:
        return None
    line = text.count("\n", 0, m.start(1)) + 1
    col = m.start(1) - text.rfind("\n", 0, m.start(1))
    message = ("NVIDIA Dynamo serves a graph of components here; its engine workers take their model and flags from "
               "the graph's config file (`-f`), which kvlint does not read; nothing here is checked")
    fix = ("run the workers with the engine's own command (`python -m dynamo.vllm --model M ...`), which kvlint "
           "reads, or add `# kvlint: disable-file`")
    return _said(Span(path, line, col, line, col + len(m.group(1))), message, fix)


def _model_set_apart(text: str) -> bool:
    """Whether the script gives a model variable a value (`MODEL=org/m`), which a command of its own then hands to the
    engine without a model flag (sample K459: `launch "arm" --tensor-parallel-size 8 ...`, the function from a file
    the script sources)."""
    return _MODEL_SET.search(text) is not None


def _array_shaped(path: str, text: str, kind: str) -> Finding | None:
    """The KV008 for a shell array of an engine's arguments (a model and sizing flags: `ARGS=(/model
    --served-model-name "$S" --tensor-parallel-size "$TP" --max-model-len "$L" ...)`) that the script hands on, in a
    file that names an engine and gave no launch: the command that runs it is built at run time (sample K383's
    multi-node launcher: `eval "docker run ... $(q "$IMG") $(q "${ARGS[@]}") --node-rank 0 ..."`); said at the
    array, never passed over."""
    if kind != "shell" or "=(" not in text or not any(e in text.lower() for e in ("vllm", "sglang")):
        return None
    for k, m in enumerate(_ARRAY_START.finditer(text)):
        if k >= _ARRAYS_LOOKED_AT:
            break
        end = text.find(")", m.end(), m.end() + 4000)  # an argument array is a few lines, never a file
        body = text[m.end() : end if end > 0 else m.end() + 4000]
        if not (_SIZING.search(body) and (_FLAG_SHAPED.search(body) or "--served-model-name" in body)):
            continue
        name = m.group(1)
        if f"${{{name}[@]}}" not in text and f"${{{name}[*]}}" not in text:
            continue
        line = text.count("\n", 0, m.start(1)) + 1
        col = m.start(1) - text.rfind("\n", 0, m.start(1))
        message = (f"the engine's arguments are gathered in the array {name} here (a model and sizing flags), but the "
                   "command that runs them is built at run time (`eval`, a string of substitutions or functions), "
                   "which kvlint does not read; nothing here is checked")
        fix = ("write the engine's command with \"${" + name + "[@]}\" where kvlint can read it, or add `# kvlint: "
               "disable-file` when this file starts no engine")
        return _said(Span(path, line, col, line, col + len(name)), message, fix)
    return None


_ARRAY_START = lazy(r"(?m)^[ \t]*(?:local[ \t]+|declare[ \t]+-a[ \t]+)?([A-Za-z_]\w*)=\(")
_ARRAYS_LOOKED_AT = 200  # per file: a script of more arrays than this is generated


def _engine_named_program(program: str) -> bool:
    """Whether a program is named for an engine without being its command (`vllm-launch`, `./run_sglang.sh`): a
    wrapper that is handed the engine's sizing flags (its model from its own config or `"$@"`)."""
    name = program.rsplit("/", 1)[-1].lower()
    return name not in ("vllm", "sglang") and _ENGINE_WORD.search(name) is not None


_PREFIXES = frozenset({"nohup", "exec", "env", "time", "sudo", "srun", "setsid", "command"})
_CONTAINER_VALUED = frozenset({"-B", "--bind", "--env", "--env-file", "-H", "--home", "--pwd", "-W", "--workdir",
                               "--overlay", "-o"})  # singularity/apptainer options that take a value


def _program(words: list[str]) -> str:
    """The program a command line runs: past `VAR=x`, `nohup`-like prefixes and `python [-u] [-m]`."""
    k = 0
    while k < len(words) and (words[k] in _PREFIXES or ("=" in words[k] and not words[k].startswith("-"))):
        k += 1
    if k + 2 < len(words) and words[k] in ("singularity", "apptainer") and words[k + 1] in ("exec", "run"):
        k += 2  # `srun singularity exec [--nv] [-B a:b] IMAGE ./run-vllm.sh ...`: the program in the image
        while k < len(words) - 1 and words[k].startswith("-"):
            k += 2 if words[k] in _CONTAINER_VALUED else 1
        k += 1
    if k < len(words) and words[k].rsplit("/", 1)[-1].startswith("python"):
        k += 1
        while k < len(words) and words[k].startswith("-") and words[k] != "-m":
            k += 1
        k += k < len(words) and words[k] == "-m"
    return words[k] if k < len(words) else (words[-1] if words else "")


_ENGINE_WORD = lazy(r"vllm|sglang", re.IGNORECASE)
# a model key of a values / config file whose value is a Hub id (`modelName: meta-llama/Llama-3.2-90B-Vision`)
# (or a compose environment's `MODEL: ${MODEL:-/app/models/Qwen3-27B}`: a variable's default, a folder's path too)
_MODEL_KEY = lazy(r"^[ \t]*(?:-[ \t]+)?[\"']?(?:model|model[-_]?(?:name|path|id)|served[-_]?model)[\"']?[ \t]*[:=]"
                  r"[ \t]*[\"']?(?:\$\{\w+:?-)?(?P<id>[A-Za-z0-9][\w.-]*/[\w.-]*[A-Za-z0-9]|/[\w.-]+(?:/[\w.-]+)+)"
                  r"\}?[\"']?[ \t]*(?:#.*)?$",
                  re.IGNORECASE | re.MULTILINE)
# a GPU request: Kubernetes' resource, a values file's count, a compose service's device reservation
_GPU_REQUEST = lazy(r"\b(?:nvidia\.com|amd\.com)/gpu\b"
                    r"|^[ \t]*(?:gpus?|gpu[-_]?count|num[-_]?gpus)[ \t]*:[ \t]*[\"']?[1-9]"
                    r"|^[ \t]*capabilities[ \t]*:[ \t]*\[[^\]\n]*\bgpu\b",
                    re.IGNORECASE | re.MULTILINE)
# a script named for starting an engine (`start_vllm.sh`, `run-sglang.sh`, `vllm_serve.sh`), the engine named
_ENGINE_SCRIPT_PATTERN = (r"(?:^|[./_-])(?:start|launch|run|serve)[-_]?(?P<a>vllm|sglang)\w*\.(?:sh|py|bash)$"
                          r"|(?:^|[./_-])(?P<b>vllm|sglang)[-_]?(?:serve|server|start|launch)\w*\.(?:sh|py|bash)$")
# a program whose name says it starts a server (`python -m serving.start_server`, `./launch_server.py`), or an engine
_SERVER_PROGRAM = lazy(r"(?:^|[./_-])(?:start|launch|run|api)[-_]?(?:server|serving)(?:\.py)?$"
                       r"|(?:^|[./_-])serve(?:\.py)?$|" + _ENGINE_SCRIPT_PATTERN, re.IGNORECASE)
_STRUCTURED_KINDS = ("yaml", "json")
_ENGINE_SCRIPT = lazy(_ENGINE_SCRIPT_PATTERN, re.IGNORECASE)


def engine_script(words: list[str]) -> str | None:
    """The engine a command line's program is named for starting (`/opt/bin/run_vllm.sh` -> vllm), past
    `nohup`-like prefixes and `bash`; None for any other program."""
    program = _program(words[1:] if words[:1] and words[0].rsplit("/", 1)[-1] in ("bash", "sh") else words)
    m = _ENGINE_SCRIPT.search(program)
    return (m.group("a") or m.group("b")).lower() if m is not None else None


def _named_file(path: str, text: str, kind: str) -> Finding | None:
    """The KV008 for a script or program whose own name says it starts an engine (`launch_vllm.py`,
    `start_sglang.sh`) and from which no launch was read: the server is started by code kvlint does not follow
    (a class of the repository's, a program it calls); at the first code line that names the engine, else line 1."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    m = _ENGINE_SCRIPT.search(name) if kind in ("python", "shell") else None
    if m is None:
        return None
    engine = (m.group("a") or m.group("b")).lower()
    number, col, in_doc = 1, 1, False
    for k, line in enumerate(text.split("\n")[:2000], 1):
        if kind == "python" and _toggles_docstring(line):
            in_doc = not in_doc
            continue
        at = line.lower().find(engine)
        if at >= 0 and not in_doc and not line.lstrip().startswith(_NOT_CODE) and not _IMPORT.match(line):
            number, col = k, at + 1
            break
    message = (f"{name} is named for starting {engine}, but kvlint read no launch from it (the server is started by "
               "code or a program it does not follow: a class of the repository's, a command built elsewhere); "
               "nothing here is checked")
    fix = ("write the engine's command where kvlint can read it (`vllm serve MODEL --flags`), or add "
           "`# kvlint: disable-file` when this file starts no engine")
    return _said(Span(path, number, col, number, col + len(engine)), message, fix)


_NOT_CODE = ("#", '"""', "'''", "echo", "print(")  # comments, docstrings and what is only shown


# a model an environment variable names (`MODEL_NAME=org/m`, `MODEL_ID: "org/m"`): a Hub id's owner/name shape
_MODEL_ENV = lazy(r"(?m)^[ \t]*-?[ \t]*[\"']?(?P<name>(?:[A-Z_]*_)?MODEL(?:_NAME|_ID|_PATH)?)[\"']?[ \t]*[:=]"
                  r"[ \t]*[\"']?(?P<value>[\w.-]+/[\w.-]+)")
_ENGINE_IN_NAME = lazy(r"vllm|sglang", re.IGNORECASE)


def _named_manifest(path: str, text: str, kind: str) -> Finding | None:
    """The KV008 for a manifest or compose file named for an engine (`docker-compose-vllm.yml`) that gives no launch
    but hands a service a model through its environment (`MODEL_NAME=org/m` to the repository's own image, whose
    entry point starts the engine out of this file's sight): said at the model, never passed over."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    found = _ENGINE_IN_NAME.search(name) if kind == "yaml" else None
    m = _MODEL_ENV.search(text) if found is not None else None
    if found is None or m is None:
        return None
    line = text.count("\n", 0, m.start("value")) + 1
    col = m.start("value") - text.rfind("\n", 0, m.start("value"))
    message = (f"{name} is named for {found.group().lower()} and gives a service the model {m.group('value')} through "
               f"{m.group('name')}, but kvlint read no launch from it (the image's own entry point starts the engine, "
               "out of this file's sight); nothing here is checked")
    fix = ("run the engine's image with its command here, or add `# kvlint: disable-file` when this file starts no "
           "engine")
    return _said(Span(path, line, col, line, col + len(m.group("value"))), message, fix)


# a variable only the engine reads, set for a container (`- VLLM_USE_FLASHINFER_SAMPLER=1`, `VLLM_X: "1"`, `- name:
# VLLM_X`); not an address a client of the engine is given (`VLLM_BASE_URL`, `SGLANG_ENDPOINT`)
_ENGINE_ENV = lazy(r"(?m)^[ \t]*(?:-[ \t]*)?(?:name:[ \t]*)?[\"']?((?:VLLM|SGLANG|SGL)_"
                   r"(?![A-Z0-9_]*(?:URL|ENDPOINT|HOST|BASE|ADDR|ADDRESS|SERVER|SERVICE)(?:[^A-Z0-9_]|$))[A-Z0-9_]+)"
                   r"[\"']?[ \t]*(?:[=:]|$)")
_GPU_HINT = lazy(r"(?i)nvidia|\bgpus?\b|amd\.com/gpu|/dev/kfd|habana|rocm")


def _engine_environment(path: str, text: str, kind: str) -> Finding | None:
    """The KV008 for a compose file or manifest that gives a container on GPUs variables only the engine reads
    (`VLLM_TEST_FORCE_FP8_MARLIN=1`, sample K404's speech server) and no launch kvlint can read: the container runs
    an image whose own command starts the engine (the repository's build, named for neither engine), out of this
    file's sight. Said at the first such variable, never passed over. A script's here-document manifest is such a
    file too (sample K421: `cat <<'EOF' > isvc.yaml` of an InferenceService on an AMD AIM runtime, given
    `VLLM_ENABLE_METRICS`, passed over in silence)."""
    if not ("VLLM_" in text or "SGLANG_" in text or "SGL_" in text):
        return None
    if kind != "yaml" and not (kind == "shell" and "<<" in text and "apiVersion:" in text and "kind:" in text):
        return None
    m = _ENGINE_ENV.search(text)
    if m is None or _GPU_HINT.search(text) is None:
        return None
    engine = "SGLang" if m.group(1).startswith("SGL") else "vLLM"
    message = (f"a container on GPUs is given {engine}'s variable {m.group(1)} here, but kvlint read no launch from "
               "this file: its image's own command starts the engine (a build named for neither engine, whose model "
               "and flags are out of this file's sight); nothing here is checked")
    fix = ("run the engine's image with its command here, or add `# kvlint: disable-file` when this file starts no "
           "engine")
    return _said_at(path, text, m.start(1), m.group(1), message, fix)


def _said_at(path: str, text: str, at: int, word: str, message: str, fix: str) -> Finding:
    """The KV008 at the word that starts at offset `at` of the file's text."""
    line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    return _said(Span(path, line, col, line, col + len(word)), message, fix)


_TAG = lazy(r"[ \t]*[\"']?tag[\"']?[ \t]*:[ \t]*[\"']?([^\s\"'#,]*(?:vllm|sglang)[^\s\"'#,]*)")


def _tagged_image(path: str, text: str, kind: str) -> Finding | None:
    """The KV008 for a values file whose image is split into `repository` and `tag` and whose tag names the engine
    (`repository: llm-d-cuda`, `tag: v0.9.0-vllm0.30.0`, sample K414: a chart of the repository's own renders the
    engine's container), with no launch read: said at the tag, never passed over."""
    if kind != "yaml" or "tag" not in text:
        return None
    at = _next_name(text, 0)
    while at >= 0:
        start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
        end = len(text) if end < 0 else end
        m = _TAG.match(text, start, end)
        if m is not None:
            message = (f"an image tagged {m.group(1)} (an engine's build: a values file's `repository` and `tag`) is "
                       "named here, but kvlint found no launch in this file (a chart kvlint has no adapter for renders "
                       "it); nothing here is checked")
            fix = ("write the launch as a command line kvlint reads (`vllm serve MODEL --flags`), or add "
                   "`# kvlint: disable-file` when this file does not start the engine")
            return _said_at(path, text, m.start(1), m.group(1), message, fix)
        at = _next_name(text, end)
    return None


def _entry_named_module(path: str, text: str) -> Finding | None:
    """The KV008 for `python -m PKG.launch_server --model-path M` in a file that names no engine: a server module named
    as SGLang's entry point (`sglang.launch_server`) in a package kvlint does not know (a port or a fork of the engine
    under a name of its own: sample K378's `sgl_jax.launch_server`, SGLang's JAX port for TPUs), handed a model.
    kvlint does not size it, and says so rather than pass it over."""
    m = _ENTRY_MODULE.search(text)
    if m is None or _MODEL_OPTION.search(text) is None:  # the model on the command, or in an array it is handed
        return None
    if m.group(1).split(".", 1)[0] in ("sglang", "vllm"):
        return None  # the engine's own module: its readers say why they read no launch
    message = (f"`{m.group(1)}` starts a server named like SGLang's entry point (`sglang.launch_server`) with a model, "
               "from a package kvlint does not know (a port or a fork of the engine under a name of its own): its "
               "arguments and memory are that package's; nothing here is checked")
    return _said_at(path, text, m.start(1), m.group(1), message, _MODULE_FIX)


def _engine_own_module(path: str, text: str) -> Finding | None:
    """The KV008 for `python -m sglang.srt.turnkey --config C boot LANE` (sample K452's systemd unit of an SGLang fork):
    an interpreter runs a module of an engine's own package that is none of its server entry points kvlint reads and
    no tool of it (a benchmark, a test, an environment report, a router): a fork's or an extension's launcher, whose
    model and flags are its own configuration's. Said at the module, never passed over."""
    m = _OWN_MODULE.search(text)
    while m is not None and (m.group(1) in _ENTRY_MODULES or _TOOL_MODULE.search(m.group(1)) is not None):
        m = _OWN_MODULE.search(text, m.end())
    if m is None:
        return None
    message = (f"`{m.group(1)}` is run here: a module of the engine's own package that is not one of its server entry "
               "points kvlint reads (a fork's or an extension's launcher, its model and flags in its own "
               "configuration), so kvlint read no launch from it; nothing here is checked")
    return _said_at(path, text, m.start(1), m.group(1), message, _MODULE_FIX)


_MODULE_FIX = "run the engine's own entry point where kvlint can read it, or add `# kvlint: disable-file`"


# `python -m vllm.X` / `python -m sglang.X`: a module of an engine's own package run by an interpreter (a line's code)
_OWN_MODULE = lazy(r"(?m)^[^#\n]*?\bpython[\d.]*[ \t]+(?:-\w+[ \t]+)*-m[ \t]+((?:vllm|sglang)(?:\.\w+)+)\b")
_ENTRY_MODULES = frozenset({"sglang.launch_server", "vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server",
                            "vllm.entrypoints.cli.main"})
# an engine's tools, which start no server of a deployment: benchmarks, tests, reports, compilers, routers
_TOOL_MODULE = lazy(r"bench|test|check_env|collect_env|profil|compile|convert|quant|eval|patch|run_batch|router"
                    r"|mini_lb|download|tool|util|version")


# `python -m PKG.launch_server`: a package's server module named as SGLang's entry point
_ENTRY_MODULE = lazy(r"(?m)^[^#\n]*?\bpython[\d.]*[ \t]+(?:-\w+[ \t]+)*-m[ \t]+"
                     r"([A-Za-z_]\w*(?:\.\w+)*\.launch_server)\b")
_MODEL_OPTION = lazy(r"--model(?:[-_]path)?\b")


def _engine_group(words: list[str]) -> str | None:
    """`TOOL ENGINE VERB` (`spnl vllm up`) of a command that hands it a model (`--model M`): a tool with a command group
    for the engine (kvlint.launches.byflags.engine_group), its engine's name second; the three words, or None."""
    from kvlint.launches.byflags import engine_group

    if len(words) < 4 or engine_group(words[:3]) != 1 or not any(w.startswith("--model") for w in words[3:]):
        return None
    return " ".join(words[:3])


def _launch_shaped(path: str, text: str, kind: str, named: bool = False) -> Finding | None:
    """The KV008 for a launch kvlint sees the shape of but not the engine command of, in a file that names vLLM or
    SGLang anywhere (a comment or a port name counts here: it says what the file is for): a values or config file
    that sets a Hub model next to a GPU request (a repository's own chart, whose template holds the command), or a
    command that runs a program named as a server starter (`python -m serving.start_server --config x.yaml`, a
    repository's own wrapper). Once per file, at the first such line; files that name no engine cost one scan."""
    if not named and _ENGINE_WORD.search(text) is None:
        return _own_gpu_build(path, text, built_only=True) if kind == "yaml" else None
    if kind in _STRUCTURED_KINDS:
        model = _MODEL_KEY.search(text)
        if model is None or _GPU_REQUEST.search(text) is None:
            return _engine_block(path, text) or _own_gpu_build(path, text) if kind == "yaml" else None
        line = text.count("\n", 0, model.start("id")) + 1
        col = model.start("id") - (text.rfind("\n", 0, model.start("id")) + 1) + 1
        what = model.group("id")
        message = (f"model {what} and a GPU request are set here, in a file that names an engine, but kvlint found no "
                   "engine command or chart layout it knows (a repository's own chart, image or program that holds "
                   "the command); nothing here is checked")
        fix = ("point kvlint at the chart (templates/ beside this file) or write the launch as a command line it "
               "reads, or add `# kvlint: disable-file` when this file starts no engine")
        return _said(Span(path, line, col, line, col + len(what)), message, fix)
    if kind not in _COMMAND_KINDS:
        return None
    for number, source in enumerate(text.split("\n"), 1):
        stripped = source.lstrip()
        if not stripped or stripped.startswith(("#", "//", "REM ")):
            continue
        if kind == "text":  # a key's value is the command (`ExecStart=...`, `cmd = "..."`): the key is no program
            stripped = _KEYED.sub("", stripped, count=1)  # (`serve = ["vllm"]`, a pyproject's extra, is a list)
        group = _engine_group(stripped.split())
        if group is not None:  # `spnl vllm up NAME --model M` (sample K370): a tool's own command for the engine
            found_at = source.find(group)
            at = (found_at if found_at >= 0 else len(source) - len(source.lstrip())) + 1  # words spaced apart
            message = (f"`{group}` deploys an engine through a tool's own command, which writes the engine's command "
                       "itself (kvlint does not read that tool); nothing here is checked")
            fix = ("check the command the tool runs (`vllm serve MODEL --flags`) where kvlint can read it, or add "
                   "`# kvlint: disable-file` when this file starts no engine")
            return _said(Span(path, number, at, number, at + len(group)), message, fix)
        program = _program(stripped.split())
        if not program or not _SERVER_PROGRAM.search(program.strip("\"'")):
            continue
        at = source.find(program) + 1
        message = (f"`{program}` starts a server here, in a file that names an engine, but it is not an engine "
                   "command kvlint knows (a repository's own wrapper: its config decides the model and the flags); "
                   "nothing here is checked")
        fix = ("write the engine's own command (`vllm serve MODEL --flags`) where kvlint can read it, or add "
               "`# kvlint: disable-file` when this program starts no engine")
        return _said(Span(path, number, at, number, at + len(program)), message, fix)
    return None


_KEYED = lazy(r"^[\w.\-\[\]\"']+[ \t]*[=:][ \t]*")  # an INI, TOML, unit or Procfile key and its `=` / `:`


# a values file's top-level block named for an engine (`vllm:`, `sglang-server:`): a chart that starts it reads it
_ENGINE_BLOCK = lazy(r"^(?P<key>(?:vllm|sglang)[\w-]*)[ \t]*:[ \t]*(?:#.*)?$", re.MULTILINE)


def _engine_block(path: str, text: str) -> Finding | None:
    """The KV008 for the values of a chart named for an engine that give no model (the chart's own default, or
    another values file, names it) next to a GPU request: the engine starts, and nothing of it is checked here."""
    block = _ENGINE_BLOCK.search(text)
    if block is None or _GPU_REQUEST.search(text) is None:
        return None
    line = text.count("\n", 0, block.start()) + 1
    what = block.group("key")
    message = (f"`{what}:` holds an engine's settings next to a GPU request, but this file names no model (the chart's "
               "default or another values file gives it) and no chart layout kvlint knows; nothing here is checked")
    fix = ("check the values file that names the model, or point kvlint at the chart; add `# kvlint: disable-file` "
           "when this file starts no engine")
    return _said(Span(path, line, 1, line, 1 + len(what)), message, fix)


# a compose service built from the repository's own Dockerfile (`build:` with a context, or `build: .`)
_OWN_BUILD = lazy(r"^(?P<indent>[ \t]*)build[ \t]*:", re.MULTILINE)


def _own_gpu_build(path: str, text: str, built_only: bool = False) -> Finding | None:
    """The KV008 for a compose file that names an engine (a comment counts: it says what the file is for) and reserves
    a GPU for a service built from the repository's own Dockerfile (sample K247: `command: single` to an entry point
    whose modes start vLLM): the engine starts out of this file's sight, said at the build, never passed over.
    `built_only`: the file names no engine, so the Dockerfile it builds must, on a line of its own code (sample
    K250: `RUN python3 -c 'from vllm...'` in an image whose entry point is the repository's serve script)."""
    build = _OWN_BUILD.search(text)
    if build is None or _GPU_REQUEST.search(text) is None:
        return None
    if built_only and not _built_names_engine(path, text):
        return None
    line = text.count("\n", 0, build.start()) + 1
    col = len(build.group("indent")) + 1
    where = "the Dockerfile it builds names an engine" if built_only else "the file names an engine"
    message = (f"a GPU is reserved for a service built from this repository's own Dockerfile ({where}), but "
               "kvlint read no engine command here (the image's entry point decides the model and the flags); nothing "
               "here is checked")
    fix = ("point kvlint at the Dockerfile and its entry point script, or give the service the engine's command "
           "(`command: vllm serve MODEL --flags`); add `# kvlint: disable-file` when this service starts no engine")
    return _said(Span(path, line, col, line, col + len("build")), message, fix)


_CONTEXT = lazy(r"^[ \t]*context[ \t]*:[ \t]*[\"']?([^\s\"'#]+)", re.MULTILINE)
_DOCKERFILE = lazy(r"^[ \t]*dockerfile[ \t]*:[ \t]*[\"']?([^\s\"'#]+)", re.MULTILINE)
_BUILD_CAP = 256 * 1024


def _built_names_engine(path: str, text: str) -> bool:
    """Whether the Dockerfile the file's first build names (its `context:` and `dockerfile:`, else `Dockerfile` beside
    the file) names an engine on a line that is not a comment."""
    import os

    from kvlint.models.lockpath import project_root
    from kvlint.sidefile import side_text

    context, dockerfile = _CONTEXT.search(text), _DOCKERFILE.search(text)
    folder = os.path.join(os.path.dirname(path) or ".", context.group(1) if context else ".")
    host = os.path.join(folder, dockerfile.group(1) if dockerfile else "Dockerfile")
    inside = "$" not in host and os.path.realpath(host).startswith(project_root(path))  # never a file beside the tree
    built = side_text(host, _BUILD_CAP) if inside else None
    return built is not None and any(_ENGINE_WORD.search(line) for line in built.split("\n")
                                     if not line.lstrip().startswith("#"))


_DOC_OPENS = lazy(r"[ \t]*[rRuUbBfF]{0,2}(?:\"\"\"|\'\'\')")


def _toggles_docstring(line: str) -> bool:
    """An odd number of triple quotes opens or closes a long string (one that opens and closes on the line does
    neither)."""
    return sum(line.count(q) for q in _DOCSTRING) % 2 == 1


# an engine chosen by a key of a workload's settings (`model: {engine: vllm}` of a NIM service): the container runs
# that engine under a wrapper of its own
_ENGINE_KEY = lazy(r"^[ \t]*[\"']?(?:engine|backend|inference[-_]?engine|serving[-_]?engine|type|runtime)[\"']?"
                   r"[ \t]*:[ \t]*[\"']?(?P<engine>vllm|sglang)[\"']?[ \t]*,?[ \t]*(?:#.*)?$", re.MULTILINE)
# an engine setting kept in an environment variable under its flag's name (`MAX_MODEL_LEN: "384000"`, `- name:
# GPU_MEMORY_UTILIZATION`, `-e VLLM_MAX_NUM_SEQS=8`, `-e ONLINE_TENSOR_PARALLEL_SIZE` passing the host's value, sample
# K452), a prefix allowed: an image's entry point writes them as flags
_SETTING_KEYS = ("MAX_MODEL_LEN", "CONTEXT_LENGTH", "GPU_MEMORY_UTILIZATION", "MEM_FRACTION_STATIC",
                 "TENSOR_PARALLEL_SIZE", "TP_SIZE", "PIPELINE_PARALLEL_SIZE", "MAX_NUM_SEQS", "MAX_NUM_BATCHED_TOKENS",
                 "MAX_TOTAL_TOKENS", "MAX_RUNNING_REQUESTS", "KV_CACHE_DTYPE")
_ENV_SETTING = lazy(rf"^[ \t]*(?:-[ \t]*)?(?:name:[ \t]*)?[\"']?(?:[A-Z0-9]+_)*?(?P<key>{'|'.join(_SETTING_KEYS)})"
                    r"[\"']?[ \t]*(?::|$|[ \t]=[ \t]*[\"'])"  # YAML's `KEY:`, Nix's and HCL's `KEY = "..."`
                    rf"|(?:-e|--env)[ \t=]+[\"']?(?:[A-Z0-9]+_)*?(?P<flag>{'|'.join(_SETTING_KEYS)})"
                    r"(?:=|(?=[\s\"'\\]|$))",  # `-e NAME=value`, or `-e NAME`: the host's value passed in
                    re.MULTILINE)
_SETTING_HINTS = ("MAX_MODEL_LEN", "CONTEXT_LENGTH", "GPU_MEM", "FRACTION", "PARALLEL", "TP_SIZE", "MAX_NUM",
                  "MAX_TOTAL", "MAX_RUNNING", "KV_CACHE")
_CONFIGURED_KINDS = ("yaml", "json", "shell", "text", "nix")


def _configured_engine(path: str, text: str, kind: str) -> Finding | None:
    """The KV008 for a container configured to run an engine without its command: a key that chooses the engine
    next to a GPU request (a NIM service's `engine: vllm`), or an environment holding two or more engine settings
    under their flags' names (a compose service, also one a script writes, whose image's entry point turns them
    into flags). kvlint reads no command there; said at the first such key, never passed over. One setting alone
    is no evidence (a CI variable, a client's context size)."""
    if kind not in _CONFIGURED_KINDS:
        return None
    # substring tests first: this is asked of every file no reader took a launch from
    keyed = kind in _STRUCTURED_KINDS and ("vllm" in text or "sglang" in text) \
        and ("engine" in text or "backend" in text or any(t in text for t in _TYPE_KEYS))
    if not keyed and not any(hint in text for hint in _SETTING_HINTS):
        return None
    if _ENGINE_WORD.search(text) is None and not _engine_only_settings(text):
        return None
    chosen = _ENGINE_KEY.search(text) if keyed else None
    chosen = chosen if chosen is not None and (_GPU_REQUEST.search(text) or _flags_listed(text, chosen)
                                               or _settings_keyed(text)) else None
    if chosen is not None:
        at, what = chosen.start("engine"), chosen.group().strip().rstrip(",")
        where = "a workload on GPUs" if _GPU_REQUEST.search(text) else "a workload configured"
        message = (f"`{what}` chooses the engine of {where} here, through a wrapper kvlint does not read (its model "
                   "and settings are the wrapper's own keys); no launch is read and nothing here is checked")
    else:
        settings = _env_settings(text)
        if len({key for _, key in settings}) < 2:
            return None
        at = settings[0][0]
        keys = ", ".join(sorted({key for _, key in settings}))
        what = keys
        message = (f"an environment here sets engine settings under their flags' names ({keys}) for an image whose "
                   "entry point turns them into the engine's command, out of this file's sight; no launch is read "
                   "and nothing here is checked")
    line = text.count("\n", 0, at) + 1
    col = at - text.rfind("\n", 0, at)
    fix = ("write the engine's command (`vllm serve MODEL --flags`) where kvlint can read it, or add "
           "`# kvlint: disable-file` when this file starts no engine")
    width = len(chosen.group("engine")) if chosen is not None else len(settings[0][1])
    return _said(Span(path, line, col, line, col + width), message, fix)


# a key choosing the engine by `type:` or `runtime:` (the places _configured_engine reads only where one is written)
_TYPE_KEYS = ("type: vllm", "type: sglang", 'type: "vllm"', 'type: "sglang"', '"type": "vllm"', '"type": "sglang"',
              "runtime: vllm", "runtime: sglang")
# a list item that is an engine's flag (`- --enable-prefix-caching`, `- [--tool-call-parser, hermes]`)
_FLAG_ITEM = lazy(r"^[ \t]*-[ \t]+\[?[\"']?(--[A-Za-z][\w-]*)", re.MULTILINE)


def _flags_listed(text: str, chosen: re.Match[str]) -> bool:
    """Whether the file lists two or more of the chosen engine's own flags as items (sample K455's tt-model package
    manifest: `type: vllm`, then `serve: {args: [--trust-remote-code, --enable-prefix-caching, ...]}` for the tool
    that writes the command): the engine's configuration, where a GPU request is not written (another accelerator's
    board, a tool's own profile keys)."""
    from kvlint.launches.argv import exact_option

    engine = chosen.group("engine")
    flags = {m.group(1) for k, m in enumerate(_FLAG_ITEM.finditer(text)) if k < 64}
    return sum(1 for f in flags if exact_option(engine, f) is not None) >= 2


# a key of a map written at an engine option's name (`gpu_memory_utilization: 0.9`, `max_model_len: 8192`)
_OPTION_KEY = lazy(r"^[ \t]*[\"']?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)[\"']?[ \t]*:", re.MULTILINE)


def _settings_keyed(text: str) -> bool:
    """Whether the file names a model by its key and keeps an engine option of several words under its own name as a
    key (sample K458's sparkrun recipe: `model: org/m`, `runtime: sglang`, `defaults: {gpu_memory_utilization: 0.9}`,
    from which the tool writes the command): beside a key choosing the engine, the configuration of one launch."""
    from kvlint.launches.argv import exact_option

    if _MODEL_KEY.search(text) is None:
        return False
    keys = {m.group(1) for k, m in enumerate(_OPTION_KEY.finditer(text)) if k < 128}
    return any(exact_option(e, "--" + k.replace("_", "-")) is not None for k in keys for e in ("vllm", "sglang"))


# a model variable given a value (`MODEL=/models/m`, `export MODEL_PATH=org/m`, a unit's `Environment=MODEL=...`)
_MODEL_SET = lazy(r"(?m)^[ \t]*(?:export[ \t]+|Environment=[\"']?)?(?:[A-Z]+_)?(MODEL(?:_PATH|_NAME|_ID|_DIR)?)=[\"']?"
                  r"[\w$/~.{}-]*[A-Za-z0-9]")
# a line that runs a script as the file's command: `exec "$REPO/start.sh"`, `bash serve.sh`, `./start.sh`, a unit's
# `ExecStart=` (the script's name is then found by its `.sh` end, a linear scan: a pattern that looked for the name
# after such a head backtracked quadratically on a long line of name characters)
_RUN_HEAD = lazy(r"[ \t]*(?:exec[ \t]|ExecStart=|(?:ba)?sh[ \t]|\.{0,2}/)")
_SH_END = lazy(r"\.sh\b")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _script_run(text: str) -> tuple[int, str] | None:
    """(offset, name) of the first script a line runs as its command (lines up to 4 KiB, the first 5,000 lines)."""
    offset = 0
    for k, line in enumerate(text.split("\n")):
        if k >= 5000:
            break
        end = _SH_END.search(line) if ".sh" in line and len(line) <= 4096 and _RUN_HEAD.match(line) else None
        start = end.start() if end is not None else 0
        while start > 0 and line[start - 1] in _NAME_CHARS:
            start -= 1
        if end is not None and start < end.start():
            return offset + start, line[start : end.end()]
        offset += len(line) + 1
    return None


def _launcher_with_model(path: str, text: str, kind: str) -> Finding | None:
    """The KV008 for a file that sets a model variable and runs a launcher script with it (sample K403: a systemd unit
    whose `Environment=MODEL=...` lines and vLLM variables feed `ExecStart=/bin/bash .../start_qwen.sh`, a wrapper
    that exports MODEL and `exec`s the same script): the engine command is that script's, read where it lies; this
    file is said, never passed over. Only in a file that names an engine."""
    if kind not in ("shell", "text") or "MODEL" not in text or ".sh" not in text or _ENGINE_WORD.search(text) is None:
        return None
    model = _MODEL_SET.search(text)
    run = _script_run(text) if model is not None else None
    if model is None or run is None:
        return None
    at, name = run
    line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    message = (f"the launcher {name} is run here with its model set in this file ({model.group(1)}, line "
               f"{text.count(chr(10), 0, model.start(1)) + 1}): the engine's command is that script's, which kvlint "
               "reads where it lies; nothing here is checked")
    fix = ("check the launcher script itself (it holds the engine's command), or add `# kvlint: disable-file` when "
           "this file starts no engine")
    return _said(Span(path, line, col, line, col + len(name)), message, fix)


_RUNS_SCRIPT = lazy(r"(?im)^[ \t]*(?:CMD|ENTRYPOINT)[ \t]+(?:\[[ \t]*\"?)?(?:(?:ba)?sh\"?,?[ \t]+\"?)?"
                   r"((?:\.{0,2}/)?[\w./-]+\.(?:sh|py))")


def _installed_engine_script(path: str, text: str, kind: str) -> Finding | None:
    """The KV008 for an image that installs an engine (`RUN pip install sglang`) and runs a script of the repository's
    as its command (`CMD ["./start.sh"]`, sample K323), from which no launch was read: the script starts the engine
    out of this file's sight (not in the tree, or serving the model its environment names); said, never passed
    over."""
    if kind != "dockerfile" or ("vllm" not in text and "sglang" not in text):
        return None
    from kvlint.builds import installed_engine

    installed = installed_engine(text)
    runs = _RUNS_SCRIPT.search(text) if installed else None
    if runs is None or _copied_beside(path, text, runs.group(1)):
        return None  # the script is in the tree: its own reading says where its launch is
    message = (f"this image installs {installed} and runs {runs.group(1)}, a script of the repository's own, from "
               "which kvlint read no launch (not in this tree, or its model is the environment's the image is run "
               "with); nothing here is checked")
    fix = ("keep the script beside the Dockerfile, or write the engine's command in the CMD, so kvlint can read the "
           "launch; or add `# kvlint: disable-file` when the image starts no engine")
    return _said_at(path, text, runs.start(1), runs.group(1), message, fix)


def _copied_beside(path: str, text: str, run: str) -> bool:
    """Whether the script the image runs is copied in from a file that is in the tree beside the Dockerfile."""
    import os

    from kvlint.builds import copies, landed

    if path in ("", "-"):
        return False
    name = run.rsplit("/", 1)[-1]
    for sources, dest in copies(text):
        for source in sources:
            if ".." in source or source.startswith("/"):
                continue  # outside the build context: never looked for (as the copied entry script's reader)
            named = name in (source.rsplit("/", 1)[-1], landed(source, dest).rsplit("/", 1)[-1])
            if named and os.path.isfile(os.path.join(os.path.dirname(path), source)):
                return True
    return os.path.isfile(os.path.join(os.path.dirname(path), name))


# settings whose names only an engine's flags have (`GPU_MEMORY_UTILIZATION`, `MEM_FRACTION_STATIC`)
_ENGINE_ONLY = frozenset({"GPU_MEMORY_UTILIZATION", "MEM_FRACTION_STATIC"})


def _engine_only_settings(text: str) -> bool:
    """Whether an environment that names no engine still holds three engine settings under their flags' names, one of
    them a name only an engine's flag has (sample K248's ModelArts service: `MAX_MODEL_LEN`, `MAX_NUM_SEQS`,
    `GPU_MEMORY_UTILIZATION` handed to the repository's start script): an engine's configuration all the same."""
    keys = {key for _, key in _env_settings(text)}
    return len(keys) >= 3 and bool(keys & _ENGINE_ONLY)


def _env_settings(text: str) -> list[tuple[int, str]]:
    """(where, the setting) of each engine setting an environment holds under its flag's name, the first 64."""
    if not any(hint in text for hint in _SETTING_HINTS):
        return []
    found: list[tuple[int, str]] = []
    for m in _ENV_SETTING.finditer(text):
        key = m.group("key") or m.group("flag")
        at = m.start("key") if m.group("key") else m.start("flag")
        found.append((at, key))
        if len(found) >= 64:
            break
    return found
