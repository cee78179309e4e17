"""`traceview compare` measures latency as the caller waited (issue #34): a retried turn
counts from its first attempt sent to the final response, the backoff between attempts
included; a retried turn without the recorder's `ts` falls back to its attempts' own
times and the arm says so; turns that were not retried read as before."""

from __future__ import annotations

from pathlib import Path

from tests.builders import req, res, response, write
from traceview.analysis.compare import compare
from traceview.analysis.compare_arms import load_arms
from traceview.report.compare_output import render_text

ERR = {"error": {"message": "slow down", "type": "rate_limit_error", "code": "rate"}}
MODEL = "gpt-4.1-2025-04-14"


def _plain(rid: str, elapsed: int, ts: float | None = None) -> list[dict]:
    extra = {} if ts is None else {"ts": ts}
    return [req({"model": MODEL, "input": rid}, **extra),
            res(response(rid, 5, 5, model=MODEL), elapsed=elapsed)]


def _retried(rid: str, ts: tuple[float, float] | None) -> list[dict]:
    """A 429 after 40 ms, then (3.05 s after the first send when `ts` is given) a
    success in 37 ms: the caller waited 3,087 ms."""
    body = {"model": MODEL, "input": rid}
    first, second = ({}, {}) if ts is None else ({"ts": ts[0]}, {"ts": ts[1]})
    return [req(body, **first), res(ERR, elapsed=40, status_code=429),
            req(body, **second), res(response(rid, 5, 5, model=MODEL), elapsed=37)]


def _arms(tmp_path: Path) -> tuple[Path, Path]:
    a = write(tmp_path / "A.jsonl", _plain("resp_a1", 50, 990.0)
              + _retried("resp_a2", (1000.0, 1003.05)))
    b = write(tmp_path / "B.jsonl", _plain("resp_b1", 60) + _retried("resp_b2", None))
    return a, b


def test_a_retried_turn_counts_its_backoff_and_plain_turns_read_as_before(
        tmp_path: Path) -> None:
    a, b = _arms(tmp_path)
    arm_a, arm_b, meta = load_arms([str(a), str(b)])
    assert [t.latency_ms for t in arm_a.turns] == [50, 3087]  # was [50, 37]: no backoff
    assert [t.latency_ms for t in arm_b.turns] == [60, 77]  # no ts: the attempts summed
    doc = compare(arm_a, arm_b, latency=meta["latency"])
    assert doc["arms"]["A"]["latency_ms"]["all"] == {"p50": 1568.5, "p95": 2935.2, "n": 2}
    assert doc["arms"]["B"]["latency_ms"]["all"] == {"p50": 68.5, "p95": 76.2, "n": 2}
    assert doc["latency_source"].startswith("measured (caller latency")
    assert "backoff included" in doc["latency_source"]
    assert ("arm B: 1 retried turn(s) without the recorder's ts: their latency is the "
            "attempts' elapsed_ms summed, the backoff between them left out") in doc["warnings"]
    assert not any(w.startswith("arm A: 1 retried") for w in doc["warnings"])
    assert doc["arms"]["A"]["ttft_ms"]["all"] == {"p50": None, "p95": None, "n": 0}
    text = render_text(doc)
    assert "latency, all turns" in text and "time to first token" in text
    assert "warning: arm B: 1 retried turn(s) without the recorder's ts" in text
