"""Whole classes of launch shape the readers did not read: a command run through a program kvlint does not know
whose arguments are an engine's flags (kvlint.launches.byflags), ... Fixtures in tests/fixtures/launches/finder;
every model and flag pinned to (line, col)."""

from __future__ import annotations

from tests.launches.test_docker_and_positional import _at
from tests.launches.test_finder import _deps


def test_a_program_kvlint_does_not_know_is_read_by_its_engine_flags():
    fork, wrapper = _deps("byflags.sh")  # the benchmark, training, offline and sign-less commands are not launches
    assert (fork.engine, fork.model, _at(fork.model_span), _at(fork.launch_span)) == \
        ("vllm", "org/fork-server", (3, 62), (3, 33))
    assert fork.get("tensor_parallel_size") == 2 and _at(fork.settings["tensor_parallel_size"].span) == (3, 126)
    assert fork.gpu_count == 2  # CUDA_VISIBLE_DEVICES=0,1 in front of the program
    assert any("through openai_api_server.py" in n for n in fork.notes)
    assert (wrapper.engine, wrapper.model, _at(wrapper.model_span)) == ("vllm", "org/own-wrapper", (4, 104))
    assert wrapper.get("enforce_eager") is True and _at(wrapper.settings["enforce_eager"].span) == (4, 120)
    assert wrapper.unknown_flags == ()  # --slurm, --nodes-file hosts.txt: the wrapper's own
    assert any("through start-cluster.py" in n for n in wrapper.notes)
    # the wrapper's own options may set the parallelism (a cluster launcher spreads TP over its nodes): open, not
    # the engine's default 1; the fork's server, with no options of its own, keeps the engine's defaults
    tp = wrapper.settings["tensor_parallel_size"]
    assert not tp.resolved and tp.raw == "(left to start-cluster.py (--slurm --nodes-file))"
    assert not wrapper.settings["pipeline_parallel_size"].resolved
    assert "pipeline_parallel_size" not in fork.settings


def test_the_flag_table_decides_the_engine_of_an_unknown_program():
    (d,) = _deps("byflags_sglang.sh")
    assert (d.engine, d.model, _at(d.model_span)) == ("sglang", "org/sglang-own", (3, 36))
    assert d.get("mem_fraction_static") == 0.8 and _at(d.settings["mem_fraction_static"].span) == (3, 73)


def test_python_f_strings_and_concatenations_are_one_command_with_every_value_placed():
    fstring, concat, shlexed, from_args = _deps("fstrings.py")
    assert (fstring.model, _at(fstring.model_span)) == ("org/f-model", (7, 25))  # at `MODEL` inside `{MODEL}`
    assert fstring.get("tensor_parallel_size") == 2 and _at(fstring.settings["tensor_parallel_size"].span) == (7, 56)
    assert fstring.get("max_model_len") == 8192 and _at(fstring.settings["max_model_len"].span) == (7, 76)
    assert (concat.engine, concat.model, _at(concat.model_span)) == ("sglang", "org/f-model", (8, 56))
    assert concat.get("context_length") == 4096 and _at(concat.settings["context_length"].span) == (8, 83)
    assert (shlexed.model, _at(shlexed.model_span)) == ("org/shlex-model", (10, 40))
    assert (from_args.model, from_args.model_resolved, _at(from_args.model_span)) == ("${args_model}", False, (14, 34))
    assert _at(from_args.settings["max_model_len"].span) == (14, 67)  # the second f-string of an implicit join


def _read(name: str):
    from kvlint.launches import read_path
    from tests.launches.test_finder import FIX

    return read_path(str(FIX.parent / "entrypoint" / name))


def _kv008(result) -> list[tuple[int, int]]:
    return [_at(f.span) for f in result.findings if f.code == "KV008"]


def test_an_image_entrypoint_run_with_an_env_model_is_the_image_not_a_launch():
    run_by_dockerfile = _read("image/serve.sh")  # image/Containerfile copies and runs it
    assert run_by_dockerfile.deployments == [] and _kv008(run_by_dockerfile) == [(2, 6)]
    assert "$MODEL of the environment" in run_by_dockerfile.findings[0].message
    assert "Containerfile runs it" in run_by_dockerfile.findings[0].message
    named = _read("docker-entrypoint.sh")
    assert named.deployments == [] and _kv008(named) == [(2, 1)]
    (defaulted,) = _read("image/defaulted.sh").deployments  # the image's script defaults its model: a launch
    assert (defaulted.model, _at(defaulted.model_span)) == ("org/image-default", (2, 17))
    (here,) = _read("run_here.sh").deployments  # no image runs it: an env-only model is a launch left open
    assert (here.model, here.model_resolved, _at(here.model_span)) == ("$MODEL", False, (3, 12))
    assert _at(here.settings["max_model_len"].span) == (3, 35)


