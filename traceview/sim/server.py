"""The simulator on a loopback socket, with fault injection for tests.

In-process use::

    with SimServer() as sim:                     # port 0: a free port
        client = OpenAI(base_url=sim.base_url, api_key="sk-test", max_retries=0)
        sim.inject(status=429, times=1)           # the next request gets a rate limit
        gate = sim.hold()                         # requests wait until gate.set()
"""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from traceview.sim.api import Api, Reply
from traceview.sim.engine import DEFAULT_CONTEXT_WINDOW, Engine
from traceview.sim.latency import LatencyModel
from traceview.sim.org_usage import PREFIX as ORG_PREFIX
from traceview.sim.org_usage import OrgLedger
from traceview.sim.state import DEFAULT_EPOCH, SimError, SimState
from traceview.sim.stores import multipart_body

NO_KEY_MESSAGE = (
    "You didn't provide an API key. You need to provide your API key in an Authorization "
    "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field "
    "(with blank username) if you're accessing the API from your browser and are prompted for "
    "a username and password. You can obtain an API key from "
    "https://platform.openai.com/account/api-keys."
)
FAULT_BODIES = {
    429: SimError(
        429,
        "Rate limit reached for gpt-4.1 in organization org-sim on tokens per min (TPM): "
        "Limit 30000, Used 30000, Requested 1210. Please try again in 2.42s. Visit "
        "https://platform.openai.com/account/rate-limits to learn more.",
        type="tokens", code="rate_limit_exceeded",
    ),
    500: SimError(500, "The server had an error while processing your request. Sorry about that!",
                  type="server_error"),
    503: SimError(503, "The engine is currently overloaded, please try again later.",
                  type="server_error"),
}


