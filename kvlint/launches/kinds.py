"""The reader protocol: one table of input kinds, each claimed by name or by its first words, each read
by one module's function `(path, text, as_vllm_config) -> ReadResult`.

The folder walk (`discover`), the reader dispatch (`read`) and the pre-commit hook's file filter
(.pre-commit-hooks.yaml `files:`, kept equal by tests/launches/test_kinds.py) all ask this table, so a new
kind is one row and one module. A reader module is imported only when a file of its kind is read: the table
itself imports nothing but the record type, so a one-file run loads one reader.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from kvlint.lazyre import lazy
from kvlint.record import record

if TYPE_CHECKING:
    from kvlint.launches import ReadResult

Reader = Callable[[str, str, "bool | None"], "ReadResult"]


@record
class Kind:
    """An input kind: which file names it claims (suffixes, exact names, name prefixes, all lower case), which
    texts it claims when the name says nothing (`sniff`: the first words of the text), and its reader."""

    name: str
    reader: str  # "module:function"
    suffixes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    sniff: tuple[str, ...] = ()
    walk_hint: tuple[str, ...] = ()  # in a folder walk, only names holding one of these (package.json is not)
    walk_bytes: int = 0  # in a folder walk, only files up to this size (0: any); a bigger one is data, not notes
    bare: bool = False  # claims a name with no suffix at all (`serve`, `bin/start-vllm`): its text decides
    # its programs read bytes, not UTF-8 (a shell, cmd.exe in the console's code page, Windows PowerShell 5.1 in the
    # ANSI one, make): a file saved in a legacy code page (a GBK comment) is valid and read, never a KV001.
    # YAML, JSON and TOML must be UTF-8 by their specifications, and Python without a coding line too
    bytes_ok: bool = False

    def claims(self, base: str) -> bool:
        if self.bare:
            return "." not in base and base not in ("-", "")  # stdin is read by its first words
        return base.endswith(self.suffixes) or base in self.names or base.startswith(self.prefixes)

    def walked(self, base: str) -> bool:
        return not self.walk_hint or any(w in base for w in self.walk_hint)


TEMPLATE_SUFFIXES = (".tpl", ".tftpl", ".tmpl")  # a file a tool renders with its values (Terraform's templatefile())
# looked at in this order: the first kind whose name matches reads the file
KINDS: tuple[Kind, ...] = (
    Kind("yaml", "kvlint.launches.read:read_yaml", suffixes=(".yaml", ".yml", ".yaml.tpl", ".yml.tpl")),
    # a batch scheduler's job script is a shell script under the scheduler's name (`sglang.job`, `serve.pbs`)
    Kind("shell", "kvlint.launches.shellfile:read", suffixes=(".sh", ".bash", ".zsh", ".ksh", ".slurm", ".sbatch",
                                                              ".job", ".pbs", ".qsub", ".lsf", ".bsub"),
         sniff=("#!", "vllm ", "python", "sglang ", "docker run", "export "), bytes_ok=True),
    # Podman/Buildah's `Containerfile` is the same format under another name
    Kind("dockerfile", "kvlint.launches.dockerfile:read", suffixes=(".dockerfile", ".containerfile"),
         prefixes=("dockerfile", "containerfile"),
         sniff=("FROM ", "ARG ", "from ", "arg "), bytes_ok=True),
    # any JSON up to 256 KiB (a stack's `configs/config.json` of services); its reader passes over one that names
    # no engine before parsing it, and a larger one is data (package-lock.json, tokenizer.json)
    Kind("json", "kvlint.launches.read:read_json", suffixes=(".json",), walk_bytes=256 * 1024),
    Kind("make", "kvlint.launches.makefile:read", suffixes=(".mk", ".just"),
         names=("makefile", "gnumakefile", "justfile", ".justfile"), bytes_ok=True),
    Kind("powershell", "kvlint.launches.powershell:read", suffixes=(".ps1",), bytes_ok=True),
    Kind("batch", "kvlint.launches.batch:read", suffixes=(".bat", ".cmd"), bytes_ok=True),
    Kind("python", "kvlint.launches.pyfile:read", suffixes=(".py",)),
    Kind("notebook", "kvlint.launches.notebook:read", suffixes=(".ipynb",)),
    Kind("hcl", "kvlint.launches.hcl:read", suffixes=(".tf", ".hcl", ".nomad")),
    Kind("properties", "kvlint.launches.properties:read", suffixes=(".properties",)),
    # Podman Quadlet units: a `podman run` written as `[Container]` keys (kvlint.launches.quadlet)
    Kind("quadlet", "kvlint.launches.quadlet:read", suffixes=(".container",)),
    # Apptainer / Singularity definitions: their script sections, read as shell (kvlint.launches.apptainer)
    Kind("apptainer", "kvlint.launches.apptainer:read", suffixes=(".def",), names=("singularity", "apptainer"),
         walk_bytes=256 * 1024, bytes_ok=True),
    Kind("text", "kvlint.launches.textfile:read", suffixes=(".conf", ".ini", ".service", ".toml", ".cfg"),
         names=("procfile",)),
    # notes a deployment repository keeps (`vllm.txt`): walked, read from the commands only (kvlint.launches.notes)
    Kind("notes", "kvlint.launches.notes:read", suffixes=(".txt",), walk_bytes=256 * 1024, bytes_ok=True),
    # Markdown runbooks: the commands of their shell code blocks (kvlint.launches.markdown); prose is never read
    Kind("markdown", "kvlint.launches.markdown:read", suffixes=(".md", ".markdown", ".mdx", ".qmd", ".rmd"),
         walk_bytes=256 * 1024),
    # reStructuredText documents (a Sphinx tutorial): the commands of their code blocks (kvlint.launches.rst)
    Kind("rst", "kvlint.launches.rst:read", suffixes=(".rst",), walk_bytes=256 * 1024),
    # AsciiDoc documents (a product's documentation module): their listing blocks (kvlint.launches.asciidoc)
    Kind("asciidoc", "kvlint.launches.asciidoc:read", suffixes=(".adoc", ".asciidoc"), walk_bytes=256 * 1024),
    # Org-mode documents (a plan kept in Emacs' Org format): their source blocks (kvlint.launches.org)
    Kind("org", "kvlint.launches.org:read", suffixes=(".org",), walk_bytes=256 * 1024),
    # pipelines and shells in other languages that call a shell (Jenkins' Groovy `sh '...'`, fish), and programs in
    # scripting languages that build a command line in a string (a Ruby control plane's `"vllm serve #{path} ..."`,
    # turn 37's K327; Perl, PHP, Lua, Elixir, Julia, R): each command line, and each string holding an engine's
    # entry point, read as shell (kvlint.launches.notes.read_code)
    Kind("code", "kvlint.launches.notes:read_code", suffixes=(".groovy", ".jenkinsfile", ".fish", ".rb", ".pl", ".pm",
                                                              ".php", ".lua", ".ex", ".exs", ".jl", ".r"),
         walk_bytes=256 * 1024, bytes_ok=True),
    # Nix modules: command strings as code's, and lists whose items are separated by spaces (an OCI container's
    # `cmd = [ "--model" cfg.model ... ]` beside `image = cfg.image;`, kvlint.launches.literals.read_nix)
    Kind("nix", "kvlint.launches.literals:read_nix", suffixes=(".nix",), walk_bytes=256 * 1024),
    # a template a tool renders (Terraform's `templatefile()` `.tpl` / `.tftpl`, a `.tmpl`): YAML when its lines
    # are YAML (a chart's values with `${var}` placeholders), else read as code (kvlint.launches.read.read_template)
    Kind("template", "kvlint.launches.read:read_template", suffixes=TEMPLATE_SUFFIXES,
         walk_bytes=256 * 1024),
    # programs in C-like languages (Pulumi and CDK in TypeScript, a Go or Java launcher): argument lists written as
    # literals, and command strings, read at their places (kvlint.launches.literals)
    # (a web front end's components too: `.tsx`, `.jsx`, a Vue or Svelte file's script, sample K180's launcher UI)
    Kind("program", "kvlint.launches.literals:read", suffixes=(".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".go",
                                                              ".java", ".kt", ".kts", ".cs", ".rs", ".scala", ".tsx",
                                                              ".jsx", ".vue", ".svelte"),
         walk_bytes=256 * 1024),
    # a script with no suffix (`bin/serve`, `start-vllm`): read when its first line is a shebang or it names an
    # engine (kvlint.launches.read.read_bare), as the kind its first words claim; anything else is passed over
    Kind("bare", "kvlint.launches.read:read_bare", bare=True, walk_bytes=256 * 1024, bytes_ok=True),
)
_BY_NAME = {k.name: k for k in KINDS}


# a copy a repository keeps for its users to fill in (`start.sh.example`, `compose.yaml.sample`): the launch it
# shows is the one they will run, so it is read as the file it copies (a bare `.example` claims nothing)
# a Jinja template of the file (`docker-compose.yml.j2`, `vllm.service.j2`: Ansible's `template:` renders it onto
# the host) is read the same way, its `{{ }}` / `{% %}` left unresolved (kvlint.sources.templates)
COPY_SUFFIXES = (".example", ".sample", ".template", ".dist", ".j2", ".jinja", ".jinja2")
# the same words after a dash or an underscore (`lws-ep.yaml-template`, `values.yaml_example`: sample K88)
_JOINED_COPY = tuple(sep + word for sep in "-_" for word in ("example", "sample", "template", "dist"))


@lru_cache(maxsize=4096)
def kind_for(path: str) -> Kind | None:
    """The kind a file name claims, or None when the name is not a format kvlint reads. Memoised: the walk asks
    it of each entry four times (is it a deployment format, is it walked, is it small enough) and the reader's
    dispatch once more, ~6,000 times a 1,000-file tree; the table is fixed, so the answer is too."""
    base = _base(path)
    return next((k for k in KINDS if k.claims(base)), None)


def reads_bytes(path: str) -> bool:
    """Whether the format a file name claims is read as bytes by its programs (Kind.bytes_ok): a legacy code page is
    its text, not a KV001."""
    kind = kind_for(path)
    return kind is not None and kind.bytes_ok


def _base(path: str) -> str:
    """The lower-case file name a kind is matched on: a fill-in copy's (`start.sh.example`) as the file it copies."""
    base = os.path.basename(path).lower()
    if base.endswith(COPY_SUFFIXES):
        return base.rsplit(".", 1)[0]
    if "." in base and base.endswith(_JOINED_COPY):
        return base[: max(base.rfind("-"), base.rfind("_"))]
    if base.startswith(("docker-compose", "compose")) and _COMPOSE_VARIANT.match(base):
        return base.rsplit(".", 1)[0]  # `docker-compose.yaml.qwen3`: one of a repository's compose variants
    return base


