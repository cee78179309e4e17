"""A base URL with ``user:password@`` in it: the HTTP client sends them as Basic auth in
place of the Bearer key, so a 401 is said as the URL's credentials refused (not the key in
$OPENAI_API_KEY), and neither the password nor the Basic token made of it reaches any
output, even when the server echoes them back."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.reconcile_data import PROJECT, crafted_capture
from traceview.cli import main
from traceview.sim import SimServer

from .fakeserver import FakeProvider, Seen, Store
from .test_commands import KEY, write_capture

PASSWORD = "hunter2-pw-0123"
TOKEN = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
REFUSED = ("the provider refused the user name and password in the base URL (--base-url or "
           "$OPENAI_BASE_URL) (HTTP 401{reading}): they are sent as HTTP Basic auth in place "
           "of the {key} in ${env}. Check them, or take them out of the URL to send the key.")


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TV_TEST_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def with_credentials(url: str) -> str:
    return url.replace("http://", f"http://alice:{PASSWORD}@")


def assert_unsaid(text: str) -> None:
    for secret in (PASSWORD, TOKEN, KEY):
        assert secret not in text


def test_fetch_refused_says_the_url_credentials_were_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cap, out = write_capture(tmp_path / "c.jsonl"), tmp_path / "snap.json"
    with FakeProvider(Store(conversations={"conv_1": []}, key=KEY).route) as fp:
        code = main(["fetch", str(cap), "-o", str(out), "--base-url",
                     with_credentials(fp.base_url), "--api-key-env", "TV_TEST_KEY",
                     "--max-retries", "0"])
    assert [s.authorization for s in fp.seen] == [f"Basic {TOKEN}"]  # the key was not sent
    said = capsys.readouterr()
    assert (code, said.out, not out.exists()) == (2, "", True)
    assert said.err == ("traceview fetch: " + REFUSED.format(reading="", key="API key",
                                                             env="TV_TEST_KEY")
                        + " The provider said: Incorrect API key provided: ***\n")
    assert_unsaid(said.err)


def test_credentials_the_server_echoes_never_reach_the_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def echo(seen: Seen) -> tuple[int, object]:
        return 401, {"error": {"message": f"{seen.authorization} is alice:{PASSWORD}, "
                                          f"password {PASSWORD}"}}

    cap = write_capture(tmp_path / "c.jsonl")
    with FakeProvider(echo) as fp:
        code = main(["diff", str(cap), "--base-url", with_credentials(fp.base_url),
                     "--api-key-env", "TV_TEST_KEY", "--max-retries", "0"])
    said = capsys.readouterr()
    assert code == 2 and "refused the user name and password in the base URL" in said.err
    assert "The provider said: Basic [redacted] is alice:[redacted], password [redacted]" \
        in said.err
    assert_unsaid(said.out + said.err)


def test_reconcile_live_refused_says_the_url_credentials_were_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_ADMIN_KEY", KEY)
    cap = crafted_capture(tmp_path / "cap.jsonl")
    with SimServer() as sim:
        code = main(["reconcile", str(cap), "--live", "--base-url",
                     with_credentials(sim.base_url), "--project", PROJECT,
                     "--max-retries", "0"])
    said = capsys.readouterr()
    assert (code, said.out) == (2, "")
    assert said.err.startswith("traceview reconcile: " + REFUSED.format(
        reading=" reading /v1/organization/costs", key="admin key", env="OPENAI_ADMIN_KEY"))
    assert_unsaid(said.err)


HINT = "; give the provider's base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1"


@pytest.mark.parametrize("url,said", [
    # A space in the password stopped the redactor short: the password was printed.
    (f"http://alice:{PASSWORD} x@127.0.0.1/v1",
     "not a URL: 'http://[redacted]@127.0.0.1/v1' (it has a space in its user name or "
     "password, which no URL has)"),
    (f"http://alice:{PASSWORD}/x@[bad/v1", "not a URL: 'http://[redacted]@[bad/v1'"),
    (f"http://alice:{PASSWORD}@127.0.0.1:99999/v1",
     "not a URL: 'http://[redacted]@127.0.0.1:99999/v1'"),
    # A URL but for a space: refused as just "not a URL", the cause unsaid.
    ("http://127.0.0.1:18181/v1 ", "not a URL: 'http://127.0.0.1:18181/v1 ' (it has a space "
                                   "at its end, which no URL has)"),
    ("\thttp://127.0.0.1:18181/v1", "not a URL: '\\thttp://127.0.0.1:18181/v1' (it has a tab "
                                    "at its start, which no URL has)"),
    ("http://127.0.0.1 :18181/v1", "not a URL: 'http://127.0.0.1 :18181/v1' (it has a space "
                                   "inside it, which no URL has)"),
])
def test_a_bad_base_url_is_said_with_its_cause_and_never_its_password(
        url: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-000000000000")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    cap = write_capture(tmp_path / "c.jsonl")
    code = main(["fetch", str(cap), "-o", str(tmp_path / "snap.json"), "--max-retries", "0"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"traceview fetch: $OPENAI_BASE_URL: {said}"), err
    assert HINT in err and "Traceback" not in err
    assert_unsaid(err)
    assert PASSWORD not in err and "alice" not in err
    assert not (tmp_path / "snap.json").exists()
