"""Shapes of sample E's misses, each read as a class: a variable set in the arms of an `if` (each arm that gives
the command another model is its own launch; an arm that changes another setting is not), a container run from
a CI `run:` string that names no entry point (`docker run $VLLM_IMAGE $ARGS`), a `(` inside double quotes
inside `$(...)`, launchers with options of their own in front (`timeout -k 60 DUR`, `nice -n`, `taskset -c`),
and `${{ inputs.NAME }}` read as the input's declared default. Fixtures in tests/fixtures/launches/arms; every
model and flag pinned to (line, col)."""

from __future__ import annotations

import json

from kvlint.launches import read_path
from tests.launches.test_docker_and_positional import _at
from tests.launches.test_docker_and_positional import _deps as fixture_deps


def _deps(name: str):
    return fixture_deps("arms/" + name)


def test_each_arm_of_an_if_that_names_another_model_is_a_launch():
    chat, embed, served, retry = _deps("action.yml")  # one launch per arm, in the script's order
    # `docker run -d --net=host $VLLM_IMAGE $ENGINE_ARGS` (line 21): no entry point in the string; the image
    # variable and the flags name the engine; ENGINE_ARGS is set in the `if` (line 15) and `elif` (line 17) arms
    # each value at its place in the arm's argument string (kvlint.launches.script._placed), the launch at the run
    assert (embed.engine, embed.model, _at(embed.launch_span), _at(embed.model_span)) == \
        ("vllm", "org/embed-model", (21, 9), (17, 44))  # the run, from `docker run` to its image
    assert (chat.model, _at(chat.model_span)) == ("org/chat-model", (15, 44))
    assert chat.get("max_model_len") == 8192 and _at(chat.settings["max_model_len"].span) == (15, 75)
    assert "max_model_len" not in embed.settings or embed.get("max_model_len") is None  # the embed arm sets none
    assert any("$ENGINE_ARGS of line 15" in n for n in chat.notes)
    assert any("$ENGINE_ARGS of line 17" in n for n in embed.notes)
    # `${{ inputs.model }}` is the action input's declared default (line 5), `${{ inputs.max-len }}` too
    assert (served.model, served.model_resolved, _at(served.model_span)) == ("org/input-default", True, (24, 23))
    assert served.get("max_model_len") == 4096 and _at(served.settings["max_model_len"].span) == (24, 61)
    # the retry step: `$(grep "... \\(\\K[0-9]+" log)` no longer swallows the rest of the script
    assert (_at(retry.launch_span), retry.model) == ((29, 9), "org/input-default")
    assert not retry.settings["max_model_len"].resolved and _at(retry.settings["max_model_len"].span) == (29, 58)


def test_an_arm_that_changes_only_a_setting_is_the_same_launch():
    same, big, small, niced, local, sudo = _deps("arms.sh")
    # TP 8 or 4 for one model: one launch, read with the last arm's value (`else TP=4` on the `else` line)
    assert (same.model, _at(same.model_span), same.get("tensor_parallel_size")) == ("org/arms-model", (7, 12), 4)
    assert _at(same.settings["tensor_parallel_size"].span) == (7, 44)
    assert not any("arm" in n for n in same.notes)
    # each arm names another model (and length): two launches, behind `timeout --signal=INT --kill-after=60 "$CAP"`
    assert [(d.model, _at(d.model_span), d.get("max_model_len")) for d in (big, small)] == \
        [("org/big-model", (13, 56), 32768), ("org/small-model", (13, 56), 8192)]
    assert _at(big.launch_span) == (13, 45) and _at(big.settings["max_model_len"].span) == (13, 82)
    assert any("$LEN of line 9, $SERVED of line 9" in n for n in big.notes)
    # `nice -n 10 taskset -c 0-7 python -m sglang.launch_server ...`
    assert (niced.engine, niced.model, _at(niced.model_span)) == ("sglang", "org/niced", (14, 71))
    # a local copy if present, else the Hub id: one model, one launch (the last arm's reading)
    assert (local.model, _at(local.model_span)) == ("Qwen/Qwen2.5-7B-Instruct", (20, 12))
    # `sudo -u svc -E env -u VAR HF_HOME=/cache vllm serve ...`: each prefix's options and their values peeled
    assert (sudo.model, _at(sudo.model_span), sudo.get("max_model_len")) == ("org/sudo-env", (21, 70), 2048)
    assert _at(sudo.settings["max_model_len"].span) == (21, 99)


