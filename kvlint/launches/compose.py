"""docker-compose services: image, entrypoint + command (string or list), GPU device reservations.

Compose interpolates `${VAR:-default}` from the caller's environment, which a linter cannot see, and
from a `.env` file beside the compose file, which it can: .env values are used, then defaults, and
other variables stay unresolved.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache

from kvlint import limits
from kvlint.deployment import Deployment
from kvlint.engines.registered import engine_names, facts
from kvlint.findings import Finding
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.env import Field, Supplied, expand_words, parse_dotenv, with_supplied
from kvlint.launches.images import (
    build_named_engine,
    default_model,
    entrypoint_engine,
    known_image,
    named_engine,
    older_default_launch,
    shipped_engine,
    stand_in,
    tag_named_engine,
)
from kvlint.launches.infer import engine_from_flags, inferred_note, named_image_wrapper, no_server_launch
from kvlint.launches.script import FoundLaunch, launch_in_argv
from kvlint.lazyre import lazy
from kvlint.record import field, record, replace
from kvlint.sources.shell import tokenize
from kvlint.sources.text import SourceError, read_file
from kvlint.sources.yaml import YamlFile, YNode
from kvlint.span import Span


def is_compose(doc: YNode) -> bool:
    services = doc.get("services") if doc.is_map else None
    if services is None:
        return _v1_services(doc)
    return services.is_map and "apiVersion" not in dict((k, 1) for k, _, _ in doc.pairs())


def _v1_services(doc: YNode) -> bool:
    """A compose file of format 1, or a service pasted alone into a document (turn 47's K497: a Markdown ```yaml block
    holding `vllm-glm5: {image: ..., devices: [...], command: > /data/GLM-5-FP8 --tensor-parallel-size 8}`): every
    top-level value is a service map, and one names its image (a scalar, not a chart's `image: {repository: ...}`)
    or build beside a key only a container service has (`command`, `ports`, `devices`, ...)."""
    if not doc.is_map or not doc.items or len(doc.items) > 64:
        return False
    values = []
    for _, _, v in doc.pairs():  # a manifest's `apiVersion: v1`, a chart's `replicaCount: 1`: no service map
        if not v.is_map:
            return False
        values.append(v)
    return any(((img := v.get("image")) is not None and img.is_scalar or v.get("build") is not None)
               and any(v.get(k) is not None for k in _SERVICE_KEYS) for v in values)


_SERVICE_KEYS = ("command", "entrypoint", "environment", "ports", "volumes", "devices", "container_name", "deploy",
                 "shm_size", "ipc", "network_mode", "restart")


_REF = lazy(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def read_compose(yf: YamlFile, doc: YNode) -> list[Deployment]:
    services = doc.get("services") if doc.is_map else None
    if services is None and _v1_services(doc):
        services = doc  # format 1: the services are the document's own keys
    if services is None:  # not a compose file: callers ask is_compose(doc) first
        return []
    out: list[Deployment] = []
    env, env_path = dotenv_beside(yf.path)
    pairs = [(name, svc) for name, _, svc in services.pairs() if svc.is_map]
    partial = any(svc.get("image") is None and svc.get("build") is None for _, svc in pairs)
    base = {**base_services(yf.path), **included_services(yf.path, doc)} if partial else {}
    roles: list[str] = []
    for name, svc in pairs:
        if name in base and svc.get("image") is None and svc.get("build") is None:
            svc = _merged(base[name], svc)
        found = _service(yf, name, svc, env, env_path, _profile_gpu(doc, name))
        out.extend(found)
        roles += [_node_role(name, svc)] * len(found)
    return _workers_folded(out, roles)


_WORKER_WORDS = frozenset({"worker", "workers", "follower", "slave"})
_LEADER_WORDS = frozenset({"head", "leader", "master", "primary"})


def _node_role(name: str, svc: YNode) -> str:
    """"worker" or "head" when the service says which node of a multi-node deployment it is: by its name's words
    (`vllm-worker`, `head`) or a role variable of its environment (`ROLE=worker`, `NODE_TYPE=head`); else ""."""
    words = set(re.split(r"[-_.\d]+", name.lower()))
    node = svc.get("environment")
    values = {v.lower() for k, _, v, _ in (_environment_items(node) if node is not None and not node.is_scalar
                                            else []) if "ROLE" in k.upper() or k.upper().endswith("NODE_TYPE")}
    said = words | values
    return "worker" if said & _WORKER_WORDS else "head" if said & _LEADER_WORDS else ""


def _workers_folded(deps: list[Deployment], roles: list[str]) -> list[Deployment]:
    """A worker service that runs the same engine, model and image as a head service of the file is that
    deployment's other node (sample K116: `head` and `worker` services of one vLLM cluster, each on its own
    machine, a profile each): one launch, the head, as a multi-node script's rank branches are."""
    heads = [k for k, r in enumerate(roles) if r == "head"]
    drop: set[int] = set()
    notes: dict[int, list[int]] = {}
    for k, dep in enumerate(deps):
        same = next((h for h in heads if roles[k] == "worker" and deps[h].engine == dep.engine
                     and deps[h].model == dep.model and deps[h].image == dep.image), None)
        if same is not None:
            drop.add(k)
            notes.setdefault(same, []).append(dep.launch_span.line if dep.launch_span else 0)
    return [replace(d, notes=d.notes + (f"the worker service(s) at line(s) {', '.join(map(str, notes[k]))} run the "
                                        "same engine, model and image: other nodes of this deployment, counted with "
                                        "it",)) if k in notes else d for k, d in enumerate(deps) if k not in drop]


_BASE_NAMES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")


def base_services(path: str) -> dict[str, YNode]:
    """The services of the compose file an override is merged onto (`docker compose -f docker-compose.yml -f
    THIS`, or the override file compose reads by itself): the base file beside this one, by compose's own names."""
    if path in ("", "-"):
        return {}
    return _base_services(os.path.dirname(os.path.abspath(path)), os.path.abspath(path))


def included_services(path: str, doc: YNode) -> dict[str, YNode]:
    """The services of the files a compose file's `include:` names (a path, or `{path: ...}` with one or a list),
    relative to it: a service written there again with only its command (sample K238's experiment file,
    `include: [../../infra/docker-compose.base.yml]`, then `services: {vllm: {command: [...]}}`) is that service
    with this file's keys over the included one's."""
    entries = doc.get("include")
    if path in ("", "-") or entries is None or not entries.is_seq:
        return {}
    folder = os.path.dirname(os.path.abspath(path))
    names: list[str] = []
    for item in entries.items[:_MAX_INCLUDES]:
        held = item.get("path") if item.is_map else item
        if held is not None and held.is_seq:
            names += [i.text for i in held.items if i.is_scalar]
        elif held is not None and held.is_scalar:
            names.append(held.text)
    found: dict[str, YNode] = {}
    for name in names[:_MAX_INCLUDES]:
        other = os.path.normpath(os.path.join(folder, name))
        if other != os.path.abspath(path) and os.path.isfile(other):
            found.update(_services_of(other))
    return found


_MAX_INCLUDES = 8  # included files read for one compose file


@lru_cache(maxsize=64)
def _services_of(path: str) -> dict[str, YNode]:
    from kvlint.sources.text import read_small
    from kvlint.sources.yaml import parse_yaml

    text = read_small(path, 512 * 1024)
    doc = next(iter(parse_yaml(path, text).docs), None) if text else None
    services = doc.get("services") if doc is not None and doc.is_map else None
    return {k: v for k, _, v in services.pairs() if v.is_map} if services is not None and services.is_map else {}


@lru_cache(maxsize=64)
def _base_services(folder: str, own: str) -> dict[str, YNode]:
    """Memoised per folder: each compose file of a folder with services that name no image asks for the same base
    (the walk reads them one after another)."""
    for name in _BASE_NAMES:
        other = os.path.join(folder, name)
        if own == other or not os.path.isfile(other):
            continue
        if services := _services_of(other):
            return services
    return {}


def _merged(base: YNode, svc: YNode) -> YNode:
    """An override's service over its base service, as compose merges them: the override's keys win, the base's
    others stay (its image, its GPUs), and the two `environment:` lists add up (the override's last)."""
    own = {k.text: (k, v) for k, v in svc.items if k.is_scalar}
    items: list[tuple[YNode, YNode]] = []
    for k, v in base.items:
        if not k.is_scalar or k.text in own:
            continue
        items.append((k, v))
    for key, (k, v) in own.items():
        b = base.get(key)
        if key == "environment" and b is not None and b.is_seq and v.is_seq:
            v = YNode("seq", v.span, v.start, v.end, items=b.items + v.items)
        items.append((k, v))
    return YNode("map", svc.span, svc.start, svc.end, items=tuple(items))


def dotenv_beside(path: str) -> tuple[dict[str, str], str]:
    """The `.env` compose reads from the compose file's folder: KEY=VALUE lines, `#` comments, quotes."""
    if path in ("", "-"):
        return {}, ""
    env_path = os.path.join(os.path.dirname(os.path.abspath(path)), ".env")
    try:
        text = read_file(env_path) if os.path.isfile(env_path) else ""
    except SourceError:
        return {}, ""
    return parse_dotenv(text), env_path


