"""No two text labels of a chart overlap, and none runs past the picture's edge, in any chart of the HTML
report of examples/. The geometry is the SVG's own (x, y, anchor, font size): a label's box is its text at
the average advance the drawing code sizes labels with (kvlint.report.svg.CHAR_PX per 11 px), bold a little
wider, from the baseline up by 0.8 em and down by 0.2 em. Rotated labels (the y-axis title) are left out."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import pytest

from kvlint.lint import lint
from kvlint.report import render
from kvlint.report.svg import CHAR_PX

REPO = Path(__file__).resolve().parents[2]
Box = tuple[float, float, float, float, str]


def label_boxes(svg: str) -> tuple[float, list[Box]]:
    root = ET.fromstring(svg)
    out: list[Box] = []
    for text in root.iter("text"):
        if text.get("transform"):
            continue
        size = float(text.get("font-size", "11"))
        words = "".join(text.itertext())
        width = CHAR_PX / 11 * size * len(words) * (1.05 if text.get("font-weight") == "bold" else 1.0)
        x, y = float(text.get("x", "0")), float(text.get("y", "0"))
        anchor = text.get("text-anchor", "start")
        left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
        out.append((left, y - 0.8 * size, left + width, y + 0.2 * size, words))
    return float(root.get("width", "0")), out


def problems(svg: str) -> list[str]:
    width, boxes = label_boxes(svg)
    found = [f"past the edge: {b[4]!r}" for b in boxes if b[0] < 0 or b[2] > width]
    for i, a in enumerate(boxes):
        found += [f"{a[4]!r} overlaps {b[4]!r}" for b in boxes[i + 1:]
                  if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]
    return found


@lru_cache(maxsize=1)
def examples_page() -> str:
    """The HTML report of examples/, rendered once for every test here."""
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return render("html", lint(["examples"]))
    finally:
        os.chdir(cwd)


@pytest.fixture(scope="module")
def charts() -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", examples_page(), re.S)


def test_no_label_overlaps_another_or_leaves_its_chart(charts):
    assert len(charts) >= 30
    assert {i: p for i, svg in enumerate(charts) if (p := problems(svg))} == {}


def test_the_checker_sees_an_overlap_and_a_clipped_label():
    svg = ('<svg width="100" height="50"><text x="10" y="20" font-size="11">pool: 1.00 requests</text>'
           '<text x="20" y="22" font-size="10">declared</text><text x="95" y="40">edge</text></svg>')
    found = problems(svg)
    assert "'pool: 1.00 requests' overlaps 'declared'" in found and "past the edge: 'edge'" in found


def test_a_card_with_no_gpu_declared_says_what_it_is_drawn_on(charts):
    """A launch sized against the catalogue is drawn on one card of it: the card says which and why."""
    from kvlint.record import replace
    from kvlint.report.html import _drawn_on
    from kvlint.status import CardVerdict, LaunchStatus, Sweep

    sweep = Sweep(20 * 2**30, None, (CardVerdict("L4-24GB", 23034 * 2**20, True, None, 24),))
    status = LaunchStatus("a.yaml", None, "vllm", "", "m", "bundled", "L4-24GB", "catalogue", "evaluated",
                          sweep=sweep)
    assert "drawn on L4-24GB, the smallest card of the catalogue that starts it" in _drawn_on(status, "L4-24GB")
    none_starts = replace(status, sweep=Sweep(None, None, (CardVerdict("L4-24GB", 1, False, None, 24),)))
    assert "the largest card of the catalogue, and none starts it" in _drawn_on(none_starts, "MI355X")
    assert _drawn_on(replace(status, gpu_source="manifest"), "L4-24GB") == ""


def test_the_page_opens_with_the_launches_that_fail_most_first():
    page = examples_page()
    nav = re.search(r'<nav aria-labelledby="failing-h">(.*?)</nav>', page, re.S)
    assert nav and page.index("<nav") < page.index("<h2>Launches</h2>")
    items = re.findall(r'<li><a href="#(launch-\d+)">.*?: ([^<]*)</li>', nav.group(1))
    assert items and all(f'id="{anchor}"' in page for anchor, _ in items)
    errors = [int(m.group(1)) if (m := re.match(r"(\d+) errors?", tally)) else 0 for _, tally in items]
    assert errors == sorted(errors, reverse=True) and errors[0] >= 2


def test_an_engine_default_is_not_labelled_declared(charts):
    """Launches that leave max_num_seqs unset are drawn at the engine's default, and say so."""
    defaults = [svg for svg in charts if "vllm default: max_num_seqs" in svg]
    assert defaults and not any("declared: max_num_seqs" in svg for svg in defaults)
    assert any("declared: max_num_seqs" in svg for svg in charts)  # the launches that set it


# ---------------------------------------------------------------- the same check on the boxes a browser draws

PROBE = """<script>
window.addEventListener('load', () => {
  const out = [];
  document.querySelectorAll('svg').forEach((svg, i) => {
    const frame = svg.getBoundingClientRect();
    const boxes = [];
    svg.querySelectorAll('text').forEach(t => {
      if (t.getAttribute('transform')) return;
      const b = t.getBoundingClientRect();
      if (b.width > 0) boxes.push([b.left - frame.left, b.top - frame.top, b.right - frame.left,
                                   b.bottom - frame.top, t.textContent]);
    });
    out.push([frame.width, boxes]);
  });
  const pre = document.createElement('pre');
  pre.id = 'kvlint-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def browser_problems(frame_width: float, boxes: list[list]) -> list[str]:
    """Overlaps and clipping among the boxes the browser measured; a pixel of slack for anti-aliased edges
    (text boxes include the font's line gap, so two labels on adjacent baselines touch without overlapping)."""
    found = [f"past the edge: {b[4]!r}" for b in boxes if b[0] < -1 or b[2] > frame_width + 1]
    for i, a in enumerate(boxes):
        found += [f"{a[4]!r} overlaps {b[4]!r}" for b in boxes[i + 1:]
                  if min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 2]
    return found


def test_no_label_overlaps_in_the_page_chromium_renders(tmp_path):
    """Issue 25: the label boxes as headless Chromium lays the page out (its fonts, not an average advance)."""
    import json
    import subprocess

    from tests.report.test_html import chromium

    browser = chromium()
    if browser is None:
        pytest.skip("chromium is not installed (CI installs Debian's chromium when apt-get is available)")
    page = examples_page()
    path = tmp_path / "report.html"
    path.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
           "--window-size=1200,1600", "--virtual-time-budget=5000", "--dump-dom", path.as_uri()]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False).stdout
    probe = re.search(r'<pre id="kvlint-probe">(.*?)</pre>', dom, re.S)
    assert probe, "the probe script did not run"
    charts = json.loads(probe.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                        .replace("&gt;", ">"))
    assert len(charts) >= 30
    assert {i: p for i, (width, boxes) in enumerate(charts) if (p := browser_problems(width, boxes))} == {}


def test_the_browser_check_sees_an_overlap_and_a_clipped_label():
    boxes = [[10, 10, 80, 24, "pool: 1.00 requests"], [60, 12, 110, 26, "declared"], [90, 30, 130, 44, "edge"]]
    found = browser_problems(120, boxes)
    assert "'pool: 1.00 requests' overlaps 'declared'" in found and "past the edge: 'edge'" in found
    assert browser_problems(120, [[0, 0, 50, 14, "a"], [0, 13, 50, 27, "b"]]) == []  # adjacent baselines