def test_each_pattern_of_a_case_is_an_arm_read_with_its_own_values_only():
    chat, embed = _deps("case.sh")
    assert [(d.model, _at(d.model_span)) for d in (chat, embed)] == [("org/chat", (8, 12)), ("org/embed", (8, 12))]
    assert chat.get("max_model_len") == 8192 and _at(chat.settings["max_model_len"].span) == (8, 35)
    assert embed.get("max_model_len") == 4096  # LEN is the chat arm's alone: the embed arm reads the default
    assert any("$LEN of line 3, $MODEL of line 3" in n for n in chat.notes)
    assert any("$MODEL of line 5" in n for n in embed.notes)


def test_each_value_of_a_for_loop_that_names_a_model_is_a_launch():
    a, b, same, unknown = _deps("loop.sh")
    # `for m in "${MODELS[@]}"; do vllm serve "$m" --port 8000 & done`: one deployment per model of the list
    assert [(d.model, _at(d.model_span)) for d in (a, b)] == [("org/arr-a", (3, 14)), ("org/arr-b", (3, 14))]
    assert all(any("$m of line 1" in n for n in d.notes) for d in (a, b))
    # a loop over ports of one model is one deployment, read with the last value; a list known only at run time
    # leaves the variable open
    assert (same.model, same.get("port"), _at(same.settings["port"].span)) == ("org/same", 8002, (5, 54))
    assert (unknown.model, unknown.model_resolved) == ("$x", False)


def test_each_model_of_a_ci_matrix_is_a_launch():
    a, b, fixed = _deps("matrix.yml")
    # `vllm serve ${{ matrix.model }}` under `strategy.matrix.model: [org/m-a, org/m-b]` (line 8)
    assert [(d.model, _at(d.model_span), _at(d.launch_span)) for d in (a, b)] == \
        [("org/m-a", (12, 22), (12, 11)), ("org/m-b", (12, 22), (12, 11))]
    assert a.get("max_model_len") == 4096 and _at(a.settings["max_model_len"].span) == (12, 58)
    assert any("matrix.model = org/m-b" in n for n in b.notes)
    # a matrix that changes no model (Python versions): one launch, no matrix note
    assert (fixed.model, _at(fixed.model_span)) == ("org/fixed", (20, 25))
    assert not any("matrix" in n for n in fixed.notes)


def test_a_parenthesis_in_double_quotes_inside_a_command_substitution_is_text():
    from kvlint.sources.shell import tokenize
    from kvlint.sources.text import Mapped

    text = 'len=$(grep -oP "cache \\\\(\\\\K[0-9]+" log)\nx=$(echo "a $(echo ")") b")\nvllm serve m\n'
    commands, errors = tokenize(Mapped.whole("t.sh", text))
    assert errors == [] and len(commands) == 3
    assert [p.kind for p in commands[0].words[0].parts] == ["lit", "cmd"]
    assert commands[1].words[0].parts[1].text == 'echo "a $(echo ")") b"'
    assert [w.literal for w in commands[2].words] == ["vllm", "serve", "m"]


def test_a_container_run_from_an_engine_named_image_variable_is_never_passed_over():
    from kvlint.launches import read_path
    from tests.launches.test_docker_and_positional import FIX

    # `docker run -d \ --gpus all \ "$SGLANG_IMAGE" $SERVER_ARGS`: no model, no flag (SGLang's image does not take
    # flags as its command), so no launch; one KV008 at the image variable (the commented-out line 2 is no place)
    result = read_path(str(FIX / "arms" / "run_variable.sh"))
    assert result.deployments == []
    (note,) = result.findings
    assert (note.code, _at(note.span), note.span.end_col) == ("KV008", (5, 4), 17)
    assert "a container is run here from $SGLANG_IMAGE, an image named for an engine" in note.message


def test_a_positional_parameter_assigned_under_a_condition_is_the_callers_override():
    """`-m|--model) MODEL="$2"` in a `case` arm and `[ ... ] && LEN=$3`: the default stands (sample G's Tennsoku
    start-server.sh was an unresolved `${MODEL}`); an unconditional `NAME=$1` with no default stays unknown."""
    default, given = _deps("caller-override.sh")
    assert (default.model, default.model_resolved, _at(default.model_span)) == \
        ("/models/Qwen2.5-0.5B-Instruct", True, (15, 12))
    assert default.get("max_model_len") == 4096
    assert any("line 9: MODEL=$2 is the caller's override" in n for n in default.notes)
    assert any("line 14: LEN=$3 is the caller's override" in n for n in default.notes)
    assert (given.model, given.model_resolved) == ("$NAME", False)


