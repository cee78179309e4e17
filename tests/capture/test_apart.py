"""`apart` runs a piece of work in a forked child: the caller gets its answer or its
exception, and what the work changed in memory stays in the child."""

from __future__ import annotations

import os

import pytest

from traceview.capture.apart import apart
from traceview.capture.parallel import fork_safe

SEEN: list[int] = []


def _work(n: int) -> tuple[int, int]:
    SEEN.append(n)
    return os.getpid(), n * 2


def _fails(message: str) -> None:
    raise ValueError(message)


@pytest.mark.skipif(not fork_safe(), reason="needs fork and one thread")
def test_answer_from_a_child_whose_memory_stays_there() -> None:
    pid, doubled = apart(_work, 21)
    assert doubled == 42 and pid != os.getpid()
    assert SEEN == []  # the child's list, not this one


def test_the_childs_error_is_raised_here() -> None:
    with pytest.raises(ValueError, match="bad capture"):
        apart(_fails, "bad capture")
