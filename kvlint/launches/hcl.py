"""Terraform and Nomad files (HCL): a container block that runs an engine image or command.

A Terraform `kubernetes_deployment` writes its container as `container { image = "..." command = [...]
args = [...] }`; a Nomad job's docker task as `config { image = "..." entrypoint = [...] command = "..." args =
[...] }`. Each block that assigns an `image` is read as a container: its entrypoint / command / args lists are
the argv (an HCL string list: each word at its place, `${var.x}` and bare references left unresolved), and with
no command the image's entry point runs the arguments, as for `docker run` (kvlint.launches.docker_run). The
GPU count is the block's `"nvidia.com/gpu" = N` limit (Terraform) or `device "nvidia/gpu" { count = N }`
(Nomad). Nothing here evaluates HCL: a value kvlint cannot read stays unresolved.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from kvlint.deployment import Deployment
from kvlint.launches import ReadResult
from kvlint.launches.build import ManifestGpu
from kvlint.launches.env import Field
from kvlint.lazyre import lazy
from kvlint.sources.text import LineIndex
from kvlint.span import Span

if TYPE_CHECKING:
    from kvlint.launches.script import FoundLaunch

_WORDS = ("vllm", "sglang")
_IMAGE = lazy(r'(?m)^[ \t]*image[ \t]*=[ \t]*"((?:[^"\\\n]|\\.)*)"')
_LIST = lazy(r'(?m)^[ \t]*(entrypoint|command|args)[ \t]*=[ \t]*(\[|"|(?:concat|compact|flatten|distinct|tolist)\(|'
             r'local\.\w+|var\.\w+|\$\{[\w.]+\})')
# functions whose result keeps their list arguments' items in order (`compact` drops null and "" items only)
_KEEPING = ("concat(", "compact(", "flatten(", "distinct(", "tolist(")
_GPU_LIMIT = lazy(r'"nvidia\.com/gpu"[ \t]*=[ \t]*"?(\d+)')
_NOMAD_GPU = lazy(r'device[ \t]+"(?:nvidia/)?gpu"[ \t]*\{[^}]*?\bcount[ \t]*=[ \t]*(\d+)', re.DOTALL)
# a Nomad device constraint naming the card: `attribute = "${device.model}"` ... `value = "Tesla T4"`
_NOMAD_MODEL = lazy(r'attribute[ \t]*=[ \t]*"\$\{device\.model\}"[^}]*?\bvalue[ \t]*=[ \t]*"([^"\n]+)"', re.DOTALL)
_TF_ENV = lazy(r'\benv[ \t]*\{\s*name[ \t]*=[ \t]*"([\w.-]+)"\s*value[ \t]*=[ \t]*"((?:[^"\\\n]|\\.)*)"')
_NOMAD_ENV = lazy(r'(?m)^[ \t]*(?:env|environment)[ \t]*=?[ \t]*\{([^{}]*)\}')
_NOMAD_PAIR = lazy(r'(?m)^[ \t]*"?([A-Za-z_][\w]*)"?[ \t]*=[ \t]*"((?:[^"\\\n]|\\.)*)"')
_MAX_BLOCKS = 500


def read(path: str, text: str, _as_vllm_config: bool | None = None) -> ReadResult:
    """The reader protocol's entry (kvlint.launches.kinds)."""
    from kvlint.sources.comments import scan_comments

    if not any(w in text for w in _WORDS):
        return ReadResult(path)
    index = LineIndex(text)
    from kvlint.launches.terraform_helm import releases

    out: list[Deployment] = releases(path, text)
    for m in list(_IMAGE.finditer(text))[:_MAX_BLOCKS]:
        start, end = _block(text, m.start())
        dep = _container(path, text, index, m, start, end)
        if dep is not None:
            out.append(dep)
    out += _heredoc_manifests(path, text)
    if "kubernetes_manifest" in text:
        from kvlint.launches.tf_manifest import manifests

        out += manifests(path, text)
    out += _heredoc_scripts(path, text)
    out += _inline_commands(path, text) if "inline" in text else []
    if not out:  # an ECS container definition (`command = [...]` beside `image = local.x`): its literal list
        from kvlint.launches.literals import launches_in

        out = launches_in(path, text, hash_comments=True)
    return ReadResult(path, out, comments=scan_comments(text))


