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
_KEY_SIGN = lazy(r"[ \t]*=(?![=>])")  # after a word: it is an object's key (`name = ...`)
_BLANKS = lazy(r"(?:[ \t\n]+|(?:#|//)[^\n]*)*")  # blanks and comments up to the next token
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
    column; None when it holds an expression this rewriting does not take. One pass: `last` is the last token
    written, which decides whether a line's end takes a comma."""
    out: list[str] = []
    calls = 0  # kept calls open (`yamlencode(`): each `)` closing one is blanked
    last = ""
    i, n = 0, len(obj)
    while i < n:
        c = obj[i]
        if c in " \t":
            out.append(c)
            i += 1
            continue
        if c == '"':
            j = _string_end(obj, i)
            if j < 0 or "%{" in obj[i:j]:
                return None  # an unclosed string, or a template directive
            token, i = obj[i:j], j
        elif c == "#" or obj.startswith("//", i):
            j = obj.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        elif c == "\n":
            out.append(_comma(obj, i, last) + "\n")
            if out[-1] == ",\n":
                last = ","
            i += 1
            continue
        elif c == "=":
            if obj.startswith(("==", "=>"), i) or i + 1 >= n or obj[i + 1] not in " \t\n":
                return None
            token, i = ":", i + 1
        elif c in "{}[],:":
            token, i = c, i + 1
        elif c == ")":
            if not calls:
                return None  # a parenthesised expression's
            calls -= 1
            token, i = " ", i + 1
        elif (ref := _REFERENCE.match(obj, i)) is not None:
            if obj.startswith("(", ref.end()):
                return None
            token, i = '"${' + ref.group() + '}"', ref.end()
        elif (word := _WORD.match(obj, i)) is not None:
            name = word.group()
            if obj.startswith("(", word.end()):
                if name not in _KEEP_CALLS:
                    return None
                calls += 1
                out.append(" " * (len(name) + 1))
                i = word.end() + 1
                continue
            plain = name in ("true", "false", "null") or _KEY_SIGN.match(obj, word.end()) is not None
            token, i = (name if plain else '"${' + name + '}"'), word.end()  # a bare name: a `for` variable, a local
        elif (num := _NUMBER.match(obj, i)) is not None:
            token, i = num.group(), num.end()
        else:
            return None  # `(`, `?`, an operator: an expression
        out.append(token)
        last = token if token != " " else last
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


def _comma(obj: str, at: int, last: str) -> str:
    """A comma ending the line at `at` when its entry is complete and the next line goes on with another entry of the
    same collection: the line ends in a value (`last` is not `{`, `[`, `,` or `:`) and the next token is not `}`, `]`
    or `,`."""
    if not last or last[-1] in "{[,:":
        return ""
    blanks = _BLANKS.match(obj, at + 1)  # always a match (it may be empty)
    nxt = blanks.end() if blanks is not None else at + 1
    return "" if nxt >= len(obj) or obj[nxt] in "}],)" else ","
