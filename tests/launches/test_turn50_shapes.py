"""Shapes the turn-50 samples (and turn 49's leftovers) showed kvlint misreading, each read by a mechanism, not a
case: every test writes the shape small, with what it must give (and what it must not)."""

from __future__ import annotations

from kvlint.launches import read_path


def test_a_command_printed_by_a_function_defined_apart_from_its_caller_is_placed_where_it_is_written():
    """Sample K519 (turn 49's leftover: a launch at the call, none at the text): `main` calls `build` defined above
    it; the printed command's words sit in `build`'s body, outside the view of `main`'s. The launch and its values
    point at the written text, in whichever order the two bodies stand."""
    build = 'build() {\n  local cmd="python -m vllm.entrypoints.openai.api_server"\n' \
            '  cmd="${cmd} --model $1"\n  cmd="${cmd} --max-model-len 4096"\n  echo "${cmd}"\n}\n'
    main = 'main() {\n  local c\n  c=$(build "${M}")\n  ${c}\n}\n'
    for text, line in ((build + main, 5), (main + build, 10)):
        (d,) = read_path("run.sh", "#!/bin/bash\n" + text + 'main "$@"\n').deployments
        span = d.settings["max_model_len"].span
        assert (d.get("max_model_len"), span.line if span else 0) == (4096, line)
