"""A TOML file's tables read as engine settings: `[server]` with `model = "org/m"` beside keys that are the engine's
flags (`max_model_len = 8192`, `gpu_memory_utilization = 0.9`), as the same map in YAML is read.

A harness's experiment config (sample K475's `configs/*.toml`, whose `[server]` table the harness turns into `vllm
serve`) keeps the launch's settings in TOML, which has no reader of its own here: TOML's tables and one-line key/value
pairs are written out as YAML with every line at its place (a table header becomes a top-level key, its pairs indented
under it, each value at its own column where the spacing allows), and that text goes to the YAML reader, whose
structured-settings search (kvlint.launches.structured) decides, and its command-string reading reads a value that
holds an engine's command (a service manager's `command = "..."`). Anything YAML would read otherwise (multi-line
strings, their lines included, inline tables, arrays of tables, dotted keys) is left out, a blank line in its place.
"""

from __future__ import annotations

from kvlint.launches import ReadResult
from kvlint.lazyre import lazy

_HEADER = lazy(r"^[ \t]*\[([A-Za-z0-9_.-]+)\][ \t]*(?:#.*)?$")
_PAIR = lazy(r"^[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*(.*)$")
# a value YAML reads as TOML does: a basic or literal string on one line, a number, a boolean, a one-line array of those
_VALUE = lazy(r"""^(?:"(?:[^"\\]|\\.)*"|'[^']*'|[-+]?[0-9][0-9_.eE+-]*|true|false|\[[^\[\]{}=]*\])[ \t]*(?:#.*)?$""")
# a pair opening a multi-line string (`on-activate = '''`): its lines are the string's text, never pairs
_MULTILINE = lazy(r"""^[ \t]*[A-Za-z0-9_."-]+[ \t]*=[ \t]*('{3}|"{3})""")
# what a settings table holds: an engine's option name beside a model key (asked before anything is built)
_SETTING_WORDS = lazy(r"(?m)^[ \t]*(?:max_model_len|gpu_memory_utilization|tensor_parallel_size|mem_fraction_static|"
                      r"context_length|max_num_seqs|kv_cache_dtype)[ \t]*=")


def read(path: str, text: str, named: bool = False) -> ReadResult | None:
    """The launches the file's tables hold, read as YAML; None when no table holds a model and an engine setting.
    `named`: the text names an engine's entry point (kvlint.launches.textfile), which a string value may hold as a
    command (Flox's `[services.sglang] command = "exec python3.12 -m sglang.launch_server ..."`, sample K504)."""
    if "model" not in text or (not named and _SETTING_WORDS.search(text) is None):
        return None
    from kvlint.launches.read import read_yaml

    result = read_yaml(path, as_yaml(text), None)
    if not result.deployments or any(f.code == "KV001" for f in result.findings):
        return None  # YAML read the text otherwise than TOML would: nothing said of it
    return result


def as_yaml(text: str) -> str:
    """The TOML text as YAML of the same lines: `[t]` as `t:`, `k = v` under it as ` k: v` (the value's column kept
    when the `=` had blanks around it), anything else blank."""
    out: list[str] = []
    in_table = False
    closing = ""  # the delimiter of a multi-line string the line is inside, whose lines are its text, not pairs
    for line in text.split("\n"):
        if closing:
            out.append("")
            closing = "" if closing in line else closing
            continue
        opened = _MULTILINE.match(line)
        if opened is not None and line.count(opened.group(1)) == 1:
            out.append("")
            closing = opened.group(1)
            continue
        header = _HEADER.match(line)
        if header is not None:
            out.append(header.group(1) + ":")
            in_table = True
            continue
        pair = _PAIR.match(line)
        if pair is None or _VALUE.match(pair.group(2)) is None:
            out.append("")
            continue
        key, value = pair.group(1), pair.group(2)
        indent = " " if in_table else ""
        column = pair.start(2)  # where the value is in the TOML line
        head = f"{indent}{key}:"
        out.append(head + " " * max(1, column - len(head)) + value)
    return "\n".join(out)
