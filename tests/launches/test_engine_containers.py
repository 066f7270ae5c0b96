"""An engine container described in a schema kvlint has no adapter for (a benchmark harness's cell file, a deploy
tool's own YAML): an engine image, given as `image` or as a repository key + a tag key, beside an argv list of
the engine's flags is one launch, its values at their positions."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.test_docker_and_positional import _at

HARNESS_CELL = """# ablation cell
cell_id: a1
engine:
  image_repo: vllm/vllm-openai
  image_tag: v0.7.3
  command:
    - --model
    - Qwen/Qwen2.5-7B-Instruct
    - --max-model-len
    - "8192"
    - --tensor-parallel-size
    - "2"
  gpu_device: 0
workload:
  model: Qwen/Qwen2.5-7B-Instruct
"""


def test_repository_and_tag_keys_beside_an_engine_argv_are_a_launch():
    [dep] = read_path("a1.yaml", HARNESS_CELL).deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", (8, 7))
    assert dep.image == "vllm/vllm-openai:v0.7.3" and dep.engine_version == "0.7.3"
    assert dep.get("max_model_len") == 8192 and _at(dep.settings["max_model_len"].span) == (10, 7)
    assert dep.get("tensor_parallel_size") == 2 and _at(dep.settings["tensor_parallel_size"].span) == (12, 7)


def test_a_repository_key_of_another_image_is_not_an_engine():
    text = "job:\n  image_repo: python\n  image_tag: '3.12'\n  command: [--model, org/m, --max-model-len, '4096']\n"
    assert read_path("cell.yaml", text).deployments == []


# An engine wrapper image configured only by its environment (kvlint/data/env_images.json): the image's own
# entry point builds the engine command from the variables, so a compose service with no command is a launch.
RUNPOD_SGLANG = """services:
  sglang-worker:
    image: runpod/worker-sglang:dev
    environment:
      - HOST=0.0.0.0
      - MODEL_PATH=Qwen/Qwen3-8B
      - HF_TOKEN=${HF_TOKEN}
      - DTYPE=bfloat16
      - TENSOR_PARALLEL_SIZE=2
      - "CONTEXT_LENGTH=8192"
      - MEM_FRACTION_STATIC=0.85
"""

RUNPOD_VLLM = """services:
  worker:
    image: runpod/worker-v1-vllm:stable-cuda12.1.0
    environment:
      MODEL_NAME: org/model-7b
      OPENAI_SERVED_MODEL_NAME_OVERRIDE: my-model
      MAX_MODEL_LEN: "4096"
      MAX_CONCURRENCY: "30"
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
"""


def test_a_wrapper_image_configured_by_compose_environment_is_a_launch():
    [dep] = read_path("docker-compose.yml", RUNPOD_SGLANG).deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("sglang", "Qwen/Qwen3-8B", (6, 20))
    assert dep.get("tp_size") == 2 and _at(dep.settings["tp_size"].span) == (9, 30)
    assert dep.get("context_length") == 8192 and _at(dep.settings["context_length"].span) == (10, 25)
    assert dep.get("mem_fraction_static") == 0.85 and dep.get("dtype") == "bfloat16"  # a bare DTYPE: the table says so


def test_a_wrapper_images_own_variable_names_come_from_the_table():
    [dep] = read_path("docker-compose.yml", RUNPOD_VLLM).deployments
    assert (dep.engine, dep.model, dep.served_model_name, dep.gpu_count) == ("vllm", "org/model-7b", "my-model", 1)
    assert dep.get("max_model_len") == 4096 and _at(dep.settings["max_model_len"].span) == (7, 22)
    assert "max_concurrency" not in dep.settings  # the worker's own variable, not an engine flag


NEURON_VLLM = """services:
  vllm-1:
    image: optimum-neuron-vllm:latest
    environment:
      - SM_ON_PORT=8081
      - SM_ON_MODEL=${MODEL_ID}
      - SM_ON_TENSOR_PARALLEL_SIZE=32
      - SM_ON_SEQUENCE_LENGTH=4096
    devices:
      - "/dev/neuron0"
