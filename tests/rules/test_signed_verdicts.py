"""Issue 23, the reviewer's last wrong and noisy findings (bench/reviewer-table-2.tsv): each fixture marks the
warnings and errors it must give (`# expect:`); every other warning or error is a failure, and the infos that
replace a verdict are asserted by what they say."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _expect import expected

from kvlint.findings import Severity
from kvlint.lint import LintOptions, lint

VERDICTS = Path(__file__).resolve().parents[1] / "fixtures" / "verdicts"


def check(path: Path, gpu: str | None = None):
    result = lint([str(path)], LintOptions(gpu=gpu))
    assert result.unreadable == []
    loud = {(f.span.line, f.code) for f in result.findings if f.severity > Severity.INFO and f.span}
    assert loud == expected(path)
    return result


def infos(result, code: str) -> list:
    return [f for f in result.findings if f.code == code and f.severity == Severity.INFO]


def test_a_disabled_chart_entry_is_not_deployed():
    """production-stack's modelSpec example (`enabled: false`): its KV204 is an info saying so."""
    result = check(VERDICTS / "disabled-entries.yaml")
    [off] = infos(result, "KV204")
    assert off.span.line == 14 and "enabled: false at line 7" in off.message
    assert off.data["severity_if_enabled"] == "error"


def test_a_disabled_kubeai_catalogue_entry_is_not_deployed():
    """The models chart renders an entry only when `enabled` or `all.enabled` is true: `enabled: false` and an
    entry without the key are both off (sample K89: the latter was judged as deployed)."""
    result = check(VERDICTS / "kubeai-disabled.yaml")
    off, unsaid = infos(result, "KV204")
    assert off.span.line == 11 and "not deployed" in off.message
    assert unsaid.span.line == 24 and "not deployed: the models chart renders only entries with `enabled: true`, " \
        "and the entry at line 21 has none" in unsaid.message
    assert [f.span.line for f in result.findings if f.code == "KV204" and f.severity == Severity.ERROR] == [18]


def test_a_flag_spelled_like_no_option_is_a_warning_without_a_suggestion():
    """LSMCache's `--enable-kvstore`: "did you mean --enable-trace" was a nonsense fix on a fork's own flag."""
    result = check(VERDICTS / "unknown-flag" / "no-spelling.sh")
    by_line = {f.span.line: f for f in result.findings if f.code == "KV004"}
    assert by_line[8].severity == Severity.ERROR and "did you mean --context-length" in by_line[8].message
    kvstore = by_line[9]
    assert kvstore.severity == Severity.WARNING and "did you mean" not in kvstore.message
    assert "--enable-trace" not in kvstore.message and "fork" in kvstore.message
    assert kvstore.fix and "--enable-trace" not in kvstore.fix


def test_a_fork_in_the_repository_runs_its_own_flags():
    """The repository holds python/sglang/srt/server_args.py: the launch runs that tree, and it defines the flag."""
    result = check(VERDICTS / "sglang-fork" / "server.sh")
    [f] = [f for f in result.findings if f.code == "KV004"]
    assert f.severity == Severity.INFO and f.span.line == 7
    assert "python/sglang/srt/server_args.py), which defines it" in f.message
    assert f.data["fork"].endswith("sglang-fork/python/sglang/srt/server_args.py")


def test_the_search_for_a_fork_stops_at_the_project_root(tmp_path):
    from kvlint.resolve.fork import engine_tree

    (tmp_path / "outer" / "sglang" / "srt").mkdir(parents=True)
    (tmp_path / "outer" / "sglang" / "srt" / "server_args.py").write_text('p.add_argument("--x-y")\n')
    project = tmp_path / "outer" / "project"
    (project / ".git").mkdir(parents=True)
    (project / "run.sh").write_text("python -m sglang.launch_server --x-y\n")
    assert engine_tree(str(project / "run.sh"), ("sglang/srt/server_args.py",)) is None
    tree = engine_tree(str(tmp_path / "outer" / "run.sh"), ("sglang/srt/server_args.py",))
    assert tree is not None and tree.defines("--x-y") and not tree.defines("--z")


def test_a_flag_the_repositorys_own_code_adds_is_its_own():
    """No SGLang tree in the repository, but its own Python code adds the flags (`add_argument`): infos naming the
    file and line, not "a stock SGLang exits"; a flag added nowhere stays the warning."""
    result = check(VERDICTS / "own-flag" / "server.sh")
    own = {f.span.line: f for f in infos(result, "KV004")}
    assert sorted(own) == [7, 8]
    assert "own code adds it (lsm_plugin/args.py, line 6)" in own[7].message
    assert "(lsm_plugin/args.py, line 7)" in own[8].message  # the long option after a short one
    assert own[7].data["fork"] == "lsm_plugin/args.py"


def test_the_flags_a_repository_adds_are_read_in_the_checkout_the_file_is_in(tmp_path, monkeypatch):
    """A folder of several checkouts (no .git, no configuration: the current folder is the root): another
    checkout's add_argument is not this repository's code."""
    from kvlint.models import lockpath
    from kvlint.resolve import fork

    for repo in ("a", "b"):
        (tmp_path / repo).mkdir()
    (tmp_path / "a" / "run.sh").write_text("python -m sglang.launch_server --only-in-b\n")
    (tmp_path / "b" / "cli.py").write_text('parser.add_argument("--only-in-b")\n')
    (tmp_path / "b" / "run.sh").write_text("python -m sglang.launch_server --only-in-b\n")
    monkeypatch.chdir(tmp_path)
    lockpath._lock_dir.cache_clear()
    fork._added_flags.cache_clear()
    markers = ("sglang/srt/server_args.py",)
    assert fork.engine_tree(str(tmp_path / "a" / "run.sh"), markers, ("--only-in-b",)) is None
    tree = fork.engine_tree(str(tmp_path / "b" / "run.sh"), markers, ("--only-in-b",))
    assert tree is not None and tree.added_at("--only-in-b") == ("cli.py", 1)


