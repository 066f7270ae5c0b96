"""The one place launches meet the engines' flag parsers (kvlint.engines.flags).

Until that module exists, a small fallback reads the same flag tables (kvlint/data/*_flags.json)
so readers and their tests work; switching is the import in `_flags()`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from kvlint.deployment import Setting, UnknownFlag
from kvlint.span import Token

_PY = ("python", "python3")
_EXTRA_ENTRIES = {  # wrappers that take the engine's own flags
    "dynamo.vllm": "vllm",
    "dynamo.sglang": "sglang",
    "vllm.entrypoints.api_server": "vllm",
}


@dataclass(frozen=True)
class Parsed:
    model: Setting | None
    settings: dict[str, Setting]
    unknown: list[UnknownFlag] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _flags():
    try:
        from kvlint.engines import flags
    except ImportError:
        return None
    return flags if hasattr(flags, "parse_args") and hasattr(flags, "detect_launch") else None


def detect(tokens: list[Token]) -> tuple[str, int] | None:
    """(engine, index after the entry point) when `tokens` start an engine; wrappers included."""
    texts = [t.text for t in tokens]
    mod = _flags()
    if mod is not None:
        found = mod.detect_launch(tokens)
        if found:
            return found
    elif (found := _fallback_detect(texts)) is not None:
        return found
    if len(texts) >= 3 and texts[0].rsplit("/", 1)[-1].startswith(_PY) and texts[1] == "-m" and texts[2] in _EXTRA_ENTRIES:
        return _EXTRA_ENTRIES[texts[2]], 3
    return None


def parse(engine: str, tokens: list[Token]) -> Parsed:
    mod = _flags()
    if mod is not None:
        p = mod.parse_args(engine, tokens)
        return Parsed(p.model, dict(p.settings), list(p.unknown), list(p.errors))
    return _fallback_parse(engine, tokens)


def _fallback_detect(texts: list[str]) -> tuple[str, int] | None:
    head = texts[0].rsplit("/", 1)[-1] if texts else ""
    if head in ("vllm", "sglang") and len(texts) > 1 and texts[1] == "serve":
        return head, 2
    if head.startswith(_PY) and len(texts) > 2 and texts[1] == "-m":
        if texts[2] == "vllm.entrypoints.openai.api_server":
            return "vllm", 3
        if texts[2] == "sglang.launch_server":
            return "sglang", 3
    return None


@lru_cache(maxsize=2)
def flag_table(engine: str) -> dict:
    data = json.loads(resources.files("kvlint.data").joinpath(f"{engine}_flags.json").read_text(encoding="utf-8"))
    options: dict[str, dict] = {}
    for flag in data["flags"]:
        for opt in flag.get("options", []) + flag.get("negative_options", []):
            options[opt] = flag
    return {"options": options, "model_dest": data.get("model_dest", "model")}


def lookup_flag(engine: str, opt: str) -> tuple[dict | None, str | None]:
    opts = flag_table(engine)["options"]
    if opt.startswith("--"):
        opt = "--" + opt[2:].replace("_", "-")
    if opt in opts:
        return opts[opt], None
    hits = {id(f): f for o, f in opts.items() if o.startswith(opt) and o.startswith("--")}
    if len(hits) == 1:
        return next(iter(hits.values())), None
    return None, "ambiguous" if hits else "unrecognized"


def _fallback_parse(engine: str, tokens: list[Token]) -> Parsed:
    settings: dict[str, Setting] = {}
    unknown: list[UnknownFlag] = []
    model: Setting | None = None
    model_dest = flag_table(engine)["model_dest"]
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if not tok.text.startswith("-") or tok.text == "-":
            if engine == "vllm" and model is None and i == 0:
                model = Setting("model", tok.text, "", tok.text, tok.span)
            i += 1
            continue
        name, eq, inline = tok.text.partition("=")
        flag, why = lookup_flag(engine, name.split(".", 1)[0])
        if flag is None:
            unknown.append(UnknownFlag(name, tok.span, None, why or "unrecognized"))
            i += 1
            continue
        values, i = _take(flag, tokens, i, inline if eq else None)
        setting = _setting(flag, name, values, tok)
        if flag["dest"] in (model_dest, "model"):
            model = setting
        else:
            settings[flag["dest"]] = setting
    return Parsed(model, settings, unknown, [])


def _take(flag: dict, tokens: list[Token], i: int, inline: str | None) -> tuple[list[Token], int]:
    tok = tokens[i]
    if inline is not None:
        return [Token(inline, tok.span)], i + 1
    if flag["kind"] in ("store_true", "store_const", "bool_optional", "help"):
        return [], i + 1
    nargs = flag.get("nargs")
    j = i + 1
    out: list[Token] = []
    while j < len(tokens) and (not tokens[j].text.startswith("--") or tokens[j].text == "--"):
        out.append(tokens[j])
        j += 1
        if nargs not in ("+", "*"):
            break
    return out, j


def _setting(flag: dict, name: str, values: list[Token], tok: Token) -> Setting:
    if flag["kind"] in ("store_true", "bool_optional", "store_const") and not values:
        neg = name in flag.get("negative_options", [])
        return Setting(flag["dest"], not neg, name, "", tok.span, tok.span)
    raw = " ".join(v.text for v in values)
    typed = [_typed(flag.get("type"), v.text) for v in values]
    value = typed if flag.get("nargs") in ("+", "*") else (typed[0] if typed else None)
    span = values[0].span if values else tok.span
    if values and values[-1].span and span and values[-1].span is not span:
        from kvlint.span import Span

        last = values[-1].span
        span = Span(span.path, span.line, span.col, last.end_line, last.end_col)
    return Setting(flag["dest"], value, name, raw, span, tok.span)


def _typed(kind: str | None, text: str):
    try:
        if kind in ("int", "human_int", "human_int_or_auto"):
            return int(text)
        if kind == "float":
            return float(text)
    except ValueError:
        return text
    if text.lower() in ("true", "false") and kind is None:
        return text.lower() == "true"
    return text
