"""Issue 23: verdicts a reviewer would sign. Each case is a fixture file run through `lint`; what must not fire
is asserted as firmly as what must."""

from __future__ import annotations

from pathlib import Path

from kvlint.findings import Severity
from kvlint.lint import LintOptions, lint

RULES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
VERDICTS = Path(__file__).resolve().parents[1] / "fixtures" / "verdicts"


def run(path: Path, *select: str):
    result = lint([str(path)], LintOptions(select=select or None))
    assert result.unreadable == []
    return result


def test_a_capped_sglang_pool_is_not_a_context_the_pool_must_hold():
    result = run(RULES / "KV108" / "bad-capped-pool.sh", "KV108")
    [f] = result.findings
    assert f.severity == Severity.INFO and "4 TiB" not in f.message
    assert "--max-total-tokens 65,000" in f.message and f.data["passing"]


def check(name: str, *select: str, gpu: str | None = None):
    result = lint([str(VERDICTS / name)], LintOptions(select=select or None, gpu=gpu))
    assert result.unreadable == []
    return result


def alone(name: str, *select: str):
    """`check` of a fixture copied out of this repository (whose other files pin engine images: the release a host
    script meets would be open, kvlint.resolve.repository)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / name
        shutil.copy(VERDICTS / name, copy)
        return run(copy, *select)


def loud(result) -> list:
    return [f for f in result.findings if f.severity > Severity.INFO]


def test_a_build_older_than_the_tables_is_the_nearest_modelled_said_aloud():
    """rocm/sgl-dev:20250701 predates the formula that gives a negative fraction: no error on MI300X (issue 23)."""
    result = check("r1-mi300x-20250701.sh", gpu="MI300X")
    assert loud(result) == [] and not any(f.code == "KV102" for f in result.findings)
    [status] = result.launches
    assert status.modelled_release == "0.4.9" and status.open_input is None
    said = {f.data.get("modelled_release") for f in result.findings}
    assert said == {"the image rocm/sgl-dev:20250701 is a build of 2025-07-01, older than kvlint's release tables "
                    "(the nearest modelled): modelled as 0.4.9"}


def test_a_rocm_image_is_swept_on_amd_cards_only():
    result = check("r1-mi300x-20250701.sh", "KV108")
    [f] = result.findings
    assert f.severity == Severity.INFO and "AMD cards" in f.message
    assert "MI300X-192GB" in f.data["passing"] and not any(g.startswith(("H", "A1", "B")) for g in
                                                           f.data["passing"] + f.data["failing"])


def test_a_verdict_the_candidate_releases_disagree_on_is_an_info_naming_the_release():
    result = check("r1-mi300x-20250901.sh", gpu="MI300X")
    assert loud(result) == []
    [f] = [f for f in result.findings if f.code == "KV102"]
    assert f.data["on"] == ["0.5.3"] and f.data["off"] == ["0.4.9"]
    assert "pin a release tag on the image, line 4" in f.message
    [status] = result.launches
    assert status.open_input.startswith("SGLang release 0.4.9 or 0.5.3")


def test_a_negative_derived_fraction_is_the_engines_refusal_on_the_release_that_computes_it():
    [f] = [f for f in check("r1-h100-v054.sh", gpu="H100").findings if f.code == "KV102"]
    assert f.severity == Severity.ERROR and "SGLang 0.5.4 derives mem_fraction_static -" in f.message
    assert "refuses to start" in f.message and f.fix.startswith("--mem-fraction-static")
    assert f.span.line == 5 and "--chunked-prefill-size" in f.message


def test_a_card_named_without_its_memory_is_tried_on_each_size():
    result = check("a100-no-memory.yaml")
    assert loud(result) == []
    [kv102] = [f for f in result.findings if f.code == "KV102"]
    assert kv102.data["on"] == ["A100-SXM-40GB"] and "'A100' names no memory size" in kv102.message
    both = check("a100-both-fail.yaml")
    assert [f.code for f in loud(both)] == ["KV102"]  # every size agrees: the error stands


def test_a_flag_the_pinned_release_lacks_is_never_suggested():
    [f] = check("vllm-v092-mla.yaml", "KV203").findings
    assert "-dcp 8 spreads" not in f.message and "vLLM 0.9.2 has no -dcp" in f.message
    assert f.fix is not None and not f.fix.startswith("-dcp")
    assert not f.data.get("modelled_release")  # 0.9.2 is documented (its batch defaults differ from 0.8's)


def test_on_release_reads_the_flag_tables_versions():
    from kvlint.flags.flag_table import on_release

    assert on_release("vllm", "-dcp", "0.9.2") is False and on_release("vllm", "-dcp", "0.10.2") is True
    assert on_release("vllm", "-dcp", None) is True
    assert on_release("sglang", "--dcp-size", "0.5.12") is False  # read in 0.5.12, absent there
    assert on_release("vllm", "--nnodes", "0.9.0") is False  # absent from 0.11.0, the first read
    assert on_release("vllm", "--max-model-len", "0.9.0") is None  # older than the tables, seen from the first read


def test_the_modelled_release_is_in_the_json_and_the_html():
    import json

    from kvlint.report import html as html_report
    from kvlint.report import json_report

    result = check("r1-mi300x-20250701.sh", gpu="MI300X")
    doc = json.loads(json_report.render(result))
    assert doc["deployments"][0]["modelled_release"] == "0.4.9"
    assert {f["data"]["modelled_release"] for f in doc["findings"]} == {result.findings[0].data["modelled_release"]}
    assert "modelled as 0.4.9" in html_report.render(result)


def test_an_unresolved_tp_is_sized_on_each_size_the_gpus_allow():
    """$(TP) over 2 GPUs: sized at TP 2 and 1 (was skipped); the TP 1 refusal is an info naming -tp, not an error."""
    result = check("tp-from-env-70b.yaml")
    assert loud(result) == []
    [status] = result.launches
    assert status.capacity == "evaluated" and status.open_input.startswith("-tp 2 or 1 (")
    [kv102] = [f for f in result.findings if f.code == "KV102"]
    assert kv102.data["on"] == ["1"] and "bounded by the 2 GPUs requested" in kv102.message
    quiet = check("tp-from-env.yaml")
    assert loud(quiet) == [] and quiet.launches[0].capacity == "evaluated"


def test_an_unresolved_tp_over_one_gpu_is_one_and_nothing_is_left_open():
    result = check("tp-visible-one.sh")
    assert loud(result) == []
    [status] = result.launches
    assert status.capacity == "evaluated" and status.open_input is None and "tensor_parallel_size" not in status.unresolved
    [kv108] = [f for f in result.findings if f.code == "KV108"]
    assert "(-tp 1)" in kv108.message


def test_a_path_several_publishers_conventions_derive_is_sized_on_each():
    result = check("path-fp8-publishers.yml")
    assert loud(result) == []
    [status] = result.launches
    assert status.capacity == "evaluated" and status.model_source == "path-name"
    assert status.open_input.startswith("model Qwen/Qwen3.6-27B-FP8 or nvidia/Qwen3.6-27B-FP8 or RedHatAI/Qwen3.6-27B-FP8 (")
    assert "map it to its config.json under `models:`" in status.open_input
    [kv108] = [f for f in result.findings if f.code == "KV108"]
    assert "passes on" in kv108.message


def test_a_path_one_convention_derives_is_not_an_open_input():
    from kvlint.models.resolve import path_candidates

    assert path_candidates("/models/Qwen2.5-72B-Instruct-GPTQ-Int4") == ()  # Qwen's own suffix only
    assert path_candidates("Qwen/Qwen3.6-27B-FP8") == ()  # a Hub id is the model it names
    assert [s.model_id for s in path_candidates("/models/Qwen3.6-27B-FP8")] == [
        "Qwen/Qwen3.6-27B-FP8", "nvidia/Qwen3.6-27B-FP8", "RedHatAI/Qwen3.6-27B-FP8"]


def test_kv005_judges_the_release_the_launch_runs():
    [latest] = check("kv005-latest.yaml", "KV005").findings
    assert latest.severity == Severity.ERROR and "the server exits" in latest.message
    [host] = alone("kv005-host.sh", "KV005").findings
    # sample K83: a script sampled without the Dockerfile that runs it in a vendor's image, judged on the host's
    # newest release, was a wrong error; a host install that pins nothing is a warning that says what it assumed
    # (read alone: beside the other fixtures, in this repository, their pinned images would make the release open)
    assert host.severity == Severity.WARNING and "0.33.0 assumed: the script pins none" in host.message
    assert "an image that runs the script may still accept it" in host.message
    [open_] = check("kv005-image-elsewhere.yaml", "KV005").findings
    assert open_.severity == Severity.INFO and "pins no vLLM release, so the release decides" in open_.message


def test_kv005_on_a_job_step_in_an_engine_image_is_judged_on_that_images_releases():
    """Sample K457 (measured: two KV005 warnings "on the SGLang release installed today"): the launch is a
    here-document read into `$cmd` and run by `srun --container-image="$CONTAINER" bash -c "${cmd}"`, CONTAINER an
    SGLang build of 2025-11-21. The script's steps run in that image, so its dated build is the release, not the
    host's newest."""
    [f] = alone("kv005-step-image.sh", "KV005").findings
    assert "installed today" not in f.message and "SGLang 0.5.4 (pinned) has it" in f.message
    assert "sglang:nightly-dev-20251121" in f.message


