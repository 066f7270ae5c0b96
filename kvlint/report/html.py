"""One self-contained HTML file: a card per launch, for a reviewer who would rather look than read.

Each card shows the launch's memory picture and its concurrency-versus-context curve (kvlint.report.svg,
inline), the numbers behind them, and the findings about that launch with their code frames; a
launch kvlint could not size says why. Nothing is fetched: the CSS is inline, the pictures are inline
SVG, there are no scripts, fonts or links off the page, so the file works as a CI artifact opened
from disk. Severity, estimates and the tenants are spelled out in text, never carried by colour alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import TYPE_CHECKING

from kvlint import __version__
from kvlint.findings import Finding, Severity
from kvlint.report import svg
from kvlint.report.text import frame, notes, plural
from kvlint.status import EVALUATED, LaunchStatus

if TYPE_CHECKING:
    from kvlint.lint import LintResult

CSS = """
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d0d7de; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: var(--ink); background: #f6f8fa; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; word-break: break-all; }
h3 { font-size: 15px; margin: 0 0 2px; }
.summary, .where, .muted { color: var(--muted); }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin: 12px 0;
        max-width: 1120px; }
.pictures { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 12px; margin: 12px 0; }
.pictures > svg, .pictures > .memory { flex: 1 1 420px; max-width: 640px; }
.pictures svg { width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
dl.numbers { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; font-size: 13px; }
dl.numbers dt { color: var(--muted); } dl.numbers dd { margin: 0; font-variant-numeric: tabular-nums; }
.skipped { border-left: 4px solid #9a6700; padding: 4px 10px; background: #fff8c5; }
ol.findings { list-style: none; padding: 0; margin: 8px 0 0; }
.finding { border-left: 4px solid var(--line); padding: 6px 10px; margin: 8px 0; background: #fafbfc; }
.finding.error { border-left-color: #cf222e; } .finding.warning { border-left-color: #9a6700; }
.finding.info { border-left-color: #0969da; }
.sev { display: inline-block; font-weight: 700; text-transform: uppercase; font-size: 11px; padding: 0 6px;
       border: 1px solid currentColor; border-radius: 10px; margin-right: 6px; }
.error .sev { color: #cf222e; } .warning .sev { color: #9a6700; } .info .sev { color: #0969da; }
pre.frame { background: #fff; border: 1px solid var(--line); padding: 6px 8px; overflow-x: auto; margin: 6px 0;
            font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
ul.extra { margin: 4px 0; padding-left: 18px; color: var(--muted); }
table { border-collapse: collapse; background: #fff; max-width: 1120px; width: 100%; }
th, td { text-align: left; border-bottom: 1px solid var(--line); padding: 4px 8px; vertical-align: top; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
@media print { body { background: #fff; } .card { break-inside: avoid; } }
"""


def render(result: LintResult, *, color: bool = False) -> str:
    launches: list[LaunchStatus] = list(result.launches)
    owners = _owners(result, launches)
    by_file = _files(result, launches)
    body = [_header(result, launches), _index(launches, owners, result)]
    for path in by_file:
        body.append(_file_section(path, result, launches, owners))
    body += [_unreadable(result.unreadable), _notes(result.notes),
             f'<footer class="muted"><p>kvlint {escape(__version__)}</p></footer>']
    title = f"kvlint report: {plural(len(result.findings), 'finding')} in {plural(len(result.files), 'file')}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body>\n"
            + "\n".join(b for b in body if b) + "\n</body></html>\n")


def _path(f: Finding) -> str:
    return f.span.path if f.span else f.path


def _owners(result: LintResult, launches: list[LaunchStatus]) -> dict[Finding, int]:
    """Finding -> index of the launch it is about (lint records each rule finding's deployment)."""
    index: dict[tuple, int] = {}
    for i, s in enumerate(launches):
        index.setdefault((s.path, s.span, s.name), i)
    out: dict[Finding, int] = {}
    for f, dep in result.origins.items():
        found = index.get((dep.path, dep.launch_span, dep.name))
        if found is not None:
            out[f] = found
    return out


def _files(result: LintResult, launches: list[LaunchStatus]) -> list[str]:
    """Files with a launch or a finding, in the order the run read them."""
    order = {p: i for i, p in enumerate(result.files)}
    paths = dict.fromkeys([s.path for s in launches] + [_path(f) for f in result.findings])
    return sorted(paths, key=lambda p: (order.get(p, len(order)), p))


def _counts(findings: Iterable[Finding]) -> str:
    items = list(findings)
    parts = [plural(n, str(sev)) for sev in sorted(Severity, reverse=True)
             if (n := sum(1 for f in items if f.severity is sev))]
    return ", ".join(parts) or "no findings"


def _header(result: LintResult, launches: list[LaunchStatus]) -> str:
    sized = sum(1 for s in launches if s.capacity == EVALUATED)
    launch_words = plural(len(launches) if launches else result.deployments, "engine launch", "engine launches")
    if launches:
        launch_words += f", {sized} sized, {len(launches) - sized} not sized"
    return (f"<header><h1>kvlint report</h1><p class=\"summary\">{plural(len(result.files), 'file')}, "
            f"{launch_words}; {plural(len(result.findings), 'finding')}: {_counts(result.findings)}"
            f"{f', {result.suppressed} suppressed' if result.suppressed else ''}.</p></header>")


def _index(launches: list[LaunchStatus], owners: dict[Finding, int], result: LintResult) -> str:
    if not launches:
        return ""
    count = [0] * len(launches)
    for i in owners.values():
        count[i] += 1
    rows = []
    for i, s in enumerate(launches):
        status = "sized" if s.capacity == EVALUATED else f"not sized: {s.skipped_because or 'no reason given'}"
        rows.append(f"<tr><td><a href=\"#launch-{i + 1}\">{escape(_where(s))}</a></td><td>{escape(_name(s))}</td>"
                    f"<td>{escape(s.model or '-')}</td><td>{escape(s.gpu or '-')}</td><td>{escape(status)}</td>"
                    f"<td>{count[i]}</td></tr>")
    skipped = [s for s in launches if s.capacity != EVALUATED]
    head = (_failing_first(launches, owners) + "<h2>Launches</h2>"
            + (f"<p>{plural(len(skipped), 'launch', 'launches')} could not be sized; their reasons are in the "
               f"table and on their cards.</p>" if skipped else ""))
    return (f"<section>{head}<table><thead><tr><th scope=\"col\">where</th><th scope=\"col\">launch</th>"
            f"<th scope=\"col\">model</th><th scope=\"col\">GPU</th><th scope=\"col\">capacity</th>"
            f"<th scope=\"col\">findings</th></tr></thead><tbody>{''.join(rows)}</tbody></table></section>")


def _failing_first(launches: list[LaunchStatus], owners: dict[Finding, int]) -> str:
    """Links to the launches with errors (most first), then those with warnings: a long page's reader jumps
    to what fails without scrolling past the launches that pass."""
    tally: dict[int, list[int]] = {}
    for f, i in owners.items():
        if f.severity >= Severity.WARNING:
            tally.setdefault(i, [0, 0])[f.severity is Severity.WARNING] += 1
    if not tally:
        return ""
    order = sorted(tally, key=lambda i: (-tally[i][0], -tally[i][1], i))
    items = [f"<li><a href=\"#launch-{i + 1}\">{escape(_name(launches[i]))}</a> "
             f"<span class=\"muted\">{escape(_where(launches[i]))}</span>: "
             f"{escape(', '.join(plural(n, w) for n, w in zip(tally[i], ('error', 'warning'), strict=True) if n))}"
             f"</li>" for i in order]
    return f"<nav aria-labelledby=\"failing-h\"><h2 id=\"failing-h\">Fails first</h2><ol>{''.join(items)}</ol></nav>"


def _where(s: LaunchStatus) -> str:
    return f"{s.path}:{s.span.line}:{s.span.col}" if s.span else s.path


def _name(s: LaunchStatus) -> str:
    modelled = f", modelled as {s.modelled_release}" if s.modelled_release and s.modelled_release != s.engine_version \
        else ""
    return f"{s.name or '(unnamed)'} ({s.engine}{' ' + s.engine_version if s.engine_version else ''}{modelled})"


def _file_section(path: str, result: LintResult, launches: list[LaunchStatus],
                  owners: dict[Finding, int]) -> str:
    lines = result.texts[path].split("\n") if path in result.texts else None
    out = [f"<section class=\"file\"><h2>{escape(path)}</h2>"]
    for i, s in enumerate(launches):
        if s.path == path:
            mine = [f for f in result.findings if owners.get(f) == i]
            out.append(card(s, i + 1, mine, lines))
    loose = [f for f in result.findings if _path(f) == path and f not in owners]
    if loose:
        out.append(f"<article class=\"card\"><h3>Findings about the file</h3>{_findings(loose, lines)}</article>")
    out.append("</section>")
    return "".join(out)


def card(s: LaunchStatus, number: int, findings: list[Finding], lines: list[str] | None) -> str:
    """One launch: where, what, the two pictures (when sized) or why not, its findings with code frames."""
    head = (f"<article class=\"card\" id=\"launch-{number}\" aria-labelledby=\"launch-{number}-h\">"
            f"<h3 id=\"launch-{number}-h\">{escape(_name(s))}</h3>"
            f"<p class=\"where\">{escape(_where(s))} · model {escape(s.model or 'not found')} · "
            f"GPU {escape(s.gpu or 'not declared')}</p>"
            + (f"<p class=\"open\">Evaluated on every {escape(s.open_input)}; a verdict that differs between them "
               f"is an info.</p>" if s.open_input else ""))
    b = s.budget
    if s.capacity == EVALUATED and b is not None:
        body = (_drawn_on(s, b.gpu_name) +
                f"<div class=\"pictures\"><div class=\"memory\">{svg.memory(b, ident=f'l{number}m')}{_numbers(s)}"
                f"</div>{svg.curve(b, model_max=s.model_max_len, ident=f'l{number}c', seqs_declared=s.seqs_declared)}"
                "</div>")
    else:
        body = (f"<p class=\"skipped\"><strong>Not sized:</strong> "
                f"{escape(s.skipped_because or 'the capacity rules did not run')}</p>")
    tail = _findings(findings, lines) if findings else "<p class=\"muted\">No findings for this launch.</p>"
    return head + body + tail + "</article>"


def _drawn_on(s: LaunchStatus, card: str) -> str:
    """Why a launch with no GPU declared is drawn on the card it is (else a reader takes it for the target)."""
    if s.sweep is None or s.sweep.candidates or s.gpu_source != "catalogue":
        return ""
    which = "the smallest card of the catalogue that starts it" if s.sweep.passing else \
        "the largest card of the catalogue, and none starts it"
    return (f"<p class=\"muted\">No GPU product declared: drawn on {escape(card)}, {which} (KV108 lists the "
            f"cards); declare the GPU to see the card it will run on.</p>")


def _numbers(s: LaunchStatus) -> str:
    b = s.budget
    if b is None:
        return ""
    est = " (est.)" if b.kv_pool_estimated else ""
    fits = "yes" if b.fits_one_request else f"no (longest that fits: {b.estimated_max_model_len or 0:,} tokens)"
    rows = [("KV per token per rank", f"{b.kv_bytes_per_token:,} B ({b.kv_cache_dtype})"),
            ("KV pool per rank", f"{svg.gib(max(b.kv_pool_bytes, 0))}{est}: {b.kv_tokens:,} tokens"),
            ("max_model_len", f"{b.max_model_len:,} tokens"
                              + (f" (model maximum {s.model_max_len:,})" if s.model_max_len else "")),
            ("full-length requests the pool holds", f"{b.max_concurrency:.2f}{est}"),
            ("max_num_seqs", f"{b.max_num_seqs:,}" if b.max_num_seqs else "not set"),
            ("one request at max_model_len fits", fits),
            ("non-KV memory", f"{svg.gib(b.non_kv_bytes)} ({b.non_kv_source})"),
            ("parallelism", f"TP {b.parallel.tp}, PP {b.parallel.pp}, DP {b.parallel.dp}")]
    return "<dl class=\"numbers\">" + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows) + "</dl>"


def _findings(findings: list[Finding], lines: list[str] | None) -> str:
    items = []
    for f in findings:
        where = str(f.span) if f.span else (f.path or "-")
        code_frame = "\n".join(frame(f, lines))
        extra = "".join(f"<li>{escape(n.strip().lstrip('= '))}</li>" for n in notes(f))
        items.append(f"<li class=\"finding {f.severity}\"><p><span class=\"sev\">{f.severity}</span>"
                     f"<code>{escape(f.code)}</code> {escape(f.name)} <span class=\"muted\">at {escape(where)}</span>"
                     f"</p><p>{escape(f.message)}</p>"
                     + (f"<pre class=\"frame\">{escape(code_frame)}</pre>" if code_frame else "")
                     + f"<ul class=\"extra\">{extra}</ul></li>")
    return f"<ol class=\"findings\">{''.join(items)}</ol>"


def _unreadable(items: list[tuple[str, str]]) -> str:
    if not items:
        return ""
    rows = "".join(f"<li><code>{escape(p)}</code>: {escape(r)}</li>" for p, r in items)
    return f"<section><h2>Files that could not be read</h2><ul>{rows}</ul></section>"


def _notes(items: list[str]) -> str:
    if not items:
        return ""
    return "<section><h2>Notes</h2><ul>" + "".join(f"<li>{escape(n)}</li>" for n in items) + "</ul></section>"
