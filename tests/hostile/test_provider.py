"""Broken providers: every failure is a clear message and an honest exit code."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures_shared import ROOT
from traceview.provider.client import ProviderConfig
from traceview.provider.errors import ProviderError
from traceview.provider.fetch import ProviderCopy, _paginate
from traceview.sim import SimServer

from .corpus import assert_no_traceback, traceview, write_jsonl

KEY = {"OPENAI_API_KEY": "sk-sim-test-000000000000"}


class _Page:
    def __init__(self, body: dict[str, Any]) -> None:
        self.text = json.dumps(body)


def _run(pages: list[dict[str, Any]]) -> ProviderCopy | ProviderError:
    it = iter(pages)
    base = ProviderCopy("conv_1", [], 0, False)
    try:
        return _paginate(lambda after: _Page(next(it)), lambda b: b.get("last_id"),
                         what="conversation conv_1", config=ProviderConfig(), max_pages=5,
                         base=base)
    except ProviderError as err:
        return err


@pytest.mark.parametrize("has_more", ["missing", None])
def test_a_page_without_has_more_but_with_a_cursor_is_not_complete(has_more: object) -> None:
    page: dict[str, Any] = {"object": "list", "data": [{"id": "a"}], "last_id": "a"}
    if has_more != "missing":
        page["has_more"] = has_more
    out = _run([page])
    assert isinstance(out, ProviderError)
    assert out.partial is not None and not out.partial.complete


def test_duplicate_ids_across_pages_are_kept_once_and_said() -> None:
    out = _run([{"object": "list", "data": [{"id": "a"}], "has_more": True, "last_id": "a"},
                {"object": "list", "data": [{"id": "a"}, {"id": "b"}], "has_more": False,
                 "last_id": "b"}])
    assert isinstance(out, ProviderCopy)
    assert [i["id"] for i in out.items] == ["a", "b"]
    assert out.warnings


def _cap(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "c.jsonl", [
        {"dir": "req", "body": {"model": "m", "conversation": "conv_x", "input": "hi"}},
        {"dir": "res", "body": {"object": "response", "id": "resp_1", "status": "completed",
                                "output": []}}])


@pytest.mark.parametrize(("fault", "exit_code", "words"), [
    ({"status": 401}, 2, b"HTTP 401"),
    ({"status": 403}, 2, b"HTTP 403"),
    ({"status": 404}, 2, b"not found"),
    ({"status": 429}, 2, b"Retry-After"),
    ({"status": 500}, 2, b"HTTP 500"),
    ({"status": 503}, 2, b"HTTP 503"),
    ({"kind": "malformed"}, 2, b"not JSON"),
    ({"kind": "endless"}, 1, b"pages"),
    ({"kind": "slow", "delay": 3.0}, 2, b"timed out"),
])
def test_each_provider_failure_is_one_clear_message(fault: dict[str, Any], exit_code: int,
                                                    words: bytes, tmp_path: Path) -> None:
    cap = _cap(tmp_path)
    with SimServer() as sim:
        sim.inject(times=0, path="/v1/conversations", **fault)
        for cmd in (["fetch", str(cap), "-o", str(tmp_path / "s.json")],
                    ["diff", str(cap), "--live"]):
            out = traceview(*cmd, "--base-url", sim.base_url, "--max-retries", "0",
                            "--timeout", "1", "--max-pages", "5", env=KEY)
            assert_no_traceback(out)
            assert out.returncode == exit_code, (cmd, out.stderr)
            assert words in out.stderr + out.stdout, out.stderr
            assert b"complete," not in out.stdout  # a partial copy is never called complete
            if cmd[0] == "diff" and out.stdout:
                assert b"PARTIAL" in out.stdout.upper() or b"partial" in out.stdout


def test_simulator_answers_a_bad_content_length_with_400() -> None:
    with SimServer() as sim:
        host, port = sim.httpd.server_address[:2]
        conn = http.client.HTTPConnection(host, port, timeout=5)
        conn.putrequest("POST", "/v1/responses")
        conn.putheader("Content-Length", "abc")
        conn.putheader("Authorization", "Bearer sk-x")
        conn.endheaders()
        assert conn.getresponse().status == 400
        conn.close()
        conn = http.client.HTTPConnection(host, port, timeout=5)  # and still serves
        conn.request("GET", "/v1/models", headers={"Authorization": "Bearer sk-x"})
        assert conn.getresponse().status in (200, 404)


def test_sim_faults_switch_on_from_flags() -> None:
    from traceview.sim.server import parse_fault

    assert parse_fault("429:2@/v1/responses") == {"times": 2, "path": "/v1/responses",
                                                 "status": 429}
    assert parse_fault("slow=1.5:0") == {"times": 0, "path": None, "kind": "slow",
                                         "delay": 1.5}
    for bad in ("teapot", "429:-1", "slow=x"):
        with pytest.raises(ValueError):
            parse_fault(bad)
    proc = subprocess.Popen([sys.executable, "-m", "traceview", "sim", "--quiet", "--fault",
                             "500:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode()
        base = first.rsplit(" ", 1)[-1].strip()
        import openai

        client = openai.OpenAI(base_url=base, api_key="sk-x", max_retries=0)
        with pytest.raises(openai.InternalServerError):
            client.responses.create(model="gpt-4.1", input="hi")
        client.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    out = traceview("sim", "--fault", "nonsense")
    assert out.returncode == 2 and b"--fault nonsense" in out.stderr


def test_cut_stream_fault_reaches_the_client() -> None:
    import openai

    with SimServer() as sim:
        sim.inject(kind="cut", path="/v1/responses")
        client = openai.OpenAI(base_url=sim.base_url, api_key="sk-x", max_retries=0)
        with pytest.raises((openai.APIError, http.client.HTTPException, Exception)):
            with client.responses.stream(model="gpt-4.1", input="hello there") as stream:
                for _ in stream:
                    pass
                stream.get_final_response()
        client.close()
