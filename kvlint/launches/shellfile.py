"""Shell scripts and Slurm batch files: every launch, with `#SBATCH` GPU requests attached.

Slurm's `--gres=gpu:N` and `--gpus-per-node` are per node, `--gpus` / `-G` per job: a job on
`--nodes 2` with `--gres=gpu:8` holds 16 GPUs. Several launches in one script share the job's
allocation, so none of them is credited with all of it: each keeps only the count its own line
states (CUDA_VISIBLE_DEVICES, `srun --gres`, `docker --gpus`).
"""

from __future__ import annotations

import re

from kvlint.deployment import Cut, Deployment
from kvlint.engines.registered import engine_names
from kvlint.findings import Finding, Related, Severity
from kvlint.launches import ReadResult
from kvlint.launches import gpus_in_manifest as g
from kvlint.launches.apptainer import is_definition, shell_only
from kvlint.launches.build import LaunchContext, ManifestGpu, finish
from kvlint.launches.groups import is_launch, one_per_group
from kvlint.launches.script import FoundLaunch, run_script, unread_in
from kvlint.lazyre import lazy
from kvlint.record import record, replace
from kvlint.sources.numbers import count
from kvlint.sources.text import LineIndex, Mapped
from kvlint.span import Span

_HEREDOC = lazy(r"(?<!<)<<(-?)[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")
YAML_DOC = lazy(r"^[ \t]*(apiVersion|kind|services|spec|containers|args|command|image):", re.M)
_UNIT = lazy(r"^[ \t]*\[Service\][ \t]*$", re.M)
_PY_OPENER = lazy(r"\.py\b|\bpython[\d.]*(?:[ \t]+-u)?[ \t]+-?[ \t]*(?:<<|$)")  # `> x.py <<`, `python3 - <<`


def _python_body(text: str, start: int, body: str) -> bool:
    """Whether a here-document is a Python program: the line that opens it writes a `.py` file or feeds `python`
    (a shell script the script writes may run Python too: its own `import` lines do not make it Python), or
    the body starts with a Python shebang."""
    opener = text[text.rfind("\n", 0, max(start - 1, 0)) + 1 : max(start - 1, 0)]
    return _PY_OPENER.search(opener) is not None or body.lstrip().startswith(_PY_SHEBANGS)


_PY_SHEBANGS = ("#!/usr/bin/env python", "#!/usr/bin/python")
_SBATCH = lazy(r"^#SBATCH[ \t]+([^\n#]*)", re.M)
_PER_NODE = ("--gres", "--gpus-per-node")
_PER_JOB = ("--gpus", "-G")
_NODES = ("--nodes", "-N")


