"""Programs in C-like languages kvlint has no parser for (TypeScript and JavaScript: Pulumi, AWS CDK, a Node
launcher; Go, Java, Kotlin, C#, Rust): a launch written as a literal list of arguments.

A deployment written in code spells the engine's argv as a list literal: `args: ["--model", model,
"--max-model-len", "8192"]` (Pulumi, CDK), `exec.Command("vllm", "serve", m)` (Go), `List.of("--model", m)`
(Java), `vec!["--port", p]` (Rust). Every one of them is a bracketed, comma-separated run of string literals
and names, so this reader needs no grammar: it scans the tokens (strings, names, brackets; comments skipped),
takes each such run that names an engine's entry point or holds engine flags, resolves a name by the file's
own `NAME = "literal"` binding in any of these languages' spellings (`const m = "x"`, `m := "x"`, `val m =
"x"`, `String m = "x"`), and hands the words to the argv reader every other format uses, each word at its
place. The image and the GPU count are read from the object the list sits in (`image: "vllm/..."`,
`"nvidia.com/gpu": "1"`, ECS's `{type: "GPU", value: "1"}`), looked for a few brackets out.

Commands written whole inside a string (`execSync("vllm serve ...")`) are read as Jenkinsfiles' are
(kvlint.launches.notes.read_code); a file that names an engine and gives neither gets the KV008 of
kvlint.launches.named, as every kind does.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.launches.env import Field
from kvlint.lazyre import lazy
from kvlint.record import record, replace
from kvlint.sources.text import LineIndex
from kvlint.span import Span

if TYPE_CHECKING:
    from kvlint.launches.script import FoundLaunch

_TOKEN = lazy(r"""//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`"""
              r"""|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*|\d+(?:\.\d+)?|:=|\+=|[\[\](){},:=;+]""", re.DOTALL)
_HCL_TOKEN = lazy(r"#[^\n]*|" + _TOKEN.pattern, re.DOTALL)
_OPEN, _CLOSE = "[({", "])}"
_ITEMS = ("str", "name", "num")
_AFTER_ITEM = (",", "]", ")", "}")
_MAX_TOKENS = 200_000  # a bigger program is data (a bundle): its first tokens only
_MAX_LISTS = 512
_REACH = 3  # brackets out from a list where its image and GPU count are looked for
_TYPES = frozenset({"const", "let", "var", "val", "final", "String", "string", "str", "static", "private",
                    "public", "readonly", "export"})


@record
class _Tok:
    kind: str  # "str" | "name" | "punct"
    text: str  # a string's content (quotes off), a name, a bracket or punctuation mark
    start: int  # offset of the content in the file
    depth: int  # brackets open before it


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds): lists of arguments, then whole command strings."""
    from kvlint.launches.notes import read_code

    if "vllm" not in text and "sglang" not in text:
        return ReadResult(path)
    strings = read_code(path, text)
    found = launches_in(path, text)
    lines = {d.launch_span.line for d in strings.deployments if d.launch_span is not None}
    found = [d for d in found if d.launch_span is None or d.launch_span.line not in lines]
    return ReadResult(path, strings.deployments + found, strings.findings, comments=strings.comments)


def read_nix(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """A Nix module (`virtualisation.oci-containers.containers.vllm = { image = cfg.image; cmd = [ "--model"
    cfg.model ... ]; }`): its lists, whose items are separated by spaces, and its command strings."""
    from kvlint.launches.notes import read_code

    if "vllm" not in text and "sglang" not in text:
        return ReadResult(path)
    strings = read_code(path, text)
    lines = {d.launch_span.line for d in strings.deployments if d.launch_span is not None}
    found = [d for d in launches_in(path, text, hash_comments=True, spaced=True)
             if d.launch_span is None or d.launch_span.line not in lines]
    if not strings.deployments and not found:
        found = _attribute_launches(path, text)
    deployments = strings.deployments + found
    if "mkOption" in text:  # a module that declares its options is a template: its host configuration sets them
        deployments = [d for d in deployments if not _option_filled(d)]
    return ReadResult(path, deployments, strings.findings, comments=strings.comments)


def _option_filled(dep: Deployment) -> bool:
    """Whether a NixOS module's launch takes its model from the module's own options (`cmd = [ "--model" cfg.model
    ... ]` beside `options.services.vllm.model = lib.mkOption { ... }`, sample K356): the module is a template, as a
    Helm chart's is (counting rule 7), and the launch is where a host configuration enables it with a model."""
    return dep.model is not None and not dep.model_resolved


