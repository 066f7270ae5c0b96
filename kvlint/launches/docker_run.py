"""`docker run` / `podman run` in scripts: the options, the image, and the command after it.

The command a container runs is the image's entry point plus the words after the image, or
`--entrypoint` plus those words. `-e`, `--env-file` and the image's own entry point decide what
the engine sees; `--gpus`, `--device nvidia.com/gpu=...` and NVIDIA_VISIBLE_DEVICES decide how
many GPUs it gets; `-v HOST:CONTAINER` lets a model path inside the container be read on the host.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from kvlint.launches.env import Field, parse_dotenv
from kvlint.launches.images import (
    around_engine,
    entrypoint_engine,
    known_image,
    named_engine,
    shipped_engine,
    stand_in,
)
from kvlint.launches.infer import engine_from_flags, inferred_note
from kvlint.lazyre import lazy
from kvlint.record import field, record, replace
from kvlint.span import Span

# options that take a value (as a separate word or after `=`); everything else is a flag
VALUE_OPTS = frozenset({  # every value option of `docker run` (docs.docker.com/reference/cli/docker/container/run)
    "--add-host", "--annotation", "-a", "--attach", "--blkio-weight", "--blkio-weight-device", "--cap-add",
    "--cap-drop", "--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-count", "--cpu-percent", "--cpu-period",
    "--cpu-quota", "--cpu-rt-period", "--cpu-rt-runtime", "-c", "--cpu-shares", "--cpus", "--cpuset-cpus",
    "--cpuset-mems", "--detach-keys", "--device", "--device-cgroup-rule", "--device-read-bps", "--device-read-iops",
    "--device-write-bps", "--device-write-iops", "--dns", "--dns-option", "--dns-opt", "--dns-search", "--domainname",
    "--entrypoint", "-e", "--env", "--env-file", "--expose", "--gpus", "--group-add", "--health-cmd",
    "--health-interval", "--health-retries", "--health-start-interval", "--health-start-period", "--health-timeout",
    "-h", "--hostname", "--ip", "--ip6", "--ipc", "--isolation", "--kernel-memory", "-l", "--label", "--label-file",
    "--link", "--link-local-ip", "--log-driver", "--log-opt", "--mac-address", "-m", "--memory",
    "--memory-reservation", "--memory-swap", "--memory-swappiness", "--mount", "--name", "--network", "--net",
    "--network-alias", "--net-alias", "--oom-score-adj", "--pid", "--pids-limit", "--platform", "-p", "--publish",
    "--pull", "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout",
    "--storage-opt", "--sysctl", "--tmpfs", "--ulimit", "-u", "--user", "--userns", "--uts", "-v", "--volume",
    "--volume-driver", "--volumes-from", "-w", "--workdir",
    # podman's own (docs.podman.io podman-run)
    "--pod", "--pod-id-file", "--secret", "--arch", "--os", "--variant", "--authfile", "--cert-dir", "--creds",
    "--cgroups", "--cgroup-conf", "--chrootdirs", "--conmon-pidfile", "--decryption-key", "--gidmap", "--uidmap",
    "--subgidname", "--subuidname", "--group-entry", "--passwd-entry", "--hooks-dir", "--hostuser", "--image-volume",
    "--init-path", "--personality", "--preserve-fds", "--rdt-class", "--requires", "--sdnotify", "--seccomp-policy",
    "--timezone", "--umask", "--shm-size-systemd", "--retry", "--retry-delay",
})
RUNNERS = ("docker", "podman", "nvidia-docker", "nerdctl", "finch")
# a script's own function around the runner, defined where kvlint does not read it (`docker_cmd run ...`, sample
# K244's sourced lib.sh): it passes its words to docker (compose's `docker-compose run SERVICE` is no such one)
_RUNNER_FUNCTION = lazy(r"(?:docker|podman)_[a-z]\w*")


# a variable holding the runner, its value chosen at run time (`$_DOCKER run ...` after `_DOCKER="sudo docker"` in one
# arm and `docker` in another, sample K503; `$CONTAINER_RUNTIME run`): a name only a container runner is given
_RUNNER_VARIABLE = lazy(r"[\"']?\$\{?(?:\w*_)?(?:DOCKER|PODMAN|NERDCTL)(?:_(?:CMD|BIN|CLI|EXE|COMMAND|PATH))?\}?[\"']?|"
                        r"[\"']?\$\{?CONTAINER_(?:RUNTIME|CLI|CMD|ENGINE|TOOL|BIN)\}?[\"']?")


def is_runner(head: str) -> bool:
    """Whether a command's program runs containers as `docker` does."""
    return head in RUNNERS or _RUNNER_FUNCTION.fullmatch(head) is not None or \
        (head[:1] in "$\"'" and runner_variable(head))


