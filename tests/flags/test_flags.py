"""The engines' argv rules replayed on tokens: spellings, prefixes, booleans, unresolved values, spans."""

from __future__ import annotations

import json
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlint.flags.launch import detect_launch
from kvlint.flags.parse import ParsedArgs, parse_args
from kvlint.span import Token
from tests.flags.tokens import toks


def run(engine: str, line: str) -> ParsedArgs:
    tokens = toks(line)
    found = detect_launch(tokens)
    assert found is not None and found.engine == engine
    return parse_args(engine, tokens, found.index)


def value(parsed: ParsedArgs, dest: str):
    return parsed.settings[dest].value


# --------------------------------------------------------------- vLLM spellings

@pytest.mark.parametrize(
    ("args", "dest", "expected"),
    [
        pytest.param("--max-model-len 8192", "max_model_len", 8192, id="space"),
        pytest.param("--max-model-len=8192", "max_model_len", 8192, id="equals"),
        pytest.param("--max_model_len=4k", "max_model_len", 4000, id="underscores and decimal k"),
        pytest.param("--max-model-len 1K", "max_model_len", 1024, id="binary K"),
        pytest.param("--max-model-len auto", "max_model_len", -1, id="auto"),
        pytest.param("--max-model-len -1", "max_model_len", -1, id="minus one is a value"),
        pytest.param("-tp 2", "tensor_parallel_size", 2, id="short alias"),
        pytest.param("-tp=2", "tensor_parallel_size", 2, id="short alias equals"),
        pytest.param("--tensor_parallel_size 4", "tensor_parallel_size", 4, id="underscore long"),
        pytest.param("--pipeline_parallel_size 2", "pipeline_parallel_size", 2, id="corpus pipeline underscore"),
        pytest.param("--max-num-seq 1024", "max_num_seqs", 1024, id="prefix abbreviation"),
        pytest.param("--max-num-batched-token=8192", "max_num_batched_tokens", 8192, id="corpus prefix with equals"),
        pytest.param("--kv-cache-memory 20G", "kv_cache_memory_bytes", 20 * 2**30, id="engine hint abbreviation"),
        pytest.param("--load_format=safetensors", "load_format", "safetensors", id="corpus load_format"),
        pytest.param("--gpu-memory-utilization 0.95", "gpu_memory_utilization", 0.95, id="float"),
        pytest.param("--device-memory-utilization 0.5", "gpu_memory_utilization", 0.5, id="alias"),
        pytest.param("--enforce-eager", "enforce_eager", True, id="bare boolean"),
        pytest.param("--no-enforce-eager", "enforce_eager", False, id="no- boolean"),
        pytest.param("--disable-prefix-caching", "enable_prefix_caching", False, id="disable pairs with enable"),
        pytest.param("--no-enable-prefix-caching", "enable_prefix_caching", False, id="hidden no-enable"),
        pytest.param("--enable-log-requests", "enable_log_requests", True, id="enable"),
        pytest.param("--disable-log-requests", "enable_log_requests", False, id="disable-log-requests is still valid"),
        pytest.param("--compilation-config.mode 3", "compilation_config", {"mode": 3}, id="dotted json key"),
        pytest.param("--hf-overrides.rope_scaling.factor=4.0", "hf_overrides", {"rope_scaling": {"factor": 4.0}}, id="nested dotted"),
        pytest.param("--compilation-config.splitting_ops+ a,b", "compilation_config", {"splitting_ops": ["a", "b"]}, id="dotted append"),
        pytest.param("-O3", "optimization_level", "3", id="-O3"),
        # sample K111 on vLLM 0.11.0: `-O.` is a key of the compilation config, not an optimization level
        pytest.param("-O.cudagraph_mode=FULL_AND_PIECEWISE", "compilation_config", {"cudagraph_mode": "FULL_AND_PIECEWISE"},
                     id="-O dotted key"),
        # sample K250: vLLM splits every `-`-led word holding a dot, so a short option's JSON keys are read too
        pytest.param("-cc.cudagraph_mode=PIECEWISE", "compilation_config", {"cudagraph_mode": "PIECEWISE"},
                     id="-cc dotted key"),
        pytest.param("--kv-cache-dtype fp8", "kv_cache_dtype", "fp8", id="kv cache dtype"),
        pytest.param("--api-key a b", "api_key", ["a", "b"], id="nargs plus"),
        pytest.param("--dtype half", "dtype", "half", id="choice"),
        pytest.param("--speculative-config {\"method\":\"eagle\"}", "speculative_config", {"method": "eagle"}, id="json"),
    ],
)
def test_vllm_accepts(args: str, dest: str, expected) -> None:
    parsed = run("vllm", f"vllm serve m {args}")
    assert not parsed.unknown and not parsed.errors
    assert value(parsed, dest) == expected


