"""`report --width` below a line's shortest cell silently dropped the report's first lines
(0 or less: its title and the conversation's heading, exit 0): now a usage error naming
the flag, and the narrowest width allowed still shows every part."""

from __future__ import annotations

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

CAPTURE = str(SAMPLES / "claims.jsonl")


@pytest.mark.parametrize("width", ["0", "-5", "19"])
def test_a_width_too_narrow_is_refused(width: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["report", CAPTURE, "--width", width])
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and f"argument --width: must be from 20 to 100000, not {width}" in err


def test_the_narrowest_width_shows_every_part(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", CAPTURE, "--width", "20"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("traceview ·\n")
    flat = "".join(text.split())
    assert "claims.jsonl·4turns" in flat and "totals:4turns" in flat