def _attribute_launches(path: str, text: str) -> list[Deployment]:
    """A module's settings written as an attribute set (`services.vllm = { image = "vllm/vllm-openai:latest";
    instances.qwen = { model = "org/m"; maxModelLen = 8192; }; }`, turn 37's K332 NixOS host): read as a chart's
    values are (kvlint.launches.nix_attrs), one launch per instance."""
    from kvlint.launches.helm import read_values
    from kvlint.launches.nix_attrs import read_attrsets

    parsed = read_attrsets(path, text)
    return read_values(parsed, parsed.docs[0])[0] if parsed is not None and parsed.docs else []


def launches_in(path: str, text: str, hash_comments: bool = False, spaced: bool = False) -> list[Deployment]:
    """The launches of the file's literal argument lists (also HCL's, whose comments start with `#` too: a
    Terraform ECS `command = [...]` beside `image = local.x`, kvlint.launches.hcl; and Nix's, `spaced`: items
    separated by spaces, an attribute path `cfg.model` bound by its last name)."""
    tokens = _concatenated(_tokens(text, hash_comments))
    return _launches(path, text, _grouped_items(tokens) if spaced else _calls_as_items(tokens), spaced)


_GROUP_REACH = 16  # tokens a parenthesized list item may hold


def _grouped_items(tokens: list[_Tok]) -> list[_Tok]:
    """Nix's list items that are expressions in parentheses (`[ "--port" (toString cfg.port) "--dtype" "auto" ]`,
    sample K352's NixOS modules) as one name-like item each, so the list stays one run of items: `(toString NAME)` is
    NAME (its binding, when it has one, is the string), any other group its words, left to the evaluation."""
    if not any(t.text == "(" and t.kind == "punct" for t in tokens):
        return tokens
    out: list[_Tok] = []
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        end = next((j for j in range(k + 1, min(len(tokens), k + _GROUP_REACH))
                    if tokens[j].text == ")" and tokens[j].depth == tok.depth), None) \
            if tok.text == "(" and tok.kind == "punct" else None
        inner = tokens[k + 1 : end] if end is not None else []
        if end is None or not inner or any(t.kind not in _ITEMS for t in inner):
            out.append(tok)
            k += 1
            continue
        words = [t.text for t in inner]
        named = words[1] if len(words) == 2 and words[0] == "toString" and inner[1].kind == "name" else " ".join(words)
        out.append(_Tok("name", named, inner[0].start, tok.depth))
        k = end + 1
    return out


def _tokens(text: str, hash_comments: bool = False) -> list[_Tok]:
    out: list[_Tok] = []
    depth = 0
    pattern = _HCL_TOKEN if hash_comments else _TOKEN
    for k, m in enumerate(pattern.finditer(text)):
        if k >= _MAX_TOKENS:
            break
        word = m.group()
        if word.startswith(("//", "/*", "#")):
            continue
        if word[0] in "\"'`":
            out.append(_Tok("str", _unescape(word[1:-1]), m.start() + 1, depth))
            continue
        if word in _CLOSE:
            depth = max(depth - 1, 0)
        kind = "num" if word[0].isdigit() else "name" if word[0].isalpha() or word[0] in "_$" else "punct"
        out.append(_Tok(kind, word, m.start(), depth))
        if word in _OPEN:
            depth += 1
    return out


def _concatenated(tokens: list[_Tok]) -> list[_Tok]:
    """A string joined to names or other strings with `+` (`"--model=" + h.Model`, turn 38's K343: Go's pod spec of
    an engine) is one string item, each name a `${name}` the program fills in, at the first part's place; a `+`
    between anything else is dropped, as before it was not a token."""
    if not any(t.text == "+" and t.kind == "punct" for t in tokens):
        return tokens
    out: list[_Tok] = []
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        if tok.kind == "punct" and tok.text == "+":
            k += 1
            continue
        j, parts = k, [tok]
        while tok.kind in _ITEMS and j + 2 < len(tokens) and tokens[j + 1].text == "+" \
                and tokens[j + 2].kind in _ITEMS and len(parts) < _MAX_PARTS:
            parts.append(tokens[j + 2])
            j += 2
        if len(parts) > 1 and any(p.kind == "str" for p in parts):
            text = "".join(p.text if p.kind != "name" else "${" + p.text + "}" for p in parts)
            out.append(_Tok("str", text, tok.start, tok.depth))
            k = j + 1
            continue
        out.append(tok)
        k += 1
    return out