@pytest.mark.parametrize(
    ("args", "flag", "reason", "suggestion"),
    [
        pytest.param("--swap-space 4", "--swap-space", "removed", None, id="swap-space removed"),
        pytest.param("--use-v2-block-manager", "--use-v2-block-manager", "removed", None, id="v2 block manager"),
        pytest.param("--num-scheduler-steps 8", "--num-scheduler-steps", "removed", None, id="multi-step"),
        pytest.param("--max-seq-len-to-capture 8192", "--max-seq-len-to-capture", "removed", None, id="corpus capture len"),
        pytest.param("--task generate", "--task", "removed", "--runner / --convert", id="task"),
        pytest.param("--max-num 8", "--max-num", "ambiguous", None, id="ambiguous prefix"),
        pytest.param("--max-mode-len 8", "--max-mode-len", "unrecognized", "--max-model-len", id="typo"),
        pytest.param("--tp 2", "--tp", "unrecognized", "-tp", id="vllm has -tp, not --tp"),
    ],
)
def test_vllm_rejects(args: str, flag: str, reason: str, suggestion: str | None) -> None:
    parsed = run("vllm", f"vllm serve m {args} --max-model-len 1024")
    assert [(u.flag, u.reason) for u in parsed.unknown] == [(flag, reason)]
    if suggestion is not None:
        assert parsed.unknown[0].suggestion == suggestion
    assert value(parsed, "max_model_len") == 1024  # the removed flag's value was not taken for a positional
    assert not parsed.errors


def test_a_removed_flag_keeps_its_value_as_written() -> None:
    """`--device rbln` (vLLM dropped `--device`): the value is kept on the finding's record, the platform asked for."""
    spaced = run("vllm", "vllm serve m --device rbln --max-model-len 1024").unknown
    glued = run("vllm", "vllm serve m --device=neuron").unknown
    switch = run("vllm", "vllm serve m --use-v2-block-manager --max-model-len 1024").unknown
    assert [(u.flag, u.value) for u in (*spaced, *glued, *switch)] == [
        ("--device", "rbln"), ("--device", "neuron"), ("--use-v2-block-manager", "")]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ("--dtype fp9", "invalid choice 'fp9'"), ("--max-model-len 1.5K", "invalid"), ("--enable-chunked-prefill=false", "ignored explicit"),
        ("--max-model-len", "expected one argument"), ("extra", "unrecognized argument 'extra'"), ("-tp two", "invalid int"),
    ],
)
def test_vllm_errors(args: str, needle: str) -> None:
    parsed = run("vllm", f"vllm serve m {args}")
    assert any(needle in e for e in parsed.errors), parsed.errors


def test_vllm_model_positional_and_option() -> None:
    assert run("vllm", "vllm serve org/m -tp 2").model.value == "org/m"
    parsed = run("vllm", "python3 -m vllm.entrypoints.openai.api_server --model org/x --port 8000")
    assert parsed.model.value == "org/x" and parsed.model.flag == "--model" and value(parsed, "port") == 8000


def test_vllm_model_must_come_first_with_served_model_name() -> None:
    parsed = run("vllm", "vllm serve --served-model-name x org/m")
    assert any("first positional" in e for e in parsed.errors)


def test_last_occurrence_wins_and_keeps_its_span() -> None:
    parsed = run("vllm", "vllm serve m --gpu-memory-utilization 0.95 --gpu-memory-utilization=0.4")
    s = parsed.settings["gpu_memory_utilization"]
    assert s.value == 0.4 and s.raw == "0.4" and s.flag == "--gpu-memory-utilization"
    line = "vllm serve m --gpu-memory-utilization 0.95 --gpu-memory-utilization=0.4"
    assert line[s.span.col - 1:s.span.end_col - 1] == "0.4"
    assert line[s.flag_span.col - 1:s.flag_span.end_col - 1] == "--gpu-memory-utilization=0.4"