@record
class _Option:
    value: str
    span: Span


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds): a script's launches, those of the documents it
    writes with here-documents, and its comments."""
    from kvlint.launches.entrypoint import shell_entrypoint
    from kvlint.sources.comments import scan_comments

    if "```" in text and _MARKDOWN.match(text) is not None and _fenced_document(text):
        from kvlint.launches.markdown import read as read_markdown

        return read_markdown(path, text, _as_vllm_config)
    unread: list[tuple] = []
    cuts: list[Cut] = []
    deployments = read_shell(path, text, unread=unread, cuts=cuts)
    if "<<" in text:
        deployments += heredoc_launches(path, text)
        deployments.sort(key=lambda d: (d.launch_span.line, d.launch_span.col) if d.launch_span else (0, 0))
        deployments = one_per_group(deployments)  # a worker rank a here-document sends (`ssh w bash -s <<EOF`)
    if " -c " in text and not deployments and any(w in text for w in _PY_SERVER_API):
        deployments = python_c_launches(path, text)
    deployments, notes = shell_entrypoint(path, deployments, text)
    deployments = _with_said_image(deployments, text)
    deployments = with_said_device(deployments, text)
    deployments = _with_extension(deployments, text)
    deployments = _with_build_options(deployments)
    if deployments:  # with none, the file's one never-silent note (kvlint.launches.named) says it
        notes += unread_notes(path, unread, deployments)
    notes += [cut_finding(path, c) for c in cuts]  # said here once each, not again by the rule per launch
    deployments = [replace(d, cut=None) if d.cut is not None else d for d in deployments]
    return ReadResult(path, deployments, notes, comments=scan_comments(text))


# a Markdown document saved under a script's name (sample K521's `scripts/serve_vllm.sh`: a `# title`, then the script
# in a ```bash fence, then prose): its first line a heading, not a shebang, and a fence opening a line
_MARKDOWN = lazy(r"(?:[ \t]*\r?\n)*#{1,6} ")
_FENCE = lazy(r"(?m)^[ \t]*```[\w-]*\r?$")


def _fenced_document(text: str) -> bool:
    """Whether a fence opens a line before any command could: only headings (comments, to a shell) and blank lines
    lead to it (a script whose here-document writes a README with fences runs a command before it)."""
    fence = _FENCE.search(text)
    if fence is None:
        return False
    before = text[: fence.start()].splitlines()
    return all(not line.strip() or line.lstrip().startswith("#") for line in before)


# a Python program handed to the interpreter as a string (`python -c "..."`), and the engines' Python calls that start
# a server (SGLang's `ServerArgs(...)` with `launch_server`, vLLM's `run_server`, Ray Serve's `LLMConfig`)
# the interpreter by name, by path (`/opt/conda/envs/x/bin/python -c`) or by a variable named for it (`$PYTHON -c`,
# sample K422: SGLang started by a `python -c` program, as its plan says `-m sglang.launch_server` fails there)
_PY_C = lazy(r"(?m)(?:^|[\s;&|(])(?:[\w.~/-]*/)?(?:python3?(?:\.\d+)?|\$\{?PYTHON\w*\}?)[ \t]+-c[ \t]+([\"'])")
_PY_SERVER_API = ("launch_server", "run_server", "LLMConfig")
_SHELL_REF = lazy(r"\$\{?([A-Za-z_]\w*)\}?")


def python_c_launches(path: str, text: str) -> list[Deployment]:
    """The launches of a Python program a script runs as `python -c "CODE"` (sample K397's NPU server:
    `ServerArgs(model_path='$MODEL', ...)` then `launch_server(server_args)`), read by the Python reader at the
    code's lines. A double-quoted program is the shell's first: a `$VAR` the script set is its value, one it did not
    a name of the same length (the code still parses; the value stays open)."""
    from kvlint.launches.pyfile import read_python

    out: list[Deployment] = []
    for k, m in enumerate(_PY_C.finditer(text)):
        if k >= 16:
            break
        end = text.find(m.group(1), m.end())
        code = text[m.end() : end] if end > 0 else ""
        if not any(w in code for w in _PY_SERVER_API):
            continue
        if m.group(1) == '"':
            code = _shell_expanded(code, _variables_before(path, text, m.start()))
        out.extend(read_python(path, "\n" * text.count("\n", 0, m.end()) + code)[0])
    return out


def _shell_expanded(code: str, env: dict[str, str]) -> str:
    """A double-quoted string's `$VAR`s as the shell puts them in: a known value, else a name of the same length."""
    return _SHELL_REF.sub(lambda r: env.get(r.group(1)) or "_" * len(r.group()), code)


_HEADER_LINES = 40  # a script's header: where it says what it is and where it runs
_SAID_IMAGE = lazy(r"(?m)^[ \t]*#.*?(?<![\w./-])(?P<image>[\w.-]+(?:/[\w.-]+)+(?::[\w.-]+)?)")


# a path to a file, not an image (`bash examples/kimi/run_sglang.sh` in a usage line, sample K235)
_FILE_NAME = lazy(r"\.(?:sh|bash|py|ya?ml|json|toml|md|txt|cfg|conf|ini|env|jinja2?|j2)$", re.IGNORECASE)


def _with_said_image(deployments: list[Deployment], text: str) -> list[Deployment]:
    """Launches with no image of their own, given the image a comment of the script's header names for their engine
    (`# production profile for mratsim/sglang-qwen38fn-sm120-turbo`): a script run inside a build kvlint cannot see
    says so in prose; KV004 asks it whose flags those are. Never a pin (a comment is not one)."""
    if not deployments or "#" not in text or all(d.image for d in deployments):
        return deployments
    head = "\n".join(text.split("\n", _HEADER_LINES)[:_HEADER_LINES])
    images = [m.group("image") for m in _SAID_IMAGE.finditer(head) if not _FILE_NAME.search(m.group("image"))]
    out = []
    for dep in deployments:
        said = next((i for i in images if dep.engine in i.lower()), None) if not dep.image else None
        out.append(replace(dep, said_image=said) if said else dep)
    return out


# a header comment that places the script on an accelerator that is not a GPU: `# Serves Gemma-4 31B through the
# tt-xla vLLM plugin on a Tenstorrent BHQB 4-chip host` (turn 37's K331), `# run on a Gaudi2 node`, `# for TPU v5e`
_GAP = r"(?:[ \t]+|[ \t]*\n[ \t]*#[ \t]*)"  # a space, or a comment's line break
_SAID_DEVICE = lazy(rf"(?i)^[ \t]*#[^\n]*?\b(?:on|for){_GAP}(?:(?:an?|the){_GAP})?(?P<device>Tenstorrent|TPUs?|"
                    r"Gaudi\d?|Trainium\d?|Inferentia\d?|AWS[ \t]+Neuron)\b", re.MULTILINE)


