"""Engine settings written as a mapping at any depth: a model key beside keys that are engine flags.

Values of a chart kvlint has no adapter for, an application's deployment file, a JSON config: the
engine's settings sit under some key (`structured:`, `vllm:`, `engine:`, a subchart's name), reached
through anchors and merge keys, spelled in camelCase, snake or kebab case. The engine's own flag table
decides which keys are flags (kvlint.launches.keys.option_for_key), never a list of keys per chart.

One pass over the parsed tree, bounded (`_MAX_NODES`, `limits.check()`): each map that holds a model key
(`model`, `modelName`, `model_id`, `modelURL`, `servedModel`, `model: {name: ...}`) is scored by the keys
beside it (and in its child maps) that only an engine setting is spelled like (`maxModelLen`, `tp`); the
best such map is the launch's settings, each value with its own span.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from kvlint import limits
from kvlint.engines.registered import engine_names
from kvlint.launches.keys import option_for_key, spelled_as_flag
from kvlint.lazyre import lazy
from kvlint.record import record
from kvlint.sources.yaml import YNode

_MAX_NODES = 20000
# a model key, compared without case, `_` or `-`: the keys charts and apps name the model with
MODEL_NAMES = frozenset({"model", "modelname", "modelid", "modelurl", "modelpath", "modelrepo", "servedmodel",
                         "hfmodel", "huggingfacemodel", "hfmodelid", "llmmodelid", "modeluri", "modelnameorpath",
                         "modelreference", "modelref", "hfname", "hfrepoid", "hfrepo", "hfid", "hfmodelname",
                         "modelidorpath"})
# a client's settings: the address of a server it calls (an `openai:` backend block beside a `vllm:` one)
_CLIENT = frozenset({"baseurl", "apibase", "apiurl", "openaiapibase", "openaibaseurl", "endpointurl", "serverurl"})
# `model: {name: ...}`, `model: {repoId: ...}`: the key inside a model map that names it (compared as MODEL_NAMES)
_MODEL_PARTS = frozenset({"name", "id", "modelid", "repo", "repoid", "repository", "uri", "path", "hfrepo",
                          "huggingface", "hf", "hfrepoid", "huggingfaceid", "hubid", "hfid", "hfmodel", "hfmodelid",
                          "hfname"})
# child maps that are never the engine's settings (a pod's resources, probes, the image, the service)
_NOT_SETTINGS = frozenset({"resources", "image", "service", "ingress", "env", "nodeSelector", "affinity",
                           "tolerations", "livenessProbe", "readinessProbe", "startupProbe", "securityContext",
                           "podSecurityContext", "autoscaling", "persistence", "serviceAccount", "metadata",
                           "labels", "annotations", "podAnnotations", "podLabels", "volumes", "volumeMounts",
                           "registry", "cache", "router", "storage", "secret", "credentials"})
# a request's sampling parameters: beside a model they make a client's or an in-process run's settings (an
# eval harness, `LLM(...)` kwargs), never a server's, whose flags hold none of them
_SAMPLING = frozenset({"temperature", "topp", "topk", "maxtokens", "maxnewtokens", "repetitionpenalty",
                       "presencepenalty", "frequencypenalty", "samplingparams"})
# a benchmark's record (`request_throughput`, `mean_ttft_ms`, `p99_itl_ms`): what a run measured with these settings,
# not settings a server starts with
_MEASURED = lazy(r"throughput|latency|ttft|tpot|(?:^|[_-])itl|(?:^|[_-])p(?:50|90|95|99)(?:$|[_-])"
                 r"|tokens?[_-]?per[_-]?s|elapsed|duration[_-]?s|(?:^|[_-])(?:mean|median)[_-]", re.IGNORECASE)


def _measured(key: str) -> bool:
    return _MEASURED.search(key) is not None


_NOT_A_SERVER = _SAMPLING | _CLIENT
_Pair = tuple[str, YNode, YNode, str]


@record
class Block:
    """One mapping read as engine settings: where it is, its model, and its flag keys."""

    holder: YNode
    path: tuple[str, ...]  # keys from the document to the holder
    model_key: tuple[str, ...]  # the model key below the holder (`("model", "name")`, `("modelName",)`)
    model: YNode  # the model's scalar node (null when the chart leaves it to the install)
    pairs: tuple[_Pair, ...]  # (key, key node, value, option) for each flag key
    engine: str
    named: bool  # the path or a key's value names the engine (`vllm:`, `engine: sglang`)
    listed: int = 0  # the flags of its argument list (`engine_args: ["--port=8000", ...]`)
    model_at: tuple[str, ...] | None = None  # the model's path from the document, when it is not below the holder

    @property
    def model_path(self) -> tuple[str, ...]:
        """Keys from the document to the model."""
        return self.model_at if self.model_at is not None else self.path + self.model_key

    @property
    def score(self) -> int:
        return sum(1 for k, *_ in self.pairs if spelled_as_flag(k)) + self.listed


# the keys a launch's argument list is under (compared as _norm): its items are the engine's command-line words
_ARG_LISTS = frozenset({"args", "extraargs", "engineargs", "serverargs", "serveargs", "vllmargs", "sglangargs",
                        "extraarguments", "extracmdargs", "cmdargs", "cliargs", "launchargs", "engineextraargs",
                        "arguments", "enginearguments", "serverarguments"})


def arg_list_key(key: str) -> bool:
    """A key an argument list is under: the known names, or flags named for an engine (`vllmExtraFlags`)."""
    norm = _norm(key)
    return norm in _ARG_LISTS or norm.endswith("flags") and _engine_in(norm) is not None


def arg_list(holder: YNode) -> YNode | None:
    """The holder's argument list (`args:`, `extraArgs:`, `engine_args:`, `vllmExtraFlags:`): a list of scalars, or
    one string of flags (`args: '--gpu-memory-utilization "0.9" --dtype auto'`, a template pastes it into the
    command), or None."""
    for key, _, val in holder.pairs():
        if not arg_list_key(key):
            continue
        if (val.is_seq and all(i.is_scalar for i in val.items)) or (val.is_scalar and val.text.startswith("--")):
            return val
    found = flag_list(holder)
    return found[0] if found is not None else None


_FLAG_LIST_AT_LEAST = 3  # items a list under a key of any name must have, every one a flag of one engine


def flag_list(holder: YNode) -> tuple[YNode, str] | None:
    """A list under a key of any name whose items are all flags of one engine by its own tables (three at least:
    `model: {repo: M, gpu: [--max-model-len=32000, --gpu-memory-utilization=0.98, ...]}`, sample K234's values of
    a chart kvlint has no adapter for): that engine's argument list, and the engine. The first such list is read
    (a second beside it is an alternative the chart picks: `gpu:` or `cpu:` by a `device:` value)."""
    for key, _, val in _with_model_map(holder):
        if key in _NOT_SETTINGS or not val.is_seq or not _argv_shaped(val):
            continue
        engine = _engine_of_items(val)
        if engine is not None:
            return val, engine
    return None


def _engine_of_items(items: YNode) -> str | None:
    """The engine a list of words is, every flag of it that engine's by its own tables (kvlint.launches.infer)."""
    from kvlint.launches.env import Field
    from kvlint.launches.infer import all_known, engine_from_flags

    fields = [Field(i.text, None) for i in items.items]
    engine = engine_from_flags(fields)
    return engine if engine is not None and all_known(engine, fields) else None