def test_a_notes_file_for_a_vendor_image_leaves_the_release_open():
    """Vertex's vLLM image runs /root/scripts/launcher.py --model_gcs_uri: the file's other engine commands are that
    image's build, so a removed flag is an info naming the release that decides (was an error: "0.33.0 assumed")."""
    result = check(VERDICTS / "vertex-notes.sh")
    removed = infos(result, "KV005")
    assert [f.span.line for f in removed] == [7, 9]
    assert all("release (it runs in Vertex AI Model Garden's vLLM serving image), so the release decides" in f.message
               for f in removed)
    from kvlint.resolve.lookups import vendor_image

    assert vendor_image(str(VERDICTS / "vertex-notes.sh")) == "Vertex AI Model Garden's vLLM serving image"


def test_a_host_script_running_another_launcher_still_assumes_the_installed_release(tmp_path):
    copy = tmp_path / "host-launcher.sh"  # out of this repository, whose other files pin engine images
    copy.write_bytes((VERDICTS / "host-launcher.sh").read_bytes())
    result = check(copy)
    [f] = [f for f in result.findings if f.code == "KV005"]
    assert f.severity == Severity.WARNING and "installed today" in f.message


def test_a_script_the_repositorys_image_runs_takes_that_images_release():
    """docker/Dockerfile copies serve.sh into vllm/vllm-openai:v0.8.5: the script runs 0.8.5, not the host's newest."""
    result = check(VERDICTS / "built-image" / "serve.sh")
    [f] = [f for f in result.findings if f.code == "KV005"]
    assert f.severity == Severity.WARNING and "0.8.5 (pinned) has it" in f.message


def test_a_script_an_image_runs_takes_the_release_its_build_pins(tmp_path):
    """The repository's Dockerfile builds FROM a CUDA base and `RUN pip install "vllm==${VLLM_VERSION}"` (ARG 0.8.5),
    then copies serve.sh: the script runs 0.8.5, which still has `--swap-space` (removed in 0.20.0: a warning that an
    upgrade breaks it); a range pins nothing (the release is the image's, open: an info naming what decides)."""
    docker = ("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nARG VLLM_VERSION=0.8.5\nRUN pip install --no-cache-dir \\\n"
              "    \"vllm==${VLLM_VERSION}\"\nCOPY serve.sh /app/serve.sh\nCMD [\"bash\", \"/app/serve.sh\"]\n")
    for repo, install in (("pinned", "vllm==${VLLM_VERSION}"), ("range", "vllm>=0.8")):
        (tmp_path / repo / ".git").mkdir(parents=True)
        (tmp_path / repo / "Dockerfile").write_text(docker.replace("vllm==${VLLM_VERSION}", install))
        (tmp_path / repo / "serve.sh").write_text("vllm serve facebook/opt-125m --swap-space 4 --max-model-len 2048\n")
    def removed(repo: str) -> str:
        (found,) = [f for f in lint([str(tmp_path / repo / "serve.sh")], LintOptions()).findings if f.code == "KV005"]
        return found.message

    assert "vLLM 0.8.5 (pinned) has it" in removed("pinned")
    assert "pins no vLLM release (it runs in the image Dockerfile builds)" in removed("range")


def test_a_dockerfiles_own_launch_takes_the_release_its_build_pins(tmp_path):
    """`FROM nvidia/cuda` + `RUN pip install "sglang[all]==0.4.6.post1" flashinfer` + a CMD that starts SGLang: the
    image's launch is that release, at the pin's place (kvlint.builds); an unpinned install leaves it open."""
    from kvlint.launches import read_path

    text = ("FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\nRUN pip install --no-cache-dir \\\n"
            "    \"sglang[all]==0.4.6.post1\" flashinfer\n"
            "CMD [\"python3\", \"-m\", \"sglang.launch_server\", \"--model-path\", \"Qwen/Qwen2.5-7B-Instruct\"]\n")
    p = tmp_path / "Dockerfile"
    p.write_text(text)
    (dep,) = read_path(str(p)).deployments
    span = dep.engine_version_span
    assert (dep.engine_version, span.line if span else None, span.col if span else None) == ("0.4.6.post1", 3, 19)
    p.write_text(text.replace("==0.4.6.post1", ""))
    assert read_path(str(p)).deployments[0].engine_version is None


def test_a_script_running_a_file_two_images_copy_leaves_the_release_open():
    """The Vertex notes with the launcher's vendor option gone: two Dockerfiles copy /root/scripts/launcher.py, which
    the script runs, so its commands run in one of those images and the release is open (an info, not an error)."""
    result = check(VERDICTS / "built-open" / "script.sh")
    [f] = infos(result, "KV005")
    assert f.span.line == 6 and "(it runs in the image docker/Dockerfile builds or dockerfile/Dockerfile builds), so " \
        "the release decides" in f.message
    from kvlint.resolve.built import images_running

    found = images_running(str(VERDICTS / "built-open" / "script.sh"))
    assert [i.dockerfile for i in found] == ["docker/Dockerfile", "dockerfile/Dockerfile"]
    assert "copies /root/scripts/launcher.py into its image, and the script runs it" in found[0].why
    assert images_running(str(VERDICTS / "host-launcher.sh")) == ()


def test_a_script_that_sets_ascend_variables_leaves_the_release_open(tmp_path):
    """Sample K135's NPUKernelBench script (measured: three KV005 warnings "installed today (0.33.0 assumed)"): it
    exports `HCCL_DETERMINISTIC=true` (Huawei's collective library), so it runs on Ascend NPUs, where vLLM is the
    release its vllm-ascend plugin supports: a removed flag is an info naming that build (vendor_launchers.json
    environments); the same script without the variable keeps the warning."""
    body = "vllm serve org/m --swap-space 10 --max-model-len 4096\n"
    for name, head in (("ascend.sh", "export HCCL_DETERMINISTIC=true\n"), ("host.sh", "")):
        (tmp_path / name).write_text("#!/bin/bash\n" + head + body)
    (ascend,) = [f for f in lint([str(tmp_path / "ascend.sh")], LintOptions()).findings if f.code == "KV005"]
    (host,) = [f for f in lint([str(tmp_path / "host.sh")], LintOptions()).findings if f.code == "KV005"]
    assert ascend.severity == Severity.INFO and "Ascend NPU build" in ascend.message
    assert host.severity == Severity.WARNING


