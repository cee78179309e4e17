"""`traceview proxy` without the [proxy] extra: one line naming it, exit 2, nothing written."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from traceview.cli import main

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.mark.parametrize("absent", ["uvicorn", "httptools"])
@pytest.mark.parametrize("argv", [["--port", "8080", "-o", "{out}"], ["--help"]])
def test_proxy_parser_needs_no_extra(absent: str, argv: list[str], tmp_path: Path) -> None:
    # In a fresh process where the module cannot be imported at all (the in-process test
    # above finds the record modules already loaded): the parser built without httptools
    # had no options, so every flag was "unrecognized" and --help listed only -h.
    out = tmp_path / "trace.jsonl"
    args = [a.format(out=out) for a in ["proxy", *argv]]
    code = (f"import sys; sys.modules[{absent!r}] = None\n"
            "from traceview.cli import main\n"
            f"sys.exit(main({args!r}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    if argv == ["--help"]:
        assert done.returncode == 0, done.stderr
        assert "--port PORT" in done.stdout and "--output CAPTURE" in done.stdout
        return
    assert done.returncode == 2
    assert done.stderr == (f"traceview proxy: {absent} is not installed: pip install "
                           "'traceview[proxy]' (in a clone: .venv/bin/pip install -e "
                           "'.[proxy]')\n")
    assert not out.exists()
