"""Jinja templates of deployment files (`*.j2`, `*.jinja`, `*.jinja2`: Ansible's `template:` renders them) are read
as the file they render, their statements blanked (kvlint.sources.templates.blank_statements); samples K1 and K2
had a compose template and a systemd unit template the walk passed over."""

from __future__ import annotations

from kvlint.launches import iter_files, read_path
from kvlint.launches.kinds import walked
from kvlint.sources.templates import blank_statements
from tests.launches.test_docker_and_positional import FIX, _at


def test_a_compose_template_with_a_loop_and_if_else_branches_is_one_launch_and_no_duplicate_key():
    result = read_path(str(FIX / "jinja" / "docker-compose.yml.j2"))
    (dep,) = result.deployments
    assert (dep.engine_version, dep.model, _at(dep.model_span), dep.get("max_model_len")) == \
        ("0.10.1", "Qwen/Qwen2.5-7B-Instruct", (18, 9), 8192)
    assert not [f for f in result.findings if f.code == "KV001" and str(f.severity) == "error"]


def test_a_unit_template_keeps_a_flag_inside_an_if_and_no_jinja_in_a_flag_name():
    result = read_path(str(FIX / "jinja" / "vllm.service.j2"))
    (dep,) = result.deployments
    assert dep.model == "{{ vllm_model }}" and not dep.model_resolved
    assert dep.get("enable_prefix_caching") is True and "api_key" in dep.settings
    assert dep.unknown_flags == ()


def test_templates_are_walked_and_filtered_as_the_file_they_render(tmp_path):
    for name in ("docker-compose.yml.j2", "vllm.service.j2", "run.sh.jinja2", "index.html.j2"):
        (tmp_path / name).write_text("x\n")
    read = {p.rsplit("/", 1)[1] for p, why in iter_files([str(tmp_path)]) if why is None}
    assert read == {"docker-compose.yml.j2", "vllm.service.j2", "run.sh.jinja2"}
    assert walked("roles/vllm/templates/vllm.service.j2") and not walked("index.html.j2")


def test_blank_statements_keeps_every_place_and_blanks_else_branches():
    text = "a\n{% if x %}\nk: 1\n{% else %}\nk: 2\n{% endif %}\nm: {{ v }}{% if q %} --f{% endif %}\n{# c\n d #}e"
    out = blank_statements(text)
    assert len(out) == len(text) and out.count("\n") == text.count("\n")
    assert out.split("\n") == ["a", " " * 10, "k: 1", " " * 10, "    ", " " * 11,
                               "m: {{ v }}           --f           ", "    ", "     e"]


def test_an_unclosed_statement_is_left_as_written():
    assert blank_statements("a {% b\n{# c") == "a {% b\n{# c"


def test_a_template_under_a_yaml_name_is_read_as_the_template_not_invalid_yaml():
    """Jinja (`{% if %}`) and Terraform (`%{ if }`) directive lines in a `.yaml` file: read as the file rendered with
    each condition true (its launch, 2 GPUs), not an "invalid YAML" error; a YAML error elsewhere still is one."""
    result = read_path(str(FIX / "jinja" / "compose-under-yaml-name.yaml"))
    (dep,) = result.deployments
    assert (dep.model, _at(dep.model_span), dep.get("max_model_len"), dep.gpu_count) == \
        ("org/templated", (5, 22), 4096, 2)
    assert [f.code for f in result.findings if str(f.severity) == "error"] == []
    broken = read_path("b.yaml", "a: [1\n{% if x %}\nb: 2\n{% endif %}\n")
    assert [(f.code, str(f.severity)) for f in broken.findings] == [("KV001", "error")]
