"""A command run through a program kvlint does not know, read as an engine launch by its arguments.

A repository's own wrapper (`srun start-cluster.py singularity vllm_0.8.sif --model X --enforce-eager`) or a
fork's own server script (`python openai_api_server.py --model X --tensor-parallel-size 2`) starts the engine
without any entry point kvlint knows. When the words after such a program are, by an engine's own flag
table, that engine's flags, the command is read as a launch of that engine, with a note saying it was read by
its flags through that program; the program's own words (its positionals, flags no engine knows and their
values) are left to it.

Other programs take `--model` too: benchmark clients, training scripts, offline-inference and evaluation
programs. The reading is therefore strict (`engine_by_flags`): the engine must be named in the command or in
the file, the words must hold the engine's model flag and one of its sizing flags (the settings the engine
record plays a role with: `--tensor-parallel-size`, `--max-model-len`, `--gpu-memory-utilization`,
`--mem-fraction-static`, ...) plus a sign of a server (a server flag such as `--served-model-name` or
`--port`, a program named for serving, or an engine image among the words); the program's name must not
say it is a client or an offline job (`benchmark_serving.py`, `train.py`, `offline_inference.py`); and the
flags no engine knows must not outnumber the ones it does.

A wrapper that takes the model as its first argument and passes the engine's flags on after `--` (`python
scripts/launch_vllm.py ORG/MODEL --own-option 2 -- --tensor-parallel-size 2`) is read the same way when its
name names the engine and serving (`launch_vllm.py`, `serve_sglang.sh`) and the words after `--` are that
engine's flags.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kvlint.deployment import BY_FLAGS
from kvlint.launches.env import Field
from kvlint.lazyre import lazy
from kvlint.record import record

_PYTHON = lazy(r"^python(\d+(\.\d+)?)?$")
# what a program named for a client, a benchmark, a training or an offline job is called (name words)
# (`infer` as a word or `inference`, not a name that begins with it: AMD's `infera.engine.sglang` serves, sample K162)
_NOT_SERVER = lazy(r"bench|client|eval|test|train|finetun|sft|grpo|dpo|ppo|rlhf|infer(?:ence)?(?![a-z])|predict|"
                   r"generat|offline|"
                   r"batch|score|judge|sampl|download|convert|quantiz|export|merge|profil|distil|label|annotat|"
                   r"request|query|chat_cli|lm_eval|accuracy")
_SERVER_NAME = lazy(r"serve|server|api|launch|deploy|endpoint|openai")
# a subcommand that works out or checks a deployment instead of starting it (`runpod-vllm plan --model X ...`)
_PLANNING = frozenset({"plan", "estimate", "validate", "simulate", "recommend", "doctor", "check", "lint", "dry-run",
                       "calc", "sizing", "size", "fit"})
# argparse dests that only a server takes (the engines' HTTP front end)
SERVER_DESTS = frozenset({"host", "port", "served_model_name", "api_key", "chat_template", "root_path",
                           "enable_auto_tool_choice", "tool_call_parser", "uvicorn_log_level", "ssl_keyfile",
                           "allowed_origins", "response_role", "disable_log_requests", "reasoning_parser"})
_MODEL_DESTS = frozenset({"model", "model_path"})
# options any serving program of its own takes (`vllm_miner.py --port 8091 --model M`): no sign of the engine's parser
_ANY_PROGRAMS = frozenset({"model", "model_path", "host", "port"})
_NOT_ROLES = frozenset({"quantization"})  # a role setting, but a flag every quantization tool has
# an option of the program's own that points it at a server (`--vllm-url http://...`, `--base-url`, `--endpoint`):
# the program is a client of the engine (a miner, a gateway, an agent), never the engine
# (an infrastructure service's address is a server's own setting: `--etcd-endpoint` of AMD Infera's SGLang, K162)
_CLIENT_OPTION = lazy(r"^--?(?!-)(?!(?:etcd|redis|nats|zmq|metrics|otel|otlp|prometheus|tracing|trace|s3|kafka|consul|"
                      r"mlflow|wandb|discovery|registry|callback|webhook|storage|db|database|minio|bootstrap)[-_])"
                      r"[\w-]*(?:url|endpoint|api[-_]base|base[-_]uri)$", re.I)


# an option of the program's own that sets a request's length or sampling (`--output-len 64`, `--num-prompts`,
# `--temperature`): an offline generation or benchmark job's, never a server's (sample K304's `run_vllm.py`)
_JOB_OPTION = lazy(r"^--?(?:(?:input|output|prompt|gen|generation)[-_]len(?:gth)?|num[-_]prompts|max[-_](?:new[-_])?"
                   r"tokens|temperature|top[-_][pk])$", re.I)


@record
class ByFlags:
    """An engine read from a program's arguments: the engine, the words handed to it, and the note."""

    engine: str
    program: Field
    words: tuple[Field, ...]
    note: str
    own_options: tuple[str, ...] = ()  # the program's own options (`--slurm --auto`): they may set the engine's