_MANIFEST = lazy(r"(?m)^[ \t]*apiVersion:[ \t]*\S")
_MAX_HEREDOCS = 64


def _heredoc_manifests(path: str, text: str) -> list[Deployment]:
    """The launches of Kubernetes manifests written as here-documents (`kubectl_manifest { yaml_body = <<-YAML`,
    `kubernetes_manifest { manifest = yamldecode(<<EOT`, a `local_file` content): each body read as the YAML
    file it is, at its own lines, `${var.X}` / `${local.X}` the module's literal where it has one (a helm_release's
    values here-documents are kvlint.launches.terraform_helm's)."""
    if "<<" not in text or _MANIFEST.search(text) is None:
        return []
    from kvlint.launches.read import read_yaml
    from kvlint.launches.terraform_helm import module_values

    module: dict[str, str] = {}
    looked = False
    out: list[Deployment] = []
    for h, body in _heredocs(text):
        if _MANIFEST.search(body) is None or "kind:" not in body or "values" in text[max(0, h.start() - 40):h.start()]:
            continue
        if not looked:
            module, looked = (module_values(path) if "var." in text or "local." in text else {}), True
        body = _INTERPOLATION.sub(partial(_filled, module), body)
        out += read_yaml(path, "\n" * text.count("\n", 0, h.end()) + body).deployments
    return out


_INTERPOLATION = lazy(r"\$\{([^{}\n]*)\}")