def _service(yf: YamlFile, name: str, svc: YNode, env: Mapping[str, str], env_path: str,
             profile: ManifestGpu | None = None) -> list[Deployment]:
    image = svc.get("image")
    image_text = image.text if image is not None and image.is_scalar else None
    nodes = (svc.get("entrypoint"), svc.get("command"))
    if svc.get("args") is not None and svc.get("entrypoint") is None:
        # a deployment language of compose's shape with Kubernetes' pair (Akash's SDL): `command` replaces the image's
        # entry point, `args` its arguments (sample K150: `command: [bash, -c]`, `args: [python3 -m sglang...]`)
        nodes = (svc.get("command"), svc.get("args"))
    interpolate = with_supplied(env)  # .env beside the file, then configured variables
    fields = _argv(yf, nodes[0], interpolate) + _argv(yf, nodes[1], interpolate)
    mode = nodes[0] is None and _image_mode(fields, image_text)
    if mode:
        fields = []  # `command: serve` to the image's own entry point: configured by the environment, as with none
    bare = no_server_launch(fields, Field(image_text, image.span), _environment(svc, env)) \
        if image is not None and image_text and nodes[0] is None else None
    copied = _script_host(yf.path, svc, fields) is not None or _program_path(_script_run(fields))
    found, inferred = (bare, ()) if bare is not None else \
        _launch(fields, image_text, own_entrypoint=nodes[0] is not None, env=_environment(svc, env),
                build=_build_named(svc) if image_text is None else None, by_name=not copied)
    if found is None and not fields:
        return (_env_configured(yf, name, svc, interpolate, image_text, mode) or _built(yf, name, svc, interpolate)
                or _env_configured_build(yf, name, svc, interpolate, image_text)
                or _engine_default_model(yf, name, svc, interpolate, image))
    if found is None and (meant := _cut_script(yf, nodes, fields, image_text, _environment(svc, env),
                                               interpolate)) is not None:
        found = meant
    if found is None:
        return (_mounted_script(yf, name, svc, fields, interpolate, image_text)
                or _unseen_script(yf, name, svc, fields, interpolate, image_text)
                or _built_with_command(yf, name, svc, nodes, fields, interpolate))
    used = sorted({v for n in nodes if n is not None for v in _REF.findall(_text_of(n)) if v in env})
    notes = inferred + tuple(f"${{{v}}} = {env[v]!r} from {os.path.basename(env_path)} beside the compose file"
                             for v in used)
    ctx = LaunchContext(name, image_text, image.span if image is not None else None, notes=notes)
    gpus = profile if profile is not None else _gpus(svc)
    dep = finish(yf.path, found, ctx, gpus)
    earlier = [finish(yf.path, e, ctx, gpus) for e in _started_before(fields, found, interpolate)]
    # the image's own entrypoint starts the engine: point at the command (one of the two is set, since
    # the launch came from their fields)
    shown = nodes[1] if nodes[1] is not None else nodes[0]
    if dep.launch_span is None and shown is not None:
        dep = replace(dep, launch_span=shown.span)
    if shown is not None and svc.span is not None and not svc.span.holds(shown.span):
        # the command is another service's, merged in (`<<: *vllm`): the launch is this service, where it is written
        note = f"service {name} runs the command merged from line {shown.span.line} (a YAML merge key)"
        dep = replace(dep, launch_span=Span(yf.path, svc.span.line, svc.span.col, svc.span.line, svc.span.col),
                      notes=(*dep.notes, note))
    return [*earlier, dep]


def _started_before(fields: list[Field], found: FoundLaunch, env: Mapping[str, str]) -> list[FoundLaunch]:
    """The servers a service's `sh -c` script starts before the one its command ends with (kvlint.launches.script
    string_launches), each a deployment of its own; none when the script's last launch is not the one read."""
    from kvlint.launches.script import string_launches

    launches = string_launches(fields, dict(env)) if len(fields) >= 3 else []
    if len(launches) < 2 or launches[-1].entry_span != found.entry_span:
        return []
    return launches[:-1]


def _image_mode(fields: list[Field], image: str | None) -> bool:
    """A word or a few that name no model and are no flags (`serve`, `ray-head`, `qwen38 mtp`), given to a build
    named for the engine whose entry point kvlint does not know (`dgx-vllm:latest`, sample K112; K204's
    `sglang-sxm2:latest` given `[qwen38, mtp]`): a mode of the image's own entry point script, which reads the model
    and flags from the environment; never the engine's positional model."""
    from kvlint.launches.infer import model_shaped

    words_ok = len(fields) == 1 or all(_MODE_WORD.fullmatch(f.text) and f.text not in _PROGRAMS for f in fields)
    return 1 <= len(fields) <= _MODE_WORDS and words_ok and all(f.resolved and not f.text.startswith("-")
                                                               and not model_shaped(f.text) for f in fields) \
        and image is not None and not known_image(image) and build_named_engine(image) is not None


_MODE_WORDS = 3
_MODE_WORD = lazy(r"[A-Za-z0-9_-]+")  # a mode's words are plain words: no path, file or expansion
_PROGRAMS = frozenset({"python", "python3", "bash", "sh", "node", "uvicorn", "gunicorn", "sleep", "tail", "exec",
                       "vllm", "sglang"})  # the first word of a command the container runs, never a mode


def _launch(fields: list[Field], image: str | None, own_entrypoint: bool, env: Mapping[str, str] | None = None,
            build: str | None = None, by_name: bool = True) -> tuple[FoundLaunch | None, tuple[str, ...]]:
    """The launch the service runs, and the note when its engine comes from the flags alone: `command:`
    without `entrypoint:` is the image's arguments, and an image kvlint does not know leaves the flags
    (the rule Kubernetes args-only containers follow) as the only sign of the engine. `env` is the container's
    `environment:`: a script it runs (`bash -c "... $${MODEL} ..."`) sees those variables. `by_name`: whether an
    image or build named for an engine may be taken for its entry point (not when the command runs a script the
    service mounts or its build copies in: that script is read instead)."""
    default = None if own_entrypoint else entrypoint_engine(image)
    found = launch_in_argv(fields, dict(env or {}), image_default=default) if fields else None
    guessed = engine_from_flags(fields) if found is None and not own_entrypoint and not known_image(image) \
        and not stand_in(image) and (image is not None or build is not None or _flag_first(fields)) else None
    if guessed is None and found is None and not own_entrypoint and fields and fields[0].text == "serve":
        # `command: [serve, --model, X, ...]` on an image whose entry point is the engine's CLI (a build named for
        # it, `ENTRYPOINT ["vllm"]`): the CLI's subcommand, then the engine's flags
        cli = named_engine(image)
        if cli is not None:
            note = f"engine {cli} assumed: `serve` and {cli}'s flags are given to {image} (entry point not known)"
            return launch_in_argv([Field(cli, fields[0].span), *fields], {}), (note,)
    if guessed is None and found is None and not own_entrypoint and fields and by_name and \
            (named := build_named_engine(image) or (named_engine(build) if build else None)):
        found = launch_in_argv(fields, {}, image_default=named)
        found = named_image_wrapper(found, image or build or named, fields[0].span) if found is not None else None
        note = f"engine {named} assumed from the name of {image or build}: its entry point is not known"
        return found, ((note,) if found is not None else ())
    if guessed is None:
        return found, ()
    return FoundLaunch(guessed, tuple(fields), None, {}), (inferred_note(guessed, "entrypoint"),)


def _flag_first(fields: list[Field]) -> bool:
    """A command that starts with a flag: an override file's service (its image in the base file beside it) given the
    engine's flags; one that starts with a word and has no image or build here says nothing of an engine."""
    return bool(fields) and fields[0].text.startswith("-")


def _text_of(node: YNode) -> str:
    return node.text if node.is_scalar else " ".join(i.text for i in node.items if i.is_scalar) if node.is_seq else ""


def _argv(yf: YamlFile, node: YNode | None, env: Mapping[str, str]) -> list[Field]:
    """A string is split by shell rules (compose's own rule for a string command); a list is exec form:
    each item is one argument with its exact text (quotes are content), only interpolated."""
    if node is None:
        return []
    if node.is_seq:
        return [_exec_word(yf, i, env) for i in node.elements if i.is_scalar]
    if not node.is_scalar:
        return []
    m = yf.mapped(node)
    if "$$" in m.text:  # compose interpolates before it splits: `$$` is the `$` a `bash -c` script's shell expands
        text, offsets = _placed(m.text, env)
        m = m.view(m.path, text, offsets)
    cmds, _ = tokenize(m)
    return [f for c in _as_compose_splits(cmds) for f in expand_words(c.words, m, env)]


# what ends a string command for compose: its splitter (compose-go's ShellCommand, mattn/go-shellwords' Parse) stops
# at the first unquoted `;`, `&` or `|` and drops the rest; a newline is a space to it
_CUTS = frozenset({";", "&", "&&", "||", "|"})


def _as_compose_splits(cmds: list) -> list:
    """The commands whose words compose keeps of a string `command:`: up to the first that an operator ends."""
    kept = []
    for c in cmds:
        kept.append(c)
        if c.sep in _CUTS:
            break
    return kept


