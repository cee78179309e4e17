"""A capture full of markup, escape sequences and secrets is shown literally and redacted."""

from __future__ import annotations

import html
import re

from traceview.ui.app import make_app

from .conftest import sample

SECRETS = ("sk-proj-FAKEKEY1234567890abcdef", "sk-FAKE0000aaaa1111bbbb2222cccc")


def screen_text(app) -> str:
    """What the SVG export shows, as plain text (entities decoded, tags dropped)."""
    svg = app.export_screenshot()
    body = re.sub(r"<style.*?</style>", "", svg, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\xa0", " ")
    return text


def assert_literal(text: str) -> None:
    for raw in ("\x1b", "\x07", "\x00", "\x08", "\r", "\u202e", "\x9b"):
        assert raw not in text, f"{raw!r} reached the screen"
    assert not set(text) & {chr(c) for c in range(0x20) if c != 0x0A}
    for secret in SECRETS:
        assert secret not in text, "a secret reached the screen"


async def test_markup_and_escapes_show_literally_in_every_view():
    app = make_app([sample("hostile")])
    async with app.run_test(size=(160, 48)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        turns = screen_text(app)
        assert_literal(turns)
        assert "[bold red]pwned[/]" in turns, "markup must be shown, not applied"
        assert "\\x1b[31mred" in turns, "ESC must be made visible (summary pane)"

        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        tree = screen_text(app)
        assert_literal(tree)
        assert "[bold red]pwned[/]" in tree

        await pilot.press("r")
        await pilot.pause()
        raw = screen_text(app)
        assert_literal(raw)
        assert "[link=https://evil.example]" in raw

        for key in ("escape", "p", "escape", "c"):
            await pilot.press(key)
            await pilot.pause()
            assert_literal(screen_text(app))
