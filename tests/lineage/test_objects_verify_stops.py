"""`traceview objects --verify --live` when there is nobody to ask: no key, a provider that
cannot be reached, or one that refuses the key. Each stops the check with one message and
writes nothing — a sidecar of "could not ask" rows would pass for a check (issue 35)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

import traceview.sim as sim_mod
from tests.lineage.lineage_capture import write_capture
from traceview.cli import main

KEY = "sk-test-objects-stop-0123456789"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _verify(path: Path, base_url: str) -> int:
    return main(["objects", str(path), "--case", "CS-88213", "--verify", "--live",
                 "--base-url", base_url, "--max-retries", "0", "--timeout", "10"])


def test_unreachable_provider_stops_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    path = write_capture(tmp_path / "case.jsonl")
    assert _verify(path, f"http://127.0.0.1:{_closed_port()}/v1") == 2
    err = capsys.readouterr().err
    assert "cannot reach 127.0.0.1:" in err and err.rstrip().endswith("Nothing was written.")
    assert list(tmp_path.iterdir()) == [path]


def test_refused_key_stops_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    path = write_capture(tmp_path / "case.jsonl")
    with sim_mod.SimServer() as sim:
        sim.inject(status=401, times=0)
        assert _verify(path, sim.base_url) == 2
    err = capsys.readouterr().err
    assert "refused the API key" in err and KEY not in err
    assert list(tmp_path.iterdir()) == [path]


def test_no_key_stops_before_asking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = write_capture(tmp_path / "case.jsonl")
    assert _verify(path, f"http://127.0.0.1:{_closed_port()}/v1") == 2
    err = capsys.readouterr().err
    assert "no API key: $OPENAI_API_KEY is not set" in err
    assert "--items" not in err  # objects has no such flag: the advice names what it has
    assert list(tmp_path.iterdir()) == [path]