def test_kv005_on_a_source_checkout_leaves_the_release_open(tmp_path):
    """Sample K40's DeepSeek-V4 script (measured: a KV005 error "on the SGLang release installed today"): it puts
    `${SGLANG_ROOT}/python` on PYTHONPATH, so it runs a checkout of unknown commit (`--cuda-graph-max-bs` is in
    the 0.5.13 to 0.5.19 wheels' parsers, gone by 0.5.21): the release decides, said as an info. An editable install
    of a checkout is the same; a plain host install is still today's release (above)."""
    def alone(name: str) -> list:  # away from the fixtures' own SGLang tree, which a launch beside it runs
        path = tmp_path / name
        path.write_text((VERDICTS / name).read_text())
        result = lint([str(path)], LintOptions(select=("KV005",)))
        assert result.unreadable == []
        return result.findings

    [checkout] = alone("kv005-checkout.sh")
    assert checkout.severity == Severity.INFO and checkout.span.line == 6
    assert "it runs the SGLang source tree on PYTHONPATH (${SGLANG_ROOT}/python)" in checkout.message
    [editable] = alone("kv005-editable.sh")
    assert editable.severity == Severity.INFO and "installed editable (./third_party/vllm)" in editable.message
    # a folder on PYTHONPATH that only carries the engine's name is a shim beside the installed release (sample K35)
    (tmp_path / "shim.sh").write_text((VERDICTS / "kv005-checkout.sh").read_text().replace(
        "${SGLANG_ROOT}/python", "$PWD/compat/sglang_qwen35"))
    [shim] = lint([str(tmp_path / "shim.sh")], LintOptions(select=("KV005",))).findings
    assert shim.severity == Severity.WARNING and "installed today" in shim.message


