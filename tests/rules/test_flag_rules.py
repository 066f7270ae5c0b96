"""KV002-KV005 from hand-made deployments: messages, spans, and the version-aware severity of KV005."""

from __future__ import annotations

from dataclasses import replace

import _factories as fx
import pytest

from kvlint.deployment import UnknownFlag
from kvlint.findings import Severity
from kvlint.registry import Context, run_rules


def run(ctx, code):
    return list(run_rules(ctx, {code}))


def flags(*unknown, version=None):
    return replace(fx.deployment(), unknown_flags=tuple(unknown), engine_version=version)


def test_kv004_unknown_and_ambiguous_with_did_you_mean():
    dep = flags(UnknownFlag("--max-model-length", fx.span(4), "--max-model-len"),
                UnknownFlag("--pp", fx.span(5), "--pp-size", reason="ambiguous"),
                UnknownFlag("--swap-space", fx.span(6), reason="removed"))
    found = run(Context(deployment=dep), "KV004")
    assert [(f.span.line, f.code) for f in found] == [(4, "KV004"), (5, "KV004")]
    assert "did you mean --max-model-len?" in found[0].message and found[0].fix == "use --max-model-len"
    assert "ambiguous abbreviation" in found[1].message


def test_kv005_severity_follows_the_pinned_image():
    removed = UnknownFlag("--swap-space", fx.span(6), reason="removed")
    [current] = run(Context(deployment=flags(removed, version="0.33.0"), pinned_version="0.33.0"), "KV005")
    assert current.severity is Severity.ERROR and "the server exits" in current.message
    [pinned] = run(Context(deployment=flags(removed, version="0.17.0"), pinned_version="0.17.0"), "KV005")
    assert pinned.severity is Severity.WARNING and "vLLM 0.17.0 (pinned) may still accept it" in pinned.message
    configured = Context(deployment=flags(removed, version="0.17.0"), pinned_version="0.17.0",
                         severities={"KV005": Severity.ERROR})
    assert [f.severity for f in run(configured, "KV005")] == [Severity.ERROR]


@pytest.mark.parametrize(("flag", "pinned", "severity", "said"), [
    ("--swap-space", "0.10.0", Severity.WARNING, "vLLM 0.10.0 (pinned) has it (kvlint read it in the 0.4.3 and 0.15.0"),
    ("--device", "0.6.2", Severity.WARNING, "vLLM 0.6.2 (pinned) has it (kvlint read it in the 0.4.3 and 0.9.2"),
    ("--device", "0.10.0", Severity.WARNING, "vLLM 0.10.0 (pinned) may still accept it"),
    ("--device", "0.10.2", Severity.ERROR, "absent from the 0.10.1.1 parser): the server exits"),
    ("--speculative-model", "0.8.5", Severity.ERROR, "absent from the 0.8.5 parser): the server exits"),
    ("--task", "0.6.2", Severity.WARNING, "older than 0.6.6, the oldest release kvlint read with it"),
])
def test_kv005_on_a_release_the_removal_record_saw(flag: str, pinned: str, severity: Severity, said: str) -> None:
    """Turn 46's K477 (`--device neuron` on `vllm[neuron]==0.6.2`): "older than every release kvlint reads, so not
    known here" was noise, 0.6.2 has the flag. Older releases' parsers read statically (bench/older_options.py
    --history) give each removal record its first and last sighting: a release between them accepts the flag (a
    warning about the next upgrade that says so), one after the last sighting may still (a warning), one from the
    first release read without it exits (an error: `--speculative-model` is gone from 0.8.5, not from 0.11.0 as the
    record said)."""
    removed = UnknownFlag(flag, fx.span(6), reason="removed")
    [found] = run(Context(deployment=flags(removed, version=pinned), pinned_version=pinned), "KV005")
    assert found.severity is severity and said in found.message, found.message


def test_kv005_on_a_release_older_than_every_table_says_the_flag_is_not_known_there():
    """Sample K75: `--disable-async-output-proc` on `vllm/vllm-openai:v0.3.2`, a flag 0.3.2 never had (it exits
    there): the oldest release kvlint reads with it is 0.6.2, so it does not say the old release "may still accept it"."""
    removed = UnknownFlag("--disable-async-output-proc", fx.span(6), reason="removed")
    [old] = run(Context(deployment=flags(removed, version="0.3.2"), pinned_version="0.3.2"), "KV005")
    assert old.severity is Severity.WARNING and "may still accept" not in old.message
    assert "older than 0.6.2, the oldest release kvlint read with it" in old.message
    swap = UnknownFlag("--swap-space", fx.span(6), reason="removed")  # read from 0.4.3 to 0.15
    [known] = run(Context(deployment=flags(swap, version="0.3.2"), pinned_version="0.3.2"), "KV005")
    assert known.severity is Severity.WARNING and "older than 0.4.3, the oldest release kvlint read" in known.message


