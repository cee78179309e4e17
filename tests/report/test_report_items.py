"""`traceview report CAPTURE --items FILE`: every hosted turn's carried line counted from the
provider copy — the same count `traceview context --items` makes — with the top-level
`provider_copy` saying what was filled and from where; expected input, unexplained tokens
and markers unchanged; a copy that cannot be used refused with exit 2 and nothing on stdout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

CLAIMS = str(SAMPLES / "claims.jsonl")
SNAPSHOT = str(SAMPLES / "claims.snapshot.json")
# real (MIT, tests/fixtures/real): turn 2 chains on turn 1 by previous_response_id, and the
# capture recorded the provider's input_items of turn 2's response
DOTNET = str(Path(__file__).resolve().parents[1] / "fixtures" / "real"
             / "dotnet_function_call_previd_input_items.jsonl")


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(["report", "--format", "json", *argv])
    return code, json.loads(capsys.readouterr().out)


def _carried(turn: dict) -> tuple[int | None, str]:
    [line] = [c for c in turn["input_account"] if c["component"] == "carried"]
    return line["tokens"], line["basis"]


def _numbers(doc: dict) -> list[tuple]:
    """Every turn's figures but its account: what the copy must not change."""
    return [(t["expected_input"], t["unexplained_tokens"], t["markers"], t["cost_usd"])
            for t in doc["turns"]]


def test_a_conversation_snapshot_fills_every_hosted_turn_of_claims(capsys) -> None:
    _, plain = _report(capsys, CLAIMS)
    code, filled = _report(capsys, CLAIMS, "--items", SNAPSHOT)
    assert code == 0
    assert [_carried(t) for t in plain["turns"]] == [(None, "unknown")] * 4
    assert [_carried(t) for t in filled["turns"]] == [
        (72, "known"), (449, "known"), (4499, "estimated"), (4916, "estimated")]
    copy = filled["provider_copy"]
    assert copy["source"] == "items" and copy["path"] == SNAPSHOT
    assert copy["fetched_at"] == "2026-01-01T00:00:10Z"
    assert copy["conversations_filled"] == [plain["turns"][0]["conversation_key"]]
    assert copy["turns_filled"] == [1, 2, 3, 4] and copy["missing"] == []
    # Turns 1-3 are the conversation cut at each turn; the snapshot also holds the final
    # response's own input_items listing (as `fetch` saves it), which sizes turn 4 — to the
    # same 9 items and 4,916 tokens the cut conversation gives.
    assert [(t["listing"], t["items"], t["by_difference"]) for t in copy["turns"]] == [
        ("conversation", 1, None), ("conversation", 3, None), ("conversation", 6, None),
        ("input_items", 9, None)]
    # The copy sizes the account; what the application's traffic lets one expect (the
    # 4,001-token deposit on turn 3 among it) does not move.
    assert _numbers(filled) == _numbers(plain)
    assert filled["turns"][2]["unexplained_tokens"] == 4001
    assert "deposit" in filled["turns"][2]["markers"]
    assert "provider_copy" not in plain
    assert set(plain) < set(filled)


def test_the_report_and_context_make_one_count(capsys) -> None:
    """Each filled turn's account is the one `context --items` prints for it."""
    _, filled = _report(capsys, CLAIMS, "--items", SNAPSHOT)
    for turn in filled["turns"]:
        assert main(["context", CLAIMS, "--turn", str(turn["index"]), "--items", SNAPSHOT,
                     "--format", "json"]) == 0
        ctx = json.loads(capsys.readouterr().out)
        lines = [{k: v for k, v in c.items() if k != "origin"} for c in ctx["input_account"]]
        assert lines == turn["input_account"]


def test_a_capture_that_recorded_input_items_fills_its_chained_turn(capsys) -> None:
    code, doc = _report(capsys, DOTNET, "--items", DOTNET)
    assert code == 0
    first, second = doc["turns"]
    assert [c["component"] for c in first["input_account"]].count("carried") == 0
    # the message and the call; by difference the line read 37 (the 3 left are the earlier
    # reply's framing, which no item shows)
    assert _carried(second) == (34, "known")
    [entry] = doc["provider_copy"]["turns"]
    assert entry == {"turn": 2, "conversation": second["conversation_key"],
                     "response_id": second["response_id"], "listing": "input_items",
                     "items": 2, "tokens": 34, "basis": "known", "by_difference": 37}
    assert (second["expected_input"], second["unexplained_tokens"]) == (109, 0)