def model_flag_in(fields: Sequence[Field]) -> bool:
    """Cheap pre-filter: a word that could be a model flag (`--model`, `--model-path`, `--model_path`), the `--`
    after which a wrapper passes the engine its flags, or a `serve` among the program's first words."""
    return any(f.text.startswith("--model") or f.text == "--" for f in fields) or \
        any(f.text == "serve" for f in fields[1:4])


def program_of(fields: Sequence[Field]) -> int | None:
    """Index of the program a command runs: past `python [-u] [-X opt]` to the script or `-m MODULE`."""
    if not fields:
        return None
    if not _PYTHON.match(fields[0].text.rsplit("/", 1)[-1]):
        return 0
    j = 1
    while j < len(fields) and fields[j].text.startswith("-") and fields[j].text != "-m":
        j += 2 if fields[j].text in ("-X", "-W") else 1
    if j < len(fields) and fields[j].text == "-m":
        j += 1
    return j if j < len(fields) else None


def read_by_flags(fields: Sequence[Field], named: Sequence[str] = ()) -> ByFlags | None:
    """The engine launch `fields` (one command, its launchers already peeled) make by their flags, or None.
    `named`: the engines the surrounding file names."""
    from kvlint.engines import ENGINE_NAMES

    at = program_of(fields)
    if at is None or fields[at].text.startswith("-"):
        return None  # an option is no program (`cmd += ["-v", PATH, image, ...]`: a list's later piece, sample K179)
    if not any(f.text.startswith("--model") for f in fields):
        return _passed_through(fields, at) or _serve_positional(fields, at, named)
    first_flag = next((k for k in range(at + 1, len(fields)) if fields[k].text.startswith("-")), None)
    if first_flag is None:
        return None
    # a module is judged by its own name, not its package's (`-m trainers.vllm_server`, sample K271: a copy of
    # TRL's server kept in a training repository)
    head = [_own_name(f.text.rsplit("/", 1)[-1].lower()) for f in fields[at:first_flag]]
    if any(_NOT_SERVER.search(w) for w in head) or any(w in _PLANNING for w in head[1:]) \
            or engine_group(head) is not None:
        return None
    # named as a word of its own (`vllm_0.8.sif`, `lmcache_vllm`), not inside another name (`sparsevllm`: another
    # engine borrowing the name, sample K270)
    in_command = {e for e in ENGINE_NAMES if any(_named(e, f.text.lower()) for f in fields)}
    # a program whose path borrows the name inside another (`python nanovllm/entrypoints/api_server.py`, sample
    # K429: nano-vLLM, another engine) is not that engine's, whatever else the file names
    path = program_path(fields, at)
    borrowed = {e for e in ENGINE_NAMES if e in path and not _named(e, path)}
    candidates = [e for e in ENGINE_NAMES if (e in in_command or e in named) and e not in borrowed]
    program = fields[at]
    server_name = _SERVER_NAME.search(head[0]) is not None
    fits = []
    for engine in candidates:
        found = _fit(engine, fields[first_flag:], server_name, engine in in_command)
        if found is not None:
            fits.append((found[0], engine in in_command, engine, found[1]))
    fits.sort(reverse=True)
    if not fits:
        return _after_dash(fields, at, first_flag, candidates)
    if len(fits) > 1 and fits[0][:2] == fits[1][:2]:
        return None
    _, _, engine, words = fits[0]
    name = program.text.rsplit("/", 1)[-1]
    note = (f"read as a {engine} {BY_FLAGS}{name}, a program kvlint does not know: its "
            f"arguments are {engine}'s own flags (by {engine}'s flag table); the program's other words are left to it")
    handed = {id(f) for f in words}
    own = tuple(f.text for f in fields[first_flag:] if f.text.startswith("-") and id(f) not in handed)
    return ByFlags(engine, program, words, note, own)