def _argv_shaped(items: YNode) -> bool:
    """Whether a list is an argument vector: scalars, starting with a flag, at least three flags, and no two values
    in a row (`[--model, /repository, --max-model-len, "65536", --kv-cache-dtype, fp8]`, sample K273's benchmark
    matrix: each value follows the flag it belongs to)."""
    if not all(i.is_scalar for i in items.items) or not items.items or not items.items[0].text.startswith("--"):
        return False
    flags = [i.text.startswith("--") for i in items.items]
    values_in_a_row = any(not flags[k] and not flags[k + 1] for k in range(len(flags) - 1))
    return sum(flags) >= _FLAG_LIST_AT_LEAST and not values_in_a_row


def _listed_flags(holder: YNode) -> int:
    """How many items of the holder's argument list are flags (`--port=8000`, `--mem-fraction-static 0.5`), or keys
    of its argument map spelled as flags (`engineArgs: {--max-model-len: "4096"}`, sample K176)."""
    found = arg_list(holder)
    inner = _model_map(holder) if found is None else None
    found = arg_list(inner) if inner is not None else found  # `model: {uri: M, args: [...]}`: the model's own flags
    if found is None:
        return max((sum(1 for k, _, _ in v.pairs() if k.startswith("--")) for k, _, v in holder.pairs()
                    if v.is_map and arg_list_key(k)), default=0)
    words = found.text.split() if found.is_scalar else [i.text for i in found.items]
    return sum(1 for w in words if w.startswith("--"))


