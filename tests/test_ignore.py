"""gitignore patterns as git matches them (kvlint.ignore), checked against git itself on a temporary repository:
`git ls-files --others --exclude-standard` lists what git does not ignore, and a walk with kvlint's rules must
list the same files. Also the configuration's globs (`*` within a folder, `**` across) and a 1,000-file walk's
work, counted in regex searches."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from kvlint.ignore import Ignores, glob_match, parse_line, translate

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")

FILES = [
    "a.yaml", "a.log", "abc.yaml", "axc.yaml", "a/c.yaml", "xz.yaml", "qz.yaml", "qq.yaml", "zq.yaml",
    "top-only.yaml", "sub/top-only.yaml", "build/x.yaml", "sub/build/y.yaml", "build.yaml",
    "k8s/x.yaml", "k8s/keep.yaml", "k8s/sub/x.yaml", "docs/gen/x.yaml", "docs/a/b/gen/y.yaml", "docs/gen.yaml",
    "cache/x.sh", "deep/cache/y.sh", "trailing.yaml", "#hash.yaml", "!bang.yaml", "sp ace.yaml",
    "deep/one.yaml", "deep/two/three.yaml", "sub/a.yaml", "sub/keep-1.yaml", "sub/anchored.sh",
    "sub/x/anchored.sh", "sub/nested/n.yaml", "sub/x/nested/n.sh", "sub/inner/i.yaml", "sub/inner/j.sh",
    "Dockerfile", "x/Dockerfile.dev", "weird[1].yaml", "q/r/s/t.yaml",
]
IGNORES = {
    ".gitignore": "# comment\n*.log\nbuild/\n/top-only.yaml\nk8s/*.yaml\n!k8s/keep.yaml\ndocs/**/gen\n"
                  "**/cache\na?c.yaml\n[xy]z.yaml\n[!q]q.yaml\ntrailing.yaml   \n\\#hash.yaml\n\\!bang.yaml\n"
                  "sp\\ ace.yaml\ndeep/**\n!deep/one.yaml\nx/Dockerfile*\nweird\\[1].yaml\nq/**/t.yaml\n",
    "sub/.gitignore": "*.yaml\n!keep-*.yaml\n/anchored.sh\nnested/\n",
    "sub/inner/.gitignore": "!*.yaml\n",
}


def _git_repo(root: Path, files: list[str], ignores: dict[str, str]) -> None:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    for name, text in ignores.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    _git(root, "init", "-q")


def _git(root: Path, *args: str) -> str:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run([GIT or "git", "-C", str(root), *args], capture_output=True, text=True, env=env,
                          check=True, timeout=60).stdout


def _gits_files(root: Path) -> set[str]:
    return {line for line in _git(root, "ls-files", "--others", "--exclude-standard").splitlines()
            if not line.endswith(".gitignore")}


def _our_files(root: Path) -> set[str]:
    """Every file a walk with kvlint's rules keeps (ignored folders are not entered, as git does not)."""
    out: set[str] = set()
    top = str(root.resolve()).replace(os.sep, "/")

    def walk(folder: str, rules: Ignores) -> None:
        names = frozenset(os.listdir(folder))
        rules = rules.entering(folder, names)
        for name in names - {".git", ".gitignore"}:
            path = f"{folder}/{name}"
            is_dir = os.path.isdir(path)
            if rules.ignored(path, is_dir):
                continue
            walk(path, rules) if is_dir else out.add(path[len(top) + 1:])

    walk(top, Ignores.above(top))
    return out


@needs_git
def test_the_walk_keeps_what_git_keeps(tmp_path):
    _git_repo(tmp_path, FILES, IGNORES)
    git = _gits_files(tmp_path)
    assert "k8s/keep.yaml" in git and "sub/inner/i.yaml" in git and "k8s/sub/x.yaml" in git  # the cases
    assert _our_files(tmp_path) == git


