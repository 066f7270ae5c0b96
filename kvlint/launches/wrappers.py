"""The launchers people put in front of an engine command, and how far each one reaches.

`kvlint.launches.script.launch_in_argv` peels words off an argv until an engine entry point starts it;
this module knows the launchers whose shape is more than one word: project runners (`uv run`, `hatch run
--`, `poetry run`, `pixi run`, `conda run -n ENV`), HPC containers (`apptainer|singularity exec|run
[--nv] X.sif`, `enroot start|exec`), and process launchers with options of their own (`torchrun ... -m
MODULE`, `mpirun -np 4 -x VAR`). Each answer is an index into the argv: where the next command starts, or
for a container where its image is. Nothing here knows an engine: the flag table decides what follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from kvlint.flags.flag_values import is_unresolved
from kvlint.launches.env import Field
from kvlint.lazyre import lazy
from kvlint.span import Span

# `TOOL [options] run [options] [--] COMMAND...`; options that take a value as a separate word
RUN_TOOLS = frozenset({"uv", "uvx", "hatch", "poetry", "pixi", "pipenv", "rye", "pdm", "conda", "mamba",
                       "micromamba", "pipx"})
_RUN_TOOL_VALUES = frozenset({"-n", "--name", "-p", "--prefix", "-e", "--env", "--environment", "--with",
                              "--python", "--project", "--directory", "--package", "--extra", "--group",
                              "--env-file", "--index-url", "--manifest-path", "-C", "--cwd", "--from", "--spec"})
CONTAINERS = frozenset({"apptainer", "singularity"})
_ENROOT_VALUES = frozenset({"-m", "--mount", "-e", "--env", "-c", "--conf"})
_TORCHRUN_FLAGS = frozenset({"--standalone", "--no-python", "--no_python", "--run-path", "--run_path",
                             "--redirects", "--tee"})  # flags without a value (--redirects/--tee take `=` forms)
_MPI_VALUES = frozenset({"-np", "-n", "-x", "-H", "--host", "-host", "-hostfile", "--hostfile", "-machinefile",
                         "--map-by", "-map-by", "--bind-to", "-bind-to", "-npernode", "--npernode", "-ppn", "-N",
                         "--rankfile", "-wdir", "--wdir", "-env"})
_MPI_PAIRS = frozenset({"-mca", "--mca", "-genv", "-gmca", "--gmca"})  # two value words


def _skip(fields: Sequence[Field], j: int, values: frozenset[str]) -> int:
    """Past options (`-x`, `--opt=v`, `--opt v` when `--opt` takes a value) up to the first other word."""
    while j < len(fields) and fields[j].text.startswith("-") and fields[j].text != "--":
        name, eq, _ = fields[j].text.partition("=")
        j += 2 if not eq and name in values else 1
    return j


def after_run_tool(fields: Sequence[Field], i: int) -> int | None:
    """`uv run [--with X] [--] CMD`, `hatch run -- CMD`, `conda run -n ENV CMD`: the index of CMD, or None
    when the tool at `i` does not run a command (`uv pip install`, `poetry install`); for `uv run -m MODULE`, the
    index of `-m` (the caller reads it as `python -m MODULE`)."""
    j = _skip(fields, i + 1, _RUN_TOOL_VALUES)
    if fields[i].text.rsplit("/", 1)[-1] == "uvx":
        return j  # `uvx` is `uv tool run`: the command follows
    if j >= len(fields) or fields[j].text != "run":
        return None
    start, j = j + 1, _skip(fields, j + 1, _RUN_TOOL_VALUES)
    # `uv run -m sglang.launch_server ...` (sample K131): uv's `--module` runs the module as `python -m` does
    module = next((k for k in range(start, j) if fields[k].text in ("-m", "--module")), None)
    if module is not None and fields[i].text.rsplit("/", 1)[-1] == "uv":
        return module
    return j + 1 if j < len(fields) and fields[j].text == "--" else j


def container_image(fields: Sequence[Field], i: int) -> tuple[int, str] | None:
    """`apptainer exec|run [options] IMAGE ...` at `i`: (index of IMAGE, "exec" or "run"), else None.
    `exec` runs the words after the image; `run` hands them to the image's runscript (its entry point)."""
    j = _skip(fields, i + 1, frozenset())
    if j >= len(fields) or fields[j].text not in ("exec", "run"):
        return None
    verb = fields[j].text
    j = _skip_container_options(fields, j + 1)
    return (j, verb) if j < len(fields) else None