def test_the_vendor_launchers_file_matches_its_schema():
    import pytest

    jsonschema = pytest.importorskip("jsonschema")
    from kvlint.data import load_json

    jsonschema.validate(load_json("vendor_launchers.json"), load_json("vendor_launchers.schema.json"))


def test_a_refusal_the_release_decides_is_an_info_naming_the_releases():
    """KubeAI's 1xH100 Llama-3.1-70B-FP8 profile pins no release: 0.38 GiB short on 0.33, 3.9 GiB free on 0.19; on
    0.11 (the catalogue names no install, so the wheel's sorting sampler) 0.18 GiB short, inside that era's band."""
    result = check(VERDICTS / "kv101-unpinned-release.yaml")
    [f] = infos(result, "KV101")
    assert f.span.line == 11 and "pins no vLLM release" in f.message and "0.19.0 (3.88 GiB est.)" in f.message
    assert "may start on 0.11.0 (0.18 GiB short, within its +-0.29 GiB)" in f.message
    assert "vLLM 0.33.0 refuses to start" in f.message and "vLLM refuses to start." not in f.message
    assert f.data["on"][0] == "0.33.0" and "0.11.0" in f.data["off"] and "0.19.0" in f.data["off"]


def test_a_shortfall_inside_the_estimates_band_is_a_warning_beyond_it_the_error():
    result = check(VERDICTS / "kv101-pinned-releases.sh", gpu="H100-SXM-80GB")
    by_line = {f.span.line: f for f in result.findings if f.code == "KV101"}
    assert by_line[6].severity == Severity.ERROR and "vLLM refuses to start." in by_line[6].message
    assert by_line[6].data["short_bytes"] > by_line[6].data["pool_band_bytes"] > 0
    warning = by_line[8]
    assert warning.severity == Severity.WARNING and "may refuse to start: the pool falls 0.18 GiB short" in warning.message
    assert "+-0.22 GiB" in warning.message and "0.12-0.16" in warning.message
    assert 9 not in by_line and 10 not in by_line


def test_the_readmes_qwen_32b_refusal_stays_an_error():
    """examples/shell/bad-serve.sh: 0.10 GiB short on 0.33, beyond the 0.04 GiB its era's logs allow, and short on
    every era's release (3.68 GiB on 0.11, whose pip wheel sorts, against 0.29; 0.28 GiB on 0.19 against 0.04), so
    the error stands whatever release the host runs."""
    example = Path(__file__).resolve().parents[2] / "examples" / "shell" / "bad-serve.sh"
    [f] = [f for f in lint([str(example)], LintOptions(select=("KV101",))).findings]
    assert f.severity == Severity.ERROR and f.message.count("vLLM refuses to start.") == 1
    assert f.data["short_bytes"] > f.data["pool_band_bytes"]


def test_an_instance_family_or_a_chart_key_names_the_card():
    """Karpenter's instance-family g5, instance types of one family, GKE's machine-family g2: the card is fixed
    (A10G, L4) and the capacity rules judge the launch on it; GKE's a3 family (H100 or H200) fixes none."""
    result = check(VERDICTS / "gpu-hints" / "nodes.yaml")
    cards = [s.gpu for s in result.launches]
    assert cards == ["A10G-24GB", "A10G-24GB", "L4-24GB", None]
    assert [f.code for f in result.findings if f.span.line > 52 and f.severity > Severity.INFO] == []
    values = check(VERDICTS / "gpu-hints" / "values.yaml")
    assert [s.gpu for s in values.launches] == ["A10G-24GB"]


def test_a_template_of_a_chart_without_chart_yaml_takes_the_values_pin():
    result = check(VERDICTS / "chart-no-chart-yaml" / "templates" / "deployment.yaml")
    [f] = [f for f in result.findings if f.code == "KV005"]
    assert f.severity == Severity.ERROR and "release decides" not in f.message
    assert [s.engine_version for s in result.launches] == ["0.19.1"]


def test_idle_gpus_are_a_warning_and_merely_visible_ones_an_info():
    """KV204: too few GPUs stops the engine (error); reserved cards that idle are waste (warning); devices only
    made visible by CUDA_VISIBLE_DEVICES are reserved by nothing (info)."""
    reserved = check(VERDICTS / "idle-gpus.yaml")
    [idle] = [f for f in reserved.findings if f.code == "KV204"]
    assert idle.severity == Severity.WARNING and "1 requested GPU(s) stay idle" in idle.message
    visible = check(VERDICTS / "visible-gpus.sh")
    [seen] = infos(visible, "KV204")
    assert seen.span.line == 3 and "the launch sees 4" in seen.message and "reserves none" in seen.message
    [short] = [f for f in visible.findings if f.code == "KV204" and f.severity == Severity.ERROR]
    assert short.span.line == 5 and "cannot start all its ranks" in short.message


def test_a_launch_whose_parallelism_a_wrapper_may_set_gets_no_verdict_that_assumes_tp_1():
    """Sample C: a Slurm job's own start-cluster.py (--slurm --auto) over 8 nodes; read at TP 1 it was 'no GPU in
    the catalogue can start' (KV108 error). The launcher's options may set TP x PP: an unresolved input."""
    result = check(VERDICTS / "wrapper-own-options.sh")
    assert not [f for f in result.findings if f.code == "KV108"]


def test_a_flag_stock_releases_removed_is_the_forks_to_keep():
    """KV005 as KV004: inside the repository's own engine tree the launch runs that tree; a stock removal is an info
    naming the tree and whether its parser still defines the flag (sample I: an error on a fork of SGLang)."""
    result = check(VERDICTS / "sglang-fork" / "old-flag.sh")
    [f] = [f for f in result.findings if f.code == "KV005"]
    assert f.severity == Severity.INFO and (f.span.line, f.span.col) == (3, 71)
    assert "--cuda-graph-max-bs was removed from SGLang" in f.message
    assert "python/sglang/srt/server_args.py), which defines it: the launch runs that fork" in f.message


