"""`apart` runs a piece of work in a forked child: the caller gets its answer or its
exception, and what the work changed in memory stays in the child."""

from __future__ import annotations

import subprocess
import sys

import pytest

from traceview.capture.apart import apart

# In a fresh process (one thread, so `apart` forks; a test run may have threads alive).
_RUN = """
import os
from traceview.capture.apart import apart
seen = []
def work(n):
    seen.append(n)
    return os.getpid(), n * 2
pid, doubled = apart(work, 21)
print(doubled, pid != os.getpid(), seen)
"""


def test_answer_from_a_child_whose_memory_stays_there() -> None:
    out = subprocess.run([sys.executable, "-c", _RUN], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    assert out == ["42", "True", "[]"]  # the answer, from another process; its list there


def _fails(message: str) -> None:
    raise ValueError(message)


def test_the_childs_error_is_raised_here() -> None:
    with pytest.raises(ValueError, match="bad capture"):
        apart(_fails, "bad capture")
