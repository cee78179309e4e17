"""The first batch of a progressive load carries the first finished turn at once.

The inspector shows rows when the first batch arrives. On a large capture the worker
pool starts after the first chunk is read, and its start-up (a forkserver, imports) took
up to half a second: a first batch that waited for its time slot waited for the pool
too, and the first screen came at 0.16 s or 0.44 s depending on how fast that chunk was.
"""

from __future__ import annotations

from pathlib import Path

from traceview.analysis.session import Session

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
