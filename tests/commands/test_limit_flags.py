"""`--timeout` and `--max-retries` are one definition for every command that reads the
provider: hydrate's had no help text, and objects' took `--timeout -1` and crashed in the
socket layer once `--verify --live` started."""

from __future__ import annotations

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main


@pytest.mark.parametrize("command", ["hydrate", "objects", "diff", "fetch"])
def test_every_provider_command_explains_its_limits(command: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--timeout SECONDS per-request timeout (default 30)" in out
    assert "--max-retries N retries on timeouts, 429 and 5xx (default 2)" in out


@pytest.mark.parametrize(("flag", "value", "said"), [
    ("--timeout", "-1", "argument --timeout: must be a number above 0, not -1"),
    ("--max-retries", "-1", "argument --max-retries: must be at least 0, not -1"),
])
def test_objects_refuses_an_unusable_limit_before_anything_runs(
        flag: str, value: str, said: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-limits-0123456789")
    with pytest.raises(SystemExit) as done:
        main(["objects", str(SAMPLES / "claims.jsonl"), "--case", "CS-88213", "--verify",
              "--live", "--base-url", "http://127.0.0.1:9/v1", flag, value])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith(f"traceview objects: error: {said}")
    assert "Traceback" not in err
