"""Markdown runbooks (kvlint.launches.markdown): the commands of shell code blocks, at their places; prose, YAML and
Python blocks are no commands, and a prose mention is no place for the never-silent net."""

from __future__ import annotations

from pathlib import Path

from kvlint.launches import iter_files, read_path
from kvlint.launches.markdown import shell_blocks

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "markdown"


def _at(span):
    return (span.line, span.col) if span is not None else None


def test_a_runbooks_shell_blocks_are_its_launches():
    """Samples K62/K63 (measured: silent, `.md` not walked): a runbook's bash, console and unlabelled blocks hold
    the commands its operators run; a variable set in one block is known in the next, a `$ ` prompt is the
    shell's, a systemd unit a block writes runs its `docker run`; a YAML block is the manifest it shows (K66), a Python
    block the program it shows (K109)."""
    result = read_path(str(FIX / "runbook.md"))
    got = [(d.engine, d.model, _at(d.model_span), d.get("tensor_parallel_size") or d.get("tp_size"))
           for d in result.deployments]
    assert got == [("vllm", "Qwen/Qwen2.5-7B-Instruct", (11, 12), 2), ("vllm", "org/yaml-model", (15, 21), None),
                   ("vllm", "org/python-model", (19, 35), None), ("sglang", "org/sgl-model", (23, 47), 2),
                   ("vllm", "org/unit-model", (30, 75), None), ("vllm", "org/manifest-model", (46, 29), None)]
    assert [f.code for f in result.findings] == []  # the broken YAML block is an excerpt: no KV001
    assert all("Markdown runbook" in " ".join(d.notes) for d in result.deployments)


def test_prose_and_other_blocks_are_never_a_place():
    """An engine named in prose or in a YAML block of a Markdown file: no launch and no KV008 (a README that says
    what it runs is documentation, not a launch kvlint passed over)."""
    result = read_path(str(FIX / "prose.md"))
    assert (result.deployments, [f.code for f in result.findings]) == ([], [])


def test_blocks_keep_every_place_and_blank_the_rest():
    text = "a `vllm serve x`\n```sh\nvllm serve m\n```\n````\n```\nstill inside\n````\n"
    blanked = shell_blocks(text)
    assert len(blanked) == len(text) and blanked.split("\n")[2] == "vllm serve m"
    assert blanked.split("\n")[0].strip() == "" and blanked.split("\n")[6] == "still inside"


def test_the_walk_reads_markdown():
    walked = [p for p, why in iter_files([str(FIX)]) if why is None]
    assert sorted(Path(p).name for p in walked) == ["command-on-fence.md", "list-item-fences.md",
                                                    "placeholder-values.md", "prose.md", "reference-and-units.md",
                                                    "runbook.md"]


def test_an_html_comment_is_the_markdown_spelling_of_a_directive(tmp_path):
    """`<!-- kvlint: disable-file documents bad examples -->` in a Markdown file (docs/rules.md's examples are bad
    on purpose) suppresses its findings, as `# kvlint: disable-file` does in a script."""
    from kvlint.lint import LintOptions, lint

    body = "# Bad examples\n\n```\nvllm serve Qwen/Qwen3-8B --kv-cache-dtype fp16\n```\n"
    p = tmp_path / "bad.md"
    p.write_text(body)
    assert any(f.code == "KV007" for f in lint([str(p)], LintOptions()).findings)
    p.write_text("<!-- kvlint: disable-file documents bad examples -->\n" + body)
    assert not any(f.code == "KV007" for f in lint([str(p)], LintOptions()).findings)


def test_commands_pasted_outside_fences_are_read_and_prose_is_not():
    """Samples K70/K71 (measured: silent): a runbook's commands as plain lines and an indented code block (`vllm serve
    M`, `python3 -m vllm.entrypoints.openai.api_server \\` over lines, `docker run ... vllm/vllm-openai ... --model M`);
    a prose line that names a command after other words is none."""
    text = ("# Notes\n\nStart it with vllm serve org/prose first.\n\n    vllm serve org/indented # comment\n\n"
            "python3 -m vllm.entrypoints.openai.api_server \\\n  --model org/plain \\\n  --port 8080\n\n"
            "docker run --gpus all \\\n  vllm/vllm-openai:v0.11.0 \\\n  --model org/container\n")
    deps = read_path("notes.md", text).deployments
    assert [(d.model, _at(d.model_span)) for d in deps] == \
        [("org/indented", (5, 16)), ("org/plain", (8, 11)), ("org/container", (13, 11))]


