"""`traceview proxy`: what it adds to a call, against calling the simulator directly.

The simulator and the proxy each run in their own process (as in real use: the proxy is
its own process); this script is the client, on keep-alive connections. Prints:

- added latency per request, p50/p95: paired, interleaved calls (direct, proxied, …) so
  drift on a shared machine hits both sides alike;
- added latency per stream chunk: each event's arrival, relative to the first byte, through
  the proxy minus directly (the proxy's cost of forwarding one chunk);
- throughput with 64 concurrent clients (threads), errors counted, vs direct;
- the proxy's RSS after warm-up and after 10,000 requests (it must stay flat);
- the proxy process's CPU per call (from /proc): its own work, which a loaded machine's
  scheduling does not inflate the way it inflates the latency percentiles.

Targets (DESIGN.md): p50 ≤ 1 ms, p95 ≤ 5 ms, chunk ≤ 1 ms, 64 clients no errors, RSS flat.

    python bench/proxy.py                 # 1,000 paired calls, 10,000 for RSS
    python bench/proxy.py --calls 200 --rss-calls 2000
    python bench/proxy.py --big 300       # RSS: a 300 MB response, an endless stream (20 s)
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2

BODY = b'{"model":"gpt-4.1","input":"Hello there, how are you?","store":false}'
STREAM_BODY = b'{"model":"gpt-4.1","input":"Tell me a story","stream":true,"store":false}'
HEADERS = {"authorization": "Bearer sk-bench-000000000000", "content-type": "application/json"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"bench/proxy.py: a server exited early ({proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    sys.exit(f"bench/proxy.py: nothing listening on port {port} after 30 s")


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process has used: its own work, whatever the load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def _timed_post(http: httpx2.Client, url: str) -> float:
    t = time.perf_counter()
    r = http.post(url, content=BODY, headers=HEADERS)
    r.raise_for_status()
    return (time.perf_counter() - t) * 1000


def _stream_arrivals(http: httpx2.Client, url: str) -> list[float]:
    """Arrival time (ms) of each SSE event, from the first byte."""
    times: list[float] = []
    with http.stream("POST", url, content=STREAM_BODY, headers=HEADERS) as r:
        buf = b""
        for chunk in r.iter_raw():
            now = time.perf_counter()
            buf += chunk
            n = buf.count(b"\n\n")
            if n:
                times.extend([now] * n)
                buf = buf[buf.rfind(b"\n\n") + 2:]
    return [(t - times[0]) * 1000 for t in times] if times else []


def _throughput(url: str, clients: int, per_client: int) -> tuple[float, int]:
    errors = 0
    lock = threading.Lock()

    def worker(_: int) -> None:
        nonlocal errors
        with httpx2.Client(timeout=60) as http:
            for _ in range(per_client):
                try:
                    http.post(url, content=BODY, headers=HEADERS).raise_for_status()
                except httpx2.HTTPError:
                    with lock:
                        errors += 1

    t = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(worker, range(clients)))
    return clients * per_client / (time.perf_counter() - t), errors


def _loop_name() -> str:
    """The event loop uvicorn picks in this environment (`loop="auto"`): uvloop when it
    imports, which the `[proxy]` extra installs."""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio (uvloop not installed: pip install 'traceview[proxy]')"
    return "uvloop"


def _bulk_upstream(body_mb: int) -> tuple[int, threading.Event]:
    """A loopback upstream answering /v1/big with ``body_mb`` MB of JSON-ish bytes and
    /v1/endless with an SSE stream that never ends (until stopped)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()
    chunk = b"x" * (1 << 20)

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                head = conn.recv(65536)
                if b"/v1/big" in head.split(b"\r\n", 1)[0]:
                    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                                 b"content-length: %d\r\n\r\n" % (body_mb << 20))
                    for _ in range(body_mb):
                        conn.sendall(chunk)
                    return
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"transfer-encoding: chunked\r\n\r\n")
                event = b'data: {"type":"response.output_text.delta","delta":"' + b"y" * 4000 \
                    + b'"}\n\n'
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
    """The proxy's RSS while it relays one ``body_mb`` MB response and an endless stream
    (read for ``seconds``): it must not grow with the body."""
    up_port, stop = _bulk_upstream(body_mb)
    proxy_port = _free_port()
    tmp = Path(tempfile.mkdtemp(prefix="traceview-bench-proxy-"))
    proxy = subprocess.Popen([sys.executable, "-m", "traceview", "proxy", "--port",
                              str(proxy_port), "-o", str(tmp / "big.jsonl"),
                              "--upstream", f"http://127.0.0.1:{up_port}/v1"],
                             stderr=subprocess.DEVNULL)
    try:
        _wait_listening(proxy_port, proxy)
        rss0 = _rss_kb(proxy.pid)
        peak, got = rss0, 0
        with httpx2.Client(timeout=60) as http, http.stream(
                "POST", f"http://127.0.0.1:{proxy_port}/v1/big", content=BODY,
                headers=HEADERS) as r:
            for part in r.iter_raw(1 << 20):
                got += len(part)
                peak = max(peak, _rss_kb(proxy.pid))
        print(f"{body_mb} MB response: {got / 2**20:.0f} MB relayed; proxy RSS "
              f"{rss0 / 1024:.1f} MB before, peak {peak / 1024:.1f} MB")
        marks, got, end = [], 0, time.monotonic() + seconds
        with httpx2.Client(timeout=60) as http, http.stream(
                "POST", f"http://127.0.0.1:{proxy_port}/v1/endless", content=STREAM_BODY,
                headers=HEADERS) as r:
            for part in r.iter_raw(1 << 20):
                got += len(part)
                if len(marks) < int(4 * (1 - (end - time.monotonic()) / seconds)):
                    marks.append(_rss_kb(proxy.pid))
                if time.monotonic() > end:
                    break
        print(f"endless stream, {seconds:g} s: {got / 2**20:.0f} MB relayed; proxy RSS at each "
              "quarter " + ", ".join(f"{m / 1024:.1f}" for m in marks) + " MB")
    finally:
        stop.set()
        proxy.terminate()
        proxy.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--big", type=int, default=0, metavar="MB", help="instead: the proxy's "
                    "RSS relaying one MB-sized response and an endless stream (e.g. 300)")
    ap.add_argument("--big-seconds", type=float, default=20.0, help="how long the endless "
                    "stream is read")
    ap.add_argument("--calls", type=int, default=1000, help="paired calls for latency")
    ap.add_argument("--streams", type=int, default=100, help="paired streams for chunk delay")
    ap.add_argument("--rss-calls", type=int, default=10_000, help="calls for the RSS check")
    ap.add_argument("--clients", type=int, default=64)
    ns = ap.parse_args()
    if ns.big:
        _big_bodies(ns.big, ns.big_seconds)
        return

    sim_port, proxy_port = _free_port(), _free_port()
    tmp = Path(tempfile.mkdtemp(prefix="traceview-bench-proxy-"))
    py = sys.executable
    sim = subprocess.Popen([py, "-m", "traceview", "sim", "--port", str(sim_port), "--quiet"],
                           stdout=subprocess.DEVNULL)
    proxy = subprocess.Popen([py, "-m", "traceview", "proxy", "--port", str(proxy_port),
                              "-o", str(tmp / "bench.jsonl"),
                              "--upstream", f"http://127.0.0.1:{sim_port}/v1"],
                             stderr=subprocess.DEVNULL)
    try:
        _wait_listening(sim_port, sim)
        _wait_listening(proxy_port, proxy)
        print(f"proxy event loop: {_loop_name()}")
        direct = f"http://127.0.0.1:{sim_port}/v1/responses"
        proxied = f"http://127.0.0.1:{proxy_port}/v1/responses"
        with httpx2.Client(timeout=60) as http:
            for _ in range(50):  # warm both paths (connections, imports, caches)
                _timed_post(http, direct)
                _timed_post(http, proxied)
            d, p = [], []
            cpu0 = _cpu_s(proxy.pid)
            for _ in range(ns.calls):
                d.append(_timed_post(http, direct))
                p.append(_timed_post(http, proxied))
            cpu_per_call = (_cpu_s(proxy.pid) - cpu0) / ns.calls * 1000
            added = [b - a for a, b in zip(d, p, strict=True)]
            print(f"request latency, {ns.calls} paired calls (ms):")
            print(f"  direct   p50 {_pct(d, 50):6.2f}  p95 {_pct(d, 95):6.2f}")
            print(f"  proxied  p50 {_pct(p, 50):6.2f}  p95 {_pct(p, 95):6.2f}")
            print(f"  added    p50 {statistics.median(added):6.2f}  p95 {_pct(added, 95):6.2f}"
                  "   (target p50 <= 1, p95 <= 5)")
            print(f"  proxy process CPU per call {cpu_per_call:6.3f} ms   (its own work: uvicorn, "
                  "relay, records; load-independent)")
            chunk_added: list[float] = []
            events = 0
            for _ in range(ns.streams):
                sd = _stream_arrivals(http, direct.replace("/responses", "/responses"))
                sp = _stream_arrivals(http, proxied)
                events = len(sp)
                chunk_added.extend(b - a for a, b in zip(sd[1:], sp[1:], strict=False))
            print(f"stream chunks, {ns.streams} paired streams of {events} events (ms after the "
                  "first byte, proxied minus direct):")
            print(f"  added    p50 {statistics.median(chunk_added):6.3f}  "
                  f"p95 {_pct(chunk_added, 95):6.3f}   (target <= 1)")
        per = max(1, 2000 // ns.clients)
        rate_d, err_d = _throughput(direct, ns.clients, per)
        cpu0 = _cpu_s(proxy.pid)
        rate_p, err_p = _throughput(proxied, ns.clients, per)
        cpu_64 = (_cpu_s(proxy.pid) - cpu0) / (ns.clients * per) * 1000
        print(f"throughput, {ns.clients} concurrent clients x {per} calls:")
        print(f"  direct   {rate_d:8.0f} req/s  errors {err_d}")
        print(f"  proxied  {rate_p:8.0f} req/s  errors {err_p}   ratio {rate_p / rate_d:.2f}"
              f"   (proxy CPU {cpu_64:.3f} ms per call)")
        rss0 = _rss_kb(proxy.pid)
        with httpx2.Client(timeout=60) as http:
            marks = []
            for n in range(1, ns.rss_calls + 1):
                _timed_post(http, proxied)
                if n % (ns.rss_calls // 4) == 0:
                    marks.append(_rss_kb(proxy.pid))
        print(f"proxy RSS: {rss0 / 1024:.1f} MB after warm-up; after each quarter of "
              f"{ns.rss_calls:,} more calls: "
              + ", ".join(f"{m / 1024:.1f}" for m in marks) + " MB"
              f"   (growth {(marks[-1] - marks[0]) / 1024:+.1f} MB over the last 3/4)")
        size = (tmp / "bench.jsonl").stat().st_size
        print(f"capture written: {size / 1e6:.1f} MB")
    finally:
        for proc in (proxy, sim):
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