def test_open_inputs_share_the_runs_budget_memo():
    """The alternatives are sized through the run's BudgetCache: a launch repeated costs lookups, not budgets."""
    from kvlint.config import Config
    from kvlint.launches import read_path
    from kvlint.resolve import ResolveOptions, Resolver

    [dep] = read_path(str(VERDICTS / "r1-mi300x-20250901.sh")).deployments
    resolver = Resolver(ResolveOptions(gpu="MI300X"))
    first = resolver.resolve(dep, Config())
    assert first.open_input is not None and len(first.alternatives) == 1
    assert first.budget is not None and first.alternatives[0].budget is not None
    assert first.budget.engine_version == "0.4.9" and first.alternatives[0].budget.engine_version == "0.5.3"
    held = dict(resolver.budgets.outcomes)
    again = resolver.resolve(dep, Config())
    assert again.budget == first.budget and dict(resolver.budgets.outcomes).keys() == held.keys()


def test_a_tag_that_names_its_release_is_that_release():
    from kvlint.engines import get_engine
    from kvlint.resolve.lookups import _dated_build

    sglang = get_engine("sglang")
    named = _dated_build("rocm/sgl-dev:v0.5.7-rocm700-mi35x-20260121", sglang)
    assert named is not None and (named.version, named.source, named.modelled) == ("0.5.7", "image", "0.5.4")
    dated = _dated_build("lmsysorg/sglang:nightly-dev-20251015", sglang)
    assert dated is not None and dated.candidates == ("0.5.3", "0.5.4") and dated.source == "image-date"
    assert _dated_build("lmsysorg/sglang:dev", sglang) is None


