"""Ansible's template expressions in the strings of a playbook or a task list.

A task's `shell:` / `command:` string is Jinja before it is a shell script: `{{ vllm_image }}` is the play's
variable, `{{ item.model }}` the current element of the task's `loop:` (or `with_items:`), and `{{ x |
default('y') }}` a variable with a default. Written as shell variables (`${vllm_image}`, `${x:-y}`, one
variable per key of the loop's element), the script reader reads them as it reads any other, each character
at its place in the file. A task looping over a list of models is one launch per element, each element's
keys taken together (not every combination of them, as a CI matrix would be).
"""

from __future__ import annotations

import re
from functools import partial

from kvlint.launches.rewrite import substitute
from kvlint.lazyre import lazy
from kvlint.sources.text import Mapped
from kvlint.sources.yaml import YNode

ITEM_VAR = "ANSIBLE_ITEM__"  # the variable `{{ item.KEY }}` is read as (`{{ item }}`: the prefix without a key)
LOOP_KEYS = ("loop", "with_items", "with_list")
# `{{ NAME }}` (Ansible, Jinja) and `{{.NAME}}` (Go templates: a Taskfile's `vars:`); `{{ .Values.x }}` keeps its dots
_EXPR = lazy(r"\{\{-?\s*\.?([A-Za-z_][A-Za-z0-9_.]*)\s*"
             r"(?:\|\s*default\(\s*(?:'([^']*)'|\"([^\"]*)\"|(\d+))\s*\)\s*)?-?\}\}")
