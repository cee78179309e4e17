"""A snapshot given to `report --items` / `context --items` whose items carry an id that is
not a string (a list, an object: someone's edited or damaged file) is read without a
traceback: such an item matches no turn's output, and the report is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

CLAIMS = str(SAMPLES / "claims.jsonl")


@pytest.mark.parametrize("odd", [[], {}, ["msg_x"], 7])
@pytest.mark.parametrize("command", [["report"], ["context", "--turn", "3"]])
def test_an_item_id_that_is_not_a_string(tmp_path: Path, capsys, odd: object,
                                         command: list[str]) -> None:
    doc = json.loads((SAMPLES / "claims.snapshot.json").read_text())
    doc["items"][2]["id"] = odd
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(doc))
    rc = main([command[0], CLAIMS, *command[1:], "--items", str(snapshot)])
    out, err = capsys.readouterr()
    assert (rc, err) == (0, "")
    assert "unexplained" in out
