"""The verification pass of issue 31 on a later main: what still failed, each reproduced
through the real CLI (or the screen a user drives) and pinned fixed — a hard link that let
`ab --resume` cut a file elsewhere, the inspector's `E` writing over the capture and
writing formula cells, files read whole however large (`--pricing`, the config file, a
saved bill, an ids file), a copy of the bundled pricing table refused, `hydrate` advising
a `--force` it did not have, and a `.duckdb` source's macros answering for built-ins."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

import pytest
from textual.widgets import Input

from tests.hostile.corpus import assert_no_traceback, traceview
from traceview.experiment.manifest import ManifestError, cut_to
from traceview.ui.app import make_app

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "sample_traces" / "claims.jsonl"
BUNDLED_PRICING = ROOT / "traceview" / "analysis" / "pricing.json"


def _sparse(path: Path, size: int = 2 << 30) -> Path:
    """A file of `size` bytes that costs no disk: read whole, it costs `size` of memory."""
    with open(path, "wb") as f:
        f.truncate(size)
    return path


# `ab --resume` cuts its outputs to the lengths its manifest recorded; an output that was a
# hard link to a capture elsewhere passed the symlink check, and the capture was cut.
def test_resume_never_cuts_a_hard_linked_file(tmp_path: Path) -> None:
    run = tmp_path / "results"
    run.mkdir()
    victim = tmp_path / "prod.jsonl"
    shutil.copy(CLAIMS, victim)
    os.link(victim, run / "A.jsonl")
    with pytest.raises(ManifestError, match="hard link"):
        cut_to(run, {"A.jsonl": 100})
    assert victim.read_bytes() == CLAIMS.read_bytes()


def test_resume_still_cuts_its_own_file(tmp_path: Path) -> None:
    run = tmp_path / "results"
    run.mkdir()
    (run / "A.jsonl").write_bytes(b"x" * 300)
    assert cut_to(run, {"A.jsonl": 100}) == 200
    assert (run / "A.jsonl").stat().st_size == 100


# A file read whole, however large: a sparse 2 GiB file as --pricing ran the process out of
# memory (2.1 GB RSS, then SIGSEGV under a 4 GB limit); so did $TRACEVIEW_CONFIG and a
# saved bill given to `reconcile --costs`.
@pytest.mark.parametrize("args, env, limit", [
    (["report", str(CLAIMS), "--pricing", "{big}"], {}, b"larger than 16 MiB"),
    (["report", str(CLAIMS)], {"TRACEVIEW_CONFIG": "{big}"}, b"larger than 1 MiB"),
    (["reconcile", str(CLAIMS), "--costs", "{big}"], {}, b"larger than 64 MiB"),
], ids=["pricing", "config", "saved bill"])
def test_a_huge_settings_file_is_refused_unread(tmp_path: Path, args: list[str],
                                                 env: dict[str, str], limit: bytes) -> None:
    big = str(_sparse(tmp_path / "big.json"))
    out = traceview(*[a.format(big=big) for a in args], timeout=60,
                    **({"env": {k: v.format(big=big) for k, v in env.items()}} if env else {}))
    assert_no_traceback(out)
    assert out.returncode == 2 and limit in out.stderr


# The pricing table users are told to copy and edit: the bundled one, verbatim, was refused
# ('hosted_tools["taken"] must be an object, not str').
def test_a_copy_of_the_bundled_pricing_table_is_accepted(tmp_path: Path) -> None:
    table = json.loads(BUNDLED_PRICING.read_text())
    table["models"]["gpt-4.1"]["input"] = 4.0  # an edit, as a user makes one
    (tmp_path / "p.json").write_text(json.dumps(table))
    out = traceview("report", str(CLAIMS), "--pricing", str(tmp_path / "p.json"))
    assert out.returncode == 0, out.stderr
    table["hosted_tools"]["web_search"] = "free"  # an entry that is not a fee still is not
    (tmp_path / "p.json").write_text(json.dumps(table))
    out = traceview("report", str(CLAIMS), "--pricing", str(tmp_path / "p.json"))
    assert out.returncode == 2 and b'hosted_tools["web_search"]' in out.stderr


# An ids file may be a service's whole log: it was read whole into one string.
def test_ids_are_found_in_a_stream_read_a_chunk_at_a_time(monkeypatch) -> None:
    from traceview.provider import hydrate

    monkeypatch.setattr(hydrate, "IDS_CHUNK", 7)  # every id crosses a chunk's end
    text = ("log resp_abcdefgh1 x,resp_ZZZZZZZZ9\néresp_notanid12 resp_short "
            + "w" * 3000 + "resp_insideaword1 resp_12345678")
    assert hydrate._ids_in(io.StringIO(text)) == hydrate.RESPONSE_ID.findall(text) == [
        "resp_abcdefgh1", "resp_ZZZZZZZZ9", "resp_12345678"]


# `hydrate -o` refused an existing file with "pass --force to replace it", and --force was
# then an unknown argument (exit 2 from argparse).
def test_hydrate_offers_the_force_it_advises(tmp_path: Path) -> None:
    out_file = tmp_path / "h.jsonl"
    out_file.write_text("mine\n")
    out = traceview("hydrate", "resp_abcdefgh12345678", "-o", str(out_file), timeout=60,
                    env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert out.returncode == 2 and b"pass --force" in out.stderr
    out = traceview("hydrate", "resp_abcdefgh12345678", "-o", str(out_file), "--force",
                    "--max-retries", "0", "--timeout", "2", timeout=60,
                    env={"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert b"unrecognized arguments" not in out.stderr and b"already exists" not in out.stderr
    assert out_file.read_text() == "mine\n"  # nothing rebuilt: nothing written


# A `.duckdb` source's views were refused, its macros were not: one named `upper` answered
# every `upper(...)` in the user's query.
def test_a_database_source_macros_are_not_run(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    db = tmp_path / "shared.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE turns AS SELECT 'gpt-4.1' AS model")
    con.execute("CREATE MACRO upper(x) AS 'forged'")
    con.close()
    out = traceview("sql", "SELECT upper(model) AS m FROM turns", str(db), "--format", "csv")
    assert out.returncode == 2 and b"forged" not in out.stdout
    assert b"macro 'upper'" in out.stderr
    out = traceview("sql", "SELECT upper(model) AS m FROM turns", str(db), "--format", "csv",
                    "--unsafe")
    assert out.returncode == 0 and b"forged" in out.stdout


def _formula_capture(tmp_path: Path) -> Path:
    lines = CLAIMS.read_text().splitlines()
    out = []
    for line in lines:
        rec = json.loads(line)
        body = rec.get("body")
        if rec.get("dir") == "req" and isinstance(body, dict) and "input" in body:
            body["input"] = '=HYPERLINK("http://x","y")'
        out.append(json.dumps(rec))
    cap = tmp_path / "f.jsonl"
    cap.write_text("\n".join(out) + "\n")
    return cap


async def _export(app, pilot, path: Path) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("E")
    await pilot.pause()
    app.screen.query_one("#path-input", Input).value = str(path)
    await pilot.press("enter")
    await pilot.pause()


# The inspector's `E` wrote `=…` cells as they were (export and sql neutralise them), and
# wrote over whatever path was typed — the capture itself included.
async def test_capital_e_neutralises_formulas_and_never_writes_over_the_capture(
        tmp_path: Path) -> None:
    cap = _formula_capture(tmp_path)
    before = cap.read_bytes()
    app = make_app([str(cap)], screenshot_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await _export(app, pilot, tmp_path / "t.csv")
        link = tmp_path / "link.csv"
        link.symlink_to(cap)
        await _export(app, pilot, link)
        await _export(app, pilot, cap)
    rows = list(csv.DictReader((tmp_path / "t.csv").open(encoding="utf-8")))
    assert rows and {r["user"] for r in rows} <= {"'=HYPERLINK(\"http://x\",\"y\")", ""}
    assert any(r["user"] for r in rows) and rows[0]["sent"].isdigit()
    assert cap.read_bytes() == before


# A request whose head arrived whole and whose body then stopped (Content-Length 1000, five
# bytes sent; or a chunked body with no last chunk) held its connection and the upstream's
# for ever: the head deadline ended at the head, and `--timeout` never starts.
@pytest.mark.parametrize("sent", [
    b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"a\":",
    b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n",
])
def test_a_body_that_stops_arriving_is_closed(tmp_path: Path, monkeypatch, sent: bytes) -> None:
    import socket

    from traceview.record import proxy_server

    monkeypatch.setattr(proxy_server, "BODY_GAP_S", 0.5, raising=False)
    up = socket.socket()  # an upstream that accepts and waits, as a real one may
    up.bind(("127.0.0.1", 0))
    up.listen(4)
    with up, proxy_server.ProxyServer(
            tmp_path / "c.jsonl", upstream=f"http://127.0.0.1:{up.getsockname()[1]}/v1") as p:
        host, port = p.sock.getsockname()[:2]
        with socket.create_connection((host, port), timeout=10) as conn:
            conn.sendall(sent)
            got = b""
            while chunk := conn.recv(4096):  # closed by the proxy, long before the 10 s
                got += chunk
        assert not got.startswith(b"HTTP/1.1 200")


# Two proxies whose upstreams point at each other (a second proxy's OPENAI_BASE_URL left
# on the first): the self-address check at start sees neither, and one call went round
# until the descriptors ran out — 2,446 records in 25 s.
def test_a_loop_of_two_proxies_ends_at_the_first_return(tmp_path: Path) -> None:
    import http.client
    import socket

    from traceview.record.proxy_server import ProxyServer

    spare = socket.socket()
    spare.bind(("127.0.0.1", 0))
    port_a = spare.getsockname()[1]
    spare.close()
    with ProxyServer(tmp_path / "b.jsonl", upstream=f"http://127.0.0.1:{port_a}/v1") as b:
        port_b = b.sock.getsockname()[1]
        with ProxyServer(tmp_path / "a.jsonl", upstream=f"http://127.0.0.1:{port_b}/v1",
                         port=port_a):
            conn = http.client.HTTPConnection("127.0.0.1", port_a, timeout=10)
            conn.request("POST", "/v1/responses", body=b'{"a": 1}',
                         headers={"Content-Type": "application/json"})
            got = conn.getresponse()
            status, content = got.status, got.read()
            conn.close()
    assert status == 508 and b"loop of proxies" in content
    for name in ("a.jsonl", "b.jsonl"):
        lines = (tmp_path / name).read_text().splitlines()
        assert len(lines) == 2, (name, len(lines))  # one exchange each, the 508 relayed


# OTLP spans exported into the folder of captures they came from were read back by the next
# `report` of that folder as a second copy of every turn: 7 turns became 14, no problem said.
def test_an_export_is_never_written_where_its_folder_reads_it_back(tmp_path: Path) -> None:
    caps = tmp_path / "caps"
    (caps / "deep").mkdir(parents=True)
    shutil.copy(CLAIMS, caps / "claims.jsonl")
    for out in (caps / "spans.json", caps / "deep" / "spans.JSON"):
        got = traceview("export", str(caps), "--to", "otlp", str(out))
        assert got.returncode == 2 and b"directory read as captures" in got.stderr
        assert not out.exists()
    got = traceview("export", str(caps), "--to", "otlp", str(tmp_path / "spans.json"))
    assert got.returncode == 0, got.stderr
