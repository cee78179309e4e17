"""A loopback stand-in for the provider's listing endpoints, reached through the real SDK.

Tests give it either a store of conversations (served with the provider's real paging
rules: ``order``, ``limit``, ``after``, ``has_more``, ``last_id``) or their own route
function for odd behaviour. Every request is recorded so tests can assert the exact query
strings the SDK sent.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    query: str
    authorization: str | None

    @property
    def params(self) -> dict[str, list[str]]:
        return parse_qs(self.query, keep_blank_values=True)


Reply = tuple[int, Any]  # (status, JSON-able body | bytes)
Route = Callable[[Seen], Reply]


INCLUDE_GATED = {
    "file_search_call": ("results", "file_search_call.results"),
    "code_interpreter_call": ("outputs", "code_interpreter_call.outputs"),
}


def present(item: dict[str, Any], include: list[str]) -> dict[str, Any]:
    """What the provider lists for ``item``: include-gated fields null unless asked for."""
    out = copy.deepcopy(item)
    gated = INCLUDE_GATED.get(out.get("type", ""))
    if gated and gated[1] not in include:
        out[gated[0]] = None
    return out


@dataclass
class Store:
    """Conversations and responses served with the provider's paging rules."""

    conversations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    responses: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> {input, output}
    # Called after each page is served: lets a test change the conversation between pages.
    after_page: Callable[[str, int], None] | None = None
    pages_served: int = 0
    key: str = "test"

    def route(self, seen: Seen) -> Reply:
        parts = seen.path.strip("/").split("/")
        if seen.authorization != f"Bearer {self.key}":
            return 401, {"error": {"message": "Incorrect API key provided: sk-te****st",
                                   "type": "invalid_request_error", "code": "invalid_api_key"}}
        if parts[:2] == ["v1", "conversations"] and len(parts) == 4 and parts[3] == "items":
            items = self.conversations.get(parts[2])
            if items is None:
                return 404, {"error": {"message": f"Conversation with id '{parts[2]}' not found.",
                                       "type": "invalid_request_error", "code": None}}
            return self._page(items, seen, parts[2], cursor="last_id")
        if parts[:2] == ["v1", "responses"] and len(parts) == 4 and parts[3] == "input_items":
            resp = self.responses.get(parts[2])
            if resp is None:
                return 404, {"error": {"message": "Response not found."}}
            return self._page(resp["input"], seen, parts[2], cursor="data")
        if parts[:2] == ["v1", "responses"] and len(parts) == 3:
            resp = self.responses.get(parts[2])
            if resp is None:
                return 404, {"error": {"message": "Response not found."}}
            include = seen.params.get("include[]", [])
            return 200, {"id": parts[2], "object": "response", "status": "completed",
                         "output": [present(i, include) for i in resp["output"]]}
        return 404, {"error": {"message": "no such route"}}

    def _page(self, items: list[dict[str, Any]], seen: Seen, key: str, cursor: str) -> Reply:
        p = seen.params
        include = p.get("include[]", [])
        limit = int(p.get("limit", ["20"])[0])
        ordered = items if p.get("order", ["desc"])[0] == "asc" else list(reversed(items))
        start = 0
        if "after" in p:
            ids = [i.get("id") for i in ordered]
            if p["after"][0] not in ids:
                return 400, {"error": {"message": "Invalid 'after': no such item."}}
            start = ids.index(p["after"][0]) + 1
        chunk = ordered[start:start + limit]
        body = {
            "object": "list",
            "data": [present(i, include) for i in chunk],
            "first_id": chunk[0]["id"] if chunk else None,
            "last_id": chunk[-1]["id"] if chunk else None,
            "has_more": start + limit < len(ordered),
        }
        if cursor == "data":
            body["last_id"] = "IGNORED_BY_THE_SDK"
        self.pages_served += 1
        if self.after_page:
            self.after_page(key, self.pages_served)
        return 200, body


class FakeProvider:
    """``with FakeProvider(route) as fp: fp.base_url`` — a threaded loopback HTTP server."""

    def __init__(self, route: Route) -> None:
        self.route = route
        self.seen: list[Seen] = []
        self.release = threading.Event()  # set on exit: frees handlers that hold a request
        self.arrived = threading.Event()  # set when any request arrives
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                parts = urlsplit(self.path)
                seen = Seen("GET", parts.path, parts.query, self.headers.get("Authorization"))
                outer.seen.append(seen)
                outer.arrived.set()
                status, body = outer.route(seen)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if status >= 400:  # keep SDK retries (when a test enables them) quick
                        self.send_header("retry-after-ms", "5")
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def queries(self) -> list[str]:
        return [s.query for s in self.seen]


def closed_port_url() -> str:
    """A loopback URL on which nothing listens (the port was bound, then released)."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/v1"
