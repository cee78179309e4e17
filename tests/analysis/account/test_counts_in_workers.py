"""The input account's token counts are made in the workers that read the chunks
(analysis/rules/account_workers.py): the main process's report is the same, and it never loads a
vocabulary (~70 MB of a large report's memory)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]
SAMPLE = str(ROOT / "sample_traces" / "claims.jsonl")

RUN = r"""
import sys
from traceview.analysis.account import tokens
from traceview.analysis.session import analyze
from traceview.report.json_out import render_json
out = render_json(analyze(sys.argv[1]), explain=True)
sys.stdout.buffer.write(out)
print("\nvocabularies loaded:", tokens._backend.cache_info().currsize, file=sys.stderr)
"""

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes: POSIX")


def _run(workers: str) -> tuple[bytes, str]:
    env = dict(os.environ, TRACEVIEW_WORKERS=workers, TRACEVIEW_PARALLEL_MIN_BYTES="0",
               TRACEVIEW_CHUNK_BYTES="3000")
    out = subprocess.run([sys.executable, "-c", RUN, SAMPLE], capture_output=True, cwd=ROOT,
                         env=env, check=True)
    return out.stdout, out.stderr.decode()


def test_counts_made_in_workers_give_the_same_report_and_no_vocabulary_here() -> None:
    alone, err_alone = _run("1")
    shared, err_shared = _run("2")
    assert shared == alone
    assert "vocabularies loaded: 1" in err_alone  # one process: it counts itself
    assert "vocabularies loaded: 0" in err_shared  # every count came from the workers


HERE = r"""
import sys
from traceview.analysis.rules.account import Accounts
made_here = []
itemise = Accounts._account
def _account(self, turn, *args):
    made_here.append(turn.index)
    return itemise(self, turn, *args)
Accounts._account = _account
from traceview.analysis.session import analyze
analysis = analyze(sys.argv[1])
print(len(analysis.turns), len(made_here))
"""


def test_requests_itemised_in_workers_only_joined_here() -> None:
    env = dict(os.environ, TRACEVIEW_WORKERS="2", TRACEVIEW_PARALLEL_MIN_BYTES="0",
               TRACEVIEW_CHUNK_BYTES="3000")
    out = subprocess.run([sys.executable, "-c", HERE, SAMPLE], capture_output=True, cwd=ROOT,
                         env=env, check=True, text=True)
    turns, made_here = map(int, out.stdout.split())
    assert turns > 0
    # The first chunk is read here (its rows show while the workers start): only its
    # requests are itemised in this process.
    assert made_here < turns / 2


def test_a_request_that_needs_earlier_turns_leaves_the_next_ones_halves_made() -> None:
    """A request resending reasoning by id has no half made in the worker (it needs the
    earlier turns); the requests after it in the chunk still have theirs."""
    from traceview.analysis.rules.account_workers import request_halves

    plain = {"dir": "req", "body": {"model": "gpt-4o", "input": "hello there"}}
    resent = {"dir": "req", "body": {"model": "gpt-4o", "input": [
        {"role": "user", "content": "and then?"},
        {"type": "reasoning", "id": "rs_1", "summary": []}]}}
    _, halves = request_halves([(0, plain), (10, resent), (20, plain), (30, resent),
                                (40, plain)])
    assert sorted(halves) == [0, 20, 40]
