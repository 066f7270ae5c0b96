"""The engines' option tables, loaded once, and the lookups argparse does on them.

A linter that is looser than the engine misses launches that crash at start-up, and one that is
stricter flags launches that work, so the tables are the engines' own (kvlint/data/*_flags.json,
extracted from the release wheels) and a name is matched as argparse matches it: exact option,
then unique prefix. The parser, the `--config` reader and the removed-flag rule share these lookups.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from kvlint.data import load_json
from kvlint.engines.registered import engine_names, facts
from kvlint.errors import UnknownFlagError
from kvlint.record import record


@record
class FlagSpec:
    dest: str
    options: tuple[str, ...]
    kind: str  # value | append | store_true | store_const | bool_optional | help
    type: str = "str"  # str | int | float | human_int | human_int_or_auto | json | json_or_str | lower_snake
    negative: tuple[str, ...] = ()
    choices: tuple[Any, ...] | None = None
    nargs: str | int | None = None
    const: Any = None
    default: Any = None
    deprecated: bool = False
    valid_values: tuple[str, ...] | None = None  # checked after argparse (vLLM CacheDType): still a start-up failure


class Specs(Mapping[str, FlagSpec]):
    """Option string -> FlagSpec, each spec made the first time it is looked up: a launch names a dozen of
    an engine's 300 options, and making them all cost every one-file run for nothing."""

    def __init__(self, entries: list[dict]) -> None:
        self._entries = entries
        self._index = {opt: i for i, e in enumerate(entries) for opt in (*e["options"], *e.get("negative_options", ()))}
        self._made: dict[int, FlagSpec] = {}
        self._prefixed: dict[str, tuple[str, ...]] = {}

    def __getitem__(self, option: str) -> FlagSpec:
        return self._at(self._index[option])

    def _at(self, i: int) -> FlagSpec:
        spec = self._made.get(i)
        if spec is None:
            spec = self._made[i] = _spec(self._entries[i])
        return spec

    def __contains__(self, option: object) -> bool:
        return option in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def starting_with(self, prefix: str) -> list[str]:
        """The options `prefix` abbreviates (`--` ones for a `--` prefix, single-dash ones otherwise), sorted;
        memoised (a repository repeats its unknown or abbreviated flags, and each scan reads every option)."""
        found = self._prefixed.get(prefix)
        if found is None:
            if len(self._prefixed) >= 4096:
                self._prefixed.clear()
            double = prefix.startswith("--")
            found = self._prefixed[prefix] = tuple(sorted(o for o in self._index if o.startswith(prefix)
                                                          and o.startswith("--") == double))
        return list(found)

    def in_order(self) -> tuple[FlagSpec, ...]:
        """Every spec, in the table's order (all made)."""
        return tuple(self._at(i) for i in range(len(self._entries)))

    def by_dest(self, dest: str) -> FlagSpec | None:
        """The first spec that stores into `dest`."""
        return next((self._at(i) for i, entry in enumerate(self._entries) if entry["dest"] == dest), None)


@record
class FlagTable:
    engine: str
    version: str
    by_option: Specs
    removed: dict[str, dict]
    underscore_to_dash: bool
    dotted_json_keys: bool
    model_dest: str
    server: str | None = None  # a second server the engine starts with a parser of its own (None: the engine's)
    # option families it takes undeclared: (prefix, suffix, takes_value) with takes_value True | False | "optional"
    dynamic: tuple[tuple[str, str, bool | str], ...] = ()
    # dests the syntax's unset_words leave at their default (vLLM's optional_type: `--quantization None`)
    none_unset: frozenset[str] = frozenset()

    @property
    def flags(self) -> tuple[FlagSpec, ...]:
        """Every option's spec, in the engine's order."""
        return self.by_option.in_order()


def _spec(entry: dict) -> FlagSpec:
    choices = entry.get("choices")
    return FlagSpec(
        dest=entry["dest"], options=tuple(entry["options"]), kind=entry["kind"], type=entry.get("type", "str"),
        negative=tuple(entry.get("negative_options", ())), choices=tuple(choices) if choices is not None else None,
        nargs=entry.get("nargs"), const=entry.get("const"), default=entry.get("default"),
        deprecated=entry.get("deprecated", False),
        valid_values=tuple(entry["valid_values"]) if "valid_values" in entry else None,
    )


@lru_cache(maxsize=4)
def flag_table(engine: str, server: str | None = None) -> FlagTable:
    """The engine's option table, loaded once from package data; `server` names another server the engine starts
    with a parser of its own (`sglang serve` on a diffusion model: facts.SERVERS)."""
    if engine not in engine_names():
        raise UnknownFlagError(f"unknown engine {engine!r}: expected one of {', '.join(engine_names())}")
    data = server_data(engine, server) if server else _data(engine)
    removed = {opt: r for r in data["removed"] for opt in r["options"]}
    dynamic = tuple((d.get("prefix", ""), d.get("suffix", ""), d["takes_value"])
                    for d in data.get("dynamic_options", ()))
    return FlagTable(engine, data["version"], Specs(data["flags"]), removed, data["underscore_to_dash"],
                     data["dotted_json_keys"], data["model_dest"], server, dynamic,
                     frozenset(data.get("none_unset", ())))


