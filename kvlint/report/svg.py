"""The two pictures of one engine instance, as inline SVG: the card as four tenants, and the hyperbola.

The chapter kvlint grew from draws its argument twice. First the card: weights | non-KV | headroom |
KV pool, whatever the first three leave is the whole budget for context and concurrency. Then the
exchange rate: requests x context <= tokens in the pool, a hyperbola on which the launch's declared
operating point (max_num_seqs at max_model_len) either sits under the curve or does not.

Pure functions of a Budget (and the model's maximum length when known): the four tenants come from
kvlint.report.tenants.segments, every number printed is a Budget field, and the only arithmetic here
is scaling to pixels. Every picture carries <title> and <desc> and text labels, and estimated parts
are hatched *and* labelled "est.", so it reads without colour and to a screen reader.
"""

from __future__ import annotations

import math
from html import escape

from kvlint.budget import Budget
from kvlint.sizes import GIB

FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\""
# weights, non-KV, headroom, KV pool: distinguishable in greyscale too (light to dark differ)
FILLS = ("#4e79a7", "#f28e2b", "#d9d9d9", "#59a14f")
INK = "#1f2328"
CHAR_PX = 6.6  # average advance of the 11 px label font, to decide whether a label fits a segment
BAR_TOP, BAR_H, ROW = 42, 40, 18
MEMORY_HEIGHT = BAR_TOP + BAR_H + 22 + ROW * 4 + 8  # title, bar, legend of the four tenants
CURVE_HEIGHT = 330


def gib(n: float) -> str:
    return f"{n / GIB:.2f} GiB"


def _x(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, body: str, *, anchor: str = "start", size: int = 11, weight: str = "normal",
          fill: str = INK, halo: bool = False) -> str:
    """A label; `halo` draws a white outline under the glyphs so it stays legible across lines and fills."""
    ring = ' stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"' if halo else ""
    return (f'<text x="{_x(x)}" y="{_x(y)}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}"{ring}>{escape(body)}</text>')


def _open(ident: str, width: int, height: int, title: str, desc: str, standalone: bool) -> str:
    ns = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
    return (f'<svg{ns} role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" {FONT} '
            f'aria-labelledby="{ident}-title {ident}-desc">'
            f'<title id="{ident}-title">{escape(title)}</title><desc id="{ident}-desc">{escape(desc)}</desc>')


def _hatch(ident: str) -> str:
    return (f'<defs><pattern id="{ident}-hatch" patternUnits="userSpaceOnUse" width="6" height="6" '
            f'patternTransform="rotate(45)"><rect width="6" height="6" fill="none"/>'
            f'<line x1="0" y1="0" x2="0" y2="6" stroke="{INK}" stroke-opacity="0.55" stroke-width="2"/>'
            f'</pattern></defs>')


# ---------------------------------------------------------------- the card as four tenants


def tenants(b: Budget) -> list[tuple[str, int, bool]]:
    """(label, bytes, estimated) left to right, as `kvlint budget` draws its text bar."""
    from kvlint.report.tenants import segments

    return [(label, max(n, 0), est) for label, _, n, est in segments(b)]


def _tenant_words(parts: list[tuple[str, int, bool]]) -> str:
    return ", ".join(f"{label} {gib(n)}{' (estimated)' if est else ''}" for label, n, est in parts)


def memory(b: Budget, *, ident: str = "mem", width: int = 640, standalone: bool = False) -> str:
    """The card as a bar of its total, the four tenants to scale; a legend lists them in bar order."""
    parts = tenants(b)
    total = max(b.gpu_memory_bytes, sum(n for _, n, _ in parts), 1)
    left, right, top, bar_h = 12, width - 12, BAR_TOP, BAR_H
    scale = (right - left) / total
    title = f"Memory of one GPU: {b.model} on {b.gpu_name} ({gib(b.gpu_memory_bytes)} as {b.engine} sees it)"
    desc = (f"A bar of the card's {gib(b.gpu_memory_bytes)}, left to right: {_tenant_words(parts)}. "
            f"The KV pool holds {b.kv_tokens:,} tokens at {b.kv_bytes_per_token:,} bytes per token per rank.")
    legend_top = top + bar_h + 22
    out = [_open(ident, width, MEMORY_HEIGHT, title, desc, standalone), _hatch(ident),
           _text(left, 20, f"{b.gpu_name}: {gib(b.gpu_memory_bytes)} ({b.engine} {b.engine_version})",
                 weight="bold", size=12)]
    x = float(left)
    for i, (label, n, est) in enumerate(parts):
        w = n * scale
        out.append(_segment(ident, i, x, top, w, bar_h, label, n, est))
        x += w
    if total > b.gpu_memory_bytes:  # weights (+ a fixed pool) overcommit the card: mark where it ends
        edge = left + b.gpu_memory_bytes * scale
        out += [f'<line x1="{_x(edge)}" y1="{top - 6}" x2="{_x(edge)}" y2="{top + bar_h + 6}" stroke="{INK}" '
                f'stroke-width="2" stroke-dasharray="4 2"/>',
                _text(edge - 4, top - 5, "the card ends here", anchor="end", size=10)]
    out += [_legend_row(ident, i, left, legend_top + ROW * i, label, n, est) for i, (label, n, est) in enumerate(parts)]
    out.append("</svg>")
    return "".join(out)


