"""`traceview sim`, `traceview demo`, the round-trip script and the sample generator."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from tests.fixtures_shared import ROOT
from traceview.commands import demo
from traceview.commands import sim as cli


def _ns(module, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return parser.parse_args(argv)


def test_demo_records_the_claims_scenario(tmp_path, capsys):
    out = tmp_path / "demo.jsonl"
    assert demo.run(_ns(demo, ["--out", str(out), "--no-open"])) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    # conversation create, four turns and the claims note added before turn 4: req and res each
    assert len(records) == 12
    assert str(out) in capsys.readouterr().out
    assert "sk-traceview-demo" not in out.read_text()


def test_demo_opens_the_inspector_on_the_capture(tmp_path, monkeypatch):
    opened: list[list[str]] = []
    import traceview.ui.app as ui_app
    monkeypatch.setattr(ui_app, "run_inspector", lambda paths: opened.append(paths) or 0)
    out = tmp_path / "demo.jsonl"
    assert demo.run(_ns(demo, ["--out", str(out), "--stream"])) == 0
    assert opened == [[str(out)]]


def test_demo_refuses_to_append_to_an_existing_capture(tmp_path, capsys):
    out = tmp_path / "demo.jsonl"
    out.write_text("{}\n")
    assert demo.run(_ns(demo, ["--out", str(out), "--no-open"])) == 2
    assert "already exists" in capsys.readouterr().err


def test_sim_rejects_a_bad_port(capsys):
    """Refused while parsing (argparse's exit 2), before anything listens."""
    with pytest.raises(SystemExit) as exited:
        cli.run(_ns(cli, ["--port", "70000"]))
    assert exited.value.code == 2
    assert "--port" in capsys.readouterr().err


def test_roundtrip_script_shows_deposit_and_evidence():
    done = subprocess.run([sys.executable, "-m", "traceview.commands.roundtrip"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "claims.jsonl: ok" in done.stdout and "claims-include.jsonl: ok" in done.stdout


def test_committed_simulator_samples_are_current():
    done = subprocess.run([sys.executable, str(ROOT / "sample_traces" / "regenerate.py"),
                           "--check"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_demo_ab_runs_the_experiment_and_refuses_to_overwrite_it(tmp_path, capsys):
    out = tmp_path / "ab"
    assert demo.run(_ns(demo, ["--ab", "--out", str(out), "--no-open"])) == 0
    said = capsys.readouterr().out
    assert "complete" in said and "latencies simulated" in said
    assert (out / "manifest.json").exists() and (out / "A.jsonl").exists()
    assert demo.run(_ns(demo, ["--ab", "--out", str(out), "--no-open"])) == 2
    assert "already holds a run" in capsys.readouterr().err


@pytest.mark.parametrize("delay", ["nan", "inf", "-1", "1e308"])
def test_sim_refuses_a_slow_fault_it_cannot_wait(delay, capsys, monkeypatch):
    """Such a delay was accepted, and each request it hit was a 500 (an OverflowError in
    the wait) or not slow at all: not the rehearsal asked for."""
    monkeypatch.setattr(cli.SimServer, "serve_forever", lambda self: None)  # never blocks
    assert cli.run(_ns(cli, ["--fault", f"slow={delay}"])) == 2
    assert "slow=SECONDS" in capsys.readouterr().err


def test_demo_that_cannot_write_its_capture_says_so(tmp_path, capsys, monkeypatch):
    """A full disk: the recorder only warns (the application's call must not fail), but the
    demo's whole point is the capture; it said "recorded … (4 turns)" and exited 0."""
    import errno

    from traceview.record.writer import CaptureWriter

    def full(self, record):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(CaptureWriter, "write", full)
    out = tmp_path / "demo.jsonl"
    assert demo.run(_ns(demo, ["--out", str(out), "--no-open"])) == 1
    said = capsys.readouterr()
    assert "recorded" not in said.out
    assert f"cannot write {out}: No space left on device" in said.err
    assert "Traceback" not in said.err


def test_demo_refuses_an_out_that_is_no_regular_file(tmp_path, capsys):
    """A FIFO nobody reads took the records and lost them; the demo said "recorded"."""
    import os

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert demo.run(_ns(demo, ["--out", str(fifo), "--no-open"])) == 2
    said = capsys.readouterr()
    assert "recorded" not in said.out and "is not a regular file" in said.err


def test_demo_ab_that_cannot_write_its_store_says_so(tmp_path, capsys, monkeypatch):
    """A full disk fails SQLite's store with its own error, not an OSError: a traceback."""
    import sqlite3

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(sqlite3, "connect", full)
    out = tmp_path / "ab"
    assert demo.run(_ns(demo, ["--ab", "--out", str(out), "--no-open"])) == 1
    assert f"cannot write {out}: database or disk is full" in capsys.readouterr().err
