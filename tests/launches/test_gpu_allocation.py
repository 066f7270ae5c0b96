"""GPU counts and products where the manifest's unit is not one engine instance: Slurm per-node
requests over several nodes, one allocation shared by several launches, a chart's resource name."""

from __future__ import annotations

import pytest

from kvlint.launches import read_path

LAUNCH = "srun vllm serve org/m -tp 8 -pp 2 --distributed-executor-backend ray\n"


def _deps(tmp_path, name: str, text: str):
    (tmp_path / name).write_text(text, encoding="utf-8")
    return read_path(str(tmp_path / name)).deployments


@pytest.mark.parametrize("header, count, note", [
    ("#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\n", 16, "8 per node (--gres) x --nodes 2"),
    ("#SBATCH -N 2\n#SBATCH --gres=gpu:h100:8\n", 16, "8 per node (--gres) x --nodes 2"),
    ("#SBATCH -N2 --gpus-per-node=8\n", 16, "8 per node (--gpus-per-node) x --nodes 2"),
    ("#SBATCH --nodes 2\n#SBATCH --gres gpu:8,nvme:1\n", 16, "x --nodes 2"),
    ("#SBATCH --nodes=2\n#SBATCH --gpus=16\n", 16, None),  # --gpus is per job
    ("#SBATCH --nodes=1\n#SBATCH --gres=gpu:8\n", 8, None),
    ("#SBATCH --gres=gpu:8\n", 8, None),
])
def test_per_node_requests_multiply_by_nodes(tmp_path, header, count, note):
    [d] = _deps(tmp_path, "job.slurm", "#!/bin/bash\n" + header + LAUNCH)
    assert d.gpu_count == count
    assert (note is None) == (not any("per node" in n for n in d.notes))
    if note:
        assert any(note in n for n in d.notes)


def test_open_node_range_leaves_the_count_unknown(tmp_path):
    [d] = _deps(tmp_path, "job.slurm", "#!/bin/bash\n#SBATCH --nodes=2-4\n#SBATCH --gres=gpu:8\n" + LAUNCH)
    assert d.gpu_count is None and any("--nodes 2-4 is not one number" in n for n in d.notes)


def test_srun_gres_is_per_node_of_the_job(tmp_path):
    [d] = _deps(tmp_path, "job.slurm", "#!/bin/bash\n#SBATCH --nodes=2\nsrun --gres=gpu:a100:8 vllm serve org/m -tp 8 -pp 2\n")
    assert (d.gpu, d.gpu_count, d.gpu_count_span.line) == ("a100", 16, 3)
    [one] = _deps(tmp_path, "one.slurm", "#!/bin/bash\n#SBATCH --nodes=2\nsrun -N 1 --gres=gpu:8 vllm serve org/m -tp 8\n")
    assert one.gpu_count == 8


def test_launches_sharing_one_allocation_keep_only_their_own_counts(tmp_path):
    deps = _deps(tmp_path, "job.slurm", "#!/bin/bash\n#SBATCH --gres=gpu:h100:8\n"
                 "srun --gres=gpu:8 vllm serve org/a -tp 8 &\n"
                 "CUDA_VISIBLE_DEVICES=0,1 vllm serve org/b -tp 2 &\n"
                 "vllm serve org/c --port 8001 &\nwait\n")
    assert [d.gpu_count for d in deps] == [8, 2, None]
    assert all(d.gpu == "h100" for d in deps)
    assert any("3 engine launches share this job's 8 GPU(s)" in n for n in deps[2].notes)
    assert not any("share" in n for n in deps[0].notes + deps[1].notes)


STACK = """servingEngineSpec:
  modelSpec:
  - name: a
    modelURL: org/m
    requestGPU: 4
    requestGPUType: "{gtype}"
{placement}
"""
TERMS = """    nodeSelectorTerms:
    - matchExpressions:
      - key: nvidia.com/gpu.product
        operator: In
        values: ["NVIDIA-A100-SXM4-80GB"]"""
AFFINITY = """    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: nvidia.com/gpu.product
              operator: In
              values: ["NVIDIA-H100-80GB-HBM3"]"""


@pytest.mark.parametrize("gtype, placement, product", [
    ("nvidia.com/gpu", TERMS, "NVIDIA-A100-SXM4-80GB"),
    ("amd.com/gpu", TERMS, "NVIDIA-A100-SXM4-80GB"),
    ("nvidia.com/gpu", AFFINITY, "NVIDIA-H100-80GB-HBM3"),
    ("nvidia.com/gpu", "", None),
    ("nvidia.com/mig-4g.71gb", TERMS, "nvidia.com/mig-4g.71gb"),  # a MIG profile names the device
])
def test_production_stack_resource_name_is_not_a_product(tmp_path, gtype, placement, product):
    [d] = _deps(tmp_path, "values.yaml", STACK.format(gtype=gtype, placement=placement))
    assert (d.gpu, d.gpu_count) == (product, 4)
