"""`traceview proxy --upstream URL`: a URL the proxy cannot join a client's path to is
refused at start, never forwarded to the wrong place on every request."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.cli import main


@pytest.mark.parametrize("upstream", ["http://127.0.0.1:9/v1?api-version=2024-10-21",
                                      "http://127.0.0.1:9/v1#frag"])
def test_an_upstream_with_a_query_or_fragment_is_refused(
        upstream: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from traceview.record.proxy_server import ProxyServer

    monkeypatch.setattr(ProxyServer, "serve_forever", lambda self: None)  # never blocks
    out = tmp_path / "t.jsonl"
    assert main(["proxy", "--port", "0", "--upstream", upstream, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--upstream" in err and "query" in err