def hf_job_image(fields: Sequence[Field], i: int) -> tuple[int, str] | None:
    """`hf jobs run [options] [--] IMAGE COMMAND...` at `i` (Hugging Face Jobs: a container run with a command, as
    `docker run` is; `uvx hf ...` reaches here with `uvx` peeled): (index of IMAGE, "exec"), else None. The
    command after the image is what the job runs (`bash -c '... vllm serve ...'`)."""
    if fields[i].text.rsplit("/", 1)[-1] not in ("hf", "huggingface-cli") or i + 2 >= len(fields):
        return None
    if fields[i + 1].text != "jobs" or fields[i + 2].text != "run":
        return None
    values, _ = launcher_options("hf-jobs")
    j = _skip(fields, i + 3, values)
    j += j < len(fields) and fields[j].text == "--"
    return (j, "exec") if j + 1 < len(fields) else None


@cache
def launcher_options(launcher: str = "apptainer") -> tuple[frozenset[str], frozenset[str]]:
    """(options taking a value, options taking none) of apptainer / singularity, `hf jobs run`, srun or pm2, from
    kvlint/data/container_options.json (their documented lists)."""
    from kvlint.data import load_json

    table = load_json("container_options.json")[launcher]
    return frozenset(table["value"]), frozenset(table["flag"])


def _skip_container_options(fields: Sequence[Field], j: int) -> int:
    """Past the options before the image (`--nv`, `--env A=B`, `--bind src:dst`, `-B s:d`, `--env-file F`) with
    their values. A word that is only an unresolved expansion followed by one of these options is an option
    filled in later (`{{ '--nv' if gpus else '' }}`, `$GPU_FLAG`): the image comes after the options."""
    values, flags = launcher_options()
    while j < len(fields):
        text = fields[j].text
        if text == "--":
            return j
        if not text.startswith("-"):
            nxt = fields[j + 1].text.partition("=")[0] if j + 1 < len(fields) else ""
            if not (is_unresolved(text) and (nxt in values or nxt in flags)):
                return j
            j += 1
            continue
        name, eq, _ = text.partition("=")
        j += 2 if not eq and name in values else 1
    return j


def enroot_image(fields: Sequence[Field], i: int) -> tuple[int, str] | None:
    """`enroot start [options] NAME [COMMAND...]` (the container's entry point unless a command follows) and
    `enroot exec PID COMMAND...`: (index of NAME/PID, "run" or "exec"), else None."""
    if i + 1 >= len(fields) or fields[i + 1].text not in ("start", "exec"):
        return None
    verb = "run" if fields[i + 1].text == "start" else "exec"
    j = _skip(fields, i + 2, _ENROOT_VALUES)
    return (j, verb) if j < len(fields) else None