def _cut_at(yf: YamlFile, node: YNode | None) -> tuple[Span, str] | None:
    """(where, the operator) when compose cuts a string `command:` at an operator and drops what follows; (the
    second word, "") when there is no operator but the string is several words (sample K211: `command: >- vllm serve
    "$${MODEL_ID}" ...` under `entrypoint: ["/bin/sh", "-lc"]`): compose hands them to the shell as separate words,
    and `sh -c` runs only the first as its script."""
    if node is None or not node.is_scalar:
        return None
    m = yf.mapped(node)
    cmds, _ = tokenize(m)
    kept = _as_compose_splits(cmds)
    last = kept[-1] if kept else None
    if last is not None and len(cmds) == 1 and last.sep not in _CUTS and len(last.words) > 1:
        second = last.words[1]
        return m.span(second.start, second.end), ""
    if last is None or last.sep not in _CUTS or len(kept) == len(cmds) or not last.words:
        return None
    at = m.text.find(last.sep, last.words[-1].end)
    return (m.span(at, at + len(last.sep)), last.sep) if at >= 0 else None


def _exec_word(yf: YamlFile, item: YNode, env: Mapping[str, str]) -> Field:
    """One exec-form argument. One that holds a script (`[bash, -c, |\n  set -e\n  exec vllm serve ...]`) keeps
    each character's place in the file, so what `sh -c` runs is reported at its own line, not at the item's."""
    text, missing, origin = interpolate(item.text, env)
    lines = "\n" in text or (item.span is not None and item.span.end_line > item.span.line)  # `>-` folds them
    if text == item.text and lines:
        return Field(text, item.span, not missing, missing, tuple(range(len(text))), yf.mapped(item), origin=origin)
    placed = _placed(item.text, env) if lines and "$" in item.text else None
    if placed is not None and placed[0] == text:  # each character at its place, through `$$` and expansions
        return Field(text, item.span, not missing, missing, placed[1], yf.mapped(item), origin=origin)
    return Field(text, item.span, not missing, missing, origin=origin)


def _placed(raw: str, env: Mapping[str, str]) -> tuple[str, tuple[int, ...]]:
    """The text compose hands over for a script and, per character, its index in `raw`: `$$` is the `$` the
    container's shell sees; an expansion's value sits where it is written in the expression (a default's own
    text, `${MODEL:-org/m}`), else at its `$`. So every word of a folded script keeps its line."""
    out: list[str] = []
    at: list[int] = []
    k = 0
    while k < len(raw):
        if raw[k] != "$":
            stop = raw.find("$", k)
            stop = len(raw) if stop < 0 else stop
            out.append(raw[k:stop])  # the text up to the next `$`, each character at its own place
            at.extend(range(k, stop))
            k = stop
            continue
        value, after = _reference(raw, k, env, _Seen(), 0)
        inside = raw.find(value, k, after) if value else -1
        out.append(value)
        at.extend(range(inside, inside + len(value)) if inside >= 0 else [k] * len(value))
        k = after
    return "".join(out), tuple(at)


_NAME = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_OPS = (":-", ":?", ":+", "-", "?", "+")  # longest first: `${A:-x}` is a default, not `${A:` + `-x}`


@record(frozen=False)
class _Seen:
    """What an interpolation left unresolved and where its values came from."""

    missing: list[str] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)


def interpolate(text: str, env: Mapping[str, str]) -> tuple[str, tuple[str, ...], str]:
    """Compose's interpolation of one value: `$$`, `$VAR`, `${VAR}`, `${VAR:-default}` (and `-`, `:+`, `+`,
    `:?`, `?`; a default may hold references). No quote removal and no splitting: that is the shell's,
    and compose runs none for a list. Returns (text, expressions left as written, origin): a variable not
    known here counts as unset, so a default applies and a bare reference stays unresolved."""
    seen = _Seen()
    out, _ = _scan(text, 0, env, seen, inner=False, depth=0)
    origin = "default-expansion" if "default-expansion" in seen.origins else next(iter(seen.origins), "")
    return out, tuple(seen.missing), origin


_MAX_DEPTH = 32  # defaults inside defaults; real files nest two or three


def _scan(text: str, i: int, env: Mapping[str, str], seen: _Seen, inner: bool, depth: int) -> tuple[str, int]:
    """Interpolated text from `i` to the end or, `inner`, to the `}` that closes a default."""
    out: list[str] = []
    stops = "$}" if inner else "$"
    while i < len(text):
        limits.check()
        j = min((k for k in (text.find(c, i) for c in stops) if k >= 0), default=len(text))
        out.append(text[i:j])
        if j >= len(text) or text[j] == "}":
            return "".join(out), j
        value, i = _reference(text, j, env, seen, depth)
        out.append(value)
    return "".join(out), i


def _reference(text: str, i: int, env: Mapping[str, str], seen: _Seen, depth: int) -> tuple[str, int]:
    """The value of the `$` expression at `i` and the index after it; a `$` that starts none is literal."""
    if text.startswith("$$", i):
        return "$", i + 2
    braced = text.startswith("${", i)
    m = _NAME.match(text, i + 2 if braced else i + 1)
    if m is None:
        return "$", i + 1
    name, p = m.group(0), m.end()
    if not braced:
        return _lookup(name, text[i:p], env, seen), p
    op = next((o for o in _OPS if text.startswith(o, p)), "")
    if op and depth >= _MAX_DEPTH:  # nested past any real file: kept as text, unresolved
        return _unresolved(text[i:], seen), len(text)
    inner = _Seen()
    word, q = _scan(text, p + len(op), env, inner, inner=True, depth=depth + 1) if op else ("", p)
    if q >= len(text) or text[q] != "}":
        # no `}` closes it, so none closes what follows either: compose refuses the value and kvlint keeps the
        # rest as text (rescanning from i + 1 made `${A:-${B:-...` quadratic, and worse with each level)
        return text[i:], len(text)
    return _apply(name, op, (word, inner), text[i : q + 1], env, seen), q + 1


def _apply(name: str, op: str, word: tuple[str, _Seen], raw: str, env: Mapping[str, str], seen: _Seen) -> str:
    """`${name<op>word}` as compose evaluates it; `raw` (the expression) when the value is not known."""
    val, (text, inner) = env.get(name), word
    use_default = op == ":-" and not val or op == "-" and val is None
    use_alt = op == ":+" and bool(val) or op == "+" and val is not None
    if use_default or use_alt:
        if inner.missing or (use_default and val is None and not text):  # `${X-}`: the environment supplies X
            return _unresolved(raw, seen)
        seen.origins.extend((["default-expansion"] if use_default else []) + inner.origins)
        return text
    if op in (":+", "+"):
        return ""
    if op == ":?" and not val:
        return _unresolved(raw, seen)
    return _lookup(name, raw, env, seen)


def _lookup(name: str, raw: str, env: Mapping[str, str], seen: _Seen) -> str:
    val = env.get(name)
    if val is None:
        return _unresolved(raw, seen)
    limits.spend(len(val))
    seen.origins.append(val.origin if isinstance(val, Supplied) else "variable")
    return val


def invalid_interpolations(yf: YamlFile, doc: YNode) -> list[Finding]:
    """KV001 at each `${...}` of a service's values that compose cannot interpolate (`${Quantum Documents_ARGS}`: a
    name is letters, digits and `_`, then `}` or an operator): `docker compose` refuses the whole file ("invalid
    interpolation format"), so nothing in it starts. `$${` is an escaped `$`, not a reference."""
    from kvlint.findings import Severity

    if "${" not in yf.text or _BAD_REFERENCE.search(yf.text) is None:  # one scan of the text, mostly all it costs
        return []
    services = doc.get("services")
    out: list[Finding] = []
    stack = [services] if services is not None and services.is_map else []
    seen = 0
    while stack and seen < 5000 and len(out) < 5:
        node = stack.pop()
        seen += 1
        if not node.is_scalar:
            stack.extend(v for _, v in node.items) if node.is_map else stack.extend(node.items)
            continue
        at = _bad_reference(node.text)
        if at is None:
            continue
        end = node.text.find("}", at)
        written = node.text[at : end + 1 if end > at else at + 2]
        message = (f"compose cannot interpolate {written}: a variable's name is letters, digits and `_`, followed by "
                   "`}` or an operator (`:-`, `-`, `:?`, `?`, `:+`, `+`); `docker compose` refuses the file "
                   "(invalid interpolation format), so no service of it starts")
        fix = "name the variable with letters, digits and `_` only, or write `$${` for a literal `${`"
        out.append(Finding("KV001", "unreadable-input", Severity.ERROR, message, yf.mapped(node).span(at, at + 2),
                           fix=fix, path=yf.path))
    first = min(out, key=lambda f: (f.span.line, f.span.col) if f.span else (0, 0), default=None)
    return [first] if first is not None else []  # compose stops at the first: one finding says the file is refused


# a `${` compose cannot read, possibly escaped (`$${`): the walk below tells (this only says whether to walk)
_BAD_REFERENCE = lazy(r"\$\{(?![A-Za-z_][A-Za-z0-9_]*(?:\}|:?[-?+]))")


def _bad_reference(text: str) -> int | None:
    """Where the first `${` compose cannot read starts in `text`, or None."""
    i = text.find("$")
    while 0 <= i < len(text) - 1:
        if text.startswith("$$", i):
            i = text.find("$", i + 2)
            continue
        if text[i + 1] == "{":
            m = _NAME.match(text, i + 2)
            if m is None or not text.startswith(("}", *_OPS), m.end()):
                return i
        i = text.find("$", i + 1)
    return None


def _unresolved(raw: str, seen: _Seen) -> str:
    seen.missing.append(raw)
    return raw