def runner_variable(head: str) -> bool:
    """Whether a command's program is a variable named for the container runner it holds (`$DOCKER`, `$_DOCKER`,
    `${PODMAN_CMD}`, `$CONTAINER_RUNTIME`); asked only of a word that is an expansion."""
    return ("DOCKER" in head or "PODMAN" in head or "NERDCTL" in head or "CONTAINER_" in head) \
        and _RUNNER_VARIABLE.fullmatch(head) is not None


@record(frozen=False)
class RunOptions:
    """What `docker run`'s options say about the container (before the image)."""

    env: dict[str, str] = field(default_factory=dict)
    passthrough: list[str] = field(default_factory=list)  # `-e NAME`: the value comes from the host
    gpus: tuple[str | None, Span | None] = (None, None)
    entrypoint: Field | None = None
    name: str | None = None
    mounts: list[tuple[str, str]] = field(default_factory=list)  # (host, container)
    notes: list[str] = field(default_factory=list)
    misplaced: list[Field] = field(default_factory=list)  # the engine's flags among docker's options (KV015)


def is_run(fields: list[Field], i: int) -> int | None:
    """Index after `docker run` / `podman container run` at `i`, or None. `docker create` takes the same options,
    image and command: the container it makes runs that command when started (`docker create ... IMAGE vllm serve
    ...` then `docker start NAME`, sample K171)."""
    head = fields[i].text.rsplit("/", 1)[-1]
    if not is_runner(head):
        return None
    j = i + 1
    if j < len(fields) and fields[j].text == "container":
        j += 1
    return j + 1 if j < len(fields) and fields[j].text in ("run", "create") else None


def read_options(fields: list[Field], i: int, base: str) -> tuple[RunOptions, int]:
    """The options from index `i` up to the image; `base` is the folder an `--env-file` is read from."""
    opts = RunOptions()
    while i < len(fields) and (fields[i].text.startswith("-") and fields[i].text != "-" or _options_left(fields, i)):
        if not fields[i].text.startswith("-"):
            opts.notes.append(f"{fields[i].text} before the image is read as more options (its value is not known)")
            i += 1
            continue
        name, eq, value = fields[i].text.partition("=")
        engine_takes = _engine_flag(name) if name not in VALUE_OPTS and name not in _SWITCHES else None
        if engine_takes is not None:  # `--max-model-len auto` before the image: docker exits (unknown flag)
            opts.misplaced.append(fields[i])
            i += 2 if engine_takes and not eq else 1
            continue
        takes = not eq and name in VALUE_OPTS
        value_field = fields[i + 1] if takes and i + 1 < len(fields) else fields[i]
        if takes and i + 1 < len(fields):
            value = fields[i + 1].text
        _OPTION.get(name, _ignore)(opts, value, value_field, fields[i], base)
        i += 2 if takes else 1
    return opts, i


def _options_left(fields: list[Field], i: int) -> bool:
    """An expansion the script leaves unknown among the options (`"${EXTRA_RUN_ARGS[@]}"`, `$DOCKER_OPTS`), when
    an image follows it, past docker's own options: more options, not the image (an image is a resolved word with
    a registry or a tag; a path such as `/model`, or a word no docker option takes, after it is the command's, so
    the expansion stays the image)."""
    if not _unknown(fields[i]) or i + 1 >= len(fields) or _IMAGE_VARIABLE.search(fields[i].text):
        return False  # `"$IMAGE" org/model --flags`: a variable named for the image is the image (sample K172)
    if _NEVER_AN_IMAGE.search(fields[i].text):
        return True  # `${EXTRA_ENV:-}`, `"${HYBRID_ENV[@]}"` before a local image (K466): empty, or many words
    k, options = i + 1, False
    while k < len(fields) and (fields[k].text.startswith("-") or _unknown(fields[k])):  # docker options after it
        if _unknown(fields[k]):  # and more such expansions (`$PATCH_MOUNTS $EXTRA_MOUNTS "$IMAGE"`), to the next word
            if _IMAGE_VARIABLE.search(fields[k].text):
                return True  # a later one named for the image is the image (sample K173: `$CPUSET_ARG -e ... $IMAGE`)
            k += 1
            continue
        name, eq, _ = fields[k].text.partition("=")
        if name not in VALUE_OPTS | _SWITCHES:
            return False  # not docker's (`-m sglang.launch_server` after an image is python's): it is the image
        # `--name N`: a long valued option of docker's that no engine takes (a short one, `-c`, may be the command's
        # own after an `--entrypoint bash` the arm set)
        options = options or (name in VALUE_OPTS and name.startswith("--") and _engine_flag(name) is None)
        k += 2 if name in VALUE_OPTS and not eq else 1
    nxt = fields[k] if k < len(fields) else None
    if options and k > i + 1:
        # docker's own valued options after it (`$PRIV --name N $IMAGE python3 -m ...`, sample K154's f-string
        # script): it is more options, and the image is the last expansion before the command
        return True
    return nxt is not None and nxt.resolved and not nxt.text.startswith(("/", ".")) and " " not in nxt.text and \
        ("/" in nxt.text or ":" in nxt.text)