# commands that run the rest of their argv after options of their own and a fixed number of positionals:
# `timeout [-s SIG] [-k DUR] DURATION CMD`, `nice -n 10 CMD`, `taskset -c 0-3 CMD` (the mask is a positional),
# `env -u VAR A=b CMD`, `sudo -u USER -E CMD`, `gosu USER CMD`; (options taking a value as the next word,
# positionals before the command)
PREFIX_COMMANDS: dict[str, tuple[frozenset[str], int]] = {
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "ionice": (frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid"}), 0),
    "chrt": (frozenset(), 1),
    "taskset": (frozenset(), 1),
    "stdbuf": (frozenset({"-i", "-o", "-e"}), 0),
    "env": (frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}), 0),
    "sudo": (frozenset({"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host",
                        "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T",
                        "--command-timeout"}), 0),
    "gosu": (frozenset(), 1),
    # profilers that run the command under them: `nsys profile [options] CMD` (the verb a positional, its options
    # after it), `ncu [options] CMD` (Nsight Systems / Compute options that take the next word as their value)
    "nsys": (frozenset({"-o", "--output", "-t", "--trace", "-d", "--duration", "-y", "--delay", "-s", "--sample",
                        "-c", "--capture-range", "--capture-range-end", "-e", "--env-var", "-f", "--force-overwrite",
                        "-w", "--show-output", "-x", "--stop-on-exit", "--cuda-graph-trace", "-n",
                        "--inherit-environment", "-p", "--nvtx-capture", "--session-new", "--session",
                        "--trace-fork-before-exec", "--cuda-memory-usage", "--gpu-metrics-devices",
                        "--gpu-metrics-device", "--cudabacktrace", "--stats", "--export", "--wait", "--kill",
                        "--python-sampling", "--pytorch", "-b", "--backtrace", "--cpuctxsw", "--gpuctxsw",
                        "--sampling-frequency", "--osrt-threshold", "--cuda-flush-interval"}), 1),
    "ncu": (frozenset({"-o", "--export", "--set", "--section", "-k", "--kernel-name", "-c", "--launch-count",
                       "-s", "--launch-skip", "--target-processes", "--metrics", "--replay-mode", "--config-file",
                       "--nvtx-include", "--graph-profiling"}), 0),
    "su-exec": (frozenset(), 1),
    # Windows' Linux subsystem: `wsl.exe -d Ubuntu [--cd DIR] --exec python -m vllm...` (`--exec` / `-e` skipped as
    # options without a value, as `--` is)
    "wsl": (_WSL_VALUES := frozenset({"-d", "--distribution", "-u", "--user", "--cd", "--shell-type"}), 0),
    "wsl.exe": (_WSL_VALUES, 0),
}


# programs that run one command string as another user or group (`sg docker -c "docker run ..."`, `su - u -c
# "..."`, `runuser -u u -c "..."`): the string is a shell's script
USER_SWITCHERS = frozenset({"sg", "su", "runuser"})


def switched_command(fields: Sequence[Field], i: int) -> int | None:
    """The index of the command string a user or group switcher at `i` runs (`-c CMD`, `--command CMD`,
    `--command=CMD` is not split here), or None when it runs none (a login shell)."""
    for k in range(i + 1, min(len(fields) - 1, i + 8)):
        if fields[k].text in ("-c", "--command"):
            return k + 1
    return None


def after_prefix(fields: Sequence[Field], i: int) -> int:
    """Past a prefix command at `i` (PREFIX_COMMANDS), its options and positionals, to the command it runs."""
    name = fields[i].text.rsplit("/", 1)[-1]
    values, positionals = PREFIX_COMMANDS[name]
    j = _skip(fields, i + 1, values)
    j += j < len(fields) and fields[j].text == "--"
    if name == "env":
        return _past_assignments(fields, j)
    if positionals == 0:
        return j
    j = _skip(fields, j + positionals, values)  # a verb's own options (`nsys profile -o out CMD`)
    return j + (j < len(fields) and fields[j].text == "--")


# bubblewrap's options and how many words each takes (bwrap(1)); `--setenv VAR VALUE` sets the sandbox's environment
_BWRAP_ARITY = {
    **dict.fromkeys(("--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try", "--symlink",
                     "--file", "--bind-data", "--ro-bind-data", "--chmod", "--setenv", "--bind-fd", "--ro-bind-fd"), 2),
    **dict.fromkeys(("--proc", "--dev", "--tmpfs", "--mqueue", "--dir", "--chdir", "--unsetenv", "--uid", "--gid",
                     "--hostname", "--remount-ro", "--perms", "--size", "--args", "--seccomp", "--add-seccomp-fd",
                     "--info-fd", "--json-status-fd", "--block-fd", "--userns-block-fd", "--sync-fd", "--lock-file",
                     "--exec-label", "--file-label", "--userns", "--userns2", "--pidns", "--cap-add", "--cap-drop",
                     "--overlay-src", "--tmp-overlay", "--ro-overlay", "--argv0"), 1),
    "--overlay": 3,
}


