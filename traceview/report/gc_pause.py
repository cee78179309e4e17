"""No cyclic garbage collection while a report is written.

A writer allocates a few dicts and lists per row and frees them at once (by reference
count; rows hold no cycles), yet every 700 allocations the collector runs and re-scans the
analysis built just before (the hosted-state passes' objects are young): a third of the
row-building time. Collection is paused for the write and restored after, whatever ends it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