_SHELLS = ("sh", "bash", "dash", "ash", "zsh")
_SHELL_C = lazy(r"-[a-z]*c[a-z]*")  # `-c`, `-lc`, `-ec`: the shell's script is its next word
_PYTHON = lazy(r"python(?:3(?:\.\d+)?)?")  # a mounted program run by the interpreter (`python3 /opt/app/entry.py`)


def _cut_script(yf: YamlFile, nodes: tuple[YNode | None, YNode | None], fields: list[Field], image: str | None,
                env: Mapping[str, str], values: Mapping[str, str] | None = None) -> FoundLaunch | None:
    """`entrypoint: ["/bin/sh", "-c"]` with a string `command: > python patch.py && python -m vllm... --model M`
    (sample K135): compose cuts the string at its `&&`, so the shell runs `python` alone and the engine command never
    starts; with no entry point of the service's own, the words kept go to the image's. The launch as meant (the
    whole string as the shell's script), marked with where compose cuts it (KV017)."""
    cut = _cut_at(yf, nodes[1])
    entry = fields[:2]
    if cut is not None and cut[1] and nodes[0] is None and nodes[1] is not None:
        # no entry point of the service's own (sample K320: `command: cd / && export X=40 && python3 -m vllm...`):
        # what compose keeps goes to the image's, the engine command after the operator nowhere; read as meant
        entry = [Field("sh", nodes[1].span), Field("-c", nodes[1].span)]
    elif cut is None or nodes[1] is None or len(entry) < 2 or not _SHELL_C.fullmatch(entry[1].text) or \
            entry[0].text.rsplit("/", 1)[-1] not in _SHELLS:
        return None
    m = yf.mapped(nodes[1])
    text, offsets = _placed(m.text, values or {})  # `$$` is the `$` the shell sees, each character at its place
    script = Field(text, nodes[1].span, True, (), offsets, m)
    found, _ = _launch([*entry, script], image, own_entrypoint=True, env=env)
    return replace(found, compose_cut=cut) if found is not None else None


def _mounted_script(yf: YamlFile, name: str, svc: YNode, fields: list[Field], env: Mapping[str, str],
                    image: str | None) -> list[Deployment]:
    """A service whose command runs a script it mounts from the repository (`volumes: ./serve.sh:/serve.sh`,
    `command: ["/serve.sh"]` or `bash -c /serve.sh`): the launch is read in that file, in this service's
    context (its image, GPUs, `environment:` and .env). Each value keeps its place in the script; a script
    that is not in the checkout stays a place kvlint names (KV008), never a guess."""
    target = _script_run(fields)
    host = _script_host(yf.path, svc, fields)
    if host is None or target is None:
        return []  # a mounted Python program in the tree is read on its own (kvlint.launches.pyfile)
    from kvlint.launches.script import run_script
    from kvlint.sources.text import Mapped

    try:
        text = read_file(host)
    except SourceError:
        return []
    variables = {**dict(env), **_environment(svc, env)}
    at = next((k for k, f in enumerate(fields) if f.text == target), None)
    # the words after the script are its "$@" (`entrypoint: [bash, /scripts/start.sh]` with `command: [MODEL,
    # --flags]`, sample K173); $0 is the script itself
    positional = (fields[at], *fields[at + 1 :]) if at is not None and at + 1 < len(fields) else None
    if at is None:  # `bash -c "/app/run.sh --worker"`: the string's words after the script (sample K254)
        at, positional = _string_positional(fields, target)
    launches, _, notes = run_script(Mapped.whole(host, text.replace("\r\n", "\n")), variables,
                                    positional=positional, taken_only=positional is not None)
    how = "mounted from" if _mounted_host(yf.path, svc, target) is not None else "which the build copies in from"
    note = f"the command runs {target}, {how} {os.path.relpath(host, os.path.dirname(yf.path) or '.')}"
    ctx = LaunchContext(name, image or _build_base(svc), notes=(note, *notes))
    runs = fields[at].span if at is not None else None  # the service's word that runs the script: the launch's place
    return [_placed_here(finish(yf.path, f, ctx, _gpus(svc)), runs) for f in launches]


def _string_positional(fields: list[Field], target: str) -> tuple[int | None, tuple[Field, ...] | None]:
    """(index of the word, the script and its arguments) when one word of the command is a shell string that runs
    the script with plain arguments (`bash -c "/app/run.sh --head --port=6379"`); (None, None) otherwise or when the
    string holds more than a simple command."""
    for k, f in enumerate(fields):
        words = f.text.split()
        if len(words) > 1 and words[0] == target and not any(c in f.text for c in ";&|$`<>()\"'\\"):
            return k, tuple(Field(w, f.span) for w in words)
    return None, None


def _placed_here(dep: Deployment, runs: Span | None) -> Deployment:
    """A launch read in the script a service runs is placed at the service's command that runs it (the file the
    reader checks and cites: samples K254, K256), as a container run is at its `docker run`; each value keeps its place
    in the script."""
    at = dep.launch_span
    return replace(dep, launch_span=runs) if runs is not None and at is not None and at.path != runs.path else dep


def _built_with_command(yf: YamlFile, name: str, svc: YNode, nodes: tuple[YNode | None, YNode | None],
                        fields: list[Field], env: Mapping[str, str]) -> list[Deployment]:
    """A service that builds the repository's Dockerfile and gives it a `command:` (no `entrypoint:`): the command
    is the arguments of the built image's ENTRYPOINT (`ENTRYPOINT ["vllm", "serve"]`, or the engine image it builds
    on), so the launch is that entry point with them; the command's values are at their places here."""
    from kvlint.launches.dockerfile import entrypoint
    from kvlint.sources.text import read_small

    build = svc.get("build")
    if build is None or nodes[0] is not None or nodes[1] is None or svc.get("image") is not None:
        return []
    context, dockerfile = build_files(build)
    host = os.path.normpath(os.path.join(os.path.dirname(yf.path), context, dockerfile))
    text = read_small(host, 256 * 1024) if "${" not in host else None
    if text is None:
        return []
    run_env = _environment(svc, env)
    words, base, _ = entrypoint(host, text, run_env)
    found = launch_in_argv(words + fields, dict(run_env),
                           image_default=None if words else entrypoint_engine(base))
    if found is None:
        return []
    built = os.path.relpath(host, os.path.dirname(yf.path) or ".")
    note = f"the service builds {built}: its command is that image's arguments"
    dep = finish(yf.path, found, LaunchContext(name, base, notes=(note,)), _gpus(svc))
    at = dep.launch_span
    return [replace(dep, launch_span=nodes[1].span if at is None or at.path != yf.path else at)]


def _env_named(svc: YNode) -> str | None:
    """The engine a GPU service's environment names by its own variables (`VLLM_MODEL` and `VLLM_TENSOR_PARALLEL_SIZE`
    for a build's start script, sample K524's MI50 service): kvlint.launches.env_launch.prefixed_engine."""
    from kvlint.launches import env_launch

    environment = svc.get("environment")
    if environment is None or environment.is_scalar or not _requests_gpu(svc):
        return None
    return env_launch.prefixed_engine(key for key, _, _, _ in _environment_items(environment))


def _unseen_script(yf: YamlFile, name: str, svc: YNode, fields: list[Field], env: Mapping[str, str],
                   image: str | None) -> list[Deployment]:
    """A service of an engine image whose command runs a script it mounts from the repository, when that script is
    not in the tree being checked (left out, or not checked in): the service is still the engine's deployment (its
    image, its GPUs and its environment are here), so it is a launch, configured as a build that is not read is
    (the engine's own prefixed variables: `VLLM_MODEL`, `VLLM_MAX_MODEL_LEN`), with the model unresolved when no
    variable gives it, and TP, PP and DP left to the script. A build named for the engine on GPUs is the engine's
    too (`eugr/spark-vllm-b12x:nightly`, sample K263). An image that does not ship the engine stays a place named
    (KV008: kvlint.launches.compose.missing_scripts)."""
    from kvlint.launches import env_launch
    from kvlint.launches.images import shipped_engine

    target = _script_run(fields)
    mount = _mount_of(svc, target, host_paths=True) if target else None
    tag = interpolate(image, env)[0] if image else None
    engine = shipped_engine(tag) if known_image(tag) else \
        (_variable_named(image) or build_named_engine(tag)) if _requests_gpu(svc) else None
    if mount is None and svc.get("build") is not None and _program_path(target) \
            and _script_host(yf.path, svc, fields) is None:
        # a program the service's own build puts in the image (`COPY start.sh /app/`), its Dockerfile or the script
        # not in the tree: an image or build named for the engine runs it (sample K189's `/usr/local/bin/start-vllm`)
        mount = ("", fields[0].span)
        engine = engine or build_named_engine(tag) or named_engine(_build_named(svc)) or _env_named(svc)
    if target is None or mount is None or engine is None or (mount[0] and not mount[0].startswith("/")
                                                             and os.path.exists(os.path.join(os.path.dirname(yf.path),
                                                                                             mount[0]))):
        return []
    where = mount[1] or fields[0].span
    unseen = f"mounted from {mount[0]}" if mount[0] else "which the image's build puts in"
    handed = _handed_args(fields, target, engine)
    if handed:
        note = (f"the command runs {target}, {unseen}, which is not in the tree being checked; its "
                f"arguments are {engine}'s by the flag tables, read as a wrapper that hands them to the engine")
        model = _env_model(svc, env, engine, tag) if not any(f.text.startswith("--model") for f in handed) else []
        note += f"; the model from the service's environment ({model[1].text})" if model else ""
        dep = finish(yf.path, FoundLaunch(engine, tuple(model + handed), None, {}),
                     LaunchContext(name, image, notes=(note,)), _gpus(svc))
        return [replace(dep, launch_span=dep.launch_span or fields[0].span or where)]
    given = env_launch.fields_from_env(engine, _env_fields(svc.get("environment"), env, engine), tag)
    named = svc.get("image")  # no model here: the launch is the service, where its image names the engine
    where = named.span if named is not None and named.is_scalar and named.span is not None else where
    chosen = f"(the model the script {target} chooses)"
    unset = [Field("--model", where), Field(chosen, where, False, (chosen,))]
    note = (f"the command runs {target}, {unseen}, which is not in the tree being checked: the model "
            "and the flags are that script's (read here from the service's environment only)")
    ctx = LaunchContext(name, image, notes=(note,))
    found = FoundLaunch(engine, tuple(given or unset), None, {}, left_to=f"the script {target}",
                        runtime_vars=(("MODEL", f"by {target}, not in the tree"),))
    dep = finish(yf.path, found, ctx, _gpus(svc))
    return [replace(dep, launch_span=dep.launch_span or fields[0].span or where)]


