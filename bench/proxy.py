"""`traceview proxy`: what it adds to a call, against calling the simulator directly.

The simulator and each proxy (this checkout's and each `--other DIR` checkout's) run in
their own processes; this script calls direct, then through each proxy in turn, on
keep-alive connections. Prints added latency per request (p50/p95); per stream chunk (and
per event), inside the proxy its arrival to the send that hands it on (DESIGN.md:
"forwarded within 1 ms of arrival") and at the client its arrival after the first byte
less direct's, for streams sent in a burst and paced `--gap-ms` apart; then `--clients`
concurrent clients (rate, errors), the proxy's CPU per call (and how much of it is on the
relay's path: before the request goes upstream, before the answer goes back) and per
stream (from /proc: load inflates it far less than percentiles) and its RSS over
`--rss-calls` more calls (it must stay flat).

    python bench/proxy.py                          # 1,000 calls each, 10,000 for RSS
    python bench/proxy.py --calls 300 --rss-calls 2000 --other /work/prev
    python bench/proxy.py --big 300  # RSS: 300 MB response, 1 GB gzipped, upload, endless stream
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
import orjson
from side import checkouts, parser, table

BODY = b'{"model":"gpt-4.1","input":"Hello there, how are you?","store":false}'
STREAM_BODY = b'{"model":"gpt-4.1","input":"Tell me a story","stream":true,"store":false}'
HEADERS = {"authorization": "Bearer sk-bench-000000000000", "content-type": "application/json"}

# The simulator; each stdin line sets its stream events' gap in ms (0: a burst), then echoes.
_SIM = """
import sys
from traceview.sim.server import SimServer
sim = SimServer(port=int(sys.argv[-1])).start()
for line in sys.stdin:
    sim.stream_gap = float(line) / 1000
    print(line.strip(), flush=True)
"""

# `traceview proxy ARGS`, each stream chunk timed from its arrival (the recorder's stamp) to
# the return of the ASGI send that hands it on; one list per stream, to TV_BENCH_FWD at exit.
_PROXY = """
import atexit, json, os, sys, time
from traceview.record import proxy as p
streams, events, pump, read_at = [], [], p.RecordingProxy._pump, [0.0]
async def timed_pump(self, response, send):
    ex, got, each = response.extensions.get(getattr(p, "EXCHANGE_EXTENSION", "")), [], []
    if not getattr(ex, "stamped", False):  # not a stream, or a checkout without stamps
        return await pump(self, response, send)
    async def timed(message):
        await send(message)
        if message.get("more_body") and ex.arrived:  # none once past the body cap
            got.append((time.perf_counter() - ex.arrived[-1]) * 1000)
            # each event from the socket read that brought the last bytes in (read_at)
            each.extend([(time.perf_counter() - read_at[0]) * 1000]
                        * message["body"].count(b"\\n\\n"))
    await pump(self, response, timed)
    streams.append(got)
    events.append(each)
p.RecordingProxy._pump = timed_pump
# The proxy thread's CPU (thread_time: waits do not count) on the relay's path, per call:
# client bytes in -> request handed upstream; upstream bytes in -> first body bytes handed
# to the client (all of a plain call's). A checkout without these hooks: nothing measured.
path, mark, cpu = [], {}, time.thread_time
try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as H
    from traceview.record import proxy_server as ps, upstream_io as up
    def hook(cls, name, before):
        orig = getattr(cls, name)
        def hooked(self, *a):
            before(self, *a)
            return orig(self, *a)
        setattr(cls, name, hooked)
    def sent(self):
        if self._held and "in" in mark:
            mark["req"] = cpu() - mark.pop("in")
    def answered(self, data):
        if data and not data.startswith(b"HTTP/") and "up" in mark and "req" in mark:
            path.append((mark.pop("req"), cpu() - mark.pop("up")))
    hook(H, "data_received", lambda self, data: mark.setdefault("in", cpu()))
    hook(ps._HeadJoined, "write", answered)
    try:  # the request is handed upstream when _send returns (upstream_pool.py)
        from traceview.record import upstream_pool as pool
        send = pool._send
        async def timed_send(*a):
            await send(*a)
            if "in" in mark:
                mark["req"] = cpu() - mark.pop("in")
        pool._send = timed_send
        hook(up.UpstreamConnection, "data_received", lambda self, data: (
            mark.setdefault("up", cpu()), read_at.__setitem__(0, time.perf_counter())))
    except ImportError:  # a checkout reading upstream through httpcore2
        hook(up._Stream, "_flush", sent)
        hook(up._Buffered, "data_received", lambda self, data: (
            mark.setdefault("up", cpu()), read_at.__setitem__(0, time.perf_counter())))