def test_a_case_on_a_value_the_script_fixes_runs_the_arm_that_matches():
    """`VARIANT="${1:-instruct}"; case "$VARIANT" in instruct) ... thinking|t) ... *) ...`: one launch, the instruct
    model (each arm was its own launch); `a|b)` alternatives and one-line arms; a pattern with an expansion may
    match, so its arm is read as before."""
    omni, short, unsure = _deps("case-subject.sh")
    assert (omni.model, _at(omni.model_span)) == ("Qwen/Qwen3-Omni-30B-A3B-Instruct", (12, 12))
    assert short.get("max_model_len") == 8192
    assert unsure.get("max_model_len") == 222  # `[a-s]*` cannot match t; "$OTHER" may: read as it was


def test_a_subshell_in_the_matching_arm_is_not_read_as_a_pattern():
    lens = [d.get("max_model_len") for d in _deps("case-subshell.sh")]
    assert lens == [1024, 2048]


def test_a_case_on_a_callers_default_keeps_every_arms_command_as_an_alternative():
    """`VARIANT=${1:-baseline}; case "$VARIANT" in baseline) exec launch ;; eagle) exec launch --speculative... ;;`:
    two launches (sample I read one, the default's), each with its arm's values; after `esac` the default's arm
    alone holds (LEN 4096, DRAFT unset), as for a case whose arms only assign (case-subject.sh)."""
    base, eagle, after = _deps("case-alternatives.sh")
    assert (base.get("context_length"), base.get("speculative_algorithm")) == (4096, None)
    assert (eagle.get("context_length"), eagle.get("speculative_algorithm")) == (2048, "EAGLE")
    assert eagle.get("speculative_draft_model_path") == "/models/draft"
    assert after.get("max_model_len") == 4096
    assert (after.model, after.model_resolved) == ("org/after${DRAFT}", False)


def test_arms_that_test_the_variable_they_assign_are_aliases_of_one_launch():
    first, second, third = _deps("aliases.sh")
    # `model=$1`, then `if [ "$model" == short ]; then model=full-id; elif ...; fi`: the caller's model, open
    assert (first.engine, first.model_resolved, _at(first.launch_span)) == ("vllm", False, (11, 1))
    assert first.get("tensor_parallel_size") == 2 and not any("arm" in n for n in first.notes)
    # the same table as a `case` on the variable itself
    assert (second.engine, second.model_resolved, _at(second.model_span)) == ("sglang", False, (17, 45))
    # a caller's default that is one of the short names: the arm it matches gives the model
    assert (third.model, third.model_resolved, third.get("max_model_len")) == ("org/default-small", True, 4096)
    assert _at(third.model_span) == (20, 12)  # a one-word value is pointed at where it is used


def test_an_if_arm_the_script_decides_against_assigns_nothing_but_keeps_its_launch():
    decided, alternative = _deps("decided-if.sh")
    assert (decided.model, decided.get("max_num_seqs"), _at(decided.settings["max_num_seqs"].span)) == \
        ("org/decided", 64, (12, 62))
    assert "speculative_config" not in decided.settings
    assert (alternative.model, alternative.get("port")) == ("org/embed-alt", 8001)  # `MODE=embed` starts it


def test_rank_branches_that_spell_one_variable_two_ways_are_one_deployment():
    """Sample K68's P/D job (measured: three launches for two): the head's prefill branch writes `$DIR/$NAME`, the
    other prefill ranks' `$DIR/${NAME}`; unresolved, they are the same word, so the rank branches fold into one
    prefill launch; the decode role stays its own."""
    text = ('if [ "$NODE_RANK" -eq 0 ]; then\n'
            '  python3 -m sglang.launch_server --model-path $DIR/$NAME --disaggregation-mode prefill --node-rank 0 &\n'
            'elif [ "$NODE_RANK" -lt 2 ]; then\n'
            '  python3 -m sglang.launch_server --model-path $DIR/${NAME} --disaggregation-mode prefill '
            '--node-rank $NODE_RANK &\n'
            'else\n'
            '  python3 -m sglang.launch_server --model-path ${DIR}/${NAME} --disaggregation-mode decode &\nfi\n')
    from kvlint.launches import read_path

    deps = read_path("job.sh", text).deployments
    assert [(d.get("disaggregation_mode"), d.model_span.line) for d in deps] == [("prefill", 2), ("decode", 6)]


