"""`traceview proxy`: what it adds to a call, against calling the simulator directly.

The simulator and each proxy (this checkout's, and each `--other DIR` checkout's, all in
front of the same simulator) run in their own processes; this script is the client on
keep-alive connections, calling direct, then through each proxy, in turn, so drift on a
shared machine hits them alike. Prints added latency per request (p50/p95), added delay
per stream chunk after the first byte, 64 concurrent clients (rate, errors), the proxy
process's CPU per call (read from /proc: its own work, which load does not inflate the
way it inflates percentiles) and its RSS over `--rss-calls` more calls (it must stay flat).
Targets (DESIGN.md): p50 ≤ 1 ms, p95 ≤ 5 ms, chunk ≤ 1 ms, no errors, RSS flat.

    python bench/proxy.py                          # 1,000 calls each, 10,000 for RSS
    python bench/proxy.py --calls 300 --rss-calls 2000 --other /work/prev
    python bench/proxy.py --big 300       # RSS: a 300 MB response, a 1 MB gzip of 1 GB,
                                          # a 200 MB chunked upload, an endless stream
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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
from side import add_arguments, checkouts, table

BODY = b'{"model":"gpt-4.1","input":"Hello there, how are you?","store":false}'
STREAM_BODY = b'{"model":"gpt-4.1","input":"Tell me a story","stream":true,"store":false}'
HEADERS = {"authorization": "Bearer sk-bench-000000000000", "content-type": "application/json"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(python: str, args: list[str], env: dict[str, str], cwd: Path) -> tuple:
    port = _free_port()
    proc = subprocess.Popen([python, "-m", "traceview", *args, "--port", str(port)], cwd=cwd,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"bench/proxy.py: traceview {args[0]} exited early ({proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"http://127.0.0.1:{port}/v1/responses"
        except OSError:
            time.sleep(0.02)
    sys.exit(f"bench/proxy.py: traceview {args[0]} not listening after 30 s")


def _proc_stat(pid: int) -> tuple[float, int]:
    """(CPU seconds used, RSS kB) of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text()
               .splitlines() if line.startswith("VmRSS:"))
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), rss


def _pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


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
    errors, lock = 0, threading.Lock()

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


def _rss_kb(pid: int, field: str = "VmRSS:") -> int:
    """A process's RSS now, or (``VmHWM:``) its peak so far, in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1])
    return 0


def _loop_name() -> str:
    """The event loop uvicorn picks in this environment (`loop="auto"`): uvloop when it
    imports, which the `[proxy]` extra installs."""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio (uvloop not installed: pip install 'traceview[proxy]')"
    return "uvloop"


def _read_request(conn: socket.socket) -> bytes:
    """Read one whole request (closing a socket with unread bytes resets it, and the
    reset can cut the response still in flight); its request line."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return data.split(b"\r\n", 1)[0]
        data += more
    head, body = data.split(b"\r\n\r\n", 1)
    lower = head.lower()
    if b"transfer-encoding: chunked" in lower:
        tail = body[-16:]
        while not tail.endswith(b"0\r\n\r\n"):
            more = conn.recv(1 << 20)
            if not more:
                break
            tail = (tail + more)[-16:]
    else:
        at = lower.find(b"content-length:")
        length = int(lower[at + 15:].split(b"\r\n", 1)[0]) if at >= 0 else 0
        got = len(body)
        while got < length:
            more = conn.recv(1 << 20)
            if not more:
                break
            got += len(more)
    return head.split(b"\r\n", 1)[0]