@lru_cache(maxsize=2)
def _data(engine: str) -> dict[str, Any]:
    """The engine's table as package data holds it, parsed once (read-only: the specs and on_release share it)."""
    return load_json(facts(engine).FLAGS_FILE)


def servers(engine: str) -> dict[str, str]:
    """The other servers the engine starts (name -> its flag table's data file); vLLM has none."""
    found: dict[str, str] = getattr(facts(engine), "SERVERS", {})
    return found


@lru_cache(maxsize=2)
def server_data(engine: str, server: str) -> dict[str, Any]:
    """A second server's table as package data holds it (its flags, option families, registry ids, dispatch)."""
    files = servers(engine)
    if server not in files:
        raise UnknownFlagError(f"{engine} has no {server!r} server: expected one of {', '.join(files) or 'none'}")
    return load_json(files[server])


def dynamic_option(table: FlagTable, name: str) -> bool | str | None:
    """Whether the server takes `name` as one of its undeclared option families (`--vae-path X`,
    `--vae-config.key X`): its takes_value (True, False, "optional"), or None when no family has it."""
    if not name.startswith("--"):
        return None
    return next((takes for prefix, suffix, takes in table.dynamic
                 if (prefix and name.startswith(prefix) and len(name) > len(prefix))
                 or (suffix and name.endswith(suffix) and len(name) > len(suffix) + 2)), None)


