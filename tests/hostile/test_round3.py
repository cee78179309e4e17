"""Issue 31, beyond "never over its input": the owned arm's store, `sql` locked down, CSV
cells that a spreadsheet would run, files that never end, stdout that cannot be written,
and the proxy's small holes (dot segments, a fragment left by kill -9, the self-loop check,
listening beyond loopback)."""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from traceview.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
CLAIMS = SAMPLES / "claims.jsonl"
SECRET = "AbCdEf1234567890XYZabc"


def run(*args: str, stdout: object = subprocess.PIPE, timeout: float = 120,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str((cwd or Path.cwd()) / ".cache")}
    return subprocess.run([sys.executable, "-m", "traceview", *map(str, args)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=timeout, env=env,
                          stdin=subprocess.DEVNULL, cwd=cwd)


# -- 2. the owned arm's store -------------------------------------------------------------

def test_owned_arm_store_is_private_and_masked(tmp_path):
    from traceview.experiment.store import TranscriptStore

    path = tmp_path / "A-store.sqlite"
    store = TranscriptStore(path)
    store.append("c1", ("user", f"my key is sk-proj-{SECRET} ok"),
                 ("assistant", "Bearer tok0123456789abcdefXYZ noted"))
    store.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    rows = sqlite3.connect(path).execute("SELECT content FROM messages").fetchall()
    text = " ".join(r[0] for r in rows)
    assert SECRET not in text and "tok0123456789abcdefXYZ" not in text
    assert "my key is" in text


def test_owned_arm_store_never_through_a_symlink(tmp_path):
    from traceview.experiment.store import TranscriptStore

    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "A-store.sqlite").symlink_to(victim)
    with pytest.raises(OSError):
        TranscriptStore(tmp_path / "A-store.sqlite")
    assert victim.read_text() == "keep"


# -- 4. sql locked down; CSV cells neutralised ----------------------------------------------

@pytest.fixture
def sqlenv(tmp_path):
    pytest.importorskip("duckdb")
    return tmp_path