def test_a_runbooks_powershell_blocks_are_read_as_powershell():
    """Sample K73 (measured: silent): ```` ```powershell ```` blocks, `$MODEL = '...'` in one and `sglang serve`
    continued with backticks in it, `python -m sglang.launch_server ... --model-path $MODEL` in the next."""
    text = ("# Lab\n\n```powershell\n$MODEL = 'org/m'\n\nsglang serve `\n  --model-path $MODEL `\n"
            "  --mem-fraction-static 0.70\n```\n\nor:\n\n```pwsh\npython -m sglang.launch_server --model-path $MODEL\n```\n")
    deps = read_path("lab.md", text).deployments
    assert [(d.engine, d.model, d.model_span.line) for d in deps] == [("sglang", "org/m", 7), ("sglang", "org/m", 14)]
    assert deps[0].get("mem_fraction_static") == 0.7


def test_inline_commands_and_unit_blocks_are_read():
    """Sample K77's runbook: a quick-reference table's inline code that is a whole engine command, and ```` ```ini ````
    blocks showing a systemd unit's `ExecStart=` and a supervisor `command=`; an inline span that only names the
    program, or a `pkill` of it, is prose, and a catalogue table's example column (no "command" heading) shows a
    shape, not a launch (the corpus's FORMATS.md)."""
    result = read_path(str(FIX / "reference-and-units.md"))
    got = [(d.model, _at(d.model_span)) for d in result.deployments]
    assert got == [("org/table-model", (5, 64)), ("org/unit-model", (13, 11)), ("org/supervised-model", (20, 20))]
    assert result.deployments[2].get("max_model_len") == 8192
    assert [f.code for f in result.findings] == []


def test_a_tool_handed_the_engines_command_after_double_dash_is_a_command_line():
    """Sample K78's README: `k8shazgpu vllm run --follow --name x -- vllm serve M ...` outside any fence is a command
    (its program's options, then the engine's command); a sentence with a ` -- ` dash before `vllm` is prose."""
    text = ("# Notes\n\nk8shazgpu vllm run --follow --name dev -- vllm serve org/handed --gpu-memory-utilization 0.8\n\n"
            "Serving is simple -- vllm serve org/prose-model starts it.\n")
    (d,) = read_path("NOTES.md", text).deployments
    assert (d.model, _at(d.model_span), d.get("gpu_memory_utilization")) == ("org/handed", (3, 54), 0.8)


def test_a_line_in_triple_backticks_is_a_code_span_and_a_wrapper_packages_entry_module_is_the_engines():
    """Sample K86's LMCache README: two list items each a line "```VAR=x python3 -m
    lmcache_vllm.vllm.entrypoints.openai.api_server --model M ...```" (no fence: CommonMark's backtick fence has no
    backtick in its info string, so each is a code span), and LMCache's package re-exporting vLLM's API server."""
    text = ("## Steps\n1.  ```lmcache_server localhost 65432```  \n2. In one terminal,  \n"
            "```CUDA_VISIBLE_DEVICES=0 python3 -m lmcache_vllm.vllm.entrypoints.openai.api_server --model org/a "
            "--port 8000```  \nIn ANOTHER terminal,  \n"
            "```CUDA_VISIBLE_DEVICES=1 python3 -m lmcache_vllm.vllm.entrypoints.openai.api_server --model org/b "
            "--port 8001```  \n3.  ```python3 ask.py 8000```  \n")
    deps = read_path("README.md", text).deployments
    assert [(d.engine, d.model, d.model_span.line) for d in deps] == [("vllm", "org/a", 4), ("vllm", "org/b", 6)]
    fenced = "```bash\npython3 -m vllm.entrypoints.openai.api_server --model org/c\n```\n"
    assert [d.model for d in read_path("README.md", fenced).deployments] == ["org/c"]
    assert read_path("README.md", "```bash\npython3 -m myvllm_entrypoints.openai.api_server --model org/d\n```\n"
                     ).deployments == []


