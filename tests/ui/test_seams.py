"""The core gives the inspector every member the UI reads (traceview/analysis/seams.py),
and so does the fake core the inspector's tests drive it with.

mypy checks both statically; this states it at run time too, on a real capture, so a
renamed member of the core fails here instead of as an AttributeError on some screen."""

from __future__ import annotations

from typing import Any

import pytest

from traceview.analysis import Options, Session
from traceview.analysis.seams import (
    AnalysisView,
    BatchView,
    ConversationRow,
    ProblemRow,
    SessionView,
    TurnRow,
)

from .conftest import sample
from .fakecore import claims_session


def members(protocol: type) -> set[str]:
    """The names a Protocol declares (its own and its Protocol bases')."""
    names: set[str] = set()
    for cls in protocol.__mro__:
        if cls is object or not getattr(cls, "_is_protocol", False):
            continue
        names.update(n for n in vars(cls) if not n.startswith("_"))
    return names


def missing(obj: Any, protocol: type) -> list[str]:
    return sorted(n for n in members(protocol) if not hasattr(obj, n))


def check_session(session: Any) -> None:
    assert missing(session, SessionView) == []
    batches = list(session.run())
    assert batches and all(missing(b, BatchView) == [] for b in batches)
    analysis = session.analysis
    assert missing(analysis, AnalysisView) == []
    assert analysis.turns and all(missing(t, TurnRow) == [] for t in analysis.turns)
    assert analysis.conversations
    assert all(missing(c, ConversationRow) == [] for c in analysis.conversations)
    assert all(missing(p, ProblemRow) == [] for p in analysis.problems)


@pytest.mark.parametrize("name", ["claims", "damaged", "long_conversation"])
def test_the_core_session_has_what_the_inspector_reads(name: str) -> None:
    check_session(Session([sample(name)], Options()))


def test_the_fake_core_has_what_the_inspector_reads() -> None:
    check_session(claims_session())