def _after_dash(fields: Sequence[Field], at: int, first_flag: int, candidates: Sequence[str]) -> ByFlags | None:
    """`bash /opt/coldstart-run.sh --run-id serve --repeat 1 -- --model M --max-model-len 4096` (sample K409, in the
    engine's image): a wrapper with options of its own that hands the words after `--` on, as wrappers do. Read when
    those words are one engine's flags and nothing else (a model and a sizing flag among them), in a file that names
    that engine; the wrapper's own options before `--` are left to it."""
    dash = next((k for k in range(first_flag, len(fields)) if fields[k].text == "--"), None)
    if dash is None:
        return None
    passed = fields[dash + 1 :]
    fits = [(e, found[1]) for e in candidates if (found := _fit(e, passed, True, True)) is not None
            and not any(f.text.startswith("-") and f not in found[1] for f in passed)]
    if len(fits) != 1:
        return None
    engine, words = fits[0]
    own = tuple(f.text for f in fields[first_flag:dash] if f.text.startswith("-"))
    note = (f"read as a {engine} launch through {fields[at].text.rsplit('/', 1)[-1]}, a program kvlint does not know: "
            f"the words after `--` are {engine}'s own flags, which it hands on"
            + (f" (its own options {' '.join(own[:3])} are left to it)" if own else ""))
    return ByFlags(engine, fields[at], words, note)  # what it hands on is split from its own options by `--`


def named_for_a_job(name: str) -> bool:
    """Whether a program's name says it is a client, a benchmark, a training or an offline job (`bench_vllm.sh`,
    `run_eval.py`), not a server."""
    return _NOT_SERVER.search(name.lower()) is not None


def _own_name(word: str) -> str:
    """A dotted module path's last part (`trainers.vllm_server`: `vllm_server`); a file name or word as it is."""
    if "." in word and not word.endswith((".py", ".sh", ".sif")) and re.fullmatch(r"[\w.]+", word):
        return word.rsplit(".", 1)[-1]
    return word


def program_path(fields: Sequence[Field], at: int) -> str:
    """The program's words up to its first flag, lower-cased (`python nanovllm/entrypoints/api_server.py`)."""
    words: list[str] = []
    for f in fields[at:]:
        if f.text.startswith("-"):
            break
        words.append(f.text.lower())
    return " ".join(words)


def _named(engine: str, text: str) -> bool:
    return engine in text and re.search(rf"(?<![a-z0-9]){engine}(?![a-z])", text) is not None


def _fit(engine: str, words: Sequence[Field], server_name: bool,
         in_command: bool) -> tuple[int, tuple[Field, ...]] | None:
    """(known flags, the words handed to the engine) when the words are this engine's flags, else None."""
    from kvlint.engines import get_engine
    from kvlint.launches.argv import exact_option

    roles = set(getattr(get_engine(engine), "roles", {}).values()) - _NOT_ROLES
    kept: list[Field] = []
    known = unknown = specific = 0
    model = role = server = False
    skip_value = False
    for f in words:
        if not f.text.startswith("-"):
            if not skip_value:
                kept.append(f)
            skip_value = False
            continue
        name, eq, _ = f.text.partition("=")
        spec = exact_option(engine, name)
        if spec is None and (_CLIENT_OPTION.match(name) or _JOB_OPTION.match(name)):
            return None
        if spec is None:
            unknown += 1
            skip_value = not eq
            continue
        known += 1
        specific += spec.dest not in _ANY_PROGRAMS
        skip_value = False
        kept.append(f)
        model = model or spec.dest in _MODEL_DESTS
        role = role or spec.dest in roles
        server = server or spec.dest in SERVER_DESTS
    if not model or unknown > known:
        return None
    named_only = in_command and known >= 2 and (specific or server_name)  # `vllm_miner.py --port P --model M`: no
    if not ((role and (server or server_name or in_command)) or named_only):
        return None
    return known, tuple(kept)