_MAX_PARTS = 16


def _calls_as_items(tokens: list[_Tok]) -> list[_Tok]:
    """A call written as one item of a list (`"--max-model-len", tostring(var.len)`, `String.valueOf(n)`) is one
    name-like item (its value is the program's, left unresolved), so the list stays one run of items; a call
    whose own arguments make a command line (`exec.Command("vllm", "serve", m)`) stays a list of its own."""
    out: list[_Tok] = []
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        end = _call_end(tokens, k) if tok.kind == "name" and out and out[-1].text in ",[(" else None
        if end is None or any(_argv_word(t) for t in tokens[k + 2 : end]):
            out.append(tok)
            k += 1
            continue
        out.append(_Tok("name", tok.text + "()", tok.start, tok.depth))
        k = end + 1
    return out


def _call_end(tokens: list[_Tok], k: int) -> int | None:
    """The index of the `)` closing the call that starts at `k` (a name, then `(`), when an item separator or a
    closing bracket follows it."""
    if k + 1 >= len(tokens) or tokens[k + 1].text != "(":
        return None
    depth = tokens[k + 1].depth
    for j in range(k + 2, min(len(tokens), k + 64)):
        if tokens[j].text == ")" and tokens[j].depth == depth:
            return j if j + 1 < len(tokens) and tokens[j + 1].text in _AFTER_ITEM else None
    return None


def _unescape(body: str) -> str:
    return body.replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\") if "\\" in body else body


def _bindings(tokens: list[_Tok]) -> dict[str, str]:
    """`NAME = "literal"` in the spellings of these languages (a type word or annotation before or after the
    name is allowed): the last binding of a name wins."""
    out: dict[str, str] = {}
    for k in range(len(tokens) - 2):
        name, op, value = tokens[k], tokens[k + 1], tokens[k + 2]
        if name.kind == "name" and name.text not in _TYPES and op.text in ("=", ":=") and value.kind == "str":
            if k + 3 >= len(tokens) or tokens[k + 3].text in (";", ",", ")", "}") or tokens[k + 3].kind == "name":
                out[name.text] = value.text
        elif name.kind == "name" and op.text == ":" and value.kind == "name" and k + 4 < len(tokens) \
                and tokens[k + 3].text == "=" and tokens[k + 4].kind == "str":  # `const m: string = "x"`
            out[name.text] = tokens[k + 4].text
    return out


def _spaced_runs(tokens: list[_Tok]) -> list[tuple[int, int]]:
    """Nix's lists (`[ "--model" cfg.model "--port" "8000" ]`): each `[` followed by two or more strings and names
    and its `]`, as (first, last) token index; the items are then every token of the run, not every other."""
    out: list[tuple[int, int]] = []
    for k, tok in enumerate(tokens):
        if tok.text != "[" or tok.kind != "punct" or len(out) >= _MAX_LISTS:
            continue
        j = k + 1
        while j < len(tokens) and tokens[j].kind in _ITEMS:
            j += 1
        if j < len(tokens) and tokens[j].text == "]" and j - k > 2 and any(_argv_word(t) for t in tokens[k + 1 : j]):
            out.append((k + 1, j - 1))
    return out


