"""Shapes the turn-34 held-out samples showed kvlint passing over or misreading, each read by a mechanism, not a
case."""

from __future__ import annotations

from kvlint.launches import read_path


def _at(span):
    return (span.line, span.col) if span is not None else None


def test_a_program_path_joined_from_a_relative_path_names_its_last_part(tmp_path):
    """Sample K290: `[str(ROOT / ".venv-vllm/bin/vllm"), "serve", MODEL, ...]` run by `os.execv`: the path's last
    name is the program, however many folders the written part holds."""
    program = tmp_path / "serve_vllm.py"
    program.write_text(
        "import os\nfrom pathlib import Path\nROOT = Path(__file__).resolve().parents[1]\n"
        'MODEL = "Qwen/Qwen2.5-3B-Instruct"\n'
        'command = [str(ROOT / ".venv-vllm/bin/vllm"), "serve", MODEL, "--max-model-len", "2048"]\n'
        "os.execv(command[0], command)\n")
    (dep,) = read_path(str(program)).deployments
    assert (dep.engine, dep.model, dep.get("max_model_len")) == ("vllm", "Qwen/Qwen2.5-3B-Instruct", 2048)
    assert _at(dep.model_span) == (5, 56)  # the name, where the list uses it
    program.write_text(program.read_text().replace('".venv-vllm/bin/vllm"', '".venv-vllm/bin/"'))
    assert read_path(str(program)).deployments == []


def test_a_compose_script_folded_with_more_indented_lines_is_cut_where_bash_cuts_it(tmp_path):
    """Sample K290: `command: >` then `bash -c "python3 -m vllm...api_server` and more-indented option lines: YAML
    keeps those newlines, so bash runs the entry point alone. The launch is the engine as the shell starts it, the
    cut carried on it for KV012; at one indentation the lines fold into one command, with its model."""
    compose = tmp_path / "docker-compose.yml"
    body = ('services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: >\n'
            '      bash -c "python3 -m vllm.entrypoints.openai.api_server\n'
            '        --model $${MODEL:-Qwen/Qwen2.5-0.5B-Instruct}\n        --max-model-len 1024"\n')
    compose.write_text(body)
    (dep,) = read_path(str(compose)).deployments
    assert dep.model is None and dep.cut is not None and not dep.cut.joined and dep.cut.bare
    assert (dep.cut.comment.line, _at(dep.cut.words)) == (5, (6, 9))
    compose.write_text(body.replace("        --", "      --"))
    (dep,) = read_path(str(compose)).deployments
    assert (dep.model, dep.get("max_model_len"), dep.cut) == ("Qwen/Qwen2.5-0.5B-Instruct", 1024, None)
    assert _at(dep.model_span) == (6, 15)  # compose's `$$` is the shell's `$`: at the expression, as in a script


def test_a_shell_file_says_its_cut_once_and_its_launch_carries_none(tmp_path):
    """A script's reader says KV012 itself (once per cut, whatever reads the launch again); the rule says it for
    launches read from strings inside other files, so the script's launch leaves the record empty."""
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve Qwen/Qwen2.5-0.5B-Instruct\n  --max-model-len 4096\n")
    result = read_path(str(script))
    (dep,) = result.deployments
    assert dep.cut is None and dep.get("max_model_len") is None
    assert [(f.code, f.span.line) for f in result.findings if f.code == "KV012"] == [("KV012", 2)]