def test_a_cuda_engine_image_is_swept_on_nvidia_cards_only():
    [f] = check("cuda-image.yaml", "KV108").findings
    assert "NVIDIA cards (the image vllm/vllm-openai:v0.11.0 is a CUDA build)" in f.message
    assert not any(g.startswith("MI") for g in f.data["passing"] + f.data["failing"])


def test_a_hardware_forks_tag_is_not_an_engine_release():
    from kvlint.engines import get_engine
    from kvlint.resolve.lookups import _dated_build

    assert _dated_build("opea/vllm-gaudi:1.22.0", get_engine("vllm")) is None


def test_a_stand_ins_length_is_never_printed_as_the_models():
    """Sample F: KV108 said "at context_length 131,072" for Qwen2.5-1.5B-Instruct, the base's length. A verdict
    every candidate length agrees on keeps the first candidate's words and says they are its figures."""
    [f] = check("stand-in-length.sh", "KV108").findings
    assert f.severity == Severity.INFO and "32,768" in f.message and f.data["open_input"] == "context length"


def test_agreed_words_that_differ_say_whose_figures_they_are():
    from kvlint.findings import Finding
    from kvlint.registry import _figures_of_first

    first = Finding("KV108", "catalogue-sweep", Severity.INFO, "at context_length 131,072 it needs 8.5 GiB", None)
    other = Finding("KV108", "catalogue-sweep", Severity.INFO, "at context_length 32,768 it needs 4.1 GiB", None)
    values = ("131,072 (org/base)", "32,768 (org/a-Instruct)")
    said = _figures_of_first(first, [first, other], "context length", values, "set --context-length")
    assert said.message.endswith("[figures for context length 131,072; the same verdict on 32,768: "
                                 "set --context-length]") and said.data["figures_for"] == values[0]
    assert _figures_of_first(first, [first, first], "context length", values, "x") is first  # same words: as is


def test_a_choice_no_release_knows_on_an_unpinned_launch_names_the_release_assumed():
    """Sample F: `--disaggregation-mode language` (an SGLang development branch's mode) was an error "the server
    exits"; unrelated to every released choice and with no release pinned, it is an info naming the release."""
    [f] = check("dev-branch-value.sh", "KV007").findings
    assert f.severity == Severity.INFO and "0.5.23 assumed" in f.message and "pin the image tag" in f.message


def test_a_choice_a_forks_options_name_is_no_slip():
    """Sample K64: `--grammar-backend ananke` beside `--ananke-language` (an SGLang fork's options, KV004) was an error
    because `ananke` is 0.6 like `none`: a value the launch's options of no release name is the fork's, an info on
    an unpinned launch; a one-edit slip of a choice (`nane`) stays an error."""
    found = check("fork-value.sh", "KV007").findings
    assert [(f.severity, f.data["value"]) for f in found] == [(Severity.INFO, "ananke"), (Severity.ERROR, "nane"),
                                                              (Severity.INFO, "exl3"), (Severity.INFO, "exl3_mmap")]


def test_a_value_made_of_another_unlisted_value_of_the_launch_is_the_builds_too():
    """Sample K188's EXL3 build of SGLang: `--load-format exl3_mmap` shares its first letters with `expert_pack`, so
    it read as a spelling of a valid choice (an error) while `--quantization exl3` beside it was an info; a value
    made of the launch's other unlisted value is the same build's, an info like it."""
    found = [f for f in check("fork-value.sh", "KV007").findings if f.data["value"].startswith("exl3")]
    assert [(f.severity, f.span.line, f.span.col) for f in found] == [(Severity.INFO, 7, 74), (Severity.INFO, 7, 93)]


