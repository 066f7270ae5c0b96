"""An image's entry point, or a program run with arguments, is not a launch: the launch is where it is run.

A shell script that an image runs (`ENTRYPOINT ["/entrypoint.sh"]`) and that starts the engine with the model
of the environment it is given (`--model "$MODEL"`, no default) holds no model of its own: the launch is the
manifest, compose file or `docker run` that sets MODEL. A Python program an image runs that starts the engine with
the model given on its own command line (an argparse `--model` with no default) is the same: the launch is where
the image is run. Reading either as a launch gives an "unresolved model" finding about a value the file never had.
A program no image runs is a launch whose model is open (rule 8 of bench/fresh-samples.md), as a script's
`MODEL=$1; vllm serve $MODEL` is.

Each stays a launch when the file fixes or defaults its model (`${MODEL:-org/m}`, `default="org/m"`); each
that is not one gets one KV008 info at its engine command, so it is never passed over in silence.
"""

from __future__ import annotations

import functools
import os
import re
from typing import TYPE_CHECKING

from kvlint.builds import COMPOSE_NAME, image_file
from kvlint.findings import Finding, Severity
from kvlint.launches.kinds import TEMPLATE_SUFFIXES
from kvlint.lazyre import lazy

if TYPE_CHECKING:
    import ast

    from kvlint.deployment import Deployment

KV008 = ("KV008", "unknown-launch-layout")
# `$MODEL`, `"${MODEL}"`, and `${VLLM_ARGS:-}` (an empty default is no value of the file's own: the tpu-inference
# image's entry point, turn 37's K327)
_ENV_ONLY = lazy(r'^"?\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?::?-)?\})"?$')
_ENTRY_NAME = lazy(r"entrypoint|entry[-_]point|startup|start[-_]up")
_LEVELS = 3  # folders above the script looked at for the Dockerfile that runs it
_READ_CAP = 256 * 1024
_MODEL_OPTION = lazy(r"^--?model([-_](name|path|id|name[-_]or[-_]path|dir))?$")


def env_model(dep: Deployment) -> str | None:
    """The variable a launch's model is, when it is only one (`$MODEL`, `"${MODEL}"`) the file never set."""
    if dep.model is None or dep.model_resolved:
        return None
    m = _ENV_ONLY.match(dep.model)
    return (m.group(1) or m.group(2)) if m else None


def run_by_image(path: str) -> str | None:
    """Why this script is an image's entry point: its name says so (`entrypoint.sh`, `startup.sh`), or a
    Dockerfile beside it or up to three folders above names it, or a compose file there mounts it into a
    container (`./serve.sh:/serve.sh`, run as the service's command), or it is kept in the folder of the
    repository's image builds (`docker/`); None when nothing says so."""
    if path in ("", "-"):
        return None
    base = os.path.basename(path)
    if base.lower().endswith(TEMPLATE_SUFFIXES):  # `startup.sh.tpl` (sample K118): a tool renders it with its
        return None  # values (a VM's user data), no image runs it: `${model}` is filled in, its model open
    if _ENTRY_NAME.search(base.lower()):
        return f"{base} is named as an image's entry point"
    from kvlint.sidefile import folders_up

    for folder in folders_up(os.path.dirname(os.path.abspath(path)), _LEVELS):
        found = _dockerfile_naming(folder, base)
        if found is not None:
            return f"{found} mounts it into a container" if COMPOSE_NAME.search(found) else f"{found} runs it"
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    if parent.lower() in _IMAGE_FOLDERS:  # `docker/sm75-serve.sh` (sample K390): kept with the image builds
        return f"it sits in {parent}/, the folder of the repository's image builds"
    return None


@functools.lru_cache(maxsize=64)
def _image_files(folder: str, _stamp: int) -> tuple[str, ...]:
    """The Dockerfiles and compose files of a folder, listed once per state of the folder (its modification time
    changes with its entries): every script of a folder, and of the folders below it, asks of the same folders."""
    return tuple(n for n in sorted(os.listdir(folder)) if image_file(n))


# folders that hold a repository's image builds: a script kept there is one an image runs
_IMAGE_FOLDERS = frozenset({"docker", "dockerfiles", "container", "containers"})


