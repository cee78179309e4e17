"""The interpreter, tuned for the inspector's load, in one place: the GIL switch interval,
the garbage collector and the load thread's priority. Only the inspector's own load
changes them; library code leaves a caller's interpreter as it found it."""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: How much lower the load thread's priority is than the event loop's, once the first rows
#: are shown ($TRACEVIEW_LOAD_NICE; 0 turns it off).
LOAD_NICE = 5

_tuning = threading.Lock()
_tuned_loads = 0
_saved: tuple[float, tuple[int, int, int]] = (0.0, (0, 0, 0))


@contextmanager
def tuned_for_loading() -> Iterator[None]:
    """The inspector's own settings while a capture loads, restored when it ends.

    The load is CPU-bound Python in a thread beside the event loop: a 1 ms GIL switch
    interval lets the event loop take the GIL back within a millisecond, so keys stay
    answered. A load makes millions of long-lived objects and no cyclic garbage; a full
    collection would walk all of them holding the GIL (the event loop answers nothing
    meanwhile), so there is none while loading, and what was loaded is frozen at the end
    (never walked again). Nested and concurrent loads (a reload) share one saved state.
    """
    global _tuned_loads, _saved
    with _tuning:
        if _tuned_loads == 0:
            _saved = (sys.getswitchinterval(), gc.get_threshold())
            sys.setswitchinterval(min(_saved[0], 0.001))
            young, middle, _old = _saved[1]
            gc.set_threshold(young, middle, 1 << 30)
        _tuned_loads += 1
    try:
        yield
    finally:
        with _tuning:
            _tuned_loads -= 1
            if _tuned_loads == 0:
                gc.freeze()
                sys.setswitchinterval(_saved[0])
                gc.set_threshold(*_saved[1])


def load_nice() -> int:
    env = os.environ.get("TRACEVIEW_LOAD_NICE", "").strip()
    return int(env) if env.isdigit() else LOAD_NICE


def lower_this_threads_priority(steps: int) -> None:
    """Make the calling thread yield the CPU to the event loop: the load's, once its first
    rows are out, and each worker forked for it as the worker starts (level with the load
    thread they feed: a worker above it would take the CPU the load waits for). On Linux
    each thread has its own nice value, and children inherit it. Elsewhere, or where it is
    refused, nothing changes."""
    if steps <= 0 or not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + steps))
    except OSError:
        pass