def _runs(tokens: list[_Tok], names: dict[str, str]) -> list[tuple[int, int]]:
    """(first, last) token index of each bracketed run of two or more strings and names separated by commas
    (its brackets not included), at most _MAX_LISTS of them."""
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(tokens) and len(out) < _MAX_LISTS:
        if tokens[k].text not in _OPEN or tokens[k].kind != "punct":
            k += 1
            continue
        j, items = k + 1, 0
        while j + 1 < len(tokens) and tokens[j].kind in _ITEMS and tokens[j + 1].text in _AFTER_ITEM:
            items += 1
            if tokens[j + 1].text != ",":
                break
            j += 2
        if j < len(tokens) and tokens[j].text in _CLOSE and tokens[j - 1].text == ",":
            j -= 1  # a trailing comma
        elif j + 1 < len(tokens) and tokens[j + 1].text in _CLOSE:
            pass
        else:
            items = 0
        if items >= 2 and (any(_argv_word(tokens[i]) for i in range(k + 1, j + 1, 2))
                           or _names_engine(_program_before(tokens, k + 1), names)):
            out.append((k + 1, j))
            k = j + 1
        else:
            k += 1
    return out


def _argv_word(tok: _Tok) -> bool:
    """A string that makes a list look like a command line: a flag, or a word naming an engine (a list of service
    tags or hosts is none)."""
    return tok.kind == "str" and (tok.text.startswith("-") or "vllm" in tok.text or "sglang" in tok.text)


def _fields(text: str, index: LineIndex, path: str, tokens: list[_Tok], run: tuple[int, int],
            names: dict[str, str], spaced: bool = False) -> list[Field]:
    out: list[Field] = []
    for i in range(run[0], run[1] + 1, 1 if spaced else 2):
        tok = tokens[i]
        if tok.kind in ("str", "num"):
            out.append(_field(path, index, tok.start, tok.text, tok.text))
        elif (bound := _bound(tok.text, names, spaced)) is not None:
            out.append(_field(path, index, tok.start, tok.text, bound))
        else:
            ref = "${" + tok.text.replace(".", "_") + "}"
            span = _span(path, index, tok.start, len(tok.text))
            out.append(Field(ref, span, False, (ref,)))
    return out


def _bound(name: str, names: dict[str, str], attr_paths: bool = False) -> str | None:
    """A name's literal: its own binding, HCL's `local.X` by the local's (`locals { X = "..." }`), or with
    `attr_paths` (Nix) `cfg.X` by the attribute's (`cfg = { X = "..."; }`)."""
    if name in names:
        return names[name]
    head, _, rest = name.partition(".")
    return names.get(rest) if (head == "local" or attr_paths) and rest and "." not in rest else None


def _field(path: str, index: LineIndex, start: int, written: str, value: str) -> Field:
    if "${" in value:  # a template literal's `${expr}`: left to whoever runs the program
        missing = tuple(re.findall(r"\$\{[^}]*\}", value))
        return Field(value, _span(path, index, start, len(written)), False, missing)
    return Field(value, _span(path, index, start, len(written)))


def _span(path: str, index: LineIndex, start: int, length: int) -> Span:
    line, col = index.locate(start)
    end_line, end_col = index.locate(start + max(length, 1))
    return Span(path, line, col, end_line, end_col)


def _launches(path: str, text: str, tokens: list[_Tok], spaced: bool = False) -> list[Deployment]:
    from kvlint.launches.build import LaunchContext, ManifestGpu, finish
    from kvlint.launches.groups import is_launch
    from kvlint.launches.images import entrypoint_engine, stand_in
    from kvlint.launches.script import launch_in_argv

    names = _bindings(tokens)
    index = LineIndex(text)
    out: list[Deployment] = []
    product: tuple[str, int] | None = None
    chains = [] if spaced else _chains(tokens, names)
    taken = {i for chain in chains for i in chain}
    for run, chain in [(r, None) for r in (_spaced_runs(tokens) if spaced else _runs(tokens, names))
                       if r[0] not in taken] + [((c[0], c[0]), c) for c in chains]:
        if _runtime_options(tokens, run):
            continue
        fields = _chain_fields(text, index, path, tokens, chain, names) if chain \
            else _fields(text, index, path, tokens, run, names, spaced)
        written = _around(tokens, run, _image_written)
        if written is not None and stand_in(written[0]):
            continue  # `"image": FixturesImages.LLMD_INFERENCE_SIM`: a simulator's arguments (sample K153)
        image = _around(tokens, run, lambda t, k: _image_at(t, k, names, spaced))
        if image is not None and tokens[run[0]].start <= image[1] <= tokens[run[1]].start:
            image = None  # an item of the list itself is no image it is handed to
        found = launch_in_argv(fields, {}, image_default=entrypoint_engine(image[0]) if image else None)
        if found is None and _program_before(tokens, run[0]) is not None:
            found = launch_in_argv([_fields(text, index, path, tokens, (run[0] - 3,) * 2, names)[0], *fields], {})
        if found is None and fields and fields[0].text == "run":  # `spawn(DOCKER, ['run', ...])`: the program
            found = launch_in_argv([Field("docker", fields[0].span)] + fields, {})  # is given apart from its list
        if found is not None and found.joined:  # a list in code may be joined into a shell command: no KV013
            found = replace(found, joined=())
        if found is None:
            found = _by_flags(fields, image[0] if image else None)
        if found is None:
            continue
        count = _around(tokens, run, _gpus_at)
        if product is None:
            product = _instance_type(tokens)
        ctx = LaunchContext(image=image[0] if image else None,
                            image_span=_span(path, index, image[1], len(image[0])) if image else None)
        gpu = ManifestGpu(product[0] if product else None,
                          _span(path, index, product[1], len(product[0])) if product else None,
                          int(count[0]) if count else None,
                          _span(path, index, count[1], len(count[0])) if count else None)
        dep = finish(path, found, ctx, gpu)
        if dep.launch_span is None:  # arguments given to an image: the launch is where the list is written
            dep = replace(dep, launch_span=_span(path, index, tokens[run[0] - 1].start, 1))
        if is_launch(dep):
            out.append(dep)
    return out