def engine_group(words: Sequence[str]) -> int | None:
    """The index of an engine's name among a program's words when a verb of the program's own follows it: a command
    group for the engine (`spnl vllm up NAME --target k8s --model M`, sample K370: a deployment tool's `vllm up`, which
    writes the engine's command itself). The engine's own CLI takes `serve` after its name; a wrapper handed the
    engine's name last, or before its options (`launch.py vllm --model M`), is none."""
    from kvlint.engines import ENGINE_NAMES

    return next((k for k, w in enumerate(words[1:-1], 1) if w in ENGINE_NAMES and words[k + 1] != "serve"
                 and not words[k + 1].startswith("-")), None)


def _serve_positional(fields: Sequence[Field], at: int, named: Sequence[str]) -> ByFlags | None:
    """`python /patches/apply_patches.py serve ORG/MODEL --quantization awq --max-model-len 32768 ...` (sample K167:
    a wrapper that patches vLLM, then runs its CLI with the words it was given): a program handed `serve`, a model
    and the engine's flags, in a file that names the engine whose CLI takes the model that way, is that CLI's
    launch when the flags fit it as any program's read by its flags must (a sizing flag and a server's sign)."""
    from kvlint.launches.infer import POSITIONAL_MODEL, model_first
    from kvlint.record import replace

    k = at + 1
    if k + 1 >= len(fields) or fields[k].text != "serve" or not model_first(fields[k + 1 :]):
        return None
    engine = POSITIONAL_MODEL
    in_command = any(engine in f.text.lower() for f in fields)
    if not in_command and engine not in named:
        return None
    name = fields[at].text.rsplit("/", 1)[-1].lower()
    if _NOT_SERVER.search(name):
        return None
    flag = replace(fields[k + 1], text="--model", offsets=(), source=None)
    found = _fit(engine, (flag, fields[k + 1], *fields[k + 2 :]), True, in_command)
    if found is None:
        return None
    note = (f"read as a {engine} launch through {fields[at].text.rsplit('/', 1)[-1]}, a program kvlint does not "
            f"know, handed `serve`, a model and {engine}'s own flags, as {engine}'s CLI takes them")
    return ByFlags(engine, fields[at], found[1], note)


def _model_argument(word: Field) -> bool:
    """Whether a wrapper's first argument reads as a model: a Hub id or a path, or one variable the file leaves
    open (`launch_vllm.py "$MODEL" -- ...`, sample K406: `MODEL=${MODELS}/...` from the environment)."""
    from kvlint.launches.infer import one_variable

    return "/" in word.text or (not word.resolved and one_variable(word.text))


def _passed_through(fields: Sequence[Field], at: int) -> ByFlags | None:
    """`python scripts/launch_vllm.py ORG/MODEL [own options] -- --tensor-parallel-size 2 --port 8013`: a program
    named for an engine and for serving, given a model as its first argument and the engine's flags after `--`
    (the usual way a wrapper passes arguments on). Read when the words after `--` are that engine's flags (a
    sizing flag among them, no more unknown flags than known) and the first argument looks like a model (a
    Hub id or a path); the program's own options before `--` are left to it."""
    from kvlint.engines import ENGINE_NAMES
    from kvlint.launches.argv import spec_by_dest
    from kvlint.record import replace

    name = fields[at].text.rsplit("/", 1)[-1].lower()
    engine = next((e for e in ENGINE_NAMES if e in name), None)
    if engine is None or not _SERVER_NAME.search(name) or _NOT_SERVER.search(name.replace(engine, "")):
        return None
    dash = next((k for k in range(at + 1, len(fields)) if fields[k].text == "--"), None)
    model = fields[at + 1] if at + 1 < len(fields) else None
    if dash is None or model is None or model.text.startswith("-") or not _model_argument(model):
        return None
    spec = spec_by_dest(engine, "model") or spec_by_dest(engine, "model_path")
    if spec is None:
        return None
    flag = replace(model, text=spec.options[0], offsets=(), source=None)
    found = _fit(engine, (flag, model, *fields[dash + 1 :]), True, True)
    if found is None:
        return None
    own = [f.text for f in fields[at + 2 : dash] if f.text.startswith("-")]
    note = (f"read as a {engine} launch through {fields[at].text.rsplit('/', 1)[-1]}, a program kvlint does not "
            f"know: its first argument as the model and the words after `--` as {engine}'s own flags"
            + (f" (its own options {' '.join(own[:3])} are left to it)" if own else ""))
    return ByFlags(engine, fields[at], found[1], note)
