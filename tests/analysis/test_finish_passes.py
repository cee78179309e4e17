"""What the end of a capture's analysis (Session._finish) leaves: nothing of the read kept
alive once the analysis is returned (no session cycle waiting for a collection, no token
counts the workers sent)."""

from __future__ import annotations

import gc
import weakref

from tests.fixtures_shared import SAMPLES
from traceview.analysis.account import tokens
from traceview.analysis.session import Session

TENANTS = str(SAMPLES / "tenants.jsonl")


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