def test_kv005_never_assumes_a_release_nothing_pins():
    """Issue 23: an unpinned launch was judged on the newest parser ("the server exits"): the release decides."""
    removed = UnknownFlag("--swap-space", fx.span(6), reason="removed")
    [open_] = run(Context(deployment=flags(removed)), "KV005")
    assert open_.severity is Severity.INFO and "pins no vLLM release, so the release decides" in open_.message
    assert "pin the image tag" in open_.message


def test_kv002_and_kv003_come_from_resolution_errors():
    dep = fx.deployment()
    [m] = run(Context(deployment=dep, model_error="model 'test/dense-32b' is not known offline"), "KV002")
    assert m.message.startswith("model 'test/dense-32b' is not known offline; capacity rules skipped")
    assert m.span == dep.model_span
    [g] = run(Context(deployment=dep, gpu_error="no GPU product declared"), "KV003")
    assert g.span == dep.launch_span and "--gpu" in g.fix
    assert run(Context(deployment=dep), "KV002") == [] and run(Context(deployment=dep), "KV003") == []


def test_kv003_a_card_that_states_its_memory_is_an_info_a_bare_unknown_name_a_warning():
    """`nvidia-gpu-rtx4070-8gb` (a KubeAI profile) or `mig-2g.48gb` is a real card the catalogue lacks; `NVIDIA-H1000`
    is likely a typo worth the reviewer's time; `RTX 4050` is no slip of `RTX 4090` (another model number of the same
    length, sample F's noise): no close name is offered, so it is a card kvlint lacks, an info."""
    from kvlint.gpus import _unknown
    from kvlint.record import replace

    dep = fx.deployment()
    for name, severity in (("nvidia-gpu-rtx4070-8gb", "info"), ("mig-2g.48gb", "info"), ("NVIDIA-H1000", "warning"),
                           ("RTX 4050", "info")):
        [g] = run(Context(deployment=replace(dep, gpu=name), gpu_error=str(_unknown(name))), "KV003")
        assert str(g.severity) == severity, name
    assert "did you mean" not in str(_unknown("RTX 4050")) and "did you mean" in str(_unknown("NVIDIA-H1000"))


def test_consumer_cards_are_in_the_catalogue():
    """Sample F: `accelerators: RTX4060:1` got "unknown GPU (did you mean RTX4090?)"; real cards, with nvidia-smi
    totals, are looked up by the names their owners write."""
    from kvlint.gpus import lookup_gpu

    for name, mib in (("RTX4060", 8188), ("NVIDIA GeForce RTX 4070", 12282), ("RTX 4080", 16376),
                      ("RTX 4060 Ti 16GB", 16380), ("RTX3060", 12288)):
        assert lookup_gpu(name).memory_mib == mib, name


def test_kv004_an_abbreviation_ambiguous_only_from_a_release_is_judged_on_the_pinned_one():
    """Held-out samples D and F: SGLang `--disable-flashinfer` was 0.5.4's unique prefix of one option and is
    ambiguous from 0.5.12; on an image of unknown release kvlint said "the server exits" as an error."""
    ambiguous = UnknownFlag("--disable-flashinfer", fx.span(7), "--a, --b", reason="ambiguous", since="0.5.12")
    [open_] = run(Context(deployment=flags(ambiguous)), "KV004")
    assert open_.severity is Severity.INFO and "the release decides" in open_.message
    assert "from vLLM 0.5.12 on" in open_.message and "before 0.5.12 it abbreviates one option" in open_.message
    [older] = run(Context(deployment=flags(ambiguous, version="0.5.4"), pinned_version="0.5.4"), "KV004")
    assert older.severity is Severity.WARNING and "0.5.4 (pinned) reads it as the one option" in older.message
    [newer] = run(Context(deployment=flags(ambiguous, version="0.5.23"), pinned_version="0.5.23"), "KV004")
    assert newer.severity is Severity.ERROR and "the server exits (0.5.23 pinned)" in newer.message
    [host] = run(Context(deployment=flags(ambiguous), version_source="host"), "KV004")
    assert host.severity is Severity.WARNING and "installed today is assumed" in host.message