def with_said_device(deployments: list[Deployment], text: str) -> list[Deployment]:
    """Launches with no GPU of their own, on the accelerator the file says they run on (a platform plugin's example:
    `--gpu-memory-utilization 0.1` of a Tenstorrent card's DRAM): such a launch is not swept over the GPU catalogue
    (whose every card it would "fail"), and its status says why. The file says so in a header comment that puts it
    "on" or "for" the device, or by running the device's own tool (`tt-smi`, `hl-smi`, `neuron-ls`: a runbook's
    diagnostics, turn 37's K331 QuietBox guide); a script that names one in passing ("unlike TPUs") is a GPU's."""
    if not deployments or all(d.gpu for d in deployments):
        return deployments
    found = _header_device(text) or _tool_device(text)
    if found is None:
        return deployments
    kind, where = found
    note = f"runs on {where}: not sized over GPUs"
    return [replace(d, gpu=kind, notes=d.notes + (note,)) if not d.gpu else d for d in deployments]


def _header_device(text: str) -> tuple[str, str] | None:
    """(device kind, what the header says) when a header comment puts the script on or for a non-GPU device."""
    from kvlint.gpus import accelerator_kind

    head = "\n".join(text.split("\n", _HEADER_LINES)[:_HEADER_LINES]) if "#" in text else ""
    said = _SAID_DEVICE.search(head) if any(w in head for w in ("on ", "for ", "On ", "For ")) else None
    if said is None:
        return None
    kind = accelerator_kind(re.sub(r"[\s\d]+$|s$", "", said.group("device")).split()[-1].lower())
    return (kind, f"{said.group('device')} (the script's header says so)") if kind is not None else None


def _tool_device(text: str) -> tuple[str, str] | None:
    """(device kind, the tool) when the file runs a vendor's device tool as a command."""
    tool = _DEVICE_TOOL.search(text) if "-smi" in text or "neuron-" in text else None
    return (_TOOL_DEVICE[tool.group(1)], f"{_TOOL_DEVICE[tool.group(1)]} (the file runs `{tool.group(1)}`)") \
        if tool is not None else None


# a vendor's device tool run as a command (a line of its own, or after `sudo` / a pipe's start): the device it reports
_DEVICE_TOOL = lazy(r"(?m)^[ \t]*(?:\$[ \t]+)?(?:sudo[ \t]+)?(tt-smi|hl-smi|neuron-ls|neuron-top)\b")
_TOOL_DEVICE = {"tt-smi": "tenstorrent", "hl-smi": "gaudi", "neuron-ls": "neuron", "neuron-top": "neuron"}


_EXTENSION = lazy(r"(?m)^[ \t]*(?:\$[ \t]+)?(?:uv[ \t]+)?pip3?[ \t]+install\b[^\n]*?(?<![\w.\[/-])"
                  r"(?P<pkg>[A-Za-z0-9][\w.-]*)\[(?P<extras>[\w,. -]+)\]")


def _with_extension(deployments: list[Deployment], text: str) -> list[Deployment]:
    """Launches given the package the file installs with their engine as an extra (`pip install
    arctic-inference[vllm]`, sample K103's plugin README): a package that builds on the engine, whose options the
    launch may use; KV004 asks it whose flags those are. The engine's own extras (`vllm[audio]`) are not one."""
    if not deployments or "install" not in text or "[" not in text:
        return deployments
    found = [(m.group("pkg"), m.group("extras")) for m in _EXTENSION.finditer(text)]
    out = []
    for dep in deployments:
        plugin = next((f"{pkg}[{extras}]" for pkg, extras in found if pkg.lower() != dep.engine
                       and dep.engine in {e.strip().lower() for e in extras.split(",")}), None)
        out.append(replace(dep, extension=plugin) if plugin else dep)
    return out


def _with_build_options(deployments: list[Deployment]) -> list[Deployment]:
    """A script's launches run on the host, all on one install: when one of them gives three or more options no
    release of its engine has (sample K172's SGLang fork script: a fixed-K run, then the same command with the
    fork's `--speculative-suffix-*` options), that install is the build that adds them, for its siblings of the
    same engine too (kvlint.resolve.lookups: the release is open, not the newest). A launch with an image runs
    that image, not the host's install."""
    from kvlint.deployment import build_options

    found: dict[str, tuple[str, ...]] = {}
    for d in deployments:
        flags = build_options(d) if d.image is None else ()
        if flags:
            found[d.engine] = tuple(dict.fromkeys(found.get(d.engine, ()) + flags))
    if not found:
        return deployments
    return [replace(d, build_options=found[d.engine]) if d.image is None and d.engine in found else d
            for d in deployments]


