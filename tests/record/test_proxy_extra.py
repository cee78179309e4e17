"""`traceview proxy` without the [proxy] extra: one line naming it, exit 2, nothing written."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from traceview.cli import main


@pytest.mark.parametrize("absent", ["uvicorn", "httptools"])
def test_proxy_without_the_extra_names_it(absent: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    # httptools parses the upstream's responses (record/upstream_io.py): the proxy needs it
    # as it needs uvicorn, and says so rather than failing at its first request.
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == absent else real(name, *a))
    out = tmp_path / "trace.jsonl"
    assert main(["proxy", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{absent} is not installed" in err and "traceview[proxy]" in err
    assert "Traceback" not in err and not out.exists()
