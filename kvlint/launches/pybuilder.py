"""A command an imported function builds and the program starts (sample K112: a Modal class runs `cmd =
build_serve_cmd(model_path=SPEC.hf_repo, mem_fraction_static=0.9, tp_size=1, ...)` then `subprocess.Popen(cmd)`,
the builder in the project's `_common/sglang_common.py`): the launch is the call, its settings the keyword
arguments that are the engine's flags, each at its place in the call.

The builder's body is in another file, so the call's keywords are the only evidence. The engine is the one whose
flag table names the most of them, counting only keys spelled as nothing but a setting is (`mem_fraction_static`,
`tp_size`; a bare `port` is no evidence), at least two beside a model key; a size spelled for the other engine
(`max_model_len` handed to an SGLang builder) is this engine's flag for the same role. Keywords no table has
(`served_model_names`) are the builder's own and are named in the launch's notes, and a tensor-parallel size the
call does not state is the builder's to set (an open input, never the default of 1). A call whose result no process
starts (`LLM(**kw)`, an in-process engine, a config object) is not a launch.

A platform's class for an engine server (sample K117: ZenML's `VLLMServiceConfig(model=..., port=port)`, which its
model deployer runs as a vLLM server) is the same evidence with the engine in the class's name (the engine's name
and a word for a server: `VLLMServiceConfig`, `SGLangServer`; a client's `VLLMOpenAI` has no such word): the call
is the launch, its keywords that are that engine's flags its settings.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kvlint.launches.build import LaunchContext, ManifestGpu, finish, parallelism_left_to
from kvlint.launches.env import Field
from kvlint.launches.pycalls import PROCESS_STARTS, callee
from kvlint.launches.pyclasses import module_file
from kvlint.launches.script import engines_named
from kvlint.launches.structured import MODEL_NAMES
from kvlint.lazyre import lazy
from kvlint.record import replace

if TYPE_CHECKING:
    from kvlint.deployment import Deployment
    from kvlint.launches.pyfile import _Source

_MAX_CALLS = 16  # builder calls read per file
_START_MODULES = frozenset({"subprocess", "os", "asyncio", "sp"})
_MIN_FLAGS = 2  # engine-spelled keywords beside the model key
_ROLES = ("max_len", "tp", "pp", "dp")


def built_starts(src: _Source, tree: ast.Module) -> list[Deployment]:
    """One launch per call of an imported function whose result a process start receives and whose keywords are
    one engine's flags with a model among them."""
    imported = _imported(tree)
    if not imported:
        return []
    out: list[Deployment] = []
    for call in _started_calls(tree, imported)[:_MAX_CALLS]:
        found = _launch(src, tree, call, imported[_callee_root(call.func)])
        if found is not None:
            out.append(found)
    return out


# a platform's class for an engine server it starts (ZenML's `VLLMServiceConfig`, a `VLLMDeployment`, an
# `SGLangServer`, testcontainers' `VLLMContainer`: sample K542): the engine's name, then a word for a server, in the
# class's name; a client's (`VLLMOpenAI`) has none
_SERVER_CLASS = lazy(r"(?i)(vllm|sglang)_?\w*?"
                     r"(service|server|deployment|setup|manager|launcher|app|container|runtime)\w*"
                     # a platform's builder of an engine deployment (sample K205: Chutes' `build_sglang_chute(
                     # model_name=..., image=..., engine_args="--trust-remote-code ...")`)
                     r"|(?:build|make|create|deploy)_?(vllm|sglang)(?:_\w+)?")
# words of a class that talks to a running server rather than starting one (`VLLMServerClient`, `SGLangServerAPI`)
_CLIENT_WORDS = lazy(r"(?i)client|api|openai|chat|completion|endpoint|proxy|router")


def platform_servers(src: _Source, tree: ast.Module) -> list[Deployment]:
    """One launch per call of a platform's engine-server class imported into the file with a model keyword (sample
    K117: ZenML's `VLLMServiceConfig(model=..., port=port)`, which its model deployer runs as a vLLM server): the
    keywords that are the engine's flags are its settings."""
    imported = _imported(tree)
    out: list[Deployment] = []
    for node in ast.walk(tree):
        if len(out) >= _MAX_CALLS:
            break
        if not isinstance(node, ast.Call) or _callee_root(node.func) not in imported:
            continue
        name, module = callee(node.func), imported[_callee_root(node.func)]
        m = _SERVER_CLASS.fullmatch(name)
        if module_file(src.path, module, 0) is not None or _connects(node):
            # a class of the repository's own is read in its module (kvlint.launches.pyclasses); a configuration
            # pointing at a running server starts none
            continue
        if m is not None and _CLIENT_WORDS.search(name) is None and not _engine_module(module):
            found = _launch(src, tree, node, module, (m.group(1) or m.group(3)).lower())
        elif m is None and _DEPLOY_CLASS.fullmatch(name) is not None and not _engine_module(module):
            found = _launch(src, tree, node, module, hint=" ".join(engines_named(src.text)))
        else:
            continue
        out += _roles(found, node) if found is not None else []
    return out