def test_blocks_indented_with_their_list_item_and_a_here_document_inside_one():
    """Sample K83's homelab guide: every block is indented four columns under its list item (CommonMark keeps
    them blocks), one of them a `sudo tee f <<EOF` whose closing `    EOF` carries the same indentation: the
    blocks are read, the here-document ends at its word, and the launches after it are found."""
    text = ("- Add the repository:\n    ```bash\n    sudo tee /etc/apt/sources.list.d/docker.sources <<EOF\n"
            "    Types: deb\n    EOF\n    sudo apt update\n    ```\n\n- Serve:\n    ```\n"
            "    vllm serve org/indented --port 8556\n    ```\n\n- The unit:\n    ```ini\n    [Service]\n"
            "    ExecStart=/bin/bash -c 'source .venv/bin/activate && vllm serve org/unit --port 8000'\n    ```\n")
    deps = read_path("README.md", text).deployments
    assert [(d.model, d.model_span.line) for d in deps] == [("org/indented", 11), ("org/unit", 17)]


def test_a_blocks_open_quote_does_not_swallow_the_blocks_after_it(tmp_path):
    """Sample K100 (measured: both launches after it passed over, a KV008): a block whose command leaves a quote open
    (`--prompt="Continue the sequence: 1, 1, 2,` then the fence) ends before that command; the next blocks are read."""
    from kvlint.launches import read_path

    p = tmp_path / "README.md"
    p.write_text('```bash\nsrun --gpus=1 \\\n    python offline.py --prompt="Continue: 1, 1, 2,\n```\n\n'
                 "Start the server:\n\n```bash\nvllm serve org/a --max-model-len 4096\n```\n\n"
                 "```bash\necho 'it''s fine'\nvllm serve org/b\n```\n")
    got = [(d.model, d.model_span.line) for d in read_path(str(p)).deployments]
    assert got == [("org/a", 9), ("org/b", 14)]


def test_a_block_labelled_code_is_read_as_commands(tmp_path):
    """Sample K107's scratch notes: ```` ```code ```` holds two `vllm serve` commands (a label that names no
    language, as `text` does not)."""
    from kvlint.launches import read_path

    path = tmp_path / "scratch.md"
    path.write_text("```code\nvllm serve \\\n    org/model-a \\\n    --max-model-len 4096\n\n---\n\n"
                    "vllm serve org/model-b --tensor-parallel-size 2\n```\n")
    assert [(d.model, d.model_span.line) for d in read_path(str(path)).deployments] == \
        [("org/model-a", 3), ("org/model-b", 8)]


def test_python_blocks_are_read_together_as_one_program(tmp_path):
    """Sample K109: a Kaggle runbook's cells as ```` ```python ```` blocks, the model path set in one block and the
    `subprocess.Popen([... "--model", BASE_CACHE ...])` in a later one."""
    from kvlint.launches import read_path

    path = tmp_path / "notebook.md"
    path.write_text("# Cells\n\n```python\nBASE_CACHE = '/kaggle/working/models/qwen3'\n```\n\nStart it:\n\n"
                    "```python\nimport subprocess\ncmd = ['python', '-m', 'vllm.entrypoints.openai.api_server',\n"
                    "       '--model', BASE_CACHE, '--tensor-parallel-size', '2']\nsubprocess.Popen(cmd)\n```\n")
    (d,) = read_path(str(path)).deployments
    assert (d.model, d.get("tensor_parallel_size"), d.launch_span.line) == ("/kaggle/working/models/qwen3", 2, 11)


FORM = """3. Deploy the LLM
    - Deploy `org/big` with:
        - General:
            - Image: `vllm/vllm-openai:v0.11.0`
        - Resources:
            - GPU: 1
        - Arguments (vLLM serve arguments)
            - `--model org/big --max-model-len 32000 --kv-cache-dtype fp8 --port 8080`
    OR
    - Deploy `org/small`:
        - Image: `vllm/vllm-openai:v0.11.0`
        - Arguments
            - `--model org/small --port 8080`
"""


