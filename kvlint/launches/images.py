"""Which container images carry an engine, and whether their entry point starts it.

The image names live in each engine's record (kvlint/engines: `image_markers`, `image_ships`), so readers
never branch on the engine name themselves. An image whose entry point *is* the engine
(`vllm/vllm-openai` runs `vllm serve`) turns bare arguments into a launch; one that only ships the
engine (`lmsysorg/sglang` starts a shell) needs an explicit command, but still names the engine for
an unknown chart that uses it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kvlint.engines import all_engines
from kvlint.image_names import known_image

if TYPE_CHECKING:
    from kvlint.launches.env import Field
    from kvlint.span import Span


def entrypoint_engine(image: str | None) -> str | None:
    """The engine an image starts when run with arguments only (None: it needs a command)."""
    if not image:
        return None
    return next((e.name for e in all_engines() if any(t in image for t in e.image_markers)), None)


def default_model_unread(image: str | None) -> tuple[str, str] | None:
    """(engine, release) for an engine's own image whose release is older than every one kvlint's tables read
    (`vllm/vllm-openai:v0.6.3`, sample K226): run with no model argument it still starts the server, on that
    release's default model, which the tables do not hold. None for any other image."""
    from kvlint.flags.flag_table import on_release
    from kvlint.launches.build import version_from_image

    engine = entrypoint_engine(image)
    version = version_from_image(image)
    if engine is None or version is None or on_release(engine, "--model", version) is not None:
        return None
    return engine, version


def older_default_launch(image: str | None, span: Span | None) -> tuple[str, tuple[Field, Field], str] | None:
    """(engine, argv, note) of an engine's own image of a release older than kvlint's tables run with no model
    argument (default_model_unread): a launch on that release's default model, left open."""
    from kvlint.engines.registered import facts as engine_facts
    from kvlint.launches.env import Field

    older = default_model_unread(image)
    if older is None:
        return None
    engine, version = older
    title = engine_facts(engine).TITLE
    argv = (Field("--model", span), Field(f"(the default model of {title} {version})", span, False, ("default model",)))
    note = (f"{image} runs {title}'s CLI with no model argument: it serves the default model of {title} {version}, "
            "older than the releases kvlint's tables read")
    return engine, argv, note


def default_model(image: str | None) -> tuple[str, str] | None:
    """(engine, model) an engine's own image serves when run with no model argument (`vllm/vllm-openai` runs `vllm
    serve`, whose parser defaults `--model` on the image's release), or None (no such image, or no default there)."""
    from kvlint.flags.flag_table import flag_table, on_release
    from kvlint.launches.build import version_from_image

    engine = entrypoint_engine(image)
    spec = flag_table(engine).by_option.get("--model") if engine is not None else None
    default = spec.default if spec is not None else None
    if engine is None or not isinstance(default, str) or not on_release(engine, "--model", version_from_image(image)):
        return None
    return engine, default


def no_server_engine(image: str | None) -> str | None:
    """The engine a published image carries without starting it (`lmsysorg/sglang:v0.5.2`, on any registry): given
    only that engine's flags, the container runs the first flag as its program and exits (KV014)."""
    if not image:
        return None
    repo = image.lower().split("@", 1)[0].rsplit(":", 1)[0] if "/" in image else ""
    repo = repo.split("/", 1)[1] if "." in repo.split("/", 1)[0] and repo.count("/") > 1 else repo  # a registry
    return next((e.name for e in all_engines() if repo in e.no_server_images), None)


def shipped_engine(image: str | None) -> str | None:
    """The engine an image carries, whether or not its entry point starts it: a known image, or an
    image whose own name is the engine's (`opea/vllm`, `org/vllm-gaudi`, `org/sglang-rocm`)."""
    if not image:
        return None
    low = image.lower()
    name = low.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    return next((e.name for e in all_engines() if any(t in low for t in e.image_ships)
                 or name == e.name or name.startswith(e.name + "-")), None)




_STAND_IN = re.compile(r"(?:^|[-_./])(?:sim|simulator|mock|fake|emulator|stub|dummy)(?:$|[-_./:])", re.I)


def stand_in(image: str | None) -> bool:
    """An image that answers like an engine without being one (`ghcr.io/llm-d/llm-d-inference-sim`, a mock server
    for tests): given the engine's flags it still starts no engine and loads no model (sample K151)."""
    return image is not None and _STAND_IN.search(image.split("@", 1)[0].rsplit(":", 1)[0]) is not None


def named_engine(image: str | None) -> str | None:
    """The engine a custom image's own name holds (`org/foo-vllm-docker:latest` -> vllm), when it is not one of
    the engine's known images (those kvlint reads by their entry point)."""
    from kvlint.engines.registered import engine_names

    if not image or known_image(image):
        return None
    name = image.lower().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    found = [e for e in engine_names() if e in name]
    if len(found) != 1 or _NOT_ENGINE & set(re.split(r"[-_.]", name)):
        return None  # `vllm-router`, `sglang-router`, `vllm-sim`, `vllm-benchmark`: programs around the engine
    return found[0]


def build_named_engine(image: str | None) -> str | None:
    """The engine of a build kvlint does not know by its entry point but whose name carries the engine
    (`vllm-spark:latest`, `org/vllm-avx2-docker`), or a known image that carries the engine without kvlint knowing
    its entry point (`opea/vllm-rocm`, sample K126: only an engine whose own images all start a shell lists one as
    no server): given arguments, its entry point is taken to be the engine's, as `docker run`, compose services and
    Kubernetes containers all read it (a shell as the first argument still replaces it: launch_in_argv checks)."""
    if not image or (known_image(image) and (entrypoint_engine(image) or no_server_engine(image))):
        return None
    name = image.lower().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    if _NOT_ENGINE & set(re.split(r"[-_.]", name)):
        return None  # `org/vllm-chat-ui`: a program around the engine
    return shipped_engine(image) or named_engine(image)


def tag_named_engine(image: str | None) -> str | None:
    """The one engine a custom image's tag names (`org/infer:sglang`, `richardxgf/amd:rocm7-vllm-001`, sample K123):
    a build of an unnamed repository whose tag says which engine it is; asked only of a container that requests
    GPUs (a client's tag may name the engine it calls)."""
    if not image or known_image(image):
        return None
    tag = image.lower().split("@", 1)[0].rsplit("/", 1)[-1].partition(":")[2]
    found = [e for e in ("vllm", "sglang") if e in re.split(r"[-_.]", tag)]
    return found[0] if len(found) == 1 else None


def around_engine(image: str | None) -> bool:
    """Whether an image's own name says it is a program around the engine, not the engine (`llm-d-inference-sim`,
    a router, a benchmark): a chart's `imageDefault` command on it starts no engine."""
    name = (image or "").lower().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    return bool(_NOT_ENGINE & set(re.split(r"[-_.]", name)))


# words of an image name that say it is a program around the engine, not the engine (routers, simulators, clients;
# `remote`: a client of an engine served elsewhere, llama-stack's `distribution-remote-vllm`, sample K207)
_NOT_ENGINE = frozenset({"router", "sim", "simulator", "mock", "fake", "proxy", "gateway", "benchmark", "bench",
                         "client", "exporter", "operator", "metrics", "webui", "ui", "frontend", "dashboard", "epp",
                         "remote"})
