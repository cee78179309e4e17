"""A followed capture that starts with a UTF-8 byte order mark reads as the same capture
without `--follow` does: the mark is skipped, not line 1's first bytes (which made line 1
'not JSON' and lost the record on it)."""

from __future__ import annotations

from pathlib import Path

from tests.analysis.following import followed
from tests.fixtures_shared import SAMPLES
from traceview.analysis.session import analyze

BOM = b"\xef\xbb\xbf"


def test_a_bom_before_line_1_is_read_past(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(BOM + (SAMPLES / "claims.jsonl").read_bytes())
    session = followed(path)
    full = analyze(str(path))
    assert session.analysis.problems == full.problems == []
    assert [t.to_dict() for t in session.analysis.turns] == [t.to_dict() for t in full.turns]


def test_a_bom_written_before_the_first_line_ends(tmp_path: Path) -> None:
    lines = (SAMPLES / "claims.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "bom.jsonl"
    path.write_bytes(BOM + lines[0][:10])  # the writer is mid-way through line 1
    session = followed(path)
    with open(path, "ab") as f:
        f.write(lines[0][10:] + b"".join(lines[1:]))
    session.poll()
    assert session.analysis.problems == []
    assert len(session.analysis.turns) == len(analyze(str(path)).turns)