_LIST_REF = lazy(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")
_MAX_ROWS = 16

Rows = list[dict[str, str]]


def lists_of(vars_node: YNode) -> dict[str, Rows]:
    """The list variables of a `vars:` map, each as rows (an element's scalar keys; a scalar element is the row
    `{"": value}`), for a `loop: "{{ NAME }}"` to take."""
    out: dict[str, Rows] = {}
    for key, _, val in vars_node.pairs() if vars_node.is_map else ():
        rows = _rows(val)
        if rows:
            out[key] = rows
    return out


def loop_rows(task: YNode, lists: dict[str, Rows]) -> Rows | None:
    """The elements a task loops over: an inline list, or a `"{{ NAME }}"` of a list the play's vars hold."""
    for key in LOOP_KEYS:
        node = task.get(key)
        if node is None:
            continue
        if node.is_seq:
            return _rows(node) or None
        m = _LIST_REF.match(node.text.strip()) if node.is_scalar else None
        return lists.get(m.group(1)) if m else None
    return None


def _rows(node: YNode) -> Rows:
    if not node.is_seq:
        return []
    rows: Rows = []
    for item in node.items[:_MAX_ROWS]:
        if item.is_scalar:
            rows.append({"": item.text})
        elif item.is_map:
            rows.append({k: v.text for k, _, v in item.pairs() if v.is_scalar})
    return rows


def as_shell(m: Mapped) -> Mapped:
    """`{{ NAME }}` as `${NAME}`, `{{ NAME | default('v') }}` as `${NAME:-v}`, `{{ item.KEY }}` as the loop
    variable of KEY; every character keeps its place. Expressions of any other shape stay as written."""
    if "{{" not in m.text:
        return m
    text, offsets = substitute(m.text, _EXPR, _variable)
    return m.view(m.path, text, offsets)


def _variable(e: re.Match[str]) -> str:
    name = e.group(1)
    if name == "item" or name.startswith("item."):
        name = ITEM_VAR + name[5:].replace(".", "_")
    elif "." in name:
        return str(e.group(0))  # `hostvars.x`, `ansible_facts.y`: facts of the run, not a variable here
    default = next((g for g in e.groups()[1:] if g is not None), None)
    return "${" + name + (":-" + default if default is not None else "") + "}"


def row_values(row: dict[str, str]) -> dict[str, str]:
    """One loop element as the shell variables `as_shell` wrote."""
    return {ITEM_VAR + key: value for key, value in row.items() if "{{" not in value}


def heredoc_manifests(path: str, file_text: str, m: Mapped, env: dict[str, str], rows: Rows | None) -> list:
    """The manifests a task's script writes with a here-document (`kubectl apply -f - <<EOF`), rendered once per
    loop element as Ansible renders the task: each is read as a YAML file at the file's own lines (the body's
    indentation inside the playbook is kept, so a value's column is its column in the playbook)."""
    from kvlint.launches.read import read_yaml
    from kvlint.launches.shellfile import YAML_DOC, heredoc_bodies

    out: list = []
    lines = file_text.split("\n")
    for start, body, _ in heredoc_bodies(m.text):
        if not body.strip() or YAML_DOC.search(body) is None:
            continue
        first = m.at(start)[0] - 1
        last = m.at(start + len(body.rstrip("\n")))[0]
        for row in (rows or [{}])[:_MAX_ROWS]:
            rendered = [_EXPR.sub(partial(_render, env=env, row=row), line) for line in lines[first:last]]
            out.extend(read_yaml(path, "\n" * first + "\n".join(rendered)).deployments)
    return out


def _render(e: re.Match[str], env: dict[str, str], row: dict[str, str]) -> str:
    """A Jinja expression's value when the play or the loop element gives it, else a `${NAME}` YAML reads as text."""
    name = e.group(1)
    if name == "item" or name.startswith("item."):
        value = row.get(name[5:])
    else:
        value = env.get(name, next((g for g in e.groups()[1:] if g is not None), None))
    return value if value is not None and "{{" not in value else "${" + name + "}"


# a value that is one template expression and nothing else (`command: "{{ _vllm_command }}"`)
_LONE = lazy(r"^\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)\s*-?\}\}$")
_FACT_KEYS = frozenset({"set_fact", "ansible.builtin.set_fact", "ansible.legacy.set_fact", "vars"})
_FACT_DEPTH = 8  # levels walked: a play's tasks, a block's tasks, a task's module map, its values


def with_facts(doc: YNode) -> YNode:
    """A playbook or task list with each value that is one variable alone (`command: "{{ _vllm_command }}"`)
    replaced by the node an earlier `set_fact:` or a `vars:` map gives it (`_vllm_command: >- --model {{ m }}
    --enforce-eager ...`), so a `docker_container` task reads the arguments its play built where they are written
    (turn 37's K326: sbnb's vLLM role). The document itself when it defines no such variable."""
    facts: dict[str, YNode] = {}
    _facts(doc, facts, 0)
    return _swapped(doc, facts, 0) if facts else doc


def _facts(node: YNode, out: dict[str, YNode], depth: int) -> None:
    if depth > _FACT_DEPTH:
        return
    if node.is_seq:
        for item in node.items:
            _facts(item, out, depth + 1)
    elif node.is_map:
        for key, _, val in node.pairs():
            if key in _FACT_KEYS and val.is_map:
                for name, _, value in val.pairs():
                    if value.is_scalar and value.text.strip() and _LONE.match(value.text.strip()) is None:
                        out.setdefault(name, value)  # the first definition: a later task's may be conditional
            elif not val.is_scalar:
                _facts(val, out, depth + 1)


def _swapped(node: YNode, facts: dict[str, YNode], depth: int) -> YNode:
    from kvlint.record import replace

    if node.is_scalar:
        lone = _LONE.match(node.text.strip()) if "{{" in node.text else None
        return facts.get(lone.group(1), node) if lone is not None else node
    if depth > _FACT_DEPTH or not (node.is_map or node.is_seq):
        return node
    if node.is_seq:
        items: tuple = tuple(_swapped(i, facts, depth + 1) for i in node.items)
        changed = any(a is not b for a, b in zip(items, node.items, strict=True))
    else:
        items = tuple((k, _swapped(v, facts, depth + 1)) for k, v in node.items)
        changed = any(a[1] is not b[1] for a, b in zip(items, node.items, strict=True))
    return replace(node, items=items) if changed else node