def _with_model_map(holder: YNode) -> list[tuple[str, YNode, YNode]]:
    """The holder's pairs, then those of its model map (`model: {repo: M, gpu: [...]}`: the model's own settings)."""
    pairs = list(holder.pairs())
    inner = _model_map(holder)
    return pairs + list(inner.pairs()) if inner is not None else pairs


def _model_map(holder: YNode) -> YNode | None:
    """The holder's model map (`model: {repo: M, ...}`), if it has one."""
    return next((v for k, _, v in holder.pairs() if v.is_map and _norm(unprefixed(k)[1]) in MODEL_NAMES), None)


def model_key(holder: YNode) -> tuple[tuple[str, ...], YNode] | None:
    """The holder's model key and the scalar it names; a null value counts (a chart's install sets it). A key
    prefixed with an engine's name (`vllm_model`, an Ansible role's variables) is that engine's model key."""
    for key, _, val in holder.pairs():
        if _norm(unprefixed(key)[1]) not in MODEL_NAMES:
            continue
        if val.is_scalar and not val.text.startswith("-"):
            return (key,), val
        if val.is_map:
            parts = [(p, n) for p, _, n in val.pairs() if _norm(p) in _MODEL_PARTS and n.is_scalar
                     and not n.tag.endswith(":bool")]
            named = [(p, n) for p, n in parts if n.text] or parts  # a part left empty only when none is set
            # `model: {name: llama-4-scout, uri: oci://...}` (sample K420): beside a reference, `name` is what the
            # model is served as; the reference (uri, repo, id, path) is the model
            named.sort(key=lambda pn: _norm(pn[0]) == "name")
            if named:
                return (key, named[0][0]), named[0][1]
    return None


def first_model(doc: YNode) -> tuple[tuple[str, ...], YNode] | None:
    """(path to it, node) of the first model key with a value, breadth first (the object's own model before a
    nested one), bounded as `find` is."""
    queue: list[tuple[YNode, tuple[str, ...]]] = [(doc, ())]
    k = 0
    while k < len(queue) and k < _MAX_NODES:
        node, path = queue[k]
        k += 1
        found = model_key(node) if node.is_map else None
        if found is not None and found[1].text:
            return path + found[0], found[1]
        queue.extend((v, path + (k,)) for k, _, v in (node.pairs() if node.is_map else ())
                     if v.is_map and k not in _NOT_SETTINGS)
    return None


def find_all(doc: YNode, engine: str | None = None) -> list[Block]:
    """The best block and its siblings: mappings under the same parent that each hold their own model and engine
    flags (`sglang_config: {prefill: {...}, decode: {...}}`, one per role of a disaggregated deployment), each a
    launch of its own (counting rule 3), in the order written."""
    best = find(doc, engine)
    if best is None:
        return []
    listed = doc.path(*best.path) if best.path else doc
    if listed is not None and listed.is_seq and any(i is best.holder for i in listed.items):
        return _listed(listed, best)
    if not best.path:
        return [best]
    parent = doc.path(*best.path[:-1]) if len(best.path) > 1 else doc
    if parent is None or not parent.is_map:
        return [best]
    out: list[Block] = []
    for key, knode, val in parent.pairs():
        if val is best.holder:
            out.append(best)
        elif val.is_map and key not in _NOT_SETTINGS and key.lower() not in _OTHER_BACKENDS:
            # a sibling that runs the engine's image needs no flag of its own beside its model (sample K206: an
            # app's `embedding: {image: .../vllm-ppc64le:0.19.1, model: {name: ...}}` beside its `instruct:` block)
            imaged = _engine_value(val) == best.engine
            block = _block(val, best.path[:-1] + (key,), best.engine, best.named, knode, imaged)
            if block is not None and block.engine == best.engine and (block.score >= min(best.score, 2) or imaged):
                out.append(block)
    return out


def cousins(doc: YNode, best: Block) -> list[Block]:
    """The other engines' settings in a map that keys settings by engine (a benchmark harness's `frameworks:
    {sglang: {base_server_flags: {model_path: M, ...}}, vllm: {base_server_flags: {tensor_parallel_size: 1, ...}}}`,
    turn 37's K324): the map named for another engine at the best block's place, with at least `_ROLE_FLAGS`
    flag-spelled keys and no model of its own, runs on the document's first model. One launch each (rule 4)."""
    at = next((i for i, k in enumerate(best.path) if _engine_in(k) == best.engine), None)
    parent = (doc.path(*best.path[:at]) if at else doc) if at is not None else None
    named = first_model(doc) if parent is not None and parent.is_map else None
    if parent is None or named is None or at is None:
        return []
    out: list[Block] = []
    for key, knode, val in parent.pairs():
        engine = _engine_in(key)
        holder = (val.path(*best.path[at + 1:]) if at + 1 < len(best.path) else val) if val.is_map else None
        if engine is None or engine == best.engine or holder is None or not holder.is_map:
            continue
        role = _role(knode, holder, engine)  # a role map's shape: flag-spelled keys and no model of its own
        if role is not None:
            path = (*best.path[:at], key, *best.path[at + 1:])
            out.append(Block(holder, path, (), named[1], role.pairs, engine, True, model_at=named[0]))
    return out