@lru_cache(maxsize=1024)
def on_release(engine: str, option: str, version: str | None) -> bool | None:
    """Whether `version` of the engine takes `option` (a fix must work on the release the launch pins): True, False,
    or None when the tables cannot say (a release older than the first one read, the flag seen from that one on,
    and no `added` version recorded). None for `version`: the current release."""
    import re

    def key(text: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", text)[:3])

    data = _data(engine)
    entry = next((e for e in data["flags"] if option in e["options"]), None)
    if entry is None:
        return False
    if version is None or not re.search(r"\d", version):
        return True
    want, read = key(version), data["versions_read"]
    if entry.get("added"):
        return want >= key(entry["added"])
    first = entry["seen_in"][0]
    if want >= key(first):
        return True
    return False if any(want <= key(r) < key(first) for r in read) else None


@lru_cache(maxsize=1024)
def older_choice(engine: str, option: str, value: str) -> tuple[str, str, str] | None:
    """(first release, last release, first release without it) of a choice older releases of the option listed and
    the newest read does not (`--fp4-gemm-backend cutlass`, SGLang 0.5.10 to 0.5.13: sample K276), read from every
    release's choice lists; None when no release the table read listed it."""
    entry = next((e for e in _data(engine)["flags"] if option in e["options"]), None)
    era = (entry.get("older_choices") or {}).get(value.strip("\"'")) if entry is not None else None
    return (era[0], era[1], era[2]) if era else None


@lru_cache(maxsize=1024)
def first_seen(engine: str, dest: str) -> tuple[str, str] | None:
    """(first option, first release read with it) of the engine's flag for a setting name; None for a name the
    table does not hold."""
    entry = next((e for e in _data(engine)["flags"] if e.get("dest") == dest and e.get("seen_in")), None)
    return (entry["options"][0], entry.get("added") or entry["seen_in"][0]) if entry is not None else None


@record
class ConfigKey:
    """A key of a JSON-valued option (`num_speculative_tokens` of `--speculative-config`), with the first and the
    last release whose config dataclass was read with it."""

    option: str  # the JSON-valued option, as the parser spells it
    key: str
    first: str
    last: str


@lru_cache(maxsize=1024)
def config_key(engine: str, flag: str) -> ConfigKey | None:
    """The JSON-valued option whose key an unknown flag names (`--speculative-token-tree` is `speculative_token_tree`
    of `--speculative-config`, sample K482), or None. Only a key of two or more words held by one option: `--backend`
    is a key of four, and a one-word key (`--method`) is too common a word to say which option was meant."""
    key = flag.lstrip("-").partition("=")[0].replace("-", "_")
    if "_" not in key:
        return None
    held = [(dest, keys[key]) for dest, keys in _data(engine).get("json_keys", {}).items() if key in keys]
    if len(held) != 1:
        return None
    dest, (first, last) = held[0]
    seen = first_seen(engine, dest)
    return ConfigKey(seen[0], key, first, last) if seen is not None else None


def ambiguous_since(engine: str, hits: tuple[str, ...]) -> str | None:
    """The first release read where two or more of `hits` exist, when an earlier release read had at most one.

    argparse's abbreviation is ambiguous only where several options share the prefix: `--disable-flashinfer`
    was SGLang 0.5.4's unique prefix of one option and is ambiguous from 0.5.12, when a second one came. None
    when the tables read it ambiguous on every release (or on none)."""
    import re

    def key(text: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", text)[:3])

    read = sorted(_data(engine)["versions_read"], key=key)
    counts = [sum(bool(on_release(engine, h, v)) for h in hits) for v in read]
    if all(n >= 2 for n in counts) or not any(n >= 2 for n in counts):
        return None
    return read[next(i for i, n in enumerate(counts) if n >= 2)]


def earlier(version: str, than: str) -> bool:
    """Whether release `version` comes before `than`, by their first three numbers (`0.4.10.post2` before `0.5.4`);
    False when either names no number."""
    import re

    def key(text: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", text)[:3])

    return bool(key(version)) and bool(key(than)) and key(version) < key(than)


@lru_cache(maxsize=8)
def releases_read(engine: str) -> tuple[str, ...]:
    """The releases whose parsers the engine's table was read from, oldest first."""
    import re

    return tuple(sorted(_data(engine)["versions_read"], key=lambda v: tuple(int(p) for p in re.findall(r"\d+", v)[:3])))


def removed_flag(engine: str, option: str) -> dict | None:
    """What the table knows of a flag the engine no longer takes: last_seen / absent_in versions, replacement.

    Rules compare last_seen with a deployment's pinned engine version: `--swap-space` is fine on 0.15.
    """
    table = flag_table(engine)
    return table.removed.get(normalise(table, option.partition("=")[0]))


def normalise(table: FlagTable, name: str) -> str:
    """vLLM rewrites `_` to `-` in the name part (up to the first `.`) of every `--` token."""
    if table.underscore_to_dash and name.startswith("--"):
        head, dot, tail = name[2:].partition(".")
        return "--" + head.replace("_", "-") + dot + tail
    return name


def match(table: FlagTable, name: str) -> tuple[FlagSpec | None, str, list[str]]:
    """(spec, option string matched, other candidates) as argparse resolves exact names and unique prefixes.

    Prefixes apply to `--long` options and, as in argparse, to single-dash ones (`-t` would find `-tp`).
    """
    if name in table.by_option:
        return table.by_option[name], name, []
    hits = table.by_option.starting_with(name)
    if len(hits) == 1:
        return table.by_option[hits[0]], hits[0], []
    return None, name, hits


MAX_SUGGEST = 100  # characters; the longest option of either engine has 62


def did_you_mean(table: FlagTable, name: str) -> str | None:
    """The option a mistyped name most likely meant: its dashed spelling first, then the closest string."""
    if len(name) > MAX_SUGGEST:
        return None  # no option is that long; difflib on a generated megabyte-long "flag" takes seconds
    if name.startswith("--") and "_" in name:
        spec, opt, _ = match(table, "--" + name[2:].replace("_", "-"))
        if spec is not None:
            return opt
    return _closest(tuple(table.by_option), name)


@lru_cache(maxsize=4096)
def _closest(options: tuple[str, ...], name: str) -> str | None:
    """Memoised: a generated file repeating one mistyped flag a thousand times asks once (a few ms each)."""
    from kvlint.suggest import close_matches  # only for a flag the engine does not know

    close = close_matches(name, options, n=3, cutoff=0.6)
    return next((c for c in close if _words_close(name, c)), None)


def _words_close(name: str, option: str) -> bool:
    """A did-you-mean only where the words that differ are alike, not where a shared head makes the whole
    string look close: `--enable-kvstore` is not `--enable-trace` (kvstore / trace: 0.5), while
    `--max-model-length` is `--max-model-len` and `--enable-prefix-cache` `--enable-prefix-caching`."""
    from difflib import SequenceMatcher

    a, b = name.lstrip("-").replace("_", "-").split("-"), option.lstrip("-").split("-")
    while a and b and a[0] == b[0]:
        a, b = a[1:], b[1:]
    if not a or not b:
        return True
    if len(a) > len(b) and a[-len(b):] == b:
        return False  # words put in front of a whole option name another one: `--draft-model` is no `--model` (K401)
    if SequenceMatcher(None, "-".join(a), "-".join(b)).ratio() <= 0.5:
        return False
    # word by word too: one word added or dropped is a slip (`--served-model` for `--served-model-name`), two are
    # another option (`--num-gpus` is not `--kt-num-gpu-experts`, `--temperature` not `--chat-template`)
    return len(_unmatched(a, b)) + len(_unmatched(b, a)) <= 1


def _unmatched(words: list[str], others: list[str]) -> list[str]:
    """The words with no alike word among `others`: a typo of it (`lenght`), or a shortening (`mem`, `cache`)."""
    from difflib import SequenceMatcher

    def alike(x: str, y: str) -> bool:
        head = len(os.path.commonprefix((x, y)))
        return SequenceMatcher(None, x, y).ratio() >= 0.75 or (head >= 3 and head >= 0.6 * min(len(x), len(y)))

    return [w for w in words if not any(alike(w, o) for o in others)]