def _dockerfile_naming(folder: str, base: str) -> str | None:
    from kvlint.sources.text import read_small

    try:
        names = _image_files(folder, os.stat(folder).st_mtime_ns)
    except OSError:
        return None
    for name in names:
        compose = COMPOSE_NAME.search(name) is not None
        text = read_small(os.path.join(folder, name), _READ_CAP)
        if text is None:
            continue
        # a compose file's bind mount `./x.sh:/x.sh`, or a command naming it in a folder the file mounts
        # (`./config/vllm:/workspace/config/vllm`, `entrypoint: [bash, /workspace/config/vllm/x.sh]`, sample K168)
        if (base + ":/" in text or "/" + base in text) if compose else base in text:
            return name
    return None


_POSITIONAL = lazy(r'^"?\$(?:[1-9@*]|\{[1-9@*](?:[:]?[?][^}]*)?\})"?$')  # `$1`, `"$@"`, `${1:?usage}`


def argument_model(dep: Deployment, text: str) -> str | None:
    """The argument of the script a launch's model is, when it has no default: the model is `$1` / `"$@"` /
    `${@:-bash}` itself, or a variable the script sets from one (`MODEL="${1:?usage}"`). Such a script is a wrapper
    its caller gives the model to (rule 5 of bench/fresh-samples.md): the launch is where it is called."""
    model = (dep.model or "").strip()
    if dep.model is None or dep.model_resolved:
        return None
    if _POSITIONAL.match(model) or model.startswith(("${@:-", '"${@:-', "${*:-")):
        return model
    name = _ENV_ONLY.match(model)
    if name is None or not _passes_arguments(dep, text):
        return None  # `NAME=$1; vllm serve $NAME` alone stays a launch whose model is open
    variable = name.group(1) or name.group(2)
    found = re.search(r"(?m)^[ \t]*(?:export[ \t]+|local[ \t]+|readonly[ \t]+)?" + re.escape(variable) +
                      r'=("[^"\n]*"|[^\s;]+)', text)
    return found.group(1) if found is not None and _POSITIONAL.match(found.group(1)) else None


def _passes_arguments(dep: Deployment, text: str) -> bool:
    """Whether the launch's command hands the script's arguments on (`"$@"`, `$*`): a wrapper, rule 5's shape."""
    span = dep.launch_span or dep.model_span
    if span is None or span.path != dep.path:
        return "$@" in text or "${@" in text
    lines = text.split("\n")
    k = span.line - 1
    command = lines[k] if 0 <= k < len(lines) else ""
    while command.rstrip().endswith("\\") and k + 1 < len(lines):
        k += 1
        command += lines[k]
    return any(p in command for p in ("$@", "${@", "$*", "${*"))


def _sized_here(dep: Deployment) -> bool:
    """Whether the script writes the engine's sizing itself (`--tp 1 --mem-fraction-static 0.8` beside `--model-path
    "$1"`, sample K69; or through a variable it defaults, `--tensor-parallel-size $size` with `size=${2:-8}`, sample
    K84): a deployment whose model its caller names (counting rule 8), not a wrapper that only hands its arguments
    on (rule 5)."""
    from kvlint.engines import get_engine

    roles = set(getattr(get_engine(dep.engine), "roles", {}).values()) - {"quantization", "nnodes"}
    return any(s.origin in _WRITTEN_HERE and s.resolved and name in roles for name, s in dep.settings.items())


_WRITTEN_HERE = ("explicit", "variable")  # a setting's origin when the script's own text gives its value


def wrapper_scripts(deps: list[Deployment], text: str) -> tuple[list[Deployment], list[Finding]]:
    """The launches whose model is the script's own argument, as KV008 notes; the others kept."""
    kept, notes = [], []
    for dep in deps:
        arg = argument_model(dep, text)
        if arg is None or _sized_here(dep):
            kept.append(dep)
        else:
            notes.append(_note(dep, f"the model is this script's argument ({arg}, no default): the launch is where "
                                    "the script is called with a model"))
    return kept, notes