def test_a_later_case_on_the_same_variable_reads_the_earlier_cases_matching_arm():
    """`case "$M" in small) MODEL_PATH=...` then `case "$M" in small) CMD="vllm serve $MODEL_PATH --tp 1"`: the
    second case's `small` arm runs only when the first took its `small` arm, so each command names its own model
    (sample K77's server script): two deployments, not one with the last arm's path."""
    text = ('M=$1\ncase "$M" in\n  small) MODEL_PATH=org/small ;;\n  large) MODEL_PATH=org/large ;;\nesac\n'
            'case "$M" in\n  small) CMD="vllm serve $MODEL_PATH --tensor-parallel-size 1" ;;\n'
            '  large) CMD="vllm serve $MODEL_PATH --tensor-parallel-size 4" ;;\nesac\neval "$CMD"\n')
    got = sorted((d.model, d.get("tensor_parallel_size")) for d in read_path("serve.sh", text).deployments)
    assert got == [("org/large", 4), ("org/small", 1)]


def test_a_command_string_appended_to_with_plus_equals_then_evald():
    """Sample K90's serve.sh: `CMD="vllm serve ${MODEL} ..."`, `CMD+=" --max-model-len ${LEN}"` under `if [ -n
    "$LEN" ]`, `eval "${CMD}"` (missed: `+=` left the variable unknown). An addition made unconditionally is read;
    one under a condition is not known to run, so the command stays as it was."""
    text = ('MODEL="org/appended"\nLEN=""\nCMD="vllm serve ${MODEL} --port 1212"\nif [ -n "${LEN}" ]; then\n'
            '    CMD+=" --max-model-len ${LEN}"\nfi\nCMD+=" --tensor-parallel-size 2"\neval "${CMD}"\n')
    (d,) = read_path("serve.sh", text).deployments
    assert (d.model, d.get("tensor_parallel_size"), "max_model_len" in d.settings) == ("org/appended", 2, False)


def test_a_container_command_grown_piece_by_piece_with_an_unknown_piece_is_read_at_its_pieces():
    """Sample K214's launcher (measured: a miss): `DOCKER_CMD="docker run -d"`, then one `DOCKER_CMD+=" ..."` a line
    (the image, `--model ${MODEL}`, `--tensor-parallel-size ${TP_SIZE}` of a run-time GPU count), `eval
    "${DOCKER_CMD}"`: the unknown piece left the whole variable unknown. It is one unresolved setting; every value
    is placed at its own piece."""
    text = ('MODEL="org/grown"\nLEN=8192\nTP_SIZE=$(nproc)\nCMD="docker run -d"\nCMD+=" --gpus all"\n'
            'CMD+=" vllm/vllm-openai:v0.19.0"\nCMD+=" --model ${MODEL}"\nCMD+=" --tensor-parallel-size ${TP_SIZE}"\n'
            'CMD+=" --max-model-len ${LEN}"\neval "${CMD}"\n')
    (d,) = read_path("run.sh", text).deployments
    assert (d.model, d.image, _at(d.model_span), _at(d.settings["max_model_len"].span)) == \
        ("org/grown", "vllm/vllm-openai:v0.19.0", (7, 16), (9, 24))
    assert d.get("max_model_len") == 8192 and not d.settings["tensor_parallel_size"].resolved


def test_a_tool_handed_a_whole_command_as_its_command_option_runs_it():
    """Sample K94's TPU workload script: `COMMAND="export HF_TOKEN=x && VLLM_USE_V1=1 python -m
    vllm.entrypoints.openai.api_server --model M ..."` then `python xpk.py workload create ... --command "$COMMAND"`
    (missed): the tool runs the command in the workload, read as `sh -c` reads its script; an `echo --command` does
    not."""
    text = ('COMMAND="export HF_TOKEN=xxx && VLLM_USE_V1=1 python -m vllm.entrypoints.openai.api_server '
            '--model org/xpk-handed --tensor-parallel-size=4 --max-model-len=8192"\n'
            'python /opt/xpk/xpk.py workload create \\\n    --cluster c1 \\\n    --command "$COMMAND"\n')
    (d,) = read_path("run_xpk.sh", text).deployments
    assert (d.model, _at(d.model_span), d.get("tensor_parallel_size")) == ("org/xpk-handed", (1, 100), 4)
    assert read_path("run_xpk.sh", text.replace("python /opt/xpk/xpk.py workload create", "echo")).deployments == []


