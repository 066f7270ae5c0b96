"""Exact JSON Schema validity for the few keywords kvlint's own schemas use, without importing jsonschema.

Importing jsonschema (referencing, attrs, rpds, every bundled metaschema) costs more than the rest of a
pre-commit run, to check a ten-line .kvlint.yaml that is almost always valid. `is_valid` only lets the
valid case skip it: an invalid document, or a keyword or value type outside this subset, still goes to
jsonschema, which alone writes the error messages. Within the subset the answer is exact (oneOf needs
that), and tests compare it with jsonschema on generated documents.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_JSON_VALUES = (dict, list, str, int, float, bool, type(None))
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples"})


class Unsupported(Exception):
    """A keyword, reference or value this subset does not decide: jsonschema must."""


def is_valid(instance: Any, schema: dict, documents: Mapping[str, dict] | None = None) -> bool:
    """True when instance satisfies schema; False when it does not, or when only jsonschema can tell.

    documents: other schemas a `$ref` may name, by file name (`calibration.schema.json`).
    """
    try:
        return valid(instance, schema, schema, documents or {})
    except (Unsupported, RecursionError):
        return False


def valid(instance: Any, schema: Any, root: dict, documents: Mapping[str, dict]) -> bool:
    """The exact answer, or Unsupported."""
    if schema is True or schema is False:
        return schema
    if not isinstance(instance, _JSON_VALUES) or (isinstance(instance, dict) and
                                                  not all(isinstance(k, str) for k in instance)):
        raise Unsupported(f"value of type {type(instance).__name__}")
    results = [_keyword(name, arg, instance, schema, root, documents) for name, arg in schema.items()
               if name not in _ANNOTATIONS]
    return all(results)


def _keyword(name: str, arg: Any, instance: Any, schema: dict, root: dict, documents: Mapping[str, dict]) -> bool:
    if name == "$ref":
        target, target_root = _resolve(arg, root, documents)
        return valid(instance, target, target_root, documents)
    if name == "type":
        names = [arg] if isinstance(arg, str) else arg
        if not all(n in _TYPES for n in names):
            raise Unsupported(f"type {arg!r}")
        return any(_TYPES[n](instance) for n in names)
    if name == "enum":
        if not all(isinstance(e, str) for e in arg):
            raise Unsupported("enum of non-strings")
        return isinstance(instance, str) and instance in arg
    if name == "minLength":
        return not isinstance(instance, str) or len(instance) >= arg
    if name == "pattern":
        return not isinstance(instance, str) or re.search(arg, instance) is not None
    if name == "minimum":
        return not _TYPES["number"](instance) or not instance < arg
    if name == "required":
        return not isinstance(instance, dict) or all(k in instance for k in arg)
    if name == "properties":
        return not isinstance(instance, dict) or all(valid(instance[k], sub, root, documents)
                                                     for k, sub in arg.items() if k in instance)
    if name == "additionalProperties":
        known = schema.get("properties", {})
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        return not isinstance(instance, dict) or all(valid(v, arg, root, documents)
                                                     for k, v in instance.items() if k not in known)
    if name == "items":
        if not isinstance(arg, (dict, bool)):
            raise Unsupported("items as a list")
        return not isinstance(instance, list) or all(valid(v, arg, root, documents) for v in instance)
    if name == "oneOf":
        return sum(valid(instance, sub, root, documents) for sub in arg) == 1
    raise Unsupported(f"keyword {name!r}")


def _resolve(ref: str, root: dict, documents: Mapping[str, dict]) -> tuple[Any, dict]:
    """A `#/json/pointer` in the current document, or a sibling schema file by name."""
    name, _, pointer = ref.partition("#")
    if name:
        if name not in documents:
            raise Unsupported(f"$ref {ref!r}")
        root = documents[name]
    node: Any = root
    for part in filter(None, pointer.split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise Unsupported(f"$ref {ref!r}")
        node = node[part]
    return node, root