@record
class Role:
    """A map of engine settings with no model of its own, one role of a recipe (`sglang_config: {prefill: {...},
    decode: {...}}`): the tool that reads the recipe builds one command from each, on the recipe's model."""

    key: YNode  # the role's key (`prefill:`), where its launch is written
    holder: YNode
    pairs: tuple[_Pair, ...]


_ROLE_FLAGS = 3  # flag-spelled engine options a role map holds at least: fewer is any config's `max_tokens`


def roles(doc: YNode, engine: str) -> list[Role]:
    """The role maps under the first key that names `engine` (`backend: {sglang_config: {prefill: {tp-size: 8, ...},
    decode: {...}}}`, sample K157's NVIDIA srt-slurm recipes): the engine's map itself when it holds the flags, else
    each of its child maps that does. Asked only where an engine image is named and no model key sits beside flags,
    so a training config's `vllm:` settings (an in-process engine, no image) are not launches."""
    queue: list[YNode] = [doc]
    k = 0
    while k < len(queue) and k < _MAX_NODES:
        node = queue[k]
        k += 1
        for key, knode, val in node.pairs():
            if not val.is_map or key in _NOT_SETTINGS:
                continue
            if _engine_in(key) == engine:
                own = _role(knode, val, engine)
                return [own] if own is not None else \
                    [r for ck, ckn, cv in val.pairs() if cv.is_map and (r := _role(ckn, cv, engine)) is not None]
            queue.append(val)
    return []


def _role(key: YNode, holder: YNode, engine: str) -> Role | None:
    """A role map: at least `_ROLE_FLAGS` of the engine's options spelled as flags, and no model of its own."""
    if model_key(holder) is not None:
        return None  # a block with its model: find() reads it
    pairs = tuple(p for p in _settings_map(engine, holder) if spelled_as_flag(p[0]))
    return Role(key, holder, pairs) if len(pairs) >= _ROLE_FLAGS else None


def _listed(items: YNode, best: Block) -> list[Block]:
    """The best block and the other items of the list it is an item of (`models: [{model: ..., inference: {...}},
    ...]`, a catalogue a program or chart turns into one deployment each) that hold their own model and as many
    engine-flag keys, in the order written."""
    out: list[Block] = []
    for item in items.items:
        if item is best.holder:
            out.append(best)
        elif item.is_map:
            own = _engine_value(item)  # an item naming its own engine (`engine: sglang` beside `engine: vllm`)
            block = _block(item, best.path, own or best.engine, best.named)
            # an item with the best one's model key is an entry of the same catalogue, all of one engine (an image's,
            # not one each item names): one engine flag will do
            alike = block is not None and block.model_key == best.model_key and _engine_value(best.holder) is None
            enough = min(best.score, 1 if alike else 2)
            if block is not None and block.engine == (own or best.engine) and block.score >= enough:
                out.append(block)
    return out


# sibling blocks named for another backend are that backend's settings (`hf:`, `openai:` beside `vllm:`)
_OTHER_BACKENDS = frozenset({"hf", "huggingface", "transformers", "openai", "ollama", "tgi", "llamacpp", "llama_cpp",
                             "llama.cpp", "lmdeploy", "trtllm", "tensorrt_llm", "tensorrt-llm", "mlx", "onnx"})


def find(doc: YNode, engine: str | None = None) -> Block | None:
    """The best mapping in `doc` that holds a model key and engine-flag keys, or None. The engine comes from an
    image known beside it (`engine`), else the mapping must name it (`vllm:` on its path, `engine: sglang`):
    an application's own settings (`max_model_len` beside `temperature`) are read by its code, not an engine."""
    best: Block | None = None
    # each entry: the node, its path, whether the path named the engine, and the engine its nearest key names
    # (carried down, so a node's path is not scanned again)
    stack: list[tuple[YNode, tuple[str, ...], bool, str | None, YNode | None, YNode | None]] = \
        [(doc, (), False, None, None, None)]
    seen = 0
    while stack and seen < _MAX_NODES:
        node, path, named, on_path, parent, key = stack.pop()
        seen += 1
        limits.check()
        if node.is_seq:
            stack.extend((i, path, named, on_path, parent, None) for i in reversed(node.items) if not i.is_scalar)
            continue
        if not node.is_map:
            continue
        word = on_path or _engine_value(node)
        here = named or word is not None
        block = _block(node, path, engine or word, here, key, parent=parent)
        if block is not None and engine is None and on_path is None and _client_beside(parent or node, node):
            block = None
        if block is not None and (best is None or block.score > best.score):
            best = block
        below = on_path or _role_engine(node)
        for name, name_node, val in node.pairs():
            if not val.is_scalar and (name not in _NOT_SETTINGS or _nested_config(name, val)):
                stack.append((val, path + (name,), here, _engine_in(name) or _args_engine(name, val) or below, node,
                              name_node))
    return best


