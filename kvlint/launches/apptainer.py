"""Apptainer (Singularity) definition files: a header (`Bootstrap: docker`, `From: IMAGE`) and `%sections`, of which
only the scripts are shell (`%post` builds, `%runscript` / `%startscript` run, `%test`, `%setup`, `%environment`);
`%help`, `%labels` and `%files` are text. A `%help` example (`$ apptainer exec ... vllm serve <model_name>`) is
documentation, not a launch (sample K87: a Slurm job writing the definition with a here-document). The file, or a
here-document's body, is read as shell with every other line blanked, so each value keeps its line."""

from __future__ import annotations

from kvlint.launches import ReadResult
from kvlint.lazyre import lazy

_HEADER = lazy(r"(?i)^\s*bootstrap\s*:")
_SECTION = lazy(r"^%([A-Za-z]+)")
_SHELL = frozenset({"post", "runscript", "startscript", "test", "setup", "environment", "pre", "appinstall",
                    "apprun", "appenv", "appstart"})


def is_definition(text: str) -> bool:
    """Whether the text is a definition: its first line that is not blank or a comment is `Bootstrap: ...`."""
    for line in text.split("\n", 40)[:40]:
        if line.strip() and not line.lstrip().startswith("#"):
            return _HEADER.match(line) is not None
    return False


def shell_only(text: str) -> str:
    """The definition with the header and every section that is not a script blanked (newlines kept)."""
    out, shell = [], False
    for line in text.split("\n"):
        m = _SECTION.match(line)
        if m is not None:
            shell = m.group(1).lower() in _SHELL
            out.append("")
            continue
        out.append(line if shell else "")
    return "\n".join(out)


def read(path: str, text: str, as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds): a definition's script sections, read as a script; a
    `.def` file that is not a definition (a module-definition file) holds nothing."""
    from kvlint.launches import shellfile

    if not is_definition(text):
        return ReadResult(path)
    return shellfile.read(path, shell_only(text), as_vllm_config)
