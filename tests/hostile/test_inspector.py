"""The inspector with a capture that carries escapes in every field: Pilot (every view, a
notification) and a real terminal (tmux: title, clipboard and pane read with escapes)."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.fixtures_shared import ROOT
from traceview.ui.app import make_app

from .corpus import ESCAPES, KEY_SHAPES, escape_capture, forbidden_in, write_jsonl

SECRET_TEXT, SECRET = KEY_SHAPES[1][1], KEY_SHAPES[1][2]


def _capture(tmp_path: Path) -> Path:
    records = [r for p in ESCAPES.values() for r in escape_capture(p)]
    records[0]["body"]["input"] = f"quote {SECRET_TEXT}"
    return write_jsonl(tmp_path / "hostile.jsonl", records)


def screen_text(app) -> str:
    svg = app.export_screenshot()
    body = re.sub(r"<style.*?</style>", "", svg, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\xa0", " ")


def _assert_safe(app, where: str) -> None:
    text = screen_text(app)
    assert not forbidden_in(text), (where, forbidden_in(text))
    assert SECRET not in text, where


async def test_every_view_and_notification_is_safe(tmp_path: Path) -> None:
    app = make_app([str(_capture(tmp_path))])
    async with app.run_test(size=(160, 48)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        _assert_safe(app, "turns")
        for keys, where in ((["enter"], "detail"), (["r"], "raw"), (["escape", "p"], "problems"),
                           (["escape", "c"], "conversations"), (["escape", "question_mark"],
                                                                "help")):
            for key in keys:
                await pilot.press(key)
                await app.workers.wait_for_complete()
                await pilot.pause()
            _assert_safe(app, where)
        app.notify(f"from a capture: {ESCAPES['osc52_clipboard']} {SECRET_TEXT}",
                   title=ESCAPES["osc2_title"])
        await pilot.pause()
        _assert_safe(app, "notification")


def _tmux_available() -> bool:
    return shutil.which("tmux") is not None


@pytest.mark.skipif(not _tmux_available(), reason="tmux is not installed")
def test_a_real_terminal_gets_no_title_no_clipboard_no_escape(tmp_path: Path) -> None:
    cap = _capture(tmp_path)
    sock = f"traceview-hostile-{uuid.uuid4().hex[:8]}"

    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", sock, *args], check=True, capture_output=True,
                              text=True, timeout=10).stdout

    script = Path(sys.executable).with_name("traceview")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "traceview"]
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "h", "-x", "160", "-y", "48", "-c",
         str(ROOT), "env", "TERM=xterm-256color", "TEXTUAL_ANIMATIONS=none", "sh")
    try:
        tmux("set-option", "-s", "set-clipboard", "on")
        tmux("set-option", "-g", "allow-rename", "on")
        tmux("set-option", "-g", "allow-passthrough", "off")
        tmux("send-keys", "-t", "h", " ".join([*command, str(cap)]), "Enter")
        end = time.monotonic() + 30
        screen = ""
        while time.monotonic() < end:
            screen = tmux("capture-pane", "-p", "-e", "-t", "h")
            if "hostile.jsonl" in screen and "billed in" in screen:
                break
            time.sleep(0.05)  # polling interval of a bounded wait, not a synchronisation
        else:
            raise AssertionError(f"the inspector never showed the capture:\n{screen}")
        for keys in (["Enter"], ["r"], ["Escape", "p"]):
            before = tmux("capture-pane", "-p", "-e", "-t", "h")
            tmux("send-keys", "-t", "h", *keys)
            end = time.monotonic() + 15  # each key redraws the pane: read until it has
            shown = before
            while shown == before and time.monotonic() < end:
                time.sleep(0.05)  # polling interval of a bounded wait, not a synchronisation
                shown = tmux("capture-pane", "-p", "-e", "-t", "h")
            screen += shown
        end = time.monotonic() + 15  # a frame may be drawn in parts: read until the text is in
        while "\\x1b]5" not in screen and time.monotonic() < end:
            time.sleep(0.05)  # polling interval of a bounded wait, not a synchronisation
            screen += tmux("capture-pane", "-p", "-e", "-t", "h")
        title = tmux("display-message", "-p", "-t", "h", "#{pane_title}")
        assert "pwned" not in title and "c1-title" not in title, title
        assert "cHduZWQ" not in tmux("list-buffers", "-F", "#{buffer_sample}")
        assert "\x1b]" not in screen and "\x1bP" not in screen  # no OSC/DCS reached the pane
        assert "\\x1b]5" in screen  # the sequence is shown as text (cells may clip it)
        assert SECRET not in screen
        tmux("send-keys", "-t", "h", "q")
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True, timeout=10)