def model_block(doc: YNode, engine: str) -> Block | None:
    """The top-level mapping's model key, as the settings of `engine` with no flag key beside it: for values whose
    engine the caller already knows (a chart named for it, GPUs requested), where a model is enough."""
    return _block(doc, (), engine, True, imaged=True)


def _nested_config(name: str, val: YNode) -> bool:
    """An `env:` that is a program's configuration tree, not a process's variables (sample K207: NeMo RL's `env:
    {nemo_gym: {genrm_model: {model: ..., vllm_serve_kwargs: {...}}}}`, its reinforcement-learning environments):
    a map holding maps is walked; a list of variables or a map of values is not."""
    return name == "env" and val.is_map and any(not v.is_scalar for _, _, v in val.pairs())


def _role_engine(holder: YNode) -> str | None:
    """The engine a role key names for the maps below it (`rollout_backend: sglang` above `server: {model_path:
    ..., mem_fraction_static: ...}`, sample K162's RLinf): the value is the engine's name alone. Not the holder's
    own engine: its settings beside the key (LLaMA-Factory's `infer_backend: vllm` beside `vllm_enforce_eager:`)
    are an in-process engine's, read by the program."""
    for key, _, val in holder.pairs():
        if val.is_scalar and key[-1:] in "eEdD" and _ROLE_ENGINE_KEY.search(_lower(key)):
            named = val.text.strip().lower()
            if named in engine_names():
                return named
    return None


def _client_beside(parent: YNode, holder: YNode) -> bool:
    """A client's configuration (an eval or app config: `model: {model_name: ...}` beside `remote_params: {api_url:
    ...}` and `engine: SGLANG`): the address of the server it calls is a key of the model map's parent or of one of
    its sibling maps. Asked only where no image and no key on the path names the engine; a stack's values with a
    `vllm:` key are that engine's settings whatever client sits beside them."""
    for key, _, val in parent.pairs():
        if val.is_scalar and _norm(key) in _CLIENT:
            return True
        if val.is_map and val is not holder and any(_norm(k) in _CLIENT for k, _, v in val.pairs() if v.is_scalar):
            return True
    return False


def _block(holder: YNode, path: tuple[str, ...], engine: str | None, named: bool,
           key: YNode | None = None, imaged: bool = False, parent: YNode | None = None) -> Block | None:
    found = model_key(holder) or _catalogue_name(holder, path)
    if found is None and (keyed := _keyed_model(holder, key)) is not None:
        if engine is not None and keyed[0] != engine:
            return None  # an entry naming another runtime (`runtimeName: ollama` beside vLLM's entries)
        found, engine, named = ((), keyed[1]), keyed[0], True
    if found is None or any(_norm(unprefixed(k)[1]) in _NOT_A_SERVER or _measured(k) for k, _, _ in holder.pairs()):
        return None
    keys, model = found
    first = keys[0] if keys else ""  # a keyed entry's model is its own key
    prefix = unprefixed(first)[0] if first else None  # `vllm_model`: the variables of a role that starts that engine
    # its settings under a map named for the engine (`hf_name: X` beside `vllm: {max_model_len: ...}`), or one that
    # names it (`model: {name: X}` beside `modelserver: {engine: vllm, tensor_parallel_size: 1}`, sample K302)
    child = next((e for k, _, v in holder.pairs() if v.is_map and (e := _engine_in(k) or _engine_child(k, v))),
                 None) if not named else None
    listed = flag_list(holder) if not (named or engine or prefix or child) else None  # its flags name the engine
    argued = _args_named(holder) if not (named or engine or prefix or child or listed) else None
    named = named or prefix is not None or child is not None or listed is not None or argued is not None
    chosen = engine or prefix or child or (listed[1] if listed else None) or argued or _engine_by_keys(holder)
    pairs = tuple(_flag_pairs(chosen, holder, first)) + _sibling_settings(parent, holder, chosen)
    block = Block(holder, path, keys, model, pairs, chosen, named, _listed_flags(holder) if named or engine else 0)
    return block if (block.score >= 1 or imaged) and (named or engine is not None) else None


