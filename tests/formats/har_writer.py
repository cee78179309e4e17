"""Write a HAR of real exchanges, in the shape browser devtools and mitmproxy export.

An httpx2 transport that sits under the recorder's own transport, so the HAR and the
recorder's capture are two records of the very same exchanges. Entry `time` is the
server's `openai-processing-ms` (what a FrozenClock records), so timings agree exactly.
"""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

import httpx2


def _headers(headers: httpx2.Headers) -> list[dict[str, str]]:
    return [{"name": k, "value": "Bearer ***" if k.lower() == "authorization" else v}
            for k, v in headers.multi_items()]


class HarTransport(httpx2.BaseTransport):
    def __init__(self, inner: httpx2.BaseTransport, *, base64_streams: bool = True) -> None:
        self.inner = inner
        self.entries: list[dict[str, Any]] = []
        self.base64_streams = base64_streams

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        started = datetime.fromtimestamp(time.time(), UTC)
        body = request.read()
        response = self.inner.handle_request(request)
        raw = b"".join(response.stream)
        response.close()
        ctype = response.headers.get("content-type", "")
        ms = float(response.headers.get("openai-processing-ms", "0"))
        content: dict[str, Any] = {"size": len(raw), "mimeType": ctype}
        if ctype.startswith("text/event-stream") and self.base64_streams:
            content.update(text=base64.b64encode(raw).decode(), encoding="base64")
        else:
            content["text"] = raw.decode()
        entry: dict[str, Any] = {
            "startedDateTime": started.isoformat().replace("+00:00", "Z"),
            "time": ms,
            "request": {
                "method": request.method, "url": str(request.url), "httpVersion": "HTTP/1.1",
                "cookies": [], "headers": _headers(request.headers),
                "queryString": [{"name": k, "value": v}
                                for k, v in parse_qsl(request.url.query.decode())],
                "headersSize": -1, "bodySize": len(body),
            },
            "response": {
                "status": response.status_code, "statusText": response.reason_phrase,
                "httpVersion": "HTTP/1.1", "cookies": [], "headers": _headers(response.headers),
                "content": content, "redirectURL": "", "headersSize": -1, "bodySize": len(raw),
            },
            "cache": {},
            "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0,
                        "wait": ms, "receive": 0},
            "serverIPAddress": "127.0.0.1",
        }
        if body:
            entry["request"]["postData"] = {"mimeType": request.headers.get("content-type", ""),
                                            "text": body.decode()}
        self.entries.append(entry)
        return httpx2.Response(response.status_code, headers=response.headers, content=raw)

    def close(self) -> None:
        self.inner.close()


def har_document(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """A HAR 1.2 log with the other traffic a real export carries around the API calls."""
    page = {"startedDateTime": "2026-01-01T00:00:00.000Z", "time": 12.5,
            "request": {"method": "GET", "url": "http://127.0.0.1:5173/", "httpVersion": "HTTP/1.1",
                        "cookies": [], "headers": [], "queryString": [], "headersSize": -1,
                        "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                         "cookies": [], "headers": [],
                         "content": {"size": 15, "mimeType": "text/html", "text": "<html></html>"},
                         "redirectURL": "", "headersSize": -1, "bodySize": 15},
            "cache": {}, "timings": {"send": 0, "wait": 12.5, "receive": 0}}
    icon = {**page, "request": {**page["request"], "url": "http://127.0.0.1:5173/favicon.ico"},
            "response": {**page["response"], "status": 404}}
    return {"log": {"version": "1.2",
                    "creator": {"name": "mitmproxy har_dump", "version": "0.1"},
                    "pages": [], "entries": [page, *entries, icon]}}