class Gate(threading.Event):
    """Holds requests until set; ``arrived`` is set once a held request has come in."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = threading.Event()


@dataclass
class Fault:
    status: int | None
    times: int  # 0: every request from now on
    path: str | None
    hold: threading.Event | None
    message: str | None = None  # the error body's message (a 401 that echoes a key, …)
    kind: str | None = None  # "slow" | "cut" | "malformed" | "endless" (see FAULT_KINDS)
    delay: float = 0.0


# Faults a user can switch on from `traceview sim --fault …` to rehearse their application's
# handling: HTTP errors, a slow answer, a stream cut mid-way, a list page that is not JSON,
# and a listing whose cursor never ends.
FAULT_KINDS = ("slow", "cut", "malformed", "endless")


def parse_fault(spec: str) -> dict[str, object]:
    """``KIND[=ARG][:TIMES][@PATH]`` as keyword arguments for ``SimServer.inject``."""
    rest, _, path = spec.partition("@")
    rest, _, times_s = rest.partition(":")
    kind, _, arg = rest.partition("=")
    try:
        times = int(times_s) if times_s else 1
        if times < 0:
            raise ValueError
    except ValueError:
        raise ValueError(f"--fault {spec}: TIMES must be a whole number ≥ 0") from None
    out: dict[str, object] = {"times": times, "path": path or None}
    if kind.isdigit() and 400 <= int(kind) <= 599:
        out["status"] = int(kind)
    elif kind in FAULT_KINDS:
        out["kind"] = kind
        if kind == "slow":
            try:
                out["delay"] = delay = float(arg or 5)
            except ValueError:
                delay = -1.0
            if not 0 <= delay <= threading.TIMEOUT_MAX:  # nan, below 0, past a wait's range
                raise ValueError(f"--fault {spec}: slow=SECONDS needs a number of seconds ≥ 0")
    else:
        raise ValueError(f"--fault {spec}: KIND must be an HTTP status 400-599 or one of "
                         f"{', '.join(FAULT_KINDS)}")
    return out


RETRY_AFTER_S = 2


class SimServer:
    """A threaded loopback HTTP server around :class:`Api`; a context manager."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        seed: str | None = None,
        frozen_at: int | None = None,
        context_window: int = DEFAULT_CONTEXT_WINDOW,
        log: Any = None,
        latency: LatencyModel | None = None,
        stateless_cache: bool = False,
        stream_gap_ms: float = 0.0,
    ) -> None:
        """``latency`` / ``stateless_cache``: the experiment profile (``traceview ab``
        against the simulator) — simulated timings in a header, and prompt caching of
        requests that resend their transcript. Both off by default. ``stream_gap_ms``:
        a stream's events sent that far apart, as a provider paces its tokens (default
        0: all at once, a burst)."""
        if seed is not None and frozen_at is None:
            frozen_at = DEFAULT_EPOCH
        self.state = SimState(seed=seed, frozen_at=frozen_at)
        engine = Engine(self.state, context_window)
        engine.stateless_cache = stateless_cache
        self.api = Api(self.state, engine, latency)
        # The organization: its Costs/Usage APIs, its projects (sim/org_usage.py).
        self.org = OrgLedger()
        self.log = log
        self.stream_gap = stream_gap_ms / 1000
        self._faults: list[Fault] = []
        self._faults_lock = threading.Lock()
        self._stream_holds: list[tuple[int, Gate]] = []
        self._closing = threading.Event()
        self._request_ids = 0
        self._endless = 0
        self.httpd = _QuietServer((host, port), _handler_for(self))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        address = self.httpd.server_address
        host, port = str(address[0]), address[1]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}/v1"

    # -- fault injection ----------------------------------------------------------
    def inject(
        self,
        status: int | None = None,
        *,
        times: int = 1,
        path: str | None = None,
        hold: threading.Event | None = None,
        message: str | None = None,
        kind: str | None = None,
        delay: float = 0.0,
    ) -> None:
        """The next ``times`` requests (``0``: all of them) whose path starts with ``path``
        fail with ``status`` (its body saying ``message``), wait for ``hold``, or get the
        fault ``kind`` (one of FAULT_KINDS; ``slow`` waits ``delay`` seconds)."""
        if kind is not None and kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}; one of {', '.join(FAULT_KINDS)}")
        with self._faults_lock:
            self._faults.append(Fault(status, times, path, hold, message, kind, delay))

    def hold(self, *, times: int = 1, path: str | None = None) -> Gate:
        """Make the next requests slow: they are answered only once the gate is set."""
        gate = Gate()
        self.inject(None, times=times, path=path, hold=gate)
        return gate

    def hold_stream(self, *, after: int = 1) -> Gate:
        """The next stream sends ``after`` events, then waits for the gate (a stalled model);
        ``gate.arrived`` is set once those events are written."""
        gate = Gate()
        with self._faults_lock:
            self._stream_holds.append((after, gate))
        return gate

    def _take_stream_hold(self) -> tuple[int, Gate] | None:
        with self._faults_lock:
            return self._stream_holds.pop(0) if self._stream_holds else None

    def _take_fault(self, path: str) -> Fault | None:
        with self._faults_lock:
            for fault in self._faults:
                if fault.path is None or path.startswith(fault.path):
                    if fault.times > 0:
                        fault.times -= 1
                        if fault.times <= 0:
                            self._faults.remove(fault)
                    return fault
        return None

    def _wait(self, gate: threading.Event) -> None:
        if isinstance(gate, Gate):
            gate.arrived.set()
        while not gate.is_set() and not self._closing.is_set():
            gate.wait(0.05)

    def next_request_id(self) -> str:
        with self._faults_lock:
            self._request_ids += 1
            n = self._request_ids
        if self.state.ids.seed is None:
            return self.state.ids.new("req")[:36]
        return f"req_{n:032x}"

    # -- lifecycle ------------------------------------------------------------------
    def start(self) -> SimServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                        name="traceview-sim", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self._closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _cut(frames: Any) -> Any:
    """The first two frames of a stream, then the connection drops (no terminal event)."""
    for i, frame in enumerate(frames):
        if i >= 2:
            raise ConnectionResetError("stream cut by the injected fault")
        yield frame


