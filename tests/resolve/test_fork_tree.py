"""A repository's own engine tree (kvlint.resolve.fork): found from the file's folder up to the project root only,
read no further than its cap, and its option strings as the parser spells them."""

from __future__ import annotations

from kvlint.resolve import fork
from kvlint.resolve.fork import EngineTree, engine_tree

MARKERS = ("python/sglang/srt/server_args.py", "sglang/srt/server_args.py")


def _tree(tmp_path, marker=MARKERS[0], text='parser.add_argument("--enable-kvstore")\n'):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    parser = root / marker
    parser.parent.mkdir(parents=True)
    parser.write_text(text)
    (root / "deploy" / "k8s").mkdir(parents=True)
    return root


def test_found_from_a_subfolder_and_named_relative_to_the_root(tmp_path):
    root = _tree(tmp_path)
    tree = engine_tree(str(root / "deploy" / "k8s" / "a.yaml"), MARKERS)
    assert tree == EngineTree("python/sglang/srt/server_args.py", frozenset({"--enable-kvstore"}))
    assert tree.defines("--enable-kvstore") and tree.defines("--enable_kvstore") and not tree.defines("--enable")
    assert engine_tree(str(root / "a.sh"), MARKERS) == tree  # the root's own file


def test_the_second_marker_and_the_first_one_found_upwards(tmp_path):
    root = _tree(tmp_path, MARKERS[1], "p.add_argument('--a-b')\nx = \"--c_d\"\ny = '--'\nz = '-e'\n")
    tree = engine_tree(str(root / "deploy" / "a.yaml"), MARKERS)
    assert tree is not None and tree.parser == MARKERS[1] and tree.options == {"--a-b", "--c_d"}
    nearer = root / "deploy" / MARKERS[1]
    nearer.parent.mkdir(parents=True)
    nearer.write_text('"--near"')
    fork._search.cache_clear()
    assert engine_tree(str(root / "deploy" / "k8s" / "a.yaml"), MARKERS).parser == "deploy/" + MARKERS[1]


def test_nothing_above_the_root_nothing_for_stdin_or_no_markers(tmp_path):
    root = _tree(tmp_path)
    inner = root / "sub"
    (inner / ".git").mkdir(parents=True)  # a repository inside: its own root, the outer tree is not its engine
    assert engine_tree(str(inner / "a.sh"), MARKERS) is None
    assert engine_tree("-", MARKERS) is None and engine_tree("", MARKERS) is None
    assert engine_tree(str(root / "a.sh"), ()) is None
    (root / MARKERS[0]).unlink()
    (root / MARKERS[0]).mkdir()  # a folder where the parser should be: not a file
    fork._search.cache_clear()
    assert engine_tree(str(root / "a.sh"), MARKERS) is None


def test_the_parser_is_read_up_to_its_cap(tmp_path, monkeypatch):
    pad = "#" * (fork.READ_CAP - len('"--first"\n'))
    root = _tree(tmp_path, text='"--first"\n' + pad + '"--late"\n')
    tree = engine_tree(str(root / "a.sh"), MARKERS)
    assert tree is not None and tree.options == {"--first"}
    monkeypatch.setattr(fork, "READ_CAP", fork.READ_CAP + 10)
    fork._search.cache_clear()
    assert engine_tree(str(root / "a.sh"), MARKERS).options == {"--first", "--late"}
    fork._search.cache_clear()


def test_a_project_that_installs_its_own_engine_command_owns_the_flags_it_adds(tmp_path):
    """Turn 37's K327 (vllm-project/agentic-stack): `[project.scripts] vllm = "agentic_api...:main"` puts the
    project's own `vllm` in front of the engine's; the flag its code adds by `add_argument` is placed there, the one
    it strips by other means (`--agentic-api`) at the console script's line. Without such a script, or for another
    engine's command, the unknown flag stays unknown."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "cli.py").write_text('p.add_argument("--gateway-port", type=int)\n')
    (root / "pyproject.toml").write_text('[project]\nname = "agentic-api"\n\n[project.scripts]\n'
                                         'agentic-api = "agentic_api.cli:main"\nvllm = "agentic_api.vllm_cli:main"\n')
    readme = str(root / "README.md")
    tree = engine_tree(readme, ("vllm/engine/arg_utils.py",), ("--agentic-api", "--gateway-port"), command="vllm")
    assert tree is not None and tree.added_at("--gateway-port") == ("src/cli.py", 1)
    assert tree.added_at("--agentic-api") == ("pyproject.toml", 6)
    assert engine_tree(readme, ("x",), ("--agentic-api",), command="sglang") is None
    (root / "pyproject.toml").write_text('[project.scripts]\nagentic-api = "agentic_api.cli:main"\n')
    fork._own_command.cache_clear()
    assert engine_tree(readme, ("x",), ("--agentic-api",), command="vllm") is None
    (root / "pyproject.toml").unlink()
    (root / "setup.py").write_text('setup(entry_points={"console_scripts": ["vllm=patched.cli:main"]})\n')
    fork._own_command.cache_clear()
    assert engine_tree(readme, ("x",), ("--agentic-api",), command="vllm").added_at("--agentic-api") == ("setup.py", 1)