def test_a_slip_of_a_valid_choice_stays_an_error():
    found = check("slip-value.sh", "KV007").findings
    assert [(f.severity, f.data["value"]) for f in found] == [(Severity.ERROR, "fp16"), (Severity.ERROR, "prefil")]


def test_arguments_the_caller_adds_leave_the_parallelism_open():
    """An unresolved argument list after the flags (`${VLLM_ARGS}`, SGLang's `$EXTRA_ARGS`), or in place of the model
    (`api_server --port 5000 ${VLLM_ARGS}`), may set TP, PP and DP: KV204 does not judge the GPUs against a TP of 1.
    A variable that names the model (`${MODEL}`) is only the model: the default TP of 1 stands."""
    from kvlint.launches import read_path

    deps = {d.name: d for d in read_path(str(VERDICTS / "kv204-extra-args.yaml")).deployments}
    for name in ("flags-then-arguments", "arguments-only", "sglang"):
        tp = deps[name].settings[deps[name].engine == "vllm" and "tensor_parallel_size" or "tp_size"]
        assert not tp.resolved and tp.raw.startswith("(left to the arguments "), name
    assert "tensor_parallel_size" not in deps["model-variable"].settings
    loud_204 = [(f.span.line, f.message) for f in check("kv204-extra-args.yaml", "KV204").findings
                if f.severity > Severity.INFO]
    assert [line for line, _ in loud_204] == [43]  # model-variable: TP 1 on two GPUs, as written


def test_kv012_in_a_makefile_recipe():
    """Sample K42's Makefile (found after its measurement): `# --tensor-parallel-size 2 \\` inside a recipe's
    continued `docker run`: make hands the lines to the shell with their `\\`-newlines, so the shell ends the
    command at that comment as a script's does; KV012 at the first flag cut off, once however many of make's
    worlds read the recipe."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "Makefile"
        p.write_text("serve:\n\tdocker run --rm --gpus all \\\n\t\tvllm/vllm-openai:v0.11.0 \\\n"
                     "\t\t--model Qwen/Qwen2.5-0.5B-Instruct \\\n\t\t# --tensor-parallel-size 2 \\\n"
                     "\t\t--max-model-len 4096 \\\n\t\t--kv-cache-dtype fp8\n")
        result = lint([str(p)], LintOptions(select=("KV012",)))
        assert [(f.code, f.span.line, f.span.col) for f in result.findings] == [("KV012", 6, 3)]


def test_kv005_on_an_activated_environment_or_an_sglang_package_folder_leaves_the_release_open(tmp_path):
    """Sample K59 (measured: three KV005 errors "on the SGLang release installed today"): a script that activates an
    environment made before it ran (`source ~/venv-sglang/bin/activate`, its comment naming SGLang 0.5.16) runs that
    environment's release; a script that installs SGLang's package folder editable (`pip install -e "python[all]"`
    from its checkout) runs that checkout. Both open: an info. Installing the engine in the same script is today's."""
    body = "exec python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --cuda-graph-max-bs 8\n"
    cases = {"venv.sh": "source ~/bench/venv-sglang/bin/activate\n", "conda.sh": "conda activate serve\n",
             "package.sh": 'pushd "$SGLANG_DIR"\npip install -e "python[all]"\npopd\n',
             "installed.sh": "source .venv/bin/activate\npip install sglang\n",
             # K439: another project's environment, activated after `cd` on the same line
             "chained.sh": "cd /workspace/SpecForge && source .venv/bin/activate\n"}
    for name, lines in cases.items():
        (tmp_path / name).write_text("#!/usr/bin/env bash\n" + lines + body)
    found = {Path(f.span.path).name: f for f in lint([str(tmp_path)], LintOptions(select=("KV005",))).findings}
    assert "environment it activates (~/bench/venv-sglang)" in found["venv.sh"].message
    assert "environment it activates (serve)" in found["conda.sh"].message
    assert "installed editable (python[all])" in found["package.sh"].message
    assert "environment it activates (.venv)" in found["chained.sh"].message
    assert {n: f.severity for n, f in found.items()} == {"venv.sh": Severity.INFO, "conda.sh": Severity.INFO,
                                                         "package.sh": Severity.INFO, "installed.sh": Severity.WARNING,
                                                         "chained.sh": Severity.INFO}