# keys whose list is the container runtime's options (`docker run --ipc=host --device=...`), not the command, and
# keys of a container's other lists (mounts, ports, devices: `"/root/.cache/vllm:/root/.cache/vllm"` names an
# engine, but is no argument of it)
_RUNTIME_OPTIONS = frozenset({"extraoptions", "prerunextraoptions", "runoptions", "runargs", "dockerargs",
                              "podmanargs", "containeroptions", "dockeroptions",
                              "volumes", "mounts", "binds", "ports", "devices", "labels", "networks", "dependson",
                              "extrahosts", "tmpfs", "secrets", "volumesfrom", "capabilities", "capadd", "dns"})


def _program_before(tokens: list[_Tok], first: int) -> _Tok | None:
    """The program a call is given before its list of arguments (Node's `spawn("vllm", ["serve", m])`,
    `execFile(VLLM, [...])`, Python's `os.execvp("vllm", [...])`): the call's first argument, a string or a name,
    when the list whose first item is at `first` is its second."""
    k = first - 4  # `(`, PROGRAM, `,`, `[`
    if k < 0 or tokens[k].text != "(" or tokens[k + 2].text != "," or tokens[k + 3].text != "[" \
            or not _builder(tokens, k - 1):
        return None
    return tokens[k + 1] if tokens[k + 1].kind in ("str", "name") else None


_PROGRAMS = ("vllm", "sglang", "python", "python3", "trl")
_MAX_CHAIN = 120  # tokens a built command is looked for in after its program


def _chains(tokens: list[_Tok], names: dict[str, str]) -> list[list[int]]:
    """Commands built by calls on a process builder (Rust's `Command::new("vllm").arg("serve").arg(m)` or
    `.args([...])`, Deno's `new Deno.Command("vllm", { args: [...] })`, Java's `new ProcessBuilder("vllm")`): the
    program a call's only or first argument, then the words of the `.arg(X)` calls, `.args(...)` and `args: [...]`
    lists of the same statement, as token indexes (program first). Only where the program is an engine's or
    Python's, and its arguments are not already one list of their own (kvlint reads those as runs)."""
    out: list[list[int]] = []
    for k, tok in enumerate(tokens):
        if k == 0 or tokens[k - 1].text != "(" or k + 1 >= len(tokens) or tokens[k + 1].text not in (")", ","):
            continue
        if not _builder(tokens, k - 2):
            continue
        program = tok.text if tok.kind == "str" else names.get(tok.text, "") if tok.kind == "name" else ""
        if program.rsplit("/", 1)[-1] not in _PROGRAMS or (tokens[k + 1].text == "," and k + 2 < len(tokens)
                                                            and tokens[k + 2].kind in _ITEMS):
            continue  # `exec.Command("vllm", "serve", m)`: the call's own list
        words = _chained_words(tokens, k + 1, tokens[k - 1].depth)
        if len(words) >= 1 and len(out) < _MAX_LISTS:
            out.append([k, *words])
    return out