def test_a_script_a_compose_file_mounts_and_runs_is_the_image_entry_point_not_a_launch():
    mounted = _read("compose/serve.sh")  # docker-compose.yml beside it mounts ./serve.sh:/serve.sh and runs it
    assert mounted.deployments == [] and _kv008(mounted) == [(3, 1)]
    assert "docker-compose.yml mounts it into a container" in mounted.findings[0].message
    (service,) = _read("compose/docker-compose.yml").deployments  # the launch: the service, its MODEL_PATH
    assert (service.engine, service.model, service.model_span.path.endswith("serve.sh"), _at(service.model_span)) \
        == ("sglang", "org/compose-model", True, (4, 16))
    assert service.get("mem_fraction_static") == 0.8 and _at(service.settings["mem_fraction_static"].span) == (5, 25)


def test_a_compose_service_running_a_mounted_script_not_in_the_tree_names_the_script():
    result = _read("compose-missing/docker-compose.yml")  # ./serve.vllm.sh is not beside it
    assert result.deployments == [] and _kv008(result) == [(10, 9)]
    assert "service endpoint runs /serve.sh, mounted from ./serve.vllm.sh, which is not in the tree" in \
        result.findings[0].message


def test_a_python_program_run_with_its_own_model_argument_is_a_launch_unless_an_image_runs_it():
    """Sample K44's launcher (`--model` required, measured: KV008 "not a launch"): a program no image runs is a launch
    whose model is open, as `MODEL=$1; vllm serve $MODEL` is (rule 8); one an image's Containerfile copies is the
    image's entry point, its launch where the image is run (rule 5)."""
    (d,) = _read("program.py").deployments
    assert (d.model, d.model_resolved, _at(d.model_span)) == ("${args.model}", False, (8, 34))
    imaged = _read("image/launcher.py")
    assert imaged.deployments == [] and _kv008(imaged) == [(7, 18)]
    assert "own --model argument" in imaged.findings[0].message and "Containerfile" in imaged.findings[0].message
    (d,) = _read("program_default.py").deployments  # argparse default: the model it runs without arguments
    assert (d.model, d.model_resolved, _at(d.model_span)) == ("org/program-default", True, (8, 34))
    assert d.get("tensor_parallel_size") == 4 and _at(d.settings["tensor_parallel_size"].span) == (8, 77)


def test_a_pipeline_with_a_command_string_and_a_commands_list_gives_both():
    listed, single = _deps("buildkite-steps.yml")  # the `command:` string no longer hides the `commands:` list
    assert (listed.engine, listed.model, _at(listed.model_span)) == ("vllm", "org/bk-commands", (5, 21))
    assert _at(listed.settings["max_model_len"].span) == (5, 53)
    assert (single.engine, single.model, _at(single.model_span)) == ("sglang", "org/bk-command", (7, 59))
    assert single.get("tp_size") == 2 and _at(single.settings["tp_size"].span) == (7, 79)


def test_multiplexers_and_job_submitters_run_the_command_they_are_given():
    wrap, tmux, screen, ray_job, send_keys = _deps("session-wrappers.sh")
    assert (wrap.model, _at(wrap.model_span), wrap.gpu_count) == ("org/wrap", (2, 40), 2)  # sbatch --gres=gpu:2
    assert _at(wrap.settings["tensor_parallel_size"].span) == (2, 72)
    assert (tmux.model, _at(tmux.model_span), _at(tmux.settings["max_model_len"].span)) == \
        ("org/tmux", (3, 41), (3, 66))
    assert (screen.model, _at(screen.model_span), _at(screen.settings["max_model_len"].span)) == \
        ("org/screen", (4, 29), (4, 56))
    assert (ray_job.model, _at(ray_job.model_span), ray_job.get("tensor_parallel_size")) == ("org/rayjob", (5, 57), 2)
    assert (send_keys.engine, send_keys.model, _at(send_keys.model_span)) == ("sglang", "org/send-keys", (6, 72))
    assert _at(send_keys.settings["tp_size"].span) == (6, 91)


