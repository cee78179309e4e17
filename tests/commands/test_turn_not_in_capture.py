"""A `--turn N` the capture does not have: the command could not do what was asked, so it
exits 2 (not 1, "done, with problems"), names the turn and how many there are, and prints
or writes nothing else."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

CLAIMS = str(SAMPLES / "claims.jsonl")  # 4 turns


def test_context_of_a_turn_the_capture_lacks(capsys) -> None:
    assert main(["context", CLAIMS, "--turn", "99"]) == 2
    assert capsys.readouterr() == ("", "traceview context: no turn 99 (the capture has 4 "
                                       "turns)\n")


def test_context_as_json_of_a_turn_the_capture_lacks(capsys) -> None:
    assert main(["context", CLAIMS, "--turn", "5", "--format", "json"]) == 2
    assert capsys.readouterr() == ("", "traceview context: no turn 5 (the capture has 4 "
                                       "turns)\n")


def test_screenshot_of_a_turn_the_capture_lacks(capsys, tmp_path: Path) -> None:
    out = tmp_path / "t.svg"
    assert main(["screenshot", CLAIMS, "--view", "detail", "--turn", "99", "-o", str(out)]) == 2
    assert capsys.readouterr().err == ("traceview screenshot: turn 99 is not in the capture "
                                       "(4 turns); nothing written\n")
    assert not out.exists()