except (ImportError, AttributeError):
    pass
if "TV_BENCH_FWD" in os.environ:
    atexit.register(lambda: open(os.environ["TV_BENCH_FWD"], "w").write(
        json.dumps({"streams": streams, "events": events, "path": path})))
from traceview.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _serve(python: str, boot: str, args: list[str], env: dict[str, str], cwd: Path,
           log: Path, **popen: object) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``boot`` on a free port; return once it listens."""
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    proc = subprocess.Popen([python, "-c", boot, *args, "--port", str(port)], cwd=cwd,
                            env=env, stderr=open(log, "wb"), **popen)  # type: ignore[call-overload]  # noqa: SIM115
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"bench/proxy.py: {args[:1]} exited early ({proc.returncode}): see {log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, port
        except OSError:
            time.sleep(0.02)
    sys.exit(f"bench/proxy.py: {args[:1]} not listening after 30 s: see {log}")


def _cpu_s(pid: int) -> float:
    """CPU seconds a process's threads have run, from /proc (in ns, not clock ticks)."""
    tasks = Path(f"/proc/{pid}/task").glob("*/schedstat")
    return sum(int(task.read_text().split()[0]) for task in tasks) / 1e9


def _rss_kb(pid: int, field: str = "VmRSS:") -> int:
    """A process's RSS now, or (``VmHWM:``) its peak so far, in kB."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return next((int(line.split()[1]) for line in lines if line.startswith(field)), 0)


def _spread(values: list[float], most: bool = True) -> str:
    """p50 / p95 (/ max) in ms."""
    if len(values) < 2:
        return "n/a"
    q = statistics.quantiles(values, n=100, method="inclusive")
    return f"{q[49]:.2f} / {q[94]:.2f}" + (f" / {max(values):.2f}" if most else "") + " ms"


def _on_path(path: list[list[float]]) -> str:
    """The proxy's CPU before the request goes on and before the answer goes back."""
    if len(path) < 2:
        return "n/a"
    req, res = (statistics.median(side) * 1000 for side in zip(*path, strict=True))
    return f"{req:.2f} / {res:.2f}"


def _post(http: httpx2.Client, url: str) -> float:
    t = time.perf_counter()
    http.post(url, content=BODY, headers=HEADERS).raise_for_status()
    return (time.perf_counter() - t) * 1000


def _arrivals(http: httpx2.Client, url: str) -> list[float]:
    """Arrival (ms after the first byte) of each SSE event."""
    times: list[float] = []
    with http.stream("POST", url, content=STREAM_BODY, headers=HEADERS) as r:
        buf = b""
        for chunk in r.iter_raw():
            now = time.perf_counter()
            buf += chunk
            if n := buf.count(b"\n\n"):
                times.extend([now] * n)
                buf = buf[buf.rfind(b"\n\n") + 2:]
    return [(t - times[0]) * 1000 for t in times]


def _throughput(url: str, clients: int, per_client: int) -> tuple[float, int]:
    def worker(_: int) -> int:
        errors = 0
        with httpx2.Client(timeout=60) as http:
            for _ in range(per_client):
                try:
                    http.post(url, content=BODY, headers=HEADERS).raise_for_status()
                except httpx2.HTTPError:
                    errors += 1
        return errors

    t = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        errors = sum(pool.map(worker, range(clients)))
    return clients * per_client / (time.perf_counter() - t), errors


