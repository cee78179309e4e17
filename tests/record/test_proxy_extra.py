"""`traceview proxy` without the [proxy] extra: one line naming it, exit 2, nothing written."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from traceview.cli import main


def test_proxy_without_uvicorn_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "uvicorn" else real(name, *a))
    out = tmp_path / "trace.jsonl"
    assert main(["proxy", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "uvicorn is not installed" in err and "traceview[proxy]" in err
    assert "Traceback" not in err and not out.exists()