def test_ambiguous_since_reads_the_release_tables():
    from kvlint.flags.flag_table import ambiguous_since

    pair = ("--disable-flashinfer-autotune", "--disable-flashinfer-cutlass-moe-fp4-allgather")
    assert ambiguous_since("sglang", pair) == "0.5.12"  # autotune came in 0.5.12
    assert ambiguous_since("sglang", pair[1:]) is None  # one option: never ambiguous


@pytest.mark.parametrize("flag, near, pinned, said", [
    # K482: a key dropped after 0.20.0, given as an option on an unpinned launch (the newest release read lacks it)
    ("--speculative-token-tree", "--spec-tokens", None,
     "speculative_token_tree is a key of --speculative-config, not an option of its own; the newest release read, "
     "0.33.0, does not have it (read from 0.11.0 to 0.20.0)"),
    ("--speculative-token-tree", "--spec-tokens", "0.15.0", "(read from 0.11.0 to 0.20.0)"),
    ("--prompt-lookup-max", None, "0.11.0", "prompt_lookup_max is a key of --speculative-config"),
    ("--suffix-decoding-max-tree-depth", None, "0.11.0", "0.11.0 (pinned) does not have it (read from 0.13.0 to"),
])
def test_kv004_a_flag_naming_a_json_options_key_says_where_the_key_goes(flag, near, pinned, said):
    """Sample K482's `--speculative-token-tree` had "did you mean --spec-tokens?", another feature's option: the
    flag names a key of `--speculative-config` (bench/json_option_keys.py read vLLM's config dataclasses), so the
    fix is to give it there, and a release that lacks the key is named."""
    dep = flags(UnknownFlag(flag, fx.span(4), near), version=pinned)
    [f] = run(Context(deployment=dep, pinned_version=pinned), "KV004")
    assert f.severity is Severity.ERROR and said in f.message and "did you mean" not in f.message, f.message
    assert f.fix.startswith("give it inside --speculative-config: `--speculative-config.")


def test_kv004_a_key_of_several_json_options_or_of_one_word_is_no_config_key():
    """`backend` is a key of four JSON-valued options and `method` one common word: neither says which option the
    flag meant, so the plain verdict stands."""
    from kvlint.flags.flag_table import config_key

    assert config_key("vllm", "--backend") is None and config_key("vllm", "--method") is None
    assert config_key("vllm", "--moe-backend") is None  # speculative's and kernel's
    assert config_key("vllm", "--num-redundant-experts").option == "--eplb-config"
    assert config_key("sglang", "--speculative-token-tree") is None  # SGLang's table holds no JSON keys


def test_kv004_names_the_other_engine_for_its_own_flag_with_no_did_you_mean():
    """Sample K4's `python -m sglang.launch_server ... --enable-prefix-caching`: vLLM's option, not a typo of
    SGLang's `--enable-prefix-mm-cache`; still an error (SGLang exits)."""
    dep = replace(fx.deployment(), engine="sglang",
                  unknown_flags=(UnknownFlag("--enable-prefix-caching", fx.span(7), "--enable-prefix-mm-cache"),))
    (f,) = run(Context(deployment=dep), "KV004")
    assert f.severity == Severity.ERROR and "is vLLM's option, not SGLang's" in f.message
    assert "did you mean" not in f.message and f.fix == "remove the flag, or write SGLang's own option for it"


def test_kv105_is_an_info_when_the_launch_sets_its_own_rope_scaling(tmp_path):
    """Sample K5's deploy-131k.sh: `--max-model-len 131072 --rope-scaling '{"rope_type":"yarn","factor":4.0,...}'` on
    vLLM 0.8.5 raises the derived maximum; kvlint does not apply it, so no "refuses to start" error."""
    from kvlint.lint import LintOptions, lint

    yarn = """'{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}'"""
    cases = {"rope.sh": f"docker run vllm/vllm-openai:v0.8.5 --model Qwen/Qwen3-8B --max-model-len 131072 "
                        f"--rope-scaling {yarn}\n",
             "hf.sh": "docker run vllm/vllm-openai:v0.13.0 --model Qwen/Qwen3-8B --max-model-len 131072 "
                      """--hf-overrides '{"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}'\n""",
             "none.sh": "docker run vllm/vllm-openai:v0.13.0 --model Qwen/Qwen3-8B --max-model-len 131072\n"}
    got = {}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        found = [f for f in lint([str(tmp_path / name)], LintOptions(gpu="H100")).findings if f.code == "KV105"]
        got[name] = [f.severity for f in found]
    assert got == {"rope.sh": [Severity.INFO], "hf.sh": [Severity.INFO], "none.sh": [Severity.ERROR]}