def _read_request(conn: socket.socket) -> bytes:
    """Read a whole request (unread bytes reset the socket on close); its request line."""
    data = b""
    while b"\r\n\r\n" not in data and (more := conn.recv(65536)):
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    lower, tail = head.lower(), body[-16:]
    at = lower.find(b"content-length:")
    left = int(lower[at + 15:].split(b"\r\n", 1)[0]) - len(body) if at >= 0 else 0
    chunked = b"transfer-encoding: chunked" in lower
    while (left > 0 or chunked and not tail.endswith(b"0\r\n\r\n")) and (
            more := conn.recv(1 << 20)):
        left, tail = left - len(more), (tail + more)[-16:]
    return head.split(b"\r\n", 1)[0]


def _bulk_upstream(body_mb: int) -> tuple[int, threading.Event]:
    """A loopback upstream for /v1/big (``body_mb`` MB), gzip, upload and endless (SSE)."""
    srv = socket.create_server(("127.0.0.1", 0), backlog=8)
    stop, chunk = threading.Event(), b"x" * (1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 1 GB of zeros, gzipped: about 1 MB
    bomb = b"".join([*(packer.compress(bytes(chunk)) for _ in range(1024)), packer.flush()])

    def serve(conn: socket.socket) -> None:
        ok = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        with conn:
            try:
                first = _read_request(conn)
                if b"/v1/upload" in first:
                    conn.sendall(ok + b"content-length: 2\r\n\r\n{}")
                elif b"/v1/gzip" in first:
                    conn.sendall(ok + b"content-encoding: gzip\r\ncontent-length: %d\r\n\r\n"
                                 % len(bomb) + bomb)
                elif b"/v1/big" in first:
                    conn.sendall(ok + b"content-length: %d\r\n\r\n" % (body_mb << 20))
                    for _ in range(body_mb):
                        conn.sendall(chunk)
                else:
                    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                                 b"transfer-encoding: chunked\r\n\r\n")
                    event = b'data: {"type":"response.output_text.delta","delta":"%s"}\n\n' \
                        % (b"y" * 4000)
                    frame = b"%x\r\n%s\r\n" % (len(event), event)
                    while not stop.is_set():
                        conn.sendall(frame)
            except OSError:
                pass

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return srv.getsockname()[1], stop


