"""vLLM's facts: what it is called, which setting plays each role and how a fix spells it, the images and entry
points that start it, and what it does at start-up. Imports nothing: every floor of the pipeline may read it.
"""

NAME = "vllm"
TITLE = "vLLM"  # as messages write it
FLAGS_FILE = "vllm_flags.json"  # package data: its option table
MODEL_FLAG = "--model"  # the flag that names the model (beside `serve MODEL`)
ENTRY_MODULES = ("vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server")  # python -m MODULE starts it
# engine arguments a program builds and hands to the engine's own server function in process (classes, the
# function, the module it comes from): `AsyncEngineArgs(model=M)` + `run_server` is `vllm serve M`
IN_PROCESS_SERVER = (("AsyncEngineArgs", "EngineArgs"), "run_server", "vllm.entrypoints")
# the API server's app factory (vllm.entrypoints.openai.api_server's `build_app(engine)`), served by the program with
# uvicorn: the same server as run_server's, built by hand around an engine the program makes from those arguments
IN_PROCESS_APP = ("build_app", "uvicorn")
# the API server's own start-up steps a host framework runs in its place (BentoML's vLLM services: the engine client
# `build_async_engine_client(args)` and `init_app_state(engine, config, app.state, args)` on the host's app): the
# OpenAI server, served by the host, on the arguments the program parsed
IN_PROCESS_STATE: tuple[str, str] | None = ("build_async_engine_client", "init_app_state")
SERVER_OBJECT: tuple[str, str] | None = None  # no class of its package starts its server when made (LLM is in process)
# `make_arg_parser(FlexibleArgumentParser()).parse_args([MODEL, "--flag", ...])` then run_server: `vllm serve`'s argv
IN_PROCESS_ARGV = ("make_arg_parser", "parse_args", ("vllm", "serve"))
# its CLI and the subcommand that starts the server: `vllm --model M` (no subcommand) is rejected by the CLI's parser
CLI_SUBCOMMAND: tuple[str, str] | None = ("vllm", "serve")
# the module whose `main()` runs the CLI on `sys.argv` in process (`sys.argv = [prog, "serve", M, ...]; main()`)
CLI_MAIN: str | None = "vllm.entrypoints.cli.main"
# the CLI's package, which has no `__main__` module (the 0.14.0 and 0.33.0 wheels hold no vllm/__main__.py): `python
# -m vllm serve M` exits before anything loads ("'vllm' is a package and cannot be directly executed")
CLI_PACKAGE_WITHOUT_MAIN: str | None = "vllm"
LAUNCH_HELPER: tuple[str, str, str] | None = None  # no helper of vLLM's package starts its server with a model
SERVERS: dict[str, str] = {}  # other servers it starts with a parser of their own (none)
SERVER_ENTRY_MODULES: dict[str, str] = {}
UNSIZED_SERVERS: dict[str, str] = {}
# the entry point is the server (a CPU image, the ECR releases or `docker build -f docker/Dockerfile.cpu`, is that
# file's last stage, vllm-openai, whose entry point is `vllm serve`)
# images whose entry point is the server (run with arguments only); Red Hat AI Inference Server's
# (`registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.0.0 --model M`, its documented `podman run`, sample K234)
IMAGE_MARKERS = ("vllm-openai", "vllm/vllm-tpu", "vllm-tpu", "vllm/vllm", "vllm-cpu", "vllm-arm64-cpu-release-repo",
                 "rhaiis/vllm-")
IMAGE_SHIPS = ("vllm-openai", "vllm/vllm", "vllm-tpu", "vllm-rocm", "vllm-cpu", "nm-vllm", "rhaiis/vllm",
               "modh/vllm", "opendatahub/vllm", "vllm-cuda")  # images that carry vLLM, entry point or not
