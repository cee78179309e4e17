"""Following a capture that is still being written (``traceview --follow``).

A FollowSession is a Session that never closes the capture: the first pass reads every
complete line, then ``poll()`` reads only the bytes appended since, feeds the complete
lines to the same builder and analyzer, and returns the new turns. Nothing is re-read
and nothing is analysed twice; each conversation's running state carries on.

A last line without its newline is the writer mid-record: it is held back until the
newline arrives instead of being reported as a truncated line. A request whose
response has not arrived yet stays pending in the builder, as it would mid-file.

``poll()`` is cheap when nothing changed (one ``os.stat``), so a caller can run it a
few times a second without costing CPU while the capture is idle. A rewrite to the same
length (truncated and written again, or overwritten in place) changes the mtime, not the
size: only then are the bytes before the offset compared. When no regular file is
at the path (deleted, moved away, a directory or a FIFO in its place) ``gone`` says why and
nothing is opened; the turns read stay, and the next file at the path is judged as any
file found there is: the same one is tailed on, another one is ``replaced``.

The hosted-state passes (ledger, replay fidelity, objects) read bodies again over the
whole capture, so they run on a budget: again only once nine times their last duration has
passed (a tenth of the time at most); in between, each conversation keeps the carried
context the last pass found, and ``hosted_state_turns`` says how many turns it covered.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from traceview.analysis.cost.section import attach_cost
from traceview.analysis.hosted.attach import attach as attach_hosted_state
from traceview.analysis.options import Options
from traceview.analysis.session import Batch, Session, _attach_exchanges, _vector_stores
from traceview.analysis.turn_report import TurnReport
from traceview.capture.capture import Progress
from traceview.capture.parallel import BOM, MAX_LINE_BYTES
from traceview.capture.sources import FOLLOW_NEEDS, SourceError

CHUNK = 1 << 20
SEEN_BYTES = 4096  # kept from before the offset, compared on each poll (a rewrite's test)


@dataclass(frozen=True)
class FileId:
    """Which file is at the path: a replaced file (new inode) or a shrunk one is not the
    file that was followed, and needs a reload rather than a tail."""

    device: int
    inode: int


class FollowSession(Session):
    """A Session over one growing file; ``poll()`` analyses what was appended."""

    follows = True  # the analyzer keeps its conversations' state for the lines to come

    def __init__(self, paths: list[str] | str, options: Options | None = None,
                 **kwargs: Any) -> None:
        super().__init__(paths, options, **kwargs)
        self.offset = 0  # bytes fed so far: always the end of a complete line
        self.line_no = 0
        self.file_id: FileId | None = None
        self._tail = 0  # bytes of a last line still without its newline: counted, not held
        self._seen = b""  # the bytes just before `offset`, to notice a rewritten file
        self._mtime = 0  # st_mtime_ns at the last poll: a same-size rewrite changes only it
        self.replaced = False
        #: Why no regular file is at the path now ("is gone (deleted or moved away)"), or
        #: None while one is: the caller says so instead of "following" nothing.
        self.gone: str | None = None
        self._hosted_due = 0.0  # monotonic time after which the hosted-state passes run again
        #: The turns the last hosted-state pass covered (the carried and replay columns).
        self.hosted_state_turns = 0

    @property
    def path(self) -> str:
        files = self.capture._files
        return files[0].path if files else self.loader.paths[0]

    def run(self) -> Iterator[Batch]:
        self.loader.open_all()
        files = self.capture._files
        if len(files) != 1 or files[0].spooled:
            raise SourceError(FOLLOW_NEEDS)
        self.file_id = self._identify()
        fresh = []
        last = time.monotonic()
        wait = self.first_interval
        for chunk_turns in self._read_new():
            fresh.extend(chunk_turns)
            now = time.monotonic()
            if now - last >= wait:
                yield self._batch(fresh, done=False)
                fresh, last, wait = [], now, self.interval
        self._publish()
        yield self._batch(fresh, done=True)

    def poll(self) -> Batch | None:
        """The turns and problems that arrived since the last call; None if nothing did.

        Sets ``replaced`` (and reads nothing) when the path now holds another file or a
        shorter one: the caller offers a reload. Sets ``gone`` (and opens nothing) while no
        regular file is at the path; clears it when one is back.
        """
        try:
            st = os.stat(self.path)
        except OSError as exc:
            self.gone = self._why_gone(exc)
            return None
        if not stat.S_ISREG(st.st_mode):
            self.gone = f"is {_kind(st.st_mode)} now"
            return None
        self.gone = None
        read = self.offset + self._tail
        if self.file_id is not None and (
            FileId(st.st_dev, st.st_ino) != self.file_id or st.st_size < read
        ):
            self.replaced = True
            return None
        written = st.st_mtime_ns != self._mtime
        self._mtime = st.st_mtime_ns
        if st.st_size == read:
            if written and self._rewritten():  # the same length written again
                self.replaced = True
                return None
            if self.hosted_state_pending and time.monotonic() >= self._hosted_due:
                self._publish()  # the turns the last pass missed, now that it is due
                return self._batch([], done=True)
            return None
        if self._rewritten():
            self.replaced = True
            return None
        fresh: list[TurnReport] = []
        try:
            for turns in self._read_new():
                fresh.extend(turns)
        except OSError as exc:  # gone between the stat and the read: what was read stands
            self.gone = self._why_gone(exc)
        problems = bool(self.loader.builder.new_problems)
        if not fresh and not problems:
            return None
        self._publish()
        return self._batch(fresh, done=True)

    @property
    def hosted_state_pending(self) -> bool:
        """Turns arrived since the last hosted-state pass; ``poll()`` runs it once due."""
        return self.hosted_state_turns < len(self.analyzer.reports)

    # -- internals ----------------------------------------------------------------------
    def _why_gone(self, exc: OSError) -> str:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return "is gone (deleted or moved away)" if self.file_id else "does not exist"
        return f"cannot be read ({exc.strerror or exc})"

    def _identify(self) -> FileId | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        self._mtime = st.st_mtime_ns
        return FileId(st.st_dev, st.st_ino)

    def _rewritten(self) -> bool:
        """True when the bytes before ``offset`` are no longer the ones read: the file was
        truncated and written again to or past the old end between two polls (same inode,
        and not shorter, so neither test above sees it). Run when it grew or its mtime
        changed, never on an idle poll: one pread of SEEN_BYTES at most."""
        if not self._seen:
            return False
        try:
            with _open(self.path) as handle:
                return os.pread(handle.fileno(), len(self._seen),
                                self.offset - len(self._seen)) != self._seen
        except OSError:
            return False

    def _read_new(self) -> Iterator[list[TurnReport]]:
        """Feed the complete lines appended since ``offset``; yield new TurnReports per chunk.

        A line still without its newline is counted, not held: a line growing for ever
        costs no memory and no re-scan (each byte is searched for a newline once), and is
        read back with one pread when its newline comes — or skipped as a problem past
        MAX_LINE_BYTES, as the loader does."""
        b = self.loader.builder
        names = self.capture.sources
        with _open(self.path) as handle:
            handle.seek(self.offset + self._tail)
            while chunk := handle.read(CHUNK):
                end = chunk.rfind(b"\n") + 1
                if not end:
                    self._tail += len(chunk)
                    continue
                start = self._finish_line(handle.fileno(), chunk) if self._tail else 0
                while start < end:
                    stop = chunk.index(b"\n", start) + 1
                    self._feed(chunk[start:stop])
                    start = stop
                self._tail = len(chunk) - end
                fresh = []
                while b.finished:
                    turn = b.finished.popleft()
                    fresh.append(self.analyzer.add(turn, names[turn.source]))
                self.loader.lines = self.line_no
                self.loader.bytes_read = self.offset
                seen = min(self.offset, SEEN_BYTES)
                self._seen = os.pread(handle.fileno(), seen, self.offset - seen)
                yield fresh

    def _feed(self, raw: bytes) -> None:
        if not self.offset and raw.startswith(BOM):
            # A byte order mark before line 1 is no line's, as the loader reads it (a
            # capture written by a Windows tool); fed, line 1 was not JSON.
            self.offset, raw = len(BOM), raw[len(BOM):]
        self.line_no += 1
        self.loader.builder.feed(0, self.line_no, self.offset, raw, True)
        self.offset += len(raw)

    def _finish_line(self, fd: int, chunk: bytes) -> int:
        """Feed the line that was growing, now ended in ``chunk``; where the rest begins."""
        rest = chunk.index(b"\n") + 1
        size = self._tail + rest
        if size - 1 > MAX_LINE_BYTES:
            self.line_no += 1
            self.loader.builder.problem(0, self.line_no, "line_too_long", (
                f"line is {size:,} bytes, over the {MAX_LINE_BYTES >> 20} MiB a record may "
                "have; line skipped"))
            self.offset += size
        else:
            self._feed(os.pread(fd, size, self.offset))
        self._tail = 0
        return rest

    def _publish(self) -> None:
        """Bring the Analysis up to date (cheap: the analyzer kept its sums)."""
        a = self.analysis
        reports = self.analyzer.reports
        if any(reports[i].index > reports[i + 1].index for i in range(len(reports) - 1)):
            reports.sort(key=lambda t: t.index)
        a.turns = reports
        a.conversations = self.analyzer.conversations()
        for conv in a.conversations:
            conv.exchanges.clear()
        _attach_exchanges(a)
        a.totals = self.analyzer.totals.to_dict()
        a.totals["vector_stores"] = _vector_stores(a, self.analyzer)
        a.pricing_table = self.analyzer.pricing
        self._hosted_state(a)
        a.complete = True

    def _hosted_state(self, a: Any) -> None:
        """The ledger, fidelity and objects, and the cost section after them (conversation
        metadata's tenants, flagged moderations: what a read to the end attaches), again
        when the budget allows (see above)."""
        started = time.monotonic()
        if started >= self._hosted_due:
            attach_hosted_state(a)
            attach_cost(a, self.options.per_month, self.options.budget, self.analyzer.bill)
            self.hosted_state_turns = len(a.turns)
            self._hosted_due = time.monotonic() + 9 * (time.monotonic() - started)
        elif a.ledger is not None:
            for conv in a.conversations:
                conv.carried = a.ledger.conversations.get(conv.key)

    def progress(self) -> Progress:
        return Progress(self.offset, self.offset + self._tail, self.line_no, True)


def _open(path: str) -> io.BufferedReader:
    """The followed file for reading, opened O_NONBLOCK: a FIFO swapped in after the
    ``stat`` would otherwise wait for a writer for ever (a regular file ignores the flag)."""
    return open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb")


def _kind(mode: int) -> str:
    """What is at the path instead of a file, for ``gone``."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "something else"