"""


def test_a_wrapper_images_variable_left_to_the_run_is_an_unresolved_model():
    """Sample K156's optimum-neuron compose (KV008 at measurement): the image's entry point turns SM_ON_<NAME> into
    --<name>; the model variable is `${MODEL_ID}`, set at run time: a launch whose model is unresolved (counting
    rule 8), the other variables its flags by the table's aliases, on a Neuron device (no GPU)."""
    [dep] = read_path("docker-compose.yml", NEURON_VLLM).deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "${MODEL_ID}", (6, 21))
    assert dep.get("tensor_parallel_size") == 32 and dep.get("max_model_len") == 4096
    unresolved = read_path("docker-compose.yml", NEURON_VLLM.replace("optimum-neuron-vllm", "redis")).deployments
    assert unresolved == []  # another image: its variables are nobody's flags


def test_a_service_of_another_image_with_the_same_variables_is_no_launch():
    assert read_path("docker-compose.yml", RUNPOD_SGLANG.replace("runpod/worker-sglang:dev", "redis:7")).deployments == []


def test_env_images_table_matches_its_schema():
    import jsonschema

    from kvlint.data import load_json

    jsonschema.validate(load_json("env_images.json"), load_json("env_images.schema.json"))


def test_a_client_service_named_for_the_engine_is_not_an_env_configured_launch():
    """A compose client built as `app-vllm` with `LLM_MODEL=...` calls the engine; only a known wrapper image is
    read from its environment in a compose file."""
    text = ("services:\n  llm-service:\n    image: fasttalk-llm-service-vllm:latest\n    environment:\n"
            "      - VLLM_BASE_URL=http://vllm:8000/v1\n      - LLM_MODEL=llama3.2:1b\n")
    assert read_path("docker-compose.yml", text).deployments == []


def test_a_known_image_that_carries_the_engine_given_its_flags_starts_it():
    """Sample K126's OPEA compose (measured: its ROCm service passed over): `image: ${REGISTRY:-opea}/vllm-rocm:...`
    is a known image that carries vLLM, its entry point not known; given vLLM's flags alone (`command: "--model M
    --tensor-parallel-size N ..."`) its entry point is the engine's, as a build named for the engine is read. An
    image of an engine whose published images start no server (`lmsysorg/sglang`) still runs its first flag (KV014)."""
    text = ("services:\n  rocm:\n    image: ${REGISTRY:-opea}/vllm-rocm:${TAG:-latest}\n"
            "    command: \"--model ${MODEL_ID} --dtype float16 --tensor-parallel-size 2 --port 8011\"\n")
    [dep] = read_path("compose.yaml", text).deployments
    assert (dep.engine, dep.model, _at(dep.model_span), dep.get("tensor_parallel_size")) == \
        ("vllm", "${MODEL_ID}", (4, 23), 2)
    sglang = "services:\n  s:\n    image: lmsysorg/sglang:v0.5.2\n    command: --model-path org/m --tp 2\n"
    [bare] = read_path("compose.yaml", sglang).deployments
    assert bare.no_server_image is not None and bare.no_server_image[2] == "--model-path"


def test_a_program_and_its_arguments_on_an_engine_image_is_no_launch():
    """Sample K127 (measured: a launch of the model "uvicorn"): `image: vllm-cpu:latest` with `command: ["uvicorn",
    "reranker:app", "--host", ...]`: a word that is no model followed by another positional word is a program run in
    the image, not the engine's model (no engine's parser takes two positionals); a model then flags stays one."""
    text = 'services:\n  r:\n    image: vllm-cpu:latest\n    command: [{args}]\n'
    program = '"uvicorn", "reranker:app", "--host", "0.0.0.0", "--port", "8000"'
    assert read_path("compose.yaml", text.format(args=program)).deployments == []
    [dep] = read_path("compose.yaml", text.format(args='"my-model", "--max-model-len", "4096"')).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "my-model", 4096)
