"""`traceview report` as a user runs it: formats, exit codes, no tracebacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from traceview.analysis.turn_row import CONTRACT_KEYS

ROOT = Path(__file__).parent.parent.parent
SAMPLES = ROOT / "sample_traces"
from tests.capture.test_real_captures import EXPECTED, REAL  # noqa: E402
from tests.fixtures_shared import run_cli  # noqa: E402


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """The command through main() in this process; a fresh process when it reads stdin."""
    if stdin is None:
        return run_cli(*args, cwd=ROOT)
    return subprocess.run([sys.executable, "-m", "traceview", *args], capture_output=True,
                          input=stdin, cwd=ROOT, timeout=120)


def report_json(*args: str) -> dict:
    out = run("report", *args, "--format", "json")
    assert out.returncode in (0, 1), out.stderr
    return orjson.loads(out.stdout)


def test_claims_sample_done_when() -> None:
    doc = report_json(str(SAMPLES / "claims.jsonl"))
    assert doc["schema"] == "traceview.report/1"
    t = {x["index"]: x for x in doc["turns"]}
    assert "deposit" in t[3]["markers"]
    assert t[3]["input_tokens"] == 6110
    for i in (2, 4):
        [call] = t[i]["hosted_calls"]
        assert call["type"] == "file_search_call"
        assert (call["evidence"], call["include"]) == ("missing", "file_search_call.results")
    assert t[4]["request_bytes"] < 1000 and t[4]["input_tokens"] > 6000
    assert doc["conversations"][0]["kind"] == "conversation"


def test_json_turns_carry_every_contract_key() -> None:
    doc = report_json(str(SAMPLES / "service_day.jsonl"))
    for turn in doc["turns"]:
        assert set(CONTRACT_KEYS) <= set(turn)
    assert set(doc) >= {"schema", "sources", "conversations", "turns", "totals", "problems"}
    lat = doc["totals"]["latency_ms"]
    assert set(lat) >= {"p50", "p95", "with_hosted_tools", "without"}


def test_unknown_numbers_are_null_not_zero() -> None:
    doc = report_json(str(SAMPLES / "service_day.jsonl"))
    cut = [t for t in doc["turns"] if "stream_cut" in t["markers"]]
    assert cut and all(t["input_tokens"] is None and t["cost_usd"] is None for t in cut)


def test_long_conversation_shrink_is_marked() -> None:
    doc = report_json(str(SAMPLES / "long_conversation.jsonl"))
    billed = [t["input_tokens"] for t in doc["turns"]][-4:]
    assert billed == [6110, 6530, 6980, 4120]
    assert doc["turns"][-1]["markers"] == ["compaction_likely"]


def test_text_report_fits_100_columns_and_names_markers() -> None:
    out = run("report", str(SAMPLES / "claims.jsonl"), "--width", "100")
    text = out.stdout.decode()
    assert out.returncode == 0
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "⊕deposit" in text and "deposit: ⊕" in text
    assert "file_search ✗" in text


def test_markdown_report() -> None:
    out = run("report", str(SAMPLES / "claims.jsonl"), "--format", "markdown")
    md = out.stdout.decode()
    assert md.startswith("# traceview report")
    assert "| 3 | What's the excess I would pay on this claim? |" in md
    assert "**Turn 3** (deposit" in md


def test_damaged_capture_exits_1_and_lists_problems() -> None:
    out = run("report", str(SAMPLES / "damaged.jsonl"), "--format", "json")
    assert out.returncode == 1
    doc = orjson.loads(out.stdout)
    kinds = {(p["line"], p["kind"]) for p in doc["problems"]}
    assert {(3, "malformed_json"), (4, "invalid_utf8"), (10, "truncated_line")} <= kinds
    assert doc["turns"], "everything readable is still shown"
    assert b"Traceback" not in out.stderr


@pytest.mark.parametrize("args,needle", [
    (["report", "/nonexistent.jsonl"], b"no such file"),
    (["report", "sample_traces/claims.jsonl", "--format", "yaml"], b"invalid choice"),
    (["report", "sample_traces/claims.jsonl", "--deposit-ratio", "lots"], b"invalid float"),
    (["report", "sample_traces/claims.jsonl", "--pricing", "/nonexistent.json"],
     b"cannot read pricing file"),
    (["report"], b"required"),
    (["sample_traces/claims.jsonl", "--pricing", "/nonexistent.json"],
     b"cannot read pricing file"),
    (["/nonexistent.jsonl"], b"no such file"),
    ([], b"usage"),
])
def test_unusable_arguments_exit_2_without_traceback(args: list[str], needle: bytes) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert needle in out.stderr + out.stdout
    assert b"Traceback" not in out.stderr


def test_stdin_and_version() -> None:
    out = run("report", "-", "--format", "json", stdin=(SAMPLES / "claims.jsonl").read_bytes())
    assert out.returncode == 0 and orjson.loads(out.stdout)["sources"] == ["<stdin>"]
    v = run("--version")
    assert v.returncode == 0 and v.stdout.startswith(b"traceview ")


def test_every_real_capture_reports_without_traceback() -> None:
    out = run("report", str(REAL), "--format", "json")
    assert out.returncode in (0, 1) and b"Traceback" not in out.stderr
    doc = orjson.loads(out.stdout)
    assert len(doc["sources"]) == 28
    assert len(doc["turns"]) == sum(t for t, _, _ in EXPECTED.values())


def test_report_never_modifies_the_capture() -> None:
    path = SAMPLES / "damaged.jsonl"
    before = path.read_bytes()
    run("report", str(path))
    assert path.read_bytes() == before


def test_streamed_json_equals_the_document() -> None:
    from traceview.analysis import analyze
    from traceview.report.json_out import render_json

    a = analyze(str(SAMPLES / "service_day.jsonl"))
    assert orjson.loads(render_json(a, explain=True)) == orjson.loads(orjson.dumps(a.to_report()))
    empty = analyze(str(REAL / "dotnet_conversation_item_endpoints.jsonl"))
    assert orjson.loads(render_json(empty))["turns"] == []