# an expansion whose default is nothing (`${X:-}`, `${X-}`) or an array's words (`"${A[@]}"`): never one image
_NEVER_AN_IMAGE = lazy(r"\$\{[A-Za-z_]\w*:?-\}|\$\{[A-Za-z_]\w*\[[@*]\]\}")
_IMAGE_VARIABLE = lazy(r"^[\"']?\$\{?[A-Za-z0-9_]*(?:IMAGE|image|Image)\}?[\"']?$")


def _unknown(word: Field) -> bool:
    """A word that is an expansion the script leaves unknown (`$DOCKER_OPTS`, `"${EXTRA[@]}"`), or a placeholder the
    author fills in (`<VLLM_ENV_AS_-e_FLAGS>`, sample K282's template script)."""
    text = word.text.strip("\"'")
    return (not word.resolved and text.startswith("$")) or (text.startswith("<") and text.endswith(">"))


def _engine_flag(name: str) -> bool | None:
    """Whether an option docker does not have is one of an engine's own (exactly as its table spells it), and if so
    whether it takes a value; None for any other word (a docker switch kvlint does not list stays docker's)."""
    from kvlint.engines.registered import engine_names
    from kvlint.flags.flag_table import flag_table

    if not name.startswith("--") or len(name) < 4:
        return None
    for engine in engine_names():
        spec = flag_table(engine).by_option.get(name)
        if spec is not None:
            return spec.kind in ("value", "append")
    return None


_SWITCHES = frozenset({"--rm", "-d", "--detach", "-i", "--interactive", "-t", "--tty", "-it", "-ti", "--privileged",
                       "--init", "--read-only", "-P", "--publish-all", "--no-healthcheck", "-q", "--quiet"})


def _env(opts: RunOptions, value: str, _vf: Field, _opt: Field, _base: str) -> None:
    key, eq, val = value.partition("=")
    if eq:
        opts.env[key] = val
    elif key:
        opts.passthrough.append(key)


def _env_file(opts: RunOptions, value: str, _vf: Field, _opt: Field, base: str) -> None:
    from kvlint.sources.text import SourceError, read_file

    path = value if os.path.isabs(value) else os.path.join(base, value)
    try:
        text = read_file(path) if base and os.path.isfile(path) else None
    except SourceError:
        text = None
    if text is None:
        opts.notes.append(f"--env-file {value} is not beside this script; the variables it sets are not known")
        return
    for key, val in parse_dotenv(text).items():
        opts.env.setdefault(key, val)


def _gpus(opts: RunOptions, value: str, _vf: Field, opt: Field, _base: str) -> None:
    opts.gpus = ("docker:" + value.strip("'\""), opt.span)


def _device(opts: RunOptions, value: str, _vf: Field, opt: Field, _base: str) -> None:
    """podman / CDI `--device nvidia.com/gpu=0` (one per GPU), `=all` (count unknown); a GPU's device node (AMD's
    /dev/kfd, WSL's /dev/dxg: every GPU of the host, count unknown) when no GPU is given otherwise."""
    kind, _, which = value.partition("=")
    if kind.strip("\"'").split(":", 1)[0] in ("/dev/kfd", "/dev/dxg"):
        opts.gpus = opts.gpus if opts.gpus[0] is not None else ("docker:all", opt.span)
        return
    if not kind.endswith("/gpu"):
        return
    known, _ = opts.gpus
    if which == "all" or (known is not None and not known.startswith("docker:device=")):
        opts.gpus = ("docker:all", opt.span)
        return
    prev = known[len("docker:device="):].split(",") if known else []
    opts.gpus = ("docker:device=" + ",".join(prev + [which]), opt.span)


