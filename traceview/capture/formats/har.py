"""HAR 1.2 (browser devtools, Charles, Fiddler, mitmproxy's HAR export, Playwright).

Each provider call among the entries becomes a req/res record pair with the exact bodies
(``postData.text``; ``content.text``, base64-decoded when ``encoding`` says so), the
status, the start time and the entry's total time; a ``text/event-stream`` body is stored
as events plus the final body, exactly as the recorder stores a stream. Every other entry
(page loads, scripts, telemetry) is counted and ignored.

The file is read one entry at a time by a streaming JSON parser (ijson): a HAR of 2 GB must
not need 2 GB of memory. Where the file breaks (cut mid-entry, not JSON past some point)
the entries before it are kept and the break is one problem naming the entry; an entry of
the wrong shape is left out and named, and the entries after it are read.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Iterator
from datetime import datetime
from typing import IO, Any
from urllib.parse import urlsplit

from traceview.capture.formats.common import (
    MALFORMED,
    Emitter,
    FormatError,
    as_dict,
    parse_body,
    provider_path,
    stream_body,
)
from traceview.capture.formats.streamed import MAX_DEPTH, ArrayValues, JSONError
from traceview.capture.sources import GZIP_MAGIC

KEPT_HEADERS = ("x-request-id", "openai-processing-ms", "openai-organization", "openai-project")
# The request's own: which organization and project the client asked to be billed to.
KEPT_REQUEST_HEADERS = ("openai-organization", "openai-project")


def _epoch(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _text_bytes(holder: dict[str, Any], part: dict[str, Any]) -> tuple[bytes | None, str]:
    """(the body's bytes, or None; why a body that is there could not be read, or "").
    Fiddler, Charles and some proxies export the bytes still content-encoded (base64 of a
    gzip): those are inflated here, else the turn's numbers were silently unknown."""
    text = holder.get("text")
    if not isinstance(text, str):
        return None, ""
    if holder.get("encoding") != "base64":
        return text.encode("utf-8", "surrogatepass"), ""
    try:
        raw = base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return None, "base64 that could not be decoded"
    encoding = _headers(part, ("content-encoding",)).get("content-encoding", "")
    return _inflated(raw, encoding.strip().lower())


# A body stored compressed is inflated up to this (a small gzip can hold gigabytes);
# the same bound as a capture's longest line.
INFLATED_MAX = 256 << 20


def _inflated(raw: bytes, encoding: str) -> tuple[bytes | None, str]:
    """`raw` inflated when it is a gzip or zlib stream; as it is otherwise (Chrome exports
    the decoded body beside a ``Content-Encoding: gzip`` header)."""
    if raw[:2] == GZIP_MAGIC:
        wbits = 31
    elif encoding == "deflate" and raw[:1] == b"x":
        wbits = 15
    else:
        return raw, ""
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(raw, INFLATED_MAX)
    except zlib.error:
        return None, f"stored {'gzip' if wbits == 31 else encoding}-compressed and could " \
            "not be decoded"
    if inflater.unconsumed_tail:
        return None, f"over {INFLATED_MAX >> 20} MiB once decompressed, not read"
    if not inflater.eof:
        return None, f"stored {'gzip' if wbits == 31 else encoding}-compressed, cut short, " \
            "and could not be decoded"
    return out, ""


def _status(value: Any) -> Any:
    """The status code; some exporters write it as a string ("200"), and read as no
    status at all the answer that is there was dropped as 'no response'."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return value


def _elapsed(entry: dict[str, Any]) -> int | None:
    total = entry.get("time")
    if isinstance(total, (int, float)) and not isinstance(total, bool) and total >= 0:
        return int(round(total))
    timings = entry.get("timings")
    if isinstance(timings, dict):
        parts = [v for v in timings.values()
                 if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0]
        return int(round(sum(parts))) if parts else None
    return None


def _headers(entry_part: dict[str, Any], kept: tuple[str, ...] = KEPT_HEADERS
             ) -> dict[str, str]:
    out: dict[str, str] = {}
    headers = entry_part.get("headers")
    for h in headers if isinstance(headers, list) else []:
        if isinstance(h, dict) and isinstance(h.get("name"), str):
            name = h["name"].lower()
            if name in kept and isinstance(h.get("value"), str):
                out[name] = h["value"]
    return out


LEFT_OUT = "(left out of the HAR by the tool that exported it)"
NAMED = 5  # damaged entries named one by one in the problem; the rest are counted


def _entries(f: IO[bytes], em: Emitter) -> Iterator[Any]:
    """The entries of ``log.entries``, one at a time; where the JSON breaks, the entries
    read so far stand and the break becomes ``em.damage`` naming the entry it cut."""
    values = ArrayValues(f, ("log", "entries"))
    n = 0
    try:
        for entry in values:
            n += 1
            yield entry
    except JSONError as exc:
        where = ("after its entries" if values.ended else
                 f"in entry {n + 1}" if values.found else "before its entries")
        read = f"; the {n:,} entries before it are read" if n else ""
        em.damage.append((1, f"the HAR breaks {where} ({_cause(exc)}){read}"))
        return
    if not values.found:
        raise FormatError("not a HAR file: no log.entries list")


def _cause(exc: Exception) -> str:
    """The parser's reason, its first line only (the rest quotes the file)."""
    text = exc.args[0] if exc.args else ""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return str(text).split("\n", 1)[0].strip() or type(exc).__name__


def convert(f: IO[bytes], em: Emitter) -> int:
    """Write the provider calls of a HAR file; returns how many there were."""
    calls = 0
    damaged: list[int] = []
    for n, entry in enumerate(_entries(f, em), start=1):
        if not _shaped(entry):
            em.ignore("damaged entry")
            damaged.append(n)
            continue
        req = entry["request"]
        parts = urlsplit(req["url"])
        path = provider_path(parts.path)
        method = (req.get("method") or "GET").upper()
        if path is None or method == "OPTIONS":
            em.ignore("not a provider call")
            continue
        try:
            _pair(entry, n, method, path + (f"?{parts.query}" if parts.query else ""), em)
        except MALFORMED:  # a value of a wrong type deep in the entry: that entry only
            em.ignore("damaged entry")
            damaged.append(n)
            continue
        calls += 1
    if damaged:
        named = ", ".join(str(n) for n in damaged[:NAMED])
        more = f" and {len(damaged) - NAMED} more" if len(damaged) > NAMED else ""
        em.damage.insert(0, (1, f"{'entry' if len(damaged) == 1 else 'entries'} {named}{more} "
                                "of the wrong shape (not an object with a request and its "
                                f"url, or nested past {MAX_DEPTH:,} levels) left out"))
    return calls


def _shaped(entry: Any) -> bool:
    """An object with a request whose url is a string (and method, when there is one):
    else the entry was ignored as 'not a provider call', or its endpoint spelt with a
    Python repr of the value ("{'X': 1} /v1/responses")."""
    req = entry.get("request") if isinstance(entry, dict) else None
    return isinstance(req, dict) and isinstance(req.get("url"), str) and isinstance(
        req.get("method") or "GET", str)


def _pair(entry: dict[str, Any], n: int, method: str, endpoint: str, em: Emitter) -> None:
    req = entry["request"]
    link = f"har_{n:06d}"
    started = _epoch(entry.get("startedDateTime"))
    post = req.get("postData") if isinstance(req.get("postData"), dict) else {}
    raw, unread = _text_bytes(post, req)
    missing: list[str] = [f"request body ({unread})"] if unread else []
    size = req.get("bodySize")
    if raw is None and not unread and isinstance(size, int) and size > 0:
        missing.append(f"request body {LEFT_OUT}")
    record: dict[str, Any] = {"dir": "req", "id": link, "ts": started,
                              "endpoint": f"{method} {endpoint}",
                              "bytes": len(raw) if raw is not None else (
                                  size if isinstance(size, int) and size > 0 else None),
                              "body": parse_body(raw, str(post.get("mimeType") or ""))}
    asked = _headers(req, KEPT_REQUEST_HEADERS)
    if asked:
        record["headers"] = asked
    res = as_dict(entry.get("response"))
    content = as_dict(res.get("content"))
    body_raw, unread = _text_bytes(content, res)
    status = _status(res.get("status"))
    elapsed = _elapsed(entry)
    out: dict[str, Any] = {"dir": "res", "id": link,
                           "ts": None if started is None or elapsed is None
                           else started + elapsed / 1000}
    if not isinstance(status, int) or isinstance(status, bool) or status <= 0:
        # Browsers log an aborted or refused request with status 0 and no body.
        out.update(status_code=None, elapsed_ms=elapsed, body=None,
                   error={"type": "no_response", "message": str(
                       res.get("_error") or res.get("statusText") or "the HAR entry has no "
                       "response (aborted, refused or still pending when it was exported)")})
    else:
        out.update(status_code=status, elapsed_ms=elapsed)
        mime = str(content.get("mimeType") or "")
        size = content.get("size")
        if unread:
            missing.append(f"response body ({unread})")
        elif body_raw is None and isinstance(size, int) and size > 0:
            missing.append(f"response body {LEFT_OUT}")
        if body_raw is not None and mime.startswith("text/event-stream"):
            out["body"], out["events"] = stream_body(body_raw)
        else:
            out["body"] = parse_body(body_raw, mime)
        headers = _headers(res)
        if headers:
            out["headers"] = headers
    origin = em.origin(n, missing)
    record["origin"] = origin
    out["origin"] = origin
    em.write(record)
    em.write(out)
    em.turns += 1
