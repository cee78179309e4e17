"""Single-line places escape a newline: a capture's file name in the text report's title,
a case id and a provider's error in the deletion checklist's lines.

The title was made visible with its line feeds kept (the report's parts are multi-line),
so a file named "a\\ntotals: 0 turns.jsonl" printed a second, spoofed line; ESC and BEL
in the same name were escaped, and markdown and stderr showed the newline as `\\n`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.hostile.corpus import assert_no_traceback, traceview
from traceview.report.objects_out import render_text

ROOT = Path(__file__).resolve().parents[2]


def test_a_newline_in_a_file_name_is_escaped_in_the_title(tmp_path: Path) -> None:
    name = tmp_path / "a\ntotals: 0 turns\x1b\x07.jsonl"
    shutil.copy(ROOT / "sample_traces" / "claims.jsonl", name)
    out = traceview("report", str(name), "--width", "300")
    assert_no_traceback(out)
    first = out.stdout.decode("utf-8").split("\n")[0]
    assert first == (f"traceview · {tmp_path}/a\\ntotals: 0 turns\\x1b\\x07.jsonl · 4 turns · "
                     "1 conversation")
    assert b"\ntotals: 0 turns" not in out.stdout


def test_a_newline_in_a_case_id_or_an_error_is_escaped_in_the_checklist() -> None:
    doc = {"case": "CS-1\nnothing left", "conversation": None, "turns": [1], "objects": [],
           "remaining": 0, "verify": {
               "checked_at": "2026-01-01T00:00:00Z", "host": "h\nverified", "verdict": "partial",
               "counts": {"gone": 0, "present": 0, "error": 1},
               "objects": [{"kind": "file", "id": "file-1", "error": "bad\nall gone"}]}}
    lines = render_text(doc).split("\n")
    assert lines[0] == ("deletion checklist · case CS-1\\nnothing left · 1 turn(s) · "
                        "0 provider object(s), 0 not deleted in the capture")
    assert lines[4] == ("checked live at 2026-01-01T00:00:00Z (h\\nverified): 0 gone, "
                        "0 present, 1 not answered — partial")
    assert lines[5] == "  file file-1: bad\\nall gone"