def test_turns_the_copy_does_not_hold_stay_unknown_with_a_reason(capsys) -> None:
    code, doc = _report(capsys, CLAIMS, DOTNET, "--items", SNAPSHOT)
    assert code == 0
    copy = doc["provider_copy"]
    assert copy["turns_filled"] == [1, 2, 3, 4]
    [missing] = copy["missing"]
    dotnet_2 = doc["turns"][5]
    assert missing["turn"] == 6 and missing["response_id"] == dotnet_2["response_id"]
    assert "do not hold this turn's output" in missing["reason"]
    assert _carried(dotnet_2) == (37, "estimated")  # as the capture sizes it


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_text_and_markdown_say_what_the_copy_filled(capsys, fmt: str) -> None:
    assert main(["report", CLAIMS, DOTNET, "--items", SNAPSHOT, "--format", fmt,
                 "--width", "200"]) == 0
    out = capsys.readouterr().out
    if fmt == "text":
        assert ("4 hosted turns counted item by item, 1 not") in out
        assert ("  turn 3: ≈ 4,499 tokens from 6 items (conversation; the capture alone could"
                " not size it)") in out
        assert "  turn 6: unknown — the snapshot's items" in out
    else:
        assert "## Carried context from the provider copy" in out
        assert "| 3 | 4,499 | 6 | conversation | estimated | — |" in out
        assert "| 6 | ? | | | unknown: the snapshot's items" in out
    assert main(["report", CLAIMS, "--format", fmt]) == 0
    assert "provider copy" not in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "said"), [
    (["--items", "/nonexistent/copy.json"], "/nonexistent/copy.json: cannot read"),
    (["--items", CLAIMS], "neither a snapshot nor a capture with a recorded"),
    (["--items", DOTNET], "sizes none of the capture's 4 hosted turn(s)"),
])
def test_a_copy_that_cannot_be_used_is_refused_with_nothing_written(
        capsys, argv: list[str], said: str) -> None:
    for fmt in ("json", "text"):
        assert main(["report", CLAIMS, "--format", fmt, *argv]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.startswith("traceview report: ") and said in err


def test_another_conversations_snapshot_is_refused(capsys, tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"schema": "traceview.report/1"}))
    assert main(["report", DOTNET, "--items", SNAPSHOT]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "(another conversation's copy?)" in err
    assert "do not hold this turn's output" in err
    assert main(["report", DOTNET, "--items", str(wrong)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "not a traceview.snapshot/1 snapshot" in err


def test_context_refuses_a_copy_that_does_not_hold_the_turn(capsys) -> None:
    assert main(["context", DOTNET, "--turn", "2", "--items", SNAPSHOT]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("traceview context: turn 2: the snapshot's items (conv_")


@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
def test_the_copys_path_is_written_through_the_output_boundary(
        capsys, tmp_path: Path, fmt: str) -> None:
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    hostile = tmp_path / f"{key}\x1b[31m.json"
    hostile.write_bytes(Path(SNAPSHOT).read_bytes())
    assert main(["report", CLAIMS, "--items", str(hostile), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "4,499" in out or "4499" in out
    assert key not in out and "\x1b" not in out


FORKED = r"""
import os, sys
from traceview.report import json_out
json_out.ROWS_A_PART = 1
real = json_out._part
MAIN = os.getpid()
def part(task):
    if json_out._WRITERS[task[0]].func.__name__ == "_turn_part":  # the rows (not the verdict)
        with open(sys.argv[3], "a") as log:
            log.write("here\n" if os.getpid() == MAIN else "worker\n")
    return real(task)
json_out._part = part
from traceview.cli import main
raise SystemExit(main(["report", "--format", "json", sys.argv[1], "--items", sys.argv[2]]))
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="forked workers: POSIX")
def test_rows_written_by_forked_workers_carry_the_copys_count(tmp_path: Path) -> None:
    """A large capture's rows are written in forked workers: the count attached before the
    fork is in each of them (a fresh process each: a test process may have threads)."""
    import os
    import subprocess
    import sys

    def run(workers: str) -> tuple[bytes, list[str]]:
        env = dict(os.environ, TRACEVIEW_WORKERS=workers, TRACEVIEW_PARALLEL_MIN_ROWS="0")
        log = tmp_path / f"parts-{workers}"
        out = subprocess.run([sys.executable, "-c", FORKED, CLAIMS, SNAPSHOT, str(log)],
                             capture_output=True, env=env, check=True)
        return out.stdout, log.read_text().split() if log.exists() else []

    alone, here = run("1")
    shared, parts = run("2")
    assert here == [] and parts == ["worker"] * 4  # one row a part, in the workers
    assert shared == alone
    doc = json.loads(shared)
    assert [_carried(t) for t in doc["turns"]] == [
        (72, "known"), (449, "known"), (4499, "estimated"), (4916, "estimated")]
