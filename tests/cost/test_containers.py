"""Code-interpreter container time, billed per minute since 2026-06-02 (5-minute minimum;
one 20-minute session price before): each container's billed minutes and fee as a range
— first to last use at least, to its deletion or idle expiry at most — with the basis of
each end; null when the capture has no time for it, never 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cost.helpers import response, write
from traceview.analysis.session import analyze
from traceview.report.cost_text import cost_text

T0 = 1796083200  # 2026-12-01T00:00:00Z: per-minute billing


def _call(cid: str, n: int) -> dict[str, Any]:
    return {"type": "code_interpreter_call", "id": f"ci_{n}", "status": "completed",
            "code": "print(1)", "container_id": cid, "outputs": None}


def _turn(n: int, cid: str, at: int | None, elapsed_ms: int,
          container: Any = "auto") -> list[dict[str, Any]]:
    box = {"type": "auto"} if container == "auto" else container
    res = response("gpt-4.1", 1000, 100, rid=f"resp_{n}", output=[_call(cid, n)],
                   created=at or 0)
    if at is None:
        res["created_at"] = None
    return [{"dir": "req", "body": {"model": "gpt-4.1", "input": f"run {n}",
                                    "tools": [{"type": "code_interpreter", "container": box}]}},
            {"dir": "res", "elapsed_ms": elapsed_ms, "body": res}]


def _capture(tmp_path: Path) -> Path:
    created = {"id": "cntr_a", "object": "container", "created_at": T0, "status": "running",
               "expires_after": {"anchor": "last_active_at", "minutes": 10},
               "last_active_at": T0, "memory_limit": "4g", "name": "analysis"}
    return write(tmp_path / "containers.jsonl", [
        {"dir": "req", "ts": T0, "endpoint": "POST /v1/containers",
         "body": {"name": "analysis", "memory_limit": "4g",
                  "expires_after": {"anchor": "last_active_at", "minutes": 10}}},
        {"dir": "res", "ts": T0, "status_code": 200, "body": created},
        *_turn(1, "cntr_a", T0 + 60, 30_000, "cntr_a"),
        *_turn(2, "cntr_a", T0 + 600, 60_000, "cntr_a"),
        {"dir": "req", "ts": T0 + 900, "endpoint": "DELETE /v1/containers/cntr_a",
         "body": None},
        {"dir": "res", "ts": T0 + 900, "status_code": 200,
         "body": {"id": "cntr_a", "object": "container.deleted", "deleted": True}},
        *_turn(3, "cntr_b", T0 + 3600, 90_000),
        *_turn(4, "cntr_c", None, 1_000),
    ])


def _boxes(tmp_path: Path) -> dict[str, dict[str, Any]]:
    a = analyze([str(_capture(tmp_path))])
    return {c["id"]: c for c in a.cost["containers"]}


def test_a_created_and_deleted_container_is_billed_per_minute(tmp_path: Path) -> None:
    a = _boxes(tmp_path)["cntr_a"]
    assert (a["memory"], a["memory_basis"], a["turns"]) == ("4g", "recorded", [1, 2])
    assert (a["start_basis"], a["last_use_basis"], a["end_basis"]) == (
        "created (line 1)", "last used, turn 2", "deleted (line 7)")
    # 11 min (created → turn 2's end) to 15 min (→ the DELETE), at $0.12 / 20 = $0.006/min
    assert (a["minutes_low"], a["minutes_high"]) == (11.0, 15.0)
    assert (a["usd_low"], a["usd_high"], a["rate_usd_per_minute"]) == (0.066, 0.09, 0.006)
    assert a["billing"] == "per_minute"


def test_an_auto_container_runs_to_its_idle_expiry(tmp_path: Path) -> None:
    b = _boxes(tmp_path)["cntr_b"]
    assert b["memory"] == "1g" and b["memory_basis"] == "the default (1g)"
    assert b["end_basis"] == ("idle expiry, 20 min after the last use (the default; no "
                              "expires_after recorded)")
    # 1.5 min used: the 5-minute minimum; at most 21.5 → 22 minutes at $0.0015
    assert (b["minutes_low"], b["minutes_high"]) == (1.5, 21.5)
    assert (b["usd_low"], b["usd_high"]) == (0.0075, 0.033)


def test_no_time_means_unknown_not_zero(tmp_path: Path) -> None:
    c = _boxes(tmp_path)["cntr_c"]
    assert (c["minutes_low"], c["minutes_high"], c["usd_low"], c["usd_high"]) == (
        None, None, None, None)
    assert c["basis"] == "no time for its creation or first use"


def test_the_cost_section_says_the_range_and_its_basis(tmp_path: Path) -> None:
    text = "\n".join(cost_text(analyze([str(_capture(tmp_path))]).cost))
    assert ("container cntr_a (4g): billed time 11–15 min (created (line 1) → last used, "
            "turn 2; at most to its end: deleted (line 7)), fee $0.0660–$0.0900 (billed per "
            "minute since 2026-06-02 ($0.006/min for 4g") in text
    assert "container cntr_c (1g): billed time unknown" in text


def test_a_real_capture_before_per_minute_billing(tmp_path: Path) -> None:
    """openai-dotnet's recording (2025-09-26): one container, auto, used by one turn of
    23.5 s; before 2026-06-02 a container was one $0.03 session whatever its length."""
    root = Path(__file__).parents[1] / "fixtures" / "real"
    a = analyze([str(root / "dotnet_code_interpreter_files_cached.jsonl")])
    (c,) = a.cost["containers"]
    assert (c["minutes_low"], c["minutes_high"]) == (0.392, 20.392)
    assert (c["usd_low"], c["usd_high"], c["billing"]) == (0.03, 0.03, "session")


def test_a_container_made_through_the_sdk(tmp_path: Path) -> None:
    """Created (4g, 5-minute expiry), retrieved and deleted through the real SDK against the
    simulator (its clock: 2026-01-01, before per-minute billing): found from the
    exchanges alone, never used, so its time is at most its 5-minute expiry."""
    import traceview.record
    from traceview.sim import SimServer

    path = tmp_path / "sdk.jsonl"
    with SimServer(seed="containers") as sim:
        client = traceview.record.client(path, base_url=sim.base_url,
                                         api_key="sk-test-0000000000000000", max_retries=0)
        box = client.containers.create(name="scratch", memory_limit="4g",
                                       expires_after={"anchor": "last_active_at",
                                                      "minutes": 5})
        client.containers.retrieve(box.id)
        client.containers.delete(box.id)
    (c,) = analyze([str(path)]).cost["containers"]
    assert (c["id"], c["memory"], c["start_basis"], c["turns"]) == (
        box.id, "4g", "created (line 1)", [])
    assert c["end_basis"] == "idle expiry, 5 min after the last use (expires_after)"
    assert (c["minutes_low"], c["minutes_high"], c["usd_low"], c["usd_high"]) == (
        0.0, 5.0, 0.12, 0.12)
