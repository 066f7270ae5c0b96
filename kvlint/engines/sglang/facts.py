"""SGLang's facts: what it is called, which setting plays each role and how a fix spells it, the images and entry
points that start it, and what it does at start-up. Imports nothing: every floor of the pipeline may read it.
"""

NAME = "sglang"
TITLE = "SGLang"  # as messages write it
FLAGS_FILE = "sglang_flags.json"  # package data: its option table
MODEL_FLAG = "--model-path"  # the flag that names the model
ENTRY_MODULES = ("sglang.launch_server", "sglang.multimodal_gen.runtime.launch_server")  # python -m MODULE starts it
# `ServerArgs(model_path=M)` + sglang.srt.entrypoints.http_server's `launch_server`: what launch_server's module runs
IN_PROCESS_SERVER = (("ServerArgs",), "launch_server", "sglang")
IN_PROCESS_STATE: tuple[str, str] | None = None  # no server start-up steps a host framework runs in its place
# the engine's own class that starts its server in a process of its own when made, and the package it comes from:
# `sgl.Runtime(model_path=M, ...)` makes ServerArgs of its keywords and runs launch_server in a subprocess
SERVER_OBJECT: tuple[str, str] | None = ("Runtime", "sglang")
IN_PROCESS_APP: tuple[str, str] | None = None  # no app factory a program serves: launch_server builds and runs it
# `prepare_server_args([...])` then launch_server (what sglang.launch_server's module does with sys.argv): the list is
# `python -m sglang.launch_server`'s
IN_PROCESS_ARGV = ("prepare_server_args", "prepare_server_args", ("python", "-m", "sglang.launch_server"))
# no CLI kvlint knows to take the server's flags only after a subcommand (`sglang serve` is read as a server of its own)
CLI_SUBCOMMAND: tuple[str, str] | None = None
CLI_MAIN: str | None = None  # no CLI module kvlint knows a program runs on its own `sys.argv`
CLI_PACKAGE_WITHOUT_MAIN: str | None = None  # no subcommand CLI (above), so no package run by mistake for it
# a helper of the engine's own package that starts its server in a subprocess: (function, module, the keyword holding
# the extra arguments); the model is its first argument (`popen_launch_server(model, base_url, other_args=[...])`)
LAUNCH_HELPER: tuple[str, str, str] | None = ("popen_launch_server", "sglang.test.test_utils", "other_args")
# Other servers it starts, each with a parser of its own (name -> its flag table's data file): `sglang serve` hands a
# diffusion model to sglang.multimodal_gen (sglang/cli/serve.py), which has no KV cache (kvlint.flags.server decides)
SERVERS = {"diffusion": "sglang_diffusion_flags.json"}
SERVER_ENTRY_MODULES = {"sglang.multimodal_gen.runtime.launch_server": "diffusion"}  # python -m MODULE starts it
UNSIZED_SERVERS = {"diffusion": "SGLang's diffusion server: no KV cache to size"}  # servers with no pool, and why
IMAGE_MARKERS: tuple[str, ...] = ()  # lmsysorg/sglang images need an explicit launch command
IMAGE_SHIPS = ("lmsysorg/sglang", "sglang:", "/sglang")  # images that carry SGLang
# the published image's Dockerfile sets no ENTRYPOINT and no server CMD (docker/Dockerfile): arguments given it alone
# (`command: [--model-path, M]`) are run as its program, which does not exist, and the container exits
NO_SERVER_IMAGES = ("lmsysorg/sglang",)
VERSION_TAGGED_IMAGES = ("sglang",)  # image repos (and NAME) whose tag is the release
BUILD_IMAGE_PREFIXES = ("sgl-",)  # own builds whose repo does not hold NAME (their tags are releases)
PARSER_SOURCES = ("python/sglang/srt/server_args.py", "sglang/srt/server_args.py")  # a fork's parser
UPSTREAM = "sgl-project/sglang"  # its own repository: a clone of it is the stock engine at a development commit
MEMORY_VIEW = "nvidia-smi"  # sizing starts from the MiB nvidia-smi prints
FP8_KV_DTYPE = "fp8_e4m3"
REFUSES_UNFIT_REQUEST = False
STARTS_WITH_SHORT_POOL = True  # starts with a pool shorter than the context, rejects later (KV104)
CHECKS_BATCHED_TOKENS = False
# model_config.py (0.5.4 to 0.5.23): a longer --context-length raises ValueError unless the variable below is set
LONG_CONTEXT_OUTCOME = "SGLang refuses to start unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"
LONG_CONTEXT_SWITCH = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"
MEMORY_SHARE_DEFAULT = "default for this GPU"
HEADROOM_LABEL = "reserve (activations, graphs)"
DEFAULT_MODEL: str | None = None  # the engine requires a model
OLDER_READINGS: dict[str, tuple[str, str, str, str]] = {}  # none known (kvlint.engines.base)
TREE_NAMES = ("sglang", "sgl")  # words a folder holding a source checkout of the engine is named with
SOURCE_TREE_FILES = ("examples/chat_template/",)  # files of SGLang's own tree a launch may read by a relative path
KV_SETTINGS = ("context_length", "tp_size", "pp_size", "dp_size", "mem_fraction_static", "dtype", "kv_cache_dtype",
               "quantization", "max_running_requests", "max_total_tokens", "page_size")  # what sizes its pool (inspect)
ROLES = {"max_len": "context_length", "tp": "tp_size", "pp": "pp_size", "dp": "dp_size", "dcp": "dcp_size",
         "max_seqs": "max_running_requests", "kv_dtype": "kv_cache_dtype", "mem": "mem_fraction_static",
         "quant": "quantization", "max_batched": "chunked_prefill_size",
         "pool_cap": "max_total_tokens", "nodes": "nnodes"}
FLAGS = {"max_len": "--context-length", "tp": "--tp-size", "pp": "--pp-size", "dp": "--dp-size",
         "dcp": "--dcp-size", "max_seqs": "--max-running-requests", "kv_dtype": "--kv-cache-dtype",
         "mem": "--mem-fraction-static", "quant": "--quantization", "max_batched": "--chunked-prefill-size",
         "pool_cap": "--max-total-tokens", "nodes": "--nnodes"}