def _roles(dep: Deployment, call: ast.Call) -> list[Deployment]:
    """The launches a server configuration makes: one, or one per role of a prefill/decode pair its keywords size
    (`VLLMPDServerConfig(model=M, prefill_nodes=2, decode_nodes=2, ...)`, sample K542's Slurm job config: two engines
    with their own KV pools, counting rule 3)."""
    words = {k.arg.split("_", 1)[0] for k in call.keywords if k.arg and "_" in k.arg}
    if not {"prefill", "decode"} <= words:
        return [dep]
    note = "one of the prefill and decode engines this configuration sizes (its prefill_* and decode_* keywords)"
    return [replace(dep, name=f"{dep.name or callee(call.func)} {role}", notes=(*dep.notes, note))
            for role in ("prefill", "decode")]


# keywords by which a server's configuration points at a server already running (sample K504: vllm-runtime's
# `VLLMServerConfig(mode="external", model_name=M, base_url="http://127.0.0.1:8000/v1")`, beside its "managed" ones)
_REMOTE_KEYWORDS = frozenset({"base_url", "api_base", "server_url", "endpoint", "url", "openai_api_base"})
_REMOTE_MODES = frozenset({"external", "remote", "connect", "client", "attach", "existing"})


def _connects(call: ast.Call) -> bool:
    """Whether the call configures a connection to a running server, not a server to start: a URL keyword, or a
    mode spelled for an outside server."""
    for kw in call.keywords:
        value = kw.value.value if isinstance(kw.value, ast.Constant) else None
        if kw.arg in _REMOTE_KEYWORDS and not (isinstance(kw.value, ast.Constant) and kw.value.value in (None, "")):
            return True  # a literal, an f-string or a variable: the address of a server that runs elsewhere
        if kw.arg in ("mode", "server_mode", "launch_mode") and isinstance(value, str) and value in _REMOTE_MODES:
            return True
    return False


# a deployment's configuration class of a package this file does not hold (sample K127: `DeploymentConfig(model=M,
# tensor_parallel_size=1, data_parallel_size=1, ...)` handed to the package's Kubernetes deployer): read as a builder
# is, from its keywords when at least two are one engine's flags beside a model key
_DEPLOY_CLASS = lazy(r"(?i)\w*(deploy|server|serving|service)\w*")


def _engine_module(module: str) -> bool:
    """A module of an engine itself (`sglang.srt.server_args`): its classes are read by the engine's own facts
    (an in-process server, a library engine), never as a deployment's configuration."""
    from kvlint.engines.registered import engine_names

    return module.split(".", 1)[0].lower() in engine_names()


def _imported(tree: ast.Module) -> dict[str, str]:
    """Name bound by an import -> the module it comes from (`from _common.sglang_common import build_serve_cmd`:
    build_serve_cmd -> _common.sglang_common; `import helpers as h`: h -> helpers)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.update({(a.asname or a.name): node.module or "." for a in node.names if a.name != "*"})
        elif isinstance(node, ast.Import):
            out.update({(a.asname or a.name.split(".")[0]): a.name for a in node.names})
    return {k: v for k, v in out.items() if k not in _START_MODULES}


def _callee_root(func: ast.expr) -> str:
    """The imported name a call goes through: `build(...)` -> build, `h.build(...)` -> h."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return func.id if isinstance(func, ast.Name) else ""


def _started_calls(tree: ast.Module, imported: dict[str, str]) -> list[ast.Call]:
    """Calls of imported functions whose value is the argument list of a process start: handed to it directly
    (`Popen(build(...))`, `Popen(shlex.join(build(...)), shell=True)`) or through a name assigned from the call in
    the same scope (`cmd = build(...)` ... `Popen(cmd)`)."""
    assigned: dict[str, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                _callee_root(node.value.func) in imported:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
    out: list[ast.Call] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_start(node.func)):
            continue
        arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "args"), None)
        arg = _unwrapped(arg)
        if isinstance(arg, ast.Call) and _callee_root(arg.func) in imported:
            out.append(arg)
        elif isinstance(arg, ast.Name):
            out += [c for c in assigned.get(arg.id, []) if c not in out]
    return out


