"""The first batch of a progressive load carries the first finished turn at once.

The inspector shows rows when the first batch arrives. On a large capture the worker
pool starts after the first chunk is read, and its start-up (a forkserver, imports) took
up to half a second: a first batch that waited for its time slot waited for the pool
too, and the first screen came at 0.16 s or 0.44 s depending on how fast that chunk was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.analysis.session import Session
from traceview.capture import parallel
from traceview.capture.parallel import FIRST_CHUNK_BYTES

from ..builders import conv_turn, write

FIXTURE = Path(__file__).parents[1] / "fixtures" / "real" / \
    "pai_previd_chain_function_tools_4turns.jsonl"


def test_first_batch_goes_with_the_first_finished_turn() -> None:
    # Time slots far longer than the test: only the first-turn rule can yield early.
    session = Session(str(FIXTURE), interval=3600, first_interval=3600, step_lines=1)
    batches = list(session.run())
    assert len(batches) == 2
    first, last = batches
    assert not first.progress.done and last.progress.done
    assert [t.index for t in first.turns] == [1]
    # Every turn arrives exactly once, in the order the slot-only batching gave.
    assert [t.index for b in batches for t in b.turns] == [1, 2, 3, 4]


def test_later_batches_keep_their_time_slot() -> None:
    # After the first batch, a finished turn alone does not make a batch.
    session = Session(str(FIXTURE), interval=3600, first_interval=3600, step_lines=1)
    sizes = [len(b.turns) for b in session.run()]
    assert sizes == [1, 3]


def _large_capture(path: Path, turns: int) -> Path:
    """A capture of `turns` turns of about 2.5 kB each, in seven conversations."""
    records: list[dict[str, object]] = []
    for n in range(turns):
        records += conv_turn(f"conv_{n % 7}", f"question {n} " + "x" * 2000, f"resp_{n}",
                             100 + n, 10)
    return write(path, records)


def test_a_screens_first_batch_reads_only_the_head_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The inspector's first rows wait for a screenful from the file's head, read here:
    # however large the capture, no whole chunk; the workers start once it is read.
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "200000")
    path = _large_capture(tmp_path / "large.jsonl", 300)
    read_here: list[tuple[int, int]] = []
    started: list[bool] = []
    real_here, real_start = parallel._here, parallel.Extractor._start
    monkeypatch.setattr(parallel, "_here",
                        lambda task: read_here.append(task[2:]) or real_here(task))
    monkeypatch.setattr(parallel.Extractor, "_start",
                        lambda self: started.append(True) or real_start(self))
    run = Session(str(path)).run()
    first = next(run)
    assert not first.progress.done and [t.index for t in first.turns][:1] == [1]
    (head,) = read_here
    assert head[0] == 0 and FIRST_CHUNK_BYTES <= head[1] < FIRST_CHUNK_BYTES + 2600
    assert started == [True]
    # The rest arrives whole and in order.
    assert [t.index for b in [first, *run] for t in b.turns] == list(range(1, 301))
