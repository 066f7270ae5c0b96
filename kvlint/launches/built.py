"""A deployment that builds the repository's own Dockerfile and runs it: the image's CMD is the launch.

A CI workflow handing `dockerfile: Dockerfile.vllm` to a deploy step (a reusable Cloud Run workflow, a build-and-
push action), a platform file naming the Dockerfile it builds: the file says where the image runs (`--gpu=1
--gpu-type=nvidia-l4`), the Dockerfile says what it runs. The Dockerfile is looked for beside the file and in
the folders above it up to the repository's root (a workflow under `.github/workflows/` names it from the root);
its launch (kvlint.launches.dockerfile) is placed at the `dockerfile:` value, with the GPUs the deploy step's
words give. A Dockerfile that is not in the tree gives nothing (the KV008 net names the place).

Only a file that runs what it builds: an image build workflow (`docker/build-push-action` over a matrix of
Dockerfiles, sample K241) publishes images and runs none unless it also deploys, or gives GPUs where the
Dockerfile is named; the Dockerfile's own launch is read where the Dockerfile is.
"""

from __future__ import annotations

import os
import re

from kvlint.deployment import Deployment
from kvlint.lazyre import lazy
from kvlint.sources.yaml import YamlFile, YNode

_MAX_NODES = 5000
_LEVELS = 4  # folders above the file looked in for the Dockerfile
_GPU_COUNT = lazy(r"--gpus?[= ](\d+)\b|\bgpu(?:_count|Count|s)?:[ \t]*[\"']?(\d+)")
_GPU_TYPE = lazy(r"--gpu-type[= ]([\w.-]+)|\bgpu_?[tT]ype:[ \t]*[\"']?([\w.-]+)")
# what says the file runs the image it builds: a deploy (a step, a reusable workflow, `gcloud run deploy`), a
# cluster or platform command that starts it
_RUNS = lazy(r"(?i)deploy|\bkubectl\b|\bhelm\s+(?:upgrade|install)\b|\b(?:docker|podman)\s+run\b|\bfly\s+launch\b")
# what says the file builds and publishes images: a build-and-push action, buildx, kaniko, `docker push`
_PUBLISHES = lazy(r"(?i)build-push-action|\bbuildx\b|\bkaniko\b|\b(?:docker|podman)\s+push\b|^\s*push:\s*true\b",
                  re.MULTILINE)


def built_images(yf: YamlFile, doc: YNode) -> list[Deployment]:
    """The launches of the Dockerfiles the document's mappings name (`dockerfile: X`)."""
    out: list[Deployment] = []
    for holder, value in _dockerfile_keys(doc):
        host = _find(yf.path, value.text)
        if host is not None and _runs(yf, holder):
            out.extend(_launch(yf, holder, value, host))
    return out


def _dockerfile_keys(doc: YNode) -> list[tuple[YNode, YNode]]:
    stack, seen, out = [doc], 0, []
    while stack and seen < _MAX_NODES:
        node = stack.pop()
        seen += 1
        for key, _, val in node.pairs() if node.is_map else ():
            if key.lower() in ("dockerfile", "docker_file", "dockerfile_path") and val.is_scalar and val.text:
                out.append((node, val))
            elif not val.is_scalar:
                stack.append(val)
        if node.is_seq:
            stack.extend(i for i in node.items if not i.is_scalar)
    return out


def _runs(yf: YamlFile, holder: YNode) -> bool:
    """Whether the file runs the image it builds: GPUs given beside the Dockerfile's name, or a deploy anywhere in
    the file (the build and the deploy are often two jobs)."""
    words = yf.text[holder.start : holder.end]
    return bool(_GPU_COUNT.search(words) or _GPU_TYPE.search(words) or runs_built(yf.text))


def runs_built(text: str) -> bool:
    """Whether a file that names a Dockerfile runs what it builds: one that builds and publishes images (an image
    build workflow) runs none unless it also deploys (no launch, and no place passed over either); any other
    (a compose file's `build:`, a platform file) runs its build."""
    return _PUBLISHES.search(text) is None or _RUNS.search(text) is not None


def _find(path: str, name: str) -> str | None:
    """The Dockerfile `name` relative to the file's folder or a folder above it (the repository's root)."""
    if path in ("", "-") or "${" in name or "{{" in name or os.path.isabs(name):
        return None
    from kvlint.sidefile import folders_up

    for folder in folders_up(os.path.dirname(os.path.abspath(path)), _LEVELS):
        candidate = os.path.normpath(os.path.join(folder, name))
        if os.path.isfile(candidate):
            return candidate
    return None


def _launch(yf: YamlFile, holder: YNode, value: YNode, host: str) -> list[Deployment]:
    from kvlint.launches.dockerfile import read_dockerfile
    from kvlint.record import replace
    from kvlint.sources.text import read_small

    text = read_small(host, 256 * 1024)
    if text is None:
        return []
    words = yf.text[holder.start : holder.end]
    count, product = _GPU_COUNT.search(words), _GPU_TYPE.search(words)
    note = f"the step builds {os.path.relpath(host, os.path.dirname(os.path.abspath(yf.path)))}: its CMD is the launch"
    out = []
    for dep in read_dockerfile(host, text):
        out.append(replace(dep, path=yf.path, launch_span=value.span, notes=dep.notes + (note,),
                           gpu_count=int(next(g for g in count.groups() if g)) if count else dep.gpu_count,
                           gpu=next(g for g in product.groups() if g) if product else dep.gpu))
    return out