def _gzip_bomb(size: int) -> bytes:
    """`size` zero bytes, gzipped (1 GB is about 1 MB)."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    return b"".join([*(packer.compress(block) for _ in range(size >> 20)), packer.flush()])


def _bulk_upstream(body_mb: int) -> tuple[int, threading.Event]:
    """A loopback upstream answering /v1/big with ``body_mb`` MB of JSON-ish bytes and
    /v1/endless with an SSE stream that never ends (until stopped)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()
    chunk = b"x" * (1 << 20)

    bomb = _gzip_bomb(1 << 30)

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                first = _read_request(conn)
                if b"/v1/upload" in first:
                    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                                 b"content-length: 2\r\n\r\n{}")
                    return
                if b"/v1/gzip" in first:
                    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                                 b"content-encoding: gzip\r\ncontent-length: %d\r\n\r\n"
                                 % len(bomb) + bomb)
                    return
                if b"/v1/big" in first:
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
                             stderr=open(tmp / "proxy.err", "wb"))  # noqa: SIM115
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
        rss0, t0 = _rss_kb(proxy.pid), time.monotonic()
        with httpx2.Client(timeout=120) as http, http.stream(
                "POST", f"http://127.0.0.1:{proxy_port}/v1/gzip", content=BODY,
                headers=HEADERS) as r:
            got = sum(len(part) for part in r.iter_raw(1 << 20))
        print(f"1 GB as {got / 2**20:.1f} MB of gzip: relayed in {time.monotonic() - t0:.2f} s;"
              f" proxy RSS {rss0 / 1024:.1f} MB before, {_rss_kb(proxy.pid) / 1024:.1f} after")
        rss0, hwm0 = _rss_kb(proxy.pid), _rss_kb(proxy.pid, "VmHWM:")

        def upload() -> Iterator[bytes]:
            block = b"u" * (1 << 20)
            for _ in range(body_mb * 2 // 3):
                yield block

        with httpx2.Client(timeout=600) as http:  # no length: sent chunked
            http.post(f"http://127.0.0.1:{proxy_port}/v1/upload", content=upload(),
                      headers=HEADERS).raise_for_status()
        print(f"{body_mb * 2 // 3} MB chunked upload: proxy RSS {rss0 / 1024:.1f} MB before; "
              f"its peak so far {hwm0 / 1024:.1f} MB before, "
              f"{_rss_kb(proxy.pid, 'VmHWM:') / 1024:.1f} MB after")
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
    except httpx2.HTTPError as exc:
        sys.exit(f"bench/proxy.py: {exc}; the proxy's log: {tmp / 'proxy.err'}")
    finally:
        stop.set()
        proxy.terminate()
        proxy.wait(10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=1000, help="calls per path for latency")
    ap.add_argument("--streams", type=int, default=100, help="streams per path")
    ap.add_argument("--big", type=int, default=0, metavar="MB", help="instead: the proxy's "
                    "RSS relaying one MB-sized response and an endless stream (e.g. 300)")
    ap.add_argument("--big-seconds", type=float, default=20.0, help="how long the endless "
                    "stream is read")
    ap.add_argument("--rss-calls", type=int, default=10_000, help="calls for the RSS check")
    ap.add_argument("--clients", type=int, default=64)
    add_arguments(ap, repeat=1)
    ns = ap.parse_args()
    if ns.big:
        _big_bodies(ns.big, ns.big_seconds)
        return 0
    trees = checkouts(ns.other)
    tmp = Path(tempfile.mkdtemp(prefix="traceview-bench-proxy-"))
    sim, direct = _serve(sys.executable, ["sim", "--quiet"], trees[0].env(), trees[0].root)
    upstream = direct.rsplit("/", 1)[0]
    proxies = [_serve(t.python, ["proxy", "-o", str(tmp / f"{t.label}.jsonl"), "--upstream",
                                 upstream], t.env(), t.root) for t in trees]
    labels = [t.label for t in trees]
    added: dict[str, list[float]] = {x: [] for x in labels}
    chunks: dict[str, list[float]] = {x: [] for x in labels}
    cpu: dict[str, float] = {}
    try:
        with httpx2.Client(timeout=60) as http:
            for _ in range(50):  # warm every path: connections, imports, caches
                _post(http, direct)
                for _, url in proxies:
                    _post(http, url)
            cpu0 = [_proc_stat(p.pid)[0] for p, _ in proxies]
            for _ in range(ns.calls * ns.repeat):
                base = _post(http, direct)
                for label, (_, url) in zip(labels, proxies, strict=True):
                    added[label].append(_post(http, url) - base)
            for label, (p, _), c0 in zip(labels, proxies, cpu0, strict=True):
                cpu[label] = (_proc_stat(p.pid)[0] - c0) / (ns.calls * ns.repeat) * 1000
            for _ in range(ns.streams):
                base_s = _arrivals(http, direct)
                for label, (_, url) in zip(labels, proxies, strict=True):
                    got = _arrivals(http, url)
                    chunks[label].extend(b - a for a, b in zip(base_s[1:], got[1:],
                                                                strict=False))
        per = max(1, 2000 // ns.clients)
        rate_d, err_d = _throughput(direct, ns.clients, per)
        rates = [_throughput(url, ns.clients, per) for _, url in proxies]
        rss: dict[str, list[int]] = {}
        with httpx2.Client(timeout=60) as http:
            for label, (p, url) in zip(labels, proxies, strict=True):
                rss[label] = [_proc_stat(p.pid)[1]]
                for n in range(1, ns.rss_calls + 1):
                    _post(http, url)
                    if n % max(1, ns.rss_calls // 4) == 0:
                        rss[label].append(_proc_stat(p.pid)[1])
    finally:
        for proc, _ in [*proxies, (sim, "")]:
            proc.terminate()
            proc.wait(10)
    print(f"{ns.calls * ns.repeat} calls and {ns.streams} streams per path; direct "
          f"{rate_d:.0f} req/s with {ns.clients} clients ({err_d} errors)")
    table("proxy", [
        ("added per request, p50 (≤ 1 ms)", [f"{statistics.median(added[x]):.2f} ms"
                                             for x in labels]),
        ("added per request, p95 (≤ 5 ms)", [f"{_pct(added[x], 95):.2f} ms" for x in labels]),
        ("stream chunk, p95 (≤ 1 ms)", [f"{_pct(chunks[x], 95):.2f} ms" for x in labels]),
        ("proxy CPU per call", [f"{cpu[x]:.2f} ms" for x in labels]),
        (f"{ns.clients} clients: req/s (÷ direct)",
         [f"{r:.0f} ({r / rate_d:.2f})" for r, _ in rates]),
        (f"{ns.clients} clients: errors", [str(e) for _, e in rates]),
        (f"RSS after warm-up, growth over {ns.rss_calls:,} calls",
         [f"{rss[x][0] / 1024:.0f} MB, {(rss[x][-1] - rss[x][1]) / 1024:+.1f} MB"
          for x in labels]),
    ], labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
