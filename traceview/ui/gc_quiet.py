"""No full garbage collection while the inspector loads a capture.

A load makes millions of long-lived objects and no cyclic garbage. A full collection walks
every object and holds the GIL while it does: up to 1.4 s on a 1 GB capture, during which
the inspector's event loop answers no key. The inspector (and only it: the analysis leaves
the interpreter as it found it) raises the oldest generation's threshold while it loads.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_quiet = threading.Lock()
_quiet_depth = 0
_saved_threshold: tuple[int, int, int] = gc.get_threshold()


@contextmanager
def no_full_collections() -> Iterator[None]:
    """No automatic full (generation 2) collection inside the block; the young
    generations are still collected (they are small). Nested and concurrent loads share
    one saved threshold, restored when the last one ends."""
    global _quiet_depth, _saved_threshold
    with _quiet:
        if _quiet_depth == 0:
            _saved_threshold = gc.get_threshold()
            young, middle, _old = _saved_threshold
            gc.set_threshold(young, middle, 1 << 30)
        _quiet_depth += 1
    try:
        yield
    finally:
        with _quiet:
            _quiet_depth -= 1
            if _quiet_depth == 0:
                gc.set_threshold(*_saved_threshold)