def _heredocs(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Each here-document's opening (`<<EOT`, `<<-EOT`) and body, up to the first `_MAX_HEREDOCS` or one left open."""
    from kvlint.launches.terraform_helm import HEREDOC

    for k, h in enumerate(HEREDOC.finditer(text)):
        close = re.compile(r"(?m)^[ \t]*" + re.escape(h.group(2)) + r"[ \t]*$").search(text, h.end())
        if k >= _MAX_HEREDOCS or close is None:
            return
        yield h, text[h.end() : close.start()]

# attributes whose string a machine runs as a shell script at boot or on provision
_SCRIPT_KEYS = ("user_data", "metadata_startup_script", "startup_script", "custom_data", "inline", "script")
_KEY_BEFORE = lazy(r"[ \t]*([A-Za-z_][\w-]*)[ \t]*=[ \t]*(?:[\w.]+\([ \t]*)*$")


def _heredoc_scripts(path: str, text: str) -> list[Deployment]:
    """The launches of shell scripts written as here-documents (an instance's `user_data = <<EOS`, a GCE
    `metadata_startup_script`, a provisioner's `inline`, or any body that opens with `#!`): each body read as the
    script it is, at its own lines, Terraform's `$${X}` the shell's own `${X}`, `${var.X}` the module's literal
    where it has one and otherwise a variable the script leaves unresolved."""
    if "<<" not in text:
        return []
    from kvlint.launches.shellfile import read as read_script
    from kvlint.launches.terraform_helm import module_values

    module: dict[str, str] | None = None
    out: list[Deployment] = []
    for h, body in _heredocs(text):
        opening = text[text.rfind("\n", 0, h.start()) + 1 : h.end()]
        handed = _SHELL_C.search(text, max(0, h.start() - 200), h.start()) is not None
        if not any(w in body for w in _WORDS) or not (handed or _is_script(opening, body)):
            continue
        if module is None:
            module = module_values(path) if "var." in body or "local." in body else {}
        body = _TEMPLATE.sub(partial(_for_shell, module), body)
        out += read_script(path, "\n" * text.count("\n", 0, h.end()) + body).deployments  # its here-documents too
    return out


_INLINE = lazy(r"\binline[ \t]*=[ \t]*\[")
_QUOTED = lazy(r'"((?:[^"\\\n]|\\.)*)"')


def _inline_commands(path: str, text: str) -> list[Deployment]:
    """The launches of a `remote-exec` provisioner's `inline = ["cmd", ...]` (sample K259: `docker run ... vllm/
    vllm-openai:latest --model ${var.vllm_model} ...` on the instance Terraform made): each string a command the
    machine runs, read as a script at its own place, `\\"` the shell's `"`, Terraform's `${var.X}` the module's
    literal or a variable the script leaves unresolved."""
    from kvlint.launches.shellfile import read as read_script
    from kvlint.launches.terraform_helm import module_values

    out: list[Deployment] = []
    module: dict[str, str] | None = None  # the module's variables, read once for every list that uses them
    for m in list(_INLINE.finditer(text))[:_MAX_HEREDOCS]:
        end = block_end(text, m.end() - 1)
        strings = [q for q in _QUOTED.finditer(text, m.end(), end) if any(w in q.group(1) for w in _WORDS)]
        if not strings:
            continue
        chars = ["\n" if c == "\n" else " " for c in text[:end]]
        for q in strings:  # each command at its place, the rest blanked (a line per string, as written)
            chars[q.start(1):q.end(1)] = q.group(1).replace('\\"', ' "')
        if module is None:
            module = module_values(path) if "var." in text or "local." in text else {}
        script = _TEMPLATE.sub(partial(_for_shell, module), "".join(chars))
        out += read_script(path, script).deployments
    return out


# a here-document that is the script of a shell's `-c` in a command list (`command = ["bash", "-c", <<-EOT`, sample
# K120's EKS deployment)
_SHELL_C = lazy(r"""["'](?:/bin/)?(?:ba|z)?sh["'][ \t]*,\s*["']-[a-z]*c["'][ \t]*,\s*(?:trimspace\()?\Z""")


def _is_script(opening: str, body: str) -> bool:
    """A body that opens with `#!`, or the value of an attribute a machine runs (`user_data = base64encode(<<EOS`)."""
    key = _KEY_BEFORE.match(opening.split("<<", 1)[0])
    return body.lstrip().startswith("#!") or (key is not None and key.group(1) in _SCRIPT_KEYS)


_TEMPLATE = lazy(r"(\$?)\$\{([^{}\n]*)\}")


def _for_shell(module: dict[str, str], m: re.Match[str]) -> str:
    """A Terraform template interpolation inside a shell script: `$${X}` is the shell's `${X}`; a module literal
    is its text; another expression stays as written, a reference the script leaves unresolved."""
    from kvlint.launches.terraform_helm import interpolated

    return m.group(0)[1:] if m.group(1) else interpolated(m.group(2), module)



def _filled(module: dict[str, str], m: re.Match[str]) -> str:
    from kvlint.launches.terraform_helm import interpolated

    return interpolated(m.group(1), module)


def _block(text: str, at: int) -> tuple[int, int]:
    """(start, end) of the innermost `{ ... }` around offset `at` (strings and comments are not looked into:
    a brace in them is rare in a container block, and a wrong guess only narrows what is read)."""
    depth, i = 0, at
    while i > 0:
        i -= 1
        c = text[i]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                break
            depth -= 1
    start, depth, j = i, 0, at
    while j < len(text):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                break
            depth -= 1
        j += 1
    return start, j


def block_end(text: str, opened: int) -> int:
    """The offset of the `}` closing the `{` at `opened` (the text's end when it never closes); braces inside
    strings are passed over."""
    depth, j, quoted = 0, opened, False
    while j < len(text):
        c = text[j]
        if quoted:
            j += 2 if c == "\\" else 1
            quoted = c != '"' and c != "\n"
            continue
        if c == '"':
            quoted = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(text)


def _container(path: str, text: str, index: LineIndex, image_m: re.Match[str], start: int,
               end: int) -> Deployment | None:
    from kvlint.launches.build import LaunchContext, finish
    from kvlint.launches.docker_run import RunOptions, command_after_image
    from kvlint.launches.groups import is_launch
    from kvlint.launches.script import launch_in_argv
    from kvlint.record import replace

    image = _field(path, index, image_m.group(1), image_m.start(1))
    lists: dict[str, list[Field]] = {}
    for lm in _LIST.finditer(text, start, end):
        if _depth(text, start, lm.start()) != 1:
            continue  # a list of a nested block (an init container's, a probe's exec command)
        lists.setdefault(lm.group(1), _list_value(path, text, index, lm.start(2), end))
    argv = lists.get("entrypoint", []) + lists.get("command", []) + lists.get("args", [])
    opts = RunOptions()
    rest, default = command_after_image(opts, image, argv)
    found = launch_in_argv(rest, {}, image_default=default) if argv else None
    found = found or (None if argv else _env_configured(path, text, index, image, start, end))
    if found is None:
        return None
    found = replace(found, image=image, entry_span=found.entry_span or image.span,
                    notes=found.notes + tuple(opts.notes))
    dep = finish(path, found, LaunchContext(), _gpus(path, text, index, start, end))
    return dep if is_launch(dep) else None


def _env_configured(path: str, text: str, index: LineIndex, image: Field, start: int,
                    end: int) -> FoundLaunch | None:
    """A custom engine image with no command, configured by its environment (kvlint.launches.env_launch): the
    Terraform container's `env { name = "X" value = "Y" }` blocks, or the Nomad task's `env { X = "Y" }` map
    around the docker `config` block."""
    from kvlint.launches import env_launch
    from kvlint.launches.script import FoundLaunch

    engine = env_launch.configured_engine(image.text)
    if engine is None:
        return None
    items = [(m.group(1), _field(path, index, m.group(1), m.start(1)).span, _field(path, index, m.group(2), m.start(2)))
             for m in _TF_ENV.finditer(text, start, end)]
    if not items:
        outer_start, outer_end = _block(text, start) if start > 0 else (start, end)
        for block in _NOMAD_ENV.finditer(text, outer_start, outer_end):
            items += [(m.group(1), _field(path, index, m.group(1), m.start(1)).span,
                       _field(path, index, m.group(2), m.start(2)))
                      for m in _NOMAD_PAIR.finditer(text, block.start(1), block.end(1))]
    fields = env_launch.fields_from_env(engine, items, image.text)
    if fields is None:
        return None
    return FoundLaunch(engine, tuple(fields), None, {}, notes=(env_launch.NOTE.format(image=image.text),))


def _list_value(path: str, text: str, index: LineIndex, at: int, end: int) -> list[Field]:
    """An HCL list as argv words: a literal (`[...]`, `"..."`), a module local holding one (`local.args`), or
    `concat(A, B, ...)` / `compact([...])` / `flatten(...)` of those, each word at its place (a local's words where
    the local is written)."""
    call = next((f for f in _KEEPING if text.startswith(f, at)), None)
    if call is not None:
        out: list[Field] = []
        for arg_start, arg_end in _call_args(text, at + len(call), end):
            out += _list_value(path, text, index, arg_start, arg_end)
        return out
    if text.startswith("local.", at):
        name = re.match(r"local\.(\w+)", text[at:])
        found = re.search(r"(?m)^[ \t]*" + re.escape(name.group(1)) + r"[ \t]*=[ \t]*\[", text) if name else None
        return _words(path, text, index, found.end() - 1, len(text)) if found is not None else []
    if text[at : at + 1] in ('[', '"'):
        return _words(path, text, index, at, end)
    placeholder = _PLACEHOLDER.match(text, at)
    if placeholder is not None:  # `args = ${VLLM_ARGS}` (a job template filled before it is run): one open word
        ref = placeholder.group()
        return [Field(ref, _field(path, index, ref, at).span, False, (ref,))]
    return []


# a whole list left to a template or a variable: `${VLLM_ARGS}`, `var.args`, `[[ .Args ]]`
_PLACEHOLDER = lazy(r"\$\{[A-Za-z_][\w.]*\}|var\.\w+|\[\[[^\]\n]*\]\]")


def _call_args(text: str, at: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each argument of a call whose `(` is just before `at`, split at its own commas."""
    out: list[tuple[int, int]] = []
    depth, start, i = 0, at, at
    while i < end:
        c = text[i]
        if c == '"':
            i = _string_end(text, i) + 1
            continue
        if c == "#" or text.startswith("//", i):
            nl = text.find("\n", i)
            i = end if nl < 0 else nl
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                out.append((start, i))
                return [(a, b) for a, b in ((a + len(text[a:b]) - len(text[a:b].lstrip()), b) for a, b in out) if a < b]
            depth -= 1
        elif c == "," and depth == 0:
            out.append((start, i))
            start = i + 1
        i += 1
    return []


def _depth(text: str, start: int, at: int) -> int:
    """How many braces are open between the block's `{` (at `start`) and `at`: 1 is the block's own level."""
    depth = 0
    for c in text[start:at]:
        depth += c == "{"
        depth -= c == "}"
    return depth


def _words(path: str, text: str, index: LineIndex, at: int, end: int) -> list[Field]:
    """An HCL string list `[ "a", var.b, 2 ]` (or one string `"a"`) at `at`: each item as a word at its place."""
    if text[at] == '"':
        close = _string_end(text, at)
        return [_field(path, index, text[at + 1 : close], at + 1)]
    out: list[Field] = []
    i = at + 1
    while i < end:
        c = text[i]
        if c == "]":
            break
        if c in " \t\r\n,":
            i += 1
        elif c == "#" or text.startswith("//", i):
            nl = text.find("\n", i)
            i = end if nl < 0 else nl
        elif c == '"':
            close = _string_end(text, i)
            out.append(_field(path, index, text[i + 1 : close], i + 1))
            i = close + 1
        else:
            j, depth = i, 0
            while j < end and (depth or text[j] not in ",]\n"):  # `jsonencode({ "a" : 1, "b" : 2 })` is one
                depth += (text[j] in "({[") - (text[j] in ")}]")
                if text[j] == '"':
                    j = _string_end(text, j)
                j += 1
            expr = text[i:j].strip()
            if expr and _SWITCH.fullmatch(expr):
                pass  # `var.x ? "--flag" : ""`: an item a variable switches on, never a positional word (the model)
            elif expr:
                literal = expr if expr.replace(".", "").isdigit() else _jsonencoded(expr)
                out.append(_field(path, index, literal if literal is not None else "${" + expr + "}", i, len(expr)))
            i = j
    return out


_SWITCH = lazy(r'[^?"]+\?(?:.*:\s*""|\s*""\s*:.*)', re.DOTALL)  # `c ? X : ""`: an item `compact()` may drop
_JSONENCODE = lazy(r"^jsonencode\((\{.*\})\)$", re.DOTALL)
_BARE_KEY = lazy(r'([{,]\s*)([A-Za-z_]\w*)(\s*[:=])')


def _jsonencoded(expr: str) -> str | None:
    """`jsonencode({ "method" : "mtp", n = 2 })` of an object of literals: the JSON text Terraform writes (keys
    bare or quoted, `=` or `:`); None for anything it cannot evaluate (a reference, a function inside)."""
    import json

    m = _JSONENCODE.match(expr)
    if m is None:
        return None
    pieces = re.split(r'("(?:[^"\\]|\\.)*")', m.group(1))  # strings at odd places: left as written
    body = "".join(p if k % 2 else _BARE_KEY.sub(lambda e: f'{e.group(1)}"{e.group(2)}"{e.group(3)}',
                                                  p.replace("=", ":")) for k, p in enumerate(pieces))
    try:
        return json.dumps(json.loads(body), separators=(",", ":"))
    except ValueError:
        return None


def _string_end(text: str, at: int) -> int:
    i = at + 1
    while i < len(text) and text[i] != '"' and text[i] != "\n":
        i += 2 if text[i] == "\\" else 1
    return i


def _field(path: str, index: LineIndex, raw: str, at: int, width: int | None = None) -> Field:
    value = raw.replace('\\"', '"').replace("\\\\", "\\")
    line, col = index.locate(at)
    span = Span(path, line, col, line, col + (width if width is not None else len(raw)))
    unresolved = "${" in value
    return Field(value, span, not unresolved, (value,) if unresolved else ())


def _gpus(path: str, text: str, index: LineIndex, start: int, end: int) -> ManifestGpu:
    """The block's GPU limit, or the Nomad task's device count around it."""
    m = _GPU_LIMIT.search(text, start, end)
    if m is None:
        outer_start, outer_end = _block(text, start) if start > 0 else (start, end)
        m = _NOMAD_GPU.search(text, outer_start, outer_end) or _GPU_LIMIT.search(text, outer_start, outer_end)
    if m is None:
        return ManifestGpu()
    line, col = index.locate(m.start(1))
    count = ManifestGpu(count=int(m.group(1)), count_span=Span(path, line, col, line, col + len(m.group(1))))
    if _GPU_LIMIT.match(text, m.start()):
        return count
    model = _NOMAD_MODEL.search(text, m.start(), block_end(text, text.find("{", m.start())))
    if model is None:
        return count
    from kvlint.record import replace

    mline, mcol = index.locate(model.start(1))
    where = Span(path, mline, mcol, mline, mcol + len(model.group(1)))
    return replace(count, product=model.group(1), product_span=where)