def test_a_custom_build_settles_its_own_flags_and_a_third_party_latest_pins_no_release():
    """Sample K6, measured: 8 KV004 warnings on a local `vllm-mxfp4-spark` build's own flags and a KV005 error on a
    community CPU image's `:latest`. Each is an info naming the image; the stock image keeps both verdicts."""
    result = check(VERDICTS / "custom-build.yaml")
    [own] = [f for f in infos(result, "KV004") if f.span.line == 10]
    assert "vllm-mxfp4-spark:latest is not a stock vLLM image" in own.message
    [gone] = infos(result, "KV005")
    assert gone.span.line == 16 and "third-party build" in gone.message and "pins no vLLM release" in gone.message


def test_a_plugin_image_of_the_engines_project_settles_its_own_flags(tmp_path):
    """Sample K69 (measured: a KV004 warning): `vllm/vllm-omni:v0.28.0` with `vllm serve M --omni`: an image of vLLM's
    own project known by name but no release build of it (vllm-omni is a plugin): its flags are the plugin's, an
    info naming the image; the stock vllm-openai image keeps the warning."""
    p = tmp_path / "compose.yaml"
    body = ("services:\n  tts:\n    image: {image}\n    entrypoint: [vllm, serve]\n"
            "    command: [org/m, --omni, --port, '8091']\n")
    p.write_text(body.format(image="vllm/vllm-omni:v0.28.0"))
    [f] = [f for f in lint([str(p)], LintOptions(select=("KV004",))).findings]
    assert f.severity == Severity.INFO and "vllm/vllm-omni:v0.28.0 is not a stock vLLM image" in f.message
    p.write_text(body.format(image="vllm/vllm-openai:v0.11.0"))
    [f] = [f for f in lint([str(p)], LintOptions(select=("KV004",))).findings]
    assert f.severity == Severity.WARNING


def test_a_flag_no_release_has_is_an_info_on_a_nightly_build(tmp_path):
    """A nightly image is newer than the releases kvlint's tables hold: a flag none of them has may be in it (an
    info); on `:latest` (the newest release) and a pinned release it stays the warning."""
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n" + "".join(
        f"  s{k}:\n    image: vllm/vllm-openai:{tag}\n"
        f'    command: ["Qwen/Qwen2.5-7B-Instruct", "--brand-new-flag-xyz", "1"]\n'
        for k, tag in enumerate(("nightly", "latest", "v0.9.2"))))
    result = lint([str(p)], LintOptions())
    by_line = {f.span.line: f.severity for f in result.findings if f.code == "KV004"}
    assert by_line == {4: Severity.INFO, 7: Severity.WARNING, 10: Severity.WARNING}


def test_a_node_label_that_names_no_card_is_no_unknown_gpu(tmp_path):
    """Samples K8 and K9, measured: `nodeSelector: {accelerator: nvidia-gpu}` (a label the user puts on their GPU
    nodes) and `accelerator: nvidia` gave KV003 warnings offering nvidia-gpu-t4 ...: such a value says "a GPU" and
    names none, so the launch is swept over the catalogue (KV003 info, KV108), as a file naming no GPU is."""
    for value in ("nvidia-gpu", "nvidia"):
        p = tmp_path / f"{value}.yaml"
        p.write_text(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v}\nspec:\n  template:\n    spec:\n"
            f"      nodeSelector:\n        accelerator: {value}\n      containers:\n        - name: v\n"
            "          image: vllm/vllm-openai:v0.9.2\n          args: [--model, Qwen/Qwen2.5-7B-Instruct]\n"
            "          resources: {limits: {nvidia.com/gpu: 1}}\n")
        result = lint([str(p)], LintOptions())
        assert [f.code for f in result.findings if f.severity > Severity.INFO] == [], value
        assert any(f.code == "KV108" for f in result.findings), value


def test_a_refused_value_on_an_unpinned_launch_names_the_release_assumed(tmp_path):
    """Sample K8's notes file: `--limit-mm-per-prompt image=2` with no release pinned is refused by the newest
    release kvlint models, and read by vLLM 0.5.5 to 0.9.2 (turn 19, from those wheels): a warning that says which
    release it judged and which read the value, as KV005 does for a host install; a pinned release refusing it is
    an error that assumes nothing."""
    p = tmp_path / "notes.txt"
    p.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --limit-mm-per-prompt image=2\n")
    (bad,) = [f for f in lint([str(p)], LintOptions()).findings if f.code == "KV007"]
    assert bad.severity == Severity.WARNING and "assumed: the launch pins none" in bad.message
    assert "0.5.5 to 0.9.2" in bad.message
    q = tmp_path / "pinned.yaml"
    q.write_text("services:\n  s:\n    image: vllm/vllm-openai:v0.20.0\n"
                 "    command: [Qwen/Qwen2.5-7B-Instruct, --limit-mm-per-prompt, image=2]\n")
    (pinned,) = [f for f in lint([str(q)], LintOptions()).findings if f.code == "KV007"]
    assert "assumed" not in pinned.message and pinned.severity == Severity.ERROR


def test_a_quantization_the_checkpoint_lacks_is_a_refusal_not_a_memory_verdict(tmp_path):
    """Sample K11, measured: `--quantization awq` on meta-llama/Llama-3.2-3B-Instruct (a bf16 checkpoint) gave a
    KV108 error "needs more memory per GPU than 4 TiB": the weights model's failure was swept as memory. The engine
    stops because the checkpoint has no AWQ config: a KV007 at the value. A method vLLM quantizes online that
    kvlint does not model (`experts_int8`) gives no verdict at all."""
    p = tmp_path / "awq.sh"
    p.write_text("vllm serve meta-llama/Llama-3.2-3B-Instruct --quantization awq --max-model-len 4096\n")
    loud = [f for f in lint([str(p)], LintOptions()).findings if f.severity > Severity.INFO]
    assert [(f.code, f.span.col) for f in loud] == [("KV007", 60)] and "declares none" in loud[0].message
    q = tmp_path / "online.sh"
    q.write_text("vllm serve meta-llama/Llama-3.2-3B-Instruct --quantization experts_int8 --max-model-len 4096\n")
    assert [f.code for f in lint([str(q)], LintOptions()).findings if f.severity > Severity.INFO] == []