def _segment(ident: str, i: int, x: float, y: int, w: float, h: int, label: str, n: int, est: bool) -> str:
    if w <= 0:
        return ""
    out = [f'<rect x="{_x(x)}" y="{y}" width="{_x(w)}" height="{h}" fill="{FILLS[i]}" stroke="#ffffff" '
           f'stroke-width="1"><title>{escape(label)}: {gib(n)}{" (estimated)" if est else ""}</title></rect>']
    if est:
        out.append(f'<rect x="{_x(x)}" y="{y}" width="{_x(w)}" height="{h}" fill="url(#{ident}-hatch)"/>')
    words = [f"{label}{' est.' if est else ''}", gib(n)]
    if w >= CHAR_PX * max(map(len, words)) + 8:
        for k, word in enumerate(words):
            out.append(_boxed(x + w / 2, y + 16 + 14 * k, word))
    elif w >= 14:
        out.append(_boxed(x + w / 2, y + h / 2 + 4, str(i + 1)))
    return "".join(out)


def _boxed(x: float, y: float, word: str) -> str:
    """A label on a white backing so it stays legible over any fill or hatch."""
    w = CHAR_PX * len(word) + 6
    return (f'<rect x="{_x(x - w / 2)}" y="{_x(y - 11)}" width="{_x(w)}" height="14" rx="2" fill="#ffffff" '
            f'fill-opacity="0.85"/>' + _text(x, y, word, anchor="middle"))


def _legend_row(ident: str, i: int, x: int, y: int, label: str, n: int, est: bool) -> str:
    swatch = f'<rect x="{x}" y="{y - 10}" width="22" height="12" fill="{FILLS[i]}" stroke="{INK}" stroke-width="0.5"/>'
    if est:
        swatch += f'<rect x="{x}" y="{y - 10}" width="22" height="12" fill="url(#{ident}-hatch)"/>'
    note = " (est.: rests on the non-KV estimate)" if est else ""
    return swatch + _text(x + 30, y, f"{i + 1}  {label}: {gib(n)}{note}")


# ---------------------------------------------------------------- the hyperbola


def _step(span: float, target: int = 5) -> float:
    """A 1-2-5 tick step giving about `target` ticks over span."""
    raw = max(span, 1e-9) / target
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _token_step(span: float) -> int:
    """Context ticks at powers of two (contexts are 4k, 8k, 32k ...), 4 to 8 of them."""
    step = 1024
    while span / step > 8:
        step *= 2
    return step


def _k(tokens: int) -> str:
    return f"{tokens // 1024}k" if tokens % 1024 == 0 and tokens >= 1024 else f"{tokens:,}"


class _Plot:
    """Pixel scaling of the plot area (the only arithmetic of the picture)."""

    def __init__(self, width: int, height: int, x_max: float, y_max: float):
        self.x0, self.x1, self.y0, self.y1 = 64, width - 24, height - 48, 40
        self.x_max, self.y_max = x_max, y_max

    def px(self, tokens: float) -> float:
        return self.x0 + (self.x1 - self.x0) * tokens / self.x_max

    def py(self, requests: float) -> float:
        return self.y0 - (self.y0 - self.y1) * min(requests, self.y_max) / self.y_max


def _ranges(b: Budget, model_max: int | None) -> tuple[float, float, bool]:
    """(x_max, y_max, whether max_num_seqs fits the scale): the point stays on the chart unless it is far above."""
    widest = max(b.max_model_len, model_max or 0, 1)
    x_step = _token_step(widest * 1.1)
    x_max = math.ceil(widest * 1.1 / x_step) * x_step
    curve = max(b.max_concurrency, 0.0)
    seqs = b.max_num_seqs or 0
    on_scale = 0 < seqs <= 10 * max(curve, 1.0)
    top = max(2 * curve, seqs if on_scale else 0, 2.0) * 1.1
    step = _step(top)
    return x_max, math.ceil(top / step) * step, on_scale


