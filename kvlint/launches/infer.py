"""The engine a flags-only argument list starts when the image does not say.

A Kubernetes container with `args:` and no `command:`, a compose service with `command:` and no
`entrypoint:`, and `docker run IMAGE --flags` without `--entrypoint` all hand their flags to the
image's own entry point. When the image is one kvlint does not know (built locally, a third-party
rebuild), the flags are the only evidence of what that entry point is. All three readers ask this one
rule, so the same argv is a launch in each or in none.

Flags that no release of that engine has are evidence the other way: an image given three or more of them (a third
of its flags or more) runs another program that mimics the engine's options (llm-d's inference simulator), so it is
not read as the engine. Only an engine's own setting flags count: `--model` and `--model-path` name the model for
llama.cpp, FastChat and many in-house servers too, so a container with those (and `--port`) alone stays what it
was, an unknown program.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kvlint.launches.env import Field
from kvlint.lazyre import lazy
from kvlint.record import replace
from kvlint.span import Span

if TYPE_CHECKING:
    from kvlint.launches.script import FoundLaunch

# engine -> setting flags no other engine kvlint reads takes; looked at in this order
_OWN: tuple[tuple[str, frozenset[str]], ...] = (
    ("sglang", frozenset({"--tp-size", "--mem-fraction-static", "--context-length"})),
    ("vllm", frozenset({"--max-model-len", "--max_model_len", "--gpu-memory-utilization"})),
)
_SHARED = frozenset({"--tensor-parallel-size"})  # an engine's flag, but both take it: the model flag tells which
_MODEL_SPELLING = (("sglang", "--model-path"), ("vllm", "--model"))  # (both take --model; --model-path is SGLang's)


def engine_from_flags(fields: Sequence[Field]) -> str | None:
    """The engine whose own flags an argument list that starts with a flag carries, or None.

    The caller has already found that nothing else starts an engine (no engine command, an image whose
    entry point kvlint does not know) and that the list goes to the image's entry point unchanged.
    A model flag alone never decides; it only tells the engines apart behind a flag both take.
    A list that starts with a model (`[google/gemma-3-4b-it, --enable-lora, --lora-modules, ...]`) is one only
    `vllm serve` takes (its positional model); it is vLLM's when its flags are all vLLM's, by the tables."""
    if len(fields) > 2 and fields[0].text == "serve" and not fields[1].text.startswith("-"):
        # `IMAGE serve MODEL --flags` (sample K243, an image left to a sourced file): an entry point that is the
        # engine's CLI, handed its subcommand; the words after it decide as they would alone
        return engine_from_flags(fields[1:])
    if fields and _model_first(fields):
        flags = {f.text.split("=", 1)[0] for f in fields[1:] if f.text.startswith("--")}
        return POSITIONAL_MODEL if _only(POSITIONAL_MODEL, flags - _patched(POSITIONAL_MODEL, flags)) else None
    if not fields or not fields[0].text.startswith("-"):  # a short option first too (`-O3 --model M`, sample K461)
        return None
    flags = {f.text.split("=", 1)[0] for f in fields if f.text.startswith("--")}
    own = next((engine for engine, marks in _OWN if flags & marks), None)
    if own is None and flags & _SHARED:
        own = next((engine for engine, model in _MODEL_SPELLING if model in flags), None)
    if own is None:
        own = next((engine for engine, _ in _OWN if _only(engine, flags)), None)
    return own if own is None or not foreign(own, flags) else None


POSITIONAL_MODEL = "vllm"  # the engine whose server takes the model as its first positional (`vllm serve MODEL`)
_MODEL_WORD = lazy(r"[A-Za-z0-9][\w.-]*/[\w.-]*[A-Za-z0-9]|/[\w./-]+")
_TEMPLATED = lazy(r"\{\{[^{}\n]*\}\}")
_AT_LEAST = 2  # flags an argument list must carry to be told by the tables (one flag is any program's)


def model_shaped(word: str) -> bool:
    """Whether a word is written like a model: a Hub id (`org/name`) or an absolute path."""
    return _MODEL_WORD.fullmatch(word) is not None


def model_first(fields: Sequence[Field]) -> bool:
    """Whether the words are a model given positionally, then flags (kvlint.launches.infer._model_first)."""
    return _model_first(fields)


def _model_first(fields: Sequence[Field]) -> bool:
    """Whether the list is a model (a Hub id or an absolute path, or a variable named for one left unresolved:
    `"$MODEL"`, sample K172) and then flags."""
    if len(fields) < 2 or not fields[1].text.startswith("--"):
        return False
    first = fields[0]
    # a template's placeholder inside the path (`/model-cache/{{ .ModelPath }}`, sample K282's ModelService): a
    # word the deploy tooling fills
    text = _TEMPLATED.sub("x", first.text) if "{{" in first.text else first.text
    return _MODEL_WORD.fullmatch(text) is not None or _MODEL_TEMPLATE.fullmatch(first.text) is not None or \
        (not first.resolved and (_MODEL_VARIABLE.fullmatch(first.text) is not None or _open_path(first.text)))


def _open_path(text: str) -> bool:
    """A word the shell alone gives (one variable: `"$SNAP_IN"`, sample K250's snapshot folder of the Hub cache, set
    from a command's output), or an absolute path partly left to it, before flags that are all vLLM's: the model
    `vllm serve` takes first, whatever the variable is called (the flags decide, strictly)."""
    return _ONE_VARIABLE.fullmatch(text) is not None or \
        (text.startswith("/") and len(text) > 1 and not any(c.isspace() for c in text))


_ONE_VARIABLE = lazy(r"\$\{?[A-Za-z_]\w*\}?")


def one_variable(text: str) -> bool:
    """Whether a word is one variable as written (`$MODEL`, `${MODEL}`)."""
    return _ONE_VARIABLE.fullmatch(text) is not None


# a template's expression named for a model (`{{ model_name }}`, `{{ .Values.modelId }}`, sample K436's Jinja): the
# word the template tool writes, as a variable named for one is the shell's
_MODEL_TEMPLATE = lazy(r"\{\{-?[ \t]*[\w.]*(?:MODEL|[Mm]odel)[\w.]*[ \t]*-?\}\}")
_MODEL_VARIABLE = lazy(r"\$\{?[A-Za-z_]*(?:MODEL|model)(?:_?(?:PATH|path|ID|id|DIR|dir|REPO|repo))?\}?")


def _only(engine: str, flags: set[str]) -> bool:
    """Whether `flags` are, by the engines' own tables, this engine's and no other's: every one a flag of
    `engine` (an option of any release), two at least besides the model flag, and one of those at least that no
    other engine kvlint reads takes.
    Read only for an image kvlint does not know given flags only: a server that mimics the engine (a fork)
    is read as the engine, any program with a flag of its own is not."""
    from kvlint.engines.registered import engine_names
    from kvlint.flags.flag_table import flag_table, match, normalise

    table = flag_table(engine)
    if table.dotted_json_keys:  # `--speculative-config.method=x` sets a key of --speculative-config's JSON
        flags = {f.split(".", 1)[0] if f.startswith("--") else f for f in flags}
    specs = {f: match(table, normalise(table, f))[0] for f in flags}
    if any(spec is None and normalise(table, f) not in table.removed for f, spec in specs.items()):
        return False
    settings = {f for f, spec in specs.items() if spec is None or spec.dest != table.model_dest}
    if len(settings) < _AT_LEAST:
        return False  # the model flag is many servers' (llama.cpp, FastChat): it never decides
    others = [flag_table(other) for other in engine_names() if other != engine]
    return any(all(f not in other.by_option and f not in other.removed for other in others) for f in settings)


def _patched(engine: str, flags: set[str]) -> set[str]:
    """The flags no release of the engine has, when they are few beside many of its own (one in five at most: a
    patched build's own options, sample K306's `--never-evict-kv-cache-prompt-includes` among fifteen of vLLM's);
    else none, so that they decide against the engine."""
    from kvlint.flags.flag_table import flag_table, match, normalise

    table = flag_table(engine)
    unknown = {f for f in flags if match(table, normalise(table, f))[0] is None and normalise(table, f)
               not in table.removed}
    return unknown if unknown and 4 * len(unknown) <= len(flags) - len(unknown) else set()


def all_known(engine: str, fields: Sequence[Field]) -> bool:
    """Whether every flag of the list is one of the engine's (an option of any release): the image already says
    which engine, so the flags need only not be another program's."""
    from kvlint.flags.flag_table import flag_table, match, normalise

    table = flag_table(engine)
    flags = {f.text.split("=", 1)[0] for f in fields if f.text.startswith("--")}
    return bool(flags) and all(match(table, normalise(table, f))[0] is not None or normalise(table, f) in
                               table.removed for f in flags)


_FOREIGN_AT_LEAST = 3  # flags no release of the engine has: one or two are typos or a plugin's, more a program's own


def foreign(engine: str, flags: set[str]) -> bool:
    """Whether many of the flags are no release's of `engine` (at least three and a third of them): the program
    behind the image takes flags shaped like the engine's but is another one (a simulator such as
    llm-d-inference-sim, a router, a benchmark), so its flags are not the engine's to judge."""
    from kvlint.flags.flag_table import flag_table, match, normalise

    table = flag_table(engine)
    unknown = [f for f in flags if match(table, normalise(table, f))[0] is None and normalise(table, f)
               not in table.removed]
    return len(unknown) >= _FOREIGN_AT_LEAST and 3 * len(unknown) >= len(flags)


def inferred_note(engine: str, absent: str) -> str:
    """The note on a launch found by `engine_from_flags`; `absent` names the override the file does not
    set (`command` in Kubernetes, `entrypoint` in compose, `--entrypoint` for docker run)."""
    return f"engine {engine} inferred from the flags: no {absent}, and the image does not name an engine"


def named_image_wrapper(found: FoundLaunch, image: str, place: Span | None) -> FoundLaunch:
    """A launch read from arguments given to an image only *named* for the engine (`open-llms-runtime-sglang`, a
    build kvlint does not know), when they hold flags the engine has never had (`serve --manifest /etc/model.yaml`,
    sample K58): the image's program is a wrapper that reads its own options and starts the engine as its config
    says, so the model and the parallelism are that program's (open, never the engine's defaults), and its flags are
    not reported as the engine's. Arguments that name a model or set any of the engine's settings stay the engine's
    launch (a patched build given the engine's flags and a few of its own: its typos are still the engine's).
    `place`: where the launch is when the arguments give no entry point (the container's `args:`)."""
    from kvlint.launches.argv import parse

    parsed = parse(found.engine, [f.token() for f in found.fields])
    if parsed.model is not None or parsed.settings or not any(u.reason != "removed" for u in parsed.unknown):
        return found  # a model or a setting of the engine's: a build of the engine given its flags (and its own)
    return replace(found, wrapper=image, left_to=f"the program of {image}",
                   entry_span=found.entry_span or place)


def no_server_launch(fields: Sequence[Field], image: Field | None, env: dict[str, str] | None = None
                     ) -> FoundLaunch | None:
    """The launch meant by arguments alone given to a published image that carries an engine and starts no server
    (`lmsysorg/sglang` with `command: [--model-path=M, --port=8000]`): the container runs `--model-path=M` as its
    program and exits, but the flags say which engine and settings were meant, so the launch is read as that
    engine's and KV014 says what really happens (at the image). Only when the flags are that engine's alone."""
    from kvlint.launches.images import no_server_engine
    from kvlint.launches.script import FoundLaunch

    engine = no_server_engine(image.text) if image is not None else None
    if image is None or engine is None or not fields or not fields[0].text.startswith("-") or \
            not all_known(engine, fields):
        return None
    note = f"{image.text} starts no {engine} server on its own: its arguments are run as the container's program"
    return FoundLaunch(engine, tuple(fields), None, dict(env or {}), notes=(note,), no_server=image)