_BUILDERS = ("command", "processbuilder", "popen")


def _builder(tokens: list[_Tok], k: int) -> bool:
    """Whether the call whose name ends at `k` makes a process (`Command::new`, `Deno.Command`, `ProcessBuilder`,
    `spawn`): a resource's constructor given a name (`new k8s.apps.v1.StatefulSet("vllm", {...})`) is none."""
    if k < 0 or tokens[k].kind != "name":
        return False
    name = tokens[k].text
    if name == "new" and k >= 3 and tokens[k - 1].text == ":" and tokens[k - 3].kind == "name":
        name = tokens[k - 3].text  # Rust's `Command::new`
    last = name.rsplit(".", 1)[-1].lower()
    return last.endswith(_BUILDERS) or last.startswith(("spawn", "exec"))


def _chained_words(tokens: list[_Tok], k: int, depth: int) -> list[int]:
    """The argument words after the program at `k`: `.arg(X)`, `.args(X, ...)` / `.args([X, ...])`, `args: [X, ...]`
    (items only), until the statement ends (a `;` at the call's depth, or the text leaves its brackets)."""
    words: list[int] = []
    end = min(len(tokens), k + _MAX_CHAIN)
    j = k
    while j < end:
        tok = tokens[j]
        if tok.depth < depth or (tok.text == ";" and tok.depth <= depth):
            break
        if tok.kind == "name" and tok.text in ("arg", "args") and j + 2 < end and tokens[j + 1].text in "(:":
            j += 2
            j += tokens[j].text == "[" and tokens[j].kind == "punct"
            while j + 1 < end and tokens[j].kind in _ITEMS and tokens[j + 1].text in (",", ")", "]"):
                words.append(j)
                if tokens[j + 1].text != ",":
                    break
                j += 2
        j += 1
    return words


def _chain_fields(text: str, index: LineIndex, path: str, tokens: list[_Tok], chain: list[int],
                  names: dict[str, str]) -> list[Field]:
    return [_fields(text, index, path, tokens, (i, i), names)[0] for i in chain]


def _names_engine(program: _Tok | None, names: dict[str, str]) -> bool:
    """A program (a string, or a name bound to one) that names an engine: its list is the engine's arguments."""
    if program is None:
        return False
    text = program.text if program.kind == "str" else names.get(program.text, "")
    return "vllm" in text or "sglang" in text


def _runtime_options(tokens: list[_Tok], run: tuple[int, int]) -> bool:
    """A list written under a key that holds the container runtime's own options (NixOS oci-containers'
    `extraOptions = [ "--ipc=host" ]`, a devcontainer's `runArgs`) or another list of the container's
    (`volumes`, `ports`, `devices`): they go to docker, never to the engine."""
    k = run[0] - 3  # KEY, `=` or `:`, `[`
    key = tokens[k].text.strip('"').rsplit(".", 1)[-1] if k >= 0 and tokens[k + 1].text in ("=", ":") else ""
    return key.lower().replace("_", "") in _RUNTIME_OPTIONS


def _by_flags(fields: list[Field], image: str | None = None) -> FoundLaunch | None:
    """A list of flags with a model (`["--model", local.path, "--max-model-len", ...]`, a Terraform local the
    container's `args` takes) whose image is not written as a literal beside it: the engine its flags are."""
    from kvlint.launches.byflags import model_flag_in
    from kvlint.launches.infer import engine_from_flags
    from kvlint.launches.script import FoundLaunch

    engine = engine_from_flags(fields) if model_flag_in(fields) else None
    if engine is None:
        return None
    note = f"engine {engine} inferred from the flags: the list's image is not a literal beside it" if image is None \
        else f"engine {engine} inferred from the flags handed to {image}, whose own entry point is no server"
    return FoundLaunch(engine, tuple(fields), None, {}, notes=(note,))


