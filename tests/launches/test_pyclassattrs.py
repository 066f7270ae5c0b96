"""kvlint.launches.pyclassattrs: a method's command reads the class attributes its `self.NAME`s see, and each class
of the file a platform's decorator deploys is a launch of its own (sample K102: fourteen Modal classes)."""

from __future__ import annotations

from kvlint.launches import read_path
from tests.launches.test_docker_and_positional import FIX, _at


def test_each_deployed_subclass_is_a_launch_with_its_own_attributes_and_gpu():
    deps = read_path(str(FIX / "python" / "modal_variants.py")).deployments
    got = [(d.model, _at(d.model_span), d.get("tensor_parallel_size"), d.gpu, d.gpu_count) for d in deps]
    assert sorted(got) == [("Qwen/Qwen2.5-32B-Instruct", (34, 14), 2, "A100-80GB", 2),
                           ("Qwen/Qwen2.5-7B-Instruct", (15, 19), 1, "H100", 1)]
    assert all(any("as class" in n for n in d.notes) for d in deps)


def test_a_class_attribute_is_the_value_of_self_name_in_its_method(tmp_path):
    path = tmp_path / "server.py"
    path.write_text("import subprocess\n\nclass Server:\n    model = 'org/m'\n    port: int = 8001\n\n"
                    "    def start(self):\n"
                    "        subprocess.Popen(['vllm', 'serve', self.model, '--port', str(self.port)])\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.model, _at(dep.model_span), dep.get("port")) == ("org/m", (4, 14), 8001)


def test_identical_commands_of_several_deployed_classes_are_one_launch_each(tmp_path):
    """The variants differ only where kvlint does not read (an `if self.draft:` addition): still a deployment each,
    each booking its own GPUs."""
    path = tmp_path / "app.py"
    path.write_text("import subprocess, modal\napp = modal.App()\n\nclass Base:\n    draft = ''\n\n"
                    "    def serve(self):\n        cmd = ['vllm', 'serve', 'org/m']\n"
                    "        if self.draft:\n            cmd += ['--speculative-config', self.draft]\n"
                    "        subprocess.Popen(cmd)\n\n"
                    "@app.cls(gpu='H100')\nclass Plain(Base):\n    pass\n\n"
                    "@app.cls(gpu='H100')\nclass Eagle(Base):\n    draft = '{}'\n")
    assert [d.model for d in read_path(str(path)).deployments] == ["org/m", "org/m"]


def test_a_class_no_decorator_deploys_keeps_its_one_launch(tmp_path):
    path = tmp_path / "server.py"
    path.write_text("import subprocess\n\nclass Base:\n    model = 'org/a'\n\n    def start(self):\n"
                    "        subprocess.Popen(['vllm', 'serve', self.model])\n\nclass Other(Base):\n    model = 'org/b'\n")
    assert [d.model for d in read_path(str(path)).deployments] == ["org/a"]


def test_a_decorator_gpu_given_by_a_constant_or_an_f_string_of_constants_is_read(tmp_path):
    path = tmp_path / "app.py"
    path.write_text("import modal, subprocess\napp = modal.App()\nGPU = 'L40S'\nN = 4\n\n"
                    "@app.function(gpu=f'{GPU}:{N}')\n"
                    "def serve():\n    subprocess.Popen(['vllm', 'serve', 'org/m', '-tp', '4'])\n")
    (dep,) = read_path(str(path)).deployments
    assert (dep.gpu, dep.gpu_count, _at(dep.gpu_span)) == ("L40S", 4, (6, 19))


def test_a_decorator_gpu_with_an_unknown_part_is_no_gpu(tmp_path):
    path = tmp_path / "app.py"
    path.write_text("import modal, subprocess, os\napp = modal.App()\n\n"
                    "@app.function(gpu=f'{os.environ[\"GPU\"]}:2')\n"
                    "def serve():\n    subprocess.Popen(['vllm', 'serve', 'org/m'])\n")
    (dep,) = read_path(str(path)).deployments
    assert dep.gpu is None