PIECES = ["a", "b", "*", "**", "?", "[ab]", "[!a]", "/", ".yaml", "x", "-"]
NAMES = ["a", "b", "ab", "ba", "x", "a.yaml", "b.yaml", "ab.yaml", "x-a", "bb"]


@needs_git
def test_random_patterns_match_as_git_matches_them(tmp_path):
    """One pattern at a time (negations included) over a fixed tree: 80 patterns drawn from pieces that
    exercise `*`, `**`, `?`, classes and anchoring."""
    rng = random.Random(20261202)
    files = sorted({"/".join(rng.choice(NAMES) for _ in range(rng.randint(1, 4))) for _ in range(60)})
    files = [f for f in files if not any(g.startswith(f + "/") for g in files)]  # a name is a file or a folder
    _git_repo(tmp_path, files, {})
    for _ in range(80):
        pattern = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 5))).replace("//", "/")
        lines = f"{pattern}\n" if rng.random() < 0.7 else f"*\n!{pattern}\n"
        (tmp_path / ".gitignore").write_text(lines, encoding="utf-8")
        assert _our_files(tmp_path) == _gits_files(tmp_path), f"pattern {lines!r}"


@pytest.mark.parametrize(("rel", "glob", "hit"), [
    ("k8s/x.yaml", "k8s/*.yaml", True),
    ("k8s/sub/x.yaml", "k8s/*.yaml", False),  # fnmatch's `*` crossed the slash
    ("k8s/sub/x.yaml", "k8s/**/*.yaml", True),
    ("k8s/x.yaml", "k8s/**/*.yaml", True),
    ("deploy/edge/a/b.yaml", "deploy/edge/**", True),
    ("vendor/x/y.yaml", "vendor", True),
    ("vendor/x/y.yaml", "vendor/", True),
    ("a/vendor/y.yaml", "vendor", True),  # a slash-free pattern: a name at any depth
    ("a/vendor/y.yaml", "/vendor", False),
    ("charts/c/templates/d.yaml", "charts/*/templates/*", True),
    ("charts/c/d/templates/d.yaml", "charts/*/templates/*", False),
    ("x.yml", "*.yaml", False),
    ("", "*.yaml", False),
])
def test_configuration_globs(rel, glob, hit):
    assert glob_match(rel, glob) is hit


def test_lines_that_are_not_patterns():
    assert parse_line("# a comment") is None and parse_line("") is None and parse_line("   ") is None
    assert parse_line("!build/").negated and parse_line("!build/").dir_only
    assert translate("a[") == r"^(?:.*/)?a\[$"


def test_a_1000_file_walk_searches_each_name_once_per_ignore_file(tmp_path, monkeypatch):
    """Work, not time: one alternation search per walked name and .gitignore; the pattern list is scanned
    only for the names the alternation hits."""
    from kvlint.ignore import IgnoreFile
    from kvlint.launches.discover import iter_files

    for i in range(50):
        folder = tmp_path / f"d{i:02}"
        folder.mkdir()
        for j in range(20):
            (folder / f"f{j:02}.yaml").write_text("a: 1\n", encoding="utf-8")
    (tmp_path / "d00" / "build").mkdir()
    (tmp_path / ".gitignore").write_text("".join(f"*.out{k}\n" for k in range(40)) + "d01/\nf19.yaml\n",
                                         encoding="utf-8")
    calls = {"decide": 0}
    original = IgnoreFile.decide

    def counted(self, path, is_dir):
        calls["decide"] += 1
        return original(self, path, is_dir)

    monkeypatch.setattr(IgnoreFile, "decide", counted)
    walked = [p for p, why in iter_files([str(tmp_path)]) if why is None]
    assert len(walked) == 49 * 19  # d01 ignored, f19.yaml ignored everywhere
    assert calls["decide"] == 50 + 2 + 49 * 20  # the folders, .gitignore, d00/build, the 49 entered folders' files