def shell_entrypoint(path: str, deps: list[Deployment], text: str = "") -> tuple[list[Deployment], list[Finding]]:
    """The launches of a shell script, less those that are an image's entry point run with an env model and, in a
    script an image runs, those whose model is the script's own argument. A script a person runs with the model as
    its argument (`serve_vllm.sh <model>`, sample K270) is a launch whose model is open (counting rule 8)."""
    # why an image runs the script: asked once (it lists folders and reads Dockerfiles), and only when an answer is
    # used: a script handing its arguments on, a launch with no model, or one whose model is the environment's
    asked = (text and "$" in text) or any(d.model is None or env_model(d) for d in deps)
    image_why = run_by_image(path) if asked else None
    deps, wrapped = wrapper_scripts(deps, text) if text and "$" in text and image_why else (deps, [])
    deps, bare = _bare_entry(deps, image_why, text)
    wrapped += bare
    if not any(env_model(d) for d in deps):
        return deps, wrapped
    kept, notes = [], []
    for dep in deps:
        name = env_model(dep)
        # a flag the command writes (not left to "$@"), past the address a container's entry point always pins
        # (`--host 0.0.0.0`, sample K525's `start-whisper.sh`: every other value the image's environment)
        own = any(s.resolved and name not in _ADDRESS for name, s in dep.settings.items())
        why = image_why or (_HANDS_ON if name is not None and not own and _passes_arguments(dep, text) else None)
        if name is None or dep.image is not None or why is None or _defaulted_here(name, text) \
                or _set_here(name, text):
            kept.append(dep)  # a script that runs the engine's container itself is where the image is run
            continue
        notes.append(_note(dep, f"the model is ${name} of the environment the image is given ({why}): the launch "
                                "is where the image is run with it (a manifest, compose file, docker run)"))
    return kept, wrapped + notes


_ADDRESS = frozenset({"host", "port"})


def _bare_entry(deps: list[Deployment], why: str | None, text: str = "") -> tuple[list[Deployment], list[Finding]]:
    """The launches of a script an image runs (`why`: what says so) that start the engine with no model and no flag
    at all (`vllm serve` alone after starting a sidecar, turn 38's K336: an NVCF sample's `entrypoint.sh`), or with no
    model and the script's own arguments handed on (`sglang.launch_server --host 0.0.0.0 --port 8081 $@ &`, K353's
    nginx-fronted entry point: the model comes with the arguments the image is run with): the image's entry point, as
    a Dockerfile's bare ENTRYPOINT is (counting rule 5), said by a KV008 info; the launch is where the image is run."""
    if why is None or not any(d.model is None for d in deps):
        return deps, []
    kept, notes = [], []
    for dep in deps:
        if dep.model is None and dep.image is None and (not any(s.resolved for s in dep.settings.values())
                                                        or (bool(text) and _passes_arguments(dep, text))):
            notes.append(_note(dep, f"the engine is started with no model of its own in a script an image runs "
                                    f"({why}): the image's entry point, not a deployment; the launch is where the "
                                    "image is run with a model"))
        else:
            kept.append(dep)
    return kept, notes


def _set_here(name: str, text: str) -> bool:
    """Whether the script gives the variable a value of its own, not its environment's (sample K263's `ARGS=$(grep
    -v '^#' "$CONFIG" | tr '\\n' ' ')`, a profile file the script reads): the script chooses what it serves, a
    launch whose model is open (rule 8), not an image's entry point handed the model (rule 5): a value a command
    makes, or one with a fixed part. One made only of variables (`MODEL=${MODEL}`, `MODEL=$MODEL_ID`) is still the
    environment's."""
    for m in re.finditer(rf"(?m)^[ \t]*(?:export[ \t]+|local[ \t]+|readonly[ \t]+)?{re.escape(name)}=(.*)$", text):
        value = re.sub(r"(?:^|\s)#.*$", "", m.group(1)).strip()  # a comment after the value is no part of it
        if _MOUNTED.fullmatch(value.strip("\"'")):
            continue  # `MODEL_PATH="/models/${MODEL_NAME}"`: the folder the image mounts, the model the environment's
        if "$(" in value or "`" in value or re.search(r"[A-Za-z][\w.-]{2,}", re.sub(r"\$\{[^}]*\}|\$\w+", "", value)):
            return True
    return False


# a folder, then one variable as its last part (turn 37's K328: a Cloud Run image's `MODEL_PATH="/models/${NAME}"`)
_MOUNTED = lazy(r"(?:[\w.~-]*/)+\$(?:\{\w+\}|\w+)/?")


def _defaulted_here(name: str, text: str) -> bool:
    """Whether the script gives the model's variable a default with a fixed part (sample K188's `MODEL_PATH=
    "${MODEL_PATH:-${MODEL_DIR}/Qwen2.5-Coder-14B-Instruct}"`): the script serves a defaulted model, a launch of its
    own, whose folder the image's environment places; a default only of another variable (`${MODEL:-$DEFAULT}`) is
    not."""
    if f"{name}:-" not in text and f"{name}-" not in text:
        return False
    pattern = rf"(?m)^[ \t]*(?:export[ \t]+|local[ \t]+)?{re.escape(name)}=[\"']?\$\{{{re.escape(name)}:?-" \
              r"(?P<default>(?:\$\{\w+\}|[^}\s\"'])*)"
    return any(re.search(r"[A-Za-z][\w.-]{2,}", re.sub(r"\$\{\w+\}|\$\w+", "", m.group("default")))
               for m in re.finditer(pattern, text))


