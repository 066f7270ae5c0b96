"""quiet_steps: a budget computed without its derivation log has every number of the logged one."""

from kvlint.engines import get_engine
from kvlint.gpus import lookup_gpu
from kvlint.memory.common import quiet_steps
from kvlint.models.resolve import from_registry
from kvlint.record import replace


def _both(engine: str, model: str, settings: dict, gpu: str, total: int | None = None):
    e, spec, card = get_engine(engine), from_registry(model), lookup_gpu(gpu)
    loud = e.budget(spec, settings, card, gpu_memory_bytes=total)
    with quiet_steps():
        quiet = e.budget(spec, settings, card, gpu_memory_bytes=total)
    return loud, quiet


def test_a_quiet_budget_differs_from_the_logged_one_only_by_its_log():
    cases = [("vllm", "meta-llama/Llama-3.1-8B-Instruct", {"max_model_len": 8192}, "L4", None),
             ("vllm", "Qwen/Qwen2.5-7B-Instruct", {"tensor_parallel_size": 2}, "A100-40GB", 30 * 2**30),
             ("sglang", "meta-llama/Llama-3.1-8B-Instruct", {"context_length": 32768}, "H100", None)]
    for engine, model, settings, gpu, total in cases:
        loud, quiet = _both(engine, model, settings, gpu, total)
        assert loud.steps and not quiet.steps and not quiet.notes
        assert replace(loud, steps=(), notes=()) == quiet


def test_the_log_comes_back_after_the_block():
    with quiet_steps():
        pass
    loud, _ = _both("vllm", "meta-llama/Llama-3.1-8B-Instruct", {}, "H100")
    assert loud.steps
