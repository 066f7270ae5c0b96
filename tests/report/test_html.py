"""`--format html`: one self-contained page, a card per launch with its pictures and findings.

Parsed with html.parser (every finding code present, an SVG per sized launch, nothing fetched from
anywhere) and, where Chromium is installed, rendered headless to a PNG that must not be blank.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kvlint.cli import main
from kvlint.lint import LintOptions, lint
from kvlint.report import render
from kvlint.status import EVALUATED

REPO = Path(__file__).resolve().parents[2]
REMOTE = re.compile(r"^\s*(https?:)?//", re.I)


class Page(HTMLParser):
    """Elements, attributes, text and <style> bodies; which card (article id) each SVG sits in."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.styles: list[str] = []
        self.card: str | None = None
        self.depth = 0
        self.svgs_in: dict[str, int] = {}
        self.cards: list[str] = []
        self.titles: list[str] = []
        self._stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        self._stack.append(tag)
        if tag == "article" and (a.get("id") or "").startswith("launch-"):
            self.card = a["id"]
            self.cards.append(self.card)
            self.depth = len(self._stack)
        if tag == "svg" and self.card:
            self.svgs_in[self.card] = self.svgs_in.get(self.card, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if self._stack and self._stack[-1] == tag:
            if tag == "article" and len(self._stack) == self.depth:
                self.card = None
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._stack and self._stack[-1] == "style":
            self.styles.append(data)
        if self._stack and self._stack[-1] in ("title", "desc") and "svg" in self._stack:
            self.titles.append(data)


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


@pytest.fixture(scope="module")
def examples():
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        result = lint(["examples"])
    finally:
        os.chdir(cwd)
    return result, render("html", result)


def test_every_finding_code_and_a_card_per_launch(examples):
    result, html = examples
    page = parse(html)
    text = " ".join(page.text)
    assert result.findings and all(f.code in text for f in result.findings)
    assert len(page.cards) == len(result.launches) == 19
    for f in result.findings:  # the message and the code frame of every finding are on the page
        assert f.message.split(":")[0] in text
    assert "maxModelLen: 32768" in text  # a code frame's source line (helm bad-values.yaml:20)


def test_an_svg_per_sized_launch_with_title_and_desc(examples):
    result, html = examples
    page = parse(html)
    for number, status in enumerate(result.launches, 1):
        if status.capacity == EVALUATED:
            assert page.svgs_in.get(f"launch-{number}", 0) >= 2, status  # the memory picture and the curve
    svgs = [a for t, a in page.tags if t == "svg"]
    assert all(a.get("role") == "img" and a.get("aria-labelledby") for a in svgs)
    ids = [a["id"] for _, a in page.tags if a.get("id")]
    assert len(ids) == len(set(ids))  # aria-labelledby and hatch patterns resolve to one element each
    assert len([t for t in page.titles if t.strip()]) >= 2 * len(svgs)


def test_nothing_is_fetched(examples):
    _, html = examples
    page = parse(html)
    for tag, attrs in page.tags:
        assert tag not in ("script", "link", "iframe", "object", "embed", "img"), tag
        for name, value in attrs.items():
            if name in ("src", "href", "xlink:href", "action", "srcset", "poster", "data"):
                assert value is None or not REMOTE.match(value), (tag, name, value)
            assert not (name.startswith("on")), (tag, name)  # no inline scripts either
    css = "\n".join(page.styles)
    assert "@import" not in css and "@font-face" not in css
    for url in re.findall(r"url\(\s*['\"]?([^'\")]*)", html):
        assert url.startswith("#"), url  # only the page's own patterns


def test_skipped_launch_says_why(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    Path("serve.sh").write_text("vllm serve nobody/no-such-model-xyz --max-model-len 4096\n"
                                "vllm serve Qwen/Qwen3-8B --max-model-len 32768\n")
    result = lint(["serve.sh"], LintOptions(gpu="H100"))
    page = parse(render("html", result))
    skipped = [s for s in result.launches if s.capacity != EVALUATED]
    assert len(skipped) == 1 and skipped[0].skipped_because
    text = " ".join(page.text)
    assert "Not sized:" in text and skipped[0].skipped_because in text
    assert page.svgs_in.get("launch-1", 0) == 0 and page.svgs_in.get("launch-2", 0) >= 2
    assert "KV002" in text  # the unresolved model's finding sits on its card


def test_cli_writes_one_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    out = tmp_path / "report.html"
    code = main(["check", "examples/shell", "--format", "html", "--output", str(out)])
    assert code == 1 and capsys.readouterr().out == ""
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "examples/shell/bad-serve.sh" in html and "KV101" in html


# ---------------------------------------------------------------- rendered by a real browser


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the rows (raw RGB or RGBA bytes) of an 8-bit, non-interlaced PNG, decoded with zlib."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 2:  # "up", the commonest row filter: one pass without the neighbour lookups
            line = bytearray((v + u) & 0xFF for v, u in zip(line, prev, strict=True))
        for i in range(stride if kind in (1, 3, 4) else 0):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def test_renders_in_chromium_and_is_not_blank(tmp_path, examples):
    browser = chromium()
    if browser is None:
        pytest.skip("chromium is not installed (CI installs Debian's chromium when apt-get is available)")
    _, html = examples
    page, shot = tmp_path / "report.html", tmp_path / "report.png"
    page.write_text(html, encoding="utf-8")
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
           f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()]
    try:
        subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("chromium did not finish within 120 s")
    assert shot.exists(), "chromium wrote no screenshot"
    width, height, rows = png_pixels(shot.read_bytes())
    assert (width, height) == (1200, 1600)
    bpp = len(rows[0]) // width
    background = rows[0][:3]
    colours: set[bytes] = set()
    inked = 0
    for row in rows[::4]:
        for x in range(0, width * bpp, bpp * 4):
            px = row[x:x + 3]
            colours.add(px)
            inked += px != background
    sampled = len(rows[::4]) * len(range(0, width * bpp, bpp * 4))
    assert len(colours) > 20, f"only {len(colours)} distinct colours: the page looks blank"
    assert inked / sampled > 0.05, f"only {inked / sampled:.1%} of the page differs from its background"