def test_vllm_optional_type_reads_none_as_unset() -> None:
    """vLLM's optional_type: `--quantization None` leaves the field at its default, so the launch
    is an unquantized one, never a quantization called "None"; the last occurrence still wins."""
    parsed = run("vllm", "vllm serve m --quantization fp8 --quantization None --kv-cache-memory-bytes None")
    assert not parsed.errors and "quantization" not in parsed.settings
    assert "kv_cache_memory_bytes" not in parsed.settings


def test_none_is_refused_where_the_field_is_not_optional() -> None:
    """0.33's max_model_len is a plain int (no optional_type) and SGLang has none: `None` stays a refused value."""
    assert any("--max-model-len" in e for e in run("vllm", "vllm serve m --max-model-len None").errors)
    parsed = run("sglang", "python -m sglang.launch_server --model-path m --quantization None")
    assert [v.raw for v in parsed.invalid] == ["None"] and "quantization" not in parsed.settings


def test_spans_of_separate_value_and_bare_boolean() -> None:
    line = "vllm serve m --max-model-len 32768 --enforce-eager"
    parsed = run("vllm", line)
    mml, eager = parsed.settings["max_model_len"], parsed.settings["enforce_eager"]
    assert line[mml.span.col - 1:mml.span.end_col - 1] == "32768"
    assert line[mml.flag_span.col - 1:mml.flag_span.end_col - 1] == "--max-model-len"
    assert eager.span == eager.flag_span and line[eager.span.col - 1:eager.span.end_col - 1] == "--enforce-eager"
    assert line[parsed.model.span.col - 1:parsed.model.span.end_col - 1] == "m"


@pytest.mark.parametrize("raw", ["$(TP)", "${TP_SIZE}", "$TP", "{{ .Values.tp }}", "{tp_size}", "${KV_BYTES-}"])
def test_unresolved_values_are_kept_raw(raw: str) -> None:
    parsed = parse_args("vllm", [Token("-tp"), Token(raw), Token("--max-model-len"), Token("2048")])
    s = parsed.settings["tensor_parallel_size"]
    assert (s.resolved, s.value, s.raw) == (False, raw, raw)
    assert parsed.settings["max_model_len"].resolved and not parsed.errors


def test_unresolved_model_is_marked() -> None:
    parsed = parse_args("vllm", [Token("$(MODEL)"), Token("-tp"), Token("2")])
    assert parsed.model is not None and not parsed.model.resolved


# --------------------------------------------------------------- SGLang spellings

@pytest.mark.parametrize(
    ("args", "dest", "expected"),
    [
        pytest.param("--tp 2", "tp_size", 2, id="--tp is a unique prefix of --tp-size"),
        pytest.param("--tp-size 8", "tp_size", 8, id="tp-size"),
        pytest.param("--tensor-parallel-size=4", "tp_size", 4, id="alias equals"),
        pytest.param("--dp 2", "dp_size", 2, id="--dp prefix"),
        pytest.param("--context-length 1Ki", "context_length", 1024, id="IEC suffix"),
        pytest.param("--context-length 32k", "context_length", 32000, id="SI suffix"),
        pytest.param("--max-total-tokens 1M", "max_total_tokens", 10**6, id="M is decimal"),
        pytest.param("--mem-fraction-static 0.8", "mem_fraction_static", 0.8, id="float"),
        pytest.param("--kv-cache-dtype fp8_e4m3", "kv_cache_dtype", "fp8_e4m3", id="choice"),
        pytest.param("--disable-radix-cache", "disable_radix_cache", True, id="store_true"),
        pytest.param("--cuda-graph-max-bs-decode 64", "cuda_graph_max_bs_decode", 64, id="new decode flag"),
        pytest.param("--enable-dp-attention", "enable_dp_attention", True, id="deprecated but accepted"),
    ],
)
def test_sglang_accepts(args: str, dest: str, expected) -> None:
    parsed = run("sglang", f"python3 -m sglang.launch_server --model-path m {args}")
    assert not parsed.unknown and not parsed.errors
    assert value(parsed, dest) == expected


