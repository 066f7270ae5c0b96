"""The reader protocol's table (kvlint.launches.kinds): the walk, the dispatch and the pre-commit hook's
file filter agree, and no file that names an engine entry point is skipped unread."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from kvlint.launches import iter_files, read_path
from kvlint.launches.kinds import KINDS, kind_for, reader_of, sniffed, walked
from kvlint.launches.named import ENTRY_MARKERS
from kvlint.launches.read import may_hold_launch

REPO = Path(__file__).resolve().parents[2]
NAMES = [
    "values.yaml", "deploy/x.YML", "chart/t.yaml.tpl", "run.sh", "a/b.bash", "job.slurm", "job.sbatch",
    "sglang/sglang.job", "serve.pbs", "vllm.def", "Singularity",
    "lws-ep.yaml-template", "values.yaml_example", "run.sh-dist", "notes-template", "a.md-sample", "run.qsub", "serve.lsf", "serve.bsub", "job.json",
    "Dockerfile", "Dockerfile.cuda", "img.dockerfile", "Makefile", "makefile", "GNUmakefile", "rules.mk",
    "Justfile", "justfile", ".justfile", "x.just", "run.ps1", "serve.py", "pkg/__init__.py",
    "vllm-config.json", "engine_args.json", ".runpod/hub.json", "serve_cfg.json",
    "package.json", "config.json", "tsconfig.json", "README.md", "notes.txt", "x.yaml.bak", "x.ps1.bak",
    "Makefile.am", "docs/index.rst", "a/makefile/readme.md", "supervisord.conf", "vllm.service", "Procfile",
    "pyproject.toml", "setup.ini", "requirements.txt", "serving.properties", "notebooks/serve.ipynb",
    "infra/main.tf", "jobs/vllm.nomad", "x.tfvars", "container/Containerfile", "Containerfile.gpu",
    "img.containerfile", "Dockerfile.rocm", "containerfiles.md",
    "start_model.sh.example", "compose.yaml.sample", "values.yaml.template", "serve.py.dist", ".env.example",
    "config.json.example", "vllm-args.json.sample", "README.md.example", "notes.example",
    "templates/docker-compose.yml.j2", "vllm.service.j2", "start.sh.jinja2", "values.yaml.jinja", "x.j2",
    "README.md.j2", "bin/serve", "Jenkinsfile", "LICENSE", "run.zsh", "serve.ksh", "serve.example", ".envrc",
    "ci/deploy.groovy", "serve.fish", "release.jenkinsfile", "main.go", "app.js",
]


def _hook_files(hook_id: str = "kvlint") -> re.Pattern[str]:
    [hook] = [h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text()) if h["id"] == hook_id]
    return re.compile(hook["files"])


@pytest.mark.parametrize("name", NAMES)
def test_hook_filter_matches_the_walk(name):
    assert (_hook_files().search(name) is not None) == walked(name), name


@pytest.mark.parametrize("name", NAMES)
def test_lock_hook_runs_on_every_file_the_walk_reads(name):
    """`kvlint models lock --check` must run when any file that can name a model changes, and on kvlint.lock."""
    assert (_hook_files("kvlint-lock").search(name) is not None) == walked(name), name
    assert _hook_files("kvlint-lock").search("deploy/kvlint.lock")


def test_walk_reads_what_the_table_claims(tmp_path):
    for name in NAMES:
        path = tmp_path / name
        if path.parent.name == "makefile":
            continue  # a folder named like a kind is descended, not read
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    read = {str(Path(p).relative_to(tmp_path)) for p, why in iter_files([str(tmp_path)]) if why is None}
    assert read == {n for n in NAMES if walked(n) and not n.startswith("a/makefile")}


def test_every_kind_has_a_reader_that_returns_a_read_result():
    for kind in KINDS:
        assert callable(reader_of(kind)), kind.name
        name = "x" + kind.suffixes[0] if kind.suffixes else kind.names[0] if kind.names else "bin/x"
        assert read_path(name, "\n\n") is not None


def test_a_name_that_says_nothing_is_read_by_its_first_words():
    assert sniffed("#!/bin/bash\nvllm serve m\n").name == "shell"
    assert sniffed("FROM vllm/vllm-openai\n").name == "dockerfile"
    assert sniffed("apiVersion: v1\n").name == "yaml"
    # a leading comment is neither YAML nor a kind of its own: the first instruction after it decides
    assert sniffed("# Docker Containerfile\n\n# base\nFROM vllm/vllm-openai:v0.20.2\n").name == "dockerfile"
    assert sniffed("# a comment\nmodel: org/m\n").name == "yaml"
    assert sniffed("#!/bin/sh\n# usage\nFROM=1\n").name == "shell"
    assert kind_for("-") is None and read_path("-", "vllm serve org/m\n").deployments[0].model == "org/m"


def test_a_file_with_no_suffix_is_read_by_its_shebang_or_an_engine_named_in_it(tmp_path):
    """`bin/serve` (a shebang), a Python program by its shebang, a text naming the engine: read as what its first
    words claim; a licence or a binary with no suffix is passed over whether walked or named (no KV001)."""
    (tmp_path / "serve").write_text("#!/bin/bash\nexec vllm serve org/m --max-model-len 4096\n")
    (tmp_path / "start").write_text("#!/usr/bin/env python3\nimport os\nos.execvp('vllm', ['vllm', 'serve', 'org/p'])\n")
    (tmp_path / "LICENSE").write_text("MIT License\n\nPermission is hereby granted: {free} of charge\n")
    (tmp_path / "blob").write_bytes(b"\x00\x01binary")
    assert kind_for("serve").name == "bare" and sniffed("#!/usr/bin/env python3\n").name == "python"
    assert read_path(str(tmp_path / "serve")).deployments[0].get("max_model_len") == 4096
    assert read_path(str(tmp_path / "start")).deployments[0].model == "org/p"
    for name in ("LICENSE", "blob"):
        result = read_path(str(tmp_path / name))
        assert result.deployments == [] and result.findings == [], name


def test_the_scan_filter_never_skips_a_file_naming_an_entry_point():
    for marker in ENTRY_MARKERS + ("trl vllm-serve", "vllm/vllm-openai", "lmsysorg/sglang", "LLMConfig("):
        assert may_hold_launch(f"x = 1\n{marker}\n"), marker


CONTAINERFILE = """# Docker Containerfile
FROM docker.io/vllm/vllm-openai:v0.20.2
ARG MODEL_NAME=org/ignored
# the engine image's entrypoint is `vllm serve`: the first CMD word is the positional model
CMD ["TheBloke/Mistral-7B-Instruct-v0.1-AWQ", "--quantization", "awq_marlin", "--max-model-len", "880"]
"""


@pytest.mark.parametrize("name", ["Containerfile", "Containerfile.cuda", "serve.containerfile", "Dockerfile.rocm"])
def test_a_containerfile_is_a_dockerfile_walked_read_and_filtered(tmp_path, name):
    """Podman/Buildah's Containerfile: the walk reads it, the hook's filter passes it, and an engine image's
    CMD whose first word is a positional model is the launch (model and flag with their positions)."""
    path = tmp_path / name
    path.write_text(CONTAINERFILE)
    assert walked(name) and _hook_files().search(name)
    assert [p for p, why in iter_files([str(tmp_path)]) if why is None] == [str(path)]
    [dep] = read_path(str(path), CONTAINERFILE).deployments
    assert dep.model == "TheBloke/Mistral-7B-Instruct-v0.1-AWQ" and dep.model_span.line == 5
    assert dep.get("max_model_len") == 880


def test_a_containerfile_read_under_another_name_is_not_yaml():
    """Named on the command line with a name that says nothing (`-`), the leading comment does not make it
    YAML (that gave KV001 "invalid YAML")."""
    result = read_path("-", CONTAINERFILE)
    assert [d.model for d in result.deployments] == ["TheBloke/Mistral-7B-Instruct-v0.1-AWQ"]
    assert not result.findings


def test_a_copy_kept_for_users_to_fill_in_is_read_as_the_file_it_copies(tmp_path):
    """Sample G: `start_model.sh.example` (a script the repository's users copy and fill in) was not walked: a
    silent miss. `.example` / `.sample` / `.template` / `.dist` after a name kvlint reads are that kind."""
    path = tmp_path / "start_model.sh.example"
    path.write_text("#!/bin/bash\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    assert walked(str(path)) and not walked(str(tmp_path / ".env.example"))
    (d,) = read_path(str(path)).deployments
    assert (d.model, d.get("max_model_len"), d.model_span.line) == ("Qwen/Qwen2.5-7B-Instruct", 8192, 2)
    assert [p for p, why in iter_files([str(tmp_path)]) if why is None] == [str(path)]


def test_a_pipeline_calling_a_shell_is_read_from_its_strings(tmp_path):
    """A Jenkinsfile's `sh '...'` (no suffix: read by its text) and a Groovy file's `sh \"\"\"...\"\"\"`-less
    one-line steps: the string holding the entry point is the command; prose quoting no entry point is nothing."""
    (tmp_path / "Jenkinsfile").write_text("pipeline {\n  stages { stage('s') { steps {\n"
                                          "    sh 'vllm serve org/m --max-model-len 4096'\n  } } }\n}\n")
    (tmp_path / "deploy.groovy").write_text('def run() {\n  sh "python -m sglang.launch_server --model-path org/s"\n}\n')
    jenkins = read_path(str(tmp_path / "Jenkinsfile")).deployments
    assert [(d.model, d.get("max_model_len"), d.model_span.line, d.model_span.col) for d in jenkins] == \
        [("org/m", 4096, 3, 20)]
    assert [d.model for d in read_path(str(tmp_path / "deploy.groovy")).deployments] == ["org/s"]


@pytest.mark.parametrize("name", ["sglang/sglang.job", "serve.pbs", "run.qsub", "serve.lsf", "serve.bsub"])
def test_a_batch_schedulers_job_script_is_shell(name):
    """Sample K86's `sglang/sglang.job` (a Slurm job, `#SBATCH` lines): not walked before, a silent miss."""
    kind = kind_for(name)
    assert kind is not None and kind.name == "shell" and walked(name)


@pytest.mark.parametrize(("name", "kind"), [("lws-ep.yaml-template", "yaml"), ("values.yaml_example", "yaml"),
                                            ("run.sh-dist", "shell"), ("notes-template", "bare")])
def test_a_copy_named_with_a_dash_or_underscore_is_read_as_the_file_it_copies(name, kind):
    """Sample K88's `lws-ep.yaml-template` (a LeaderWorkerSet with `${MODEL_PATH}` placeholders): not walked, a
    silent miss; the copy words after `-` or `_` are the dotted ones'."""
    found = kind_for(name)
    assert found is not None and found.name == kind and walked(name)


def test_a_suffixless_notes_file_whose_command_holds_a_colon_is_not_yaml(tmp_path):
    """Sample K109: `# VLLM Server` then `VLLM_ATTENTION_BACKEND=FLASH_ATTN vllm serve M --speculative-config
    '{"model": ...}'` in a file with no suffix: a command, no `key:` (it was read as YAML: a KV001 error)."""
    from kvlint.launches import read_path

    path = tmp_path / "h100_eagle3_vllm"
    path.write_text("# VLLM Server\nVLLM_ATTENTION_BACKEND=FLASH_ATTN vllm serve \"Qwen/Qwen3-8B\" --max-model-len 8192 "
                    "--speculative-config '{\"model\": \"org/draft\", \"num_speculative_tokens\": 3}' &> s.log &\n")
    result = read_path(str(path))
    assert [(d.model, d.get("max_model_len")) for d in result.deployments] == [("Qwen/Qwen3-8B", 8192)]
    assert result.findings == []


def test_a_web_front_ends_component_is_read_as_code(tmp_path):
    """Sample K180's launcher UI (`ModelServices.vue`, silent: not walked; given by name it was read as YAML, a wrong
    KV001): a Vue, Svelte, TSX or JSX file is code, its command strings read at their places."""
    from kvlint.launches import iter_files, read_path
    from kvlint.launches.kinds import kind_for

    assert {kind_for(f"a{s}").name for s in (".vue", ".svelte", ".tsx", ".jsx")} == {"program"}
    p = tmp_path / "Services.vue"
    p.write_text("<script setup>\nconst cmd = `nohup vllm serve ${modelPath || 'org/vue'} --port 8000 &`\n</script>\n"
                 "<template>\n  <div>{{ cmd }}</div>\n</template>\n")
    result = read_path(str(p))
    assert [f.code for f in result.findings if f.severity.name == "ERROR"] == [] and len(result.deployments) == 1
    assert [q for q, why in iter_files([str(tmp_path)]) if why is None] == [str(p)]