def _entrypoint(opts: RunOptions, value: str, vf: Field, _opt: Field, _base: str) -> None:
    """`--entrypoint python3` or `--entrypoint=python3` (sample K119's README, quoted: `--entrypoint="python3"`):
    the program, not the option word that holds it."""
    opts.entrypoint = vf if vf.text == value else replace(vf, text=value, offsets=(), source=None)


def _runtime(opts: RunOptions, value: str, _vf: Field, opt: Field, _base: str) -> None:
    """`--runtime=nvidia` (the NVIDIA container runtime: every GPU, as with NVIDIA_VISIBLE_DEVICES=all) and
    `--runtime=habana` (Gaudi's, sample K409): the container is given the host's accelerators when `--gpus` is not
    there to say which (the device's kind is told by the run's environment and image: gpus_in_manifest)."""
    if opts.gpus[0] is None and value in ("nvidia", "habana"):
        opts.gpus = ("docker:all", opt.span)


def _name(opts: RunOptions, value: str, _vf: Field, _opt: Field, _base: str) -> None:
    opts.name = value


def _volume(opts: RunOptions, value: str, _vf: Field, _opt: Field, _base: str) -> None:
    host, sep, rest = value.partition(":")
    _mounted(opts, host, rest.split(":", 1)[0] if sep else "")


def _mount(opts: RunOptions, value: str, _vf: Field, _opt: Field, _base: str) -> None:
    """`--mount type=bind,src=$DIR,dst=/recipe-config,readonly` (sample K406): a bind mount, as `-v` gives it."""
    keys = dict(kv.partition("=")[::2] for kv in value.split(","))
    host = keys.get("src") or keys.get("source") or ""
    inside = keys.get("dst") or keys.get("destination") or keys.get("target") or ""
    if keys.get("type", "bind") == "bind" and host and inside:
        _mounted(opts, host, inside)


def _mounted(opts: RunOptions, host: str, inside: str) -> None:
    for cwd in _CWD:  # `-v $(pwd):/app`: the folder the command is run from, the repository's in a README
        if host == cwd or host.startswith(cwd + "/"):
            host = "." + host[len(cwd):]
    if inside and host.startswith(("/", "~", ".", "$")):
        opts.mounts.append((host, inside))


_CWD = ("$(pwd)", "${PWD}", "$PWD", "`pwd`")


def _ignore(opts: RunOptions, value: str, vf: Field, opt: Field, base: str) -> None:
    return None


_OPTION: dict[str, Callable[[RunOptions, str, Field, Field, str], None]] = {
    "-e": _env, "--env": _env, "--env-file": _env_file, "--gpus": _gpus, "--device": _device,
    "--entrypoint": _entrypoint, "--name": _name, "--runtime": _runtime, "-v": _volume, "--volume": _volume,
    "--mount": _mount,
}