@pytest.mark.parametrize(
    ("args", "flag", "reason", "suggestion"),
    [
        pytest.param("--pp 2", "--pp", "ambiguous", None, id="--pp is ambiguous"),
        pytest.param("--cuda-graph-max-bs 8", "--cuda-graph-max-bs", "removed", "--cuda-graph-max-bs-decode", id="old graph flag"),
        pytest.param("--max_total_tokens 100", "--max_total_tokens", "unrecognized", "--max-total-tokens", id="no underscores"),
        pytest.param("--tp_size 2", "--tp_size", "unrecognized", "--tp-size", id="underscore tp"),
        pytest.param("--enable-ep-moe", "--enable-ep-moe", "removed", "--ep-size", id="corpus enable-ep-moe"),
        pytest.param("--max-model-len 4096", "--max-model-len", "unrecognized", None, id="vllm flag on sglang"),
    ],
)
def test_sglang_rejects(args: str, flag: str, reason: str, suggestion: str | None) -> None:
    parsed = run("sglang", f"python3 -m sglang.launch_server --model-path m {args} --port 30001")
    assert [(u.flag, u.reason) for u in parsed.unknown] == [(flag, reason)]
    if suggestion is not None:
        assert parsed.unknown[0].suggestion == suggestion
    assert value(parsed, "port") == 30001 and not parsed.errors


@pytest.mark.parametrize(("args", "needle"), [("--context-length 32K", "invalid human_int"), ("--kv-cache-dtype fp8", "invalid choice 'fp8'")])
def test_sglang_errors(args: str, needle: str) -> None:
    parsed = run("sglang", f"sglang serve m {args}")
    assert any(needle in e for e in parsed.errors), parsed.errors


def test_sglang_positional_model_only_with_serve() -> None:
    assert run("sglang", "sglang serve org/m --tp 2").model.value == "org/m"
    parsed = run("sglang", "python -m sglang.launch_server org/m --tp 2")
    assert parsed.model is None and any("org/m" in e for e in parsed.errors)
    assert run("sglang", "python -m sglang.launch_server --model org/x").model.value == "org/x"


# --------------------------------------------------------------- real commands

def _case_tokens(command: str) -> list[Token]:
    command = command.split("  (")[0]  # cases annotate commands with "(source, VAR=...)" after two spaces
    return [Token(w) for w in shlex.split(command.replace("\\\n", " ")) if w != "…"]


def test_every_flag_in_the_logged_commands_parses(shared_dir) -> None:
    """Commands of shared/logs/cases.json: flags are known to 0.33/0.5.23 or reported as removed there."""
    cases = json.loads((shared_dir / "logs" / "cases.json").read_text())
    checked = 0
    for case in cases:
        command = case.get("command") or ""
        if case["engine"] not in ("vllm", "sglang") or "--" not in command or "LLM(" in command:
            continue
        tokens = _case_tokens(command)
        starts = [(i, f) for i in range(len(tokens)) if (f := detect_launch(tokens[i:])) is not None]
        if starts:  # the launch may sit inside `docker run ... image vllm serve ...`
            offset, found = starts[0]
            parsed = parse_args(case["engine"], tokens[offset:], found.index)
        elif "/" in tokens[0].text:  # a container's args list: model first, then flags
            parsed = parse_args(case["engine"], tokens)
        else:
            continue
        assert not parsed.errors, (case["id"], parsed.errors)
        assert all(u.reason == "removed" for u in parsed.unknown), (case["id"], parsed.unknown)
        checked += 1
    assert checked >= 5


CORPUS_SPELLINGS = [
    ("vllm", "--max-num-batched-token=8192", "max_num_batched_tokens", 8192),
    ("vllm", "--max-num-seq 1024", "max_num_seqs", 1024),
    ("vllm", "--load_format=auto", "load_format", "auto"),
    ("vllm", "--pipeline_parallel_size 2", "pipeline_parallel_size", 2),
    ("vllm", "--tensor_parallel_size 2", "tensor_parallel_size", 2),
    ("vllm", "--max_model_len 1024", "max_model_len", 1024),
    ("vllm", "--kv_transfer_config {\"kv_connector\":\"X\"}", "kv_transfer_config", {"kv_connector": "X"}),
    ("sglang", "--tp 2", "tp_size", 2),
    ("sglang", "--tp-size 8", "tp_size", 8),
]


