"""Records written after the answer: the proxy's record work, off the relay's critical path.

Parsing a body, masking a stream's deltas, serialising and writing a line are not needed to
relay an exchange. The proxy hands them here and they run when the event loop's current step
ends: a request's record once the request has left (while the upstream works), a response's
once its last bytes are with the client's transport. One backlog per proxy, run in order by
one event loop, so records keep their order and each is still one whole-line write.

Memory stays bounded: past BACKLOG_RECORDS records or BACKLOG_BYTES of bodies waiting, the
backlog is written at once, in order, before the new record. It is also written whole when
the proxy shuts down (Ctrl-C, SIGTERM: the server's lifespan end) and when its recorder is
closed, so a stopped proxy has lost nothing; a kill -9 loses at most the records of the
loop's current step (still only whole lines on disk).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from collections.abc import Callable

BACKLOG_RECORDS = 1024
BACKLOG_BYTES = 64 << 20

Job = Callable[[], None]


class RecordBacklog:
    """Record jobs of one event loop, run in order when its current step ends."""

    def __init__(self, loop: asyncio.AbstractEventLoop, *, max_records: int = BACKLOG_RECORDS,
                 max_bytes: int = BACKLOG_BYTES) -> None:
        self._loop = loop
        self._thread = threading.get_ident()  # the loop's: jobs from elsewhere run at once
        self._jobs: deque[tuple[Job, int]] = deque()
        self._bytes = 0
        self._max_records = max_records
        self._max_bytes = max_bytes
        self._scheduled = False

    def __len__(self) -> int:
        return len(self._jobs)

    def submit(self, job: Job, size: int = 0) -> None:
        """Run ``job`` (which holds about ``size`` bytes of body) after the loop's step."""
        if threading.get_ident() != self._thread or self._loop.is_closed():
            self.drain()
            job()
            return
        self._jobs.append((job, size))
        self._bytes += size
        if len(self._jobs) > self._max_records or self._bytes > self._max_bytes:
            self.drain()
        elif not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self._run)

    def _run(self) -> None:
        self._scheduled = False
        self.drain()

    def drain(self) -> None:
        """Run every job waiting, in order (shutdown, close, a full backlog)."""
        while self._jobs:
            job, size = self._jobs.popleft()
            self._bytes -= size
            try:
                job()
            except Exception:  # one record's bug must not hold back the ones behind it
                logging.getLogger("traceview.record").exception("a record was not written")
