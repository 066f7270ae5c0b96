"""One file in, ReadResult out: choose the reader by name and content, turn problems into KV001."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from kvlint.deployment import Deployment
from kvlint.findings import Finding, Severity
from kvlint.launches import ReadResult
from kvlint.launches.env import supplying
from kvlint.launches.kinds import Kind, kind_for, reader_of, reads_bytes, sniffed
from kvlint.launches.yamlfile import deployments_in
from kvlint.lazyre import lazy
from kvlint.limits import LimitExceeded, file_limits
from kvlint.record import replace
from kvlint.sources import yaml as yaml_source
from kvlint.sources.text import SourceError, decode, read_file, read_stdin
from kvlint.span import Span

KV001 = ("KV001", "unreadable-input")
# Every launch kvlint reads is written with one of these words: an engine's name (command, module, image),
# a model key or flag (`--model`, `model:`, `modelName`, `--max-model-len`), a KAITO Workspace (a preset
# name is its model), a GPU request, the stem of a sizing flag (a vLLM --config file of flags alone:
# `tensor-parallel-size`, `gpu-memory-utilization`, `max-num-seqs`, `kv-cache-dtype`, SGLang's
# `mem-fraction-static`, `context-length`), Ray Serve's `LLMConfig` or a kvlint directive. Every engine entry
# point and image (kvlint.launches.named.ENTRY_MARKERS) holds one of them: tests/launches/test_kinds.py. A file
# with none of them cannot hold a launch and costs one scan instead of a parse (in a monorepo most YAML files
# are not deployments).
MAY_LAUNCH = lazy(r"vllm|sglang|model|kaito|kvlint|gpu|parallel|kv[-_]cache|max[-_]num|mem[-_]fraction|"
                        r"context[-_]length|llmconfig", re.IGNORECASE)


# MAY_LAUNCH's words as plain substrings of lowered ASCII text ([-_] spelled both ways): every file is tested, and
# a dozen `in` tests on the lowered text cost less than the case-blind pattern's scan of every character
_WORDS = ("model", "vllm", "sglang", "gpu", "kvlint", "kaito", "parallel", "kv-cache", "kv_cache", "max-num",
          "max_num", "mem-fraction", "mem_fraction", "context-length", "context_length", "llmconfig")


def may_hold_launch(text: str) -> bool:
    """False for a text no launch can be in: `kvlint check` then skips the parse (`inspect` still parses). Other
    than ASCII text keeps the pattern, whose case folding matches letters lower() does not map (the Kelvin sign)."""
    if text.isascii():
        lowered = text.lower()
        return any(word in lowered for word in _WORDS)
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
        if _data_not_notes(path, exc.reason):
            return ReadResult(path, skipped=f"{exc.reason}: a .txt like this is data, not deployment notes")
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


def _data_not_notes(path: str, reason: str) -> bool:
    """A file of a size-bounded kind (notes, `*.txt`) that is too large or not text is data whatever way it
    came in (the pre-commit hook names every changed .txt): passed over, never a KV001 error."""

    kind = kind_for(path)
    return kind is not None and bool(kind.walk_bytes) and not reason.startswith(("cannot read", "not a regular"))


def _load(path: str) -> str:
    if path == "-":
        return decode(read_stdin())
    return read_file(path, bytes_ok=reads_bytes(path))


def _dispatch(path: str, text: str, as_vllm_config: bool | None = None) -> ReadResult:
    """The reader of the kind the file's name claims (kvlint.launches.kinds), else of the kind its first
    words claim."""

    if not text.strip():
        return ReadResult(path, skipped="empty file")
    kind = kind_for(path) or sniffed(text)
    if kind.name == "shell" and _FENCE_FIRST.match(text) is not None:
        kind = kind_for("pasted.md") or kind  # a runbook saved under a script's name (sample K300's `.sh`)
    if path.lower().endswith(JINJA_SUFFIXES) and "{" in text:
        return _as_template(path, text, kind, as_vllm_config)
    result = reader_of(kind)(path, text, as_vllm_config)
    if _template_not_yaml(kind.name, text, result):
        return _as_template(path, text, kind, as_vllm_config)
    if kind.name in ("yaml", "json") and _unparsed(result) and _INI_SECTION.match(text) is not None:
        kind = kind_for("unit.service") or kind  # a systemd unit or INI file under a YAML name (sample K539):
        result = reader_of(kind)(path, text, as_vllm_config)  # read as the text it is, not reported as bad YAML
    return _never_silent(path, text, kind, result)


# an INI-style file: its first line that is not blank or a comment is a `[Section]` header, and a later line a
# `Key=Value` (a systemd unit, a `.desktop` or `.ini` file); YAML's flow sequence `[a, b]` has no `=` line after it
_INI_SECTION = lazy(r"(?:[ \t\r]*(?:[#;][^\n]*)?\n)*\[[A-Za-z][\w .-]*\][ \t]*\r?\n(?:[ \t\r]*(?:[#;][^\n]*)?\n)*"
                    r"[A-Za-z][\w.-]*[ \t]*=")


# a Markdown fence as a file's first line (```` ```bash ````): no shell script starts with one (backquotes would
# substitute a command named by the rest of the line), a pasted runbook does
_FENCE_FIRST = lazy(r"\s*(?:```|~~~)[\w+-]*[ \t]*\n")


def _as_template(path: str, text: str, kind: Kind, as_vllm_config: bool | None) -> ReadResult:
    """A Jinja (or Terraform) template read as the file it renders: its statements blanked, each condition true,
    and the launches only its `{% else %}` arms give."""
    from kvlint.sources.templates import blank_statements, else_rendering

    other = else_rendering(text) if "{%" in text else None
    text = blank_statements(text)  # `{% if %}`, `{% for %}`, `{# #}` of a Jinja template: not the file's words
    text = _TF_DIRECTIVE.sub(lambda m: " " * len(m.group()), text) if "%{" in text else text  # Terraform's
    marked = "$" in text or "__" in text or "@" in text  # what every whole-line placeholder holds
    text, filled = _placeholders_blanked(text) if marked and kind.name in ("yaml", "json") else (text, ())
    result = reader_of(kind)(path, text, as_vllm_config)
    if filled:
        result.deployments[:] = [replace(d, notes=(*d.notes, *filled)) for d in result.deployments]
    if other is not None:
        result = _with_other_arms(result, reader_of(kind)(path, blank_statements(other), as_vllm_config))
    return _never_silent(path, text, kind, result)


def _never_silent(path: str, text: str, kind: Kind, result: ReadResult) -> ReadResult:
    """The result, with the file's one KV008 when it names an engine and gave no launch (kvlint.launches.named)."""
    if not result.deployments and result.skipped is None and not any(f.code in _SAID for f in result.findings):
        from kvlint.launches.named import passed_over

        note = passed_over(path, text, kind.name)
        if note is not None and not _chart_values(path, kind.name):
            result.findings.append(note)
    return result


