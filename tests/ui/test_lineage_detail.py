"""The detail view shows a turn's lineage: each citation beside the text it annotates
with where its source came from, the retrieval per hosted call, choices and settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from tests.lineage.lineage_capture import write_capture
from traceview.ui.app import make_app
from traceview.ui.screens.detail import DetailScreen

from .test_keys import loaded, plain


@pytest.mark.parametrize("size", [(140, 40), (80, 24)])
async def test_detail_shows_citations_beside_their_text_and_the_retrieval(
        tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app([str(write_capture(tmp_path / "case.jsonl"))])
    async with app.run_test(size=size) as pilot:
        await loaded(app, pilot)
        await pilot.press("enter")
        await loaded(app, pilot)
        screen = app.screen
        assert isinstance(screen, DetailScreen) and screen.turn.index == 1
        text = " ".join(plain(screen.query_one("#lineage", Static)).split())
        assert "temperature 0.2 · top_p 0.9" in text
        assert "logprobs: 2 tokens, mean p 0.750, min p 0.500" in text
        assert "retrieved file_search_call fs_1 for 'accidental damage excess' in vs_policy" \
            in text
        assert "0.910 file-policy policy.pdf" in text
        # The quoted span is read from the body once it has loaded.
        assert "“The excess is £100” → policy.pdf file-policy [file_citation] ✓ returned " \
               "by fs_1 (turn 1)" in text
        assert "file-ghost [file_citation] ⁇ no captured retrieval returned it" in text
        assert "⍰ names no source" in text
        assert "note: temperature (0.2) and top_p (0.9) both set" in text


async def test_help_and_docs_name_the_new_markers(tmp_path: Path) -> None:
    from traceview.ui.screens.help import HelpScreen

    app = make_app([str(write_capture(tmp_path / "case.jsonl"))])
    async with app.run_test(size=(140, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = plain(app.screen.query_one("#help-text", Static))
    root = Path(__file__).resolve().parents[2]
    docs = {name: (root / name).read_text() for name in
            ("README.md", "docs/markers.md", "docs/report-contract.md")}
    for marker, glyph in (("tool_choice_unmet", "⊗"), ("citation_unretrieved", "⁇"),
                          ("citation_unidentified", "⍰")):
        assert f"{glyph}   {marker}" in text or f"{glyph} {marker}" in " ".join(text.split())
        assert f"| {glyph} | `{marker}` |" in docs["docs/markers.md"]
        assert marker in docs["README.md"]
    assert "`lineage`" in docs["docs/report-contract.md"]
    assert "foreign_traffic" in docs["docs/report-contract.md"]


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
def test_detail_with_citations_snapshot(snap_compare, monkeypatch, size) -> None:
    """claims.jsonl turn 2: its citation cannot be checked (file-search results not
    captured) — the lineage lines under the account, at 80x24 too."""
    import os

    from .conftest import ROOT, sample
    from .test_size_snapshots import loaded_then

    monkeypatch.chdir(ROOT)
    app = make_app([os.path.relpath(sample("claims"), ROOT)])
    assert snap_compare(app, terminal_size=size, run_before=loaded_then("detail", 2))