def curve(b: Budget, *, model_max: int | None = None, ident: str = "cur", width: int = 640,
          height: int = CURVE_HEIGHT, standalone: bool = False, seqs_declared: bool = True) -> str:
    """Full-length requests the pool holds against the context each is promised: kv_tokens / context."""
    x_max, y_max, on_scale = _ranges(b, model_max)
    p = _Plot(width, height, x_max, y_max)
    est = " (est.)" if b.kv_pool_estimated else ""
    seqs = b.max_num_seqs
    title = f"Concurrency versus context: a pool of {b.kv_tokens:,} tokens{est}"
    desc = (f"Requests times context cannot exceed the {b.kv_tokens:,} tokens the KV pool holds{est}. "
            f"At max_model_len {b.max_model_len:,} the pool holds {b.max_concurrency:.2f} full-length requests"
            + (f"; max_num_seqs admits {seqs:,}" if seqs else "")
            + (f"; the model's maximum length is {model_max:,} tokens." if model_max else "."))
    out = [_open(ident, width, height, title, desc, standalone),
           _text(p.x0, 20, f"Concurrency versus context{est}", weight="bold", size=12),
           _text(p.x0, 34, f"shaded: what the pool holds, requests x context <= {b.kv_tokens:,} tokens", size=10)]
    out += _axes(p)
    out += _hyperbola(b, p) if b.kv_tokens > 0 else [
        _text((p.x0 + p.x1) / 2, (p.y0 + p.y1) / 2, "no KV pool: not one request fits", anchor="middle", size=13,
              weight="bold")]
    out += _marks(b, p, model_max, on_scale, seqs_declared)
    out.append("</svg>")
    return "".join(out)


def _axes(p: _Plot) -> list[str]:
    out = [f'<rect x="{p.x0}" y="{p.y1}" width="{p.x1 - p.x0}" height="{p.y0 - p.y1}" fill="#fafafa" '
           f'stroke="{INK}" stroke-width="1"/>']
    x_step = _token_step(p.x_max)
    for tick in range(x_step, int(p.x_max) + 1, x_step):
        x = p.px(tick)
        out += [f'<line x1="{_x(x)}" y1="{p.y1}" x2="{_x(x)}" y2="{p.y0 + 4}" stroke="#d0d7de" stroke-width="1"/>',
                _text(x, p.y0 + 16, _k(tick), anchor="middle", size=10)]
    y_step = _step(p.y_max)
    for k in range(1, int(round(p.y_max / y_step)) + 1):
        y = p.py(k * y_step)
        value = k * y_step
        label = f"{value:g}" if value < 1e6 else f"{value:.0e}"
        out += [f'<line x1="{p.x0 - 4}" y1="{_x(y)}" x2="{p.x1}" y2="{_x(y)}" stroke="#d0d7de" stroke-width="1"/>',
                _text(p.x0 - 8, y + 4, label, anchor="end", size=10)]
    out += [_text(p.x0 - 8, p.y0 + 4, "0", anchor="end", size=10),
            _text((p.x0 + p.x1) / 2, p.y0 + 34, "context per request (tokens)", anchor="middle"),
            f'<text transform="translate(16 {_x((p.y0 + p.y1) / 2)}) rotate(-90)" font-size="11" '
            f'text-anchor="middle" fill="{INK}">concurrent full-length requests</text>']
    return out


def _hyperbola(b: Budget, p: _Plot) -> list[str]:
    start = b.kv_tokens / p.y_max  # where the curve enters the chart from above
    xs = [start + (p.x_max - start) * (i / 160) ** 2 for i in range(161)]  # denser where it bends
    pts = " ".join(f"{_x(p.px(x))},{_x(p.py(b.kv_tokens / x))}" for x in xs if x > 0)
    dash = ' stroke-dasharray="6 3"' if b.kv_pool_estimated else ""
    area = f"{p.x0},{p.y0} {p.x0},{p.y1} {pts} {p.x1},{p.y0}"
    return [f'<polygon points="{area}" fill="#59a14f" fill-opacity="0.12"/>',
            f'<polyline points="{pts}" fill="none" stroke="#2f6b2a" stroke-width="2.5"{dash}/>']


