"""`traceview ab` and `traceview compare` from the command line."""

from __future__ import annotations

import json

import openai
import pytest

from traceview.cli import main
from traceview.sim.server import SimServer

from ..ui.conftest import SAMPLES

AB = str(SAMPLES / "ab")
SOURCE = str(SAMPLES / "ab" / "source.jsonl")


def test_compare_text_reads_the_results_folder(capsys):
    assert main(["compare", AB]) == 0
    out = capsys.readouterr().out
    assert "latencies are SIMULATED" in out
    assert "cost change decomposed (USD, B − A):" in out
    assert "net difference (B − A)" in out and "= the sum of the lines above" in out
    assert "replay fidelity" in out and "replay (" in out and "capture only" in out
    assert "the invoice is not the usage fields" in out


def test_compare_json_is_the_schema_and_matches_markdown(capsys):
    assert main(["compare", AB, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "traceview.compare/1"
    net = doc["difference"]["cost"]["net_usd"]
    assert main(["compare", AB, "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert f"| **net** | **{net:+.6f}** | |" in md


def test_compare_two_captures_and_bad_arms(capsys, tmp_path):
    assert main(["compare", str(SAMPLES / "ab" / "A.jsonl"), str(SAMPLES / "ab" / "B.jsonl"),
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["latency_source"].startswith("measured")
    assert doc["arms"]["B"]["tokens"]["hosted_calls"] > 0
    assert main(["compare", str(tmp_path / "nope.jsonl"), SOURCE]) == 2
    assert "nope.jsonl: no such file or directory" in capsys.readouterr().err
    assert main(["compare", SOURCE]) == 2


def test_ab_refuses_an_alias_before_sending_anything(capsys, tmp_path):
    out = tmp_path / "r"
    assert main(["ab", SOURCE, "-o", str(out), "--model", "gpt-4.1"]) == 2
    assert "alias" in capsys.readouterr().err
    assert not out.exists()


def test_ab_refuses_a_malformed_openai_base_url_before_making_its_folder(
        capsys, tmp_path, monkeypatch):
    """Found by a colleague: with a bad $OPENAI_BASE_URL `ab` made its results folder and
    manifest, then stopped at the first call with 'APIConnectionError: Connection error.'
    The URL it will send to is checked first; nothing is made."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000000000000000")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://[bad/v1")
    out = tmp_path / "r"
    assert main(["ab", SOURCE, "-o", str(out), "--model", "gpt-4.1-2025-04-14"]) == 2
    assert capsys.readouterr().err == (
        "traceview ab: $OPENAI_BASE_URL: not a URL: 'http://[bad/v1'; give the provider's "
        "base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1\n")
    assert not out.exists()


def test_ab_dry_run_prints_the_plan_and_an_estimate(capsys, tmp_path):
    out = tmp_path / "r"
    assert main(["ab", SOURCE, "-o", str(out), "--model", "gpt-4.1-2025-04-14", "--sample",
                 "8", "--runs", "3", "--dry-run", "--base-url", "http://127.0.0.1:9/v1"]) == 0
    text = capsys.readouterr().out
    assert "plan: 8 of 12 conversations" in text
    assert "sample {1: 4, 2: 2, 3: 1, 4: 1}" in text and "48 units" in text
    assert "estimated cost $" in text and "dry run: nothing was sent" in text
    assert not out.exists()


@pytest.mark.parametrize("where", ["file", "under_a_file"])
def test_ab_dry_run_fails_where_the_real_run_could_not_write(capsys, tmp_path, where):
    blocker = tmp_path / "taken"
    blocker.write_text("not a folder")
    out = blocker if where == "file" else blocker / "r"
    assert main(["ab", SOURCE, "-o", str(out), "--model", "gpt-4.1-2025-04-14",
                 "--dry-run", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    got = capsys.readouterr()
    assert got.out == ""  # no plan printed as if it could run
    assert f"-o {out}: cannot create the results folder" in got.err
    assert blocker.read_text() == "not a folder"


def test_ab_runs_and_resumes_from_the_command_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sim-test-000000000000")
    out = tmp_path / "r"
    with SimServer(seed="cli") as sim:
        args = ["ab", SOURCE, "-o", str(out), "--model", "gpt-4.1-2025-04-14", "--sample", "2",
                "--runs", "1", "--base-url", sim.base_url, "--max-retries", "0"]
        assert main(args) == 0
        assert "complete — 4 of 4 units done" in capsys.readouterr().out
        assert main(args) == 2  # the folder holds a run
        assert "--resume" in capsys.readouterr().err
        assert main(["ab", "-o", str(out), "--resume"]) == 0
        assert "already complete" in capsys.readouterr().err
    assert main(["compare", str(out)]) == 0


def test_the_simulators_latency_model_is_off_unless_asked_for():
    with SimServer() as sim:
        with openai.OpenAI(base_url=sim.base_url, api_key="sk-x", max_retries=0) as c:
            raw = c.responses.with_raw_response.create(model="gpt-4.1", input="hi")
            assert "x-traceview-simulated-ms" not in raw.headers


@pytest.mark.parametrize("seed", [1, 2])
def test_the_latency_model_is_seeded(seed):
    from traceview.sim.latency import LatencyModel

    one, two = LatencyModel(seed=seed), LatencyModel(seed=seed)
    draws = [one.draw(1000, 500, 200, n % 2) for n in range(20)]
    assert draws == [two.draw(1000, 500, 200, n % 2) for n in range(20)]
    assert all(d > 0 for d in draws)


def test_compare_open_hands_the_computed_document_to_the_screen(monkeypatch):
    import traceview.ui.compare_app as compare_app

    seen = {}

    def fake(paths, doc):
        seen.update(paths=paths, doc=doc)
        return 0

    monkeypatch.setattr(compare_app, "run_compare_app", fake)
    assert main(["compare", AB, "--open"]) == 0
    assert seen["paths"] == [AB] and seen["doc"]["schema"] == "traceview.compare/1"


def test_an_unreachable_provider_stops_the_run_with_a_message(capsys, tmp_path, monkeypatch):
    import socket

    monkeypatch.setenv("OPENAI_API_KEY", "sk-sim-test-000000000000")
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "r"
    code = main(["ab", SOURCE, "-o", str(out), "--model", "gpt-4.1-2025-04-14", "--sample", "2",
                 "--runs", "1", "--base-url", f"http://127.0.0.1:{port}/v1",
                 "--max-retries", "0"])
    assert code == 2
    err = capsys.readouterr().err
    assert "stopped: APIConnectionError" in err and "--resume" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "partial" and manifest["completed"] == []
    assert (out / "A.jsonl").read_bytes() == b""  # the unanswered request was cut


def test_screenshot_of_the_compare_view_is_written_headless(capsys, tmp_path):
    """`screenshot --view compare` renders the compare screen of a results folder to SVG,
    with both arms, the simulated-latency warning and the decomposition's net line."""
    out = tmp_path / "cmp.svg"
    rc = main(["screenshot", str(SAMPLES / "ab"), "--view", "compare", "-o", str(out),
               "--size", "140x40"])
    assert rc == 0 and out.exists()
    svg = out.read_text().replace("&#160;", " ")
    for text in ("A (owned)", "B (hosted)", "SIMULATED", "net (B − A)"):
        assert text in svg, text
    rc = main(["screenshot", str(tmp_path / "nowhere"), "--view", "compare",
               "-o", str(tmp_path / "x.svg")])
    assert rc != 0 and not (tmp_path / "x.svg").exists()


@pytest.mark.parametrize("error", ["sqlite", "oserror"])
def test_ab_that_cannot_write_its_results_says_so_and_keeps_the_manifest(
        capsys, tmp_path, monkeypatch, error):
    """A full disk fails arm A's SQLite store with SQLite's own error, and a capture or the
    manifest with an OSError: either is one line naming the folder, exit 1, and --resume
    continues from the manifest as it stood — not a traceback."""
    import sqlite3

    def full(*args, **kwargs):
        if error == "sqlite":
            raise sqlite3.OperationalError("database or disk is full")
        raise OSError(28, "No space left on device")

    monkeypatch.setenv("OPENAI_API_KEY", "sk-sim-test-000000000000")
    monkeypatch.setattr(sqlite3, "connect", full)
    out = tmp_path / "r"
    with SimServer(seed="cli") as sim:
        code = main(["ab", SOURCE, "-o", str(out), "--model", "gpt-4.1-2025-04-14",
                     "--sample", "2", "--runs", "1", "--base-url", sim.base_url,
                     "--max-retries", "0"])
    said = capsys.readouterr().err
    reason = "database or disk is full" if error == "sqlite" else "No space left on device"
    assert code == 1 and "Traceback" not in said
    assert said.startswith(f"traceview ab: cannot write {out}: {reason}; the results so far "
                           f"are in {out} (--resume continues)")
    assert json.loads((out / "manifest.json").read_text())["completed"] == []