def after_bwrap(fields: Sequence[Field], i: int) -> tuple[int, list[tuple[str, Field]]] | None:
    """`bwrap --ro-bind SRC DEST ... --setenv CUDA_VISIBLE_DEVICES 0,1 --chdir /w python -m sglang.launch_server
    ...` (sample K412's sandboxed server): the index of the command bubblewrap runs, and the variables it sets for
    it. A word left to the run (`"${DEV_BINDS[@]}"`) stands for options of its own; an option bwrap(1) does not list,
    or no command after them: None."""
    j = i + 1
    env: list[tuple[str, Field]] = []
    while j < len(fields):
        word = fields[j].text
        if word == "--":
            return (j + 1, env) if j + 1 < len(fields) else None
        if not word.startswith("-"):
            if _expansion_only(word) or not fields[j].resolved and word.startswith("$"):
                j += 1
                continue
            return j, env
        arity = _BWRAP_ARITY.get(word, 0 if word.startswith(("--unshare-", "--share-", "--die-with-parent",
                                                             "--new-session", "--as-pid-1", "--clearenv",
                                                             "--disable-userns", "--assert-userns-disabled",
                                                             "--level-prefix")) else -1)
        if arity < 0:
            return None
        if word == "--setenv" and j + 2 < len(fields):
            env.append((fields[j + 1].text, fields[j + 2]))
        j += 1 + arity
    return None


_ASSIGNMENT = lazy(r"[A-Za-z_]\w*=")
_LAUNCHERS = frozenset({"trl", "torchrun", "nohup", "numactl"})  # programs that start an engine, besides the tables'


def _past_assignments(fields: Sequence[Field], j: int) -> int:
    """Past `env`'s NAME=VALUE operands to the command; words that are only expansions (`$DEV`, `$EXTRAENV`,
    sample K236: `env $DEV VLLM_X=0 $EXTRAENV $R/venv/bin/vllm serve ...`) stand for assignments when the first
    word after them is a program (a path, or a program's name). `env A=1 $BIN serve M`: $BIN is the program."""
    k = j
    while k < len(fields) and (_ASSIGNMENT.match(fields[k].text) or _expansion_only(fields[k].text)):
        k += 1
    program = fields[k].text if k < len(fields) else ""
    if "/" in program or _program(program):
        return k
    while j < len(fields) and _ASSIGNMENT.match(fields[j].text):
        j += 1
    return j


def _program(word: str) -> bool:
    """A word that names a program: an engine's CLI, Python, a run tool or prefix command, a launcher."""
    from kvlint.engines.registered import engine_names

    return word in engine_names() or word.startswith("python") or word in RUN_TOOLS or word in PREFIX_COMMANDS \
        or word in _LAUNCHERS


def prefixing_expansion(fields: Sequence[Field], i: int) -> bool:
    """Whether the word at `i` is only an expansion standing before a program a launch is run with (`$SUDO docker run
    ...`, sample K465's `f"{nccl_prefix}docker run ..."`: assignments or a prefix command, or nothing): the expansion
    cannot be the program when the next word is one of those the engine is started through."""
    text = fields[i].text
    if text[:1] not in ("$", '"') or i + 1 >= len(fields) or not _expansion_only(text):  # most words: the first test
        return False
    return launcher_word(fields[i + 1].text.rsplit("/", 1)[-1])


def launcher_word(program: str) -> bool:
    """Whether a command's first word is a program an engine is started through: a container or job runner
    (`docker`, `srun`, `apptainer`), `env`, or a program `_program` names (the engine's CLI, Python, a run tool)."""
    return program in _PREFIXED or _program(program)


_PREFIXED = frozenset({"docker", "podman", "nerdctl", "apptainer", "singularity", "srun", "env"})


def _expansion_only(text: str) -> bool:
    """`$DEV`, and an array a loop fills at run time kept as written (`"${tune_env[@]}"`, sample K461's
    `tune_env+=("$name=${!name}")` before `env "${tune_env[@]}" PATH=... "$VLLM_ENV/bin/vllm" serve ...`)."""
    bare = text.strip('"')
    return bare.startswith("$") and "/" not in bare and is_unresolved(bare)


# terminal multiplexers and job submitters that run a command given as their last words or as one string
_SCREEN_VALUES = frozenset({"-S", "-c", "-p", "-t", "-T", "-e", "-h", "-s", "-Logfile"})
_TMUX_VERBS = frozenset({"new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane",
                         "respawnp", "send-keys", "send"})