@pytest.mark.parametrize(("engine", "args", "dest", "expected"), CORPUS_SPELLINGS)
def test_corpus_spellings(engine: str, args: str, dest: str, expected) -> None:
    parsed = parse_args(engine, toks(args), positional_model=False)
    assert not parsed.unknown and not parsed.errors
    assert value(parsed, dest) == expected


def test_corpus_swap_space_is_removed_in_vllm(shared_dir) -> None:
    notes = (shared_dir / "corpus" / "index.tsv").read_text()
    assert "--swap-space" in notes
    parsed = parse_args("vllm", toks("--swap-space 16 -tp 2"), positional_model=False)
    assert [u.reason for u in parsed.unknown] == ["removed"] and value(parsed, "tensor_parallel_size") == 2


@pytest.mark.parametrize(
    ("words", "dest", "expected"),
    [
        pytest.param(["-qfp8"], "quantization", "fp8", id="one-letter option glued to its value"),
        pytest.param(["-t", "4"], "tensor_parallel_size", 4, id="single-dash prefix of -tp"),
        pytest.param(['--kv-transfer-config={"kv_connector": "X"}'], "kv_transfer_config", {"kv_connector": "X"}, id="json with spaces after ="),
        pytest.param(["--kv-transfer-config", '{"kv_connector": "X"}'], "kv_transfer_config", {"kv_connector": "X"}, id="json with spaces"),
        pytest.param(["--chat-template", "-x y"], "chat_template", "-x y", id="dash value with a space is a value"),
        pytest.param(["--max-model-len", "-1"], "max_model_len", -1, id="negative number is a value"),
    ],
)
def test_vllm_argparse_corners(words: list[str], dest: str, expected) -> None:
    parsed = parse_args("vllm", [Token(w) for w in words], positional_model=False)
    assert not parsed.unknown and not parsed.errors
    assert parsed.settings[dest].value == expected


def test_unknown_flag_with_json_value_is_one_error() -> None:
    parsed = parse_args("vllm", [Token('--foo={"a": 1}')], positional_model=False)
    assert parsed.errors and not parsed.settings


@pytest.mark.parametrize(("dtype", "ok"), [("fp8", True), ("fp8_e5m2", True), ("nvfp4", True), ("fp4", False), ("FP8", False)])
def test_vllm_kv_cache_dtype_is_checked_like_the_engine(dtype: str, ok: bool) -> None:
    parsed = parse_args("vllm", [Token("--kv-cache-dtype"), Token(dtype)], positional_model=False)
    assert (not parsed.errors) is ok
    if not ok:
        assert "rejects" in parsed.errors[0] and "fp8_e4m3" in parsed.errors[0]

_WORDS = st.one_of(
    st.sampled_from(["--tp", "-tp", "--max-model-len", "--max_model_len=", "-O", "-O3", "--", "-", "=", "--x.y", "--hf-overrides.a",
                     "--config", "serve", "--enable-prefix-caching=", "-qfp8", "$(X)", "{{ a }}", "-1", "1k", "32K", "--no-"]),
    st.text(max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["vllm", "sglang"]), st.lists(_WORDS, max_size=8))
def test_parse_args_never_raises(engine: str, words: list[str]) -> None:
    parsed = parse_args(engine, [Token(w) for w in words])
    assert all(isinstance(e, str) and "\n" not in e for e in parsed.errors)
    assert all(s.name == dest for dest, s in parsed.settings.items())


@pytest.mark.parametrize(("engine", "text", "value"), [("vllm", "32K", 32768), ("vllm", "auto", -1), ("sglang", "32Ki", 32768), ("sglang", "32k", 32000)])
def test_parse_human_int_per_engine(engine: str, text: str, value: int) -> None:
    from kvlint.flags.flag_values import parse_human_int

    assert parse_human_int(engine, text) == value


