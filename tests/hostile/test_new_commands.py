"""Attack pass on the new commands: ab, compare, fidelity, export, sql, proxy, hydrate and the
importers (HAR, Batch, OTLP) — hostile text, keys, wrong types, bad files, bad flags.

Every case asserts what a user relies on through the CLI: nothing from a capture reaches the
terminal or a written file as a control character, no key the redactor knows is written,
no traceback, and the documented exit status. The sanitiser and the redactor themselves are
tested by issue #9's suite; here a key shape counts only once ``redact_text`` masks it, so
these tests check that every new output path *routes through* the one redactor (and grow
stricter by themselves as it learns shapes).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.fixtures_shared import ROOT, SAMPLES, run_cli
from traceview.analysis.pricing import Pricing, PricingError
from traceview.analysis.session import analyze
from traceview.cli import main
from traceview.safety.redact import redact_text

FORMATS = ROOT / "tests" / "fixtures" / "formats"

ESCAPES = ("\x1b]52;c;ZXZpbA==\x07\x1b]2;pwned\x07\x1b[31m\x9b2J\x85\x07\u202e\u200b\u2066"
           "[bold red]x[/]")
KEYS = ("sk-proj-AbCdEf1234567890XYZabc", "Bearer tok0123456789abcdefXYZ",
        "AIzaSyA1234567890abcdefghijklmnopqrstu", "?api_key=qsecret0123456789")
SUFFIX = ESCAPES + " " + " ".join(KEYS)
# The secret part of each key: what must never be written once the redactor knows the shape.
SECRETS = {"sk-proj-AbCdEf1234567890XYZabc": "AbCdEf1234567890XYZabc",
           "Bearer tok0123456789abcdefXYZ": "tok0123456789abcdefXYZ",
           "AIzaSyA1234567890abcdefghijklmnopqrstu": "AIzaSyA1234567890abcdefghijklmnopqrstu",
           "?api_key=qsecret0123456789": "qsecret0123456789"}
KNOWN = [s for k, s in SECRETS.items() if s not in redact_text(k)]
STRUCTURAL = {"dir", "endpoint", "type", "role", "object", "method", "url", "mimeType"}
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069"
                         "\ufeff]")
FILE_ESC = "\x1b]2;x\x07"


def taint(value: Any) -> Any:
    """Every string field (but the few that give a record its shape) gets escapes and keys."""
    if isinstance(value, dict):
        return {k: (v if k in STRUCTURAL else taint(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [taint(v) for v in value]
    return value + SUFFIX if isinstance(value, str) else value


def write_tainted(src: Path, dst: Path) -> Path:
    text = src.read_text("utf-8")
    if src.suffix == ".jsonl":
        lines = [json.dumps(taint(json.loads(x))) for x in text.splitlines() if x.strip()]
        dst.write_text("\n".join(lines) + "\n", "utf-8")
    else:
        dst.write_text(json.dumps(taint(json.loads(text))), "utf-8")
    return dst


def assert_clean(text: str, where: str) -> None:
    m = RAW_CONTROL.search(text)
    assert m is None, f"{where}: raw {m.group()!r} near {text[max(0, m.start() - 40):m.end()]!r}"
    for secret in KNOWN:
        assert secret not in text, f"{where}: key {secret[:6]}… written"
    assert "Traceback" not in text, f"{where}: {text[-800:]}"


def tv(*args: str, cwd: Path,
       env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line (main(), in this process); stdout and stderr checked for leaks."""
    full_env = {"TEXTUAL_ANIMATIONS": "none", "COLUMNS": "120",
                "XDG_CACHE_HOME": str(cwd / ".cache"), **(env or {})}
    done = run_cli(*args, env=full_env, cwd=cwd)
    proc = subprocess.CompletedProcess(done.args, done.returncode,
                                       done.stdout.decode("utf-8", "replace"),
                                       done.stderr.decode("utf-8", "replace"))
    assert_clean(proc.stdout, f"{args[0]} stdout")
    assert_clean(proc.stderr, f"{args[0]} stderr")
    return proc


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The same entry point in this process (fast, for the many error-path cases)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    assert_clean(out, f"{args[0]} stdout")
    assert_clean(err, f"{args[0]} stderr")
    return code, out, err


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Hostile captures and foreign files, named with ESC/OSC in the file name too."""
    d = tmp_path_factory.mktemp("hostile")
    files = {
        "claims": write_tainted(SAMPLES / "claims.jsonl", d / f"claims{FILE_ESC}.jsonl"),
        "service": write_tainted(SAMPLES / "service_day.jsonl", d / f"svc{FILE_ESC}.jsonl"),
        "long": write_tainted(SAMPLES / "long_conversation.jsonl", d / f"long{FILE_ESC}.jsonl"),
        "har": write_tainted(FORMATS / "mitmproxy.har", d / "h\x1b[31m.har"),
        "otlp": write_tainted(FORMATS / "otlp_genai.json", d / "o\x1b[31m_otlp.json"),
        "batch_in": write_tainted(FORMATS / "batch_input.jsonl", d / "b\x1b[31m_in.jsonl"),
        "batch_out": write_tainted(FORMATS / "batch_output.jsonl", d / "b\x1b[31m_out.jsonl"),
    }
    return {k: v.relative_to(d) for k, v in files.items()} | {"dir": d}  # type: ignore[operator]


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bad")
    (d / "empty.jsonl").write_bytes(b"")
    (d / "nocaptures").mkdir()
    (d / "trunc.jsonl").write_bytes(b'{"dir":"req","body":')
    (d / "rand.jsonl").write_bytes(bytes(range(256)) * 8)
    (d / "deep.jsonl").write_bytes(b'{"dir":"req","body":{"input":' + b"[" * 5000
                                   + b"]" * 5000 + b"}}\n")
    (d / "deep_otlp.json").write_bytes(b'{"resourceSpans":' + b"[" * 100000 + b"]" * 100000
                                       + b"}")
    (d / "arr.json").write_text("[1, 2, 3]")
    return d


# -- 1. hostile text and keys, every format --------------------------------------------------

@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_compare_and_fidelity_of_hostile_captures_are_literal_and_masked(hostile, fmt):
    d, c, s, long = hostile["dir"], str(hostile["claims"]), str(hostile["service"]), \
        str(hostile["long"])
    proc = tv("compare", c, s, "--format", fmt, "--resamples", "100", cwd=d)
    assert proc.returncode == 0, proc.stderr
    if fmt == "json":
        doc = json.loads(proc.stdout)
        assert doc["arms"]["A"]["problems"] == 0
        assert doc["arms"]["A"]["label"].startswith("claims")
    proc = tv("fidelity", long, "--format", fmt, cwd=d)
    assert proc.returncode == 1, proc.stderr  # the long conversation fails on compaction
    assert "\\x1b" in proc.stdout or "\\u001b" in proc.stdout  # the file name, made visible


def test_export_of_hostile_captures_writes_no_control_and_no_key(hostile, tmp_path):
    pa = pytest.importorskip("pyarrow.parquet")
    duckdb = pytest.importorskip("duckdb")
    d = hostile["dir"]
    srcs = [str(hostile[k]) for k in ("claims", "service", "har", "otlp", "batch_in",
                                      "batch_out")]
    for to, out in (("parquet", tmp_path / "pq"), ("csv", tmp_path / "csv"),
                    ("duckdb", tmp_path / "x.duckdb"), ("otlp", tmp_path / "x.json")):
        proc = tv("export", *srcs, "--to", to, "-o", str(out), cwd=d)
        assert proc.returncode in (0, 1), proc.stderr  # 1: the tainted OTLP times are problems
        assert "turns" in proc.stderr
    for f in [*(tmp_path / "csv").glob("*.csv"), tmp_path / "x.json"]:
        assert_clean(f.read_text("utf-8"), f.name)
    rows = 0
    for f in (tmp_path / "pq").rglob("*.parquet"):
        table = pa.read_table(f).to_pylist()
        rows += len(table)
        assert_clean(repr(table), f.name)
    assert rows > 20
    con = duckdb.connect(str(tmp_path / "x.duckdb"), read_only=True)
    for table in ("turns", "conversations", "problems"):
        assert_clean(repr(con.execute(f"SELECT * FROM {table}").fetchall()), table)
    con.close()


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
def test_sql_over_hostile_captures_prints_them_literally(hostile, fmt):
    d = hostile["dir"]
    proc = tv("sql", "SELECT * FROM turns", str(hostile["claims"]), str(hostile["har"]),
              str(hostile["otlp"]), "--format", fmt, "--cache", "cache", cwd=d)
    # the OTLP file holds no provider call: a problem, named on stderr as `report` lists it,
    # its file name's escape made visible, and exit 1 as `report` gives
    assert proc.returncode == 1, proc.stderr
    assert "o\\x1b[31m_otlp.json:1 no_provider_calls: " in proc.stderr
    assert "\x1b" not in proc.stderr
    assert "resp_" in proc.stdout or "chatcmpl" in proc.stdout


def test_sql_that_builds_an_escape_or_a_key_itself_is_still_made_safe(hostile):
    d = hostile["dir"]
    proc = tv("sql", "SELECT 'a' || chr(27) || ']52;c;eA==' || chr(7) AS x, "
              "'sk-proj-AbCdEf1234567890XYZabc' AS k", str(hostile["claims"]),
              "--cache", "cache", cwd=d)
    assert proc.returncode == 0 and "\\x1b]52" in proc.stdout


def test_ab_dry_run_of_hostile_captures_prints_a_safe_plan(hostile):
    d = hostile["dir"]
    proc = tv("ab", str(hostile["claims"]), str(hostile["service"]), str(hostile["har"]),
              "--dry-run", "-o", "res", "--model", "gpt-4.1-2025-04-14", cwd=d)
    assert proc.returncode == 0 and "dry run: nothing was sent" in proc.stdout
    assert not (d / "res").exists()
    proc = tv("ab", str(hostile["claims"]), "--dry-run", "-o", "res", "--allow-alias",
              "--model", f"gpt{FILE_ESC}-4.1 sk-proj-AbCdEf1234567890XYZabc", cwd=d)
    assert proc.returncode == 0


# -- 2. the importers never crash on a wrong type ---------------------------------------------

def _paths(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:2]):
            yield from _paths(v, (*here, i))


def _replaced(doc: Any, path: tuple[Any, ...], new: Any) -> Any:
    doc = copy.deepcopy(doc)
    if not path:
        return new
    cur = doc
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = new
    return doc


@pytest.mark.parametrize("name", ["mitmproxy.har", "otlp_genai.json"])
def test_importers_survive_a_wrong_type_at_every_position(name, tmp_path):
    """Found here before the fix: OTLP int() of a non-numeric time, a list or an int where
    spans/scopeSpans/resourceSpans belong; HAR headers that are not a list (8 classes)."""
    doc = json.loads((FORMATS / name).read_text())
    paths = list(_paths(doc))
    cases = 0
    for i, path in enumerate(paths[:: max(1, len(paths) // 120)]):
        for new in ([1, 2], {"a": 1}, 7, "s", None):
            f = tmp_path / f"{i}-{cases}{Path(name).suffix}"
            f.write_text(json.dumps(_replaced(doc, path, new)))
            a = analyze([str(f)])  # never raises: a malformed file is a problem naming it
            a.capture.close()
            cases += 1
    assert cases >= 250


def test_a_malformed_otlp_time_is_unknown_not_a_crash(tmp_path):
    doc = json.loads((FORMATS / "otlp_genai.json").read_text())
    span = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["startTimeUnixNano"] = "soon" + SUFFIX
    f = tmp_path / "t.json"
    f.write_text(json.dumps(doc))
    report = analyze([str(f)]).to_report()
    assert len(report["turns"]) == 3 and report["problems"] == []


# -- 3. bad files and bad flags ---------------------------------------------------------------

SOURCES = {  # source -> documented exit for (fidelity, compare, export, sql)
    "missing.jsonl": (2, 2, 2, 2),  # a path that is not there: refused, nothing written
    "nocaptures": (2, 2, 2, 2),
    # No capture at all: fidelity, export and sql refuse it as report does, nothing written.
    "rand.jsonl": (2, 1, 2, 2),
    "trunc.jsonl": (1, 1, 1, 1),  # sql answers the query and names the problems, as report
    "deep.jsonl": (2, 1, 2, 2),  # nested past the parser: no line is a JSON object
    "deep_otlp.json": (1, 1, 1, 1),
    "arr.json": (2, 1, 2, 2),
    "empty.jsonl": (0, 0, 0, 0),
}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_bad_sources_give_a_message_and_the_documented_exit(source, bad, capsys, tmp_path,
                                                           monkeypatch):
    monkeypatch.chdir(bad)
    fid, cmp_, exp, sql = SOURCES[source]
    assert cli(capsys, "fidelity", source)[0] == fid
    code, _, err = cli(capsys, "compare", source, source, "--resamples", "100")
    assert code == cmp_
    if code:
        assert source in err
    assert cli(capsys, "export", source, "--to", "csv", "-o", str(tmp_path / "o"))[0] == exp
    assert cli(capsys, "sql", "SELECT count(*) FROM turns", source,
               "--cache", str(tmp_path / "c"))[0] == sql


PRICING = {
    "notjson.json": "[",
    "list.json": "[1]",
    "models_list.json": '{"models": [1, 2]}',
    "types.json": '{"models": {"gpt-4.1": {"input": "cheap", "output": [1]}}}',
    "negative.json": '{"models": {"gpt-4.1": {"input": -1, "output": 1}}}',
    "esc\x1b[31mname.json": '{"models": {"m\\u001b]2;x\\u0007": {"input": 1, "output": 1}}}',
}


@pytest.mark.parametrize("name", sorted(PRICING))
def test_a_wrong_shape_pricing_file_is_refused_or_harmless(name, capsys, tmp_path):
    price = tmp_path / name
    price.write_text(PRICING[name])
    try:
        Pricing.load(str(price))
        refused = False
    except PricingError:
        refused = True
    cap = str(SAMPLES / "claims.jsonl")
    for args in (["compare", cap, cap, "--resamples", "100"],
                 ["export", cap, "--to", "csv", "-o", str(tmp_path / "o")],
                 ["sql", "SELECT 1", cap, "--cache", str(tmp_path / "c")]):
        code, _, err = cli(capsys, *args, "--pricing", str(price))
        if refused:  # the load refuses it: every command says so, with the file, exit 2
            assert code == 2 and "pricing" in err, (args[0], err)
        else:
            assert code in (0, 1), (args[0], err)


@pytest.mark.parametrize("where", [Path("/proc/nope/dir"), None])
def test_pricing_file_that_is_missing_or_a_directory(where, capsys, tmp_path):
    path = str(where) if where else str(tmp_path)
    cap = str(SAMPLES / "claims.jsonl")
    assert cli(capsys, "compare", cap, cap, "--pricing", path)[0] == 2
    assert cli(capsys, "export", cap, "--to", "csv", "-o", str(tmp_path / "o"),
               "--pricing", path)[0] == 2


# -- 4. ab: a results folder and a manifest of the wrong shape --------------------------------

@pytest.fixture
def results(tmp_path: Path) -> Path:
    folder = tmp_path / "res"
    shutil.copytree(SAMPLES / "ab", folder)
    return folder


@pytest.mark.parametrize(("field", "value"), [
    ("runs", [1, 2]), ("runs", "s"), ("sample", 7), ("status", FILE_ESC + KEYS[0]),
])
def test_compare_of_a_results_folder_with_a_wrong_manifest_field(results, field, value,
                                                                 capsys):
    m = json.loads((results / "manifest.json").read_text())
    m[field] = value
    (results / "manifest.json").write_text(json.dumps(m))
    for fmt in ("text", "json"):
        assert cli(capsys, "compare", str(results), "--format", fmt,
                   "--resamples", "100")[0] == 0


@pytest.mark.parametrize(("field", "value"), [
    ("response_id", [1, 2]), ("state_ms", [1]), ("ts", 1e30), ("latency_ms", "fast"),
])
def test_compare_of_a_results_folder_with_a_wrong_ledger_field(results, field, value, capsys):
    lines = [json.loads(x) for x in (results / "ledger.jsonl").read_text().splitlines()]
    for line in lines[:3]:
        line[field] = value
    (results / "ledger.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, _ = cli(capsys, "compare", str(results))
    assert code == 0 and "cost change decomposed" in out


@pytest.mark.parametrize(("field", "value", "named"), [
    ("options", None, "options"), ("offsets", {"A.jsonl": -5}, "offsets"),
    ("order", "A:x:1", "order"), ("sample", [{"key": 1}], "sample"), ("runs", True, "runs"),
    ("completed", [["A", "x"]], "completed"), ("model", 7, "model"),
])
def test_resume_refuses_a_manifest_of_the_wrong_shape_and_cuts_nothing(results, field, value,
                                                                       named, capsys):
    m = json.loads((results / "manifest.json").read_text())
    m["status"] = "partial"
    m[field] = value
    (results / "manifest.json").write_text(json.dumps(m))
    sizes = {f.name: f.stat().st_size for f in results.iterdir()}
    code, _, err = cli(capsys, "ab", "--resume", "-o", str(results),
                       "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0")
    assert code == 2 and f"'{named}'" in err and "cannot be resumed" in err
    assert {f.name: f.stat().st_size for f in results.iterdir()} == sizes


def test_ab_bad_sources_and_outputs_are_one_line(bad, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(bad)
    model = ("--model", "gpt-4.1-2025-04-14")
    assert cli(capsys, "ab", "nocaptures", "--dry-run", "-o", str(tmp_path / "r"), *model)[0] == 2
    assert cli(capsys, "ab", "missing.jsonl", "--dry-run", "-o", "r", *model)[0] == 2
    assert cli(capsys, "ab", "rand.jsonl", "--dry-run", "-o", "r", *model)[0] == 2
    code, _, err = cli(capsys, "ab", str(SAMPLES / "claims.jsonl"), "-o", "empty.jsonl",
                       "--base-url", "http://127.0.0.1:9/v1", *model)
    assert code == 2 and "cannot create the results folder" in err
    assert cli(capsys, "ab", "--resume", "-o", "nocaptures")[0] == 2


# -- 5. proxy: keys in the query, headers and body; hostile bodies; bad flags -----------------

PROXY_SECRETS = ("qsecret0123456789", "AzureHEX0123456789abcdef0123",
                 "ApimKEY0123456789abcdef0123", "BODYkey0123456789abcdef",
                 "HEADERkey0123456789abcd")


def test_proxy_never_writes_a_key_from_the_query_headers_or_body(tmp_path):
    httpx2 = pytest.importorskip("httpx2")
    from traceview.record.proxy_server import ProxyServer
    from traceview.sim import SimServer

    out = tmp_path / "proxy.jsonl"
    with SimServer(seed="attack") as sim, ProxyServer(out, upstream=sim.base_url) as proxy, \
            httpx2.Client(base_url=proxy.base_url) as client:
        ok = client.post("/responses?api_key=qsecret0123456789", headers={
            "api-key": "AzureHEX0123456789abcdef0123",
            "Ocp-Apim-Subscription-Key": "ApimKEY0123456789abcdef0123",
            "Authorization": "Bearer sk-proj-HEADERkey0123456789abcd"},
            json={"model": "gpt-4.1", "input": "my key sk-proj-BODYkey0123456789abcdef "
                  + ESCAPES, "metadata": {"api_key": "AzureHEX0123456789abcdef0123"}})
        assert ok.status_code == 200
        # nested past the stdlib parser: relayed (the simulator answers), recorded as non-JSON
        deep = client.post("/responses", content=b"[" * 100_000, headers={
            "content-type": "application/json", "Authorization": "Bearer sk-x0000000000"})
        assert deep.status_code in (400, 500)  # the simulator's answer, relayed
        client.get("/responses/resp_x%1b%5d2;t%07?api_key=qsecret0123456789")
    text = out.read_text("utf-8")
    for secret in PROXY_SECRETS:
        assert secret not in text, secret
    records = [json.loads(x) for x in text.split("\n") if x]  # not splitlines: U+0085
    assert len(records) == 6
    assert records[0]["endpoint"].startswith("POST /v1/responses?api_key=")
    assert records[2]["body"]["non_json"] is True
    report = analyze([str(out)])
    assert len(report.turns) >= 1
    report.capture.close()


@pytest.mark.parametrize("args", [
    ["--upstream", f"http://x{FILE_ESC}:sk-proj-AbCdEf1234567890XYZabc@h/v1"],
    ["--upstream", "http://[::1"], ["--upstream", "http://h:abc/v1"], ["--upstream", "ftp://x"],
    ["--port", "70000"], ["--timeout", "0"], ["--rotate", "5XB"],
])
def test_proxy_bad_flags_are_one_line_and_exit_2(args, capsys, tmp_path):
    code, _, err = cli(capsys, "proxy", "-o", str(tmp_path / "p.jsonl"), "--port", "0", *args)
    assert code == 2 and err.startswith("traceview proxy:") and err.count("\n") == 1


def test_proxy_output_that_is_a_directory(capsys, tmp_path):
    with socket.socket() as s:  # a free port: the server is never started
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = cli(capsys, "proxy", "-o", str(tmp_path), "--port", str(port))
    assert code == 2 and "directory" in err.lower()


# -- 6. hydrate against a failing provider ----------------------------------------------------

HYDRATE_KEY = "sk-proj-HYDRATEattack000000000000000000"


@pytest.fixture(scope="module")
def claims_sim() -> Iterator[tuple[Any, list[str]]]:
    from traceview.sim import SimServer
    from traceview.sim.scenario import run_claims

    with SimServer(seed="attack-hydrate") as sim:
        client = openai.OpenAI(base_url=sim.base_url, api_key=HYDRATE_KEY, max_retries=0)
        run_claims(client)
        yield sim, list(sim.state.responses)


@pytest.mark.parametrize("status", [401, 403, 404, 429, 500])
def test_hydrate_provider_errors_are_clear_exit_2_and_never_print_the_key(
        claims_sim, status, tmp_path, capsys, monkeypatch):
    sim, ids = claims_sim
    monkeypatch.setenv("OPENAI_API_KEY", HYDRATE_KEY)
    sim.inject(status, times=1000)
    try:
        code, _, err = cli(capsys, "hydrate", *ids[:2], "-o", str(tmp_path / "h.jsonl"),
                           "--base-url", sim.base_url, "--max-retries", "0")
    finally:
        with sim._faults_lock:
            sim._faults.clear()
    assert code == 2 and f"HTTP {status}" in err and "0 of 2 responses rebuilt" in err
    assert "HYDRATEattack" not in err
    if status in (401, 403):  # a refused key stops at once: the next id would fail the same
        assert "stopped after the key was refused; 1 more" in err


def test_hydrate_partial_is_exit_1(claims_sim, tmp_path, capsys, monkeypatch):
    sim, ids = claims_sim
    monkeypatch.setenv("OPENAI_API_KEY", HYDRATE_KEY)
    sim.inject(404, times=1, path=f"/v1/responses/{ids[0]}")
    code, _, err = cli(capsys, "hydrate", *ids[:2], "-o", str(tmp_path / "h.jsonl"),
                       "--base-url", sim.base_url, "--max-retries", "0")
    assert code == 1 and "1 of 2 responses rebuilt" in err


@pytest.mark.parametrize("extra", [
    ["-o", "{tmp}"], ["-o", "/proc/nope/x.jsonl"], ["--timeout", "-1"], ["--max-pages", "0"],
    ["--base-url", f"http://x{FILE_ESC}:sk-proj-AbCdEf1234567890XYZabc@h/v1"],
    ["{tmp}", "-o", "{tmp}/x.jsonl"],
])
def test_hydrate_bad_arguments_are_one_line_exit_2(extra, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", HYDRATE_KEY)
    args = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    if "-o" not in args or args[0] == "-o":
        args = ["resp_0123456789abcdef", *args]
    if "-o" not in args:
        args += ["-o", str(tmp_path / "x.jsonl")]
    code, _, err = cli(capsys, "hydrate", *args, "--base-url", "http://127.0.0.1:9/v1")\
        if "--base-url" not in args else cli(capsys, "hydrate", *args)
    assert code == 2 and err.startswith("traceview hydrate:"), err