def test_kv004_a_flag_extending_one_of_the_engines_features_is_an_info():
    """Sample K26's block-diffusion script (measured: two KV004 warnings, noise): `--dllm-prefix-attention` and
    `--dllm-cuda-graph` extend SGLang's own `--dllm-algorithm` family (Liquid AI's SGLang adds them): an info naming
    the family. A flag under a head many unrelated options share (`--enable-`) stays a warning."""
    dep = replace(fx.deployment(), engine="sglang", unknown_flags=(
        UnknownFlag("--dllm-cuda-graph", fx.span(7)), UnknownFlag("--enable-made-up-thing", fx.span(8))))
    family, generic = run(Context(deployment=dep), "KV004")
    assert (family.severity, generic.severity) == (Severity.INFO, Severity.WARNING)
    assert "extends SGLang's own `--dllm-algorithm`" in family.message


def test_kv004_a_two_letter_feature_head_with_more_words_names_the_feature():
    """Sample K122 (measured: a KV004 warning, noise): `--kt-expert-placement-strategy` beside SGLang's own
    `--kt-cpuinfer`, `--kt-method` (KTransformers' options) extends that feature: an info. Two words under a
    two-letter head (`--tp-foo`) are too little to tell: a warning."""
    dep = replace(fx.deployment(), engine="sglang", unknown_flags=(
        UnknownFlag("--kt-expert-placement-strategy", fx.span(7)), UnknownFlag("--tp-foo", fx.span(8))))
    family, short = run(Context(deployment=dep), "KV004")
    assert (family.severity, short.severity) == (Severity.INFO, Severity.WARNING)
    assert "extends SGLang's own `--kt-" in family.message


def test_kv004_a_flag_of_a_feature_whose_nearest_spelling_is_of_another_is_no_typo():
    """Sample K445 (measured: a KV004 error "did you mean --numa-node?", wrong): `--kt-numa-nodes` beside SGLang's own
    `--kt-cpuinfer`, `--kt-method` names the KTransformers feature; the option spelled nearest it is of another, so
    it is that feature's newer option (an info), not a slip of `--numa-node`. A slip inside the feature
    (`--kt-methd`, near `--kt-method`) keeps its error and its did-you-mean."""
    dep = replace(fx.deployment(), engine="sglang", unknown_flags=(
        UnknownFlag("--kt-numa-nodes", fx.span(7), suggestion="--numa-node"),
        UnknownFlag("--kt-methd", fx.span(8), suggestion="--kt-method")))
    feature, typo = run(Context(deployment=dep), "KV004")
    assert (feature.severity, typo.severity) == (Severity.INFO, Severity.ERROR)
    assert "--numa-node, is of another feature" in feature.message and "extends SGLang's own `--kt-" in feature.message
    assert "did you mean --kt-method?" in typo.message


def test_kv004_an_option_with_more_words_after_a_known_one_is_no_misspelling_of_it():
    """Sample K104 (measured: a KV004 error "did you mean --speculative-draft-model?", wrong: SGLang after the
    tables has `--speculative-draft-model-override-args`, and the launch runs a source checkout): a known option
    with words added is a newer option on a feature the engine has (`--speculative-draft-*`, tried when the first
    word `--speculative-` is a family of features), an info; a typo of a word still gets its did-you-mean."""
    dep = replace(fx.deployment(), engine="sglang", unknown_flags=(
        UnknownFlag("--speculative-draft-model-override-args", fx.span(7), suggestion="--speculative-draft-model"),
        UnknownFlag("--speculative-draft-modle-path", fx.span(8), suggestion="--speculative-draft-model-path")))
    longer, typo = run(Context(deployment=dep), "KV004")
    assert (longer.severity, typo.severity) == (Severity.INFO, Severity.ERROR)
    assert "it is --speculative-draft-model with more words" in longer.message
    assert "did you mean --speculative-draft-model-path?" in typo.message


