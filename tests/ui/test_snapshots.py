"""SVG snapshots of each view on the sample captures at a fixed terminal size.

Regenerate after an intended change with ``pytest tests/ui --snapshot-update`` and look
at the result (``screenshots/export.py`` writes PNGs of the same views).
"""

from __future__ import annotations

import os

import pytest

from traceview.ui.app import make_app

from .conftest import ROOT, sample

SIZE = (140, 40)


def loaded_then(view: str, turn: int | None = None):
    async def run_before(pilot) -> None:
        app = pilot.app
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.go_to(view, turn)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize(
    ("capture", "view", "turn"),
    [
        ("claims", "turns", 3),
        ("claims", "detail", 3),
        ("service_day", "conversations", None),
        ("damaged", "problems", None),
        ("claims", "help", None),
        ("long_conversation", "turns", None),
    ],
)
def test_view_snapshot(snap_compare, monkeypatch, capture, view, turn):
    # A path relative to the checkout: screens show it, and the baseline must not depend
    # on where the repository was cloned.
    monkeypatch.chdir(ROOT)
    app = make_app([os.path.relpath(sample(capture), ROOT)])
    assert snap_compare(app, terminal_size=SIZE, run_before=loaded_then(view, turn))