def _is_start(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id == "Popen"
    return isinstance(func, ast.Attribute) and func.attr in PROCESS_STARTS and isinstance(func.value, ast.Name) and \
        func.value.id in _START_MODULES


def _unwrapped(arg: ast.expr | None) -> ast.expr | None:
    """The list under `*cmd`, `" ".join(cmd)`, `shlex.join(cmd)`, `list(cmd)`."""
    if isinstance(arg, ast.Starred):
        return arg.value
    if isinstance(arg, ast.Call) and len(arg.args) == 1 and not arg.keywords and \
            ((isinstance(arg.func, ast.Attribute) and arg.func.attr == "join") or
             (isinstance(arg.func, ast.Name) and arg.func.id == "list")):
        return arg.args[0]
    return arg


def _launch(src: _Source, tree: ast.Module, call: ast.Call, module: str, named: str | None = None, hint: str = ""
            ) -> Deployment | None:
    """The launch the builder call stands for, or None when its keywords are no engine's flags with a model.
    `named`: the engine the callee's name says (a platform's server class), whose flags the keywords are; `hint`:
    the engines the file names, which break a tie of keywords both engines spell alike."""
    from kvlint.engines.registered import facts
    from kvlint.launches.pyfile import _gpu_of, _keyword_flags
    from kvlint.launches.script import FoundLaunch

    pairs = [(k.arg, k, k.value) for k in call.keywords if k.arg]
    # the engines' own model keys before the other spellings (`model_name` may be the served name beside `model`)
    model = next(((k, v) for k, _, v in sorted(pairs, key=lambda p: p[0] not in ("model", "model_path"))
                  if _norm(k) in MODEL_NAMES), None)
    chosen = _engine([k for k, _, _ in pairs], f"{module}.{ast.unparse(call.func)} {hint}") if named is None else \
        (named, _options(named, [k for k, _, _ in pairs]))
    if model is None or chosen is None:
        return None
    engine, options = chosen
    flags = [(options[k].lstrip("-"), kn, v) for k, kn, v in pairs if k in options]
    fields = [Field(facts(engine).MODEL_FLAG, src.span(model[1])), src.field(model[1])]
    fields += _keyword_flags(src, flags, engine)
    handed = [(k, v) for k, _, v in pairs if k not in options and _ARGS_KEY.search(k)]
    fields += [w for _, v in handed for w in _flag_words(src, v)]
    name = ast.unparse(call.func)
    own = [k for k, _, _ in pairs if k not in options and k != model[0] and k not in dict(handed)]
    what = (f"the engine's server is configured by {name} (imported from {module}), which starts it" if named else
            f"the command is built by {name} (imported from {module}), which this file does not hold")
    note = (f"{what}: its keyword arguments that are the engine's flags are read as them" +
            (f"; {', '.join(own)} are its own" if own else ""))
    found = FoundLaunch(engine, tuple(fields), src.span(call.func), notes=(note,))
    gpu = _gpu_of(src, tree, call)
    image = next((v for k, _, v in pairs if k == "image" and isinstance(v, ast.Constant) and isinstance(v.value, str)),
                 None)  # the image a builder deploys (`image="chutes/sglang:0.4.6.post5b"`): its build decides flags
    ctx = LaunchContext(image=str(image.value), image_span=src.span(image)) if image is not None else LaunchContext()
    dep = finish(src.path, found, ctx, gpu if gpu.count else _gpu_count_keyword(src, call))
    return parallelism_left_to(dep, f"the builder {name}", found.entry_span, roles=("tp",))


_ARGS_KEY = lazy(r"(?i)^(?:engine|extra|server|vllm|sglang)_?(?:cli_?)?args$")


def _flag_words(src: _Source, value: ast.expr) -> list[Field]:
    """The words of a string of the engine's own flags handed to a builder (`engine_args="--trust-remote-code
    --tool-call-parser deepseekv3"`, implicitly joined literals too), each at the string's place; none for a value
    that is not a literal string of flags."""
    from kvlint.launches.cloud_run import words_of

    field = src.field(value)
    if not field.resolved or not field.text.lstrip().startswith("-"):
        return []
    return words_of(field)


def _gpu_count_keyword(src: _Source, call: ast.Call) -> ManifestGpu:
    """`gpu_count=8` in a keyword of the call or of a call inside it (`node_selector=NodeSelector(gpu_count=8)`): the
    GPUs a platform gives the deployment."""
    for node in ast.walk(call):
        if isinstance(node, ast.keyword) and node.arg in ("gpu_count", "gpus", "num_gpus") \
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, int) \
                and not isinstance(node.value.value, bool) and 0 < node.value.value <= _MAX_GPUS:
            return ManifestGpu(count=node.value.value, count_span=src.span(node.value))
    return ManifestGpu()


_MAX_GPUS = 4096


def _norm(key: str) -> str:
    return key.lower().replace("_", "").replace("-", "")


def _engine(keys: list[str], named: str) -> tuple[str, dict[str, str]] | None:
    """The engine whose flags the keywords are (key -> its option), with the most engine-spelled keys; a tie goes to
    the engine the builder's module or name names; None when no engine has enough."""
    from kvlint.engines.registered import engine_names
    from kvlint.launches.keys import spelled_as_flag

    scored: list[tuple[int, bool, str, dict[str, str]]] = []
    for engine in engine_names():
        options = _options(engine, keys)
        score = sum(1 for k in options if spelled_as_flag(k))
        scored.append((score, engine in named.lower(), engine, options))
    scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
    best = scored[0]
    if best[0] < _MIN_FLAGS or (len(scored) > 1 and scored[1][:2] == best[:2]):
        return None
    return best[2], best[3]


def _options(engine: str, keys: list[str]) -> dict[str, str]:
    """Each keyword that is one of the engine's flags (or another engine's spelling of a size it has), to that flag."""
    from kvlint.launches.keys import option_for_key

    return {k: o for k in keys if _norm(k) not in MODEL_NAMES and
            (o := option_for_key(engine, k) or _role_option(engine, k)) is not None}


def _role_option(engine: str, key: str) -> str | None:
    from kvlint.launches.env_launch import role_option

    return role_option(engine, key, _ROLES)
