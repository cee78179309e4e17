"""A metadata tag named like a secret is a report's group name and value, not a field of
its own: its value is masked where the tag is read, in every report format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cost.helpers import response, turn, write
from traceview.safety import MASK

SECRET = "plainsecretvalue123"  # no key shape: only its tag's name says it is a secret


def _capture(tmp_path: Path) -> Path:
    conv = [{"dir": "req", "endpoint": "POST /v1/conversations",
             "body": {"metadata": {"tenant": "acme", "password": SECRET + "-conv"}}},
            {"dir": "res", "status": 200, "body": {"id": "conv_1", "object": "conversation",
                                                   "created_at": 1764576000}}]
    req = {"model": "gpt-4.1", "conversation": "conv_1", "input": "hi",
           "metadata": {"tenant": "acme", "api_key": SECRET}}
    return write(tmp_path / "c.jsonl", conv + turn(req, response("gpt-4.1", 100, 5,
                                                                 conv="conv_1")))


@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
def test_a_secret_named_tag_never_shows_its_value(tmp_path: Path, fmt: str) -> None:
    path = _capture(tmp_path)
    out = subprocess.run([sys.executable, "-m", "traceview", "report", "--format", fmt,
                          str(path)], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert SECRET not in out.stdout + out.stderr
    assert "acme" in out.stdout  # the other tags are still grouped and shown


def test_the_tag_is_grouped_under_the_mask(tmp_path: Path) -> None:
    from traceview.analysis.session import analyze

    a = analyze([str(_capture(tmp_path))])
    groups = a.cost["attribution"]["groups"]
    assert [g["value"] for g in groups["api_key"]] == [MASK]
    assert [g["value"] for g in groups["password"]] == [MASK]
    assert [g["value"] for g in groups["tenant"]] == ["acme"]