def _with_other_arms(result: ReadResult, other: ReadResult) -> ReadResult:
    """The launches of a template's first arms and, from its other rendering, those on lines the first did not
    give (each arm of a top-level `{% if %} ... {% else %}` is an alternative launch, counting rule 4)."""
    def lines(d: Deployment) -> set[int]:
        return {s.line for s in (d.launch_span, d.model_span) if s is not None}

    seen = set().union(*(lines(d) for d in result.deployments)) if result.deployments else set()
    extra = [d for d in other.deployments if not lines(d) & seen]
    if extra:
        result.deployments.extend(extra)
        result.findings[:] = [f for f in result.findings if f.code != "KV008"]
    return result


JINJA_SUFFIXES = (".j2", ".jinja", ".jinja2")


def _template_not_yaml(kind: str, text: str, result: ReadResult) -> bool:
    """A Jinja or Terraform template under a YAML name (an Ansible role's `docker-compose.yaml` with `{% if %}`
    lines, a `%{ for }` directive): not YAML as written, so it is read as the template it is, as a `.j2` file is,
    rather than reported as invalid YAML. Only when the text does not parse: a `{%` inside a valid file's string is
    that string's."""
    from kvlint.sources.yaml import UNREADABLE_TEMPLATE

    if kind not in ("yaml", "json") or not any(f.code == "KV001" and (f.severity == Severity.ERROR or
                                                                      f.message.startswith(UNREADABLE_TEMPLATE))
                                               for f in result.findings):
        return False
    return "{%" in text or "%{" in text or _PLACEHOLDER_LINE.search(text) is not None


# a line that is only a variable (`$EXTRA_VLLM_ARGS_YAML`, sample K132): a manifest `envsubst` fills before `kubectl
# apply`, where the variable stands for whole lines of YAML; `__VLLM_ARGS__` / `@VLLM_ARGS@` the same for a workflow's
# own `sed` (sample K436's KServe template)
_PLACEHOLDER_LINE = lazy(r"(?m)^[ \t]*(?:\$\{?[A-Za-z_]\w*\}?|__[A-Z][A-Z0-9_]*__|@[A-Z][A-Z0-9_]*@)[ \t]*$")