def test_a_family_of_flags_no_release_has_is_a_builds_own(tmp_path):
    """Sample K12, measured: a worklog's `.venv/bin/vllm serve` with eight `--tiered-moe-*` / `--mla-cache-tier`
    flags of a patched build: seven KV004 warnings and an error offering `--moe-backend` for `--tiered-moe-backend`.
    Three or more flags no release has mean the launch runs a build that adds them: each is an info, the near one
    too; a lone unknown flag stays the warning, and a lone typo the error."""
    p = tmp_path / "run.sh"
    p.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --tiered-moe-profile a --tiered-moe-backend b "
                 "--mla-cache-tier c --grace-machine-profile d\n"
                 "vllm serve Qwen/Qwen2.5-7B-Instruct --brand-new-flag-xyz 1 --max-modle-len 4096\n")
    kv004 = [f for f in lint([str(p)], LintOptions()).findings if f.code == "KV004"]
    assert {(f.span.line, f.severity) for f in kv004} == {(1, Severity.INFO), (2, Severity.WARNING), (2, Severity.ERROR)}
    assert len([f for f in kv004 if f.span.line == 1]) == 4
    assert not any("did you mean" in f.message for f in kv004 if f.span.line == 1)


def test_an_architecture_kvlint_does_not_model_is_no_memory_verdict(tmp_path):
    """Sample K13, measured: an SGLang DeepSeek-V4-Pro recipe got a KV108 error "needs more memory per GPU than 4
    TiB": the memory model refuses the architecture (NotModelledError), and the sweep read that on every card as
    memory. The launch is left unsized, saying why, with no error."""
    p = tmp_path / "v4.sh"
    p.write_text("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Pro --tp-size 4 "
                 "--context-length 16384\n")
    result = lint([str(p)], LintOptions())
    assert [f.code for f in result.findings if f.severity > Severity.INFO] == []
    (status,) = result.launches
    assert status.capacity == "skipped" and "not modelled" in (status.skipped_because or "")


def test_an_image_merely_named_for_sglang_is_a_third_party_build(tmp_path):
    """Sample K15, measured: a KV004 warning on a patched SGLang build's own flag (`lavd/sglang-d4f-b12x`, an
    image named for SGLang but not lmsysorg's). An image named for the engine is a build of it, not the engine's
    own image: its flags are its to settle (an info); on lmsysorg/sglang the warning stands."""
    from kvlint.image_names import known_image

    assert not known_image("lavd/sglang-d4f-b12x:5-24") and not known_image("voipmonitor/sglang:cu130")
    assert known_image("lmsysorg/sglang:v0.5.4") and known_image("vllm/vllm-openai:v0.10.1")
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n" + "".join(
        f"  s{k}:\n    image: {image}\n    command: [python3, -m, sglang.launch_server, --model-path,"
        f" Qwen/Qwen2.5-7B-Instruct, --enable-pcie-oneshot-allreduce]\n"
        for k, image in enumerate(("lavd/sglang-d4f-b12x:5-24", "lmsysorg/sglang:v0.5.4"))))
    found = [(f.span.line, f.severity) for f in lint([str(p)], LintOptions()).findings if f.code == "KV004"]
    assert found == [(4, Severity.INFO), (7, Severity.WARNING)]


def test_a_renamed_sglang_flag_names_its_new_spelling(tmp_path):
    """Sample K15: `--nsa-prefill-backend` (SGLang <= 0.5.12) is `--dsa-prefill-backend` from 0.5.23 on; the
    removal finding names the new spelling as its fix."""
    p = tmp_path / "run.sh"
    p.write_text("python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --nsa-prefill-backend tilelang\n")
    [gone] = [f for f in lint([str(p)], LintOptions()).findings if f.code == "KV005"]
    assert gone.fix is not None and "--dsa-prefill-backend" in gone.fix


def test_a_flag_newer_than_the_pinned_release_is_not_checked_for_its_values(tmp_path):
    """Sample K16, measured: a KV007 error on `log-level: info` for `vllm/vllm-openai:v0.6.2` naming the choices of
    0.33.0, a release the launch does not run. On the pinned release the flag does not exist: KV004 says that,
    and no value check of another release's parser is made."""
    p = tmp_path / "docker-compose.yml"
    p.write_text("services:\n  old:\n    image: vllm/vllm-openai:v0.11.0\n"
                 "    command: [Qwen/Qwen2.5-7B-Instruct, --log-level, info]\n")
    found = [(f.code, f.severity) for f in lint([str(p)], LintOptions()).findings if f.code in ("KV004", "KV007")]
    assert found == [("KV004", Severity.ERROR)]


def test_a_long_length_the_launch_allows_is_an_info(tmp_path):
    """Sample K21, measured: a KV105 warning ("vLLM refuses to start") on a compose service whose environment sets
    VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, with which vLLM starts (and warns). The same launch without it keeps the verdict."""
    p = tmp_path / "docker-compose.yml"
    body = ("    image: vllm/vllm-openai:v0.10.1\n"
            "    command: [Qwen/Qwen2.5-7B-Instruct, --max-model-len, '65536']\n")
    p.write_text("services:\n  a:\n" + body + "    environment:\n      VLLM_ALLOW_LONG_MAX_MODEL_LEN: '1'\n"
                 "  b:\n" + body)
    found = sorted((f.span.line, f.severity) for f in lint([str(p)], LintOptions()).findings if f.code == "KV105")
    assert found == [(4, Severity.INFO), (9, Severity.ERROR)]


def test_a_ray_head_pod_leaves_the_node_count_to_the_cluster():
    """`ray start --head ... & vllm serve ... -pp 2` on a one-GPU pod: the ranks run on every node that joins the
    cluster, so its GPUs are one node's times an open node count (never 1); the same launch alone is an error."""
    result = check(VERDICTS / "ray-head-pod.yaml")
    [alone] = [f for f in result.findings if f.code == "KV204"]
    assert alone.severity == Severity.ERROR and alone.span.line == 26
    assert len(result.launches) == 3  # the third, whose Ray head a script starts (K440), gets no KV204 either