def cut_finding(path: str, cut: Cut) -> Finding:
    """KV012 at the words the shell cut off a launch (kvlint.deployment.Cut)."""
    message, fix = cut.said()
    return Finding("KV012", "comment-cuts-command", Severity.WARNING, message, cut.words, fix=fix,
                   related=(Related(cut.comment, "the command ends here"),), path=path)


_UNREAD_NOTES = 5  # per file: a script repeating one unread shape says it a few times, not at every line


def unread_notes(path: str, unread: list[tuple], deployments: list[Deployment]) -> list[Finding]:
    """A KV008 info at each command that runs an engine's entry point through a program kvlint cannot read
    (`xargs`, `parallel`, a tool of the repository's own), in a file whose other launches were read: never
    passed over in silence because its neighbours were found. A line a launch was read from is not repeated."""
    from kvlint.launches.named import KV008

    taken = {d.launch_span.line for d in deployments if d.launch_span is not None}
    out: list[Finding] = []
    for span, words, program in unread:
        if span.line in taken or len(out) >= _UNREAD_NOTES:
            continue
        taken.add(span.line)
        message = (f"`{words}` is run here through `{program}`, which kvlint cannot read as a launch (its model and "
                   "flags are not words of this command it can place); nothing here is checked")
        fix = ("write the launch as a command line kvlint reads (`vllm serve MODEL --flags`), or add "
               "`# kvlint: ignore[KV008] why` on the line when this command starts no engine")
        out.append(Finding(KV008[0], KV008[1], Severity.INFO, message, span, fix=fix, path=path))
    return out


def heredoc_launches(path: str, text: str, indent: int = 0) -> list[Deployment]:
    """Launches in the bodies of `cat <<EOF ... EOF`: a Kubernetes manifest (or any YAML document) piped to
    `kubectl apply -f -`, a script written to a file. The shell skips a body when it reads the script, so
    each is read here, at its own lines: the body keeps its columns and is preceded by as many empty lines
    as come before it in the file. `indent`: the columns a script written inside another file is indented by
    (a YAML block string, kvlint.launches.helm), which its delimiter lines carry too."""
    out: list[Deployment] = []
    bodies = heredoc_bodies(text, indent)
    pieced, taken = _written_in_pieces(path, text, bodies) if len(bodies) > 1 and ">>" in text else ([], set())
    out.extend(pieced)
    for start, body, opened in bodies:
        if start in taken:
            continue  # a piece of a file the script writes in pieces: read with the others (_written_in_pieces)
        manifest = YAML_DOC.search(body) is not None
        if not manifest and not any(m in body.lower() for m in engine_names()):  # `${VLLM_IMAGE}` too
            continue  # a manifest is read whatever it names: its kind decides (a KServe LLMInferenceService)
        padded = "\n" * text.count("\n", 0, start) + body
        if manifest:
            from kvlint.launches.env import supplying_the_files
            from kvlint.launches.read import embedded_yaml

            # an unquoted delimiter: the shell fills the manifest's `${MODEL_ID}` from the script's assignments
            with supplying_the_files(_variables_before(path, text, opened) if opened is not None else {}):
                out.extend(embedded_yaml(path, padded))
        elif "%" in body and is_definition(body):  # an Apptainer definition: its scripts, not its %help text
            out.extend(read_shell(path, shell_only(padded)))
        elif _UNIT.search(body) and opened is not None and "\\" in body:
            # an unquoted body as the shell writes it (`\\` one backslash, backslash-newlines joining the lines;
            # twice inside a double-quoted `bash -c "..."` string, whose quoting the shell undoes first)
            joined, offsets = _as_shell_writes(body)
            if _open_quote(text[text.rfind("\n", 0, opened) + 1 : opened]) == '"':
                joined, again = _as_shell_writes(joined)
                offsets = [offsets[k] for k in again]
            out.extend(_read_joined(path, text, joined, [start + k for k in offsets]))
        elif _UNIT.search(body):  # a systemd unit the script installs: its `ExecStart=` is the launch, read as the
            from kvlint.launches import textfile  # unit file is (`ExecStart=/usr/bin/docker run ... vllm-openai` too)

            out.extend(textfile.read(path, padded).deployments)
        elif _python_body(text, start, body):  # a Python program the script writes (`cat > start.py << 'EOF'`)
            from kvlint.launches.pyfile import read_python

            out.extend(read_python(path, padded)[0])
        else:
            env = _variables_before(path, text, opened)
            quoting = _quoting_values(body, env)
            written = opened is not None and ("\\" in body or bool(quoting))
            shell_wrote = as_written(path, padded, quoting) if written else None
            out.extend(read_shell(path, padded, env=env, mapped=shell_wrote))
    return out


