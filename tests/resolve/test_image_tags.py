"""What an image reference says of the engine release (kvlint.resolve.lookups), for each engine: whether it is the
engine's own build, whether its tag follows the newest release, and the release a tag names or the releases a
dated build could be (issue O item 9)."""

from __future__ import annotations

import pytest

from kvlint.engines import get_engine
from kvlint.resolve.lookups import _dated_build, _engine_image, _latest_tag

# image, (vLLM: own build, newest, (release, source, candidates)), (SGLang: the same)
IMAGES = [
    ('vllm/vllm-openai', (True, True, None), (False, True, None)),
    ('vllm/vllm-openai:latest', (True, True, None), (False, True, None)),
    ('vllm/vllm-openai:v0.10.1', (True, False, ('0.10.1', 'image', ())), (False, False, None)),
    ('vllm/vllm-openai:0.10.1', (True, False, ('0.10.1', 'image', ())), (False, False, None)),
    ('vllm/vllm-openai:nightly', (True, True, None), (False, True, None)),
    ('vllm/vllm-openai:nightly-2025-09-01', (True, False, ('0.9.2', 'image-date', ('0.9.2', '0.10.2'))),
     (False, False, None)),
    ('vllm/vllm-openai:v0.10.1-cpu', (True, False, ('0.10.1', 'image', ())), (False, False, None)),
    ('docker.io/vllm/vllm-openai:stable', (True, True, None), (False, True, None)),
    ('registry:5000/vllm/vllm-openai', (True, True, None), (False, True, None)),
    ('rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521', (True, False, ('0.8.0', 'image-date', ('0.8.0', '0.9.2'))),
     (False, False, None)),
    ('rocm/vllm-dev:20250601', (True, False, ('0.8.0', 'image-date', ('0.8.0', '0.9.2'))), (False, False, None)),
    ('opea/vllm-gaudi:1.22.0', (False, False, None), (False, False, None)),
    ('vllm/vllm-tpu:nightly', (False, True, None), (False, True, None)),
    ('lmsysorg/sglang:v0.5.2-cu126', (False, False, None), (True, False, ('0.5.2', 'image', ()))),
    ('lmsysorg/sglang:latest', (False, True, None), (True, True, None)),
    ('lmsysorg/sgl-dev:20250701', (False, False, None), (True, False, ('0.4.9', 'image-date', ('0.4.9',)))),
    ('rocm/sgl-dev:v0.5.7-rocm700-mi35x-20260121', (False, False, None), (True, False, ('0.5.7', 'image', ()))),
    ('lmsysorg/sglang:main', (False, True, None), (True, True, None)),
    ('python:3.11', (False, False, None), (False, False, None)),
    ('vllm/vllm-openai:v0.9.0.post1', (True, False, ('0.9.0.post1', 'image', ())), (False, False, None)),
    ('vllm/vllm-openai:v0.8.5.dev20250301', (True, False, ('0.7.2', 'image-date', ('0.7.2', '0.8.0'))),
     (False, False, None)),
    # NVIDIA NGC's `YY.MM` container tags (sample K113): a build of that month, never a release `25.11`
    ('nvcr.io/nvidia/vllm:25.11-py3', (True, False, ('0.11.0', 'image-date', ('0.11.0', '0.12.0'))),
     (False, False, None)),
]


@pytest.mark.parametrize(("image", "vllm", "sglang"), IMAGES)
def test_what_an_image_says_of_the_release(image, vllm, sglang):
    for name, want in (("vllm", vllm), ("sglang", sglang)):
        engine = get_engine(name)
        dated = _dated_build(image, engine)
        got = (_engine_image(image, engine), _latest_tag(image),
               dated and (dated.version, dated.source, dated.candidates))
        assert got == want, name


def test_a_dated_build_says_where_its_release_came_from():
    vllm = get_engine("vllm")
    inside = _dated_build("vllm/vllm-openai:nightly-2025-09-01", vllm)
    assert inside.why == "the image vllm/vllm-openai:nightly-2025-09-01 is a build of 2025-09-01"
    assert inside.modelled == "0.9.2"
    before = _dated_build("vllm/vllm-openai:nightly-2023-01-01", vllm)
    assert before.why.endswith(", older than kvlint's release tables (the nearest modelled)")
    assert _dated_build(None, vllm) is None and _dated_build("vllm/vllm-openai", vllm) is None


def test_a_container_file_pulled_from_an_engine_image_names_its_release():
    """Sample K162 (measured: three wrong KV005 errors): `singularity exec ... /work/vllm-openai_v0.8.1.sif` runs the
    image `singularity pull docker://vllm/vllm-openai:v0.8.1` made, named `<repo>_<tag>.sif`: vLLM 0.8.1, not the
    newest release; a file named otherwise names none."""
    from kvlint.launches.build import version_from_image

    assert version_from_image("/work/c00cjz00/docker/vllm-openai_v0.8.1.sif") == "0.8.1"
    assert version_from_image("/work/$(whoami)/hpc_vllm/vllm-openai_v0.7.3.sif") == "0.7.3"
    assert version_from_image("sglang_v0.4.6.post1-cu124.sif") == "0.4.6.post1"
    assert [version_from_image(x) for x in ("my-app_1.2.sif", "vllm-openai_latest.sif", "vllm.sif")] == [None] * 3


def test_a_month_tag_is_no_release_number():
    """`nvcr.io/nvidia/vllm:25.11-py3` was read as vLLM 25.11, modelled as the newest release (sample K113: a wrong
    KV005 error); `0.11` and a version with three parts stay versions."""
    from kvlint.image_names import month_tag
    from kvlint.launches.build import version_from_image

    assert version_from_image("nvcr.io/nvidia/vllm:25.11-py3") is None
    assert month_tag("nvcr.io/nvidia/vllm:25.11-py3") == "2025-11"
    assert [month_tag(i) for i in ("vllm/vllm-openai:0.11", "vllm/vllm-openai:v25.11", "x/vllm:25.13")] == [None] * 3
    assert version_from_image("vllm/vllm-openai:0.11.0") == "0.11.0"