def test_a_scripts_header_naming_the_fork_it_runs_in_settles_its_own_flags():
    """Sample K81's turbo profile: `--gdn-mtp-cache-mode` (no stock SGLang has it) in a script whose header says it
    runs in a fork's container: an info naming that build, not a warning; a comment naming the stock image settles
    nothing, and no comment pins a release."""
    fork = check(VERDICTS / "fork-header.sh")
    [own] = infos(fork, "KV004")
    assert own.span.line == 7 and "comment says it runs in example-org/sglang-fork-sm120-turbo" in own.message
    stock = check(VERDICTS / "stock-header.sh")  # the warning its marker expects
    [launch] = stock.launches
    assert launch.engine_version != "0.5.4"  # the comment's tag is no pin


def test_sglang_refuses_a_context_past_the_derived_maximum_unless_its_switch_is_on(tmp_path):
    """Sample K83's Qwen3 README: `--context-length 131072` on Qwen/Qwen3-8B (derived 40960). SGLang raises
    (ValueError) unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1; kvlint said it "warns and may produce wrong
    output". With the variable set the engine starts: an info."""
    plain = tmp_path / "plain.sh"
    plain.write_text("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 131072\n")
    [refused] = [f for f in lint([str(plain)], LintOptions()).findings if f.code == "KV105"]
    assert refused.severity == Severity.ERROR
    assert "SGLang refuses to start unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in refused.message
    switched = tmp_path / "switched.sh"
    switched.write_text("export SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1\n" + plain.read_text())
    [allowed] = [f for f in lint([str(switched)], LintOptions()).findings if f.code == "KV105"]
    assert allowed.severity == Severity.INFO and "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in allowed.message


def test_an_image_pinned_by_digest_alone_pins_no_release(tmp_path):
    """Sample K114 (measured: a KV005 error): `lmsysorg/sglang@sha256:...` with `--cuda-graph-max-bs` beside
    `--disable-prefill-cuda-graph` is one fixed build of a date the digest does not say, not the newest release: the
    finding is an info naming the digest; the same image with `:latest` keeps the error."""
    p = tmp_path / "compose.yaml"
    body = ("services:\n  s:\n    image: {image}\n"
            "    command: [python3, -m, sglang.launch_server, --model-path, org/m, --cuda-graph-max-bs, '8']\n")
    p.write_text(body.format(image="lmsysorg/sglang@sha256:" + "f" * 64))
    [f] = [f for f in lint([str(p)], LintOptions(select=("KV005",))).findings]
    assert f.severity == Severity.INFO and "pinned by digest" in f.message
    p.write_text(body.format(image="lmsysorg/sglang:latest"))
    [f] = [f for f in lint([str(p)], LintOptions(select=("KV005",))).findings]
    assert f.severity == Severity.ERROR


def test_a_flag_of_a_build_the_file_installs_from_no_stock_release_is_an_info(tmp_path):
    """Sample K115 (measured: two KV004 warnings): a model README that clones OpenMOSS's SGLang fork and installs
    `./sglang/python[all]`, and one that pins a PR build (`sglang==0.5.6.post2.dev8005+pr.15207.g39d5bd5`), then
    give the flags that build adds. A stock release's pin keeps the warning."""
    body = ("```bash\n{install}\n```\n\n```bash\npython3 -m sglang.launch_server --model-path org/m --enable-mtp\n```\n")
    for k, (install, said) in enumerate((("git clone https://github.com/Org/sglang -b tts\npip install ./sglang/python[all]",
                           "installed from ./sglang/python[all]"),
                          ("pip install sglang==0.5.6.post2.dev8005+pr.15207.g39d5bd5",
                           "the development build sglang==0.5.6.post2.dev8005+pr.15207.g39d5bd5"),
                          ("pip install 'git+https://github.com/org/sglang.git@mtp#subdirectory=python'",
                           "installed from git+https://github.com/org/sglang.git@mtp#subdirectory=python"))):
        p = tmp_path / f"README{k}.md"  # a file's text is read once per run (cached by path)
        p.write_text(body.format(install=install))
        [f] = [f for f in lint([str(p)], LintOptions(select=("KV004",))).findings]
        assert f.severity == Severity.INFO and said in f.message
    p = tmp_path / "README-stock.md"
    p.write_text(body.format(install="pip install sglang==0.5.12"))
    [f] = [f for f in lint([str(p)], LintOptions(select=("KV004",))).findings]
    assert f.severity == Severity.WARNING


def test_a_script_setting_a_vendor_builds_own_variables_runs_that_build(tmp_path):
    """Sample K124 (measured: two KV004 warnings and a KV005 warning, noise): a Gaudi tutorial's script exports
    `PT_HPU_ENABLE_LAZY_COLLECTIVES` (read only by Intel Gaudi's vLLM fork) and gives that fork's options: the build
    decides, so the flags are infos naming it and the release is open. The fork's own option marks the build too
    (turn 38's K335: kvlint/data/vendor_launchers.json `options`); a command with neither keeps both warnings."""
    body = ("#!/bin/sh\n{env}python -m vllm.entrypoints.openai.api_server --model org/m \\\n"
            "  --use-padding-aware-scheduling --num_scheduler_steps 16\n")
    p = tmp_path / "server_cmd.sh"
    p.write_text(body.format(env="export PT_HPU_ENABLE_LAZY_COLLECTIVES=true\n"))
    got = {(f.code, f.severity) for f in lint([str(p)], LintOptions(select=("KV004", "KV005"))).findings}
    assert got == {("KV004", Severity.INFO), ("KV005", Severity.INFO)}
    marked = tmp_path / "marked_cmd.sh"
    marked.write_text(body.format(env=""))
    got = {(f.code, f.severity) for f in lint([str(marked)], LintOptions(select=("KV004", "KV005"))).findings}
    assert got == {("KV004", Severity.INFO), ("KV005", Severity.INFO)}
    q = tmp_path / "stock_cmd.sh"
    q.write_text(body.format(env="").replace("--use-padding-aware-scheduling", "--use-padding-aware-batching"))
    got = {(f.code, f.severity) for f in lint([str(q)], LintOptions(select=("KV004", "KV005"))).findings}
    assert got == {("KV004", Severity.WARNING), ("KV005", Severity.WARNING)}


