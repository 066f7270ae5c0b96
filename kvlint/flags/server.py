"""Which of an engine's servers a launch starts, from what the command line itself shows.

`sglang serve` is a dispatcher: a diffusion model goes to SGLang's diffusion server (`sglang.multimodal_gen`), whose
parser knows `--num-gpus`, `--dit-cpu-offload` and no LLM flag, and which has no KV cache. Judging such a launch by
the LLM server's table gives only wrong errors, so the flags are read with the table of the server the launch
starts (each engine's facts name its other servers: `SERVERS`, `SERVER_ENTRY_MODULES`; the tables hold the rest).

SGLang decides at start-up (sglang/cli/serve.py: `--model-type`, else sglang/cli/utils.py get_is_diffusion_model: its
registry of diffusion model ids, a local folder's model_index.json with `_diffusers_version`, the Hub's
model_index.json). kvlint works offline from the file, so the evidence is, in order: the entry module; `--model-type`;
a model id the server's registry names; the flags, when some only the other server knows are given and none only the
engine's own server knows (the minimax-h3 launch: `--num-gpus 1 --dit-cpu-offload ...`). Nothing of that: the
engine's own server, whose table then reports a mistyped flag as before.
"""

from __future__ import annotations

import re

from kvlint.engines.registered import facts
from kvlint.flags.flag_table import FlagTable, dynamic_option, flag_table, match, server_data, servers


def server_of(engine: str, texts: list[str], start: int) -> str | None:
    """The server `texts[start:]` starts (a name of the engine's facts.SERVERS), or None for the engine's own.

    `texts[start - 1]` is what came before the arguments: `serve` for `sglang serve`, an entry module the argv
    kept (`sglang.multimodal_gen.runtime.launch_server`), else anything."""
    if not servers(engine):
        return None
    before = texts[start - 1] if start > 0 else ""
    by_module = getattr(facts(engine), "SERVER_ENTRY_MODULES", {}).get(before)
    if by_module is not None:
        return str(by_module)
    if before != "serve":
        return None
    args = texts[start:]
    return next((name for name in servers(engine) if _dispatches_to(engine, name, args)), None)


def _dispatches_to(engine: str, server: str, args: list[str]) -> bool:
    """`sglang serve ARGS` goes to `server`: the dispatcher's override says so, else the model or the flags do."""
    dispatch: dict[str, str] = server_data(engine, server).get("serve_dispatch") or {}
    chosen = _option_value(args, dispatch["option"]) if dispatch else None
    if chosen is not None:
        return chosen == dispatch[server]
    model = _model(engine, server, args)
    if model is not None and _registered(engine, server, model):
        return True
    return _flags_say(engine, server, args)


def _option_value(args: list[str], option: str) -> str | None:
    """The value of `option X` / `option=X` as the dispatcher reads it (exact spelling, first one)."""
    for k, word in enumerate(args):
        if word == option and k + 1 < len(args):
            return args[k + 1]
        if word.startswith(option + "="):
            return word.partition("=")[2]
    return None


def _model(engine: str, server: str, args: list[str]) -> str | None:
    """The model the dispatcher sees: `--model-path X` / `--model X`, else `sglang serve X`'s positional."""
    for option in ("--model-path", "--model"):
        value = _option_value(args, option)
        if value is not None:
            return value
    return args[0] if args and not args[0].startswith("-") else None


def _registered(engine: str, server: str, model: str) -> bool:
    """The server's registry names the model: its Hub id, or the same repository name under another owner or a
    local folder (`/models/MiniMax-H3`, a Hub cache's `models--ORG--NAME/snapshots/<hash>`), compared without case
    as the registry does."""
    cached = re.search(r"models--([^/]+)--([^/]+)", model)  # a Hugging Face cache folder (snapshots/<hash>)
    if cached is not None:
        model = f"{cached.group(1)}/{cached.group(2)}"
    name = model.rstrip("/").rsplit("/", 1)[-1].lower()
    ids = server_data(engine, server).get("model_ids", ())
    return any(model.lower() == i.lower() or name == i.rsplit("/", 1)[-1].lower() for i in ids)


def _flags_say(engine: str, server: str, args: list[str]) -> bool:
    """Some flag only `server`'s parser takes, and none only the engine's own server takes."""
    own, other = flag_table(engine), flag_table(engine, server)
    names = [w.partition("=")[0] for w in args if w.startswith("--") and len(w) > 2]
    only_other = any(_takes(other, n) and not _takes(own, n) for n in names)
    only_own = any(_takes(own, n) and not _takes(other, n) for n in names)
    return only_other and not only_own


def _takes(table: FlagTable, name: str) -> bool:
    """The table's parser accepts `name` (exact, unique abbreviation, or an option family it takes undeclared)."""
    return match(table, name)[0] is not None or dynamic_option(table, name) is not None


def dispatch_options(engine: str) -> tuple[str, ...]:
    """The options `ENGINE serve` takes for itself before any server parses (`--model-type`): not a KV004."""
    found = (server_data(engine, name).get("serve_dispatch") for name in servers(engine))
    return tuple(dict.fromkeys(d["option"] for d in found if d))
