"""`traceview report --live`: every hosted turn's input_items read from the provider now (the
simulator, through the real SDK over loopback) size its carried line, as `context --live`
does; a provider that refuses, fails, is too slow or cannot be reached says so, exits 2 and
nothing of the report is written. A response the provider no longer has leaves that turn
unknown, with the 404 as its reason."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.provider.test_context_live import PROVIDER_ITEMS, claims  # noqa: F401  (fixture)
from traceview.cli import main
from traceview.sim import SimServer


def _carried(turn: dict) -> tuple[int | None, str]:
    [line] = [c for c in turn["input_account"] if c["component"] == "carried"]
    return line["tokens"], line["basis"]


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("traceview report: ")
    return err


def test_live_fills_every_hosted_turn_as_context_live_does(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    sim, cap = claims
    assert main(["report", str(cap), "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["report", str(cap), "--format", "json", "--live",
                 "--base-url", sim.base_url]) == 0
    live = json.loads(capsys.readouterr().out)
    assert [_carried(t) for t in live["turns"]] == [
        (72, "known"), (449, "known"), (4499, "estimated"), (4916, "estimated")]
    copy = live["provider_copy"]
    assert (copy["source"], copy["path"], copy["turns_filled"], copy["missing"]) == (
        "live", None, [1, 2, 3, 4], [])
    assert copy["host"] == sim.base_url.split("/")[2] and copy["fetched_at"]
    assert [(t["listing"], t["items"]) for t in copy["turns"]] == [
        ("input_items", 1), ("input_items", 3), ("input_items", 6), ("input_items", 9)]
    # the numbers the capture's own traffic gives are the same with or without the copy
    for a, b in zip(plain["turns"], live["turns"], strict=True):
        assert (a["expected_input"], a["unexplained_tokens"], a["markers"]) == (
            b["expected_input"], b["unexplained_tokens"], b["markers"])
    # turn 3's count is the one `context --live` prints, item by item
    assert main(["context", str(cap), "--turn", "3", "--format", "json", "--live",
                 "--base-url", sim.base_url]) == 0
    ctx = json.loads(capsys.readouterr().out)
    assert [(c["component"], c["tokens"]) for c in ctx["provider_items"]] == PROVIDER_ITEMS
    assert _carried(ctx) == _carried(live["turns"][2])


def test_a_response_the_provider_lost_stays_unknown_with_the_404(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    sim, cap = claims
    assert main(["report", str(cap), "--format", "json"]) == 0
    lost = json.loads(capsys.readouterr().out)["turns"][1]["response_id"]
    with sim.state.lock:
        del sim.state.responses[lost]
    assert main(["report", str(cap), "--format", "json", "--live",
                 "--base-url", sim.base_url]) == 0
    doc = json.loads(capsys.readouterr().out)
    [missing] = doc["provider_copy"]["missing"]
    assert missing["turn"] == 2 and missing["response_id"] == lost
    assert f"response {lost} was not found at" in missing["reason"]
    assert "(HTTP 404)" in missing["reason"]
    assert doc["provider_copy"]["turns_filled"] == [1, 3, 4]
    assert _carried(doc["turns"][1]) == (None, "unknown")


def test_no_response_left_is_refused(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    sim, cap = claims
    with sim.state.lock:
        sim.state.responses.clear()
    err = _refused(capsys, ["report", str(cap), "--live", "--base-url", sim.base_url])
    assert "the provider holds none of the capture's 4 hosted turns' input_items" in err
    assert "(HTTP 404)" in err


def test_401_names_the_key_variable_and_never_the_key(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    sim, cap = claims
    monkeypatch.setenv("OTHER_KEY", "sk-wrong-abcdefghijklmnop")
    sim.inject(401, times=0, message="Incorrect API key provided: sk-wrong-abcdefghijklmnop")
    err = _refused(capsys, ["report", str(cap), "--format", "json", "--live",
                            "--base-url", sim.base_url, "--api-key-env", "OTHER_KEY"])
    assert "401" in err and "OTHER_KEY" in err
    assert "sk-wrong-abcdefghijklmnop" not in err


def test_a_5xx_after_the_retries_is_refused(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    sim, cap = claims
    sim.inject(503, times=0)
    err = _refused(capsys, ["report", str(cap), "--live", "--base-url", sim.base_url,
                            "--max-retries", "1"])
    assert "503" in err


def test_a_provider_slower_than_the_timeout_is_refused(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    sim, cap = claims
    gate = sim.hold(times=0)
    try:
        err = _refused(capsys, ["report", str(cap), "--format", "markdown", "--live",
                                "--base-url", sim.base_url, "--timeout", "0.5",
                                "--max-retries", "0"])
    finally:
        gate.set()
    assert "did not answer within 0.5 s (after 0 retries)" in err


def test_an_unreachable_provider_is_refused(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    _sim, cap = claims
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = _refused(capsys, ["report", str(cap), "--live", "--base-url",
                            f"http://127.0.0.1:{port}/v1", "--max-retries", "0",
                            "--timeout", "5"])
    assert f"127.0.0.1:{port}" in err


def test_without_a_key_it_says_how_to_give_one(
        claims: tuple[SimServer, Path], capsys: pytest.CaptureFixture[str],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    sim, cap = claims
    monkeypatch.delenv("OPENAI_API_KEY")
    err = _refused(capsys, ["report", str(cap), "--live", "--base-url", sim.base_url])
    assert "OPENAI_API_KEY is not set" in err