_TMUX_VALUES = frozenset({"-s", "-n", "-c", "-t", "-x", "-y", "-e", "-F", "-f", "-l", "-L", "-S", "-N"})
_TMUX_KEYS = frozenset({"C-m", "Enter", "ENTER", "C-j", "KPEnter"})


def after_screen(fields: Sequence[Field], i: int) -> int | None:
    """`screen -dmS NAME [-L] CMD ARGS...` at `i`: the index of CMD (screen runs it in a new window)."""
    j = i + 1
    while j < len(fields) and fields[j].text.startswith("-"):
        name = fields[j].text
        j += 2 if name in _SCREEN_VALUES or (name.endswith("S") and len(name) > 2 and name[1] != "-") else 1
    return j if j < len(fields) else None


def tmux_command(fields: Sequence[Field], i: int) -> tuple[int, int] | None:
    """`tmux [-L sock] new-session -d -s NAME "CMD"` / `tmux send-keys -t T "CMD" C-m` at `i`: (start, end) of the
    command words (one word is a shell command line, several an argv), else None."""
    j = _skip(fields, i + 1, frozenset({"-L", "-S", "-f"}))
    if j >= len(fields) or fields[j].text not in _TMUX_VERBS:
        return None
    j = _skip(fields, j + 1, _TMUX_VALUES)
    end = len(fields)
    while end > j and fields[end - 1].text in _TMUX_KEYS:
        end -= 1
    return (j, end) if j < end else None


def sbatch_wrap(fields: Sequence[Field], i: int) -> int | None:
    """`sbatch [options] --wrap="CMD"` / `--wrap CMD` at `i`: the index of the word holding CMD (a script)."""
    for j in range(i + 1, len(fields)):
        text = fields[j].text
        if text == "--wrap" and j + 1 < len(fields):
            return j + 1
        if text.startswith("--wrap="):
            return j
    return None


def after_double_dash(fields: Sequence[Field], i: int) -> int | None:
    """`ray job submit [options] -- CMD...` at `i`: the index of CMD (the job's entry point runs it)."""
    if i + 2 >= len(fields) or fields[i + 1].text != "job" or fields[i + 2].text != "submit":
        return None
    j = next((k for k in range(i + 3, len(fields)) if fields[k].text == "--"), None)
    return j + 1 if j is not None and j + 1 < len(fields) else None


_EXEC_VALUES = frozenset({"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"})
_KUBECTL_VALUES = frozenset({"-n", "--namespace", "-c", "--container", "--context", "--kubeconfig", "-f",
                             "--filename", "--pod-running-timeout", "--cluster", "--user"})


def exec_command(fields: Sequence[Field], i: int) -> int | None:
    """`docker|podman exec [-it] [-e V] CONTAINER CMD...` and `kubectl|oc exec [-it] POD [-c C] -- CMD...`
    at `i`: the index of CMD (a command run in a container that is already up), else None."""
    tool = fields[i].text.rsplit("/", 1)[-1]
    if i + 1 >= len(fields) or fields[i + 1].text != "exec":
        return None
    if tool in ("kubectl", "oc"):
        j = i + 2
        while j < len(fields) and fields[j].text != "--":
            j += 2 if fields[j].text in _KUBECTL_VALUES else 1
        return j + 1 if j + 1 < len(fields) else None
    j = _skip(fields, i + 2, _EXEC_VALUES)  # past the options to CONTAINER
    while j + 1 < len(fields) and is_unresolved(fields[j].text) and fields[j + 1].text.startswith("-") \
            and fields[j + 1].text != "--":  # `${EXTRA_E:-} -e X=1 NAME`: options filled in later (sample K256)
        j = _skip(fields, j + 1, _EXEC_VALUES)
    return j + 1 if j + 1 < len(fields) else None


def torchrun_module(fields: Sequence[Field], i: int) -> int | None:
    """`torchrun [options] -m MODULE ARGS`: the index of `-m`, or None when torchrun runs a script file."""
    return _module_option(fields, i + 1, _TORCHRUN_FLAGS)


