"""The report's byte sizes read as humanize writes them; the text report reads the same on a
terminal and in a pipe."""

from __future__ import annotations

import io
import random
from pathlib import Path

import humanize
import pytest
from rich.console import Console

from traceview.analysis.explain import _b
from traceview.analysis.session import analyze
from traceview.report.text import render_text

ROOT = Path(__file__).parent.parent.parent
CAPTURES = sorted([*(ROOT / "tests/fixtures/real").glob("*.jsonl"),
                   *(ROOT / "sample_traces").glob("*.jsonl")])


def test_fixtures_have_turns() -> None:
    assert sum(len(analyze(str(p)).turns) for p in CAPTURES) >= 90


def test_byte_sizes_read_as_humanize_writes_them() -> None:
    rnd = random.Random(3)
    values = [0, 1, 2, 999, 1000, 1001, 999_949, 999_950, 999_999, 1_000_000, 10**28,
              3 * 10**34, -1, -4096, -999_999]
    values += [rnd.randrange(10 ** rnd.randint(1, 15)) for _ in range(20_000)]
    for v in values:
        want = humanize.naturalsize(v, binary=False, format="%.1f")
        assert _b(v) == want.replace(" Bytes", " B").replace(" Byte", " B"), v
    assert _b(None) == "unknown"


@pytest.mark.parametrize("name", ["service_day.jsonl", "hostile.jsonl", "damaged.jsonl"])
def test_text_report_reads_the_same_on_a_terminal(name: str) -> None:
    """The plain writer (pipes, files) and Rich's styled print (a terminal) say the same,
    but for the space Rich leaves where it wraps a line, which the plain writer drops."""
    a = analyze(str(ROOT / "sample_traces" / name))
    pipe = io.StringIO()
    render_text(a, Console(file=pipe, width=100, highlight=False, markup=False, emoji=False))
    tty = Console(file=io.StringIO(), width=100, highlight=False, markup=False, emoji=False,
                  force_terminal=True, color_system="truecolor", record=True)
    render_text(a, tty)
    shown = "\n".join(line.rstrip(" ") for line in tty.export_text(styles=False).split("\n"))
    assert pipe.getvalue() == shown
    assert "\x1b[" in tty.file.getvalue()  # the terminal got styles; the pipe did not