def _variable_named(image: str | None) -> str | None:
    """The engine an image left to one variable is named for (`image: ${VLLM_IMAGE}`, sample K116: the deployment
    sets the engine build it runs), or None."""
    m = _ONE_VARIABLE.fullmatch(image.strip()) if image else None
    return next((e for e in engine_names() if m is not None and m.group(1).upper().startswith(e.upper() + "_")), None)



def _env_model(svc: YNode, env: Mapping[str, str], engine: str, tag: str | None) -> list[Field]:
    """The model flag and value a service's environment names in a model variable (`HF_MODEL_ID: M`), for a script
    not in the tree that is handed the engine's other flags: the script reads its model there."""
    from kvlint.launches import env_launch

    given = env_launch.fields_from_env(engine, _env_fields(svc.get("environment"), env, engine), tag) or []
    return given[:2] if len(given) >= 2 and given[0].text.startswith("--model") else []


def _built(yf: YamlFile, name: str, svc: YNode, env: Mapping[str, str]) -> list[Deployment]:
    """A service with no image command that builds the repository's Dockerfile (`build: {context: ., dockerfile:
    Dockerfile.vllm}`): the image's own launch (its CMD), run with this service's `environment:` over the file's
    ENV and with this service's GPUs, placed at `build:`. A Dockerfile not in the tree gives nothing."""
    from kvlint.launches.dockerfile import read_dockerfile
    from kvlint.sources.text import read_small

    build = svc.get("build")
    if build is None:
        return []
    context, dockerfile = build_files(build)
    said = ""
    if "${" in context + dockerfile:  # `build: ./vllm/${MODEL_DIR}`: the one folder of the tree it can be, if one
        fits = _fitting_builds(yf.path, context, dockerfile)
        if len(fits) != 1:
            return []
        context, dockerfile = fits[0]
        written = _text_of(build) if build.is_scalar else "its context"
        said = f" ({written} is set elsewhere: the one build here it fits)"
    host = os.path.normpath(os.path.join(os.path.dirname(yf.path), context, dockerfile))
    text = read_small(host, 256 * 1024)
    if text is None:
        return []
    note = f"the service builds {os.path.relpath(host, os.path.dirname(yf.path) or '.')}{said}: its CMD is the launch"
    out = []
    deps = read_dockerfile(host, text, run_env=_environment(svc, env))
    if not deps and _requests_gpu(svc):
        return _engine_base_on_gpus(yf, name, svc, host, text, build, env)
    for dep in deps:
        gpu = _gpus(svc)
        out.append(replace(dep, path=yf.path, name=name, launch_span=build.span, notes=dep.notes + (note,),
                           gpu_count=gpu.count or dep.gpu_count, gpu_count_span=gpu.count_span or dep.gpu_count_span))
    return out


def _unread_model_variable(svc: YNode, env: Mapping[str, str], image: YNode | None
                           ) -> tuple[str, str, str, Span, str] | None:
    """(engine, its default model, variable, where its value is, value) for a service of the engine's own image
    (its entry point the engine's CLI) given no command and no entrypoint, whose `environment:` names a model in a
    variable no engine code reads (`MODEL_NAME=...`): the server starts with its default model (KV011)."""
    from kvlint.launches.env_launch import MODEL_VARS, base_name

    node = svc.get("environment")
    served = _bare_engine_image(svc, image) if node is not None else None
    if served is None or node is None:
        return None
    engine, default = served
    for key, _, value, value_span in _environment_items(node):
        resolved, missing, _ = interpolate(value, env)
        if base_name(key.upper())[0] in MODEL_VARS and resolved and not missing and resolved != default:
            return engine, default, key, value_span, resolved
    return None


def _bare_engine_image(svc: YNode, image: YNode | None) -> tuple[str, str] | None:
    """(engine, its default model) for a service of the engine's own image given no command and no entrypoint:
    the container still starts the server, on the model the engine defaults to on that release (counting rule 1:
    a container of an engine image is a launch; the collector of K61 counted one)."""
    if image is None or not image.is_scalar or svc.get("command") is not None or svc.get("entrypoint") is not None:
        return None
    return default_model(image.text)


def _engine_default_model(yf: YamlFile, name: str, svc: YNode, env: Mapping[str, str],
                          image: YNode | None) -> list[Deployment]:
    """The launch KV011 speaks of: the engine's image run with no model argument serves the engine's default model
    (the variable the file names it in is never read), placed at the image."""
    found = _unread_model_variable(svc, env, image)
    bare = _bare_engine_image(svc, image) if found is None else None
    if image is not None and found is None and bare is None and image.is_scalar and svc.get("command") is None \
            and svc.get("entrypoint") is None and (older := older_default_launch(image.text, image.span)):
        ctx = LaunchContext(name, image.text, image.span, notes=(older[2],))
        return [finish(yf.path, FoundLaunch(older[0], older[1], image.span, {}), ctx, _gpus(svc))]
    if image is None or (found is None and bare is None):
        return []
    engine, default = found[:2] if found is not None else bare or ("", "")
    fields = (Field("--model", image.span), Field(default, image.span))
    title = facts(engine).TITLE
    note = f"{image.text} runs {title}'s CLI with no model argument: {title} serves its default {default}"
    note += f"; {found[2]}={found[4]} in environment: is read by no {title} code" if found is not None else \
        " (the service gives no command and no entrypoint)"
    ctx = LaunchContext(name, image.text, image.span, notes=(note,))
    return [finish(yf.path, FoundLaunch(engine, fields, image.span, {}), ctx, _gpus(svc))]


def unread_model_variables(yf: YamlFile, doc: YNode) -> list[Finding]:
    """KV011 at each service's model variable that its engine image never reads (kvlint.launches.compose
    ._unread_model_variable)."""
    from kvlint.findings import Severity

    services = doc.get("services")
    env: Mapping[str, str] | None = None
    out: list[Finding] = []
    for name, _, svc in services.pairs() if services is not None and services.is_map else ():
        if not svc.is_map or svc.get("environment") is None or svc.get("command") is not None:
            continue  # most services: the cheap tests first, the .env beside the file read once when needed
        env = env if env is not None else with_supplied(dotenv_beside(yf.path)[0])
        found = _unread_model_variable(svc, env, svc.get("image"))
        if found is None:
            continue
        engine, default, key, at, value = found
        title = facts(engine).TITLE
        message = (f"service {name} runs {title}'s own image with no model argument, so {title} serves its default "
                   f"model {default}; {key}={value} is read by no {title} code")
        fix = f"pass the model as the command (`command: [\"{value}\"]`: the image's entry point is `{engine} serve`)"
        out.append(Finding("KV011", "model-variable-unread", Severity.WARNING, message, at, fix=fix, path=yf.path))
    return out


_FITS = 8  # folders a build path with a variable is matched against; more is a tree of builds, none chosen


def _fitting_builds(path: str, context: str, dockerfile: str) -> list[tuple[str, str]]:
    """(context, Dockerfile) of the tree's folders a build path with variables can name (`./vllm/${MODEL_DIR}`:
    each folder of ./vllm holding a Dockerfile), at most _FITS of them; a variable stands for one path part."""
    import glob

    base = os.path.dirname(path) or "."
    pattern = re.sub(r"\$\{[^}]*\}|\$[A-Za-z_]\w*", "*", os.path.join(context, dockerfile))
    parts = re.split(r"[/\\]+", pattern)
    if "*" not in pattern or "**" in pattern or os.path.isabs(pattern) or pattern.count("*") > 2 or ".." in parts:
        return []  # the compose file's own folder and below: a guess never lists the disk above it
    found = sorted(glob.glob(os.path.join(glob.escape(base), pattern)))[: _FITS + 1]
    hits = [os.path.relpath(f, base) for f in found if os.path.isfile(f)]
    return [] if len(hits) > _FITS else [(os.path.dirname(h) or ".", os.path.basename(h)) for h in hits]