def test_a_flag_glued_to_its_value_by_a_no_break_space_says_so(tmp_path):
    """Sample K99 (a tutorial's `--tool-call-parser\\u00a0qwen3`, pasted from a page): one unrecognized argument,
    said as the no-break space it is, not "did you mean --tool-call-parser?" beside the same flag."""
    from kvlint.lint import LintOptions, lint

    p = tmp_path / "run.sh"
    p.write_text("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tool-call-parser\u00a0qwen25 --tp 1\n")
    (kv004,) = [f for f in lint([str(p)], LintOptions()).findings if f.code == "KV004"]
    assert "no-break space (U+00A0)" in kv004.message and "did you mean" not in kv004.message
    assert "\u00a0" not in kv004.message and kv004.severity.name == "ERROR"


def test_an_unknown_flag_beside_an_install_of_a_package_built_on_the_engine_is_an_info(tmp_path):
    """Sample K103 (two noise warnings): a vLLM plugin's README installs `arctic-inference[vllm]` and serves with the
    plugin's own flags (`--enable-shift-parallel`): the package decides whose flags they are (an info that names it);
    the engine's own extras (`vllm[audio]`) are no such package, and without any install the warning stays."""
    from kvlint.lint import LintOptions, lint

    def kv004(text: str):
        p = tmp_path / "README.md"
        p.write_text(text)
        return [(f.severity.name, "arctic-inference[vllm]" in f.message)
                for f in lint([str(p)], LintOptions()).findings if f.code == "KV004"]

    serve = "```console\n$ vllm serve Qwen/Qwen3-8B --enable-shift-parallel\n```\n"
    assert kv004("```console\n$ pip install arctic-inference[vllm]\n```\n" + serve) == [("INFO", True)]
    assert kv004("```console\n$ pip install vllm[audio]\n```\n" + serve) == [("WARNING", False)]
    assert kv004(serve) == [("WARNING", False)]


def test_an_unknown_flag_of_a_launch_that_turns_on_a_plugin_is_the_plugins(tmp_path):
    """Sample K174 (two noise warnings): vllm-omni's docs serve with `vllm serve M --deploy-config X --omni`: `--omni`
    is the plugin's own switch (kvlint/data/plugins.json), so the launch runs vllm-omni, whose options these are
    (an info naming it); without the switch the same unknown option stays a warning."""
    import jsonschema

    from kvlint.data import load_json
    from kvlint.lint import LintOptions, lint

    jsonschema.validate(load_json("plugins.json"), load_json("plugins.schema.json"))

    def kv004(flags: str):
        p = tmp_path / "serve.sh"
        p.write_text(f"vllm serve Qwen/Qwen3-8B {flags}\n")
        return sorted((f.severity.name, "the switch of vllm-omni" in f.message)
                      for f in lint([str(p)], LintOptions()).findings if f.code == "KV004")

    assert kv004("--deploy-config d.yaml --omni") == [("INFO", True), ("INFO", True)]
    assert kv004("--deploy-config d.yaml") == [("WARNING", False)]
    # K446: EmbeddedLLM's vllm-responses, `vllm serve M --responses --responses-mcp-config F` (its colocated mode):
    # the switch was an error ("did you mean --response-role?") and its options warnings; the package decides
    p = tmp_path / "responses.sh"
    p.write_text("vllm serve Qwen/Qwen3-8B --responses --responses-mcp-config /etc/mcp.json\n")
    found = [f for f in lint([str(p)], LintOptions()).findings if f.code == "KV004"]
    assert [f.severity.name for f in found] == ["INFO", "INFO"] and all("vllm-responses" in f.message for f in found)
    # the engine's stock image carries no plugin: `--omni` exits there (tests/rules/test_signed_verdicts.py, K69)
    p = tmp_path / "run.sh"
    p.write_text("docker run --gpus all vllm/vllm-openai:v0.11.0 --model org/m --omni\n")
    assert [f.severity.name for f in lint([str(p)], LintOptions()).findings if f.code == "KV004"] == ["WARNING"]


def test_an_unknown_flag_of_a_launch_run_from_the_engines_checkout_is_an_info(tmp_path):
    """Sample K101 (a noise warning): a research system's patched vLLM, run from its checkout (`--chat-template
    ./examples/template_alpaca.jinja`, a file of vLLM's own repository), with its own `--coinference-scheduler`: the
    checkout decides (an info that says why); an absolute path or another file is no such evidence."""
    from kvlint.lint import LintOptions, lint

    def kv004(template: str):
        p = tmp_path / "launch_server.sh"
        p.write_text("python -m vllm.entrypoints.openai.api_server --model org/m --coinference-scheduler "
                     f"--chat-template {template}\n")
        return [f.severity.name for f in lint([str(p)], LintOptions()).findings if f.code == "KV004"]

    assert kv004("./examples/template_alpaca.jinja") == ["INFO"]
    assert kv004("/opt/templates/template_alpaca.jinja") == ["WARNING"]
    assert kv004("./chat.jinja") == ["WARNING"]