_ESCAPED = lazy(r"\\([$`\\])|\\\n")
_TEE_TARGET = lazy(r"^[ \t]*(?:sudo[ \t]+)?tee[ \t]+(-a[ \t]+)?([^\s;&|<>-][^\s;&|<>]*)")
_CAT = lazy(r"^[ \t]*(?:sudo[ \t]+)?cat\b")
_REDIRECT = lazy(r"(>>?)[ \t]*([^\s;&|<>]+)")


def _target(text: str, opened: int) -> tuple[str, bool] | None:
    """(the file, whether it is appended to) that the command opening a here-document at `opened` writes its body to
    (`cat > F <<EOF`, `cat <<EOF >> F`, `sudo tee -a F <<EOF`); None for any other command (`kubectl apply -f -`)."""
    line_start = text.rfind("\n", 0, opened) + 1
    line_end = text.find("\n", opened)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    cat = _CAT.match(line)
    if cat is not None:
        m = _REDIRECT.search(line, cat.end())
        return (m.group(2), m.group(1) == ">>") if m is not None else None
    tee = _TEE_TARGET.match(line)
    return (tee.group(2), tee.group(1) is not None) if tee is not None else None


def heredoc_files(text: str) -> set[str]:
    """The files a script's here-documents write (`cat > F <<EOF`, `cat <<EOF >> F`, `tee F <<EOF`), as written with
    their quotes taken off."""
    if "<<" not in text:
        return set()
    out = set()
    for start, _, opened in heredoc_bodies(text):
        at = opened if opened is not None else text.rfind("<<", 0, start)
        target = _target(text, at) if at >= 0 else None
        if target is not None:
            out.add(target[0].strip("\"'"))
    return out


def _pieces_by_file(text: str, bodies: list[tuple[int, str, int | None]]) -> dict[str, list[tuple[int, str, bool]]]:
    """Each file the script's here-documents write: its pieces (offset, body, whether unquoted) since the last one
    that started it anew (`>`), in order."""
    groups: dict[str, list[tuple[int, str, bool]]] = {}
    for start, body, opened in bodies:
        at = opened if opened is not None else text.rfind("<<", 0, start)
        target = _target(text, at) if at >= 0 else None
        if target is None:
            continue
        name, appends = target
        if not appends:
            groups[name] = []  # a new file: what was written to it before is gone
        if name in groups:
            groups[name].append((start, body, opened is not None))
    return groups


def _written_in_pieces(path: str, text: str, bodies: list[tuple[int, str, int | None]]
                       ) -> tuple[list[Deployment], set[int]]:
    """The launches of a file the script writes in pieces (sample K215's template: `cat > vllm.service << EOT` up to
    a `docker run ... \\`, an `echo "    --gpus all \\" >> vllm.service` under a condition, then `cat >>
    vllm.service << EOT` with the rest): the pieces joined as the file holds them, read as one (a unit, else a
    script), every position put back at its piece's place; and the offsets of the bodies so read."""
    from kvlint.launches.echo_writes import writes

    out: list[Deployment] = []
    taken: set[int] = set()
    echoed = [w for w in writes(text) if w[1] and w[3]] if "echo" in text or "printf" in text else []
    for name, pieces in _pieces_by_file(text, bodies).items():
        if len(pieces) < 2 or not any(w in "".join(b for _, b, _ in pieces).lower() for w in engine_names()):
            continue
        parts: list[tuple[int, str, list[int]]] = []
        for start, body, unquoted in pieces:
            written, offs = _as_shell_writes(body) if unquoted else (body, list(range(len(body) + 1)))
            parts.append((start, written, [start + k for k in offs[: len(written)]]))
        first, last = pieces[0][0], pieces[-1][0]
        parts += [(offs[0], chars, list(offs)) for target, _, chars, offs in echoed
                  if target == name and first < offs[0] < last]
        parts.sort(key=lambda part: part[0])
        joined = "".join(part[1] for part in parts)
        offsets = [k for part in parts for k in part[2]] + [len(text)]
        out.extend(_read_joined(path, text, joined, offsets))
        taken.update(start for start, _, _ in pieces)
    return out, taken