def _placeholders_blanked(text: str) -> tuple[str, tuple[str, ...]]:
    """The text with each whole-line placeholder blanked (its length kept), and a note per placeholder."""
    notes = tuple(f"line {text.count(chr(10), 0, m.start()) + 1} (`{m.group().strip()}`) is a placeholder a template "
                  "tool fills (envsubst) with lines of its own: read without them"
                  for m in _PLACEHOLDER_LINE.finditer(text))
    return _PLACEHOLDER_LINE.sub(lambda m: " " * len(m.group()), text), notes


_INTERPRETERS = ("sh", "bash", "zsh", "ksh", "dash", "python", "env")


def read_bare(path: str, text: str, as_vllm_config: bool | None = None) -> ReadResult:
    """A file whose name has no suffix: a script when its first line is a shell's or Python's shebang, or a text
    that names an engine (read as the kind its first words claim, a notes file when they claim none); anything
    else (a licence, a lock file) is passed over, whether walked or named."""

    first = text.lstrip()[:200].partition("\n")[0]
    shebang = first.startswith("#!") and any(w in first for w in _INTERPRETERS)
    if not shebang and not may_hold_launch(text):
        return ReadResult(path, skipped="no shebang and no engine named: not a deployment file")
    kind = sniffed(text)
    if kind.name == "yaml" and not _looks_like_yaml(text):
        from kvlint.launches.notes import read_code

        return read_code(path, text, as_vllm_config)  # a program of another language calling a shell, or notes
    return reader_of(kind)(path, text, as_vllm_config)


def _looks_like_yaml(text: str) -> bool:
    """A text whose first line that is not blank or a comment is a `key:` or a `- item`: YAML, not prose or a
    command (`VLLM_X=1 vllm serve M --speculative-config '{"model": ...}'` holds a colon, but no key before it:
    sample K109's notes file)."""
    for line in text.splitlines()[:50]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.startswith(("- ", "---")) or _YAML_KEY.match(stripped) is not None
    return False


_YAML_KEY = lazy(r"""(?:"[^"]*"|'[^']*'|[^\s"'$/#][^\s:]*)[ \t]*:(?:\s|$)""")  # `key:`, `"a key":`, `key: value`


def _chart_values(path: str, kind: str) -> bool:
    """A chart's values file whose own templates hold the launch (they are read with these values)."""
    if kind != "yaml" or path == "-":
        return False
    from kvlint.launches.helm_chart import templates_hold_launch

    return templates_hold_launch(path)


_SAID = ("KV001", "KV008", "KV019")  # a file that could not be read, or whose engine image was already reported


def read_yaml(path: str, text: str, as_vllm_config: bool | None = None) -> ReadResult:
    """YAML (and JSON, a subset): every document through kvlint.launches.yamlfile; a Helm template with its chart."""

    yf = yaml_source.parse_yaml(path, text)
    if "{{" in text:
        from kvlint.launches.helm_chart import chart_of, parse_template, resolve_template

        chart = chart_of(path)
        if chart is not None:
            yf = resolve_template(yf if yf.templated is not None else parse_template(path, text), chart)
    findings = [kv001(path, p.message, p.line, p.col, Severity.INFO if p.severity == "info" else Severity.ERROR)
                for p in yf.problems]
    deployments, notes = deployments_in(yf, as_vllm_config)
    if "{{" in text and deployments:
        deployments = [_pinned(path, d) for d in deployments]
    findings.extend(n if isinstance(n, Finding) else kv001(path, n, None, None, Severity.INFO) for n in notes)
    return ReadResult(path, deployments, findings, yf.comments)


def embedded_yaml(path: str, text: str) -> list[Deployment]:
    """The launches of YAML written inside another file (a script's here-document, a runbook's block), read as a
    `.yaml` file of that text is: a manifest `envsubst` fills, with a line that is only a variable
    (`${IMAGE_PULL_SECRETS_YAML}`, sample K283's `cat <<EOF | oc apply -f -`), is read as the template it is."""
    result = read_yaml(path, text)
    if _unparsed(result) and (blanked := _injected_lines(_shell_fragments_blanked(text))) != text:
        # a here-document's `spec:$(if ...; then echo "..."; fi)` and `"${GPU_UTIL}"${extra_args_yaml}` (sample
        # K296's generator function): lines the shell writes only at run time, read as written without them
        result = read_yaml(path, blanked)
    if _template_not_yaml("yaml", text, result):
        kind = kind_for("embedded.yaml")
        if kind is not None:
            result = _as_template(path, text, kind, None)
    return result.deployments