@pytest.mark.parametrize("query", [
    "SELECT * FROM read_csv('/etc/passwd')",
    "COPY (SELECT 1) TO '{tmp}/leak.csv'",
    "ATTACH '{tmp}/other.duckdb' AS o",
    "SET enable_external_access = true",
    "INSTALL httpfs",
])
def test_sql_cannot_reach_outside_its_tables(capsys, sqlenv, query):
    code = main(["sql", query.format(tmp=sqlenv), str(CLAIMS), "--cache", str(sqlenv / "c")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert not (sqlenv / "leak.csv").exists() and not (sqlenv / "other.duckdb").exists()


def test_sql_unsafe_is_duckdb_as_is(capsys, sqlenv):
    (sqlenv / "x.csv").write_text("a\n41\n")
    code = main(["sql", f"SELECT a + 1 AS b FROM read_csv('{sqlenv}/x.csv')", str(CLAIMS),
                 "--cache", str(sqlenv / "c"), "--unsafe", "--format", "csv"])
    assert code == 0 and capsys.readouterr().out == "b\n42\n"


def test_sql_duckdb_source_views_are_not_run(capsys, sqlenv):
    import duckdb

    db = sqlenv / "evil.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE VIEW turns AS SELECT * FROM read_csv('/etc/passwd')")
    con.execute("CREATE TABLE conversations (x INT)")
    con.execute("CREATE TABLE problems (x INT)")
    con.close()
    code = main(["sql", "SELECT * FROM turns", str(db)])
    err = capsys.readouterr().err
    assert code == 2 and "view" in err and "root:" not in err


def test_sql_concurrent_runs_share_the_cache(sqlenv):
    procs = [subprocess.Popen([sys.executable, "-m", "traceview", "sql",
                               "SELECT count(*) AS n FROM turns", str(CLAIMS),
                               "--cache", str(sqlenv / "c"), "--format", "csv"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [o[1] for o in outs]
    assert all(o[0] == "n\n4\n" for o in outs)


def test_sql_csv_cells_that_would_run_as_formulas_are_neutralised(capsys, sqlenv):
    code = main(["sql", "SELECT '=HYPERLINK(\"x\")' AS \"=a\", '@SUM(1)' AS b, '+1' AS c, "
                 "-5 AS n, 'plain' AS p", str(CLAIMS), "--cache", str(sqlenv / "c"),
                 "--format", "csv"])
    out = capsys.readouterr().out
    assert code == 0
    header, row = list(csv.reader(out.splitlines()))
    assert header[0] == "'=a"
    assert row == ["'=HYPERLINK(\"x\")", "'@SUM(1)", "'+1", "-5", "plain"]


def test_export_csv_cells_that_would_run_as_formulas_are_neutralised(tmp_path):
    pytest.importorskip("pyarrow")
    lines = CLAIMS.read_text().splitlines()
    first = json.loads(lines[0])
    first["body"]["input"] = "=cmd|' /C calc'!A0"
    cap = tmp_path / "f.jsonl"
    cap.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    assert main(["export", str(cap), "--to", "csv", "-o", str(tmp_path / "o")]) in (0, 1)
    for name in ("turns.csv", "conversations.csv", "problems.csv"):
        for row in csv.reader((tmp_path / "o" / name).read_text().splitlines()):
            for cell in row:
                assert not cell.startswith(("=", "+", "@", "\t", "\r")), (name, cell)
                assert not (cell.startswith("-") and not _number(cell)), (name, cell)


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# -- 5. files that never end; stdout that cannot be written --------------------------------

@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("args", [
    ["report", str(CLAIMS), "--pricing", "{fifo}"],
    ["report", str(CLAIMS), "--pricing", "/dev/zero"],
    ["diff", str(CLAIMS), "--items", "{fifo}"],
    ["diff", str(CLAIMS), "--items", "/dev/zero"],
    ["fidelity", str(CLAIMS), "--items", "{fifo}"],
    ["hydrate", "{fifo}", "-o", "{tmp}/out.jsonl", "--base-url", "http://127.0.0.1:9/v1"],
    ["sql", "SELECT 1", "{fifo}", "--cache", "{tmp}/c"],
    ["compare", str(CLAIMS), str(CLAIMS), "--pricing", "/dev/zero"],
])
def test_a_file_that_never_ends_is_refused_with_a_message(tmp_path, fifo, args):
    proc = run(*[a.format(fifo=fifo, tmp=tmp_path) for a in args], timeout=60, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "regular file" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [
    ["report", str(CLAIMS), "--format", "json"],
    ["report", str(CLAIMS)],
    ["diff", str(CLAIMS), "--items", str(SAMPLES / "claims.snapshot.json"), "--format", "json"],
    ["fidelity", str(CLAIMS)],
    ["compare", str(CLAIMS), str(CLAIMS)],
    ["--help"],  # argparse swallows a failed write of its help: said and exit 1 here
    ["report", "--help"],
])
def test_a_full_stdout_ends_quietly_with_a_message(tmp_path, args):
    with open("/dev/full", "w") as full:
        proc = run(*args, stdout=full, cwd=tmp_path)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    assert "cannot write" in proc.stderr


def test_a_closed_stdout_ends_quietly(tmp_path):
    big = tmp_path / "big.jsonl"
    big.write_text(CLAIMS.read_text() * 200)
    p = subprocess.Popen([sys.executable, "-m", "traceview", "report", str(big), "--format",
                          "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode() if p.stderr else ""
    p.wait(timeout=120)
    assert "Traceback" not in err and "Exception ignored" not in err


# -- 3. the proxy's small holes -------------------------------------------------------------

def test_dot_segments_never_leave_the_upstream_base_path():
    from traceview.record.upstream import upstream_url

    assert upstream_url("http://h/base/v1", "/v1/../../echo", b"") == "http://h/base/v1/echo"
    assert upstream_url("http://h/base/v1", "/v1/%2e%2e/%2E%2E/x", b"") == "http://h/base/v1/x"
    assert upstream_url("http://h/v1", "/v1/./responses", b"") == "http://h/v1/responses"


def test_a_restart_never_merges_into_a_fragment(tmp_path):
    from traceview.record.writer import CaptureWriter

    cap = tmp_path / "c.jsonl"
    cap.write_bytes(b'{"dir":"req","body":{"model":"x"}}\n{"dir":"res","bo')  # kill -9 mid-line
    with CaptureWriter(cap) as w:
        w.write({"dir": "req", "body": {"model": "y"}})
    lines = cap.read_bytes().split(b"\n")
    assert lines[1] == b'{"dir":"res","bo'
    assert json.loads(lines[2])["body"]["model"] == "y"


def test_wildcard_listen_cannot_loop_to_itself():
    from traceview.commands.proxy import _same_endpoint

    assert _same_endpoint("http://127.0.0.1:8080/v1", "0.0.0.0", 8080)
    assert _same_endpoint("http://localhost:8080/v1", "0.0.0.0", 8080)
    assert _same_endpoint("http://localhost:8080/v1", "127.0.0.1", 8080)
    assert _same_endpoint("http://127.0.0.2:8080/v1", "127.0.0.1", 8080)
    assert not _same_endpoint("http://127.0.0.1:8081/v1", "0.0.0.0", 8080)


def test_listening_beyond_loopback_warns(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "traceview", "proxy", "-o",
                          str(tmp_path / "c.jsonl"), "--host", "0.0.0.0", "--port", "0",
                          "--upstream", "http://127.0.0.1:9/v1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stderr is not None
        first = p.stderr.readline()
    finally:
        p.terminate()
        p.wait(timeout=30)
    assert "warning" in first and "beyond loopback" in first


# -- 5. a provider that sends one byte every quarter second --------------------------------

TRICKLE_S = 0.25  # seconds between the trickle's bytes


@pytest.fixture
def trickle():
    """A loopback server that answers every request with headers, then one byte every
    quarter second (TRICKLE_S): each read ends well inside any per-read timeout."""
    import socket
    import threading

    from tests.loopback import serve_each

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 100000\r\n\r\n")
                while not stop.wait(TRICKLE_S):
                    conn.sendall(b" ")
            except OSError:
                pass

    serve_each(srv, serve, stop)
    yield f"http://127.0.0.1:{srv.getsockname()[1]}/v1"
    stop.set()
    srv.close()


@pytest.mark.parametrize("args", [
    ["hydrate", "resp_abc12345678", "-o", "{tmp}/h.jsonl"],
    ["diff", str(CLAIMS), "--live"],
])
def test_a_slow_provider_is_bounded_by_timeout(tmp_path, trickle, args):
    # The trickle never finishes its body (one byte every 0.25 s of 100,000), so a command
    # bounded only per read (1 s, four times the gap) would run into the hang guard below:
    # ending on its own is the check.
    env_args = [a.format(tmp=tmp_path) for a in args]
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-0000000000000000000000"}
    proc = subprocess.run([sys.executable, "-m", "traceview", *env_args, "--base-url", trickle,
                           "--timeout", "1", "--max-retries", "0"], capture_output=True,
                          text=True, timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "timed out" in proc.stderr, proc.stderr


# -- 3. a body larger than the record keeps ------------------------------------------------

@pytest.mark.parametrize("gzipped", [False, True])
def test_a_huge_body_is_relayed_whole_and_recorded_as_its_size(tmp_path, monkeypatch, gzipped):
    import gzip

    import httpx2

    from traceview.record import transport
    from traceview.record.recorder import Recorder

    monkeypatch.setattr(transport, "BODY_CAP", 1 << 20)
    body = b"x" * (3 << 20)
    payload = gzip.compress(body) if gzipped else body
    headers = {"content-type": "application/json"}
    if gzipped:
        headers["content-encoding"] = "gzip"

    def handler(request: httpx2.Request) -> httpx2.Response:
        chunks = (payload[i:i + 65536] for i in range(0, len(payload), 65536))
        return httpx2.Response(200, headers=headers, content=chunks)

    cap = tmp_path / "c.jsonl"
    recorder = Recorder(cap)
    client = httpx2.Client(transport=transport.RecordingTransport(
        recorder, inner=httpx2.MockTransport(handler)))
    got = client.post("http://up/v1/x", json={"a": 1}).content
    client.close()
    recorder.close()
    assert got == body
    res = [json.loads(x) for x in cap.read_text().splitlines()][-1]
    assert res["body"]["not_kept"] and res["body"]["bytes"] == len(payload)


# -- 3. bodies nested deeper than a record can be walked -----------------------------------

def test_deep_bodies_are_recorded_as_a_problem_never_an_error(tmp_path):
    from traceview.record.recorder import Recorder

    deep = b'{"input":' + b"[" * 5000 + b"]" * 5000 + b"}"
    cap = tmp_path / "c.jsonl"
    rec = Recorder(cap, strict=True)
    link = rec.request("POST", "/v1/responses", deep, "application/json", len(deep))
    rec.response(link, status_code=200, elapsed_ms=1, raw=b'{"a":' + b"[" * 990 + b"]" * 990
                 + b"}", content_type="application/json", headers={}, stream=False)
    rec.close()
    lines = [json.loads(x) for x in cap.read_text().splitlines()]
    assert [r["dir"] for r in lines] == ["req", "res"]
    for r in lines:
        assert r["body"] is not None


# -- 3. idle and half-sent connections -------------------------------------------------------

@pytest.mark.parametrize("sent", [b"", b"POST /v1/responses HTTP/1.1\r\nHost: x\r\n"])
def test_idle_and_half_sent_connections_are_closed(tmp_path, monkeypatch, sent):
    import socket

    from traceview.record import proxy_server

    monkeypatch.setattr(proxy_server, "HEAD_TIMEOUT_S", 0.5)
    with proxy_server.ProxyServer(tmp_path / "c.jsonl", upstream="http://127.0.0.1:9/v1") as p:
        host, port = p.sock.getsockname()[:2]
        with socket.create_connection((host, port), timeout=10) as conn:
            conn.sendall(sent)
            assert conn.recv(100) == b""  # closed by the proxy, long before the 10 s


def test_upstream_closing_mid_body_leaves_no_traceback(tmp_path, capfd):
    import socket
    import threading

    from traceview.record.proxy_server import ProxyServer

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)

    def upstream() -> None:
        conn, _ = srv.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                         b"content-length: 1000\r\n\r\n{\"a\":")

    threading.Thread(target=upstream, daemon=True).start()
    up = f"http://127.0.0.1:{srv.getsockname()[1]}/v1"
    with ProxyServer(tmp_path / "c.jsonl", upstream=up) as p:
        host, port = p.sock.getsockname()[:2]
        with socket.create_connection((host, port), timeout=10) as conn:
            conn.sendall(b"POST /v1/responses HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\n\r\n{}")
            got = b""  # read until the cut body has arrived or the proxy closed
            while not got.endswith(b'{"a":') and (chunk := conn.recv(4096)):
                got += chunk
    srv.close()
    assert got.endswith(b'{"a":')
    assert "Traceback" not in capfd.readouterr().err
    res = [json.loads(x) for x in (tmp_path / "c.jsonl").read_text().splitlines()][-1]
    # The peer closing mid-body reads as a protocol error or a read error, by timing.
    assert res["error"]["type"] in ("RemoteProtocolError", "ReadError")


@pytest.mark.parametrize("to", ["parquet", "csv", "duckdb"])
def test_export_from_a_device_is_refused_and_writes_nothing(tmp_path, to):
    out = tmp_path / "out"
    proc = run("export", "/dev/zero", "--to", to, "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == ("traceview export: /dev/zero: is a device, not a capture "
                                   "file (give a file, a directory, or - for a pipe)")
    assert list(tmp_path.iterdir()) == []