def test_a_deployment_form_of_image_and_arguments_is_that_image_run(tmp_path):
    """Sample K116 (passed over in silence): a hosted platform's form written as a list, the image in one code span
    and its arguments in another: one launch per argument list, its release the image's, each value in place."""
    p = tmp_path / "README.md"
    p.write_text(FORM)
    deps = read_path(str(p)).deployments
    assert [(d.model, _at(d.model_span), d.engine_version) for d in deps] == \
        [("org/big", (8, 24), "0.11.0"), ("org/small", (13, 24), "0.11.0")]
    assert deps[0].get("max_model_len") == 32000 and _at(deps[0].span_of("max_model_len")) == (8, 48)
    p.write_text(FORM.replace("vllm/vllm-openai:v0.11.0", "org/webapp:1.0"))  # no engine image above: no form
    assert read_path(str(p)).deployments == []


def test_an_mdx_docs_page_is_walked_and_read_as_markdown(tmp_path):
    """Sample K119 (four launches passed over in silence: the walk skipped the file): an MDX page (Fern, Docusaurus,
    Mintlify docs) is Markdown with components; its fenced commands are read, inside `<Tab>` elements too."""
    page = tmp_path / "docs" / "vllm.mdx"
    page.parent.mkdir()
    page.write_text('<Tabs>\n  <Tab title="pip">\n    ```bash\n    vllm serve org/m \\\n      --max-model-len 4096\n'
                    "    ```\n  </Tab>\n</Tabs>\n")
    assert (str(page), None) in list(iter_files([str(tmp_path)]))
    (dep,) = read_path(str(page)).deployments
    assert (dep.model, _at(dep.model_span), dep.get("max_model_len")) == ("org/m", (4, 16), 4096)


def test_a_heading_that_opens_with_the_engine_command_is_prose(tmp_path):
    """Sample K118 (measured: two launches of the model "in"): `vllm serve in 4090 x4` above each fenced command is a
    heading; the fenced commands are the launches."""
    p = tmp_path / "README.md"
    p.write_text("# TEST\n\nvllm serve in 4090 x4\n```\nvllm serve org/m --tensor-parallel-size 4\n```\n\n"
                 "vllm serve org/other --max-model-len 4096\n")
    assert [d.model for d in read_path(str(p)).deployments] == ["org/m", "org/other"]