def test_a_python_argv_list_grown_after_it_is_made_is_one_command():
    (d,) = _deps("modal_style.py")  # cmd = [...]; cmd += [...]; cmd.extend([...]); cmd.append(...)
    assert (d.model, _at(d.model_span)) == ("org/modal-model", (9, 57))
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (11, 39)
    assert d.get("max_model_len") == 8192 and _at(d.settings["max_model_len"].span) == (12, 37)
    assert d.get("trust_remote_code") is True and _at(d.settings["trust_remote_code"].span) == (13, 17)
    assert "pipeline_parallel_size" not in d.settings  # added only under an `if`
    assert "enforce_eager" not in d.settings  # chosen at run time


def test_a_shell_function_is_read_per_call_with_its_arguments():
    first, second, local, one_line = _deps("functions.sh")
    assert (first.model, _at(first.model_span)) == ("org/first", (11, 7))  # at the call's argument
    assert first.get("tensor_parallel_size") == 4 and _at(first.settings["tensor_parallel_size"].span) == (11, 17)
    assert first.get("port") == 8000 and _at(first.settings["port"].span) == (3, 54)  # `${3:-8000}` default
    assert (second.model, second.get("tensor_parallel_size"), second.get("port")) == ("org/second", 2, 8001)
    # `local model=$1`, called three times with the same argument (`start`, `restart`): one launch
    assert (local.engine, local.model, _at(local.model_span)) == ("sglang", "org/local-arg", (7, 48))
    assert (one_line.model, one_line.get("max_model_len")) == ("org/one-line", 4096)  # a variable set before the call


def test_a_function_called_from_another_function_is_read_with_the_callers_values():
    """`main` calls `start_server`: the callee is known inside the caller's body, and the two identical calls (and
    the body read again when `main` is called) are one launch."""
    (d,) = _deps("nested-functions.sh")
    assert (d.engine, d.model, _at(d.model_span)) == ("sglang", "/models/Qwen2.5-0.5B-Instruct", (6, 24))  # where the launch names it
    assert d.get("tp_size") == 2 and _at(d.settings["tp_size"].span) == (7, 22)


def test_a_functions_globals_are_the_callers_and_its_locals_are_not():
    (d,) = _deps("function-globals.sh")
    assert (d.engine, d.model, _at(d.model_span)) == ("vllm", "org/global-model", (9, 25))
    assert d.get("max_model_len") == 8192 and _at(d.settings["max_model_len"].span) == (4, 28)  # a global array
    assert d.get("tensor_parallel_size") == 2 and _at(d.settings["tensor_parallel_size"].span) == (10, 37)
    from kvlint.launches.script import _declared
    from kvlint.sources.shell import tokenize
    from kvlint.sources.text import Mapped

    (cmd,), _ = tokenize(Mapped("x", "local a=1 b 'c'\n"))
    assert _declared(cmd.words[1:]) == {"a", "b", "c"}
    (cmd,), _ = tokenize(Mapped("x", "declare -g a=1\n"))
    assert _declared(cmd.words[1:]) == set()  # -g: global


def test_a_program_given_by_a_variable_is_read_by_what_follows_it_and_notes_stay_with_their_launch():
    python, cli, image, sif = _deps("program-vars.sh")
    assert (python.model, _at(python.model_span), python.get("max_model_len")) == ("org/var-python", (2, 59), 2048)
    assert (cli.model, _at(cli.model_span)) == ("org/var-bin", (3, 17))  # `$VLLM_BIN serve`: vLLM's CLI
    assert _at(cli.settings["tensor_parallel_size"].span) == (3, 52)
    assert (image.model, _at(image.model_span)) == ("org/var-image", (4, 40))
    assert any("inferred from the flags" in n for n in image.notes)
    assert not any("inferred from the flags" in n for n in python.notes + cli.notes + sif.notes)  # no leak
    assert any("vllm_0.9.sif" in n for n in sif.notes) and not any("vllm_0.9.sif" in n for n in image.notes)


