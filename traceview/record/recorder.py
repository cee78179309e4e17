"""Turns HTTP exchanges into capture records (the format in DESIGN.md).

A request record is written *before* the request is sent, so a process that dies
mid-turn leaves a ``request_only`` turn instead of nothing. The response record is
written when the body has been read completely (for a stream: when it closes),
linked to its request by ``id``. Given a ``backlog`` (the proxy's), both are written just
after: once the request has left, once the client has the response (`backlog.py`).
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import time
import uuid
import warnings
from bisect import bisect_left
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import orjson

from traceview.record.sse import located_events, terminal_response
from traceview.record.writer import CaptureWriter

if TYPE_CHECKING:
    from traceview.record.backlog import RecordBacklog

# Response headers worth keeping: they identify the call to the provider's support, give
# server-side timing, say when a retry may come (rate limits) and which organization and
# project the call was billed to (ids, not secrets: what `traceview reconcile` matches the
# bill's project_id with). Nothing else from the headers is ever written.
SAFE_RESPONSE_HEADERS = (
    "x-request-id", "openai-processing-ms", "retry-after", "retry-after-ms",
    "x-ratelimit-remaining-requests", "x-ratelimit-remaining-tokens",
    "x-ratelimit-reset-requests", "x-ratelimit-reset-tokens",
    "openai-organization", "openai-project",
)
# Request headers worth keeping: the organization and project a client asked to be billed
# to (`OpenAI(organization=…, project=…)` sends them). Never a key.
SAFE_REQUEST_HEADERS = ("openai-organization", "openai-project")


def _parse_json(raw: bytes) -> tuple[bool, Any]:
    """orjson first (several times faster: it runs on every body the proxy relays); the
    stdlib for what orjson refuses but is still JSON to the SDK (NaN, huge integers)."""
    try:
        return True, orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        return True, json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        # RecursionError: nested deeper than the stdlib parser goes (orjson stops at 1024
        # levels); recorded as a non-JSON body — recording never fails the call it records.
        return False, None


class Clock:
    """Wall time and elapsed time; swapped for a frozen clock when output must be stable.

    ``timed``: stream chunks are stamped on arrival (``start()``'s clock) so each event's
    record carries its arrival offset (``event_ms``)."""

    timed = True

    def now(self) -> float:
        return time.time()

    def start(self) -> float:
        return time.perf_counter()

    def elapsed_ms(self, started: float, headers: dict[str, str]) -> int:
        return int(round((time.perf_counter() - started) * 1000))


class FrozenClock(Clock):
    """Deterministic timestamps for checked-in samples.

    ``ts`` advances by a fixed step per record; ``elapsed_ms`` is the server's own
    ``openai-processing-ms`` header when present (the simulator sends a deterministic
    one), else 0. Streams carry no arrival offsets (they would differ run to run).
    """

    timed = False

    def __init__(self, start: float = 1767225600.0, step: float = 1.0) -> None:
        self._counter = itertools.count()
        self._start = start
        self._step = step

    def now(self) -> float:
        return self._start + next(self._counter) * self._step

    def start(self) -> float:
        return 0.0

    def elapsed_ms(self, started: float, headers: dict[str, str]) -> int:
        try:
            return int(float(headers.get("openai-processing-ms", "0")))
        except ValueError:
            return 0


def arrival_ms(located: list[tuple[Any, int]], ends: list[int], ms: list[int]) -> list[int]:
    """Each event's arrival: the ms of the first chunk whose end reaches its frame's end."""
    last = len(ends) - 1
    return [ms[min(bisect_left(ends, end), last)] for _, end in located]


def random_link() -> str:
    """80 random bits as 20 hex digits (what ``uuid4().hex[:20]`` gave, for a third of
    the cost: no UUID object per exchange)."""
    return "rec_" + os.urandom(10).hex()


def counter_links(prefix: str = "rec_", *, deterministic: bool = False) -> Callable[[], str]:
    """Readable, ordered link ids that are still unique across processes.

    Several processes may record into one capture; a bare counter gives each of them the
    same ids and the reader could not tell whose response is whose. Each counter is
    prefixed with this process's id and a random tag, unless ``deterministic`` (byte-for-
    byte reproducible captures from one process, like the committed samples).
    """
    counter = itertools.count(1)
    tag = "" if deterministic else f"{os.getpid():x}{uuid.uuid4().hex[:6]}_"
    return lambda: f"{prefix}{tag}{next(counter):06d}"


class Recorder:
    """Writes linked req/res records for every exchange handed to it."""

    def __init__(
        self,
        capture: str | os.PathLike[str] | CaptureWriter,
        *,
        fsync: bool = False,
        clock: Clock | None = None,
        link_ids: Callable[[], str] | None = None,
        strict: bool = False,
    ) -> None:
        """``strict``: a record that cannot be written (full disk, size limit) raises into
        the application; by default it warns once and the application keeps running — a
        successful, billed provider call must not fail because its recording did."""
        self.writer = capture if isinstance(capture, CaptureWriter) else CaptureWriter(
            capture, fsync=fsync
        )
        self.clock = clock or Clock()
        self._link_ids = link_ids or random_link
        self.strict = strict
        self.write_failures = 0
        # Set by the proxy: records are built and written after the relay (backlog.py).
        self.backlog: RecordBacklog | None = None

    def later(self, job: Callable[[], None], size: int = 0) -> None:
        """Build and write a record now, or, with a backlog, once the relay is done
        (``size``: the body bytes the job holds on to meanwhile)."""
        if self.backlog is None:
            job()
        else:
            self.backlog.submit(job, size)

    def _write(self, record: dict[str, Any]) -> None:
        try:
            self.writer.write(record)
        except (OSError, ValueError) as exc:
            self.write_failures += 1
            if self.strict:
                raise
            if self.write_failures == 1:
                message = (f"traceview: cannot record to {self.writer.path}: "
                           f"{getattr(exc, 'strerror', None) or exc}; the application keeps "
                           "running, records are being lost (Recorder(strict=True) to fail)")
                logging.getLogger("traceview.record").warning(message)
                warnings.warn(message, RuntimeWarning, stacklevel=3)

    @property
    def path(self) -> str:
        return str(self.writer.path)

    def note_secret(self, value: str | None) -> None:
        self.writer.scrubber.add_secret(value)

    def request(
        self, method: str, raw_path: str, raw: bytes | None, content_type: str, length: int | None,
        headers: dict[str, str] | None = None,
    ) -> str:
        """Write the request record now; returns the link id for the response. ``headers``:
        the request's SAFE_REQUEST_HEADERS that were sent (kept as the record's ``headers``)."""
        link = self.new_link()
        self.later(partial(self.write_request, link, self.clock.now(), method, raw_path, raw,
                           content_type, length, headers), len(raw or b""))
        return link

    def new_link(self) -> str:
        """The id that links an exchange's request and response records."""
        return self._link_ids()

    def write_request(
        self, link: str, ts: float, method: str, raw_path: str, raw: bytes | None,
        content_type: str, length: int | None, headers: dict[str, str] | None,
    ) -> None:
        """The request record of ``link``, sent at ``ts``: built and written now."""
        record: dict[str, Any] = {
            "dir": "req",
            "id": link,
            "ts": ts,
            "endpoint": f"{method} {unquote(raw_path)}",
        }
        if raw is None:
            record["bytes"] = length
            record["body"] = (
                {"non_json": True, "content_type": content_type, "bytes": length}
                if length
                else None if length == 0
                else {"non_json": True, "content_type": content_type, "bytes": None,
                      "not_kept": "an upload of unknown length (chunked), streamed: relayed "
                      "to the upstream, not recorded"}
            )
        else:
            record["bytes"] = len(raw)
            ok, body = _parse_json(raw) if raw else (True, None)
            record["body"] = (
                body if ok else {"non_json": True, "content_type": content_type, "bytes": len(raw)}
            )
        if headers:
            record["headers"] = headers
        self._write(record)

    def response(
        self,
        link: str,
        *,
        status_code: int,
        elapsed_ms: int,
        raw: bytes,
        content_type: str,
        headers: dict[str, str],
        stream: bool,
        error: dict[str, str] | None = None,
        not_kept: tuple[int, str] | None = None,
        chunk_ms: tuple[list[int], list[int]] | None = None,
    ) -> None:
        """Write the response record; a stream is stored as events plus its final body.
        ``not_kept`` = (bytes relayed, why): the body was relayed but not kept (too large,
        not its encoding); the record says why and holds its size only. ``chunk_ms`` =
        (each chunk's end offset in ``raw``, its arrival in ms since the request was sent):
        each event's arrival, ``event_ms``, is that of the chunk its frame ended in."""
        self.later(partial(self._response_record, link, self.clock.now(), status_code,
                           elapsed_ms, raw, content_type, headers, stream, error, not_kept,
                           chunk_ms), len(raw))

    def _response_record(
        self, link: str, ts: float, status_code: int, elapsed_ms: int, raw: bytes,
        content_type: str, headers: dict[str, str], stream: bool, error: dict[str, str] | None,
        not_kept: tuple[int, str] | None, chunk_ms: tuple[list[int], list[int]] | None,
    ) -> None:
        record: dict[str, Any] = {
            "dir": "res",
            "id": link,
            "ts": ts,
            "status_code": status_code,
            "elapsed_ms": elapsed_ms,
        }
        if not_kept is not None:
            record["body"] = {"non_json": True, "content_type": content_type,
                              "bytes": not_kept[0], "not_kept": f"{not_kept[1]}: relayed to "
                              "the client, not recorded"}
        elif stream:
            from traceview.record.deltas import mask_deltas

            located = located_events(raw)
            events = [event for event, _ in located]
            mask_deltas(events, self.writer.scrubber.texts())  # in place: located sees it
            record["body"] = terminal_response(events)
            record["events"] = events
            if chunk_ms is not None and chunk_ms[0]:
                record["event_ms"] = arrival_ms(located, *chunk_ms)
        else:
            ok, body = _parse_json(raw) if raw else (True, None)
            if not ok and error:  # cut off mid-body: what arrived is not a body
                body, ok = None, True
            record["body"] = (
                body if ok else {"non_json": True, "content_type": content_type, "bytes": len(raw)}
            )
        kept = {k: headers[k] for k in SAFE_RESPONSE_HEADERS if k in headers}
        if kept:
            record["headers"] = kept
        if error:
            record["error"] = error
        self._write(record)

    def failure(self, link: str, *, kind: str, message: str, elapsed_ms: int) -> None:
        """The request never got a response: timeout, refused connection, reset."""
        record = {
            "dir": "res",
            "id": link,
            "ts": self.clock.now(),
            "status_code": None,
            "elapsed_ms": elapsed_ms,
            "error": {"type": kind, "message": message},
            "body": None,
        }
        self.later(partial(self._write, record))

    def close(self) -> None:
        """Write what the backlog still holds, then close the capture."""
        if self.backlog is not None:
            self.backlog.drain()
        self.writer.close()