def test_a_launch_naming_the_ascend_quantization_runs_the_vllm_ascend_build(tmp_path):
    """Turn 46's K476 (a KV004 warning, noise): a fault-tolerance fork's `vllm serve ... --quantization ascend
    --gloo-timeout-seconds 15` sets no ASCEND_* variable, but `ascend` is a quantization method only the vllm-ascend
    plugin registers: the launch runs that build, so the flag only it may add is an info naming the build. The
    same command quantized with a stock method keeps the warning."""
    body = "#!/bin/sh\nvllm serve org/m --quantization {q} --gloo-timeout-seconds 15\n"
    for name, q, severity in (("npu_serve.sh", "ascend", Severity.INFO), ("gpu_serve.sh", "fp8", Severity.WARNING)):
        p = tmp_path / name
        p.write_text(body.format(q=q))
        [f] = [f for f in lint([str(p)], LintOptions(select=("KV004",))).findings]
        assert f.severity is severity and ("Ascend NPU build" in f.message) is (q == "ascend"), f.message


def test_a_host_script_whose_launches_give_a_forks_options_runs_that_build(tmp_path):
    """Sample K172's SGLang fork script (a wrong KV005 warning "installed today"): a fixed-K launch, then the same
    command with the fork's own `--speculative-suffix-*` options: the host's install is the build that adds them, so
    the release a removed flag depends on is open (an info), for both launches; with one unknown option (a typo's
    or a plugin's few) the newest release is still assumed."""
    p = tmp_path / "run.sh"
    base = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-max-bs 16"
    p.write_text(f"{base}\n{base} --speculative-suffix-enable --speculative-dynamic-k-enable --speculative-x-num 4\n")
    found = [(f.severity, f.span.line) for f in lint([str(p)], LintOptions(select=("KV005",))).findings]
    assert found == [(Severity.INFO, 1), (Severity.INFO, 2)]
    p.write_text(f"{base}\n{base} --speculative-suffix-enable\n")
    found = [(f.severity, f.span.line) for f in lint([str(p)], LintOptions(select=("KV005",))).findings]
    assert found == [(Severity.WARNING, 1), (Severity.WARNING, 2)]


def test_a_value_stock_releases_refuse_is_the_forks_to_decide():
    """KV007 as KV004 and KV005 (sample K220, measured: two KV007 errors on an SGLang fork's script): inside the
    repository's own engine tree the launch runs that tree, so a choice stock SGLang does not list is an info naming
    the tree; outside it the error stands."""
    result = check(VERDICTS / "sglang-fork" / "fork-value.sh")
    [f] = [f for f in result.findings if f.code == "KV007"]
    assert f.severity == Severity.INFO and (f.span.line, f.span.col) == (3, 94)
    assert "holds its own SGLang tree (" in f.message and "sglang-fork/python/sglang/srt/server_args.py)" in f.message


def test_an_escaped_space_taken_as_the_model_is_said_for_what_it_is(tmp_path):
    """Sample K224 (measured: a KV002 warning "empty model reference"): `--no-enable-prefix-caching \\ &` ends a
    `docker run` of vLLM's image with a one-space word, which `vllm serve` takes as its positional model (replacing
    --model): the warning names the escaped space and how to fix it."""
    p = tmp_path / "serve.sh"
    p.write_text("docker run -d --gpus all vllm/vllm-openai:latest \\\n    --model org/m \\\n"
                 "    --no-enable-prefix-caching \\ &\n")
    [f] = [f for f in lint([str(p)], LintOptions()).findings if f.code == "KV002"]
    assert (f.severity, f.span.line, f.span.col) == (Severity.WARNING, 3, 33)
    assert "a word of blanks only (' ')" in f.message and "backslash before the space" in (f.fix or "")


def test_a_source_checkout_on_pythonpath_settles_its_own_flags_even_near_a_stock_one(tmp_path):
    """Sample K235's training scripts: `export PYTHONPATH="$ROOT_DIR/_sglang/python:..."` runs SGLang from the
    repository's patched checkout (a folder carrying the engine's name with its package folder inside), whose
    `--enable-aux-hidden-states` and `--spec-training-*` options no stock release has. The near miss of a stock
    option (`--enable-return-aux-hidden-states`) was an error "did you mean"; the build decides: infos, the hint kept.
    The header's usage line (`bash examples/x/run_sglang.sh`) is a script's path, no image the script runs in."""
    body = ("python -m sglang.launch_server --model-path Qwen/Qwen3-4B --enable-aux-hidden-states "
            "--spec-training-callback-url http://x:1\n")
    header = "#!/bin/bash\n# Usage:\n#   bash examples/qwen3/run_sglang.sh\n"
    tree = tmp_path / "tree.sh"
    tree.write_text(header + 'export PYTHONPATH="$ROOT_DIR/_sglang/python:${PYTHONPATH:-}"\n' + body)
    found = [f for f in lint([str(tree)], LintOptions()).findings if f.code == "KV004"]
    assert [f.severity for f in found] == [Severity.INFO, Severity.INFO]
    assert "did you mean --enable-return-aux-hidden-states?" in found[0].message
    assert "PYTHONPATH ($ROOT_DIR/_sglang/python)" in found[0].message and "comment says" not in found[1].message
    plain = tmp_path / "plain.sh"
    plain.write_text(header + 'export PYTHONPATH="$ROOT_DIR/compat_sglang:${PYTHONPATH:-}"\n' + body)  # a shim folder
    assert [f.severity for f in lint([str(plain)], LintOptions()).findings if f.code == "KV004"] == \
        [Severity.ERROR, Severity.WARNING]


