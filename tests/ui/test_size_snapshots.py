"""SVG snapshots of every view at 80x24, 120x36 and 200x55.

One behaviour each: the view renders its signals at that size. Regenerate after an
intended change with ``pytest tests/ui/test_size_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from traceview.ui.app import make_app

from .conftest import ROOT, sample

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SIZES = {"80x24": (80, 24), "120x36": (120, 36), "200x55": (200, 55)}
VIEWS = {
    "turns": ("claims", 3),
    "detail": ("claims", 3),
    "conversations": ("service_day", None),
    "problems": ("damaged", None),
    "help": ("claims", None),
    "diff": (None, None),
}


def loaded_then(view: str, turn: int | None):
    async def run_before(pilot) -> None:
        app = pilot.app
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.go_to(view, turn)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("view", list(VIEWS))
def test_view_at_size(snap_compare, monkeypatch, view, size):
    monkeypatch.chdir(ROOT)
    capture, turn = VIEWS[view]
    if view == "diff":
        # Offline: the saved provider copy, and no key or reachable server.
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
        app = make_app([os.path.relpath(FIXTURES / "diff_capture.jsonl", ROOT)])
        app.items_path = os.path.relpath(FIXTURES / "diff_snapshot.json", ROOT)
    else:
        app = make_app([os.path.relpath(sample(capture), ROOT)])
    assert snap_compare(app, terminal_size=SIZES[size], run_before=loaded_then(view, turn))