def _args_named(holder: YNode) -> str | None:
    """The engine the key of the holder's argument list names, or its model map's (`model: {uri: M, vllmArgs:
    "--max-model-len 8192 ..."}`, sample K420's values of a chart kvlint has no adapter for)."""
    inner = _model_map(holder)
    for key, _, val in (*holder.pairs(), *(inner.pairs() if inner is not None else ())):
        if arg_list_key(key) and not key.isupper() and (val.is_seq or val.is_scalar and val.text.startswith("--")) \
                and (engine := _engine_in(key)) is not None:  # `VLLM_ARGS:` is an environment, its reader's
            return engine
    return None


def _sibling_settings(parent: YNode | None, holder: YNode, engine: str) -> tuple[_Pair, ...]:
    """The flag keys of a map beside the model's, under the engine's name (`server: {image: ..., model: M}` beside
    `vllm: {max-model-len: 262144, ...}`, sample K306's recipe that a script turns into one container): the model's
    engine settings, one level up."""
    if parent is None or parent is holder or not parent.is_map:
        return ()
    for key, _, val in parent.pairs():
        if val is not holder and val.is_map and _engine_in(key) == engine and model_key(val) is None:
            return tuple(_settings_map(engine, val))
    return ()


def _engine_child(key: str, child: YNode) -> str | None:
    """The engine a settings map beside the model names by its own `engine:` value, when the map also holds the
    engine's command-line arguments (`vllm_args: [--max-model-len=49000, ...]`): a server's. A map of settings alone
    (`serving: {framework: sglang, tp: 8}`) is a benchmark's bookkeeping as often (sample K88, counted 0)."""
    if key in _NOT_SETTINGS or model_key(child) is not None:
        return None
    engine = _engine_value(child)
    return engine if engine is not None and _listed_flags(child) else None


_MODEL_ID_KEY = lazy(r"[A-Za-z0-9][\w.-]*/[\w.-]+(?:/[\w.-]+)*")


def _keyed_model(holder: YNode, key: YNode | None) -> tuple[str, YNode] | None:
    """(engine, key node) for an entry whose key is the model id and whose own keys name the engine that serves it
    (LLMariner's `overrides: {org/model: {runtimeName: vllm, vllmExtraFlags: [...]}}`, sample K104): a map of
    models to their serving settings, one deployment each."""
    if key is None or not key.is_scalar or not _MODEL_ID_KEY.fullmatch(key.text) or "." in key.text.split("/")[0]:
        return None  # `nvidia.com/gpu`, `app.kubernetes.io/name`: a domain before the slash is a label's key
    engine = _engine_value(holder) or next((e for k, _, v in holder.pairs() if v.is_seq and arg_list_key(k)
                                            and (e := _engine_in(k))), None)
    return (engine, key) if engine is not None else None


# the keys a catalogue of models is held under (`models: [{name: X, vllm: {...}}]`)
_CATALOGUE = frozenset({"models", "modellist", "modelcatalog", "modelcatalogue", "llms", "servedmodels"})


def _catalogue_name(holder: YNode, path: tuple[str, ...]) -> tuple[tuple[str, ...], YNode] | None:
    """An entry of a list of models (`models: - name: Qwen3.5-9B-AWQ`, its settings under `vllm:`) names its model
    by `name:`: a catalogue a chart turns into one deployment per entry. Only inside such a list: elsewhere a
    `name:` names a release, a container or a service."""
    if not path or _norm(path[-1]) not in _CATALOGUE:  # asked of every map a walk meets: the cheap test first
        return None
    name = _catalogue_source(holder) or holder.get("name")
    if name is None or not name.is_scalar or not name.text:
        return None
    # its engine settings under a map named for the engine (`vllm:`, `sglangConfig:`), or its own argument list
    # (sample K131: `models: [{name: gpt-oss-20b, uri: oci://..., extraArgs: [--max-model-len=131072]}]`): a
    # catalogue of what a chart can deploy (KAITO's supported models: `runtime:`, `tag:`, versions) holds neither
    engine_map = any(v.is_map and _engine_in(k) for k, _, v in holder.pairs())
    key = next((k for k, _, v in holder.pairs() if v is name), "name")
    return ((key,), name) if engine_map or _listed_flags(holder) else None