def test_slurm_container_steps_keep_the_allocation_and_the_image():
    app, pyxis, entry, run_cmd = _deps("hpc-containers.sh")
    assert (app.model, _at(app.model_span), app.gpu_count) == ("org/srun-app", (2, 97), 4)  # srun --gpus=4 outside
    assert (pyxis.image, _at(pyxis.image_span), pyxis.engine_version) == ("vllm/vllm-openai:v0.9.0", (3, 24), "0.9.0")
    assert (pyxis.model, _at(pyxis.model_span)) == ("org/pyxis", (3, 90))
    # `--container-image IMAGE` then flags only: the image's entry point, 8 per node x 2 nodes
    assert (entry.model, _at(entry.model_span), entry.gpu_count) == ("org/pyxis-entry", (4, 79), 16)
    assert _at(entry.settings["pipeline_parallel_size"].span) == (4, 105)
    assert run_cmd.notes == ()  # a command after the image replaces its entry point: nothing assumed


def test_notebook_code_cells_are_read_at_their_place_in_the_json():
    bang, bash_cell, python_cell = _deps("serve.ipynb")  # the markdown cell's command is prose
    assert (bang.model, _at(bang.model_span), _at(bang.launch_span)) == ("org/nb-bang", (17, 24), (17, 13))
    assert bang.get("max_model_len") == 4096 and _at(bang.settings["max_model_len"].span) == (17, 52)
    assert (bash_cell.engine, bash_cell.model, _at(bash_cell.model_span)) == ("sglang", "org/nb-bash", (27, 50))
    assert _at(bash_cell.settings["tp_size"].span) == (27, 67)
    # a Python cell (its `%env` magic blanked): `MODEL` at its place, past the JSON's escaped quotes
    assert (python_cell.model, _at(python_cell.model_span)) == ("org/nb-python", (40, 52))
    assert _at(python_cell.settings["tensor_parallel_size"].span) == (40, 89)


def test_a_notebook_that_names_an_engine_in_code_but_gives_no_launch_is_never_silent():
    from kvlint.launches import read_path
    from tests.launches.test_finder import FIX

    unread = read_path(str(FIX / "unread.ipynb"))
    assert unread.deployments == [] and [(f.code, _at(f.span)) for f in unread.findings] == [("KV008", (18, 14))]
    prose = read_path(str(FIX / "prose.ipynb"))  # only a markdown cell names it: prose, nothing said
    assert prose.deployments == [] and prose.findings == []


def test_terraform_and_nomad_container_blocks():
    (tf,) = _deps("vllm.tf")  # the init container (python, no engine) is not one
    assert (tf.model, _at(tf.model_span), tf.engine_version) == ("org/tf-model", (12, 25), "0.9.1")
    assert tf.get("tensor_parallel_size") == 2 and _at(tf.settings["tensor_parallel_size"].span) == (13, 40)
    assert not tf.settings["max_model_len"].resolved and _at(tf.settings["max_model_len"].span) == (14, 32)
    assert tf.gpu_count == 2 and _at(tf.gpu_count_span) == (18, 34)
    (nomad,) = _deps("sglang.nomad")
    assert (nomad.engine, nomad.model, _at(nomad.model_span)) == ("sglang", "org/nomad-model", (8, 67))
    assert nomad.get("tp_size") == 4 and nomad.gpu_count == 4 and _at(nomad.gpu_count_span) == (12, 19)


def test_a_command_with_engine_shaped_flags_kvlint_cannot_place_is_never_silent():
    from kvlint.launches import read_path
    from tests.launches.test_finder import FIX

    result = read_path(str(FIX / "flag-shaped.sh"))  # run.py shows no sign of a server: not read as one, but said
    assert result.deployments == [] and [(f.code, _at(f.span)) for f in result.findings] == [("KV008", (3, 31))]
    assert result.findings[0].message.startswith("`run.py` is run here")
    assert "shaped like an engine's flags" in result.findings[0].message
    quiet = read_path("tool.sh", "python tool.py --model org/x --max-model-len 4096\n")  # names no engine
    assert quiet.findings == []


def test_a_program_named_for_an_engine_given_its_sizing_flags_is_never_silent():
    from kvlint.launches import read_path

    # the repository's own launcher, its model from its config or the job's arguments
    text = '#!/bin/bash\n#SBATCH --gres=gpu:4\ngpus=4\n  vllm-launch --tensor-parallel-size "$gpus" "$@"\n'
    result = read_path("job.sh", text)
    assert result.deployments == [] and [(f.code, _at(f.span)) for f in result.findings] == [("KV008", (4, 3))]
    assert result.findings[0].message.startswith("`vllm-launch` is run here")
    bench = read_path("job.sh", "vllm bench latency --tensor-parallel-size 2 --input-len 8\n")  # the engine's own
    assert bench.findings == []  # command, which its readers judge (a benchmark)
    plain = read_path("job.sh", "# vllm\n./train.sh --tensor-parallel-size 2\n")  # not named for an engine
    assert plain.findings == []