def _module_option(fields: Sequence[Field], j: int, valueless: frozenset[str]) -> int | None:
    """The index of `-m` / `--module` among a launcher's options from `j` (options in `valueless` take no value,
    the others one), or None when the options end first."""
    while j < len(fields) and fields[j].text.startswith("-"):
        name, eq, _ = fields[j].text.partition("=")
        if name in ("-m", "--module"):
            return j
        j += 1 if eq or name in valueless else 2
    return None


_ACCELERATE_FLAGS = frozenset({"--multi_gpu", "--cpu", "--use_deepspeed", "--use_fsdp", "--use_megatron_lm", "--debug",
                               "-q", "--quiet", "--no_python", "--module", "-m"})


# debugpy's options that take no value (`python -m debugpy --listen 0.0.0.0:5678 --wait-for-client -m MODULE ...`)
_DEBUGPY_FLAGS = frozenset({"--wait-for-client", "--log-to-stderr"})


def launcher_module(fields: Sequence[Field], i: int) -> int | None:
    """`torchrun [options] -m MODULE ARGS`, `accelerate launch [options] -m MODULE ARGS` or `debugpy [options] -m
    MODULE ARGS` (a debugger that runs the module, sample K444's debug script): the index of `-m`, or None when the
    launcher runs a script file."""
    program = fields[i].text.rsplit("/", 1)[-1]
    if program == "torchrun":
        return torchrun_module(fields, i)
    if program == "debugpy":
        return _module_option(fields, i + 1, _DEBUGPY_FLAGS)
    if i + 1 >= len(fields) or fields[i + 1].text != "launch":
        return None
    return _module_option(fields, i + 2, _ACCELERATE_FLAGS)


_SSH_VALUES = frozenset({"-i", "-p", "-l", "-o", "-J", "-F", "-L", "-R", "-D", "-E", "-c", "-m", "-b", "-S", "-W", "-w",
                         "-O", "-Q", "-B", "-e", "-I"})


def remote_command(fields: Sequence[Field], i: int) -> int | None:
    """`ssh [options] HOST COMMAND...` (the remote shell runs COMMAND), `pm2 start "COMMAND" [options]` or `pm2
    start PROGRAM [options] -- ARGS` (pm2 runs it under its supervision): the index where the command starts, or
    None. A single word there is a command line for a shell; several are the command's own words."""
    head = fields[i].text.rsplit("/", 1)[-1]
    if head == "ssh":
        j = _skip(fields, i + 1, _SSH_VALUES)
        return j + 1 if j + 1 < len(fields) else None
    if head == "pm2" and i + 2 < len(fields) and fields[i + 1].text in ("start", "restart"):
        j = _past_pm2_options(fields, i + 2)
        return j if j < len(fields) else None
    return None


def cloud_ssh_command(fields: Sequence[Field], i: int) -> Field | None:
    """`gcloud compute ssh INSTANCE --zone Z --command="CMD"` (also `gcloud compute tpus tpu-vm ssh`): the command
    line the remote shell runs, each character at its place (sample K295's evaluation loop starts each model's
    `vllm serve` on a VM so); None for any other gcloud command."""
    from kvlint.launches.cloud_run import piece

    words = [f.text for f in fields[i + 1 : i + 6]]
    if "ssh" not in words or words[0] not in ("compute", "alpha", "beta"):
        return None
    for k in range(i + 2, len(fields)):
        text = fields[k].text
        if text.startswith("--command="):
            return piece(fields[k], len("--command="))
        if text == "--command" and k + 1 < len(fields):
            return fields[k + 1]
    return None


def _past_pm2_options(fields: Sequence[Field], j: int) -> int:
    """Past pm2's own options before the program (`pm2 start --name mistral "vllm serve ..."`: its commander
    parser takes options anywhere), each with its value by pm2's documented table (container_options.json)."""
    values, _ = launcher_options("pm2")
    while j < len(fields) and fields[j].text.startswith("-") and fields[j].text != "--":
        name, eq, _ = fields[j].text.partition("=")
        j += 2 if not eq and name in values else 1
    return j