_SOURCES = ("source", "src", "from")  # an entry's model source beside its served name (`name: qwen-small`)


def _catalogue_source(holder: YNode) -> YNode | None:
    """A catalogue entry's model given as its source (`name: qwen2-5-0-5b, source: Qwen/Qwen2.5-0.5B-Instruct`,
    sample K176's kube-llmops stack): a Hub id or a hub URI there is the model, its `name` the one it is served as."""
    for key in _SOURCES:
        val = holder.get(key)
        if val is not None and val.is_scalar and _MODEL_SOURCE.fullmatch(val.text):
            return val
    return None


_MODEL_SOURCE = lazy(r"(?:hf://|huggingface://)?[A-Za-z0-9][\w.-]*/[\w.-]+")


def _flag_pairs(engine: str, holder: YNode, model: str) -> Iterator[_Pair]:
    """(key, key node, value, option) for the holder's flag keys, then those of its child maps that hold
    settings (`vllmConfig:`, `engineArgs:`); a child that names its own model is another block."""
    for key, knode, val in holder.pairs():
        limits.check()
        if key == model:
            if val.is_map:  # `model: {name: X, maxModelLen: N}`: the model's own settings beside its name
                yield from (p for p in _settings_map(engine, val) if _norm(p[0]) not in _MODEL_PARTS)
            continue
        if val.is_map:
            if key not in _NOT_SETTINGS and model_key(val) is None:
                yield from _settings_map(engine, val)
            continue
        prefix, bare = unprefixed(key)
        key = bare if prefix == engine else key
        option = option_for_key(engine, key) if not val.is_map else None
        if option is not None and option not in ("--model", "--model-path"):
            yield key, knode, val, option


@lru_cache(maxsize=4096)
def unprefixed(key: str) -> tuple[str | None, str]:
    """(engine, rest) of a key prefixed with an engine's name and `_` or `-` (`vllm_max_model_len`,
    `sglang-model`), or in camelCase (`vllmModel`, `vllmMaxNumBatchedTokens`: sample K349's chart values, the rest
    then `Model`, `MaxNumBatchedTokens`), else (None, key)."""
    if len(key) < 6 or key[0] not in "vVsS":  # every map key of a chart is asked: the common answer first
        return None, key
    low = key.lower()
    for name in engine_names():
        if low.startswith(name) and len(low) > len(name) + 1:
            if low[len(name)] in "_-":
                return name, key[len(name) + 1 :]
            if key[len(name)].isupper() and key[len(name) + 1].islower() and key[: len(name)].islower():
                return name, key[len(name) :]
    return None, key


def _settings_map(engine: str, node: YNode) -> list[_Pair]:
    """A child map's flag keys, when at least one of them is spelled like a setting (`vllmConfig:`), not
    a map whose keys only happen to be flags too (`container: {port: 8000}`)."""
    flags: list[_Pair] = []
    for k, kn, v in node.pairs():
        option = option_for_key(engine, k) if not v.is_map else None
        if option is not None and option not in ("--model", "--model-path"):
            flags.append((k, kn, v, option))
    return flags if any(spelled_as_flag(k) for k, *_ in flags) else []


def keyed_engine(doc: YNode) -> str | None:
    """The engine whose flags the keys beside a model key are spelled like, when two or more are one engine's and
    none is only the other's (`gpu_memory_utilization` and `max_num_seqs`: vLLM's), in the first such map; None when
    no map says (one key is any program's, and a key both engines take decides nothing)."""
    stack, seen = [doc], 0
    while stack and seen < _MAX_NODES:
        node = stack.pop()
        seen += 1
        if node.is_seq:
            stack.extend(i for i in reversed(node.items) if not i.is_scalar)
            continue
        if not node.is_map:
            continue
        if model_key(node) is not None:
            keys = [k for k, _, v in node.pairs() if not v.is_map and spelled_as_flag(k)] + _engine_map_keys(node)
            own = {e: [k for k in keys if option_for_key(e, k)] for e in engine_names()}
            for engine, mine in own.items():
                others = [k for e, theirs in own.items() if e != engine for k in theirs]
                if len(mine) >= 2 and any(k not in others for k in mine) and all(k in mine for k in others):
                    return engine
            if (listed := _listed_engine(node)) is not None:
                return listed
        stack.extend(v for k, _, v in node.pairs() if not v.is_scalar and k not in _NOT_SETTINGS)
    return None