def test_kv005_on_a_script_that_installs_a_pinned_release_judges_that_release(tmp_path):
    """Sample K434 (measured: "0.33.0 assumed: the script pins none"): a setup script that runs `pip install
    vllm==0.7.3 xformers==...` and then writes a launch script with `--swap-space 8` runs 0.7.3, which still takes the
    flag: a warning about the next upgrade naming the pinned release (read with the flag), not the newest assumed. Without the pin the
    newest is assumed, as before."""
    body = ("source $HOME/env/bin/activate\n{install}\ncat <<EOS > ~/start.sh\n"
            "exec python -m vllm.entrypoints.openai.api_server --model facebook/opt-2.7b --swap-space 8\nEOS\n")
    (tmp_path / "pinned.sh").write_text("#!/usr/bin/env bash\n" + body.format(install="pip install vllm==0.7.3 x==1"))
    (tmp_path / "newest.sh").write_text("#!/usr/bin/env bash\n" + body.format(install="pip install vllm x==1"))
    found = {Path(f.span.path).name: f for f in lint([str(tmp_path)], LintOptions(select=("KV005",))).findings}
    assert "vLLM 0.7.3 (pinned) has it" in found["pinned.sh"].message
    assert "installed today" in found["newest.sh"].message
    assert {n: f.severity for n, f in found.items()} == {"pinned.sh": Severity.WARNING, "newest.sh": Severity.WARNING}


def test_a_sweep_that_only_falls_short_of_the_load_names_its_subject():
    """Sample K66's runbook manifest (80 GB cards offered, every one short of the declared full-length requests,
    none failing to start): the warning read "of the GPUs this file offers, holds fewer than ...", its subject lost."""
    [f] = [f for f in check("sweep-short.yaml", "KV108").findings if f.severity == Severity.WARNING]
    assert f.message.startswith("of the GPUs this file offers, vLLM with Qwen/Qwen3-8B at max_model_len 40,960 (-tp 1) "
                                "holds fewer than the declared 512 full-length requests on ")


def test_idle_gpus_of_a_scripts_overridable_defaults_are_an_info():
    """Sample K72 (measured: a KV204 warning, noise): `TP=1; DP=1` then `--tp) TP="$2"` / `--dp) DP="$2"` in the
    script's argument loop, `--tensor-parallel-size $TP --data-parallel-size $DP` on 8 requested GPUs: the idle GPUs
    are those of the defaults its callers replace, an info naming the flags; written values keep the warning."""
    [f] = check("kv204-caller-defaults.sh", "KV204").findings
    assert f.severity == Severity.INFO and "which its callers may change (--tensor-parallel-size, " \
        "--data-parallel-size)" in f.message
    assert f.span.line == 13


def test_idle_gpus_of_a_variables_default_the_environment_sets_are_an_info():
    """Sample K189 (measured: a KV204 warning, noise): `--tensor-parallel-size ${VLLM_GPU_COUNT:-1}` on two reserved
    GPUs: the idle cards are those of a default the deployment's `.env` replaces, an info naming the flag; a value
    written out keeps the warning."""
    found = check("kv204-env-defaults.yaml", "KV204").findings
    assert [(f.severity, f.span.line) for f in found] == [(Severity.INFO, 6), (Severity.WARNING, 16)]
    assert "with the defaults of variables the deployment's environment sets (--tensor-parallel-size)" in \
        found[0].message


def test_the_data_parallel_ranks_a_node_runs_are_its_gpus():
    """Sample K86 (measured: a KV204 error, wrong): `--data-parallel-size 2 --data-parallel-size-local 1 -tp 8` on 8
    visible GPUs is one node of a two-node deployment; its share needs 8. Two local ranks need 16."""
    [f] = check("kv204-dp-local.sh", "KV204").findings
    assert f.span.line == 12 and f.severity == Severity.ERROR
    assert f.message.startswith("-tp 8 x --data-parallel-size-local 2 needs 16 GPU(s) per instance")