def command_after_image(opts: RunOptions, image: Field, rest: list[Field]) -> tuple[list[Field], str | None]:
    """The argv the container runs and, when only arguments follow an image whose entry point is
    the engine, that engine (the caller reads `rest` as the engine's flags). An image kvlint does not
    know, given flags only, starts the engine those flags belong to when they are unmistakably one
    engine's (the rule Kubernetes args-only containers follow); a note says so."""
    if opts.entrypoint is not None:  # `--entrypoint ""` clears the image's: the words after it are the whole argv
        return ([opts.entrypoint] if opts.entrypoint.text else []) + rest, None
    known = entrypoint_engine(image.text)
    # an image named for a program around the engine (`vllm-benchmark:latest` given `--vllm_url URL --model M`, sample
    # K516): the engine's flags it takes are a client's, not a server's
    guessed = None if known or known_image(image.text) or stand_in(image.text) or around_engine(image.text) \
        else engine_from_flags(rest)
    if guessed and not rest[0].text.startswith("-") and (shipped_engine(image.text) or named_engine(image.text)):
        guessed = None  # a model, then flags, given to a build named for the engine: its name says more (below)
    if guessed and shipped_engine(image.text) == guessed:  # a build named for the engine, given its flags only
        opts.notes.append(f"engine {guessed} assumed: {image.text} carries it and is given only {guessed}'s flags")
    elif guessed:
        opts.notes.append(inferred_note(guessed, "--entrypoint"))
    elif not known and not known_image(image.text) and rest and (shipped_engine(image.text) or
                                                                named_engine(image.text)) and \
            not _own_program(shipped_engine(image.text) or named_engine(image.text) or "", rest) \
            and not _mode_word(rest) and not around_engine(image.text):
        # a custom build named for the engine (`vllm-spark:latest`) run with arguments: its entry point is the
        # engine's (a shell or a script as the first word still replaces it: launch_in_argv checks)
        guessed = shipped_engine(image.text) or named_engine(image.text)
        opts.notes.append(f"engine {guessed} assumed from the image name {image.text}: its entry point is not known")
    elif not known and rest and rest[0].text.startswith("-") and "/" not in image.text.partition(":")[0] and \
            shipped_engine(image.text) and engine_from_flags(rest) == shipped_engine(image.text):
        # a local build of the engine (no registry, no org: `sglang:my-build`), given only that engine's flags
        # (`--model-path X --mem-fraction-static 0.85`): flags cannot be a command, so its entry point is the
        # server (a published image whose entry point is a shell, lmsysorg/sglang, is not assumed to take them)
        guessed = shipped_engine(image.text)
        opts.notes.append(f"engine {guessed} assumed: {image.text} carries it and is given only {guessed}'s flags")
    elif not known and not image.resolved and (named := _named_container(opts.name, rest)) is not None:
        guessed = named
        opts.notes.append(f"engine {guessed} assumed: the container is named {opts.name}, its image {image.text} is "
                          f"set elsewhere, and its arguments are {guessed}'s flags")
    return rest, known or guessed


def _mode_word(rest: list[Field]) -> bool:
    """One bare word and nothing else, written as no model is (`prepare-model`, `bench`: no `/`, no `.`, a word of
    the image's own entry point, sample K257's README), handed to a build named for the engine: a mode of its own
    script (a download step, a benchmark), never the model its server would take."""
    word = rest[0].text if len(rest) == 1 and rest[0].resolved else ""
    return bool(word) and not word.startswith("-") and "/" not in word and "." not in word and "-" in word


def _named_container(name: str | None, rest: list[Field]) -> str | None:
    """The engine a container's own name says it runs (`--name vllm-fn`), for an image left to a variable that is
    given the engine's flags only (every one an option of that engine), after at most two words left to variables
    (the model's, the arguments'): sample K173's multi-node heredoc, `$IMAGE $MODEL_ARG $VLLM_ARGS_STR --node-rank 0
    --port $PORT`. A name alone, or flags of another program, say nothing."""
    from kvlint.launches.infer import all_known

    engine = named_engine(name) if name else None
    flags = [f for f in rest if f.text.startswith("--")]
    lead = next((k for k, f in enumerate(rest) if f.text.startswith("-")), len(rest))
    if engine is None or not flags or lead > 2 or any(f.resolved for f in rest[:lead]):
        return None
    return engine if all_known(engine, rest) else None


def _own_program(engine: str, rest: list[Field]) -> bool:
    """Whether the words a build named for the engine is given are mostly another program's options (`sglang-sanic-rag
    --model_path M --data_path ./data --retriever_model X --renew_db`, sample K72: an application that uses the engine
    in-process): its entry point is that program, not the engine's server."""
    from kvlint.launches.infer import foreign

    return foreign(engine, {f.text.split("=", 1)[0] for f in rest if f.text.startswith("--")})


def gpu_env_hint(opts: RunOptions) -> RunOptions:
    """NVIDIA_VISIBLE_DEVICES=0,1 passed with -e counts like `--gpus device=0,1` when --gpus is absent."""
    visible = opts.env.get("NVIDIA_VISIBLE_DEVICES")
    if opts.gpus[0] is None and visible and visible != "all":
        return replace(opts, gpus=("docker:device=" + visible, None))
    return opts


# ------------------------------------------------------------------------------------------- local builds

_BUILD_VALUES = frozenset({"-t", "--tag", "-f", "--file", "--build-arg", "--target", "--platform", "--label",
                           "--network", "--secret", "--ssh", "--cache-from", "--cache-to", "--output", "-o",
                           "--progress", "--iidfile", "--add-host", "--build-context", "--shm-size", "--ulimit",
                           "--metadata-file", "--builder", "-m", "--memory"})
_DOCKERFILE_NAME = re.compile(r"^(docker|container)file([.-][\w.-]*)?$|\.(docker|container)file$", re.IGNORECASE)
_READ_CAP = 256 * 1024