def _unparsed(result: ReadResult) -> bool:
    return any(f.code == "KV001" and f.severity == Severity.ERROR for f in result.findings)


def _shell_fragments_blanked(text: str) -> str:
    """A here-document's text less what only the shell decides: each command substitution `$( ... )` (over any
    lines; its output is not known here) and the variables written right after a quoted value's closing quote
    (`"${GPU_UTIL}"${chunked_prefill_yaml}`: lines of YAML the script builds), blanked, every other character
    at its place (newlines kept)."""

    def blank(found: str) -> str:
        return "".join("\n" if c == "\n" else " " for c in found)

    out, k = [], 0
    while (start := text.find("$(", k)) >= 0:
        if text.startswith("$((", start):  # arithmetic, a value: kept
            out.append(text[k:start + 3])
            k = start + 3
            continue
        depth, j = 0, start + 1
        while j < len(text):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        out += [text[k:start], blank(text[start:j + 1])]
        k = j + 1
    text = "".join(out) + text[k:]
    return _APPENDED_FRAGMENT.sub(lambda m: m.group(1) + blank(m.group(2)), text)


_INJECTED = lazy(r"(?m)^([ \t]*)((?:\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*)+)[ \t]*$")
_LIST_KEY = lazy(r"(?m)^([ \t]*)(?:-[ \t]+)?(?:args|command)[ \t]*:[ \t]*$")


def _injected_lines(text: str) -> str:
    """A here-document's lines that are only variables the script fills with lines of YAML (`args:` then
    `${DEFAULT_ARGS}${VLLM_ARGS}` at the line's start, sample K419's InferenceService modes): under an `args:` or
    `command:` key an item holding the expression (the arguments a run adds, left open as a trailing `${VLLM_ARGS}`
    is), elsewhere blanked. Every other line keeps its characters at their places."""
    if "$" not in text:
        return text
    lines = text.split("\n")
    for k, line in enumerate(lines):
        found = _INJECTED.fullmatch(line)
        if found is None:
            continue
        above = next((lines[j] for j in range(k - 1, -1, -1) if lines[j].strip()), "")
        key = _LIST_KEY.fullmatch(above)
        lines[k] = f'{" " * (len(key.group(1)) + 2)}- "{found.group(2)}"' if key else " " * len(line)
    return "\n".join(lines)


_APPENDED_FRAGMENT = lazy(r"(\"[^\"\n]*\")((?:\$\{[A-Za-z_]\w*\})+)")  # a quoted value, then variables after it


def read_json(path: str, text: str, as_vllm_config: bool | None = None) -> ReadResult:
    """JSON is YAML to the readers; a file that names no engine anywhere (a package.json, a model's config.json)
    holds no launch, so it is passed over before it is parsed (the walk and the hook read every JSON file)."""
    named = any(w in path.replace("\\", "/").rsplit("/", 1)[-1].lower() for w in _JSON_NAMES)
    if as_vllm_config is not True and not named and not _ENGINE_WORD.search(text):
        if not _triton_vllm(path, text):
            return ReadResult(path)
        as_vllm_config = True
    result = read_yaml(path, text, as_vllm_config)
    if not any(f.code == "KV001" for f in result.findings) or ("//" not in text and "/*" not in text and
                                                             _TRAILING_COMMA.search(text) is None):
        return result  # valid JSON (nearly every file) pays for no second look
    blanked = jsonc_blanked(text)
    return read_yaml(path, blanked, as_vllm_config) if blanked != text else result


def jsonc_blanked(text: str) -> str:
    """JSON with comments (VS Code's `launch.json`, `devcontainer.json`, `tsconfig.json`: `// ...`, `/* ... */` and
    trailing commas, sample K182) as the JSON its tools read: each comment and trailing comma blanked, every other
    character at its place; a `//` inside a string (a URL) is kept (strings are matched first, and left as they are)."""

    def blank(m: re.Match[str]) -> str:
        found = m.group()
        return found if found[0] == '"' else "".join("\n" if c == "\n" else " " for c in found)

    return _JSONC_TOKEN.sub(blank, text)


