"""Helpers the chart adapters share: synthetic argv from chart fields, known-flag filtering."""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.engines.registered import facts
from kvlint.launches.build import LaunchContext, ManifestGpu, make_deployment
from kvlint.launches.config_link import merge_config_file
from kvlint.launches.env import Field, expand_words, substitute_supplied, with_supplied
from kvlint.launches.keys import fields_from_pairs, option_for_key
from kvlint.lazyre import lazy
from kvlint.record import replace
from kvlint.sources.shell import tokenize
from kvlint.sources.yaml import YamlFile, YNode
from kvlint.span import Span

_FLAG_THEN_VALUE = lazy(r"--?[A-Za-z][A-Za-z0-9_.-]*[ \t]+\S")  # `--load-format auto`, not `--x={"a": 1}`


def model_flag(engine: str) -> str:
    """The flag that names the model on the engine's command line (`--model`, SGLang's `--model-path`)."""
    found: str = facts(engine).MODEL_FLAG
    return found


def text(node: YNode | None) -> str | None:
    return node.text if node is not None and node.is_scalar and not node.tag.endswith(":null") else None


def disabled(entry: YNode | None) -> Span | None:
    """The span of an entry's own `enabled: false` (production-stack modelSpec[], a KubeAI catalogue entry):
    the chart renders nothing for it, so it is an example of its defaults, not a deployment. A value left to
    the template (`{{ .Values.x }}`) or any other value is not read as disabled. NixOS and some charts spell the
    switch `enable` (sample K352's `services.vllm.instances.gemma = { enable = false; ... }`)."""
    node = next((n for key in ("enabled", "enable") if (n := entry.get(key)) is not None), None) \
        if entry is not None and entry.is_map else None
    if node is None or not node.is_scalar or node.value is not False:
        return None
    return node.span


def known_flag(engine: str, key: str) -> str | None:
    """The `--flag` a chart key stands for, only when the engine has exactly that option (in any spelling:
    kvlint.launches.keys.option_for_key)."""
    return option_for_key(engine, key)


def model_fields(engine: str, node: YNode | None) -> list[Field]:
    value = text(node)
    if not value or node is None:
        return []
    value, origin = substitute_supplied(value)
    unresolved = "{{" in value
    return [Field(model_flag(engine), node.span),
            Field(value, node.span, not unresolved, (value,) if unresolved else (), origin=origin)]


def argv_items(node: YNode | None, shell: YamlFile | None = None) -> list[Field]:
    """A values list of engine arguments, one word an item; with `shell` (the file the list is in), an item
    that is a flag and its value in one string (`- "--load-format auto"`) is split as shell words, the way
    a chart template that joins the list into a `sh -c` string hands it to the engine."""
    if node is None or not node.is_seq:
        return []
    out: list[Field] = []
    for item in node.items:
        if not item.is_scalar:
            continue
        words = shell_words(shell, item) if shell is not None and _FLAG_THEN_VALUE.match(item.text) else None
        out.extend(words or [Field(item.text, item.span)])
    return out


def shell_words(yf: YamlFile, item: YNode) -> list[Field] | None:
    """The item as the words of one simple shell command (each with its own span), or None when it is
    anything else (several commands, an operator, a quoting error): then it stays one word."""
    mapped = yf.mapped(item)
    commands, errors = tokenize(mapped)
    if errors or len(commands) != 1 or commands[0].sep != "":
        return None
    env = with_supplied({})
    return expand_words(commands[0].words, mapped, env)


def key_fields(engine: str, node: YNode | None, skip: frozenset[str] = frozenset()) -> list[Field]:
    if node is None or not node.is_map:
        return []
    pairs = [(k, kn, v) for k, kn, v in node.pairs() if k not in skip]
    return fields_from_pairs(pairs, lambda k: known_flag(engine, k), rendered=True, engine=engine)


def chart_deployment(path: str, engine: str, fields: list[Field], launch: YNode | Span | None, ctx: LaunchContext,
                     gpu: ManifestGpu) -> Deployment:
    """The launch a chart's values make, placed at `launch` (the model's node, or the image's span when the values
    leave the model to the install)."""

    span = launch if isinstance(launch, Span) or launch is None else launch.span
    # a values key naming the engine's `--config` file (`configFile: serving-args.yaml`): that file's settings count
    dep = make_deployment(path, engine, fields, span, replace(ctx, origin="chart"), gpu)
    return merge_config_file(dep) if "config" in dep.settings else dep