def built_images(fields: list[Field], i: int, base: str) -> list[tuple[str, str]]:
    """`docker build -t TAG [-f FILE] CONTEXT` (also `buildx build`, `podman build`) at `i`: (tag, the Dockerfile's
    path) for each tag; [] when it is not a build or names no tag."""
    j = i + 1
    if j < len(fields) and fields[j].text == "buildx":
        j += 1
    if j >= len(fields) or fields[j].text not in ("build", "image") or \
            (fields[j].text == "image" and (j + 1 >= len(fields) or fields[j + 1].text != "build")):
        return []
    j += 2 if fields[j].text == "image" else 1
    tags: list[str] = []
    dockerfile, context = None, None
    while j < len(fields):
        name, eq, value = fields[j].text.partition("=")
        if name.startswith("-") and name in _BUILD_VALUES:
            if not eq:
                value = fields[j + 1].text if j + 1 < len(fields) else ""
                j += 1
            if name in ("-t", "--tag"):
                tags.append(value)
            elif name in ("-f", "--file"):
                dockerfile = value
        elif not name.startswith("-"):
            context = fields[j].text
        j += 1
    if not tags or not base:
        return []
    folder = os.path.normpath(os.path.join(base, context or "."))
    path = os.path.normpath(os.path.join(base, dockerfile)) if dockerfile else os.path.join(folder, "Dockerfile")
    return [(tag, path) for tag in tags]


def local_image_engine(image: Field, base: str, built: dict[str, str]) -> tuple[str, str] | None:
    """(engine, note) for an image the repository builds itself, whose entry point is the engine: a tag an earlier
    `docker build -t TAG` of the script builds, or an image given by a variable kvlint cannot resolve when the
    script's folder holds one Dockerfile, whose ENTRYPOINT is the engine (`["vllm", "serve"]`). None otherwise."""
    text = image.text
    built_from = _built_from(text, built)
    if built_from is not None:
        path, how = built_from, f"the script builds {text} from"
    elif not image.resolved and base:
        sole = _sole_dockerfile(base)
        if sole is None:
            return None
        path, how = sole, f"{text} is not resolved here; the script's folder builds one image,"
    else:
        return None
    engine = dockerfile_engine(path)
    if engine is None:
        return None
    shown = os.path.relpath(path, base) if base else path
    return engine, f"engine {engine} assumed: {how} {shown}, whose entry point is the engine"


def local_dockerfile(image: Field, base: str, built: dict[str, str]) -> str | None:
    """The Dockerfile of an image the repository builds itself: a tag an earlier `docker build -t TAG` of the script
    builds, or a local name (no registry, no organisation: `vllm-qwen3.6-nvfp4:latest`) when the file's folder holds
    one Dockerfile. None otherwise."""
    built_from = _built_from(image.text, built)
    if built_from is not None:
        return built_from
    if not image.resolved or not base or "/" in image.text.partition(":")[0]:
        return None
    return _sole_dockerfile(base)


def _built_from(image: str, built: dict[str, str]) -> str | None:
    """The Dockerfile an earlier `docker build -t TAG` of the script built the image from (a bare name is `:latest`)."""
    return built.get(image) or built.get(f"{image}:latest")


def _sole_dockerfile(folder: str) -> str | None:
    """The folder's Dockerfile when it holds exactly one (`Dockerfile`, `Dockerfile.vllm`, `x.dockerfile`)."""
    try:
        names = sorted(n for n in os.listdir(folder) if "file" in n.lower() and _DOCKERFILE_NAME.search(n))
    except OSError:
        return None
    return os.path.join(folder, names[0]) if len(names) == 1 else None


def dockerfile_engine(path: str) -> str | None:
    """The engine a Dockerfile's image starts when it is run with arguments: its last ENTRYPOINT is the engine's
    command (`["vllm", "serve"]`, `python3 -m sglang.launch_server`); None for anything else or an unreadable file."""
    import json

    from kvlint.launches.argv import detect
    from kvlint.sidefile import side_text
    from kvlint.span import Token

    text = side_text(path, _READ_CAP)
    if text is None:
        return None
    entries = re.findall(r"^\s*ENTRYPOINT\s+(.+?)\s*$", text, re.I | re.M)
    if not entries:
        return None
    arg = entries[-1]
    try:
        words = json.loads(arg) if arg.startswith("[") else arg.split()
    except ValueError:
        return None
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words) or not words:
        return None
    found = detect([Token(w, None) for w in words])
    return found[0] if found is not None else None