def _as_shell_writes(body: str) -> tuple[str, list[int]]:
    """An unquoted here-document's body as the shell writes it (`\\\\` one backslash, a backslash-newline joining
    the lines), with each character's offset in `body`."""
    from kvlint.launches.rewrite import substitute

    return substitute(body, _ESCAPED, lambda m: m.group(1) or "")


def _read_joined(path: str, text: str, joined: str, offsets: list[int]) -> list[Deployment]:
    """The launches of a text joined from places of `text` (character k of `joined` written at offsets[k]): a unit
    when it is one, else a script; each span put back where its characters were written."""
    from kvlint.launches.terraform_helm import remap_spans

    if _UNIT.search(joined):
        from kvlint.launches import textfile

        found = textfile.read(path, joined).deployments
    else:
        found = read_shell(path, joined)
    seen, own = LineIndex(joined), LineIndex(text)

    def move(span: Span) -> Span:
        if span.path != path:
            return span
        a = offsets[min(seen.offset(span.line, span.col), len(offsets) - 1)]
        b = offsets[min(max(seen.offset(span.end_line, span.end_col) - 1, 0), len(offsets) - 1)]
        (line, col), (end_line, end_col) = own.locate(a), own.locate(max(a, b))
        return Span(path, line, col, end_line, end_col + 1)

    return list(remap_spans(found, move))


def as_written(path: str, padded: str, quoting: dict[str, str] | None = None) -> Mapped:
    """An unquoted here-document's body as the shell writes it (`\\${MODEL:-x}` is `${MODEL:-x}` in the written
    script, `\\\\` one backslash, a backslash-newline joins the lines), each character at its place in the file.
    `quoting`: variables whose values hold quotes, written into the script as text (_quoting_values)."""
    from kvlint.launches.rewrite import mapped, substitute

    if not quoting:
        script, offsets = substitute(padded, _ESCAPED, lambda m: m.group(1) or "")
        return mapped(path, padded, script, offsets)
    names = "|".join(sorted(quoting, key=len, reverse=True))
    pattern = re.compile(_ESCAPED.pattern + rf"|\$\{{({names})\}}|\$({names})(?![A-Za-z0-9_])")
    script, offsets = substitute(padded, pattern,
                                 lambda m: quoting[m.group(2) or m.group(3)] if m.group(2) or m.group(3)
                                 else m.group(1) or "")
    return mapped(path, padded, script, offsets)


def _quoting_values(body: str, env: dict[str, str]) -> dict[str, str]:
    """The variables an unquoted here-document's body names whose values hold quotes. The shell writes a value
    into the body as text, and the script written is read again by a shell, so the value's quotes are quotes
    there (`SPECARG="--speculative-config '{...}'"` then `vllm serve ... ${SPECARG}` in a script run by
    `bash -lc`: one JSON word, sample K301); expanded in place they would be characters of the words."""
    if "$" not in body:
        return {}
    return {name: value for name, value in env.items()
            if ("'" in value or '"' in value) and re.search(rf"\$\{{?{re.escape(name)}(?![A-Za-z0-9_])", body)}


def _variables_before(path: str, text: str, opened: int | None) -> dict[str, str]:
    """What an unquoted body's `$VAR` expands to: the variables the script has set by the line that opens
    the here-document (the shell expands them as it writes the body). A quoted delimiter (`<<'EOF'`)
    writes the body as it is: `opened` is None and the body sees only what it sets itself."""
    if opened is None:
        return {}
    line_start = text.rfind("\n", 0, opened) + 1
    _, env, _ = run_script(Mapped.whole(path, text[:line_start]), {})
    return env


def heredoc_bodies(text: str, indent: int = 0) -> list[tuple[int, str, int | None]]:
    """(offset, text, where its `<<` is) of each here-document body, up to the line that is its delimiter;
    None for the third when the delimiter is quoted (the shell expands nothing in the body). `indent`: spaces
    every line of the script starts with in the file (a YAML block string), not part of the script."""
    bodies = []
    for m in _HEREDOC.finditer(text):
        start = text.find("\n", m.end()) + 1
        if start == 0:
            continue
        pos, delim, strip = start, m.group(3), m.group(1) == "-"
        # a here-document inside a quoted command string (`sudo bash -c "cat <<EOF > $UNIT ... EOF"`, sample K271)
        # ends at its delimiter followed by the string's closing quote
        quote = _open_quote(text[text.rfind("\n", 0, m.start()) + 1 : m.start()])
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            raw = text[pos + indent : end] if indent and text[pos : pos + indent].isspace() else text[pos:end]
            line = (raw.lstrip("\t") if strip else raw).rstrip()
            if line == delim or (quote and line.startswith(delim + quote) and not line[len(delim) + 1 :].strip("); ")):
                bodies.append((start, text[start:pos], None if m.group(2) else m.start()))
                break
            pos = end + 1
    return bodies