def test_a_checkout_folder_named_with_the_engines_short_name_is_its_tree(tmp_path):
    """Sample K229's AMD script: `export PYTHONPATH=/sgl-pr/python:...` (the header mounts a SGLang PR checkout at
    /sgl-pr) runs that tree, which may keep `--cuda-graph-bs` (absent from 0.5.23): an info naming the tree, where a
    stock install's release would warn."""
    p = tmp_path / "launch.sh"
    body = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-bs 1 2 4\n"
    p.write_text("export PYTHONPATH=/sgl-pr/python:${PYTHONPATH:-}\n" + body)
    (found,) = [f for f in lint([str(p)], LintOptions()).findings if f.code == "KV005"]
    assert found.severity == Severity.INFO and "PYTHONPATH (/sgl-pr/python)" in found.message
    own = tmp_path / "own.sh"  # a project's own python folder
    own.write_text("export PYTHONPATH=/opt/app/python:${PYTHONPATH:-}\n" + body)
    (found,) = [f for f in lint([str(own)], LintOptions()).findings if f.code == "KV005"]
    assert found.severity == Severity.WARNING


def test_a_vendor_build_run_from_a_source_tree_on_pythonpath_decides_its_values(tmp_path):
    """Sample K523 (measured: a KV007 error, wrong): an Ascend script (`ASCEND_RT_VISIBLE_DEVICES`) puts its own vllm
    and vllm-ascend trees on PYTHONPATH and passes `--kv_cache_dtype turboquant`, a choice that tree adds: the source
    tree's parser decides, so the refusal is an info naming the tree. Without the tree the vendor mark alone keeps
    the error (vllm-ascend takes stock vLLM's parser)."""
    body = ("#!/bin/bash\n{path}export ASCEND_RT_VISIBLE_DEVICES=0\n"
            "vllm serve /models/Qwen3-0.6B --kv_cache_dtype turboquant --max-model-len 8192\n")
    f = _one_kv007(tmp_path / "start_vllm.sh",
                   body.format(path='export PYTHONPATH="/root/code/vllm-ascend:/root/code/vllm:$PYTHONPATH"\n'))
    assert f.severity == Severity.INFO and "source tree on PYTHONPATH (/root/code/vllm)" in f.message
    assert _one_kv007(tmp_path / "start_stock.sh", body.format(path="")).severity == Severity.ERROR


def _one_kv007(path, text):
    """The one KV007 finding of a file written with `text`."""
    path.write_text(text)
    [f] = lint([str(path)], LintOptions(select=("KV007",))).findings
    return f


def test_a_value_given_to_a_program_read_by_the_engines_flags_is_its_parsers_to_decide(tmp_path):
    """Sample K529 (measured: a KV007 warning, noise): a Modal app runs `python3 -m
    vllm.entrypoints.bosonai.api_server` (Boson AI's fork) with `--limit-mm-per-prompt audio=50`: read as vLLM by its
    flags through a program kvlint does not know, whose own parser decides the value: an info naming the program.
    The same words through stock vLLM's server keep the warning."""
    body = ('import subprocess\nsubprocess.Popen(["python3", "-m", "{module}", "--model", "org/m",\n'
            '                  "--limit-mm-per-prompt", "audio=50", "--max-model-len", "8192"])\n')
    f = _one_kv007(tmp_path / "fork_app.py", body.format(module="vllm.entrypoints.bosonai.api_server"))
    assert f.severity == Severity.INFO and "vllm.entrypoints.bosonai.api_server" in f.message
    stock = _one_kv007(tmp_path / "stock_app.py", body.format(module="vllm.entrypoints.openai.api_server"))
    assert stock.severity == Severity.WARNING


def test_prefill_context_parallel_ranks_count_and_their_pool_is_not_guessed(tmp_path):
    """Sample K544 (measured: two KV108 errors, wrong): a runbook's `--prefill-context-parallel-size 8` beside TP 1
    for a 397B model: vLLM's world size is tp x pp x pcp, and its ranks split each request's KV cache in a layout
    kvlint does not size. No catalogue verdict sized as one TP rank holding it all (the launch is refused by name,
    as not modelled); and a pod with TP 2 x PCP 2 on two GPUs cannot start all its ranks (KV204)."""
    runbook = tmp_path / "runbook.sh"
    runbook.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --prefill-context-parallel-size 8 --max-model-len 32768\n")
    result = lint([str(runbook)], LintOptions())
    assert [f for f in result.findings if f.code == "KV108" or f.severity > Severity.INFO] == []
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n"
                   "      containers:\n      - name: v\n        image: vllm/vllm-openai:v0.14.0\n"
                   '        args: ["Qwen/Qwen2.5-7B-Instruct", "-tp", "2", "-pcp", "2"]\n'
                   "        resources: {limits: {nvidia.com/gpu: 2}}\n")
    [kv204] = [f for f in lint([str(pod)], LintOptions(gpu="h100")).findings if f.code == "KV204"]
    assert kv204.severity == Severity.ERROR and "-pcp 2 needs 4 GPU(s)" in kv204.message


def test_a_namespaced_switch_and_its_knob_are_a_builds_feature(tmp_path):
    """Sample K544 (measured: two KV004 warnings, noise): a Hygon DCU benchmark's SGLang launch passes
    `--mooncake-enable-page-wise-load` and `--mooncake-page-wise-load-threshold 1`, a feature's switch (its `enable-`
    after the namespace) and a knob of it, which no release kvlint knows: a build that adds the feature decides (infos).
    One such flag alone stays a warning."""
    body = "python -m sglang.launch_server --model-path org/m --context-length 8192 {}\n"
    pair = tmp_path / "pair.sh"
    pair.write_text(body.format("--mooncake-enable-page-wise-load --mooncake-page-wise-load-threshold 1"))
    found = [f for f in lint([str(pair)], LintOptions(select=("KV004",))).findings]
    assert len(found) == 2 and all(f.severity == Severity.INFO for f in found)
    alone = tmp_path / "alone.sh"
    alone.write_text(body.format("--mooncake-page-wise-load-threshold 1"))
    [one] = lint([str(alone)], LintOptions(select=("KV004",))).findings
    assert one.severity == Severity.WARNING