def _around(tokens: list[_Tok], run: tuple[int, int], probe) -> tuple[str, int] | None:  # type: ignore[no-untyped-def]
    """What `probe` finds in the brackets around a run, nearest first, up to _REACH brackets out."""
    depth = tokens[run[0]].depth
    lo, hi = run[0], run[1]
    for level in range(depth - 1, max(depth - 1 - _REACH, -1), -1):
        while lo > 0 and tokens[lo - 1].depth > level:
            lo -= 1
        while hi + 1 < len(tokens) and tokens[hi + 1].depth > level:
            hi += 1
        for k in range(lo, hi + 1):
            found = probe(tokens, k)
            if found is not None:
                return found
    return None


def _image_written(tokens: list[_Tok], k: int) -> tuple[str, int] | None:
    """The image as written beside the list, a string or any name (`image: SIM_IMAGE`), whether or not it is bound."""
    tok = tokens[k]
    if tok.text.lower() in ("image", "imagename", "imageuri") and k + 2 < len(tokens) \
            and tokens[k + 1].text in (":", "="):
        return tokens[k + 2].text, tokens[k + 2].start
    return None


def _image_at(tokens: list[_Tok], k: int, names: dict[str, str], attr_paths: bool = False) -> tuple[str, int] | None:
    """`image: "x"` / `image = "x"` / `"image": "x"` / `Image: "x"` (or a name bound to one: `image =
    local.container_image`), or a call naming a registry image (`ContainerImage.fromRegistry("vllm/...")`)."""
    tok = tokens[k]
    if _image_written(tokens, k) is not None:
        value = tokens[k + 2]
        if value.kind == "str":
            return value.text, value.start
        bound = _bound(value.text, names, attr_paths) if value.kind == "name" else None
        return (bound, value.start) if bound is not None else None
    if tok.kind == "name" and tok.text.endswith(("fromRegistry", "from_registry")) and k + 2 < len(tokens) \
            and tokens[k + 2].kind == "str":
        return tokens[k + 2].text, tokens[k + 2].start
    if tok.kind == "str" and "/" in tok.text and k > 0 and tokens[k - 1].text in ",(" and _engine_image(tok.text):
        return tok.text, tok.start  # a call's argument that is an engine's image (Go's `enginePod(h, "vllm",
        # "vllm/vllm-openai:v0.25.1", cmd, args)`, turn 38's K343)
    return None


def _engine_image(text: str) -> bool:
    from kvlint.launches.images import shipped_engine

    return " " not in text and shipped_engine(text) is not None


# a cloud instance type that names its cards: AWS `g5.12xlarge`, Azure `Standard_NC24ads_A100_v4`, GCP `a2-highgpu-1g`
_INSTANCE = lazy(r"^(?:[a-z]+\d[a-z]*\.\d*x?large|Standard_N[A-Za-z0-9_]+|[ag]\d-[a-z]+gpu-\d+g)$")


def _instance_type(tokens: list[_Tok]) -> tuple[str, int] | None:
    """The first string of the file that is a cloud instance type the catalogue maps to a GPU (the node a
    Terraform ECS service or a CDK cluster runs its tasks on), or a non-GPU device's (Inferentia: said so)."""
    from kvlint.errors import KvlintError
    from kvlint.gpus import accelerator_kind, lookup_gpu

    for tok in tokens:
        if tok.kind != "str" or not _INSTANCE.match(tok.text):
            continue
        if accelerator_kind(tok.text) is not None:
            return tok.text, tok.start
        try:
            lookup_gpu(tok.text)
        except KvlintError:
            continue
        return tok.text, tok.start
    return None


def _gpus_at(tokens: list[_Tok], k: int) -> tuple[str, int] | None:
    """`"nvidia.com/gpu": "2"` / `"amd.com/gpu": 2`, or ECS's `{type: "GPU", value: "2"}`."""
    tok = tokens[k]
    if tok.text in ("nvidia.com/gpu", "amd.com/gpu") and k + 2 < len(tokens) and tokens[k + 1].text in (":", "="):
        value = tokens[k + 2]
        return (value.text, value.start) if value.text.isdigit() else None
    if tok.kind == "str" and tok.text == "GPU":  # `type: "GPU", value: "2"` (JSON, CDK) or `type = "GPU"` (HCL)
        for j in range(k + 1, min(k + 5, len(tokens) - 2)):
            if tokens[j].text == "value" and tokens[j + 1].text in (":", "=") and tokens[j + 2].text.isdigit():
                return tokens[j + 2].text, tokens[j + 2].start
        return None
    return None