def test_an_arms_set_of_the_positional_parameters_stays_in_that_arm(tmp_path):
    """Sample K100 (measured: a launch with no model): an image's entry point whose `qwen38)` arm runs
    `set -- mtp`, whose `h3)` arm shifts, and whose `"" | -*)` arm runs `exec python -m sglang.launch_server "$@"`:
    the last arm's "$@" is the caller's (a KV008 place), not what the other arms left (`mtp`, shifted away: no
    arguments at all); a lone `if` that sets defaults still gives them."""
    from kvlint.launches import read_path

    p = tmp_path / "entrypoint.sh"
    p.write_text('case "${1:-}" in\n  qwen38)\n    shift\n    [[ $# -gt 0 ]] || set -- mtp\n'
                 '    exec bash serve.sh "$@" ;;\n  h3)\n    shift\n    exec bash serve_h3.sh "$@" ;;\n  "" | -*)\n'
                 '    exec python -m sglang.launch_server "$@" ;;\nesac\n')
    result = read_path(str(p))
    assert result.deployments == [] and [(f.code, f.span.line) for f in result.findings] == [("KV008", 10)]
    q = tmp_path / "serve.sh"
    q.write_text('if [ $# -eq 0 ]; then\n  set -- --model-path org/m --tp 2\nfi\n'
                 'exec python -m sglang.launch_server "$@"\n')
    (dep,) = read_path(str(q)).deployments
    assert (dep.model, dep.get("tp_size")) == ("org/m", 2)


def test_a_case_on_a_callers_default_inside_a_function_gives_each_arms_command():
    """Sample K186 (measured: a miss): `RUNTIME="${RUNTIME:-container}"`, then a function whose `case "$RUNTIME"`
    runs the engine in a container or from a venv: the default the caller may override stays one in the body, so
    both arms are alternatives (the venv arm was dropped as the default's dead arm)."""
    got = [(d.launch_span.line, d.image) for d in fixture_deps("arms/case-in-function.sh")]
    assert got == [(9, "$IMAGE"), (12, None)]


def test_envs_operands_left_to_variables_stand_for_assignments(tmp_path):
    """Sample K236's benchmark script (a KV008): `CMD="env $DEV VLLM_X=0 PATH=$R/bin:$PATH $EXTRAENV
    $R/engines/vllm/.venv/bin/vllm serve $HF ..."`, run by `setsid bash -c "$CMD > $LOG 2>&1"`: env's operands that
    are only expansions are assignments when a program word follows, so the command is the venv's `vllm serve`.
    An expansion followed by an option is the program itself (`env $PY -m ...`): nothing is skipped past it."""
    p = tmp_path / "run_vllm.sh"
    p.write_text('CMD="env $DEV VLLM_X=0 PATH=$R/bin:$PATH $EXTRAENV $R/engines/vllm/.venv/bin/vllm serve $HF '
                 '--max-model-len 8192 --tensor-parallel-size $TP"\nsetsid bash -c "$CMD > $LOG 2>&1" < /dev/null &\n')
    (d,) = read_path(str(p)).deployments
    assert (d.engine, d.model_resolved, d.get("max_model_len")) == ("vllm", False, 8192)
    q = tmp_path / "py.sh"
    q.write_text("env $PY -m vllm.entrypoints.openai.api_server --model org/m\n")
    (e,) = read_path(str(q)).deployments
    assert (e.engine, e.model) == ("vllm", "org/m")


def test_the_configurations_one_commands_arms_give_are_one_launch(tmp_path, capsys):
    """Sample K264's `case "$1" in qwen) MODEL_PATH=...;; llama) ...;; mistral) ...;; esac` then one `vllm serve
    "$MODEL_PATH"` (measured: three launches, the reader counts one command): each arm's model is sized, and the
    three are configurations of one launch (Deployment.one_of_arms), counted once in the summary and in JSON's
    capacity. Two commands are two launches whatever their arms."""
    from kvlint.cli import main
    from kvlint.deployment import launch_count

    text = ('case "$1" in\n  a) M=org/a ;;\n  b) M=org/b ;;\n  c) M=org/c ;;\nesac\n'
            'vllm serve "$M" --max-model-len 4096\n')
    deps = read_path("serve.sh", text).deployments
    assert [(d.model, d.one_of_arms) for d in deps] == [("org/a", True), ("org/b", True), ("org/c", True)]
    assert launch_count(deps) == 1
    two = read_path("serve.sh", text + "python -m sglang.launch_server --model-path org/s\n").deployments
    assert launch_count(two) == 2 and not two[-1].one_of_arms
    (tmp_path / "serve.sh").write_text(text)
    assert main(["check", "--exit-zero", str(tmp_path / "serve.sh")]) == 0
    assert "1 launch in 3 configurations: " in capsys.readouterr().out
    assert main(["check", "--format", "json", "--exit-zero", str(tmp_path / "serve.sh")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["capacity"]["launches"], doc["capacity"]["configurations"]) == (1, 3)
    assert [d["one_of_arms"] for d in doc["deployments"]] == [True, True, True]
