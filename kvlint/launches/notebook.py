"""Jupyter notebooks: the engine started from a code cell.

A notebook starts a server with a shell line (`!vllm serve MODEL ... &`), a shell cell (`%%bash`, `%%sh`,
`%%script bash`) or Python (`subprocess.Popen(["vllm", "serve", ...])`), or tells its reader to start one in a
markdown cell's shell block (```` ``` ```` then `vllm serve MODEL ...`, as a runbook does: sample K148). Each
cell's source is joined from its JSON strings with every character mapped to its place in the .ipynb file (escapes
included), then read as what it is: shell lines and cells by `run_script`, the rest by the Python reader (its magics
and shell lines blanked), a markdown cell's blocks as a runbook's, so every value keeps the line and column of the
JSON text that holds it.
"""

from __future__ import annotations

from kvlint.deployment import Deployment
from kvlint.findings import Finding
from kvlint.launches import ReadResult
from kvlint.sources.text import Mapped
from kvlint.sources.yaml import YamlFile
from kvlint.span import Span

_WORDS = ("vllm", "sglang", "LLMConfig")
_SHELL_CELLS = ("%%bash", "%%sh", "%%script bash", "%%script sh", "%%system")
_MAX_CELLS = 5000


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.yaml import parse_yaml

    if not any(w in text for w in _WORDS):
        return ReadResult(path)
    yf = parse_yaml(path, text)
    cells = _code_cells(yf)[:_MAX_CELLS]
    module = _as_module(path, cells)
    deployments: list[Deployment] = list(module[0]) if module is not None else []
    findings: list[Finding] = list(module[1]) if module is not None else []
    for cell in cells:
        if not any(w in cell.text for w in _WORDS):
            continue
        deps, notes = _read_cell(path, cell, python=module is None)
        deployments += deps
        findings += notes
    for cell in _code_cells(yf, "markdown")[:_MAX_CELLS]:
        if any(w in cell.text for w in _WORDS):
            deployments += _read_blocks(path, cell)
    deployments.sort(key=lambda d: (d.launch_span.line, d.launch_span.col) if d.launch_span else (0, 0))
    if not deployments and not findings:
        findings = _passed_over(path, _code_cells(yf))
    return ReadResult(path, deployments, findings)


def _passed_over(path: str, cells: list[Mapped]) -> list[Finding]:
    """Never silent: the KV008 of the first code cell that names an engine entry point (a markdown cell is prose,
    and kvlint.launches.named does not look at a notebook's JSON), at its place in the file."""
    from kvlint.launches.named import passed_over
    from kvlint.record import replace
    from kvlint.sources.text import LineIndex
    from kvlint.span import Span

    for cell in cells:
        found = passed_over(path, cell.text.replace("\n!", "\n ").removeprefix("!"), "python")
        if found is None or found.span is None:
            continue
        index = LineIndex(cell.text)
        start = index.offset(found.span.line, found.span.col)
        line, col = cell.at(start)
        end_line, end_col = cell.at(start + max(0, found.span.end_col - found.span.col - 1))
        return [replace(found, span=Span(path, line, col, end_line, end_col + 1))]
    return []


def _read_blocks(path: str, cell: Mapped) -> list[Deployment]:
    """The launches of a markdown cell, read as a Markdown document is (fenced blocks, and a command pasted as a
    paragraph of its own: sample K374's cell that is just `python -m vllm.entrypoints.openai.api_server --model
    M ...` above the client's cells), each value put back at its place in the file."""
    from kvlint.launches import markdown
    from kvlint.launches.terraform_helm import remap_spans
    from kvlint.sources.text import LineIndex

    found = markdown.read(path, cell.text).deployments
    if not found:
        return []
    own = LineIndex(cell.text)

    def move(span: Span) -> Span:
        if span.path != path:
            return span
        first = own.offset(span.line, span.col)
        return cell.span(first, max(own.offset(span.end_line, span.end_col), first))

    moved: list[Deployment] = remap_spans(found, move)
    return moved


def _code_cells(yf: YamlFile, kind_wanted: str = "code") -> list[Mapped]:
    """Each code cell's source (or each cell of `kind_wanted`) as one text, every character at its place in the
    file."""
    doc = yf.docs[0] if yf.docs else None
    cells = doc.get("cells") if doc is not None and doc.is_map else None
    out = []
    for cell in cells.items if cells is not None and cells.is_seq else ():
        kind = cell.get("cell_type") if cell.is_map else None
        source = cell.get("source") if cell.is_map else None
        if kind is None or kind.text != kind_wanted or source is None:
            continue
        parts = [yf.mapped(n) for n in (source.items if source.is_seq else [source]) if n.is_scalar]
        if parts:
            out.append(_joined(yf, parts))
    return out


