"""The numbers in the capacity rules' fixture messages (issue O item 9: the fixtures pinned file, line, column and
code, and a mutant that changed every figure in a message survived). Where a figure follows from config.json and
the engine's arithmetic alone it is written out; where it rests on kvlint's weights / non-KV estimate (which other
work changes), the test checks the engine's relation between the figures instead (tokens from the pool, the fix
from the tokens, ...), each step cited."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvlint.lint import LintOptions, lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
GIB = 2**30
H100_BYTES = 85_029_615_043  # H100-SXM-80GB as vLLM measures it (79.19 GiB, kvlint/data/gpus.json)


@pytest.fixture(scope="module")
def findings():
    def of(code):
        result = lint([str(FIXTURES / code / "bad.sh")], LintOptions(select=(code,)))
        return {f.span.line: f for f in result.findings if f.code == code}
    return of


def test_kv101_qwen25_32b(findings):
    """Qwen2.5-32B: 64 layers x 8 KV heads x (128 + 128) x 2 B = 262,144 B a token, a 16-token block 4 MiB.
    vLLM 0.33: num_blocks = pool // 4 MiB; tokens = int(num_blocks / blocks per request x max_model_len) =
    num_blocks x 16 for one full-attention group; the auto-fit length keeps one block for the null block:
    (num_blocks - 1) x 16; fp8 halves the cell (2 MiB a block)."""
    f = findings("KV101")[2]
    pool, cell = f.data["pool_bytes"], 64 * 8 * 256 * 2
    blocks = pool // (16 * cell)
    assert f.data["needed_bytes"] == 32768 * cell == 8 * GIB
    assert f.data["kv_tokens"] == blocks * 16 and f.data["fits_max_model_len"] == (blocks - 1) * 16
    assert f.message.startswith("max_model_len 32768 needs 8.00 GiB of KV cache per rank (num_key_value_heads 8 in "
                                f"Qwen/Qwen2.5-32B-Instruct config.json); the pool holds {pool / GIB:.2f} GiB "
                                f"({blocks * 16:,} tokens) on H100-SXM-80GB (weights ")
    fp8 = pool // (16 * cell // 2) * 16
    assert f.message.endswith(f"vLLM refuses to start. Fits: --max-model-len {(blocks - 1) * 16}, or "
                              f"--kv-cache-dtype fp8 ({fp8:,} tokens), or -tp 2.")
    long = findings("KV101")[3]
    assert long.data["needed_bytes"] == 131072 * cell == 32 * GIB and "needs 32.00 GiB" in long.message
    assert long.message.endswith(f"Fits: --max-model-len {(blocks - 1) * 16}, or -tp 2.")  # fp8 holds < 131,072


def test_kv102_usable_share(findings):
    """vLLM 0.33 requests ceil(total x gpu_memory_utilization 0.92) of the H100's 85,029,615,043 B."""
    for f in findings("KV102").values():
        assert f.data["usable_bytes"] == -(-H100_BYTES * 92 // 100) == 78_227_245_840
        assert f"of H100-SXM-80GB leaves {78_227_245_840 / GIB:.1f} GiB" in f.message
        assert f.message.startswith(f"weights need {f.data['weights_bytes'] / GIB:.1f} GiB per rank (tp 1, pp 1)")


def test_kv103_demand_and_requests(findings):
    for line, f in findings("KV103").items():
        assert f.data["demand_tokens"] == 64 * 32768
        held = f.data["kv_tokens"] / 32768  # vLLM's maximum concurrency at one group: tokens / max_model_len
        assert f.data["full_length_requests"] == round(held, 2)
        assert f.message.startswith(f"max_num_seqs 64 x max_model_len 32,768, but the KV pool ({f.data['kv_tokens']:,} "
                                    f"tokens est.) holds {held:.2f} full-length requests at once"), line


def test_kv104_fix_is_the_pool(findings):
    for f in findings("KV104").values():
        tokens = f.data["kv_tokens"]
        assert f.message.startswith(f"context_length 131,072 but the KV pool holds {tokens:,} tokens est. on "
                                    "H100-SXM-80GB (mem_fraction_static 0.900)")
        assert f.message.endswith(f"Fits: --context-length {tokens}.")


def test_kv105_derived_maximum(findings):
    f = findings("KV105")[2]
    assert (f.data["requested"], f.data["derived"]) == (16384, 8192)  # Llama-3-8B max_position_embeddings 8192


def test_kv107_overcommit_and_fix(findings):
    """The pool as written (40G / 60G: GiB), weights + pool + non-KV - the H100's total, and the fix: the pool less
    the overcommit, in whole GiB down."""
    by_line = findings("KV107")
    assert by_line[3].data["pool_bytes"] == 40 * GIB and by_line[4].data["pool_bytes"] == 60 * GIB
    for f in by_line.values():
        d = f.data
        assert d["overcommit_bytes"] == d["weights_bytes"] + d["pool_bytes"] + d["non_kv_bytes"] - H100_BYTES
        assert f"exceed the 79.19 GiB of H100-SXM-80GB by {d['overcommit_bytes'] / GIB:.2f} GiB" in f.message
    fix = (by_line[4].data["pool_bytes"] - by_line[4].data["overcommit_bytes"]) // GIB
    assert by_line[4].message.endswith(f"Fits: --kv-cache-memory-bytes {fix}G.") and fix == 39


def test_kv105_longrope_limit_is_the_full_length(findings):
    """Phi-3-mini-128k (LongRoPE): vLLM's default length is original_max_position_embeddings 4096 from 0.12 on,
    but a given --max-model-len is checked against the full derivation, max_position_embeddings 131072
    (vllm/config/model.py _get_and_verify_max_len): 16384 starts (good.sh), 200000 is refused at 131072."""
    f = findings("KV105")[7]
    assert f.data["derived"] == 131072 and f.data["requested"] == 200000
    assert "(max_position_embeddings 131072 in microsoft/Phi-3-mini-128k-instruct config.json)" in f.message
    assert f.fix == "--max-model-len 131072"