def _engine_map_keys(holder: YNode) -> list[str]:
    """The flag-spelled keys of the holder's map named for an engine's settings (`engine:`, `engine_args:`; turn 47's
    K480: `deployment: {model_id: M, engine: {tensor_parallel_size: 1, gpu_memory_utilization: 0.95, ...}}`), which
    the model's block reads as its own (`_flag_pairs`)."""
    return [k for key, _, val in holder.pairs() if val.is_map and _norm(key) in _ENGINE_MAPS
            for k, _, v in val.pairs() if not v.is_map and spelled_as_flag(k)]


_ENGINE_MAPS = frozenset({"engine", "engineargs", "enginekwargs", "engineconfig", "enginesettings", "engineoptions"})


def _listed_engine(holder: YNode) -> str | None:
    """The engine whose flags, all of them by its own tables, the argument list beside a model key holds (`model:
    {uri: ..., args: [--max-model-len=100000]}`, sample K276's values of a chart kvlint has no adapter for)."""
    for _, _, val in [(None, None, holder), *_with_model_map(holder)]:
        found = arg_list(val) if val.is_map else None
        engine = _engine_of_items(found) if found is not None and found.is_seq else None
        if engine is not None:
            return engine
    return None


def _args_engine(key: str, val: YNode) -> str | None:
    """The engine a map under vLLM's own name for its settings names (`engine_args:`, `engineArgs:`, `engine_kwargs:`:
    EngineArgs, the dataclass `vllm serve` fills; a Ray Serve application's `user_config: {engine_args: {model: ...,
    tensor_parallel_size: 1}}`, turn 37's K324): vLLM, unless its keys are only SGLang's."""
    return _engine_by_keys(val) if val.is_map and _norm(key) in _ENGINE_ARGS_KEYS else None


_ENGINE_ARGS_KEYS = frozenset({"engineargs", "enginekwargs", "asyncengineargs"})


def _engine_by_keys(holder: YNode) -> str:
    """SGLang when some flag key is SGLang's and not vLLM's (`contextLength`, `memFractionStatic`), else vLLM."""
    keys = [k for k, _, v in holder.pairs() if not v.is_map and spelled_as_flag(k)]
    only_sglang = any(option_for_key("sglang", k) and not option_for_key("vllm", k) for k in keys)
    only_vllm = any(option_for_key("vllm", k) and not option_for_key("sglang", k) for k in keys)
    return "sglang" if only_sglang and not only_vllm else "vllm"


@lru_cache(maxsize=4096)  # asked of every key the walk descends into
def _engine_in(text: str) -> str | None:
    """The engine a key or value names (`vllm:`, `engine: sglang`): a map's engine is the one its path's nearest
    such key names, else its own `engine:` / `backend:` value's."""
    low = text.lower()
    return next((w for w in engine_names() if w in low), None)


def _engine_value(holder: YNode) -> str | None:
    """The engine a map's own `engine:` / `backend:` value names (or `kind:` / `type:` that is the engine's name), or
    its `repository:` / `image:` when that is one of the engine's published images (`repository: vllm/vllm-openai`
    beside `tag:` in a model catalogue) or a build named for it."""
    for key, _, val in holder.pairs():
        low = _lower(key)
        if low not in _VALUE_KEYS or not val.is_scalar:  # asked of every map a walk meets: most keys are none
            continue
        if low in ("engine", "backend", "runtime", "framework", "runtimename", "enginename", "backendname"):
            word = _engine_in(val.text)
            if word:
                return word
        elif low in ("kind", "type"):
            if val.text.lower() in engine_names():
                return val.text.lower()  # a recipe's `kind: vllm` (not `kind: VllmRuntime`, an operator's object)
        elif _engine_in(val.text):  # `repository:` / `image:` naming an engine (a busybox asks no more)
            return image_engine(val.text)
    return None


# a role's engine (`rollout_backend: sglang`, `inferenceEngine: vllm`): its value must be the engine's name alone
_ROLE_ENGINE_KEY = lazy(r"[a-z0-9][_-]?(?:backend|engine)$")
_VALUE_KEYS = frozenset({"engine", "backend", "runtime", "framework", "kind", "type", "repository", "image",
                         "runtimename", "enginename", "backendname"})
_lower = lru_cache(maxsize=4096)(str.lower)


def image_engine(image: str) -> str | None:
    """The engine of one of its published images, or of a build named for it (`org/spark-vllm-b12x@sha256:...`)."""
    from kvlint.image_names import known_image
    from kvlint.launches.images import build_named_engine, shipped_engine

    return shipped_engine(image) if known_image(image) else build_named_engine(image)


@lru_cache(maxsize=4096)  # asked of every key of every map a walk meets; manifests repeat the same keys
def _norm(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()