def test_python_format_calls_percent_formatting_and_backslash_newlines_keep_every_value_placed():
    braces, named, percent, triple = _deps("formats.py")
    assert (braces.model, _at(braces.model_span)) == ("org/formatted", (6, 60))  # `.format(MODEL, TP)`: at MODEL
    assert braces.get("tensor_parallel_size") == 2 and _at(braces.settings["tensor_parallel_size"].span) == (6, 67)
    assert (named.model, named.get("max_model_len"), _at(named.settings["max_model_len"].span)) == \
        ("org/formatted", 4096, (7, 74))
    assert (percent.model, _at(percent.model_span), percent.get("tensor_parallel_size")) == \
        ("org/formatted", (8, 56), 2)
    # a backslash-newline the string drops: the flags after it at their own lines
    assert _at(triple.settings["max_model_len"].span) == (10, 21)
    assert _at(triple.settings["tensor_parallel_size"].span) == (11, 29)


def test_a_python_entrypoint_an_image_runs_with_an_env_model_is_the_image():
    server = _read("image/server.py")  # image/Containerfile copies it
    assert server.deployments == [] and _kv008(server) == [(6, 18)]
    assert "${MODEL} of the environment" in server.findings[0].message
    (here,) = _read("env_program.py").deployments  # no image runs it: a launch whose model is left open
    assert (here.model, here.model_resolved, _at(here.model_span)) == ("${MODEL}", False, (5, 34))


def test_a_wrapper_named_for_the_engine_passes_the_engine_its_flags_after_a_double_dash():
    vllm, sglang = _deps("passthrough.txt")  # a notes file: the data-prep, benchmark and --config lines are not
    assert (vllm.engine, vllm.model, _at(vllm.model_span), _at(vllm.launch_span)) == \
        ("vllm", "org/passed-model", (4, 56), (4, 33))
    assert vllm.get("tensor_parallel_size") == 2 and _at(vllm.settings["tensor_parallel_size"].span) == (6, 29)
    assert vllm.gpu_count == 2 and "pipeline_parallel_size" not in vllm.settings  # --target-layer-ids: the wrapper's
    assert any("through launch_vllm.py" in n and "--target-layer-ids are left to it" in n for n in vllm.notes)
    assert (sglang.engine, sglang.model, _at(sglang.model_span)) == ("sglang", "org/sgl-model", (8, 19))
    assert sglang.get("mem_fraction_static") == 0.7 and _at(sglang.settings["mem_fraction_static"].span) == (8, 70)


def test_recursive_and_fanned_out_function_calls_are_read_within_a_bound():
    """Calls nest now (a body knows the script's functions), so a script of functions calling each other is read
    within MAX_DEPTH levels and MAX_CALLS bodies, each tokenized once: the launch is still found, once."""
    from kvlint.launches import read_path, script

    recursive = "f() {\n  vllm serve org/recursive --max-model-len 4096\n  g\n}\ng() {\n  f\n}\nf\n"
    (d,) = read_path("r.sh", recursive).deployments
    assert d.model == "org/recursive"
    calls = "\n".join(f"h{i}() {{ log x; log y; }}" for i in range(40))
    fanned = "log() { echo \"$@\"; }\n" + calls + "\n" + "\n".join(f"h{i}" for i in range(40)) + "\n"
    fanned += "vllm serve org/fanned\n"
    seen = []
    real = script._read

    def script_read(m, state, depth, tokens=None):
        seen.append(depth)
        return real(m, state, depth, tokens)

    import pytest

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(script, "_read", script_read)
        (d,) = read_path("f.sh", fanned).deployments
    assert d.model == "org/fanned" and len(seen) - 1 <= script.MAX_CALLS


def test_hatch_runs_a_command_in_a_named_environment():
    """`hatch run ENV:CMD` is CMD run in ENV (hatch's own syntax); a colon in a URL is not an environment."""
    from kvlint.launches import read_path

    text = "hatch run serve:vllm serve org/hatch --max-model-len 4096\nhatch run -- vllm serve org/plain\n"
    named, plain = read_path("x.sh", text).deployments
    assert (named.model, _at(named.model_span), named.get("max_model_len")) == ("org/hatch", (1, 28), 4096)
    assert (plain.model, _at(plain.model_span)) == ("org/plain", (2, 25))
    assert read_path("y.sh", "hatch run http://x:8000/serve\n").deployments == []


