"""docker-compose services: image, entrypoint + command (string or list), GPU device reservations.

Compose interpolates `${VAR:-default}` from the caller's environment, which a linter cannot see, and
from a `.env` file beside the compose file, which it can: .env values are used, then defaults, and
other variables stay unresolved.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import replace

from kvlint.deployment import Deployment
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.env import Field, expand_word, parse_dotenv, with_supplied
from kvlint.launches.images import entrypoint_engine
from kvlint.launches.script import launch_in_argv
from kvlint.sources.shell import tokenize
from kvlint.sources.text import SourceError, read_file
from kvlint.sources.yaml import YamlFile, YNode


def is_compose(doc: YNode) -> bool:
    services = doc.get("services") if doc.is_map else None
    return services is not None and services.is_map and "apiVersion" not in dict((k, 1) for k, _, _ in doc.pairs())


_REF = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def read_compose(yf: YamlFile, doc: YNode) -> list[Deployment]:
    services = doc.get("services")
    if services is None:  # not a compose file: callers ask is_compose(doc) first
        return []
    out: list[Deployment] = []
    env, env_path = dotenv_beside(yf.path)
    for name, _, svc in services.pairs():
        if svc.is_map:
            out.extend(_service(yf, name, svc, env, env_path))
    return out


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


def _service(yf: YamlFile, name: str, svc: YNode, env: Mapping[str, str], env_path: str) -> list[Deployment]:
    image = svc.get("image")
    image_text = image.text if image is not None and image.is_scalar else None
    nodes = (svc.get("entrypoint"), svc.get("command"))
    interpolate = with_supplied(env)  # .env beside the file, then configured variables
    fields = _argv(yf, nodes[0], interpolate) + _argv(yf, nodes[1], interpolate)
    default = entrypoint_engine(image_text) if svc.get("entrypoint") is None else None
    found = launch_in_argv(fields, {}, image_default=default) if fields else None
    if found is None:
        return []
    used = sorted({v for n in nodes if n is not None for v in _REF.findall(_text_of(n)) if v in env})
    notes = tuple(f"${{{v}}} = {env[v]!r} from {os.path.basename(env_path)} beside the compose file" for v in used)
    ctx = LaunchContext(name, image_text, image.span if image is not None else None, notes=notes)
    dep = finish(yf.path, found, ctx, _gpus(svc))
    # the image's own entrypoint starts the engine: point at the command (one of the two is set, since
    # the launch came from their fields)
    shown = nodes[1] if nodes[1] is not None else nodes[0]
    if dep.launch_span is None and shown is not None:
        dep = replace(dep, launch_span=shown.span)
    return [dep]


def _text_of(node: YNode) -> str:
    return node.text if node.is_scalar else " ".join(i.text for i in node.items if i.is_scalar) if node.is_seq else ""


def _argv(yf: YamlFile, node: YNode | None, env: Mapping[str, str]) -> list[Field]:
    if node is None:
        return []
    items = [node] if node.is_scalar else [i for i in node.items if i.is_scalar] if node.is_seq else []
    out: list[Field] = []
    for item in items:
        m = yf.mapped(item)
        cmds, _ = tokenize(m)
        words = [f for c in cmds for w in c.words for f in expand_word(w, m, env)]
        if node.is_seq:  # a list item is one argument: interpolate, never split
            text = " ".join(f.text for f in words)
            missing = tuple(e for f in words for e in f.missing)
            origin = next((f.origin for f in words if f.origin), "")
            out.append(Field(text if words else item.text, item.span, not missing, missing, origin=origin))
        else:
            out.extend(words)
    return out


def _gpus(svc: YNode) -> ManifestGpu:
    devices = svc.path("deploy", "resources", "reservations", "devices")
    for dev in devices.items if devices is not None and devices.is_seq else ():
        count = dev.get("count")
        if g.to_int(count):
            return ManifestGpu(count=g.to_int(count), count_span=count.span)
        ids = dev.get("device_ids")
        if ids is not None and ids.is_seq and ids.items:
            return ManifestGpu(count=len(ids.items), count_span=ids.span)
    return ManifestGpu()
