"""Record an application's OpenAI traffic into a capture traceview reads.

Three lines in an application::

    import traceview.record
    client = traceview.record.client("trace/CS-88213.jsonl")   # an openai.OpenAI
    client.responses.create(model="gpt-4.1", input="hi")        # written before it returns

or, for a client built elsewhere, ``traceview.record.attach(client, "trace.jsonl")``.
Recording happens at the HTTP layer: exact request bytes, every retry, streams as events
plus their final body, errors and timeouts. Authorization headers are never written and
key-shaped strings are scrubbed from bodies.
"""

from __future__ import annotations

import os
from typing import Any

from traceview.record.recorder import Clock, FrozenClock, Recorder, counter_links
from traceview.record.transport import AsyncRecordingTransport, RecordingTransport
from traceview.record.writer import CaptureWriter

__all__ = [
    "AsyncRecordingTransport",
    "CaptureWriter",
    "Clock",
    "FrozenClock",
    "Recorder",
    "RecordingTransport",
    "async_client",
    "async_http_client",
    "attach",
    "client",
    "counter_links",
    "http_client",
]

PathLike = str | os.PathLike[str]


def _recorder(capture: PathLike | Recorder, fsync: bool) -> Recorder:
    return capture if isinstance(capture, Recorder) else Recorder(capture, fsync=fsync)


def http_client(capture: PathLike | Recorder, *, fsync: bool = False, **kwargs: Any) -> Any:
    """An ``httpx2.Client`` with the SDK's defaults that records into ``capture``.

    For ``OpenAI(http_client=traceview.record.http_client("trace.jsonl"))``.
    """
    import openai

    return openai.DefaultHttpxClient(
        transport=RecordingTransport(_recorder(capture, fsync)), **kwargs
    )


def async_http_client(capture: PathLike | Recorder, *, fsync: bool = False, **kwargs: Any) -> Any:
    """The asyncio twin of :func:`http_client`."""
    import openai

    return openai.DefaultAsyncHttpxClient(
        transport=AsyncRecordingTransport(_recorder(capture, fsync)), **kwargs
    )


def client(capture: PathLike | Recorder, *, fsync: bool = False, **openai_kwargs: Any) -> Any:
    """An ``openai.OpenAI`` whose every exchange is written to ``capture``.

    ``openai_kwargs`` go to ``openai.OpenAI`` unchanged (api_key, base_url, max_retries…).
    ``fsync=True`` forces each record to disk before the call returns (slower; for
    captures that must survive a power cut, not just a crash).
    """
    import openai

    return openai.OpenAI(http_client=http_client(capture, fsync=fsync), **openai_kwargs)


def async_client(capture: PathLike | Recorder, *, fsync: bool = False, **openai_kwargs: Any) -> Any:
    """An ``openai.AsyncOpenAI`` whose every exchange is written to ``capture``."""
    import openai

    return openai.AsyncOpenAI(
        http_client=async_http_client(capture, fsync=fsync), **openai_kwargs
    )


def attach(sdk_client: Any, capture: PathLike | Recorder, *, fsync: bool = False) -> Any:
    """Start recording an existing ``OpenAI`` / ``AsyncOpenAI`` client in place.

    Wraps the transport of the client's httpx2 client, so its own settings (proxies,
    timeouts, limits) keep working. Returns the same client.
    """
    import httpx2

    http = getattr(sdk_client, "_client", None)
    recorder = _recorder(capture, fsync)
    if isinstance(http, httpx2.Client):
        http._transport = RecordingTransport(recorder, http._transport)
        http._mounts = {
            pattern: RecordingTransport(recorder, t) if t is not None else None
            for pattern, t in http._mounts.items()
        }
    elif isinstance(http, httpx2.AsyncClient):
        http._transport = AsyncRecordingTransport(recorder, http._transport)
        http._mounts = {
            pattern: AsyncRecordingTransport(recorder, t) if t is not None else None
            for pattern, t in http._mounts.items()
        }
    else:
        raise TypeError(
            "traceview.record.attach needs an openai client built on httpx2 "
            f"(got http client {type(http).__name__}); use traceview.record.client() instead"
        )
    return sdk_client
