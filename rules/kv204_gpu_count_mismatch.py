"""The parallelism asks for a different number of GPUs than the pod or group requests.

## What it checks
TP x PP (x vLLM's prefill context parallel ranks, `-pcp`, which add to its world size; x DP when the
data-parallel replicas run in the same instance; on one node of a multi-node vLLM
data-parallel deployment, x the ranks `--data-parallel-size-local` gives that node, unless kvlint summed the count
over the group's pods or nodes, which is judged on the whole) against the GPUs the
instance requests: `nvidia.com/gpu` limits times the group size (LeaderWorkerSet, Ray), or the
chart's GPU count. When the group size is left to the platform (`--nnodes $(LWS_GROUP_SIZE)`), the
count is a range, the request per node times any node count: the rule fires only when no node count
gives TP x PP (x DP), and never asserts a group of one.

## Why it matters
Too few GPUs: the engine waits for ranks that never start or fails with an invalid device ordinal (an error).
Too many: the scheduler reserves cards that stay idle; the server starts, so it is a warning. Devices that are
only made visible (`CUDA_VISIBLE_DEVICES=0,1,2,3` on a workstation) are not reserved: more of them than the
parallelism uses is an info (a TP that was meant, perhaps), never an error. So is a job that starts the server in
the background and then runs another GPU program (`vllm serve M &` then `torchrun train.py`): the cards beyond
the parallelism may be that program's, and so is one whose devices are chosen at run time
(`CUDA_VISIBLE_DEVICES=$GPU vllm serve ... &` in a loop over the job's GPUs): the other cards are its copies'. So
are idle cards of a script's defaults that its callers override (`TP=1` then `--tp) TP="$2"` in its argument
loop), or of a variable's default that the deployment's environment sets (`--tensor-parallel-size
${VLLM_GPU_COUNT:-1}` in a compose file, its `.env` beside it): the finding names the flags. A launch on a Neuron,
TPU or Gaudi device is not checked: one `aws.amazon.com/neuron` device holds several NeuronCores a TP spans. Nor is
a launch of a plugin that places its own stages on devices (`vllm serve M --omni`: vllm-omni puts each stage of a
multi-stage model on the devices its stage config names, `--stage-overrides '{"1": {"devices": "1"}}'`).

## Example
```yaml
args: ["--tensor-parallel-size", "4"]
resources: {limits: {nvidia.com/gpu: 2}}
```

## Use instead
Make the request equal to TP x PP (x DP), or change the parallelism.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from kvlint.findings import Finding, Related, Severity
from kvlint.registry import Context, rule
from kvlint.rules import _common as c


@rule("KV204", "gpu-count-mismatch", Severity.ERROR,
      "TP x PP (x DP) differs from the GPUs the instance requests.", reads=("tp", "pp", "dp"))
def check(ctx: Context) -> Iterator[Finding]:
    dep = ctx.deployment
    if not dep.gpu_count or ctx.device_kind is not None:
        return  # a Neuron / TPU / Gaudi device count is not a GPU count: one Neuron device holds several cores
    needed, parts = ctx.engine.gpus_needed(dep.resolved_values())
    if needed == dep.gpu_count:
        return
    plugin = c.switched_plugin(dep) if dep.unknown_flags else None
    if plugin is not None and plugin.places_devices:
        return  # `--omni`: vllm-omni runs each stage of the model on the devices its stage config names
    # every setting written, its value or its expression: a rank given as `$RANK` still makes one rank's process
    given = {name: s.value for name, s in dep.settings.items()}
    share = ctx.engine.node_share(given) if not dep.gpu_count_grouped else None  # a group's count
    # is the whole instance's, judged against the whole (sample K206: KServe's `data: 8, dataLocal: 4` pods summed)
    if share is not None and dep.gpu_count < needed:  # fewer than the whole: one node's launch of a multi-node
        if share[0] == dep.gpu_count:  # deployment, judged on the ranks it runs (a group's sum is the whole's)
            return
        needed, parts = share
    shown = " x ".join(f"{c.flag(dep.engine, r)} {v}" for r, v in parts if v > 1 or r == "tp")
    group = _unresolved_group(ctx)
    if group is not None and needed > dep.gpu_count and needed % dep.gpu_count == 0:
        return  # some node count gives exactly the ranks: the group size decides, and the file leaves it open
    outcome = ("the engine cannot start all its ranks" if needed > dep.gpu_count
               else f"{dep.gpu_count - needed} visible GPU(s) go unused (CUDA_VISIBLE_DEVICES reserves none)"
               if dep.gpu_count_visible_only else
               f"{dep.gpu_count - needed} GPU(s) are the job's, not the engine's: the job also runs "
               f"{dep.gpu_count_shared} beside the server, which may use them" if dep.gpu_count_shared
               else f"{dep.gpu_count - needed} requested GPU(s) stay idle")
    written = [s for r, _ in parts if (s := dep.settings.get(ctx.engine.setting(r))) is not None]
    overridable = [s.flag for s in written if s.flag in dep.caller_overridable]  # `--tp) TP="$2"`: a script's default
    expanded = [s.flag for s in written if s.origin == "default-expansion"]  # `--tp ${GPU_COUNT:-1}`: the deployment's
    if overridable and needed < dep.gpu_count:
        outcome += f" with the script's defaults, which its callers may change ({', '.join(overridable)})"
    elif expanded and needed < dep.gpu_count:
        outcome += f" with the defaults of variables the deployment's environment sets ({', '.join(expanded)})"
        overridable = expanded
    severity = (None if needed > dep.gpu_count else Severity.INFO
                if dep.gpu_count_visible_only or dep.gpu_count_shared or overridable else Severity.WARNING)
    requests = (f"the launch sees {dep.gpu_count}" if dep.gpu_count_visible_only
                else f"the instance requests {dep.gpu_count}")
    if group is not None:
        requests = (f"each of its {group} nodes requests {dep.gpu_count}, and no node count makes {needed}"
                    if needed > dep.gpu_count else f"each of its {group} nodes requests {dep.gpu_count}")
    related = [Related(dep.gpu_count_span, f"requests {dep.gpu_count} GPU(s)")] if dep.gpu_count_span else []
    yield check.rule.finding(
        ctx, f"{shown} needs {needed} GPU(s) per instance but {requests}: {outcome}",
        c.primary(dep, "tp", "pp", "dp") if any(c.span(dep, r) for r in ("tp", "pp", "dp")) else
        (dep.gpu_count_span or dep.launch_span), related=related,
        fix=f"request {needed} GPU(s)", severity=severity, needed=needed, requested=dep.gpu_count)


def _unresolved_group(ctx: Context) -> str | None:
    """The node count as written when the file leaves it to the platform (`$(LWS_GROUP_SIZE)`), else None."""
    name = ctx.engine.setting("nodes")
    if name not in ctx.unresolved:
        return None
    s = ctx.deployment.settings.get(name)
    return (s.raw or "?") if s is not None else "?"
