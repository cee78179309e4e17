"""The load steps aside while a key is answered.

The load thread and the event loop share one interpreter lock: while both run, they take
turns every switch interval, so a key's few milliseconds of handling and drawing stretch
over many of the load's turns (and each turn back may wait for the OS to schedule the
load thread). A key closes the gate as it is posted; the load thread, between steps of its
read, waits while the gate is closed; the key's screen, once drawn, opens it. A key that
is never drawn holds the load for `HOLD` seconds at most.
"""

from __future__ import annotations

import threading
import time


class LoadGate:
    """Closed from a key's arrival until its screen is drawn; the load waits while closed."""

    #: The longest one key keeps the load waiting, in seconds.
    HOLD = 0.1

    def __init__(self) -> None:
        self._open = threading.Event()
        self._open.set()
        self._until = 0.0

    @property
    def open(self) -> bool:
        """Whether the load may go on (no key waits to be answered)."""
        return self._open.is_set()

    def key_arrived(self) -> None:
        """Any thread (the driver's): a key is on its way to the event loop."""
        self._until = time.monotonic() + self.HOLD
        self._open.clear()

    def answered(self) -> None:
        """The event loop: the key's effect is on screen."""
        self._open.set()

    def wait(self) -> None:
        """The load thread, between steps: wait while a key is being answered."""
        if not self._open.is_set():
            self._open.wait(max(0.0, self._until - time.monotonic()))
