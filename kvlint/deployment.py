"""One engine instance found in a file: the record the manifest readers produce and rules consume.

Readers never do arithmetic and rules never parse files: this record is the boundary. Every value
keeps the span it came from, so a finding can point at `--max-model-len 32768` in values.yaml.
"""

from __future__ import annotations

from typing import Any

from kvlint.record import field, record
from kvlint.span import Span

# the note of a launch whose arguments are an array a file the script sources sets: no model is named here, and
# what follows the head is what resolve says of the model
NO_MODEL_HERE = "no model named here: "
SOURCED_ARGS = NO_MODEL_HERE + "the arguments are"
# the note of a launch read by its engine's flags through a program kvlint does not know (kvlint.launches.byflags):
# `{BY_FLAGS}{program}, a program ...`; that program's parser, not a stock release's, decides the values (KV007)
BY_FLAGS = "launch by its flags through "
# Setting.origin of a value a chart kvlint has no adapter for names by a key spelled like a flag (`logLevel: info`):
# the chart's template decides which option it becomes and how it writes the value (kvlint.launches.charts.unknown)
CHART_KEY = "chart-key"
AFTER_LOAD = "after-load"  # InvalidValue.origin of a refusal the engine makes once its weights are loaded


@record
class Setting:
    """One engine setting after the engine's own parsing rules (last occurrence wins)."""

    name: str  # canonical destination name in the engine's own terms: "max_model_len", "tp_size"
    value: Any  # typed value (int, float, str, bool, list); the raw text when unresolved
    flag: str = ""  # the option as written: "--max_model_len", "-tp", "maxModelLen"
    raw: str = ""  # the value text as written
    span: Span | None = None  # where the value is (or the flag, for a bare boolean)
    flag_span: Span | None = None
    resolved: bool = True  # False when the value is an unresolved expression ({{ }}, $(VAR), ${X})
    # "explicit" | "default" | "env" | "config-file" | "chart" | "chart-values" | "chart-key" | "default-expansion"
    # | "variable" | "config-variable" | "open" (not written: left to a cluster the launch runs on, launches.build)
    origin: str = "explicit"


@record
class UnknownFlag:
    flag: str
    span: Span | None
    suggestion: str | None = None  # did-you-mean
    reason: str = "unrecognized"  # "unrecognized" | "ambiguous" | "removed"
    since: str | None = None  # ambiguous only from this release on (before it, a unique abbreviation)
    value: str = ""  # a removed flag's value as written (`--device rbln`: the platform it asked for)


@record
class InvalidValue:
    """A flag value the engine refuses (argparse type or choices, or its own start-up check)."""

    flag: str  # the option as written: "-tp", "--kv-cache-dtype"
    raw: str  # the value text as written
    span: Span | None  # where the value is
    reason: str  # the engine's rule, in its terms: "valid: auto, float16, ...", "must be in (0, 1]"
    setting: str = ""  # canonical destination name
    origin: str = ""  # CHART_KEY (a chart key gave it, as Setting.origin) | AFTER_LOAD (refused after the weights load)


@record
class GpuOption:
    """One GPU product a file offers for the launch when it offers several (SkyPilot `accelerators:` sets and
    `any_of`, node affinity `nvidia.com/gpu.product In [...]`, GKE accelerator lists)."""

    name: str  # as written
    count: int | None  # GPUs of that product for one instance, when the file says
    span: Span | None
    source: str = ""  # "accelerators" | "any_of" | "node-affinity" | "gke-accelerator" | ...


@record
class NodeLabel:
    """A node-selection label (nodeSelector, required node affinity with one value, tolerations excluded):
    fleet configuration maps values such as a GKE node pool or a Karpenter node pool to a catalogue card."""

    key: str  # "cloud.google.com/gke-nodepool", "karpenter.sh/nodepool", any nodeSelector key
    value: str
    span: Span | None


@record
class DeclaredLoad:
    """Concurrency the deployment advertises outside the engine's own flags (serving or autoscaling targets)."""

    value: int  # requests in flight per instance the platform will send before scaling out
    source: str  # "containerConcurrency" | "autoscaling.knative.dev/target" | "targetRequests" | "hpa" | ...
    span: Span | None


@record
class ModelAlias:
    """Another name the launch gives its model: a Hub id for a local path (`--served-model-name`, an env var)."""

    name: str
    # "served-name" | "served-short" (no org: a unique bundled name) | "env:MODEL_ID" | "path" | "storageUri"
    # | "model-name" (KServe `name:` beside the URI) | "key:modelName" (a chart key naming the model) | ...
    how: str
    span: Span | None = None


