"""`traceview reconcile` per project, end to end on loopback: traffic recorded through the
real SDK against the simulator (which answers with `openai-project` headers), then the
simulator's Costs API read back grouped by project_id. A project the capture recorded is
compared with that project's bill alone; a turn that recorded none is compared as project
(unknown) with the bill of every project the capture does not name, unless the user names
its project (--project CAPTURE=proj_…)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.cost.test_projects import KEY_B, _three_turns
from traceview.analysis.session import analyze
from traceview.cli import main
from traceview.sim import SimServer

ADMIN = "sk-admin-PROJECTS-0123456789abcdef"
DAY = "2026-01-01"  # the seeded simulator's clock
ROW = "gpt-4.1 tokens"


@pytest.fixture
def sim(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimServer]:
    monkeypatch.setenv("OPENAI_ADMIN_KEY", ADMIN)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with SimServer(seed="reconcile-projects") as server:
        server.org.projects[KEY_B] = "proj_bbb"
        yield server


@pytest.fixture
def capture(sim: SimServer, tmp_path: Path) -> tuple[Path, list[float]]:
    """Three turns (proj_aaa, proj_bbb, none recorded), and each one's cost."""
    path = tmp_path / "cap.jsonl"
    _three_turns(sim.base_url, path)
    costs = [t.cost_usd for t in analyze([str(path)]).turns]
    assert all(c is not None and c > 0 for c in costs)
    return path, costs


def _bill(sim: SimServer, costs: list[float], project_c: str | None) -> None:
    """proj_aaa billed what the capture attributes, proj_bbb $0.50 more, and
    `project_c` (another workload, or where the unrecorded turn ran) $0.25."""
    sim.org.add_cost(DAY, "proj_aaa", "gpt-4.1-2025-04-14, input", costs[0])
    sim.org.add_cost(DAY, "proj_bbb", "gpt-4.1-2025-04-14, input", costs[1] + 0.5)
    sim.org.add_cost(DAY, project_c, "gpt-4.1-2025-04-14, output", 0.25)


def _run(capsys: pytest.CaptureFixture[str], sim: SimServer, path: Path,
         *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["reconcile", str(path), "--live", "--base-url", sim.base_url,
                 "--max-retries", "0", "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert ADMIN not in out + err
    return code, json.loads(out)


def _rows(doc: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    return {r["project_id"]: (r["attributed_usd"], r["billed_usd"], r["remainder_usd"],
                              r["status"], r["billed_scope"])
            for r in doc["rows"] if r["line_item"] == ROW}


def test_recorded_projects_meet_their_own_bill(capsys: pytest.CaptureFixture[str],
                                               sim: SimServer,
                                               capture: tuple[Path, list[float]]) -> None:
    path, costs = capture
    _bill(sim, costs, "proj_zzz")
    code, doc = _run(capsys, sim, path)
    assert code == 1  # proj_bbb's $0.50 and the unknown row are beyond tolerance
    rows = _rows(doc)
    assert rows["proj_aaa"] == (costs[0], costs[0], 0.0, "reconciled", "this project")
    assert rows["proj_bbb"][2:4] == (0.5, "beyond")
    # the unrecorded turn: against proj_zzz's bill only (proj_aaa and proj_bbb have rows)
    assert rows["(unknown)"] == (costs[2], 0.25, round(0.25 - costs[2], 6), "beyond",
                                 "every project the capture does not name")
    assert doc["projects"] | {"turns": None} == {
        "named": ["proj_aaa", "proj_bbb"], "unknown_lines": 2, "pooled_days": [],
        "turns": None}
    assert doc["projects"]["turns"]["recorded"] == 2
    assert any("name no project" in n and "does not name" in n for n in doc["notes"])


def test_naming_the_unrecorded_project_compares_it_alone(
        capsys: pytest.CaptureFixture[str], sim: SimServer,
        capture: tuple[Path, list[float]]) -> None:
    path, costs = capture
    _bill(sim, costs, "proj_ccc")
    sim.org.add_cost(DAY, "proj_other", "gpt-4o-2024-08-06, input", 9.0)  # not ours
    code, doc = _run(capsys, sim, path, "--project", f"{path}=proj_ccc")
    rows = _rows(doc)
    assert "(unknown)" not in rows
    assert rows["proj_ccc"] == (costs[2], 0.25, round(0.25 - costs[2], 6), "beyond",
                                "this project")
    assert "other projects on the capture's days billed $9.000000 (not compared: other " \
        "workloads on the account)" in doc["notes"]
    assert doc["projects"]["turns"]["given"] == 1


def test_a_bill_without_project_ids_is_pooled_and_said(
        capsys: pytest.CaptureFixture[str], sim: SimServer,
        capture: tuple[Path, list[float]]) -> None:
    path, costs = capture
    sim.org.add_cost(DAY, None, "gpt-4.1-2025-04-14, input", sum(costs))
    code, doc = _run(capsys, sim, path)
    assert code == 0
    assert _rows(doc)["*"][2:] == (0.0, "reconciled", "every project (the bill was read "
                                   "without group_by=project_id)")
    assert any("billed without project_id" in n for n in doc["notes"])


def test_the_sims_costs_group_by_project_id_when_asked(sim: SimServer) -> None:
    """The Costs API's shape: `project_id` is null unless the query groups by it."""
    sim.org.add_cost(DAY, "proj_aaa", "gpt-4.1, input", 1.0)
    sim.org.add_cost(DAY, "proj_bbb", "gpt-4.1, input", 2.0)
    start = 1767225600
    with httpx2.Client(base_url=sim.base_url + "/",
                       headers={"authorization": f"Bearer {ADMIN}"}) as client:
        def results(*group: str) -> list[dict[str, Any]]:
            page = client.get("organization/costs", params=[
                ("start_time", start), ("end_time", start + 86_400),
                *[("group_by[]", g) for g in group]]).json()
            return page["data"][0]["results"]
        pooled = results()
        grouped = results("project_id")
        answered = client.get("responses/none").headers
    assert [(r["project_id"], r["amount"]["value"]) for r in pooled] == [(None, 3.0)]
    assert sorted((r["project_id"], r["amount"]["value"]) for r in grouped) == [
        ("proj_aaa", 1.0), ("proj_bbb", 2.0)]
    assert "openai-project" not in answered  # an admin key belongs to no project
