"""``traceview reconcile --live`` end to end: the real HTTP client (httpx2, as the SDK uses)
over loopback to the simulator's Costs and Usage APIs — complete, paged, partial, 401,
429 with Retry-After, 5xx; the admin key masked everywhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reconcile_data import PROJECT, bill_lines, crafted_capture, usage_lines
from traceview.cli import main
from traceview.provider.client import ProviderConfig
from traceview.provider.costs import ENDPOINTS, Window, read_bill
from traceview.provider.errors import ProviderError
from traceview.sim import SimServer

ADMIN = "sk-admin-SECRET-0123456789abcdef"


@pytest.fixture
def sim(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimServer]:
    monkeypatch.setenv("OPENAI_ADMIN_KEY", ADMIN)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with SimServer() as server:
        for line in bill_lines():
            server.org.add_cost(*line)
        for day, project, fields in usage_lines():
            server.org.add_usage("completions", day, project, **fields)
        yield server


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    return crafted_capture(tmp_path / "cap.jsonl")


def run(capsys: pytest.CaptureFixture[str], sim: SimServer, capture: Path,
        *extra: str) -> tuple[int, str, str]:
    code = main(["reconcile", str(capture), "--live", "--base-url", sim.base_url,
                 "--project", PROJECT, "--max-retries", "0", *extra])
    out, err = capsys.readouterr()
    assert ADMIN not in out + err  # the key never reaches a report or a message
    return code, out, err


def test_complete_read_reconciles(capsys: pytest.CaptureFixture[str], sim: SimServer,
                                  capture: Path) -> None:
    code, out, err = run(capsys, sim, capture, "--format", "json")
    assert code == 0, out + err
    doc = json.loads(out)
    assert doc["complete"] is True
    assert [s.split("/v1/", 1)[1] for s in doc["sources"]] == \
        [f"{p} (1 page)" for p, _, _ in ENDPOINTS]
    assert [(r["line_item"], r["remainder_usd"], r["status"]) for r in doc["rows"]] == [
        ("gpt-4.1 tokens", 0.0, "reconciled"),
        ("gpt-4.1-mini tokens", 0.056, "explained")]


def test_paging_is_followed_to_the_end(sim: SimServer) -> None:
    sim.org.page_buckets = 1  # one day a page: the two days take two pages
    config = ProviderConfig(base_url=sim.base_url, api_key_env="OPENAI_ADMIN_KEY")
    bill, error = read_bill(config, Window.days("2026-12-01", "2026-12-02"))
    assert error is None and bill.complete
    assert bill.sources[0].endswith("/v1/organization/costs (2 pages)")
    assert bill.days_read == {"2026-12-01", "2026-12-02"}
    assert round(sum(b.usd for b in bill.billed), 6) == 1.648


def test_interrupted_paging_is_said_partial(capsys: pytest.CaptureFixture[str],
                                            sim: SimServer, capture: Path) -> None:
    sim.org.page_buckets = 1
    sim.org.interrupt("costs", page=2, status=503)
    code, out, err = run(capsys, sim, capture)
    assert code == 2
    assert "bill read: PARTIAL" in out
    assert "2026-12-01  proj_claims  gpt-4.1 tokens         0.036000  0.036000  +0.000000" in out
    assert "gpt-4.1-mini tokens    0.056000         —          —  unknown" in out
    assert "read only in part" in err and "HTTP 503" in err


def test_401_names_the_variable_and_masks_the_echoed_key(
        capsys: pytest.CaptureFixture[str], sim: SimServer, capture: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_ADMIN_KEY", "sk-proj-NOTADMIN-0123456789abcdef")
    code, out, err = run(capsys, sim, capture)
    assert (code, out) == (2, "")
    assert "refused the admin key in $OPENAI_ADMIN_KEY (HTTP 401)" in err
    assert "NOTADMIN" not in err  # the simulator echoes the key it was sent


def test_no_key_is_said_before_any_request(capsys: pytest.CaptureFixture[str], sim: SimServer,
                                           capture: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    monkeypatch.delenv("OPENAI_ADMIN_KEY")
    code, out, err = run(capsys, sim, capture)
    assert (code, out) == (2, "")
    assert "no admin key: $OPENAI_ADMIN_KEY is not set" in err


@pytest.mark.parametrize("url", ["http://[bad/v1", "http://127.0.0.1:99999/v1", "notaurl",
                                 "http://user:pw-SECRET-1@[bad/v1"])
def test_a_malformed_base_url_is_a_usage_error_before_any_request(
        url: str, capsys: pytest.CaptureFixture[str], capture: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """--base-url is checked as every other command checks it (it was a ValueError
    traceback from the HTTP client)."""
    monkeypatch.setenv("OPENAI_ADMIN_KEY", ADMIN)
    with pytest.raises(SystemExit) as exc:
        main(["reconcile", str(capture), "--live", "--base-url", url])
    out, err = capsys.readouterr()
    assert (exc.value.code, out) == (2, "")
    shown = url.replace("user:pw-SECRET-1", "[redacted]")  # the user name too
    assert err.endswith(f"traceview reconcile: error: argument --base-url: not a URL: "
                        f"{shown!r}; give the provider's base URL, e.g. "
                        "https://api.openai.com/v1 or http://127.0.0.1:8080/v1\n")
    assert "Traceback" not in err and "SECRET" not in err


def test_429_says_retry_after(capsys: pytest.CaptureFixture[str], sim: SimServer,
                              capture: Path) -> None:
    sim.inject(status=429, times=0, path="/v1/organization/costs")
    code, out, err = run(capsys, sim, capture)
    assert (code, out) == (2, "")
    assert "rate limited reading /v1/organization/costs (HTTP 429, after 0 retries)" in err
    assert "wait 2 s (Retry-After)" in err


def test_429_is_retried_after_the_wait_it_asks(sim: SimServer) -> None:
    sim.inject(status=429, times=1, path="/v1/organization/costs")
    waits: list[float] = []
    config = ProviderConfig(base_url=sim.base_url, api_key_env="OPENAI_ADMIN_KEY",
                            max_retries=1)
    bill, error = read_bill(config, Window.days("2026-12-01", "2026-12-02"),
                            sleep=waits.append)
    assert error is None and bill.complete
    assert waits == [2.0]


def test_5xx_on_the_first_page_reads_nothing(capsys: pytest.CaptureFixture[str],
                                             sim: SimServer, capture: Path) -> None:
    sim.inject(status=500, times=0, path="/v1/organization/costs")
    code, out, err = run(capsys, sim, capture)
    assert (code, out) == (2, "")
    assert "had a server error reading /v1/organization/costs (HTTP 500" in err


def test_a_usage_endpoint_failing_leaves_the_costs_labelled_partial(sim: SimServer) -> None:
    sim.inject(status=502, times=0, path="/v1/organization/usage/images")
    config = ProviderConfig(base_url=sim.base_url, api_key_env="OPENAI_ADMIN_KEY",
                            max_retries=0)
    bill, error = read_bill(config, Window.days("2026-12-01", "2026-12-02"))
    assert isinstance(error, ProviderError) and error.status_code == 502
    assert not bill.complete and bill.days_read == {"2026-12-01", "2026-12-02"}
    assert bill.sources[-1].endswith("/v1/organization/usage/images (stopped)")


def test_a_slow_answer_hits_the_deadline(capsys: pytest.CaptureFixture[str], sim: SimServer,
                                         capture: Path) -> None:
    sim.inject(kind="slow", delay=30, times=0, path="/v1/organization/costs")
    code, out, err = run(capsys, sim, capture, "--timeout", "0.3")
    assert (code, out) == (2, "")
    assert "did not answer /v1/organization/costs within 0.3 s" in err


def test_a_page_that_is_not_json(capsys: pytest.CaptureFixture[str], sim: SimServer,
                                 capture: Path) -> None:
    sim.inject(kind="malformed", times=0, path="/v1/organization/costs")
    code, out, err = run(capsys, sim, capture)
    assert (code, out) == (2, "")
    assert "sent a page of /v1/organization/costs that is not JSON" in err


def test_saved_pages_served_by_the_sim_read_back_the_same(sim: SimServer) -> None:
    """`traceview sim --costs FILE`: the pages a user saved, served for rehearsal."""
    from traceview.provider.org_pages import load_saved

    root = Path(__file__).parents[2]
    saved = load_saved([str(root / "tests/fixtures/reconcile/service_day.costs.json")])
    with SimServer() as other:
        other.org.load(saved)
        config = ProviderConfig(base_url=other.base_url, api_key_env="OPENAI_ADMIN_KEY")
        bill, error = read_bill(config, Window.days("2025-08-24", "2025-08-25"))
    assert error is None
    assert sorted(bill.billed, key=repr) == sorted(saved.billed, key=repr)


def test_has_more_without_a_cursor_stops_the_read_partial(
        capsys: pytest.CaptureFixture[str], sim: SimServer, capture: Path) -> None:
    sim.inject(kind="endless", times=0, path="/v1/organization/usage/completions")
    code, out, err = run(capsys, sim, capture)
    assert code == 2
    assert "bill read: PARTIAL" in out
    assert "says has_more but its next_page is missing" in err