def _open_quote(head: str) -> str:
    """The quote a line leaves open before a here-document's `<<` (`sudo bash -c "cat <<EOF`: `"`), else ""."""
    single = double = False
    escaped = False
    for ch in head:
        if escaped:
            escaped = False
        elif ch == "\\" and not single:
            escaped = True
        elif ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
    return '"' if double else "'" if single else ""


def read_shell(path: str, text: str, index: LineIndex | None = None, env: dict[str, str] | None = None,
               unread: list[tuple] | None = None, cuts: list[Cut] | None = None,
               mapped: Mapped | None = None) -> list[Deployment]:
    """A script's launches; `env` the variables it starts with (a Makefile's own assignments); `unread` gets the
    commands that ran an engine's entry point but gave no launch (kvlint.launches.script.unread_in), `cuts` the
    launches a comment cuts short; `mapped`: the script as rewritten from `text`, its characters at their places."""
    index = index or LineIndex(text)
    launches, notes, not_read, cut = unread_in(mapped or Mapped.whole(path, text, index), env or {})
    if unread is not None:
        unread.extend(not_read)
    if cuts is not None:
        cuts.extend(cut)
    job, nodes = _sbatch_gpus(path, text, index)
    ctx = LaunchContext(notes=tuple(notes))
    placed = (_launch_gpus(f, job, nodes, len(launches)) for f in launches)
    out = []
    for found, gpu in placed:
        d = finish(path, found, ctx, gpu)
        if is_launch(d):
            out.append(d)
        elif not found.fields and found.image is None:  # the engine's own command, with no word after it
            out.append(replace(d, notes=(*d.notes, BARE)))
    return out


# a script's statement is the whole command: nothing is appended to a bare `vllm serve` (an image's entry point
# is another matter: kvlint.launches.groups.is_launch), so it starts the engine on the engine's own default model
BARE = ("the engine is started with no model and no flags: it serves the engine's own default model, which "
         "depends on its release")


def read_shell_mapped(path: str, m: Mapped) -> list[Deployment]:
    """The launches of shell text cut out of another file (a notebook's `!` lines and `%%bash` cells), each value
    at its place in that file."""
    launches, _, notes = run_script(m, {})
    ctx = LaunchContext(notes=tuple(notes))
    out = []
    for found in launches:
        d = finish(path, found, ctx, ManifestGpu())
        if is_launch(d):
            out.append(d)
        elif not found.fields and found.image is None:  # a notebook's bare `!vllm serve` (sample K364): as a
            out.append(replace(d, notes=(*d.notes, BARE)))  # script's, the engine's own default model
    if "<<" in m.text:  # a `%%bash` cell's `cat <<EOF | oc apply -f -` (sample K410): as a script's here-documents
        from kvlint.launches.terraform_helm import placed_back

        out += placed_back(heredoc_launches(path, m.text), m, path)
    return out


def _sbatch_options(path: str, text: str, index: LineIndex) -> dict[str, _Option]:
    """The first value of each option on `#SBATCH` lines (`--opt=v`, `--opt v`, `-N 2`, `-N2`)."""
    found: dict[str, _Option] = {}
    for m in _SBATCH.finditer(text):
        words = [(w.group(), m.start(1) + w.start()) for w in re.finditer(r"\S+", m.group(1))]
        for k, (word, off) in enumerate(words):
            name, eq, value = word.partition("=")
            start = off + len(name) + 1
            if not eq and name in _NODES + _PER_NODE + _PER_JOB and k + 1 < len(words):
                value, start = words[k + 1]
            elif not eq and re.fullmatch(r"-[NG]\d+", name):
                name, value, start = name[:2], name[2:], off + 2
            elif not eq:
                continue
            name = "--nodes" if name == "-N" else name
            if value and name not in found:
                line, col = index.locate(start)
                found[name] = _Option(value, Span(path, line, col, line, col + len(value)))
    return found