def test_kv004_two_unknown_flags_sharing_their_first_two_words_are_one_build_s_feature():
    """Sample K108 (measured: two KV004 warnings, noise): `--token-pruning-alg` and `--token-pruning-ratio` on a
    script at the root of an SGLang research fork: one feature's options, a build's; an info. Two flags sharing only
    a generic head (`--enable-`) stay warnings."""
    dep = replace(fx.deployment(), engine="sglang", unknown_flags=(
        UnknownFlag("--token-pruning-alg", fx.span(7)), UnknownFlag("--token-pruning-ratio", fx.span(8))))
    assert [f.severity for f in run(Context(deployment=dep), "KV004")] == [Severity.INFO, Severity.INFO]
    dep = replace(dep, unknown_flags=(UnknownFlag("--enable-made-up-a", fx.span(7)),
                                      UnknownFlag("--enable-made-up-b", fx.span(8))))
    assert [f.severity for f in run(Context(deployment=dep), "KV004")] == [Severity.WARNING, Severity.WARNING]


def test_kv004_a_feature_flag_near_a_stock_option_beside_its_own_knob_is_the_builds():
    """Sample K426 (an SGLang fork's script, measured: an error with a did-you-mean and a warning):
    `--scheduling-policy-path` (spelled near `--schedule-policy`) beside `--scheduling-policy-init-kwargs`: one
    feature's options, a build's; both infos. A near flag with no knob of its feature beside it keeps its error."""
    near = UnknownFlag("--scheduling-policy-path", fx.span(7), suggestion="--schedule-policy")
    knob = UnknownFlag("--scheduling-policy-init-kwargs", fx.span(8))
    dep = replace(fx.deployment(), engine="sglang", unknown_flags=(near, knob))
    assert [f.severity for f in run(Context(deployment=dep), "KV004")] == [Severity.INFO, Severity.INFO]
    dep = replace(dep, unknown_flags=(near, UnknownFlag("--made-up-knob-here", fx.span(8))))
    assert [f.severity for f in run(Context(deployment=dep), "KV004")] == [Severity.ERROR, Severity.WARNING]


def test_a_vendor_platform_makes_the_build_decide_removed_and_unknown_flags():
    """Sample K197's Rebellions NPU script (`--device rbln --compiled-model-dir ...`) and K198's Hygon DCU CI script
    (`--attention-backend dcu_mla ... --cuda-graph-max-bs 32`): a platform value no release lists, unrelated to every
    one, means a vendor's build runs the launch, so a removed or unknown flag is an info naming it; `--device cpu`
    (a stock device) or a slip of a stock backend (`flashinfr`) settles nothing."""
    from kvlint.deployment import InvalidValue

    device = UnknownFlag("--device", fx.span(5), reason="removed", value="rbln")
    own = UnknownFlag("--compiled-model-dir", fx.span(3))
    host = {"version_source": "host"}
    [gone] = run(Context(deployment=flags(own, device), **host), "KV005")
    assert gone.severity is Severity.INFO and "--device rbln, a platform only a vendor's build" in gone.message
    [unknown] = run(Context(deployment=flags(own, device), **host), "KV004")
    assert unknown.severity is Severity.INFO and "--device rbln" in unknown.message
    stock = replace(device, value="cpu")
    assert run(Context(deployment=flags(own, stock), **host), "KV005")[0].severity is Severity.WARNING
    assert run(Context(deployment=flags(own, stock), **host), "KV004")[0].severity is Severity.WARNING
    graph = UnknownFlag("--cuda-graph-max-bs", fx.span(7), reason="removed")
    for raw, severity in (("dcu_mla", Severity.INFO), ("flashinfr", Severity.WARNING)):
        bad = InvalidValue("--attention-backend", raw, fx.span(6), "valid: triton, fa3, flashinfer, flashmla",
                           "attention_backend")
        dep = replace(flags(graph), engine="sglang", invalid_values=(bad,))
        assert run(Context(deployment=dep, **host), "KV005")[0].severity is severity