@record
class Cut:
    """A launch the shell cuts short: it ends a command at a comment (a `\\` inside it continues nothing), at a `\\`
    that escapes a trailing blank, or at a line with no `\\` at all, so the option lines after it run as a command of
    their own (KV012). `joined`: the command ended before its engine (the launch was read as meant); else the engine
    runs without `words`."""

    comment: Span  # the line the command ends on
    words: Span  # the first of the words cut off
    text: str  # those words, as written (shortened)
    joined: bool
    blank: bool = False  # ended by a `\\` that escapes a trailing blank, not by a comment
    bare: bool = False  # ended by a newline with no `\\` at all

    def said(self) -> tuple[str, str]:
        """(message, fix) of the KV012 finding: what the shell runs, and which reading kvlint took."""
        line = self.comment.line
        if self.bare:
            message = (f"line {line} ends without `\\`, so the shell ends the command there: `{self.text}` and the "
                       "lines after run as a command of their own and fail" + (
                           "; kvlint read the launch as it was meant" if self.joined else
                           ", and the engine starts without them; kvlint read the launch as the shell runs it"))
        elif self.blank:
            message = (f"the `\\` at the end of line {line} is followed by a blank, so it escapes the blank, not the "
                       f"newline: the shell ends the command there with a one-blank argument, and `{self.text}` and "
                       "the lines after run as a command of their own and fail; kvlint read the launch as it was meant")
        elif self.joined:
            message = (f"the comment on line {line} ends this command (a `\\` inside a comment continues nothing): "
                       f"the shell runs it without `{self.text}` and the lines after, which then run as a command of "
                       "their own and fail; kvlint read the launch as it was meant")
        else:
            message = (f"the comment on line {line} ends the launch (a `\\` inside a comment continues nothing): "
                       f"`{self.text}` and the lines after it never reach the engine, the shell runs them as a command "
                       "of their own; kvlint read the launch as the shell runs it, without them")
        fix = ("delete the blanks after each `\\`" if self.blank else "end each continued line with `\\`"
               if self.bare else "move the comment off the continued lines") + \
            ": a line continues only when `\\` is its last character"
        return message, fix