def pm2_words(fields: Sequence[Field], j: int) -> list[Field]:
    """The command pm2 runs: a quoted command line alone, or the program and the words after `--` (pm2's own
    options, `--name x`, sit before or between them)."""
    if " " in fields[j].text:
        return [fields[j]]
    rest = list(fields[j + 1 :])
    cut = next((k for k, f in enumerate(rest) if f.text == "--"), None)
    return [fields[j], *(rest[cut + 1 :] if cut is not None else [])]


def after_mpirun(fields: Sequence[Field], i: int) -> int:
    """Past `mpirun|mpiexec` and its options (`-np 4`, `-x VAR`, `--mca btl tcp`) to the command."""
    j = i + 1
    while j < len(fields) and fields[j].text.startswith("-"):
        name, eq, _ = fields[j].text.partition("=")
        j += 3 if name in _MPI_PAIRS else 2 if not eq and name in _MPI_VALUES else 1
    return j


def first_app(fields: Sequence[Field], i: int) -> list[Field]:
    """The words up to the `:` that ends mpirun's first program (MPMD: `mpirun -n 1 numactl ... python -m
    vllm.entrypoints.openai.api_server ... : -n 1 numactl --all ... python -m vllm.entrypoints.slave ...`, sample
    K354's xFasterTransformer guide): the other programs' words are not the engine's options."""
    cut = next((k for k in range(i, len(fields)) if fields[k].text == ":"), None)
    return list(fields if cut is None else fields[:cut])


# a wrapper's own spellings of the engine's model flags (KServe's huggingfaceserver: `--model_id` is the model,
# `--model_name` the name it is served as); `--backend` chose the engine and is the wrapper's alone
_WRAPPER_FLAGS = {"huggingfaceserver": {"--model_id": "--model", "--model_name": "--served-model-name"},
                  "paddleocr genai_server": {"--model_name": "--model", "--model_dir": "--model"},
                  "paddlex_genai_server": {"--model_name": "--model", "--model_dir": "--model"}}
_WRAPPER_ONLY = {"huggingfaceserver": ("--backend",), "paddleocr genai_server": ("--backend", "--backend_config"),
                 "paddlex_genai_server": ("--backend", "--backend_config")}


# wrappers whose first positional argument is a configuration file holding the model under a key of its own
_CONFIG_POSITIONAL = {"axolotl vllm-serve": "base_model"}


def engine_words(wrapper: str | None, fields: Sequence[Field]) -> tuple[Field, ...]:
    """The words after a wrapper's entry point as the engine's own flags: its model flags respelled (each word
    keeps its position), its own switches left out."""
    if wrapper in _CONFIG_POSITIONAL:
        return _config_model(_CONFIG_POSITIONAL[wrapper], fields)
    renames, own = _WRAPPER_FLAGS.get(wrapper or ""), _WRAPPER_ONLY.get(wrapper or "", ())
    if renames is None:
        return tuple(fields)
    from kvlint.record import replace

    out: list[Field] = []
    skip = False
    for f in fields:
        name, eq, value = f.text.partition("=")
        if skip or name in own:
            skip = not skip and not eq and name in own
            continue
        if name not in renames:
            out.append(f)
        elif not eq or f.span is None or f.span.line != f.span.end_line:
            out.append(replace(f, text=renames[name] + eq + value))
        else:  # `--model_id=X` -> `--model` `X`, the value at its own column
            at = f.span.col + len(name) + 1
            out += [Field(renames[name], Span(f.span.path, f.span.line, f.span.col, f.span.line, at - 1)),
                    replace(f, text=value, span=Span(f.span.path, f.span.line, at, f.span.line, f.span.end_col),
                            offsets=(), source=None)]
    return tuple(out)


def _config_model(key: str, fields: Sequence[Field]) -> tuple[Field, ...]:
    """`axolotl vllm-serve config.yaml --flags`: the configuration file is no model; the model is its `key`, which
    the launch does not show (a file of the training run, often a mounted ConfigMap), so it is left open at the
    file's place: a launch whose model is unknown, never the file's path read as a model id."""
    from kvlint.record import replace

    if not fields or fields[0].text.startswith("-"):
        return tuple(fields)
    first = fields[0]
    model = replace(first, text=f"(the {key} of {first.text})", resolved=False, missing=(f"{key} of {first.text}",),
                    offsets=(), source=None)
    return (Field("--model", first.span), model, *fields[1:])