# an engine command whose model is the environment's and whose every other argument is the script's own ("$@"): a
# launcher an image or a tool runs with both (sample K94's `sglang-launcher.sh`), rule 5's shape; one that writes
# flags of its own (with defaults the environment may change) is a deployment (rule 8)
_HANDS_ON = ("it hands the engine its own arguments (\"$@\") and writes no flag of its own, as an image's entry "
             "point does")


def argv_model(tree: ast.Module) -> str | None:
    """The option of a Python program's own command line that gives the model with no default (`parser.
    add_argument("--model", required=True)`), or None when it has none (or a default)."""
    import ast

    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("add_argument", "option")):
            continue
        options = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        model = next((o for o in options if _MODEL_OPTION.match(o)), None)
        if model is None:
            continue
        keys = {k.arg: k.value for k in node.keywords if k.arg}
        default = keys.get("default")
        if default is None or (isinstance(default, ast.Constant) and default.value is None):
            return model
    return None


def python_program(path: str, deps: list[Deployment], tree: ast.Module) -> tuple[list[Deployment], list[Finding]]:
    """The launches of a Python file, less those of an image's entry point whose model is its own command line's
    (no default) or its environment's (no default), and those with no model an engine that needs one is started
    with (the program adds it at run time)."""
    deps, unnamed = _model_added_later(deps)
    if not any(d.model is not None and not d.model_resolved for d in deps):
        return deps, unnamed
    option = argv_model(tree)
    from_env = env_names(tree) if option is None else set()
    why = run_by_image(path) if option is not None or from_env else None
    if why is None:
        return deps, unnamed
    kept, notes = [], unnamed
    for dep in deps:
        if dep.model is None or dep.model_resolved:
            kept.append(dep)
        elif option is not None:
            notes.append(_note(dep, f"the model comes from this program's own {option} argument, which has no "
                                    f"default, and {why}: the launch is where the image is run with one"))
        elif (name := _PY_NAME.match(dep.model)) is not None and name.group(1) in from_env:
            notes.append(_note(dep, f"the model is {dep.model} of the environment the image is given ({why}): the "
                                    "launch is where the image is run with it (a manifest, compose file, docker run)"))
        else:
            kept.append(dep)
    return kept, notes


_PY_NAME = lazy(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def _model_added_later(deps: list[Deployment]) -> tuple[list[Deployment], list[Finding]]:
    """A program's engine command with no model, for an engine that has no default model (SGLang exits without
    `--model-path`): the program adds the model at run time, out of sight (sample K87's RunPod worker: a loop
    over environment variables extends the argv): no launch of its own, a KV008 place. A command that reads a
    config file (`--config ./config.yaml`, sample K101) is a launch: the model is in that file."""
    from kvlint.engines.registered import facts

    kept, notes = [], []
    for dep in deps:
        if dep.model is None and not dep.model_aliases and facts(dep.engine).DEFAULT_MODEL is None \
                and "config" not in dep.settings:
            notes.append(_note(dep, f"{facts(dep.engine).TITLE} needs a model and this command names none: the "
                                    "program adds it at run time (the launch is where the program is run with one)"))
        else:
            kept.append(dep)
    return kept, notes


def env_names(tree: ast.Module) -> set[str]:
    """Names assigned from the environment with no default: `M = os.environ["MODEL"]`, `os.getenv("MODEL")`,
    `os.environ.get("MODEL")`."""
    import ast

    from kvlint.launches.pyfile import assigned

    out: set[str] = set()
    for node in ast.walk(tree):
        target = assigned(node) if isinstance(node, ast.stmt) else None
        if target is None:
            continue
        value = target[1]
        env_item = isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute) \
            and value.value.attr == "environ"
        env_call = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in ("getenv", "get") and len(value.args) == 1 and not value.keywords \
            and (value.func.attr == "getenv" or isinstance(value.func.value, ast.Attribute)
                 and value.func.value.attr == "environ")
        if env_item or env_call:
            out.add(target[0])
    return out


def _note(dep: Deployment, why: str) -> Finding:
    span = dep.launch_span or dep.model_span
    message = f"{dep.engine} is started here, but not as a launch of its own: {why}; nothing here is checked"
    fix = "check the file that runs this one, or give the model a default here to have it checked as a launch"
    return Finding(KV008[0], KV008[1], Severity.INFO, message, span, fix=fix, path=dep.path)