def test_a_groups_gpus_summed_over_its_nodes_are_judged_on_the_whole_data_parallel_size(shared_dir):
    """The corpus's llm-d wide-EP decode LeaderWorkerSet: `--data-parallel-size-local 8` a pod, the group's 16 GPUs
    summed over its pods make the whole `--data-parallel-size 16`: no KV204 (the node's share is not the group's)."""
    path = shared_dir / "corpus" / "llm-d__llm-d" / "guides" / "wide-ep-lws" / "manifests" / "modelserver" / "base" / \
        "decode.yaml"
    assert [f for f in lint([str(path)], LintOptions(select=("KV204",))).findings] == []


def test_a_choice_with_words_added_on_an_unpinned_launch_is_an_info(tmp_path):
    """Sample K112 (measured: a KV007 error, wrong): `--load-format layered_fp8` on a script for Intel's XPU build of
    SGLang, which pins no release: SGLang's `layered` with more words is a newer or forked build's variant, an info;
    pinned to a release, the same value is that release's error."""
    from kvlint.lint import LintOptions, lint

    path = tmp_path / "serve.sh"
    path.write_text("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --load-format layered_fp8\n")
    (f,) = [f for f in lint([str(path)], LintOptions(gpu="H100")).findings if f.code == "KV007"]
    assert f.severity == Severity.INFO and "is the valid layered with more words" in f.message
    path.write_text("docker run --gpus all lmsysorg/sglang:v0.5.4 python3 -m sglang.launch_server --model-path "
                    "Qwen/Qwen3-8B --load-format layered_fp8\n")
    (f,) = [f for f in lint([str(path)], LintOptions(gpu="H100")).findings if f.code == "KV007"]
    assert f.severity == Severity.ERROR
    # K446's SGLang fork: a word before the choice (`hybrid_marlin` beside `marlin`) is a variant too; a slip is not
    for value, severity in (("hybrid_marlin", Severity.INFO), ("marlinn", Severity.ERROR)):
        path.write_text(f"python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --fp4-gemm-backend {value}\n")
        (f,) = [f for f in lint([str(path)], LintOptions(gpu="H100")).findings if f.code == "KV007"]
        assert f.severity == severity, value


def test_a_choice_no_release_lists_on_a_custom_build_is_the_builds(tmp_path):
    """Sample K177 (a wrong error): `sglang:v0.5.16-dsv4-sm120`, a local build with backported changes, given
    `--load-balance-method prefix_affinity` and that change's `--prefix-affinity-fallback`: the build decides (an
    info naming the image); on the stock lmsysorg image of the same release the error stands, and a slip of a choice
    (`round_robbin`) stays an error on the custom build too."""
    from kvlint.lint import LintOptions, lint

    def kv007(image: str, value: str) -> list[tuple[Severity, str]]:
        p = tmp_path / "docker-compose.yml"
        p.write_text(f"services:\n  s:\n    image: {image}\n    command: [python3, -m, sglang.launch_server, "
                     f"--model-path, Qwen/Qwen3-8B, --load-balance-method, {value}]\n")
        return [(f.severity, f.message) for f in lint([str(p)], LintOptions(select=("KV007",))).findings]

    [(severity, message)] = kv007("sglang:v0.5.16-dsv4-sm120", "prefix_affinity")
    assert severity == Severity.INFO and "sglang:v0.5.16-dsv4-sm120 is not a stock SGLang image" in message
    assert [s for s, _ in kv007("lmsysorg/sglang:v0.5.16", "prefix_affinity")] == [Severity.ERROR]
    assert [s for s, _ in kv007("sglang:v0.5.16-dsv4-sm120", "round_robbin")] == [Severity.ERROR]