NO_SERVER_IMAGES: tuple[str, ...] = ()  # every published vLLM image's entry point is the server
VERSION_TAGGED_IMAGES = ("vllm-openai", "vllm-tpu", "vllm-cpu", "vllm-rocm")  # repos (and NAME) tagged vX.Y.Z
BUILD_IMAGE_PREFIXES: tuple[str, ...] = ()  # own builds whose repo does not hold NAME (their tags are releases)
PARSER_SOURCES = ("vllm/engine/arg_utils.py",)  # where a source checkout keeps the argument parser (a fork)
UPSTREAM = "vllm-project/vllm"  # its own repository: a clone of it is the stock engine at a development commit
MEMORY_VIEW = "torch"  # sizing starts from cudaMemGetInfo's total
FP8_KV_DTYPE = "fp8"
REFUSES_UNFIT_REQUEST = True  # refuses to start when one max-length request does not fit (KV101)
STARTS_WITH_SHORT_POOL = False
CHECKS_BATCHED_TOKENS = True  # refuses max_num_batched_tokens below max_num_seqs / max_model_len (KV106)
LONG_CONTEXT_OUTCOME = "vLLM refuses to start unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
LONG_CONTEXT_SWITCH = "VLLM_ALLOW_LONG_MAX_MODEL_LEN"
MEMORY_SHARE_DEFAULT = "default"
HEADROOM_LABEL = "headroom"
DEFAULT_MODEL: str | None = "Qwen/Qwen3-0.6B"  # what `vllm serve` serves with no model given
# files of the engine's own source tree a launch reads by a relative path (`--chat-template
# ./examples/template_alpaca.jinja`): the command runs from a checkout of vLLM (a fork or a source install)
TREE_NAMES = ("vllm",)  # words a folder holding a source checkout of the engine is named with
SOURCE_TREE_FILES = ("examples/template_", "examples/tool_chat_template_")
# values older releases than the flag table read where the tables' releases refuse them, from the 0.4.0 ... 0.10.2
# wheels' arg_utils.py: option -> (the reading, first release read with it, last read with it, first read without).
# "word": a switch that took an optional word (argparse `StoreBoolean`, `nargs="?"`: `--enable-chunked-prefill False`
# turned it off; 0.4.3 and 0.5.0 read it as a plain switch, 0.8.5 on a `BooleanOptionalAction`). "key=value": a JSON
# option that also took `image=5,video=5` (`nullable_kvs`, deprecated in 0.8.5, gone in 0.10.0).
OLDER_READINGS: dict[str, tuple[str, str, str, str]] = {
    "--enable-chunked-prefill": ("word", "0.5.5", "0.8.0", "0.8.5"),
    "--disable-logprobs-during-spec-decoding": ("word", "0.5.5", "0.8.0", "0.8.5"),
    "--multi-step-stream-outputs": ("word", "0.6.6", "0.8.0", "0.8.5"),
    "--limit-mm-per-prompt": ("key=value", "0.5.5", "0.9.2", "0.10.0"),
    # `all` was one of MambaCacheMode's choices (vllm/config/cache.py) from the option's first release to 0.31.0
    "--mamba-cache-mode": ("choice:all", "0.15.0", "0.31.0", "0.32.0"),
}
KV_SETTINGS = ("max_model_len", "tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size",
               "gpu_memory_utilization", "dtype", "kv_cache_dtype", "quantization", "max_num_seqs",
               "max_num_batched_tokens", "block_size", "kv_cache_memory_bytes")  # what sizes its pool (inspect)
ROLES = {"max_len": "max_model_len", "tp": "tensor_parallel_size", "pp": "pipeline_parallel_size",
         "dp": "data_parallel_size", "dcp": "decode_context_parallel_size",
         "pcp": "prefill_context_parallel_size", "max_seqs": "max_num_seqs",
         "kv_dtype": "kv_cache_dtype", "mem": "gpu_memory_utilization", "quant": "quantization",
         "max_batched": "max_num_batched_tokens", "nodes": "nnodes",
         "dp_local": "data_parallel_size_local",  # the data-parallel ranks this node runs (multi-node DP)
         "dp_rank": "data_parallel_rank"}  # this process's one rank of an externally balanced DP group
FLAGS = {"max_len": "--max-model-len", "tp": "-tp", "pp": "-pp", "dp": "-dp", "dcp": "-dcp", "pcp": "-pcp",
         "max_seqs": "--max-num-seqs", "kv_dtype": "--kv-cache-dtype", "mem": "--gpu-memory-utilization",
         "quant": "--quantization", "max_batched": "--max-num-batched-tokens", "nodes": "--nnodes",
         "dp_local": "--data-parallel-size-local", "dp_rank": "--data-parallel-rank"}