def test_a_command_that_runs_an_engine_unread_is_said_even_beside_read_launches():
    """Never silent per place, not only per file: `xargs ... vllm serve {}` in a script whose other launch was read
    gets its own KV008 at the engine words; names inside one quoted word or given to a printing or process tool do
    not."""
    from pathlib import Path

    from kvlint.launches import read_path

    path = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "finder" / "unread-beside-read.sh"
    result = read_path(str(path))
    assert [d.model for d in result.deployments] == ["org/read-model"]
    said = [(f.code, _at(f.span)) for f in result.findings if f.code == "KV008"]
    assert said == [("KV008", (4, 12)), ("KV008", (5, 24))]
    assert "through `xargs`" in result.findings[0].message and "through `parallel`" in result.findings[1].message


def test_a_file_named_for_starting_an_engine_that_gave_no_launch_is_said():
    """Sample K37's `launch_vllm.py` (measured: silent): it starts the server through a class of its repository's
    (`StandaloneVLLMServer(...).launch_server()`); its name says what it is for, so it gets a KV008 info at the
    first code line naming the engine (not the docstring). A file named for a client is not one."""
    from kvlint.launches import read_path

    text = ('"""\nLauncher for the standalone vLLM server.\n"""\nimport asyncio\nfrom server import Server\n\n\n'
            "async def launch_vllm_server(model_path):\n    await Server(model_path).launch_server()\n")
    result = read_path("scripts/launch_vllm.py", text)
    assert result.deployments == [] and [(f.code, _at(f.span)) for f in result.findings] == [("KV008", (8, 18))]
    assert read_path("scripts/vllm_client.py", text).findings == []


def test_a_mounted_script_not_in_the_tree_given_the_engines_own_arguments_hands_them_to_the_engine():
    handed, other, env_model = _read("compose-handed/compose.yaml").deployments
    assert (handed.engine, handed.model, _at(handed.model_span)) == ("vllm", "org/handed-model", (11, 9))
    assert handed.get("max_model_len") == 16384 and _at(handed.settings["max_model_len"].span) == (15, 9)
    assert any("hands them to the engine" in n for n in handed.notes)
    # arguments that are not the engine's (a config of the script's own): the model stays the script's, open
    assert (other.engine, other.model_resolved) == ("vllm", False)
    # handed flags but no model (sample K65): the model variable of the service's environment is the script's model
    assert (env_model.model, _at(env_model.model_span), env_model.get("gpu_memory_utilization")) == \
        ("Qwen/Qwen3.5-35B-A3B", (28, 20), 0.9)


def test_a_program_handed_a_whole_engine_command_as_one_argument_runs_it(tmp_path):
    """Sample K110: a job submitter given the command as one argument, itself a wrapper given the engine's command
    as one argument (`python submit_job.py NAME "uv run -- python launch.py \\"uv run -- vllm serve M ...\\""`); a
    pattern a program searches for (`pkill -f 'vllm serve'`) and a command with no model are none."""
    from kvlint.launches import read_path

    path = tmp_path / "run.sh"
    path.write_text('#!/bin/bash\npkill -f "vllm serve" || true\npython submit.py job1 "vllm serve org/m --max-model-len 4096" '
                    '--ngpu 2\npython submit.py j2 "uv run -- python launch.py \\"uv run -- vllm serve org/q '
                    '--max-model-len 100\\"" --ngpu 2\npython help.py "the full vllm serve ... command"\n')
    got = [(d.model, d.model_span.line, d.get("max_model_len")) for d in read_path(str(path)).deployments]
    assert got == [("org/m", 3, 4096), ("org/q", 4, 100)]


def test_an_entry_point_defaulting_its_model_to_a_named_folder_is_a_launch():
    """Sample K188's `MODEL_PATH="${MODEL_PATH:-${MODEL_DIR}/Qwen2.5-Coder-14B-Instruct}"`: the script serves a model it
    names (the image places its folder), rule 5's defaulted model, so a launch (it was a KV008, "the environment's");
    a default that is only another variable leaves the model the environment's."""
    (d,) = _read("folder-default/entrypoint.sh").deployments
    assert (d.engine, d.model_resolved, _at(d.model_span), d.get("max_model_len")) == ("vllm", False, (4, 17), 32768)
    bare = _read("folder-default/start.sh")
    assert bare.deployments == [] and _kv008(bare) == [(4, 6)]
