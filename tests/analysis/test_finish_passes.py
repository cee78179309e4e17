"""What the end of a capture's analysis (Session._finish) leaves and where it works: the
carried-context ledger built in a forked worker beside the other passes (the same ledger
one process builds), and nothing of the read kept alive once the analysis is returned (no
session cycle waiting for a collection, no token counts the workers sent)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.fixtures_shared import SAMPLES
from traceview.analysis.account import tokens
from traceview.analysis.session import Session

TENANTS = str(SAMPLES / "tenants.jsonl")
ROOT = Path(__file__).resolve().parents[2]

_RUN = r"""
import multiprocessing, os, sys
import orjson
from traceview.analysis.hosted import attach

main, built = os.getpid(), attach._ledger

def ledger(analysis):
    with open(sys.argv[2], "a") as log:  # a worker's own stderr is /dev/null
        log.write("worker\n" if os.getpid() != main else "here\n")
    return built(analysis)

attach._ledger = ledger
from traceview.analysis.session import analyze
a = analyze(sys.argv[1])
print(len(multiprocessing.active_children()), file=sys.stderr)
sys.stdout.buffer.write(orjson.dumps({
    "conversations": [a.ledger.conversation(c.key) for c in a.conversations],
    "turns": [t.to_dict()["carried_context"] for t in a.turns],
    "problems": [p.to_dict() for p in a.problems]}))
"""


def _analysed(tmp_path: Path, workers: str) -> tuple[Any, str, str]:
    """The ledger as the report reads it, where it was built, and the workers left."""
    log = tmp_path / f"where-{workers}"
    env = dict(os.environ, TRACEVIEW_WORKERS=workers, TRACEVIEW_PARALLEL_MIN_ROWS="0")
    out = subprocess.run([sys.executable, "-c", _RUN, TENANTS, str(log)], cwd=ROOT, env=env,
                         capture_output=True, timeout=120, check=True)
    return orjson.loads(out.stdout), log.read_text(), out.stderr.decode()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forked workers: POSIX")
def test_the_ledger_built_in_a_worker_is_the_one_built_here(tmp_path: Path) -> None:
    """With workers (and a capture large enough: every one, here) the ledger is built in a
    worker beside the inventory and fidelity; the analysis gets the same ledger, and no
    worker is left. A fresh interpreter: a test process may have threads."""
    here, where_here, _ = _analysed(tmp_path, "1")
    forked, where_forked, left = _analysed(tmp_path, "2")
    assert (where_here, where_forked, left) == ("here\n", "worker\n", "0\n")
    assert forked == here
    # The sample carries context: a deposit charged on two turns, whose tool the last of
    # them no longer offers.
    (source,) = [s for c in here["conversations"] if c for s in c["sources"]]
    assert (source["id"], source["turns_carried"]) == ("deposit@2", 2)
    assert [o["source"] for t in here["turns"] for o in t["outlived_tools"]] == ["deposit@2"]


def test_the_session_and_its_read_go_when_the_analysis_is_returned() -> None:
    """Without a collection: the reader's pairing state and the analyzer's running state
    must not wait for one (they were alive through the report's write, its peak)."""
    tokens.remember({b"\x00" * 16: 1})  # as a worker's counts arrive
    enabled = gc.isenabled()
    gc.disable()
    try:
        session = Session(TENANTS, first_rows=False)
        analysis = session.run_to_end()
        gone = weakref.ref(session), weakref.ref(session.loader), weakref.ref(session.analyzer)
        del session
        assert [r() for r in gone] == [None, None, None]
    finally:
        if enabled:
            gc.enable()
    assert analysis.complete and analysis.ledger is not None
    assert not tokens._MEMO.received  # the counts served the turns, all analysed