@record
class Deployment:
    path: str
    engine: str  # "vllm" | "sglang"
    launch_span: Span | None  # the engine command (or chart key) that starts this instance
    model: str | None  # model reference as written (hf id, hf://, s3://, local path)
    model_span: Span | None = None
    model_resolved: bool = True  # False when the model is an unresolved expression
    served_model_name: str | None = None
    engine_version: str | None = None  # from the image tag when present
    engine_version_span: Span | None = None
    image: str | None = None  # the container image as written (a date or nightly tag: the releases it could be)
    image_span: Span | None = None
    said_image: str | None = None  # a build a comment of the script says it runs in (`# profile for org/sglang-fork`):
    # evidence for KV004 only (whose flags the build decides), never a pin
    extension: str | None = None  # a package the file installs with the engine as its extra (`pip install
    # arctic-inference[vllm]`): a plugin whose options the launch may use (KV004's evidence, never a pin)
    build_options: tuple[str, ...] = ()  # options of no release another launch of the file's same install gives
    # (three or more: a fork's): the install is that build, whose release the file does not say (never a pin)
    settings: dict[str, Setting] = field(default_factory=dict)
    unknown_flags: tuple[UnknownFlag, ...] = ()
    gpu: str | None = None  # GPU product as written (label value, resource name, instance type)
    gpu_span: Span | None = None
    gpu_count: int | None = None  # GPUs for this one instance (resources x group size)
    gpu_count_span: Span | None = None
    gpu_count_visible_only: bool = False  # the count is CUDA_VISIBLE_DEVICES: devices a process sees, none reserved
    gpu_count_grouped: bool = False  # the count is already the whole group's (LWS pods, nodes): not one node's share
    caller_overridable: tuple[str, ...] = ()  # flags whose value the script's caller may override: a default
    no_server_image: tuple[Span | None, str, str] | None = None  # the published image that starts no server, given
    # only the engine's flags (KV014): where it is named, its name, and the word the container runs as its program
    compose_cut: tuple[Span, str] | None = None  # where compose cuts the string command the engine's is in (KV017)
    cut: Cut | None = None  # the shell ends the command before option lines meant for it (KV012; a shell file's
    # or Makefile's reader says it, so their launches leave this None)
    no_subcommand: tuple[Span | None, str, str] | None = None  # the engine's CLI run without the subcommand that
    # starts its server (span of the program, the program, the subcommand): its parser exits (KV016)
    no_main: tuple[Span | None, str, str] | None = None  # the CLI's package run as a module (`python -m vllm serve`):
    # it has no `__main__`, Python exits (KV018): the package word's span, the package, the command meant (`vllm serve`)
    one_word_args: tuple[tuple[Span | None, str], ...] = ()  # words holding several of the engine's arguments,
    # passed as one (`"$args"`: KV013), read split as meant
    runner_rejects: tuple[tuple[Span | None, str], ...] = ()  # the engine's flags written before `docker run`'s
    # image, among its own options: docker exits with `unknown flag` (KV015); the launch is read without them
    gpu_count_shared: str | None = None  # the job's count, which another GPU program of the job may use (`torchrun at
    # line 33`): cards beyond the parallelism are not known to be idle
    config_file: str | None = None  # the vLLM --config file whose settings this launch holds (its real path): the
    # file a command merged, or the file itself read alone; a run reads a file another launch merged only there
    name: str = ""  # workload / chart entry name, for messages
    ignore_codes: tuple[str, ...] = ()  # from the kvlint.io/ignore annotation
    notes: tuple[str, ...] = ()  # what could not be resolved, and why
    invalid_values: tuple[InvalidValue, ...] = ()  # values the engine's argument parser refuses (KV007)
    gpu_options: tuple[GpuOption, ...] = ()  # several candidate products (evaluated one by one)
    node_labels: tuple[NodeLabel, ...] = ()  # node-selection labels (for the fleet map in .kvlint.yaml)
    declared_load: DeclaredLoad | None = None  # serving / autoscaling concurrency target
    model_aliases: tuple[ModelAlias, ...] = ()  # other names of the model (for a local path)
    disabled: Span | None = None  # the entry's own `enabled: false` (a chart default, not deployed as written)
    disabled_why: str = ""  # why, when not the entry's own `enabled: false` (`{line}`: the line of `disabled`)
    program: str | None = None  # the engine's program as a path (`~/vllm-gfx908/.venv/bin/vllm`): whose install runs
    runner: str | None = None  # the project runner the engine is started through (`uv run`: "uv"): its lock decides
    container: str | None = None  # `docker exec NAME CMD` into a container the file did not start: its release is
    # that container's image's, which the file does not say
    # the release (kvlint.resolve.project)
    server: str | None = None  # another server of the engine the launch starts ("diffusion": sglang.multimodal_gen,
    # no KV cache; kvlint.flags.server), None for the engine's own
    env_switches: tuple[str, ...] = ()  # engine variables its process sees on (`VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`)
    otherwise: dict[str, Setting] | None = None  # the settings on the file's other branch, when a condition kvlint
    # does not decide changes them (a program's `if short: cmd += [...]`, a script's `if [ ... ]; then ARGS=...; fi`):
    # the launch is also sized with them (kvlint.resolve's open input)
    otherwise_why: str = ""  # that branch, for messages ("the program adds flags under `if short` at line 8")
    one_of_arms: bool = False  # one of the configurations the arms of an `if` / `case` / `for` give one command
    # (`case "$1" in qwen) MODEL=a;; llama) MODEL=b;; esac` then `vllm serve "$MODEL"`): each is sized, and with the
    # command's other arms it is one launch (kvlint.launches.groups.launch_count)

    def resolved_values(self) -> dict[str, Any]:
        """Canonical name -> value of the settings that are not unresolved expressions."""
        return {name: s.value for name, s in self.settings.items() if s.resolved}

    def get(self, name: str, default: Any = None) -> Any:
        s = self.settings.get(name)
        return default if s is None or not s.resolved else s.value

    def span_of(self, name: str) -> Span | None:
        s = self.settings.get(name)
        return s.span if s else None


BUILD_OPTIONS = 3  # options of no release, nothing spelled like them, that make a launch a build's (KV004's family)


def build_options(dep: Deployment) -> tuple[str, ...]:
    """The options a launch gives that no release of its engine has and nothing is spelled like, when there are
    at least three (sample K172's SGLang fork script): the install it runs is the build that adds them. Fewer
    are typos' or a plugin's few."""
    plain = tuple(u.flag for u in dep.unknown_flags if u.reason == "unrecognized" and not u.suggestion)
    return plain if len(plain) >= BUILD_OPTIONS else ()


def launch_count(deps: list[Deployment]) -> int:
    """How many launches the deployments are: the configurations the arms of one command give
    (Deployment.one_of_arms, the same command at the same place) count once, as a reader counts that command."""
    arms = {(d.path, d.engine, d.launch_span) for d in deps if d.one_of_arms}
    return sum(1 for d in deps if not d.one_of_arms) + len(arms)

