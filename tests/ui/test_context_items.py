"""The context view (`i`) with the provider's items at hand: the carried line counted from
them, the same numbers `traceview context --items` prints (report/context_out.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from traceview.cli import main
from traceview.ui.app import make_app
from traceview.ui.screens.context import ContextScreen

from .conftest import SAMPLES, claims  # noqa: F401  (the fixture)
from .test_hosted_state_screens import _text

SNAPSHOT = SAMPLES / "claims.snapshot.json"


async def _context(app, turn: int, part: str = "#context-body") -> str:
    async with app.run_test(size=(200, 55)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.go_to("turns", turn)
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen)
        return _text(app.screen, part)


async def test_items_fills_the_carried_line_with_the_cores_count(claims, capsys,  # noqa: F811
                                                                   tmp_path: Path):
    assert main(["context", claims, "--turn", "3", "--items", str(SNAPSHOT),
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    [carried] = [c for c in doc["input_account"] if c["component"] == "carried"]
    assert (carried["tokens"], carried["basis"]) == (4499, "estimated")
    # a copy with no snapshot beside it: the snapshot reaches the view only through --items
    cap = tmp_path / "claims.jsonl"
    shutil.copyfile(claims, cap)
    bare = make_app([str(cap)])
    body = await _context(bare, 3)
    assert "?  stored (provider)  ? unknown  carried" in body
    assert "provider's items" not in body
    app = make_app([str(cap)])
    app.items_path = str(SNAPSHOT)
    body = await _context(app, 3)
    assert f"4,499  stored (provider)  ≈ estimated  carried    {carried['name']}" in body
    assert "counted 4,516 + 1 unknown   expected 2,109   billed 6,110" in body
    assert f"≈ carried {carried['name']}: {carried['reason']}" in body
    assert "carried, counted from the provider's items" in body
    assert "3,650  file_search_call fs_ac91541e83cddf2b86e3d…" in body


async def test_the_snapshot_beside_the_sample_counts_it_as_d_uses_it(claims,  # noqa: F811
                                                                     monkeypatch):
    """sample_traces/claims.jsonl ships claims.snapshot.json beside it: with no key to
    fetch with, `d` diffs with it and `i` counts the carried line from it."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    body = await _context(make_app([claims]), 3)
    assert "4,499  stored (provider)  ≈ estimated  carried" in body
    assert "carried, counted from the provider's items" in body
    # The title names the command that prints this same document: with the snapshot.
    title = await _context(make_app([claims]), 3, "#context-title")
    # Run as shown, it prints the same document: the capture first (found by a newcomer:
    # without it the command failed).
    assert f"(traceview context {claims} --turn 3 --items " in title
    assert title.rstrip().endswith("claims.snapshot.json)")


async def test_the_inspector_shows_the_account_report_items_writes(claims, capsys,  # noqa: F811
                                                                   tmp_path: Path):
    """`traceview CAPTURE --items FILE`: the context view's stack and the turn's own JSON
    (`Y`) carry the account `traceview report --items FILE` writes (one count)."""
    assert main(["report", claims, "--items", str(SNAPSHOT), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    cap = tmp_path / "claims.jsonl"
    shutil.copyfile(claims, cap)
    app = make_app([str(cap)])
    app.items_path = str(SNAPSHOT)
    async with app.run_test(size=(200, 55)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for turn in (2, 4):
            await app.go_to("turns", turn)
            await pilot.press("i")
            await pilot.pause()
            doc = app.screen.document()
            lines = [{k: v for k, v in c.items() if k != "origin"}
                     for c in doc["input_account"]]
            assert lines == report["turns"][turn - 1]["input_account"]
            row = app.state.analysis.turn(turn).to_dict()
            assert row["input_account"] == report["turns"][turn - 1]["input_account"]
            await pilot.press("escape")
            await pilot.pause()
    assert [t["tokens"] for t in report["provider_copy"]["turns"]] == [72, 449, 4499, 4916]