def _engine_base_on_gpus(yf: YamlFile, name: str, svc: YNode, host: str, text: str, build: YNode,
                         env: Mapping[str, str]) -> list[Deployment]:
    """A GPU service building a Dockerfile of the tree that starts from an engine image (`FROM vllm/vllm-openai`)
    and runs an entry point of its own with no model kvlint can read, the service giving no command: the engine
    starts there with the model its entry point chooses (counting rule 8: a launch whose model is unknown), so it is
    a launch with a placeholder model (KV002), never passed over; the service's variables that spell the engine's
    flags (`CONTEXT_LENGTH`, `MAX_RUNNING_REQUESTS`: sample K298's SGLang build) are its settings, and a model
    variable among them its model."""
    from kvlint.launches import env_launch
    from kvlint.launches.charts.common import model_flag
    from kvlint.launches.dockerfile import base_image
    from kvlint.launches.images import shipped_engine

    engine = shipped_engine(base_image(text))
    if engine is None:
        return []
    where = os.path.relpath(host, os.path.dirname(yf.path) or ".")
    placeholder = "<the image's model>"
    items = _env_fields(svc.get("environment"), with_supplied(env), engine)
    stand_in = Field(placeholder, build.span, False, (placeholder,))
    fields = tuple(env_launch.fields_from_env(engine, items, where) or
                   (env_launch.fields_from_env(engine, [("MODEL", build.span, stand_in), *items], where) or
                    [Field(model_flag(engine), build.span), stand_in]))
    note = (f"the service builds {where} from {base_image(text)} on GPUs: its own entry point starts {engine} with "
            "a model these files do not name")
    ctx = LaunchContext(name, base_image(text), notes=(note,))
    dep = finish(yf.path, FoundLaunch(engine, fields, build.span, {}), ctx, _gpus(svc))
    return [replace(dep, launch_span=build.span)]


def text_of(node: YNode | None, key: str) -> str | None:
    value = node.get(key) if node is not None and node.is_map else None
    return value.text if value is not None and value.is_scalar and value.text else None


def missing_scripts(yf: YamlFile, doc: YNode) -> list[Finding]:
    """KV008 for each service (the file gave no launch) whose command runs a script it bind-mounts from a path
    of the repository that is not in the tree being checked (`./serve.vllm.sh:/serve.sh`, the file left out or
    not checked in): the launch is in that script, so the place is named rather than passed over."""
    from kvlint.findings import Severity

    services = doc.get("services")
    out: list[Finding] = []
    for name, _, svc in services.pairs() if services is not None and services.is_map else ():
        if not svc.is_map:
            continue
        env = with_supplied(dotenv_beside(yf.path)[0])
        target = _script_run(_argv(yf, svc.get("entrypoint"), env) + _argv(yf, svc.get("command"), env))
        mount = _mount_of(svc, target) if target else None
        if mount is None or os.path.exists(os.path.join(os.path.dirname(yf.path), mount[0])):
            continue
        message = (f"service {name} runs {target}, mounted from {mount[0]}, which is not in the tree being checked: "
                   "its launch is in that script; nothing here is checked")
        fix = "check the folder that holds the script too, or add `# kvlint: disable-file` when it is not a launch"
        out.append(Finding(KV008[0], KV008[1], Severity.INFO, message, mount[1], fix=fix, path=yf.path))
    return out


_ENGINE_NAMED = lazy(r"(?:^|[-_.])(vllm|sglang)(?:$|[-_.])", re.IGNORECASE)


def unnamed_images(yf: YamlFile, doc: YNode) -> list[Finding]:
    """KV008 for each service named for an engine (`vllm-server:`) whose image the file leaves to a variable
    (`image: ${DOCKER_IMAGE}`) and whose command names no engine (turn 38's K335: Gaudi's `command: ["server",
    "--config-file", ...]` with `MODEL` from the environment): the image's entry point starts the engine, which this
    file does not show; said at the image, not passed over in silence. Asked only when the file gave no launch."""
    from kvlint.findings import Severity

    services = doc.get("services")
    out: list[Finding] = []
    for name, _, svc in services.pairs() if services is not None and services.is_map else ():
        image = svc.get("image") if svc.is_map else None
        found = _ENGINE_NAMED.search(name)
        if found is None or image is None or not image.is_scalar or "$" not in image.text:
            continue
        message = (f"service {name} is named for {found.group(1).lower()} but runs the image {image.text}, which "
                   "this file leaves to a variable: that image's entry point starts the engine with settings this file "
                   "does not show; nothing here is checked")
        fix = "name the engine's image and command here, or add `# kvlint: disable-file` when it is not a launch"
        out.append(Finding(KV008[0], KV008[1], Severity.INFO, message, image.span, fix=fix, path=yf.path))
    return out


KV008 = ("KV008", "unknown-launch-layout")


def _mount_of(svc: YNode, target: str, host_paths: bool = False) -> tuple[str, Span | None] | None:
    """(host path, where it is written) of the short-form bind mount `./x:/target` (or `../scripts/x:/target`,
    sample K92) of a repository path; `host_paths`: an absolute path of the host too (`/home/u/deploy/serve.sh:
    /experiment/serve.sh`, sample K263), a file no repository holds."""
    volumes = svc.get("volumes")
    for item in volumes.items if volumes is not None and volumes.is_seq else ():
        if not item.is_scalar:
            continue
        host, inside = _bind(item.text)
        if inside.rstrip("/") == target and host.startswith(("./", "../", *(("/",) if host_paths else ()))):
            return host, item.span
    return None


def _env_configured(yf: YamlFile, name: str, svc: YNode, env: Mapping[str, str],
                    image: str | None, mode: bool = False) -> list[Deployment]:
    """A service with no command whose image is a known engine wrapper configured by its environment
    (kvlint/data/env_images.json): the model and the flags are the service's `environment:` entries
    (kvlint.launches.env_launch), each at its place; or a custom image named or tagged for the engine
    (`org/blackwell-infer:vllm`) on a GPU reservation. A build merely named for the engine with no GPU is not
    enough: a compose file's client services are named for the engine they call (`app-vllm`, `MODEL=...`)."""
    from kvlint.launches import env_launch

    entry = env_launch.env_image(image)
    node = svc.get("environment")
    # `${VLLM_TQ_IMAGE:-ghcr.io/org/vllm-rocm-tq:latest}`: the image the file runs unless told otherwise (K256)
    engine = entry.engine if entry is not None else _gpu_build_named(interpolate(image, env)[0] if image else image,
                                                                      svc)
    if node is None or node.is_scalar:
        return []
    engine = engine or (_env_spelled_engine(node) if entry is None and _requests_gpu(svc) else None)
    if engine is None:
        return []
    items: list[tuple[str, Span | None, Field]] = []
    for key, key_span, value, value_span in _environment_items(node):
        text, missing, _ = interpolate(value, env)
        if text and not missing:
            items.append((key, key_span, Field(text, value_span)))
        elif missing and entry is not None:  # a known wrapper's variable left to the run (`SM_ON_MODEL=${MODEL_ID}`)
            items.append((key, key_span, Field(value, value_span, False, tuple(missing))))
    fields = env_launch.fields_from_env(engine, items, image, mode)
    if fields is None:
        return []
    ctx = LaunchContext(name, image, notes=(env_launch.NOTE.format(image=image),))
    return [finish(yf.path, FoundLaunch(engine, tuple(fields), None, {}), ctx, _gpus(svc))]


def _env_spelled_engine(node: YNode) -> str | None:
    """The engine a GPU service's environment is written for when its image names none: three or more variables
    spelled as options only that engine has (`MAX_MODEL_LEN`, `GPU_MEMORY_UTILIZATION`, `MAX_NUM_SEQS`: vLLM's;
    sample K469's field-lab build `jovian-judgement-glm53-lmcache` beside `MODEL: /model`), which the image's entry
    point turns into its flags. A model variable is still asked for (env_launch.fields_from_env)."""
    from kvlint.launches.keys import option_for_key, spelled_as_flag

    keys = [k.lower() for k, _, _, _ in _environment_items(node)][:256]
    spelled = [k for k in keys if "_" in k and spelled_as_flag(k)]
    for engine in engine_names():
        others = [e for e in engine_names() if e != engine]
        own = [k for k in spelled if option_for_key(engine, k) and not any(option_for_key(o, k) for o in others)]
        if len(own) >= 3:
            return engine
    return None


