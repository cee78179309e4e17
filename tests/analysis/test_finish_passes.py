"""What the end of a capture's analysis (Session._finish) leaves and where it works: the
carried-context ledger built in a forked worker beside the inventory and fidelity (the
same ledger a single process builds), and nothing of the read kept alive once the
analysis is returned (no session cycle waiting for a collection, no token counts the
workers sent).

The forked case runs in a fresh process: a test process may have threads, and then
nothing forks.
"""

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
from traceview.analysis.hosted.attach import attach as attach_hosted_state
from traceview.analysis.hosted.attach import ledger_aside
from traceview.analysis.session import Session, analyze

ROOT = Path(__file__).parent.parent.parent
TENANTS = str(SAMPLES / "tenants.jsonl")

RUN = r"""
import os, sys
import orjson
from traceview.analysis.hosted import attach
real = attach._ledger

def ledger(task):
    with open(sys.argv[2], "a") as log:  # a worker's stderr is not the terminal's
        log.write(f"ledger built in {'main' if os.getpid() == MAIN else 'worker'}\n")
    return real(task)

MAIN = os.getpid()
attach._ledger = ledger
from traceview.analysis.session import analyze
a = analyze(sys.argv[1])
sys.stdout.buffer.write(orjson.dumps({
    "conversations": [a.ledger.conversation(c.key) for c in a.conversations],
    "turns": [t.to_dict().get("carried_context") for t in a.turns],
    "problems": [p.to_dict() for p in a.problems]}))
try:
    os.waitpid(-1, os.WNOHANG)
    print("child left", file=sys.stderr)
except ChildProcessError:
    pass
"""


def _analysed(tmp_path: Path, workers: str) -> tuple[Any, str]:
    """The ledger's dicts, and where it was built (and "child left" if a worker was)."""
    log = tmp_path / f"log-{workers}"
    env = dict(os.environ, TRACEVIEW_WORKERS=workers, TRACEVIEW_PARALLEL_MIN_ROWS="0")
    out = subprocess.run([sys.executable, "-c", RUN, TENANTS, str(log)], capture_output=True,
                         cwd=ROOT, env=env, check=True)
    return orjson.loads(out.stdout), log.read_text() + out.stderr.decode()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forked workers: POSIX")
def test_the_ledger_is_built_in_a_worker_and_is_the_one_built_here(tmp_path: Path) -> None:
    here, said_here = _analysed(tmp_path, "1")
    forked, said_forked = _analysed(tmp_path, "2")
    assert said_here == "ledger built in main\n"
    assert said_forked == "ledger built in worker\n"  # and no child left behind
    assert forked == here
    # The sample carries context: a deposit charged on two turns, whose tool the last
    # of them no longer offers.
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


def test_two_ledgers_begun_at_once_are_each_their_own_analysis() -> None:
    """Two screens may finish an analysis each, in threads of their own, one ledger begun
    while the other is built: each is built from its own analysis."""
    tenants, claims = analyze(TENANTS), analyze(str(SAMPLES / "claims.jsonl"))
    alone = [[a.ledger.conversation(c.key) for c in a.conversations] for a in (tenants, claims)]
    with ledger_aside(tenants) as tenants_ledger:
        attach_hosted_state(claims)
        first = tenants_ledger()
    assert [first.conversation(c.key) for c in tenants.conversations] == alone[0]
    assert [claims.ledger.conversation(c.key) for c in claims.conversations] == alone[1]
    assert alone[0] != alone[1]
