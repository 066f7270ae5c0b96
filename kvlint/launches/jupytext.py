"""The Markdown cells of a Python file kept in Jupytext's percent or light format (a notebook saved as `.py`): the
commands of their code blocks, read as a notebook's markdown cells are (kvlint.launches.notebook).

Sample K349's Docling example opens with a `# %% [markdown]` cell whose ```` ```console ```` block starts the
server (`# vllm serve ibm-granite/granite-docling-258M \\` ...): every line a comment to Python, so the program's
reader never saw it. A cell runs from its `# %% [markdown]` (or `# + [markdown]`) line to the next cell marker;
each of its lines loses its comment mark (`#` and one blank become blanks), every other line is blanked, so every
value keeps its line and column. The text is then read as a runbook's code blocks: prose is never read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvlint.lazyre import lazy

if TYPE_CHECKING:
    from kvlint.deployment import Deployment

_MARKDOWN_CELL = lazy(r"(?m)^#[ \t]*(?:%%|\+)[ \t]*\[(?:markdown|md)\]")
# a cell's first line (`# %%`, `# %% [markdown]`, the light format's `# +`) or the light format's cell end (`# -` alone:
# a list item's `# - text` is a Markdown line)
_CELL = lazy(r"^#[ \t]*(?:(?:%%|\+)(?:[ \t]|$)|-[ \t]*$)")


def markdown_cells(text: str) -> str | None:
    """The text with only its Markdown cells' lines kept, uncommented in place (None when it has no such cell)."""
    if _MARKDOWN_CELL.search(text) is None:
        return None
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        if _CELL.match(line):
            inside = _MARKDOWN_CELL.match(line) is not None
            out.append(" " * len(line))
        elif inside and line.startswith("#"):
            out.append("  " + line[2:] if line.startswith("# ") else " " + line[1:])
        else:
            out.append(" " * len(line))
    return "\n".join(out)


def cell_launches(path: str, text: str) -> list[Deployment]:
    """The launches of the Markdown cells' shell blocks, each value at its place in the file."""
    from kvlint.launches.markdown import NOTE, shell_blocks
    from kvlint.launches.shellfile import read_shell_mapped
    from kvlint.record import replace
    from kvlint.sources.text import Mapped

    cells = markdown_cells(text)
    script = shell_blocks(cells) if cells is not None else ""
    if not script.strip():
        return []
    found = read_shell_mapped(path, Mapped.whole(path, script))
    return [replace(d, notes=(*d.notes, NOTE)) for d in found]
