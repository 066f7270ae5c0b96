"""Terraform's `kubernetes_manifest`: a Kubernetes object written as an HCL object (`manifest = { "apiVersion" =
"ray.io/v1", "kind" = "RayService", "spec" = { ... } }`), read as the manifest it is.

An HCL object is close to a YAML flow mapping, so it is rewritten in place into one, every value keeping its line
and column: `=` between a key and its value becomes `:`, a comma is added at the end of a line whose entry the
next line continues, comments are blanked, `yamlencode(...)` / `jsonencode(...)` / `tomap(...)` / `tolist(...)`
keep only their argument (sample K218's RayService: its Serve config is `yamlencode({...})`), and a reference
(`var.model_id`, `local.x`, `kubernetes_secret.s.metadata[0].name`) becomes `"${...}"`, a value left unresolved.
The rewritten object, every other character of the file blanked, is read by the YAML readers. Anything else (a
`for` expression, a conditional, another function) leaves the object unread: no guess.
"""

from __future__ import annotations

import re

from kvlint.deployment import Deployment
from kvlint.lazyre import lazy

_RESOURCE = lazy(r'\bresource[ \t]+"kubernetes_manifest"[ \t]+"[\w-]+"[ \t]*\{')
_MANIFEST = lazy(r"(?m)^[ \t]*manifest[ \t]*=[ \t]*\{")
_KEEP_CALLS = ("yamlencode", "jsonencode", "tomap", "tolist")
_REFERENCE = lazy(r"[A-Za-z_][\w-]*(?:\.[\w-]+|\[\d+\])+")
_WORD = lazy(r"[A-Za-z_][\w-]*")
_NUMBER = lazy(r"-?\d+(?:\.\d+)?")
_MAX_OBJECT = 256 * 1024


def manifests(path: str, text: str) -> list[Deployment]:
    """The launches of the file's kubernetes_manifest resources."""
    if "kubernetes_manifest" not in text:
        return []
    from kvlint.launches.hcl import block_end
    from kvlint.launches.read import read_yaml

    out: list[Deployment] = []
    for res in _RESOURCE.finditer(text):
        end = block_end(text, res.end() - 1)
        m = _MANIFEST.search(text, res.end(), end)
        if m is None:
            continue
        opened = m.end() - 1
        closed = block_end(text, opened)
        if closed >= len(text) or closed - opened > _MAX_OBJECT:
            continue
        flow = as_flow(text[opened : closed + 1])
        if flow is None:
            continue
        padded = re.sub(r"[^\n]", " ", text[:opened]) + flow
        out.extend(read_yaml(path, padded).deployments)
    return out


def as_flow(obj: str) -> str | None:
    """The HCL object `obj` (from its `{` to its `}`) as a YAML flow mapping of the same lines, each token at its
    column; None when it holds an expression this rewriting does not take."""
    out: list[str] = []
    calls: list[bool] = []  # per open `(`: whether it is a kept call (its `)` blanked)
    i, n = 0, len(obj)
    while i < n:
        c = obj[i]
        if c == '"':
            j = _string_end(obj, i)
            if j < 0 or "%{" in obj[i:j]:
                return None  # an unclosed string, or a template directive
            out.append(obj[i:j])
            i = j
        elif c == "#" or obj.startswith("//", i):
            j = obj.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "\n":
            out.append(_comma(obj, i, "".join(out)) + "\n")
            i += 1
        elif c == "=":
            if obj.startswith(("==", "=>"), i) or i + 1 >= n or obj[i + 1] not in " \t\n":
                return None
            out.append(":")
            i += 1
        elif c in "{}[],: \t":
            out.append(c)
            i += 1
        elif c == "(":
            return None  # a parenthesised expression
        elif c == ")":
            if not calls or not calls.pop():
                return None
            out.append(" ")
            i += 1
        elif (ref := _REFERENCE.match(obj, i)) is not None:
            if obj.startswith("(", ref.end()):
                return None
            out.append('"${' + ref.group() + '}"')
            i = ref.end()
        elif (word := _WORD.match(obj, i)) is not None:
            name = word.group()
            if obj.startswith("(", word.end()):
                if name not in _KEEP_CALLS:
                    return None
                calls.append(True)
                out.append(" " * (len(name) + 1))
                i = word.end() + 1
            elif name in ("true", "false", "null") or _is_key(obj, word.end()):
                out.append(name)
                i = word.end()
            else:
                out.append('"${' + name + '}"')  # a bare name: a `for` variable, an iterator, a local
                i = word.end()
        elif (num := _NUMBER.match(obj, i)) is not None:
            out.append(num.group())
            i = num.end()
        else:
            return None
    return "".join(out) if not calls else None


def _string_end(obj: str, i: int) -> int:
    """The offset after the string opened at `i`, or -1 when it does not close on its line."""
    j = i + 1
    while j < len(obj):
        if obj[j] == "\\":
            j += 2
            continue
        if obj[j] == '"':
            return j + 1
        if obj[j] == "\n":
            return -1
        j += 1
    return -1


def _is_key(obj: str, at: int) -> bool:
    """Whether the word ending at `at` is an object's key (`name = ...`): an `=` follows it on its line."""
    rest = obj[at : obj.find("\n", at) if "\n" in obj[at:] else len(obj)].lstrip(" \t")
    return rest.startswith("=") and not rest.startswith(("==", "=>"))


def _comma(obj: str, at: int, before: str) -> str:
    """A comma ending the line at `at` when its entry is complete and the next line goes on with another entry of the
    same collection: the line ends in a value (not `{`, `[`, `,` or `:`) and the next token is not `}`, `]` or `,`."""
    last = before.rstrip(" \t")
    if not last or last[-1] in "{[,:\n":
        return ""
    rest = obj[at + 1 :].lstrip(" \t\n")
    while rest.startswith(("#", "//")):
        nl = rest.find("\n")
        rest = "" if nl < 0 else rest[nl + 1 :].lstrip(" \t\n")
    return "" if not rest or rest[0] in "}],)" else ","