# a compose file's variant named after its format's suffix (`docker-compose.yaml.qwen3`, sample K168: one compose
# file per model, swapped in by hand); any other name with a word after `.yaml` claims nothing
_COMPOSE_VARIANT = lazy(r"^(?:docker-)?compose(?:[.-][\w-]+)*\.ya?ml\.[a-z0-9][\w-]*$")


@lru_cache(maxsize=4096)
def walked(path: str) -> bool:
    """Whether a folder walk reads this file (a kind claims its name and its walk hint allows it); memoised as
    kind_for is."""
    kind = kind_for(path)
    return kind is not None and kind.walked(_base(path))


def walked_size(path: str, size: int) -> bool:
    """Whether a walked file of this size is read: a kind with a size bound (notes) passes over a larger file
    in silence (a 16 MiB corpus.txt is data, not a KV001 about a manifest over the cap)."""
    kind = kind_for(path)
    return kind is None or not kind.walk_bytes or size <= kind.walk_bytes


def sniffed(text: str) -> Kind:
    """The kind of a text whose name says nothing (stdin, a file named on the command line): its first
    words, else YAML. Leading `#` comment lines (not a `#!` shebang, which is the shell's) are passed over: a
    Dockerfile or a script often opens with a licence or a usage comment, and a comment is not YAML either."""
    head = text.lstrip()[:4096]
    while head.startswith("#") and not head.startswith("#!"):
        head = head.partition("\n")[2].lstrip()
    head = head[:200]
    if head.startswith("#!") and "python" in head.partition("\n")[0]:
        return _BY_NAME["python"]  # `#!/usr/bin/env python3`: a program, not a shell script
    return next((k for k in KINDS if k.sniff and head.startswith(k.sniff)), _BY_NAME["yaml"])


def reader_of(kind: Kind) -> Reader:
    """The kind's reader function, its module imported on first use (then remembered: asked per file read)."""
    reader = _READERS.get(kind.reader)
    if reader is None:
        module, _, function = kind.reader.partition(":")
        reader = _READERS[kind.reader] = getattr(importlib.import_module(module), function)
    return reader


_READERS: dict[str, Reader] = {}  # "module:function" -> the function
