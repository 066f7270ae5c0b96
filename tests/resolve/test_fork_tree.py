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
