"""`traceview context --live`: the turn's input_items read from the provider now (the
simulator, through the real SDK over loopback) size the carried line; a provider that
refuses or cannot be reached says so, exits 2 and prints nothing else."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from tests.provider.test_fidelity_sim import SEED, _record_claims
from traceview.cli import main
from traceview.sim import SimServer


@pytest.fixture
def claims(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SimServer, Path]]:
    """The claims sample recorded again on a simulator that still holds it."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with SimServer(seed=SEED) as sim:
        cap = tmp_path / "claims.jsonl"
        _record_claims(sim, cap, include=False)
        assert cap.read_bytes() == (SAMPLES / "claims.jsonl").read_bytes()
        yield sim, cap


def _carried(doc: dict) -> dict:
    [line] = [c for c in doc["input_account"] if c["component"] == "carried"]
    return line


def test_live_counts_claims_turn_3_carried_line_from_the_providers_items(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str]) -> None:
    sim, cap = claims
    base = ["context", str(cap), "--turn", "3", "--format", "json"]
    assert main(base) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*base, "--live", "--base-url", sim.base_url]) == 0
    live = json.loads(capsys.readouterr().out)
    # by difference, the line is unknown; the provider's items count it
    assert (_carried(plain)["tokens"], _carried(plain)["basis"]) == (None, "unknown")
    assert (_carried(live)["tokens"], _carried(live)["basis"]) == (4499, "estimated")
    assert "6 items the provider listed" in _carried(live)["reason"]
    assert [(c["component"], c["tokens"]) for c in live["provider_items"]] == PROVIDER_ITEMS
    assert live["known_tokens"] == 4516 and live["unknown_lines"] == 1
    [stored] = [o for o in live["origins"] if o["origin"] == "stored"]
    assert stored == {"origin": "stored", "lines": 1, "unknown": 0, "known_tokens": 4499,
                      "tokens": 4499}  # the totals by origin follow the filled line
    assert set(plain) < set(live)  # keys added, none changed
    # the same count as the conversation snapshot `traceview fetch` saves (--items)
    snap = cap.with_name("snap.json")
    assert main(["fetch", str(cap), "-o", str(snap), "--base-url", sim.base_url]) == 0
    capsys.readouterr()
    assert main([*base, "--items", str(snap)]) == 0
    assert json.loads(capsys.readouterr().out)["provider_items"] == live["provider_items"]


# claims turn 3 received: the developer note, turn 1's question and answer, turn 2's
# question, its file search (results included: the include flags diff uses) and answer
PROVIDER_ITEMS = [("message", 72), ("message", 45), ("message", 332), ("message", 80),
                  ("file_search_call", 3650), ("message", 320)]


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err


def test_live_404_says_which_response_and_exits_2(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str]) -> None:
    sim, cap = claims
    with sim.state.lock:
        sim.state.responses.clear()
    err = _refused(capsys, ["context", str(cap), "--turn", "3", "--live",
                            "--base-url", sim.base_url])
    assert err.startswith("traceview context: ") and "404" in err and "resp_" in err


def test_live_401_names_the_key_variable_and_never_the_key(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    sim, cap = claims
    monkeypatch.setenv("OTHER_KEY", "sk-wrong-abcdefghijklmnop")
    sim.inject(401, times=0, message="Incorrect API key provided: sk-wrong-abcdefghijklmnop")
    err = _refused(capsys, ["context", str(cap), "--turn", "3", "--live", "--base-url",
                            sim.base_url, "--api-key-env", "OTHER_KEY"])
    assert "401" in err and "OTHER_KEY" in err
    assert "sk-wrong-abcdefghijklmnop" not in err


def test_live_unreachable_provider_exits_2(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _sim, cap = claims
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = _refused(capsys, ["context", str(cap), "--turn", "3", "--live", "--base-url",
                            f"http://127.0.0.1:{port}/v1", "--max-retries", "0",
                            "--timeout", "5"])
    assert err.startswith("traceview context: ") and f"127.0.0.1:{port}" in err


def test_live_without_a_key_says_how_to_give_one(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    sim, cap = claims
    monkeypatch.delenv("OPENAI_API_KEY")
    err = _refused(capsys, ["context", str(cap), "--turn", "3", "--live",
                            "--base-url", sim.base_url])
    assert "OPENAI_API_KEY is not set" in err