def _env_configured_build(yf: YamlFile, name: str, svc: YNode, env: Mapping[str, str],
                          image: str | None) -> list[Deployment]:
    """A GPU service with no command built from a Dockerfile that is not read here, when the build is the
    engine's: its Dockerfile path is named for the engine (`deploy/docker/vllm/Dockerfile`), or a build argument
    is an engine image (`SGLANG_BASE_IMAGE: lmsysorg/sglang:v0.5.12`). It is configured by the engine's own
    prefixed variables (`VLLM_MODEL`, `VLLM_MAX_MODEL_LEN`: kvlint.launches.env_launch), or, when its own folder
    is named for the engine (`build: ./vllm`) or the build is tagged with the engine's name (`image:
    vllm-tt:latest`), by a model variable (`MODEL_NAME`, `HF_MODEL`); a model its `env_file:` holds is left
    unresolved there. A client service named for the engine has no GPU, no engine base
    image and no three engine-flag variables, so it is not one."""
    from kvlint.launches import env_launch
    from kvlint.launches.images import shipped_engine

    build = svc.get("build")
    tag = interpolate(image, env)[0] if image is not None else None  # the name the build is tagged with
    # a GPU, or an Intel GPU's render node alone (`/dev/dri`: sample K291's OpenVINO build of vLLM, whose folder
    # names the engine; an image of the engine's name with it alone may be a client's, kvlint.launches.compose tests)
    if build is None or not (_requests_gpu(svc) or _maps_device(svc, _ACCELERATOR_NODES)):
        return []
    parts = (text_of(build, k) for k in ("context", "dockerfile"))
    where = build.text if build.is_scalar else "/".join(t for t in parts if t)
    named = named_engine(tag) if tag else None  # the build tagged with the engine's name (`vllm-tt:latest`, K494)
    if tag is not None and shipped_engine(tag) is None and named is None \
            and not any(_path_names(where, e) for e in ("vllm", "sglang")):
        return []  # a tag names the build (`org/app:1`): the engine's only when its folder is (sample K291)
    base = _engine_base(build, env)
    engine = (next((e for e in ("vllm", "sglang") if e in where.lower()), None) or named_engine(where)
              or shipped_engine(tag) or base)
    if engine is None:
        return []
    items = _env_fields(svc.get("environment"), env, engine)
    prefixed = sum(1 for key, _, _ in items if key.startswith(engine.upper() + "_"))
    if prefixed < 3 and base is None and not ((_path_names(where, engine) or named == engine) and _names_model(items)):
        return []
    fields = env_launch.fields_from_env(engine, items, where) or _model_in_env_file(svc, engine, items)
    if fields is None:
        return []
    ctx = LaunchContext(name, image, notes=(env_launch.NOTE.format(image=f"the build {where}"),))
    found = FoundLaunch(engine, tuple(fields), None, _environment(svc, env))  # its device variables said too
    dep = finish(yf.path, found, ctx, _gpus(svc))
    return [replace(dep, launch_span=dep.launch_span or build.span)]


# an accelerator's device node mapped into the service beside the GPU requests `_requests_gpu` reads (AMD's KFD among
# them): an Intel GPU's render node (sample K291's OpenVINO build of vLLM), Tenstorrent's cards (turn 47's K494:
# `vllm-tt:latest` built beside `HF_MODEL`), AWS Neuron
_ACCELERATOR_NODES = ("/dev/dri", "/dev/tenstorrent", "/dev/neuron")


def _gpu_build_named(image: str | None, svc: YNode) -> str | None:
    """The engine a custom image names by its name or its tag (`org/app-vllm`, `org/infer:sglang`), when the
    service reserves GPUs (a client named for the engine it calls reserves none)."""
    if not image or not _requests_gpu(svc):
        return None
    if known_image(image):  # an image kvlint knows carries the engine with an entry point of its own (a build's
        # `ghcr.io/org/vllm-rocm-tq`, sample K256, whose script reads MODEL_NAME): the engine, not its server entry
        return shipped_engine(image) if entrypoint_engine(image) is None else None
    return named_engine(image) or tag_named_engine(image)


def _path_names(where: str, engine: str) -> bool:
    """A build whose own folder or Dockerfile is named for the engine (`build: ./vllm`, `./vllm-awq`,
    `docker/sglang/Dockerfile`, `Dockerfile.vllm`): the engine is a word of the path, not a part of one
    (`./myvllmtools`). A client has no GPU request, so it never gets this far."""
    return engine in re.split(r"[/\\._-]+", where.lower())


def _names_model(items: list[tuple[str, Span | None, Field]]) -> bool:
    """A model variable among the entries, also with the engine's name before it (`VLLM_MODEL`, `SGLANG_MODEL_PATH`)."""
    from kvlint.launches.env_launch import MODEL_VARS, base_name

    return any(base_name(key.upper())[0] in MODEL_VARS and value.text for key, _, value in items)


def _env_fields(node: YNode | None, env: Mapping[str, str], engine: str) -> list[tuple[str, Span | None, Field]]:
    """(name, name span, value) of a service's `environment:` entries that resolve, and of a model variable the
    run's environment gives (`VLLM_MODEL: ${MODEL}`, `SGLANG_MODEL_ID: ${SGLANG_MODEL_ID:-}`), kept unresolved."""
    from kvlint.launches.env_launch import MODEL_VARS, base_name

    if node is None or node.is_scalar:
        return []
    items: list[tuple[str, Span | None, Field]] = []
    for key, key_span, value, value_span in _environment_items(node):
        text, missing, _ = interpolate(value, env)
        if text and not missing:
            items.append((key, key_span, Field(text, value_span)))
    given = {key for key, _, _ in items}
    for key, key_span, value, value_span in _environment_items(node):
        text, missing, _ = interpolate(value, env)
        if (missing or not text) and key not in given and base_name(key.upper())[0] in MODEL_VARS and value:
            items.append((key, key_span, Field(value, value_span, False, tuple(missing) or (value,))))
    return items


def _engine_base(build: YNode, env: Mapping[str, str]) -> str | None:
    """The engine of an engine image given as a build argument (`args: {VLLM_BASE_IMAGE: vllm/vllm-openai:v0.21.0}`):
    the build is that engine's image with the repository's changes."""
    from kvlint.launches.images import shipped_engine

    args = build.get("args") if build.is_map else None
    values = ([v for _, _, v in args.pairs()] if args is not None and args.is_map
              else args.items if args is not None and args.is_seq else [])
    for value in values:
        text = interpolate(value.text, env)[0] if value.is_scalar else ""
        word = text.split("=", 1)[-1] if args is not None and args.is_seq else text
        if known_image(word) and (engine := shipped_engine(word)):
            return engine
    return None


def _model_in_env_file(svc: YNode, engine: str, items: list[tuple[str, Span | None, Field]]) -> list[Field] | None:
    """`--model` left to the service's `env_file:` (not read: it holds the deployment's secrets too), written
    as the engine's own model variable, unresolved, at the `env_file:` entry; the flags the environment spells
    follow."""
    from kvlint.launches import env_launch

    node = svc.get("env_file")
    if node is None:
        return None
    var = f"{engine.upper()}_MODEL"
    at = node.items[0].span if node.is_seq and node.items else node.span
    model = Field(f"${{{var}}}", at, False, (var,))
    return env_launch.fields_from_env(engine, [(var, at, model), *items])


def _build_named(svc: YNode) -> str | None:
    """The Dockerfile a service with no image builds (`dockerfile: Dockerfile_vllm`), for its name."""
    build = svc.get("build")
    if build is None:
        return None
    return build.text if build.is_scalar else text_of(build, "dockerfile") or text_of(build, "context")


def _requests_gpu(svc: YNode) -> bool:
    """A GPU reservation, `gpus:`, or the NVIDIA container runtime (`runtime: nvidia`, compose's older way: the
    container sees the GPUs NVIDIA_VISIBLE_DEVICES names)."""
    devices = svc.path("deploy", "resources", "reservations", "devices")
    runtime = svc.get("runtime")
    if runtime is not None and runtime.is_scalar and runtime.text.strip().lower() == "nvidia":
        return True
    if svc.get("gpus") is not None or (devices is not None and "gpu" in str([i.text for d in devices.items
                                                                             for i in _leaves(d)]).lower()):
        return True
    return _maps_device(svc, ("/dev/kfd", "/dev/dxg"))  # AMD's compute node (with /dev/dri), WSL's GPU


def _maps_device(svc: YNode, nodes: tuple[str, ...]) -> bool:
    mapped = svc.get("devices")
    return mapped is not None and mapped.is_seq and any(
        i.is_scalar and i.text.split(":", 1)[0].strip() in nodes for i in mapped.items)


def _leaves(node: YNode) -> list[YNode]:
    if node.is_scalar:
        return [node]
    return [leaf for v in (node.items if node.is_seq else [v for _, v in node.items]) for leaf in _leaves(v)]


def _environment_items(node: YNode) -> list[tuple[str, Span, str, Span]]:
    """(name, its span, value, its span) of `environment:` as a list of NAME=value or a map."""
    out = []
    for item in node.items if node.is_seq else ():
        key, eq, value = item.text.partition("=") if item.is_scalar else ("", "", "")
        sp = item.span
        if eq and key and sp.line == sp.end_line:
            at = sp.col + (item.style in ("'", '"')) + len(key) + 1
            out.append((key, Span(sp.path, sp.line, at - len(key) - 1, sp.line, at - 1),
                        value, Span(sp.path, sp.line, at, sp.line, at + len(value))))
    for key, knode, value in node.pairs() if node.is_map else ():
        if value.is_scalar and value.text:
            out.append((key, knode.span, value.text, value.span))
    return out


def _handed_args(fields: list[Field], target: str, engine: str) -> list[Field]:
    """The words after a script the service runs (`entrypoint: [/opt/entrypoint.sh]`, `command: [MODEL, --port,
    ...]`) when they read as the engine's own arguments by its flag table (a model and flags only it takes):
    such a script is the usual wrapper that patches or sets up, then runs `vllm serve "$@"`. Else none."""
    at = next((k for k, f in enumerate(fields) if f.text == target), None)
    args = fields[at + 1 :] if at is not None else []
    # a first word that is one variable (`${INFER_MODEL}`, sample K107) is the model `vllm serve "$@"` takes first
    told = args[1:] if args and _ONE_VARIABLE.fullmatch(args[0].text) and len(args) > 1 else args
    return args if told and engine_from_flags(told) == engine else []