def test_a_kserve_group_summed_over_its_pods_is_judged_whole(tmp_path):
    """Sample K206 (measured: two KV204 errors with mixed numbers): an LLMInferenceService with `parallelism: {tensor:
    4, data: 8, dataLocal: 4}` and 4 GPUs a pod: kvlint sums the group (2 pods, 8 GPUs), so the whole need is TP x DP
    = 32, not one node's 16 against the group's 8; a group that holds every rank has no finding."""
    from kvlint.lint import LintOptions, lint

    text = ("apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceService\nmetadata:\n  name: big\nspec:\n"
            "  model:\n    uri: hf://meta-llama/Llama-2-70b-hf\n    name: meta-llama/Llama-2-70b-hf\n"
            "  parallelism:\n    tensor: 4\n    data: 8\n    dataLocal: 4\n"
            "  template:\n    containers:\n      - name: main\n        image: vllm/vllm-openai:v0.11.0\n"
            "        resources:\n          limits:\n            nvidia.com/gpu: \"GPUS\"\n"
            "  worker:\n    containers:\n      - name: main\n        image: vllm/vllm-openai:v0.11.0\n"
            "        resources:\n          limits:\n            nvidia.com/gpu: \"GPUS\"\n")
    path = tmp_path / "llmisvc.yaml"
    path.write_text(text.replace("GPUS", "4"))
    (f,) = [f for f in lint([str(path)], LintOptions(gpu="H100")).findings if f.code == "KV204"]
    assert f.message.startswith("-tp 4 x -dp 8 needs 32 GPU(s) per instance but the instance requests 8")
    path.write_text(text.replace("GPUS", "16"))
    assert [f for f in lint([str(path)], LintOptions(gpu="H100")).findings if f.code == "KV204"] == []


def test_kv004_an_unknown_switch_with_its_own_settings_is_a_builds_feature(tmp_path):
    """Sample K463 (measured: three KV004 warnings and an error "did you mean --kv-events-config?"): an SGLang fork's
    `--enable-rkv --rkv-config F`, a feature no release has switched on and set, is a build's, not a slip: infos
    naming the pair. An unknown flag with no switch of its own stays a warning."""
    path = tmp_path / "launch_server.sh"
    path.write_text("#!/bin/bash\npython -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct \\\n"
                    "  --enable-rkv \\\n  --rkv-config r.json\n")
    found = run(path, "KV004").findings
    assert [(f.span.line, f.severity) for f in found] == [(3, Severity.INFO), (4, Severity.INFO)]
    assert all("--enable-rkv with --rkv-config" in f.message for f in found)
    alone_ = tmp_path / "alone.sh"
    alone_.write_text("#!/bin/bash\npython -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct "
                      "--rkv-config r\n")
    assert [f.severity for f in run(alone_, "KV004").findings] == [Severity.ERROR]


def test_kv005_a_launch_on_a_neuron_device_meets_the_neuron_builds_release(tmp_path):
    """Sample K465 (measured: two KV005 warnings "removed ... on the release installed today"): a Trainium workshop's
    `python -m vllm.entrypoints.openai.api_server --device neuron ... --task generate` runs in AWS's Neuron build of
    vLLM, whose release the script does not name: the removed flags are infos naming the release that decides. The
    same flags on a GPU launch with no release pinned stay warnings."""
    path = tmp_path / "vllm.sh"
    text = ("#!/bin/bash\npython -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct \\\n"
            "  --device DEVICE \\\n  --task generate\n")
    path.write_text(text.replace("DEVICE", "neuron"))
    found = run(path, "KV005").findings
    assert [(f.span.line, f.severity) for f in found] == [(3, Severity.INFO), (4, Severity.INFO)]
    assert all("AWS Neuron build" in f.message for f in found)
    gpu = tmp_path / "gpu.sh"
    gpu.write_text(text.replace("DEVICE", "cuda"))
    assert [f.severity for f in run(gpu, "KV005").findings] == [Severity.WARNING, Severity.WARNING]


def test_kv005_on_a_launch_run_in_a_container_the_script_starts_is_judged_on_its_image():
    """Sample K512 (measured: three KV005 warnings "on the SGLang release installed today ... the script pins none"):
    the script starts `docker run -d --name $NAME ... '$IMAGE' sleep infinity`, IMAGE defaulting to
    `lmsysorg/sglang-rocm:v0.5.12-...`, writes the server's command in a here-document and runs it with `docker exec`:
    the launch meets SGLang 0.5.12, which has `--cuda-graph-bs` (a warning about the upgrade that drops it)."""
    [f] = alone("kv005-exec-image.sh", "KV005").findings
    assert f.severity == Severity.WARNING and "installed today" not in f.message, f.message
    assert "SGLang 0.5.12 (pinned) has it" in f.message
