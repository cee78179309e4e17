"""A followed capture carries the cost section a read to the end attaches: the tenants
of conversation metadata (`b` on the conversations screen, `&tenant=…`), a flagged
moderation's marker on the turn it guarded, and the vector stores' count. Without it,
`--follow` on a capture with tenants said there was nothing to group by."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.analysis.following import followed
from tests.fixtures_shared import SAMPLES
from traceview.analysis.session import analyze


def test_a_followed_capture_has_the_cost_section_of_a_full_read(tmp_path: Path) -> None:
    path = Path(shutil.copy(SAMPLES / "tenants.jsonl", tmp_path / "live.jsonl"))
    session = followed(path)
    full = analyze(str(path))
    assert session.analysis.cost["attribution"] == full.cost["attribution"]
    assert session.analysis.cost["attribution"]["keys"]  # tenant, case_id, …
    assert [t.to_dict() for t in session.analysis.turns] == [t.to_dict() for t in full.turns]
    assert "moderation_flagged" in session.analysis.turns[-1].markers
    assert session.analysis.totals == full.totals


def test_turns_appended_later_get_their_tenant(tmp_path: Path) -> None:
    lines = (SAMPLES / "tenants.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(lines[:len(lines) // 2]))
    session = followed(path)
    with open(path, "ab") as f:
        f.write(b"".join(lines[len(lines) // 2:]))
    session._hosted_due = 0.0  # the budgeted whole-capture passes are due
    assert session.poll() is not None
    full = analyze(str(path))
    assert [t.attributed_to for t in session.analysis.turns] == \
        [t.attributed_to for t in full.turns]
    assert session.analysis.cost["attribution"] == full.cost["attribution"]