_ONE_VARIABLE = lazy(r"\$\{?([A-Za-z_]\w*)(?::?-[^}]*)?\}?")  # one word a variable holds (an array's `"$@"` is many)


def _script_run(fields: list[Field]) -> str | None:
    """The absolute path of the program the service runs: `/serve.sh`, `bash /serve.sh`, `bash -c "/serve.sh"`,
    `python3 /opt/app/entry.py`."""
    words = [f.text for f in fields]
    while words and (words[0].rsplit("/", 1)[-1] in _SHELLS or _PYTHON.fullmatch(words[0].rsplit("/", 1)[-1])):
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[1:]
    first = words[0].split()[0] if words and words[0].split() else ""
    return first if first.startswith("/") else None


def _bind(volume: str) -> tuple[str, str]:
    """(host path, container path) of a short-form volume, split at the first `:` outside a `${...}` reference; a host
    path that is one reference with a default (`${ENTRYPOINT_FILE:-./entrypoints/entrypoint.sh}`, sample K116) is
    that default, which compose takes when the variable is unset."""
    depth, at = 0, -1
    for i, ch in enumerate(volume[:4096]):
        depth += ch == "{"
        depth -= ch == "}" and depth > 0
        if ch == ":" and depth == 0:
            at = i
            break
    host, rest = (volume, "") if at < 0 else (volume[:at], volume[at + 1:])
    if host.startswith("${"):
        host = interpolate(host, {})[0]  # compose's own reading with no variable set: the default
    return host, rest.split(":", 1)[0]


def _mounted_host(path: str, svc: YNode, target: str) -> str | None:
    """The repository file a bind mount puts at `target` (short `./x:/y[:ro]` or long `source`/`target` form)."""
    volumes = svc.get("volumes")
    base = os.path.dirname(path)  # relative stays relative: findings name files as they were given
    for item in volumes.items if volumes is not None and volumes.is_seq else ():
        if item.is_scalar:
            host, inside = _bind(item.text)
        elif item.is_map:
            host, inside = _scalar(item.get("source")), _scalar(item.get("target"))
        else:
            continue
        if not host.startswith((".", "/")) or host.startswith("~") or not inside.startswith("/"):
            continue
        # the file itself, or a folder mounted above it (`./config/vllm:/workspace/config/vllm` and
        # `entrypoint: [bash, /workspace/config/vllm/start-vllm.sh]`, sample K168)
        below = target[len(inside.rstrip("/")):] if target.startswith(inside.rstrip("/") + "/") else None
        if inside.rstrip("/") == target or below:
            full = os.path.normpath(os.path.join(base, host + (below or "")))
            if os.path.isfile(full) and _in_project(full, path):
                return full
    return None


def build_files(build: YNode) -> tuple[str, str]:
    """(context, Dockerfile) of a service's `build:` (a folder, or a map with `context` and `dockerfile`), as written
    (relative to the compose file)."""
    context = build.text if build.is_scalar else text_of(build, "context") or "."
    return context, text_of(build, "dockerfile") or "Dockerfile"


def _script_host(path: str, svc: YNode, fields: list[Field]) -> str | None:
    """The repository file of the script a service's command runs: mounted into the container, or copied into the
    image by the Dockerfile the service builds (`COPY start-vllm.sh /usr/local/bin/start-vllm`, sample K189); a
    Python program is read on its own (kvlint.launches.pyfile)."""
    target = _script_run(fields)
    if target is None or target.endswith(".py"):
        return None
    return _mounted_host(path, svc, target) or _copied_host(path, svc, target)


_COPY = lazy(r"(?im)^[ \t]*(?:COPY|ADD)[ \t]+(?:--[\w-]+=\S+[ \t]+)*(?P<src>[^\s\[\]\"'$]+)[ \t]+(?P<dest>/\S+)[ \t]*$")


def _program_path(target: str | None) -> bool:
    """Whether a command's first word is a program's path, never a model's: in a `bin` folder
    (`/usr/local/bin/start-vllm`) or a shell script (`/app/serve.sh`)."""
    return target is not None and (target.rsplit("/", 2)[-2:-1] in (["bin"], ["sbin"]) or target.endswith(".sh"))


def _copied_host(path: str, svc: YNode, target: str) -> str | None:
    """The build context's file the service's Dockerfile copies to `target` (or into the folder `target` is in,
    under its own name), when the service builds one."""
    from kvlint.sources.text import read_small

    build = svc.get("build")
    if build is None:
        return None
    context, dockerfile = build_files(build)
    base = os.path.join(os.path.dirname(path), context)
    text = read_small(os.path.normpath(os.path.join(base, dockerfile)), 256 * 1024) if "${" not in context else None
    for m in _COPY.finditer(text or ""):
        src, dest = m.group("src"), m.group("dest")
        if dest == target or (dest.endswith("/") and dest + os.path.basename(src) == target):
            full = os.path.normpath(os.path.join(base, src))  # Docker copies from inside the build context only
            if os.path.isfile(full) and os.path.realpath(full).startswith(os.path.realpath(base) + os.sep):
                return full
    return None


def _in_project(host: str, compose: str) -> bool:
    """Whether a mounted file lies in the compose file's project (its configuration's or git root): a mount of
    `/etc/...` or of a file beside the checkout is the host's, not the repository's, and is not read."""
    from kvlint.models.lockpath import project_root

    return os.path.realpath(host).startswith(project_root(compose))


def _scalar(node: YNode | None) -> str:
    return node.text if node is not None and node.is_scalar else ""


def _environment(svc: YNode, env: Mapping[str, str]) -> dict[str, str]:
    """The service's `environment:` (list of NAME=value or a map), interpolated; a bare NAME is unknown."""
    node = svc.get("environment")
    pairs: list[tuple[str, str]] = []
    if node is not None and node.is_seq:
        pairs = [(k, v) for k, eq, v in (i.text.partition("=") for i in node.items if i.is_scalar) if eq]
    elif node is not None and node.is_map:
        pairs = [(k, v.text) for k, _, v in node.pairs() if v.is_scalar and v.text]
    out = {}
    for key, value in pairs:
        text, missing, _ = interpolate(value, env)
        if not missing:
            out[key] = text
    return out


def _build_base(svc: YNode) -> str | None:
    """`build.args: BASE_IMAGE=vllm/vllm-openai:latest`: the image a locally built service starts from."""
    args = svc.path("build", "args")
    items = [i.text for i in args.items if i.is_scalar] if args is not None and args.is_seq else \
        [f"{k}={v.text}" for k, _, v in args.pairs() if v.is_scalar] if args is not None and args.is_map else []
    return next((v for k, _, v in (i.partition("=") for i in items) if "IMAGE" in k.upper() and v), None)


def _profile_gpu(doc: YNode, name: str) -> ManifestGpu | None:
    """The GPUs an Akash SDL's compute profile gives the service: `profiles: compute: NAME: resources: gpu: {units:
    8, attributes: {vendor: {nvidia: [{model: h200}]}}}` (the product as the provider lists it, one model only)."""
    gpu = doc.path("profiles", "compute", name, "resources", "gpu") if doc.is_map else None
    units = gpu.get("units") if gpu is not None and gpu.is_map else None
    if gpu is None or units is None or not g.to_int(units):
        return None
    models = gpu.path("attributes", "vendor", "nvidia")
    named = [m.get("model") for m in (models.items if models is not None and models.is_seq else ()) if m.is_map]
    product = named[0] if len(named) == 1 and named[0] is not None and named[0].is_scalar else None
    return ManifestGpu(product=product.text if product is not None else None,
                       product_span=product.span if product is not None else None,
                       count=g.to_int(units), count_span=units.span)


def _gpus(svc: YNode) -> ManifestGpu:
    devices = svc.path("deploy", "resources", "reservations", "devices")
    for dev in devices.items if devices is not None and devices.is_seq else ():
        count = dev.get("count")
        if g.to_int(count):
            return ManifestGpu(count=g.to_int(count), count_span=count.span)
        ids = dev.get("device_ids")
        if ids is not None and ids.is_seq and ids.items:
            count = _device_count(ids)  # None: left to a variable, no count and no place of one
            return ManifestGpu(count=count, count_span=ids.span if count is not None else None)
    return ManifestGpu()


def _device_count(ids: YNode) -> int | None:
    """The GPUs `device_ids` hands the container: the NVIDIA runtime joins the ids with commas into
    NVIDIA_VISIBLE_DEVICES, so an item written `"5,6"` is two devices, as `["5", "6"]` is. An item compose leaves to a
    variable it does not know may hold one id or a list (`"${GPU_ID:?error}"` beside `--tensor-parallel-size 2  #
    split across the 2 GPUs`, sample K359; a CDI name, K287): the count is unknown (None), never a guess a verdict
    would stand on; a required variable's error message is no value, and a default (`${GPUS:-0,1}`) is the value
    compose gives."""
    def count(text: str) -> int | None:
        value, missing, _ = interpolate(text, {})
        return None if missing else len([p for p in value.split(",") if p.strip()]) or 1

    counts = [count(i.text) if i.is_scalar else 1 for i in ids.items]
    return None if any(n is None for n in counts) else sum(n for n in counts if n is not None)
