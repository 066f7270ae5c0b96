"""A Ray cluster launcher file (`ray up cluster.yaml`): its `docker:` blocks run an engine image on the nodes.

The launcher starts each node's container as `docker run RUN_OPTIONS IMAGE` with Ray's own command, so an
engine image there runs its entry point with no arguments: a custom build named for the engine whose entry
point reads `-e MODEL=...` from `run_options` is the launch (kvlint.launches.env_launch). A `docker:` block at
the top covers every node type; a node type's own block replaces it. The head and the workers of one cluster
running one engine and model are one launch (one deployment), not one per node type.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.deployment import Deployment
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.env import Field
from kvlint.sources.yaml import YamlFile, YNode
from kvlint.span import Span

_IMAGE_KEYS = ("image", "worker_image", "head_image")


def is_ray_cluster(doc: YNode) -> bool:
    """The launcher's schema: `available_node_types`, or a `docker:` block beside `provider:` / `cluster_name:`."""
    if doc.get("available_node_types") is not None:
        return True
    docker = doc.get("docker")
    return docker is not None and docker.is_map and (doc.get("provider") is not None
                                                    or doc.get("cluster_name") is not None)


def read_ray_cluster(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """One launch per distinct (engine, model) the cluster's docker blocks start."""
    out: list[Deployment] = []
    seen: set[tuple[str, str | None]] = set()
    for name, block in _docker_blocks(doc):
        dep = _launch(yf, name, block)
        if dep is not None and (dep.engine, dep.model) not in seen:
            seen.add((dep.engine, dep.model))
            out.append(dep)
    return out


def _docker_blocks(doc: YNode) -> Iterator[tuple[str, YNode]]:
    top = doc.get("docker")
    types = doc.get("available_node_types")
    own = [(n, d) for n, _, node in (types.pairs() if types is not None and types.is_map else ())
           if node.is_map and (d := node.get("docker")) is not None and d.is_map]
    yield from own
    if top is not None and top.is_map:
        yield "docker", top


def _launch(yf: YamlFile, name: str, block: YNode) -> Deployment | None:
    from kvlint.launches import env_launch
    from kvlint.launches.docker_run import read_options
    from kvlint.launches.script import FoundLaunch

    image_node = next((n for k in _IMAGE_KEYS if (n := block.get(k)) is not None and n.is_scalar and n.text), None)
    if image_node is None:
        return None
    engine = env_launch.configured_engine(image_node.text)
    if engine is None:
        return None
    options = block.get("run_options")
    words = [w for item in (options.items if options is not None and options.is_seq else ()) for w in _words(item)]
    opts, _ = read_options(words, 0, "")
    spans = {w.text.partition("=")[0]: w for w in words if "=" in w.text}
    items = [(k, _name_span(spans.get(k)), _value(spans.get(k), v)) for k, v in opts.env.items()]
    fields = env_launch.fields_from_env(engine, items, image_node.text)
    if fields is None:
        return None
    found = FoundLaunch(engine, tuple(fields), None, {}, gpus=opts.gpus[0], gpus_span=opts.gpus[1])
    ctx = LaunchContext(name, image_node.text, image_node.span, notes=(env_launch.NOTE.format(image=image_node.text),))
    return finish(yf.path, found, ctx, ManifestGpu())


def _words(item: YNode) -> list[Field]:
    """The words of one `run_options` string (`-e "A=b c"`, `--gpus all`), each at its place when the item is
    written on one line as it reads."""
    if not item.is_scalar:
        return []
    text, sp = item.text, item.span
    start = sp.col + (item.style in ("'", '"'))
    out: list[Field] = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        word, j = _word(text, i)
        a, b = (i + 1, j - 1) if j - i == len(word) + 2 and text[i] in "'\"" else (i, j)  # `"A=b c"`: inside
        at = Span(sp.path, sp.line, start + a, sp.line, start + b) if sp.line == sp.end_line else sp
        out.append(Field(word, at))
        i = j
    return out


def _word(text: str, i: int) -> tuple[str, int]:
    """One shell word from `i`: quotes removed, (word, the index after it)."""
    out: list[str] = []
    quote = ""
    while i < len(text) and (quote or not text[i].isspace()):
        c = text[i]
        if quote and c == quote:
            quote = ""
        elif not quote and c in "'\"":
            quote = c
        else:
            out.append(c)
        i += 1
    return "".join(out), i


def _name_span(word: Field | None) -> Span | None:
    return word.span if word is not None else None


def _value(word: Field | None, value: str) -> Field:
    """The value of `-e NAME=VALUE` as a field at the word's place (a value with `$` stays unresolved)."""
    span = word.span if word is not None else None
    width = len(word.text) if word is not None else -1
    if span is not None and span.line == span.end_line and span.end_col - span.col == width:
        span = Span(span.path, span.line, span.end_col - len(value), span.line, span.end_col)
    unresolved = "$" in value
    return Field(value, span, not unresolved, (value,) if unresolved else ())