class _QuietServer(ThreadingHTTPServer):
    """A client hanging up (timeouts, abandoned streams) is normal here, not an error."""

    daemon_threads = True
    request_queue_size = 256  # many clients at once (a proxy under test) must not be refused

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def _handler_for(sim: SimServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        server_sim = sim

    return Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: with Nagle on, the body waits for the
    # client's delayed ACK (~40 ms a call for asyncio clients, such as the proxy).
    disable_nagle_algorithm = True
    server_sim: SimServer
    server_version = "traceview-sim"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        if self.server_sim.log is not None:
            print(f"{self.command} {self.path} -> {args[1] if len(args) > 1 else ''}",
                  file=self.server_sim.log, flush=True)

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def _handle(self) -> None:
        sim = self.server_sim
        parts = urlsplit(self.path)
        try:
            length = int(self.headers.get("content-length") or 0)
            if length < 0:
                raise ValueError(length)
        except ValueError:
            self.close_connection = True  # the body's end is unknown: this connection is done
            self._send(Reply(400, SimError(400, "Content-Length is not a byte count.").body))
            return
        raw = self.rfile.read(length) if length else b""
        fault: Fault | None = None
        try:
            fault = sim._take_fault(parts.path)
            if fault is not None and fault.hold is not None:
                sim._wait(fault.hold)
            if fault is not None and fault.kind == "slow":
                sim._closing.wait(fault.delay)
            if fault is not None and fault.status is not None:
                if fault.message is not None:
                    raise SimError(fault.status, fault.message,
                                   type="invalid_request_error" if fault.status < 500
                                   else "server_error")
                raise FAULT_BODIES.get(fault.status) or SimError(
                    fault.status, f"Injected HTTP {fault.status}.", type="server_error")
            if fault is not None and fault.kind == "malformed":
                self._send_raw(200, b"<html>upstream proxy error</html>", "text/html")
                return
            if fault is not None and fault.kind == "endless" and self.command == "GET":
                with sim._faults_lock:
                    sim._endless += 1
                    n = sim._endless
                self._send(Reply(200, {"object": "list", "data": [], "first_id": None,
                                       "last_id": f"item_endless_{n}", "has_more": True}))
                return
            auth = self.headers.get("authorization") or ""
            key = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
            if not key:
                raise SimError(401, NO_KEY_MESSAGE)
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            if (self.headers.get("content-type") or "").startswith("multipart/form-data"):
                body = multipart_body(raw)
            query = parse_qs(parts.query, keep_blank_values=True)
            if parts.path.startswith(ORG_PREFIX):
                reply = sim.org.dispatch(self.command, parts.path, query, key)
            else:
                reply = sim.api.dispatch(self.command, parts.path, query, body)
        except SimError as err:
            reply = Reply(err.status, err.body)
            if err.status == 429:  # what the provider says about its limits on a 429
                reply.headers.update({
                    "retry-after": str(RETRY_AFTER_S),
                    "x-ratelimit-remaining-requests": "0",
                    "x-ratelimit-reset-requests": f"{RETRY_AFTER_S}s"})
        except Exception as exc:  # a simulator bug must still answer like a server
            print(f"traceview sim: internal error on {self.command} {parts.path}: {exc!r}",
                  file=sys.stderr)
            reply = Reply(500, FAULT_BODIES[500].body)
        if fault is not None and fault.kind == "cut" and reply.events is not None:
            reply.events = _cut(reply.events)
        if not parts.path.startswith(ORG_PREFIX):
            reply.headers.update(sim.org.billed_to(self.headers))
        self._send(reply)

    def _send_raw(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _send(self, reply: Reply) -> None:
        sim = self.server_sim
        self.send_response(reply.status)
        self.send_header("x-request-id", sim.next_request_id())
        self.send_header("openai-processing-ms", str(reply.processing_ms))
        self.send_header("openai-version", "2020-10-01")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.events is None:
            payload = json.dumps(reply.body).encode()
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        stall = sim._take_stream_hold()
        try:
            for n, frame in enumerate(reply.events):
                if stall is not None and n == stall[0]:
                    stall[1].arrived.set()
                    sim._wait(stall[1])
                if n == 0:
                    t0 = time.monotonic()  # paced on one timeline: late events do not add up
                elif sim.stream_gap:
                    sim._closing.wait(t0 + n * sim.stream_gap - time.monotonic())
                self.wfile.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
