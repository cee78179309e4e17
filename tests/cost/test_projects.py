"""The project a turn was billed to: kept by the recorder and the proxy from the provider's
`openai-project` / `openai-organization` headers (and the client's OpenAI-Project request
header), carried onto the turn (`attributed_to`), its cost lines and the export — recorded
through the real SDK against the simulator over loopback."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

import traceview.record
from tests.record.conftest import API_KEY, read_records
from traceview.analysis.cost.projects import ProjectMap, ProjectMapError
from traceview.analysis.options import Options
from traceview.analysis.session import analyze
from traceview.cli import main
from traceview.record.proxy_server import ProxyServer
from traceview.sim import SimServer

KEY_B = "sk-proj-SECONDkeyDoNotLeak0123456789abcdef"


@pytest.fixture
def sim() -> Iterator[SimServer]:
    with SimServer(seed="projects") as server:
        server.org.organization = "org-traceview"
        server.org.projects[KEY_B] = "proj_bbb"  # a project key: its calls are proj_bbb's
        yield server


def _three_turns(base_url: str, path: Path) -> None:
    """proj_aaa asked for by the client, proj_bbb by its key, and one with neither."""
    asked = traceview.record.client(path, base_url=base_url, api_key=API_KEY, max_retries=0,
                                    project="proj_aaa", organization="org-traceview")
    asked.responses.create(model="gpt-4.1", input="Which project pays for this?")
    traceview.record.client(path, base_url=base_url, api_key=KEY_B, max_retries=0) \
        .responses.create(model="gpt-4.1", input="And this one?")
    traceview.record.client(path, base_url=base_url, api_key=API_KEY, max_retries=0) \
        .responses.create(model="gpt-4.1", input="And this?")


def test_recorder_keeps_the_project_headers_and_masks_keys(sim: SimServer,
                                                          tmp_path: Path) -> None:
    path = tmp_path / "cap.jsonl"
    sim.org.organization = None  # the third turn's answer then names nothing at all
    _three_turns(sim.base_url, path)
    recs = read_records(path)
    assert [r.get("headers") for r in recs if r["dir"] == "req"] == [
        {"openai-organization": "org-traceview", "openai-project": "proj_aaa"}, None, None]
    kept = [{k: v for k, v in r["headers"].items() if k.startswith("openai-")
             and k != "openai-processing-ms"} for r in recs if r["dir"] == "res"]
    assert kept == [{"openai-organization": "org-traceview", "openai-project": "proj_aaa"},
                    {"openai-project": "proj_bbb"}, {}]
    raw = path.read_text()
    assert API_KEY not in raw and KEY_B not in raw and "authorization" not in raw.lower()


def test_proxy_keeps_them_too(sim: SimServer, tmp_path: Path) -> None:
    out = tmp_path / "proxy.jsonl"
    with ProxyServer(out, upstream=sim.base_url) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=API_KEY, max_retries=0,
                               project="proj_viaproxy")
        client.responses.create(model="gpt-4.1", input="hi")
    req, res = read_records(out)
    assert req["headers"] == {"openai-project": "proj_viaproxy"}
    assert res["headers"]["openai-project"] == "proj_viaproxy"
    assert res["headers"]["openai-organization"] == "org-traceview"
    assert API_KEY not in out.read_text()


def test_each_turn_and_cost_line_names_its_project(sim: SimServer, tmp_path: Path) -> None:
    path = tmp_path / "cap.jsonl"
    _three_turns(sim.base_url, path)
    a = analyze([str(path)])
    owners = [t.attributed_to for t in a.turns]
    assert [(o["project"], o["organization"], o["project_from"]) for o in owners] == [
        ("proj_aaa", "org-traceview", "response header openai-project"),
        ("proj_bbb", "org-traceview", "response header openai-project"),
        (None, "org-traceview", None)]
    by_project: dict[str | None, float] = {}
    for line in a.cost["lines"]:
        by_project[line["project"]] = by_project.get(line["project"], 0.0) + line["usd"]
    costs = [t.cost_usd for t in a.turns]
    assert {k: round(v, 6) for k, v in by_project.items()} == {
        "proj_aaa": costs[0], "proj_bbb": costs[1], None: costs[2]}
    groups = a.cost["attribution"]["groups"]["project"]
    assert {g["value"]: g["turns"] for g in groups} == {"proj_aaa": 1, "proj_bbb": 1, None: 1}
    assert a.projects.to_dict()["recorded"] == 2 and a.projects.to_dict()["unknown"] == 1


def test_a_request_header_alone_names_the_project(tmp_path: Path) -> None:
    """A capture that kept only the client's OpenAI-Project header (a HAR, an older
    recorder on the response side): the project the client asked for, said so."""
    from tests.cost.helpers import response, turn, write

    path = write(tmp_path / "asked.jsonl", [
        {"dir": "req", "headers": {"OpenAI-Project": "proj_asked"},
         "body": {"model": "gpt-4.1", "input": "hi"}},
        turn({}, response("gpt-4.1", 100, 10))[1]])
    owner = analyze([str(path)]).turns[0].attributed_to
    assert (owner["project"], owner["project_from"]) == (
        "proj_asked", "request header OpenAI-Project")


def test_export_has_project_columns(sim: SimServer, tmp_path: Path) -> None:
    path = tmp_path / "cap.jsonl"
    _three_turns(sim.base_url, path)
    out = tmp_path / "export"
    assert main(["export", str(path), "--to", "csv", "-o", str(out)]) == 0
    rows = list(csv.DictReader((out / "turns.csv").open()))
    assert [(r["project"], r["organization"]) for r in rows] == [
        ("proj_aaa", "org-traceview"), ("proj_bbb", "org-traceview"), ("", "org-traceview")]


def test_a_users_map_fills_only_what_the_capture_left_unknown(sim: SimServer,
                                                             tmp_path: Path) -> None:
    path = tmp_path / "cap.jsonl"
    _three_turns(sim.base_url, path)
    given = ProjectMap.parse([f"{path}=proj_aaa"], [str(path)])
    a = analyze([str(path)], Options(projects=given))
    assert sorted({ln["project"] for ln in a.cost["lines"]}) == ["proj_aaa", "proj_bbb"]
    assert a.projects.to_dict() | {"map": None} == {"recorded": 2, "given": 1, "unknown": 0,
                                                     "map": None}
    # the turn recorded as proj_bbb stays proj_bbb, and the override is said
    assert a.projects.notes() == [f"{path}: 1 turn(s) recorded project proj_bbb "
                                  "(openai-project header) where --project said proj_aaa: "
                                  "the recorded project was used"]


@pytest.mark.parametrize(("args", "says"), [
    (["acme"], "'acme' is not a project id"),
    (["proj_a", "proj_b"], "one project for every capture"),
    (["other.jsonl=proj_a"], "'other.jsonl' is not one of the captures given"),
    (["cap.jsonl=proj_a", "cap.jsonl=proj_b"], "is given two projects"),
])
def test_bad_project_maps_are_refused(args: list[str], says: str) -> None:
    with pytest.raises(ProjectMapError, match=says):
        ProjectMap.parse(args, ["cap.jsonl"])


def test_a_directorys_map_covers_its_files() -> None:
    given = ProjectMap.parse(["traces/=proj_dir", "proj_rest"], ["traces/", "one.jsonl"])
    assert given.of("traces/a.jsonl") == "proj_dir"
    assert given.of("one.jsonl") == "proj_rest"


def test_a_hostile_project_header_is_masked_and_escaped(
        tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Header values are the provider's (or a proxy's) text: a key in one is masked, a
    terminal escape never reaches the output raw."""
    from tests.cost.helpers import response, turn, write

    key = "sk-proj-" + "Q" * 40
    path = write(tmp_path / "hostile.jsonl", turn(
        {"model": "gpt-4.1", "input": "hi"}, response("gpt-4.1", 10, 1),
        headers={"openai-project": f"proj_x {key}", "openai-organization": "org-\x1b[2Jx"}))
    assert main(["report", str(path), "--format", "json"]) == 0
    out = capsysbinary.readouterr().out
    assert key.encode() not in out and b"\x1b" not in out
    assert b'"project": "proj_x sk-' in out


def test_a_har_keeps_the_project_headers(sim: SimServer, tmp_path: Path) -> None:
    """Browser devtools and proxies export every header: the importer keeps the same two
    from both sides, and the turns name the same projects as the recorder's capture."""
    import json

    import httpx2

    from tests.formats.har_writer import HarTransport, har_document

    har = HarTransport(httpx2.HTTPTransport())
    client = openai.OpenAI(base_url=sim.base_url, api_key=KEY_B, max_retries=0,
                           http_client=httpx2.Client(transport=har))
    client.responses.create(model="gpt-4.1", input="by key")
    client.responses.create(model="gpt-4.1", input="asked",
                            extra_headers={"OpenAI-Project": "proj_asked"})
    path = tmp_path / "projects.har"
    path.write_text(json.dumps(har_document(har.entries)))
    owners = [t.attributed_to for t in analyze([str(path)]).turns]
    assert [(o["project"], o["organization"]) for o in owners] == [
        ("proj_bbb", "org-traceview"), ("proj_asked", "org-traceview")]
