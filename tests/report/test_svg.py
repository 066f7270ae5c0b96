"""The two pictures: the four tenants to scale with estimates marked, the hyperbola with its operating
point, and `kvlint budget --format svg`; every number read back from the picture is the Budget's."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kvlint.cli import main
from kvlint.commands.budget import budget_from_argv
from kvlint.report import svg
from kvlint.report.tenants import segments
from kvlint.resolve import ResolveOptions

NS = {"s": "http://www.w3.org/2000/svg"}
QWEN32 = ["vllm", "serve", "Qwen/Qwen2.5-32B-Instruct", "--max-model-len", "32768"]  # pool below one request
LLAMA8 = ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "16384", "--max-num-seqs", "32"]


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """No .kvlint.yaml above the checkout may lend these budgets a calibration."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)


def budget(words: list[str], **options):
    return budget_from_argv(words, ResolveOptions(gpu="H100", **options)).budget


def tree(text: str) -> ET.Element:
    return ET.fromstring(text if "xmlns=" in text else text.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1))


def segment_rects(root: ET.Element) -> list[ET.Element]:
    """The bar's filled rectangles (those carrying a <title>), left to right."""
    return [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.find("s:title", NS) is not None]


def test_four_tenants_to_scale_and_in_order():
    b = budget(QWEN32)
    root = tree(svg.memory(b))
    rects = segment_rects(root)
    parts = [(label, max(n, 0)) for label, _, n, _ in segments(b)]
    shown = [(r.find("s:title", NS).text.split(":")[0], float(r.get("width"))) for r in rects]
    assert [label for label, _ in shown] == [label for label, n in parts if n > 0]
    total = max(b.gpu_memory_bytes, sum(n for _, n in parts))
    bar = 640 - 24
    for (_, width), (_, n) in zip(shown, [p for p in parts if p[1] > 0], strict=True):
        assert width == pytest.approx(bar * n / total, abs=0.06)  # one decimal of a pixel
    xs = [float(r.get("x")) for r in rects]
    assert xs == sorted(xs)


def test_estimates_are_hatched_and_labelled_only_when_estimated():
    estimated = svg.memory(budget(LLAMA8))
    assert "est." in estimated and "url(#mem-hatch)" in estimated
    measured = budget(LLAMA8, non_kv_gib=6.0)
    assert measured.non_kv_source == "user" and not measured.kv_pool_estimated
    plain = svg.memory(measured)
    assert "est." not in plain and "url(#mem-hatch)" not in plain
    assert "(est.)" not in svg.curve(measured) and "stroke-dasharray=\"6 3\"" not in svg.curve(measured).split(
        "<polyline")[1].split(">")[0]


def test_title_desc_and_labels_carry_the_budgets_numbers():
    b = budget(LLAMA8)
    root = tree(svg.memory(b, ident="m1"))
    assert root.get("aria-labelledby") == "m1-title m1-desc"
    desc = root.find("s:desc", NS).text
    assert f"{b.kv_tokens:,} tokens" in desc and svg.gib(b.weights_bytes) in desc
    labels = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for label, _, n, _ in segments(b):
        assert f"{label}: {svg.gib(max(n, 0))}" in labels  # the legend spells every tenant out


def _points(text: str) -> list[tuple[float, float]]:
    body = text.split("<polyline points=\"", 1)[1].split("\"", 1)[0]
    return [tuple(map(float, p.split(","))) for p in body.split()]


def test_curve_is_the_pools_hyperbola():
    b = budget(LLAMA8)
    text = svg.curve(b, model_max=131072)
    x_max, y_max, on_scale = svg._ranges(b, 131072)
    plot = svg._Plot(640, svg.CURVE_HEIGHT, x_max, y_max)
    pts = _points(text)
    assert len(pts) > 100
    for px, py in pts:  # back from pixels: requests x context is the pool's token count
        tokens = (px - plot.x0) / (plot.x1 - plot.x0) * x_max
        requests = (plot.y0 - py) / (plot.y0 - plot.y1) * y_max
        assert requests * tokens == pytest.approx(b.kv_tokens, rel=0.02, abs=0.002 * y_max * x_max)
    assert [y for _, y in pts] == sorted(y for _, y in pts)  # fewer requests as context grows
    assert on_scale and b.max_num_seqs == 32
    assert "declared: max_num_seqs 32 at max_model_len 16,384" in text and "above the scale" not in text
    assert "model maximum 131,072" in text and f"pool: {b.max_concurrency:.2f} requests at 16,384" in text


def test_operating_point_far_above_the_curve_is_marked_off_scale():
    b = budget(QWEN32)
    assert b.max_num_seqs == 1024 and b.max_concurrency < 1
    text = svg.curve(b)
    assert "declared: max_num_seqs 1,024 at max_model_len 32,768 (above the scale)" in text


def test_no_pool_says_so():
    b = budget(["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--max-model-len", "8192"])
    assert b.kv_tokens == 0
    text = svg.curve(b)
    assert "no KV pool: not one request fits" in text and "<polyline" not in text
    assert "the card ends here" in svg.memory(b)  # weights alone overcommit the card


def test_budget_format_svg(capsys):
    code = main(["budget", "--gpu", "H100", "--format", "svg", "--", *LLAMA8])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    root = ET.fromstring(out)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "meta-llama/Llama-3.1-8B-Instruct" in root.find("s:title", NS).text
    inner = root.findall(".//s:svg", NS)
    assert len(inner) == 2  # the memory picture above the curve
    assert not re.search(r"(href|src)=\"(https?:)?//", out)
    Path("two.sh").write_text(" ".join(LLAMA8) + "\n" + " ".join(QWEN32) + "\n")
    code = main(["budget", "--format", "svg", "two.sh"])
    _, err = capsys.readouterr()
    assert code == 2 and "--format svg draws one instance" in err and "Traceback" not in err
