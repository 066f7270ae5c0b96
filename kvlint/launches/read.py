"""One file in, ReadResult out: choose the reader by name and content, turn problems into KV001."""

from __future__ import annotations

import re
from collections.abc import Mapping

from kvlint.findings import Finding, Severity
from kvlint.launches import ReadResult
from kvlint.launches.discover import kind_of
from kvlint.launches.env import supplying
from kvlint.lazyre import lazy
from kvlint.limits import LimitExceeded, file_limits
from kvlint.sources.comments import scan_comments
from kvlint.sources.text import SourceError, decode, read_file, read_stdin
from kvlint.span import Span

KV001 = ("KV001", "unreadable-input")
# Every launch kvlint reads is written with one of these words: an engine's name (command, module, image),
# a model key or flag (`--model`, `model:`, `modelName`, `--max-model-len`), a KAITO Workspace (a preset
# name is its model), a GPU request, the stem of a sizing flag (a vLLM --config file of flags alone:
# `tensor-parallel-size`, `gpu-memory-utilization`, `max-num-seqs`, `kv-cache-dtype`, SGLang's
# `mem-fraction-static`, `context-length`) or a kvlint directive. A file with none of them cannot hold a
# launch and costs one scan instead of a parse (in a monorepo most YAML files are not deployments).
MAY_LAUNCH = lazy(r"vllm|sglang|model|kaito|kvlint|gpu|parallel|kv[-_]cache|max[-_]num|mem[-_]fraction|"
                        r"context[-_]length", re.IGNORECASE)


def may_hold_launch(text: str) -> bool:
    """False for a text no launch can be in: `kvlint check` then skips the parse (`inspect` still parses)."""
    return MAY_LAUNCH.search(text) is not None


def kv001(path: str, message: str, line: int | None = None, col: int | None = None,
          severity: Severity = Severity.ERROR) -> Finding:
    span = Span(path, line, col or 1, line, (col or 1) + 1) if line else None
    return Finding(KV001[0], KV001[1], severity, message, span, path=path)


def read_one(path: str, text: str | None = None, variables: Mapping[str, str] | None = None,
             as_vllm_config: bool | None = None) -> ReadResult:
    """One file within kvlint.limits' per-file budget: running out of it is a KV001 for this file only."""
    with file_limits():
        try:
            return _read_one(path, text, variables, as_vllm_config)
        except LimitExceeded as exc:
            return ReadResult(path, findings=[kv001(path, exc.reason)])


def _read_one(path: str, text: str | None, variables: Mapping[str, str] | None,
              as_vllm_config: bool | None) -> ReadResult:
    try:
        if text is None:
            text = _load(path)
    except SourceError as exc:
        return ReadResult(path, findings=[kv001(path, exc.reason, exc.line, exc.col)])
    # CRLF and a BOM change no line number and no column an editor shows
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    try:
        if variables is None:  # a nested read (a --config file) keeps the variables of the read around it
            return _dispatch(path, text, as_vllm_config)
        with supplying(variables):
            return _dispatch(path, text, as_vllm_config)
    except (RecursionError, MemoryError) as exc:  # never a traceback for input, whatever it is
        why = f"input too deeply nested or too large to read ({type(exc).__name__})"
        return ReadResult(path, findings=[kv001(path, why)])


def _load(path: str) -> str:
    if path == "-":
        return decode(read_stdin())
    return read_file(path)


def _dispatch(path: str, text: str, as_vllm_config: bool | None = None) -> ReadResult:
    if not text.strip():
        return ReadResult(path, skipped="empty file")
    kind = kind_of(path) or _sniff(text)
    if kind == "shell":
        from kvlint.launches.shellfile import read_shell

        return ReadResult(path, read_shell(path, text), comments=scan_comments(text))
    if kind == "dockerfile":
        from kvlint.launches.dockerfile import read_dockerfile

        return ReadResult(path, read_dockerfile(path, text), comments=scan_comments(text))
    return _read_yaml(path, text, as_vllm_config)


def _sniff(text: str) -> str:
    head = text.lstrip()[:200]
    if head.startswith("#!") or head.startswith(("vllm ", "python", "sglang ", "docker run", "export ")):
        return "shell"
    if head.upper().startswith(("FROM ", "ARG ")):
        return "dockerfile"
    return "yaml"


def _read_yaml(path: str, text: str, as_vllm_config: bool | None = None) -> ReadResult:
    from kvlint.launches.yamlfile import deployments_in
    from kvlint.sources.yaml import parse_yaml

    yf = parse_yaml(path, text)
    if "{{" in text:
        from kvlint.launches.helm_chart import chart_of, parse_template, resolve_template

        chart = chart_of(path)
        if chart is not None:
            yf = resolve_template(yf if yf.templated is not None else parse_template(path, text), chart)
    findings = [kv001(path, p.message, p.line, p.col, Severity.INFO if p.severity == "info" else Severity.ERROR)
                for p in yf.problems]
    deployments, notes = deployments_in(yf, as_vllm_config)
    findings.extend(n if isinstance(n, Finding) else kv001(path, n, None, None, Severity.INFO) for n in notes)
    return ReadResult(path, deployments, findings, yf.comments)


__all__ = ["kv001", "may_hold_launch", "read_one"]
