"""`context --items FILE` (or `--live`) on a turn that is not hosted: the provider copy
fills only a hosted turn's carried line, so the file would be ignored without a word. It
is said, nothing is printed, and the exit is the command's misuse status (2)."""

from __future__ import annotations

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

STATELESS = str(SAMPLES / "claims_owned_state.jsonl")  # the claims, input sent whole
SNAPSHOT = str(SAMPLES / "claims.snapshot.json")


@pytest.mark.parametrize(("flag", "named"), [(["--items", SNAPSHOT], f"--items {SNAPSHOT}"),
                                             (["--live"], "--live")])
def test_a_copy_for_a_turn_that_is_not_hosted_is_refused_with_a_reason(capsys, flag, named):
    assert main(["context", STATELESS, "--turn", "2", *flag]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert (f"traceview context: turn 2 is not hosted (its input was sent whole, nothing held "
            f"by the provider): {named} only applies to hosted turns; nothing read") in out.err


def test_without_a_copy_the_same_turn_is_shown(capsys):
    assert main(["context", STATELESS, "--turn", "2"]) == 0
    assert capsys.readouterr().out.startswith("turn 2 ")


def test_a_turn_the_capture_lacks_is_still_said_as_such(capsys):
    assert main(["context", STATELESS, "--turn", "9", "--items", SNAPSHOT]) == 2
    assert "no turn 9 (the capture has 4 turns)" in capsys.readouterr().err
