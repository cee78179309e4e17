"""The report writer's fast paths say exactly what the plain ones say.

The rows are written by one generator a run (turn_report.row_dicts), the explanation's
findings are scanned only when a sentence can be one, and the carried context is told
from the ledger's one walk (TurnCarry.account). Each is compared here, turn by turn, with
the plain reading of the same turn: the explanation scanned whole, the carry read through
its Source and Charge views, one TurnReport.row at a time.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from traceview.analysis import explain as ex
from traceview.analysis.hosted.carry import TurnCarry
from traceview.analysis.session import analyze
from traceview.analysis.turn_report import explain_row, row_dicts

ROOT = Path(__file__).parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import gen_hosted  # noqa: E402

FIXTURES = sorted((ROOT / "tests/fixtures/real").glob("*.jsonl"))


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A hosted-shape capture: deposits, carried context, captured and missing calls."""
    path = tmp_path_factory.mktemp("hosted") / "hosted.jsonl"
    gen_hosted.generate(path, 10**12, lines=3000)
    return path


def _check_turns(path: Path) -> tuple[int, int, int]:
    a = analyze([str(path)])
    carried = scanned = 0
    rows = list(row_dicts(a.turns))
    bare = list(row_dicts(a.turns, explained=False, whole=False))
    assert len(rows) == len(bare) == len(a.turns)
    for t, row, plain in zip(a.turns, rows, bare, strict=True):
        # One row at a time (a fresh binding each) gives the run's row, key for key.
        assert t.row() == row
        explanation = ex.explain(t)
        assert row["explanation"] == explanation
        assert explain_row(plain) == explanation  # the text report's notes
        # The findings: the explanation scanned whole, as before the gate.
        assert row["findings"] == ex.findings_of(t, explanation) == ex.findings(t)
        scanned += row["findings"] != (ex._deposit(t) if "deposit" in t.markers else [])
        carry = t.carried
        if type(carry) is TurnCarry:
            carried += 1
            assert ex._carried_account(carry, t.index) + ex._outlived(carry) == \
                ex._carried(t)
    return len(rows), carried, scanned


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fast_paths_match_on_every_fixture(path: Path) -> None:
    _check_turns(path)


def test_fast_paths_match_on_hosted_state(hosted: Path) -> None:
    turns, carried, scanned = _check_turns(hosted)
    # The shape exercises what the fast paths skip: carried context on most turns,
    # findings beyond the deposit's ("results not captured") on some.
    assert turns > 500 and carried > turns // 2 and scanned > 0


def test_rows_of_two_tables_in_one_run(hosted: Path) -> None:
    """A run that crosses to another table's turns binds that table's columns."""
    first = analyze([str(hosted)])
    second = analyze([str(FIXTURES[0])])
    mixed = [*first.turns[:5], *second.turns, *first.turns[5:9]]
    assert list(row_dicts(mixed)) == [t.row() for t in mixed]
    assert [r["index"] for r in row_dicts(mixed)] == [t.index for t in mixed]


def test_rows_of_other_values_are_their_dicts() -> None:
    class Other:
        def to_dict(self) -> dict[str, int]:
            return {"index": 7}

    assert list(row_dicts([Other()])) == [{"index": 7}]
    assert list(row_dicts([])) == []