def _sbatch_gpus(path: str, text: str, index: LineIndex) -> tuple[ManifestGpu, int | None]:
    """GPUs of the whole job (a per-job count as written, a per-node count times --nodes) and
    the nodes it spans (None for an open range)."""
    opts = _sbatch_options(path, text, index)
    nodes = _nodes(opts["--nodes"].value if "--nodes" in opts else None)
    per_node_opt = next((o for o in _PER_NODE if o in opts), None)
    job_opt = next((o for o in _PER_JOB if o in opts), None)
    product, pspan = None, None
    for opt in (per_node_opt, job_opt):
        if opt is not None and product is None:
            product = _gres(opt, opts[opt].value)[0]
            pspan = opts[opt].span if product else None
    total = _gres(job_opt, opts[job_opt].value)[1] if job_opt else None
    if job_opt is not None and total is not None:
        return ManifestGpu(product, pspan, total, opts[job_opt].span), nodes
    per_node = _gres(per_node_opt, opts[per_node_opt].value)[1] if per_node_opt else None
    if per_node_opt is None or per_node is None:
        return ManifestGpu(product, pspan), nodes
    span = opts[per_node_opt].span
    if nodes == 1:
        return ManifestGpu(product, pspan, per_node, span), nodes
    if nodes is None:
        note = f"gpu count unknown: {per_node_opt} is per node and --nodes {opts['--nodes'].value} is not one number"
        return ManifestGpu(product, pspan, None, None, (note,)), nodes
    note = f"gpu count = {per_node} per node ({per_node_opt}) x --nodes {nodes}"
    return ManifestGpu(product, pspan, per_node * nodes, span, (note,), grouped=True), nodes


def _gres(opt: str, value: str) -> tuple[str | None, int | None]:
    """(product, count) of one option; of a GRES list (`gpu:8,nvme:1`) only the GPU entry counts."""
    if opt == "--gres":
        value = next((v for v in value.split(",") if v.startswith("gpu")), "")
        return g.parse_gres(value) if value else (None, None)
    return g.parse_gres(f"gpus={value}")


def _nodes(value: str | None) -> int | None:
    """`2` -> 2; `2-2` -> 2; an open range (`2-4`) or a variable is unknown; absent is one node."""
    if value is None:
        return 1
    low, _, high = value.partition("-")
    return count(low) if not high or high == low else None


def _launch_gpus(found: FoundLaunch, job: ManifestGpu, job_nodes: int | None,
                 launches: int) -> tuple[FoundLaunch, ManifestGpu]:
    """The ManifestGpu one launch gets: its own srun per-node GRES times its nodes, else the job's
    when it is the script's only launch; a shared allocation leaves the count to the launch line."""
    hint = found.gpus or ""
    if hint.startswith(("gres=", "gpus-per-node=")):
        product, per_node = g.from_launch_hint(hint)
        nodes = _nodes(found.nodes) if found.nodes else job_nodes
        gpu = ManifestGpu(product or job.product, found.gpus_span if product else job.product_span)
        if per_node is not None and nodes is not None:
            option = hint.split("=", 1)[0]
            notes = (f"gpu count = {per_node} per node (srun --{option}) x {nodes} nodes",) if nodes > 1 else ()
            gpu = replace(gpu, count=per_node * nodes, count_span=found.gpus_span, notes=notes, grouped=nodes > 1)
        elif per_node is not None:
            unknown = "gpu count unknown: srun's GRES is per node and the node count is not one number"
            gpu = replace(gpu, notes=(unknown,))
        return replace(found, gpus=None, gpus_span=None), gpu
    if launches == 1 or job.count is None:
        return found, (replace(job, shared=found.beside) if found.beside and job.count is not None else job)
    shared = replace(job, count=None, count_span=None, notes=(), grouped=False)
    if g.from_launch_hint(found.gpus)[1] is None:
        note = (f"gpu count unknown: {launches} engine launches share this job's {job.count} GPU(s); "
                "give each its own CUDA_VISIBLE_DEVICES or srun --gres")
        shared = replace(shared, notes=(note,))
    return found, shared


def block_string_heredocs(path: str, file_text: str, first_line: int, last_line: int, indent: int) -> list[Deployment]:
    """Launches in the here-documents of a script written as a YAML block string (cloud-init's `write_files:
    [{content: |\n  #!/bin/bash ...}]`, a CI `run: |` block; sample K275's Terraform cloud-init template writes a
    systemd unit with `cat > unit <<EOF`): the string's lines as they stand in the file, so every value keeps its
    line and column, each line carrying the block's indentation."""
    starts = [0]
    for _ in range(last_line):
        nl = file_text.find("\n", starts[-1])
        if nl < 0:
            break
        starts.append(nl + 1)
    if first_line - 1 >= len(starts):
        return []
    lo = starts[first_line - 1]
    hi = starts[last_line] if last_line < len(starts) else len(file_text)
    return heredoc_launches(path, "\n" * (first_line - 1) + file_text[lo:hi], indent)