def test_an_unfenced_command_continued_powershells_way_is_read_by_the_powershell_reader(tmp_path):
    """Sample K120's runbook (passed over in silence): an indented `python -m sglang.launch_server `` ` `` command
    outside any fence, its lines continued with PowerShell's backtick: one launch, its flags in place."""
    p = tmp_path / "README.md"
    p.write_text("Run it in PowerShell:\n\n  python -m sglang.launch_server `\n    --model-path org/m `\n"
                 "    --context-length 4096 `\n    --tp-size 1\n\nThen call it.\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, _at(dep.model_span), dep.get("context_length")) == ("org/m", (4, 18), 4096)


def test_a_whole_command_in_a_code_span_inside_a_sentence_is_a_launch(tmp_path):
    """Sample K120's tutorial (passed over in silence): "serve the model by running `vllm serve M --tensor-parallel-size
    8 ...`." A span that only names the command, or gives no option after its model, stays prose."""
    p = tmp_path / "README.md"
    p.write_text("- Then serve the model by running `vllm serve org/m --tensor-parallel-size 8 --max-model-len 8192`."
                 "\n- Start it with `vllm serve` or `vllm serve org/other`, as you like.\n")
    (dep,) = read_path(str(p)).deployments
    assert (dep.model, dep.get("tensor_parallel_size"), _at(dep.model_span)) == ("org/m", 8, (1, 47))


def test_a_block_labelled_for_another_language_that_opens_with_an_engine_command_is_read(tmp_path):
    """Sample K125's cookbook (two launches passed over in silence): ```` ```cpp ```` blocks holding `python -m
    sglang.launch_server --model-path M`; a ```` ```cpp ```` block of code, or a ```` ```json ```` one, is not read."""
    p = tmp_path / "README.md"
    p.write_text("```cpp\npython -m sglang.launch_server --model-path org/m --port 30000\n```\n\n"
                 "```cpp\nint main() { return 0; }  // sglang.launch_server\n```\n\n"
                 '```json\n"vllm serve org/x --port 1"\n```\n')
    assert [(d.model, _at(d.model_span)) for d in read_path(str(p)).deployments] == [("org/m", (2, 45))]


def test_a_list_item_that_is_a_whole_command_is_read(tmp_path):
    """Sample K127's README (measured: three of four launches missed): `- vllm serve "google/gemma-3-4b-it" --port
    8000 ...` as nested list items, unfenced: the bullet (`-`, `*`, `1.`) is the list's, the command after it is
    read at its place; a bullet of prose that names the command is not one."""
    p = tmp_path / "README.md"
    p.write_text("# models\n\n- 4B\n    - vllm serve \"google/gemma-3-4b-it\" --max-model-len 32768\n"
                 "1. sglang serve --model-path org/m --tp 2\n* vllm serve is the command to start it\n")
    got = [(d.engine, d.model, _at(d.model_span)) for d in read_path(str(p)).deployments]
    assert got == [("vllm", "google/gemma-3-4b-it", (4, 19)), ("sglang", "org/m", (5, 30))]


def test_a_yaml_labelled_block_that_is_a_here_document_is_read_as_shell(tmp_path):
    """Sample K130's runbook (measured: four launches silent): ```` ```yaml ```` blocks whose first line is `cat
    <<EOF | kubectl apply -f -`, the manifest the here-document applies after it (YAML refuses the first line): read
    as the shell block they are, the manifest with it; a plain YAML block stays YAML."""
    p = tmp_path / "guide.md"
    manifest = ("apiVersion: v1\nkind: Pod\nmetadata: {name: v}\nspec:\n  containers:\n  - name: vllm\n"
                "    image: vllm/vllm-openai:v0.10.1\n    args: [--model, google/gemma-3-1b-it, --max-model-len, '4096']\n")
    p.write_text("# guide\n\n```yaml\ncat <<EOF| kubectl apply -f -\n" + manifest + "EOF\n```\n\n```yaml\n"
                 + manifest.replace("gemma-3-1b-it", "gemma-3-4b-it") + "```\n")
    got = [(d.model, _at(d.model_span), d.get("max_model_len")) for d in read_path(str(p)).deployments]
    assert got == [("google/gemma-3-1b-it", (12, 21), 4096), ("google/gemma-3-4b-it", (24, 21), 4096)]


def test_a_code_span_wrapped_over_lines_is_one_command(tmp_path):
    """Sample K166's runlog (measured: a miss): "**Command:** `vllm serve M --speculative-config` / `'{...}'` /
    `--no-enable-prefix-caching`" wrapped by the editor over three lines of one paragraph: one command, each value at
    its own line; a span never goes on over a blank line."""
    p = tmp_path / "runlog.md"
    p.write_text("**Command:** `vllm serve /data/Qwen3-8B-FP8 --speculative-config\n"
                 "'{\"method\":\"eagle3\",\"num_speculative_tokens\":2}'\n--max-model-len 4096`\n\n"
                 "Use `vllm serve /data/m --port\n\n8000` here.\n")
    (d,) = read_path(str(p)).deployments
    assert (d.model, d.get("max_model_len"), d.settings["max_model_len"].span.line) == ("/data/Qwen3-8B-FP8", 4096, 3)
    assert d.get("speculative_config") == {"method": "eagle3", "num_speculative_tokens": 2}


def test_a_command_written_on_the_opening_fence_is_the_blocks_first_line():
    """Sample K189's README (measured: two launches silent): ```` ```vllm serve M \\ ```` with its flag lines below.
    CommonMark takes the fence's words for the block's language; the author meant the command. A language's name
    alone is none, and its block is not read as shell."""
    result = read_path(str(FIX / "command-on-fence.md"))
    (dep,) = result.deployments
    assert (dep.engine, dep.model, _at(dep.model_span)) == ("vllm", "TinyLlama/TinyLlama-1.1B-Chat-v1.0", (4, 15))
    assert (dep.get("gpu_memory_utilization"), _at(dep.settings["gpu_memory_utilization"].span)) == (0.7, (6, 31))


def test_a_fence_that_opens_a_list_item_closes_at_the_items_indentation():
    """Sample K194's README (measured: a miss): `  - ```bash` opens a block in a list item, closed by the item's
    indented fence; read as no fence, each closing fence opened the next block and every other command was prose."""
    got = [(d.model, _at(d.model_span)) for d in read_path(str(FIX / "list-item-fences.md")).deployments]
    assert got == [("google/gemma-3-4b-it", (10, 16)), ("reducto/RolmOCR", (13, 16))]


def test_a_runbooks_placeholder_value_is_left_open_not_refused():
    """Sample K195's README (measured: a KV007 error, noise): `--port QWEN_RETRIEVER_EMB_PORT`, a variable's name
    written without `$`, is the reader's to fill in; a value of no placeholder's shape stays an invalid value."""
    first, second = read_path(str(FIX / "placeholder-values.md")).deployments
    assert first.invalid_values == () and any("is a placeholder" in n for n in first.notes)
    assert [v.raw for v in second.invalid_values] == ["eighty"]


def test_a_server_program_of_its_own_under_prose_naming_the_engine_is_a_place():
    """Sample K206's README (silent): "Start the vLLM inference server with:" then `python -m api_server --model M`,
    the repository's own copy of the engine's server: its code block names no engine, the document does, so the
    command is a KV008 place; a block running another program (`python bench.py`) is none."""
    text = ("# Bench\n\nStart the vLLM inference server with:\n\n```bash\npython -m api_server --model org/m\n```\n\n"
            "Then run:\n\n```bash\npython bench.py\n```\n")
    result = read_path("README.md", text)
    (note,) = result.findings
    assert (result.deployments, note.code, note.span.line) == ([], "KV008", 6)
    assert read_path("README.md", text.replace("api_server", "bench_all")).findings == []


def test_a_container_run_on_gpus_with_an_engines_flag_from_a_placeholder_image_is_a_place():
    """Sample K204's skill document (silent): prose says the image's entry point is `vllm serve`, the block runs
    `docker run --gpus all ... <image> <model> --served-model-name <name>`, whose image and model are placeholders:
    a KV008 at the engine's flag; the same run with no engine flag, or not on GPUs, is no place."""
    text = ("# Local vLLM\n\nThe image's entry point is `vllm serve`.\n\n```bash\ndocker run -d --gpus all \\\n"
            "  -p 8000:8000 \\\n  <image> <model> --served-model-name <name> <args>\n```\n")
    result = read_path("guide.md", text)
    (note,) = result.findings
    assert (result.deployments, note.code, _at(note.span), note.span.end_col) == ([], "KV008", (8, 19), 38)
    assert read_path("guide.md", text.replace("--served-model-name", "--name")).findings == []
    assert read_path("guide.md", text.replace("--gpus all", "--rm")).findings == []


def test_a_block_left_open_ends_where_the_next_fence_with_a_language_opens():
    """Sample K213's guide (measured: a miss): a stray ```` ``` ```` opened a block over the prose after it, so the
    next ```` ```bash ```` line was read as a command whose backquotes swallowed the launch below; a block cannot
    hold its own fence, so that line opens the next block. A longer fence still holds a shorter one as text."""
    text = ("# Guide\n\n```\n\n#### Setup\n\n```bash\necho one\n```\n\n```bash\nvllm serve org/m --tensor-parallel-size 2\n"
            "```\n")
    (dep,) = read_path("GUIDE.md", text).deployments
    assert (dep.model, _at(dep.model_span)) == ("org/m", (12, 12))
    nested = "# Doc\n\n````\n```bash\nvllm serve org/m\n```\n````\n"
    assert read_path("DOC.md", nested).deployments == []


def test_an_engine_image_named_in_a_python_block_that_gives_no_launch_is_a_place():
    """Sample K218's README (silent): a Python block deploys `Endpoint(name="vllm-service",
    image="vllm/vllm-openai:latest", gpu=...)` with no model; the shell blocks' net now covers the Python blocks. An
    import of the engine's library is no place."""
    text = ("# Deps\n\n```bash\npip install flash\n```\n\n```python\nfrom flash import Endpoint\n\n"
            "vllm = Endpoint(\n    name=\"vllm-service\",\n    image=\"vllm/vllm-openai:latest\",\n)\n```\n")
    result = read_path("README.md", text)
    (note,) = result.findings
    assert (result.deployments, note.code, _at(note.span)) == ([], "KV008", (12, 12))
    plain = text.replace('image="vllm/vllm-openai:latest"', 'image="python:3.12"')
    assert read_path("README.md", plain.replace("from flash", "from vllm")).findings == []


def test_a_documents_kubernetes_blocks_are_read_together():
    """Sample K226's KServe guide: a ServingRuntime block, then the InferenceService that names it, each in its own
    ```` ```yaml ```` block (a comment line first): one stream of documents, so they are one launch, not two; a block
    YAML refuses sends the blocks back to one at a time."""
    runtime = ("```yaml\n# runtime.yaml\napiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata:\n"
               "  name: r\nspec:\n  containers:\n    - name: kserve-container\n      image: quay.io/org/vllm:1\n"
               "      args: ['--model=/mnt/models']\n  supportedModelFormats:\n    - name: vLLM\n```\n\n")
    service = ("```yaml\napiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: svc\n"
               "spec:\n  predictor:\n    model:\n      modelFormat:\n        name: vLLM\n      runtime: r\n"
               "      storageUri: 'hf://org/doc-model'\n```\n")
    (d,) = read_path("GUIDE.md", "# Guide\n\n" + runtime + service).deployments
    assert (d.model, d.model_span.line) == ("hf://org/doc-model", 29)
    broken = "```yaml\nkind: [unclosed\nvllm: x\n```\n\n"
    assert len(read_path("GUIDE.md", "# Guide\n\n" + runtime + broken + service).deployments) == 2


def test_a_language_written_with_emphasis_on_the_fence_is_that_language(tmp_path):
    """Sample K233's README (measured: silent): ```` ```**bash** ```` opens a shell block whose author bolded the
    label; its `docker run ... vllm-cpu-env --model M` lines are two launches (a local CPU build of vLLM's own
    Dockerfile)."""
    p = tmp_path / "README.md"
    p.write_text("# Demo\n\n```**bash**\n# x86\ndocker run -it --rm -p 8000:8000 vllm-cpu-env --model \"org/m\"\n\n"
                 "# arm\ndocker run -it --rm -p 8000:8000 vllm-cpu-env --model \"org/m\" --dtype float16\n```\n")
    deps = read_path(str(p)).deployments
    assert [(d.engine, d.model, d.launch_span.line) for d in deps] == [("vllm", "org/m", 5), ("vllm", "org/m", 8)]


def test_powershell_continuations_in_a_bash_block_do_not_swallow_the_blocks_after_it():
    """Sample K256's README (measured: said, not read): a ```bash block holding a PowerShell variant (`uv pip install
    ... \\`` lines), then a block `vllm serve openai/gpt-oss-20b --port 8000`: read as bash, the odd backticks open a
    command substitution that ate the launch. A continuation backtick is read as `\\`, one character for one."""
    from kvlint.launches import read_path

    text = ("```bash\n# Windows PowerShell\nuv pip install --pre vllm `\n  --extra-index-url https://x/ `\n"
            "  --index-strategy unsafe-best-match\n```\n\n```bash\nvllm serve openai/gpt-oss-20b --port 8000\n```\n")
    (d,) = read_path("README.md", text).deployments
    assert (d.model, d.model_span.line, d.model_span.col) == ("openai/gpt-oss-20b", 9, 12)


def test_a_runbooks_dockerfile_blocks_are_the_images_they_build():
    """Sample K261's README (measured: 5 launches missed): each ```` ```dockerfile ```` block is read alone as the
    image it builds: a CMD carrying a model is that image's default launch (counting rule 5), one with none is the
    image, and a shell block is still not read as a Dockerfile."""
    text = ("# Images\n\n```dockerfile\nFROM vllm/vllm-openai:latest\n"
            'CMD ["standard-supervisor", "vllm", "serve", "org/a", "--dtype", "auto"]\n```\n\n'
            "```Dockerfile\nFROM vllm/vllm-openai:latest\nENV X=1\n```\n\n"
            "```dockerfile\nFROM lmsysorg/sglang:latest\nCMD [\"python3\", \"-m\", \"sglang.launch_server\", "
            "\"--model-path\", \"org/b\"]\n```\n")
    result = read_path("README.md", text)
    assert [(d.engine, d.model, _at(d.model_span)) for d in result.deployments] == [
        ("vllm", "org/a", (5, 47)), ("sglang", "org/b", (15, 64))]
    assert [f.code for f in result.findings] == []
