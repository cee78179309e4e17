"""A command spelled wrong is named as such, not taken for a missing capture file."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.cli import main


def test_a_misspelt_command_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reprot", "trace.jsonl"]) == 2
    assert "no command or file 'reprot': did you mean `traceview report`?" in \
        capsys.readouterr().err


def test_a_file_named_like_a_command_still_opens_as_a_capture(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from traceview import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "reprot").write_text("")
    assert not cli._misspelt("reprot")  # an existing path is never second-guessed


@pytest.mark.parametrize("word", ["help", "commands"])
def test_asking_for_help_by_word_points_at_the_help_flag(
        word: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`traceview help` is a newcomer's first guess: it said "no such file or directory:
    help" as if a capture were missing."""
    monkeypatch.chdir(tmp_path)
    assert main([word]) == 2
    err = capsys.readouterr().err
    assert f"no command or file '{word}'" in err and "traceview --help" in err
    assert "no such file" not in err


def test_a_missing_file_is_said_alike_by_the_inspector_and_the_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One wording for one fault: the path first, as every other refusal names it."""
    missing = tmp_path / "nope.jsonl"
    main(["report", str(missing)])
    report = capsys.readouterr().err
    assert report == f"traceview: {missing}: no such file or directory\n"
    from traceview.ui.terminal import refusal_of

    assert refusal_of([str(missing)]) == f"{missing}: no such file or directory"
