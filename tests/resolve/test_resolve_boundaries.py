"""Resolution edges the pinned launches do not write (issue O item 9, helper MU3): stdin run from inside a fork's
project, and a config.json key at column 0."""

from __future__ import annotations

import json

from kvlint.resolve import fork
from kvlint.resolve.fork import engine_tree

MARKERS = ("python/sglang/srt/server_args.py", "sglang/srt/server_args.py")


def test_stdin_never_looks_for_an_engine_tree_even_from_inside_one(tmp_path, monkeypatch):
    """The file's folder is where the tree is looked for; stdin has none, whatever the working directory holds."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    parser = root / MARKERS[0]
    parser.parent.mkdir(parents=True)
    parser.write_text('parser.add_argument("--enable-kvstore")\n')
    monkeypatch.chdir(root)
    fork._search.cache_clear()
    assert engine_tree(str(root / "serve.sh"), MARKERS) is not None  # a file of this project: found
    assert engine_tree("-", MARKERS) is None
    assert engine_tree("", MARKERS) is None
    assert engine_tree(str(root / "serve.sh"), ()) is None  # an engine with no markers has no tree
    fork._search.cache_clear()


def test_a_config_key_at_column_0_is_cited_at_column_1(tmp_path):
    from kvlint.models.resolve import from_registry
    from kvlint.record import replace
    from kvlint.resolve import _find_keys

    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 2,
           "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 2048, "vocab_size": 100,
           "max_position_embeddings": 4096}
    path = tmp_path / "config.json"
    path.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in cfg.items()) + "\n}\n")
    spans = _find_keys(replace(from_registry("Qwen/Qwen3-8B"), raw=cfg, source=str(path)))
    layers = spans["num_hidden_layers"]
    assert (layers.line, layers.col, layers.end_col) == (5, 1, 1 + len('"num_hidden_layers"'))