def _joined(yf: YamlFile, parts: list[Mapped]) -> Mapped:
    text = "".join(p.text for p in parts)
    offsets: list[int] = []
    for p in parts:
        offsets += [p.offsets[i] if p.offsets is not None else 0 for i in range(len(p.text))]
    offsets.append(offsets[-1] + 1 if offsets else 0)
    return Mapped(parts[0].path, text, index=yf.index, offsets=offsets)


def _as_module(path: str, cells: list[Mapped]) -> tuple[list[Deployment], list[Finding]] | None:
    """The launches of the notebook's Python read as one module, as the kernel runs it: a function that starts the
    server in one cell and is called with the model in others (sample K405: `start_server(MODEL, ...)` from three
    cells, three launches). Shell lines, magics and cell magics are blanked; every character keeps its place in the
    file. None when the cells give nothing read as one module (they do not parse as one, or hold no launch): then
    each cell is read alone, as before."""
    import re

    from kvlint.launches.pyfile import read_python

    if not cells or not any(w in cell.text for cell in cells for w in _WORDS):
        return None
    texts: list[str] = []
    pythons: list[str] = []
    offsets: list[int] = []
    for cell in cells:
        if cell.offsets is None or len(cell.offsets) < len(cell.text):
            return None
        texts.append(cell.text)
        magic = cell.text.lstrip().startswith("%%")
        pythons.append(re.sub(r"[^\n]", " ", cell.text) if magic else split_cell(cell.text)[1])
        offsets += cell.offsets[: len(cell.text)]
        offsets.append(offsets[-1] if offsets else 0)  # the newline between two cells: at the first one's end
    whole = Mapped(path, "\n".join(texts), index=cells[0].index, offsets=offsets)
    found, notes = read_python(path, "\n".join(pythons), within=whole)  # ([], []) when it does not parse
    return (found, notes) if found or notes else None


def _read_cell(path: str, cell: Mapped, python: bool = True) -> tuple[list[Deployment], list[Finding]]:
    """One cell's launches: its shell lines and cells, its written files, and (`python`) its Python."""
    from kvlint.launches.pyfile import read_python
    from kvlint.launches.shellfile import read_shell_mapped

    lines = cell.text.split("\n")
    head = lines[0].strip()
    if head.startswith("%%writefile"):
        return _written_file(path, cell, head), []
    if head.startswith(_SHELL_CELLS):
        start = len(lines[0]) + 1
        return read_shell_mapped(path, cell.view(path, cell.text[start:], range(start, len(cell.text) + 1))), []
    shell, code = split_cell(cell.text)
    deployments: list[Deployment] = []
    if shell.strip():
        deployments += read_shell_mapped(path, cell.view(path, shell, range(len(shell) + 1)))
    if not python:
        return deployments, []
    deps, notes = read_python(path, code, within=cell)
    return deployments + deps, notes


def _written_file(path: str, cell: Mapped, head: str) -> list[Deployment]:
    """A `%%writefile Dockerfile` (or `serve.sh`, `deployment.yaml`) cell: the file the notebook writes and then
    builds or applies (sample K150: a Dockerfile whose ENTRYPOINT starts vLLM), read by its name's reader, each value
    moved to its place in the .ipynb."""
    from kvlint.launches.kinds import kind_for, reader_of
    from kvlint.launches.terraform_helm import placed_back

    words = head.split()
    name = words[-1] if len(words) > 1 else ""
    kind = kind_for(name) if name and not name.startswith("-") else None
    if kind is None or kind.name in ("notebook", "notes", "markdown"):
        return []
    start = cell.text.find("\n") + 1
    if start <= 0:
        return []
    body = cell.view(path, cell.text[start:], range(start, len(cell.text) + 1))
    return placed_back(reader_of(kind)(path, body.text, None).deployments, body, path)


def split_cell(text: str) -> tuple[str, str]:
    """(the shell lines `!cmd`, the Python), each as long as `text` with the other's characters blanked (spaces: a
    blank line to Python), so an offset in either is the same offset in the cell."""
    shell, python = [], []
    continued = False  # the shell line before ends in `\`: this line is still the shell's (`!vllm serve M \`)
    for line in text.split("\n"):
        stripped = line.lstrip()
        blank = " " * len(line)
        if continued:
            shell.append(line)
            python.append(blank)
        elif stripped.startswith("!"):
            shell.append(" " * (len(line) - len(stripped) + 1) + stripped[1:])
            python.append(blank)
        elif stripped.startswith("%"):
            shell.append(blank)
            python.append(blank)
        else:
            shell.append(blank)
            python.append(line)
        continued = shell[-1].rstrip().endswith("\\") and shell[-1].strip() != ""
    return "\n".join(shell), "\n".join(python)