def _marks(b: Budget, p: _Plot, model_max: int | None, on_scale: bool, declared: bool = True) -> list[str]:
    out: list[str] = []
    if p.y_max >= 1:
        y = p.py(1)
        out += [f'<line x1="{p.x0}" y1="{_x(y)}" x2="{p.x1}" y2="{_x(y)}" stroke="{INK}" stroke-width="1" '
                f'stroke-dasharray="2 3"/>', _text(p.x1 - 4, y - 4, "1 request", anchor="end", size=10, halo=True)]
    if model_max:
        x = p.px(model_max)
        out += [f'<line x1="{_x(x)}" y1="{p.y1}" x2="{_x(x)}" y2="{p.y0}" stroke="#8250df" stroke-width="1.5" '
                f'stroke-dasharray="6 3"/>', _text(x - 4, p.y1 + 12, f"model maximum {model_max:,}", anchor="end",
                                                    size=10, fill="#5a32a3", halo=True)]
    x = p.px(b.max_model_len)
    pool_y = p.py(max(b.max_concurrency, 0.0))
    seqs = b.max_num_seqs or 0
    op_y = p.py(seqs) if on_scale else p.y1 + 2
    anchor = "end" if x > (p.x0 + p.x1) / 2 else "start"
    dx = -10 if anchor == "end" else 10
    pool_above = pool_y < op_y  # the higher point's label goes above it, the lower one's beside it
    out += [f'<circle cx="{_x(x)}" cy="{_x(pool_y)}" r="5" fill="#2f6b2a" stroke="#ffffff" stroke-width="1.5"/>',
            _text(x + dx, _clamp(p, pool_y - 10 if pool_above or not seqs else pool_y + 4),
                  f"pool: {b.max_concurrency:.2f} requests at {b.max_model_len:,}", anchor=anchor, size=10,
                  weight="bold", halo=True)]
    if seqs:
        said = "declared" if declared else f"{b.engine} default"  # an unset max_num_seqs was not declared
        words = f"{said}: max_num_seqs {seqs:,} at max_model_len {b.max_model_len:,}"
        words = words if on_scale else f"{words} (above the scale)"
        at, side = _inside(p, x, dx, anchor, words)
        out += [_diamond(x, op_y) if on_scale else _arrow(x, op_y),
                _text(at, _clamp(p, op_y + 26 if not on_scale else op_y + 4 if pool_above else op_y - 10),
                      words, anchor=side, size=10, weight="bold", fill="#a40e26", halo=True)]
    return out


def _inside(p: _Plot, x: float, dx: float, anchor: str, words: str) -> tuple[float, str]:
    """(x, anchor) of a bold 10 px label beside a mark, turned to the mark's other side when it would run past
    the picture's edge (the plot's right margin is 24 px), and moved in when it fits beside neither."""
    wide, right = CHAR_PX * 10 / 11 * 1.05 * len(words), p.x1 + 24
    if x + abs(dx) + wide <= right and (anchor == "start" or x - abs(dx) - wide < 0):
        return x + abs(dx), "start"
    if x - abs(dx) - wide >= 0:
        return x - abs(dx), "end"
    return max(4.0, right - 4 - wide), "start"  # too long for either side: as far right as it fits


def _clamp(p: _Plot, y: float) -> float:
    return min(max(y, p.y1 + 24), p.y0 - 4)


def _diamond(x: float, y: float) -> str:
    return (f'<rect x="{_x(x - 6)}" y="{_x(y - 6)}" width="12" height="12" fill="#cf222e" stroke="#ffffff" '
            f'stroke-width="1.5" transform="rotate(45 {_x(x)} {_x(y)})"/>')


def _arrow(x: float, y: float) -> str:
    return f'<polygon points="{_x(x)},{_x(y)} {_x(x - 7)},{_x(y + 12)} {_x(x + 7)},{_x(y + 12)}" fill="#cf222e"/>'


def instance(b: Budget, *, model_max: int | None = None, width: int = 640) -> str:
    """One standalone SVG document: the memory picture above the curve (`kvlint budget --format svg`)."""
    title = f"KV budget of {b.model} on {b.gpu_name}"
    desc = f"The memory of one GPU, then how many requests fit at each context length ({b.engine})."
    below = curve(b, model_max=model_max, ident="cur", width=width)
    return (_open("kvlint", width, MEMORY_HEIGHT + CURVE_HEIGHT + 10, title, desc, True)
            + memory(b, ident="mem", width=width)
            + f'<g transform="translate(0 {MEMORY_HEIGHT + 10})">{below}</g></svg>\n')