def test_deprecated_flags_are_accepted_and_listed() -> None:
    parsed = run("sglang", "sglang serve m --dp-size 2 --enable-dp-attention --disable-cuda-graph")
    assert [t.text for t in parsed.deprecated] == ["--enable-dp-attention", "--disable-cuda-graph"]
    assert parsed.settings["enable_dp_attention"].value is True and not parsed.unknown
    assert run("vllm", "vllm serve m -tp 2").deprecated == []


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_specs_are_made_on_lookup_and_equal_the_table_entries(engine):
    from kvlint.data import load_json
    from kvlint.engines import get_engine
    from kvlint.flags.flag_table import Specs, _spec

    entries = load_json(get_engine(engine).flags_file)["flags"]
    specs = Specs(entries)
    first = entries[0]["options"][0]
    assert specs[first] == _spec(entries[0]) and len(specs._made) == 1  # one lookup, one spec made
    eager = {opt: _spec(e) for e in entries for opt in (*e["options"], *e.get("negative_options", ()))}
    assert dict(specs.items()) == eager and len(specs) == len(eager)
    assert specs.in_order() == tuple(_spec(e) for e in entries)
    assert specs.by_dest(entries[-1]["dest"]) == next(_spec(e) for e in entries if e["dest"] == entries[-1]["dest"])


@pytest.mark.parametrize("prefix", ["--max", "--max-model", "-t", "--enable-", "--nope", "--", "-"])
def test_abbreviation_candidates_are_the_scan_argparse_does(prefix):
    from kvlint.flags.flag_table import flag_table

    table = flag_table("vllm")
    scan = sorted(o for o in table.by_option if o.startswith(prefix) and o.startswith("--") == prefix.startswith("--"))
    assert table.by_option.starting_with(prefix) == scan
    assert table.by_option.starting_with(prefix) == scan  # memoised, same answer


def test_an_abbreviation_ambiguous_only_on_later_releases_carries_the_first_such_release():
    words = ["--model-path", "Qwen/Qwen3-8B", "--disable-flashinfer", "--pp"]
    parsed = parse_args("sglang", [Token(w) for w in words])
    by_flag = {u.flag: u for u in parsed.unknown}
    assert by_flag["--disable-flashinfer"].reason == "ambiguous" and by_flag["--disable-flashinfer"].since == "0.5.12"
    assert by_flag["--pp"].since is None  # ambiguous on every release read


@pytest.mark.parametrize("engine,typed,meant", [
    ("vllm", "--max-model-length", "--max-model-len"),
    ("vllm", "--gpu-mem-util", "--gpu-memory-utilization"),
    ("vllm", "--enable-prefix-cache", "--enable-prefix-caching"),
    ("vllm", "--served-model", "--served-model-name"),
    ("sglang", "--context-lenght", "--context-length"),
    ("sglang", "--num-gpus", None),  # not --kt-num-gpu-experts: two words apart (the diffusion server's flag)
    ("vllm", "--temperature", None),  # not --chat-template: a sampling parameter, no server option
])
def test_did_you_mean_only_for_a_slip_of_a_word_or_two_letters(engine, typed, meant):
    from kvlint.flags.flag_table import did_you_mean, flag_table

    assert did_you_mean(flag_table(engine), typed) == meant


@pytest.mark.parametrize("word", ["false", "True", "no"])
def test_a_word_after_a_switch_is_no_model(word: str) -> None:
    """`--enforce-eager false` (sample K3's CRUSHVLLM): the switch takes no value, so the word is a stray argument,
    said as an error line, never the model the launch names with --model."""
    p = run("vllm", f"python3 -m vllm.entrypoints.openai.api_server --model org/m --enforce-eager {word} --max-model-len 8192")
    assert p.model is not None and p.model.value == "org/m"
    assert p.settings["enforce_eager"].value is True and p.settings["max_model_len"].value == 8192
    assert any("--enforce-eager takes no value" in e for e in p.errors)


def test_a_word_after_a_value_flag_is_its_value_not_a_stray() -> None:
    p = run("vllm", "vllm serve --model org/m --served-model-name false")
    assert p.settings["served_model_name"].value in ("false", ["false"]) and not p.errors


def test_an_option_whose_name_is_an_expansion_is_open_not_unknown() -> None:
    """Sample K97 (measured: two wrong KV004 warnings on `--"$p_type" "$p_count"`): an option the caller names
    (`--tp` or `--dp`) is no unknown flag; its value is not a stray positional, and the option is kept as open."""
    parsed = run("sglang", 'python -m sglang.launch_server --model-path org/m --"$P_TYPE" "$P_COUNT" --port 30000')
    assert parsed.unknown == [] and parsed.errors == []
    assert len(parsed.open_options) == 1 and value(parsed, "port") == 30000