def _big_bodies(body_mb: int, seconds: float) -> None:
    """The proxy's RSS while it relays big bodies: it must not grow with them."""
    up_port, stop = _bulk_upstream(body_mb)
    tmp = Path(tempfile.mkdtemp(prefix="traceview-bench-proxy-"))
    proxy, proxy_port = _serve(sys.executable, _PROXY, [
        "proxy", "-o", str(tmp / "big.jsonl"), "--upstream", f"http://127.0.0.1:{up_port}/v1"],
        dict(os.environ), Path.cwd(), tmp / "proxy.err")
    url, pid, http = f"http://127.0.0.1:{proxy_port}/v1", proxy.pid, httpx2.Client(timeout=600)
    try:
        rss0 = peak = _rss_kb(pid)
        with http.stream("POST", f"{url}/big", content=BODY, headers=HEADERS) as r:
            got = 0
            for part in r.iter_raw(1 << 20):
                got, peak = got + len(part), max(peak, _rss_kb(pid))
        print(f"{body_mb} MB response: {got / 2**20:.0f} MB relayed; proxy RSS "
              f"{rss0 / 1024:.1f} MB before, peak {peak / 1024:.1f} MB")
        rss0, t0 = _rss_kb(pid), time.monotonic()
        with http.stream("POST", f"{url}/gzip", content=BODY, headers=HEADERS) as r:
            got = sum(len(part) for part in r.iter_raw(1 << 20))
        print(f"1 GB as {got / 2**20:.1f} MB of gzip: relayed in {time.monotonic() - t0:.2f} s;"
              f" proxy RSS {rss0 / 1024:.1f} MB before, {_rss_kb(pid) / 1024:.1f} after")
        rss0, hwm0 = _rss_kb(pid), _rss_kb(pid, "VmHWM:")
        upload = (b"u" * (1 << 20) for _ in range(body_mb * 2 // 3))  # no length: chunked
        http.post(f"{url}/upload", content=upload, headers=HEADERS).raise_for_status()
        print(f"{body_mb * 2 // 3} MB chunked upload: proxy RSS {rss0 / 1024:.1f} MB before; "
              f"its peak so far {hwm0 / 1024:.1f} MB before, "
              f"{_rss_kb(pid, 'VmHWM:') / 1024:.1f} MB after")
        marks, got, end = [], 0, time.monotonic() + seconds
        with http.stream("POST", f"{url}/endless", content=STREAM_BODY, headers=HEADERS) as r:
            for part in r.iter_raw(1 << 20):
                got += len(part)
                if len(marks) < int(4 * (1 - (end - time.monotonic()) / seconds)):
                    marks.append(_rss_kb(pid))
                if time.monotonic() > end:
                    break
        print(f"endless stream, {seconds:g} s: {got / 2**20:.0f} MB relayed; proxy RSS at each "
              "quarter " + ", ".join(f"{m / 1024:.1f}" for m in marks) + " MB")
    except httpx2.HTTPError as exc:
        sys.exit(f"bench/proxy.py: {exc}; the proxy's log: {tmp / 'proxy.err'}")
    finally:
        http.close()
        stop.set()
        proxy.terminate()
        proxy.wait(10)


def _streams(http: httpx2.Client, direct: str, urls: list[tuple[str, str]], n: int,
             procs: list[tuple[subprocess.Popen[bytes], int]]) -> tuple[dict, dict]:
    """Per proxy, each event's arrival after the first byte less direct's; CPU per stream."""
    chunks: dict[str, list[float]] = {x: [] for x, _ in urls}
    cpu0 = [_cpu_s(p.pid) for p, _ in procs]
    for _ in range(n):
        base = _arrivals(http, direct)
        for label, url in urls:
            got = _arrivals(http, url)
            chunks[label].extend(b - a for a, b in zip(base[1:], got[1:], strict=False))
    return chunks, {x: (_cpu_s(p.pid) - c0) / n * 1000
                    for (x, _), (p, _), c0 in zip(urls, procs, cpu0, strict=True)}


def main() -> int:
    ap = parser(__doc__, repeat=1)
    ap.add_argument("--calls", type=int, default=1000, help="calls per path for latency")
    ap.add_argument("--streams", type=int, default=100, help="streams per path, each case")
    ap.add_argument("--gap-ms", type=float, default=5.0, help="the paced case: the "
                    "simulator's stream events this far apart, as a provider's tokens")
    ap.add_argument("--big", type=int, default=0, metavar="MB", help="instead: the proxy's "
                    "RSS relaying one MB-sized response and an endless stream (e.g. 300)")
    ap.add_argument("--big-seconds", type=float, default=20.0, help="how long the endless "
                    "stream is read")
    ap.add_argument("--rss-calls", type=int, default=10_000, help="calls for the RSS check")
    ap.add_argument("--clients", type=int, default=64)
    ns = ap.parse_args()
    if ns.big:
        _big_bodies(ns.big, ns.big_seconds)
        return 0
    load0, trees = os.getloadavg()[0], checkouts(ns.other)
    tmp = Path(tempfile.mkdtemp(prefix="traceview-bench-proxy-"))
    sim, port = _serve(sys.executable, _SIM, ["sim"], trees[0].env(), trees[0].root,
                       tmp / "sim.err", stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    direct, labels = f"http://127.0.0.1:{port}/v1/responses", [t.label for t in trees]
    procs = [_serve(t.python, _PROXY, ["proxy", "-o", str(tmp / f"{t.label}.jsonl"),
                                       "--upstream", f"http://127.0.0.1:{port}/v1"],
                    t.env(TV_BENCH_FWD=str(tmp / f"{t.label}.fwd")), t.root,
                    tmp / f"{t.label}.err") for t in trees]
    urls = [(x, f"http://127.0.0.1:{pp}/v1/responses") for x, (_, pp) in zip(labels, procs,
                                                                              strict=True)]
    added: dict[str, list[float]] = {x: [] for x in labels}
    try:
        with httpx2.Client(timeout=60) as http:
            for _ in range(50):  # warm every path: connections, imports, caches
                for _, url in [("", direct), *urls]:
                    _post(http, url)
            cpu0 = [_cpu_s(p.pid) for p, _ in procs]
            for _ in range(ns.calls * ns.repeat):
                base = _post(http, direct)
                for label, url in urls:
                    added[label].append(_post(http, url) - base)
            cpu = {x: (_cpu_s(p.pid) - c0) / (ns.calls * ns.repeat) * 1000
                   for x, (p, _), c0 in zip(labels, procs, cpu0, strict=True)}
            burst = _streams(http, direct, urls, ns.streams, procs)
            sim.stdin.write(f"{ns.gap_ms}\n".encode())  # type: ignore[union-attr]
            sim.stdin.flush()  # type: ignore[union-attr]
            sim.stdout.readline()  # type: ignore[union-attr]
            paced = _streams(http, direct, urls, ns.streams, procs)
        per = max(1, 2000 // ns.clients)
        rate_d, err_d = _throughput(direct, ns.clients, per)
        rates = [_throughput(url, ns.clients, per) for _, url in urls]
        rss: dict[str, list[int]] = {x: [] for x in labels}
        with httpx2.Client(timeout=60) as http:
            for (label, url), (p, _) in zip(urls, procs, strict=True):
                for n in range(ns.rss_calls + 1):
                    if n % max(1, ns.rss_calls // 4) == 0:
                        rss[label].append(_rss_kb(p.pid))
                    _post(http, url)
    finally:
        for proc in [p for p, _ in procs] + [sim]:
            proc.send_signal(signal.SIGINT)  # Ctrl-C: the proxy's exit writes TV_BENCH_FWD
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:  # a loaded machine: its figures are in
                proc.kill()
                proc.wait()
    dumps = [orjson.loads((tmp / f"{x}.fwd").read_bytes()) for x in labels]
    halves = ((0, ns.streams), (ns.streams, None))
    inside = [[sum(d["streams"][a:b], []) for d in dumps] for a, b in halves]
    per_event = [[sum(d["events"][a:b], []) for d in dumps] for a, b in halves]
    # the sequential plain calls after the warm-up, as in "added per request"
    on_path = [d["path"][50:50 + ns.calls * ns.repeat] for d in dumps]
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio (no [proxy] extra)"
    print(f"{ns.calls * ns.repeat} calls, {ns.streams} streams per path and case; direct "
          f"{rate_d:.0f} req/s with {ns.clients} clients ({err_d} errors); {loop}; "
          f"load average {load0:.1f} → {os.getloadavg()[0]:.1f}")
    cases = [("burst", burst, inside[0]), (f"paced {ns.gap_ms:g} ms", paced, inside[1])]
    table("proxy", [
        ("added per request, p50/p95 (≤ 1 / ≤ 5 ms)", [_spread(added[x], False) for x in labels]),
        *((f"in proxy, chunk arrival → sent, {c}: p50/p95/max (≤ 1 ms)",
           [_spread(v) for v in ins]) for c, _, ins in cases),
        # per event, from the socket read that brought it: a proxy that hands on all one
        # read brought in one send has fewer, larger chunks than one that sends each event
        # apart (whose later events wait for the earlier sends, after their own stamps)
        *((f"in proxy, per event, socket read → sent, {c}: p50/p95/max",
           [_spread(v) for v in evs]) for c, evs in zip([c for c, _, _ in cases], per_event,
                                                        strict=True)),
        *((f"at client, chunk after 1st byte − direct, {c}: p50/p95",
           [_spread(ch[x], False) for x in labels]) for c, (ch, _), _ in cases),
        ("proxy CPU per call", [f"{cpu[x]:.2f} ms" for x in labels]),
        ("of it on the path, request / response: p50 (ms)", [_on_path(p) for p in on_path]),
        *((f"proxy CPU per stream, {c}", [f"{cs[x]:.2f} ms" for x in labels])
          for c, (_, cs), _ in cases),
        (f"{ns.clients} clients: req/s (÷ direct), errors",
         [f"{r:.0f} ({r / rate_d:.2f}), {e}" for r, e in rates]),
        (f"RSS after warm-up, growth over {ns.rss_calls:,} calls",
         [f"{rss[x][0] / 1024:.0f} MB, {(rss[x][-1] - rss[x][1]) / 1024:+.1f} MB"
          for x in labels]),
    ], labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