_JSONC_TOKEN = lazy(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/|,(?=(?:\s|//[^\n]*|/\*.*?\*/)*[}\]])', re.DOTALL)
_TRAILING_COMMA = lazy(r",\s*[}\]]")


def _triton_vllm(path: str, text: str) -> bool:
    """Triton's vLLM backend: `MODEL_REPOSITORY/NAME/1/model.json` holds the engine's arguments (`"model"`,
    `"gpu_memory_utilization"`, `"max_model_len"`), and `NAME/config.pbtxt` says `backend: "vllm"`; where the
    repository holds no config.pbtxt beside it, the engine's own keys in the file say it."""
    from kvlint.sidefile import side_text

    folder, base = os.path.split(path)
    if base != "model.json" or not os.path.basename(folder).isdigit() or '"model"' not in text:
        return False
    pbtxt = side_text(os.path.join(os.path.dirname(folder), "config.pbtxt"), 64 * 1024)
    if pbtxt is not None:
        return _TRITON_VLLM.search(pbtxt) is not None
    return _ENGINE_KEYS.search(text) is not None


_TRITON_VLLM = lazy(r'^\s*backend\s*:\s*"vllm"', re.MULTILINE)
_ENGINE_KEYS = lazy(r'"(?:gpu_memory_utilization|max_model_len|tensor_parallel_size|max_num_seqs)"\s*:')
_ENGINE_WORD = lazy(r"vllm|sglang", re.IGNORECASE)
_JSON_NAMES = ("vllm", "sglang", "engine", "serve", "hub.json")  # names of an engine's own settings file


def read_template(path: str, text: str, as_vllm_config: bool | None = None) -> ReadResult:
    """A template a tool renders (`values.tpl` of a Terraform `templatefile()`): read as YAML when its first line
    that is not a comment is a YAML key (the placeholders kept as unresolved text), else as code (its command
    lines and strings); a Go template library (`{{ define "..." }}`, a chart's `_helpers.tpl`) holds no launch."""
    from kvlint.launches.notes import read_code

    if not _ENGINE_WORD.search(text) or _GO_DEFINE.search(text):
        return ReadResult(path)
    rendered = _rendered_kind(path, text)
    if rendered is not None:
        return reader_of(rendered)(path, text, as_vllm_config)
    first = next((ln for ln in text.split("\n", 200) if ln.strip() and not ln.lstrip().startswith("#")), "")
    if _YAML_KEY.match(first):
        # Terraform's template directives (`%{ for x in list ~}`, `%{ endfor ~}`, `%{ if ... }`) are not the YAML the
        # template renders: blanked, each line keeps its length (sample K72's ai-on-gke `vllm.tftpl`, a KV001)
        return read_yaml(path, _TF_DIRECTIVE.sub(lambda m: " " * len(m.group()), text) if "%{" in text else text,
                         as_vllm_config)
    return read_code(path, text)


def _rendered_kind(path: str, text: str) -> Kind | None:
    """The kind a template renders to, when its name or its shebang says so (sample K124's `user_data.sh.tftpl`, a
    cloud-init script whose here-documents install a systemd unit): a script is read as a script, with its
    here-documents and its units, not as code's command lines. YAML stays with the template reader, which blanks
    Terraform's `%{ }` directives first."""
    inner = os.path.basename(path).rsplit(".", 1)[0]
    kind = kind_for(inner) if "." in inner or inner.lower().startswith("dockerfile") else None
    if kind is None and text.startswith("#!"):
        kind = sniffed(text)
    return kind if kind is not None and kind.name in _RENDERED_KINDS else None


# the kinds a template is read as by its inner name or shebang: line-based formats `${var}` and `%{ }` do not break
_RENDERED_KINDS = frozenset(("shell", "dockerfile", "make", "powershell", "batch", "text", "notes", "markdown"))
_GO_DEFINE = lazy(r"\{\{-?\s*define\b")
_TF_DIRECTIVE = lazy(r"%\{[^}\n]*\}")
_YAML_KEY = lazy(r"^[A-Za-z_][\w.-]*:(?:\s|$)|^apiVersion:|^---")


def _pinned(path: str, dep: Deployment) -> Deployment:
    """A template of a chart copied without Chart.yaml keeps its references unresolved, but the engine release its
    image pins comes from the values.yaml beside `templates/` (kvlint.launches.helm_chart.pinned_image)."""
    if dep.engine_version or not dep.image or "{{" not in dep.image:
        return dep
    from kvlint.launches.build import version_from_image
    from kvlint.launches.helm_chart import pinned_image

    found = pinned_image(path, dep.image)
    version = version_from_image(found[0]) if found else None
    if found is None or version is None:
        return dep
    note = f"engine release from the image {found[0]} in the values.yaml beside templates/ (no Chart.yaml)"
    return replace(dep, image=found[0], engine_version=version, engine_version_span=found[1] or dep.image_span,
                   notes=dep.notes + (note,))


__all__ = ["kv001", "may_hold_launch", "read_one", "read_yaml"]
