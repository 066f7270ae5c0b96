"""The path a machine format prints: relative, normalised, `/`-separated, never `./x`.

Why: `kvlint check .` (the Action's default) finds `./k8s/x.yaml`, and GitHub does not attach an annotation
for `file=./k8s/x.yaml` to the pull request's diff; SARIF's code scanning and GitLab's widget match paths
the same way. GitHub and GitLab read paths from the repository root (GITHUB_WORKSPACE, CI_PROJECT_DIR),
which is not the working directory when a step runs in a subfolder; the other formats are read by whoever
ran kvlint, from where they ran it.
"""

from __future__ import annotations

import os

# the environment variable naming the repository root, per format that reads paths from it
ROOTS = {"github": "GITHUB_WORKSPACE", "gitlab": "CI_PROJECT_DIR"}


def report_path(path: str, fmt: str | None = None) -> str:
    """`path` relative to the repository root of `fmt` (when its variable is set) or to the working
    directory; a path outside that root stays absolute. `-` (stdin) and "" are kept as they are."""
    if not path or path == "-":
        return path
    root = os.environ.get(ROOTS.get(fmt or "", ""), "") if fmt in ROOTS else ""
    if root or os.path.isabs(path):
        full = os.path.abspath(path)
        rel = os.path.relpath(full, os.path.abspath(root or os.curdir))
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            return full.replace(os.sep, "/")
        return rel.replace(os.sep, "/")
    return os.path.normpath(path).replace(os.sep, "/")
