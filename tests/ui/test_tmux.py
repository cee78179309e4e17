"""The inspector in a real terminal: tmux at 160x48, keys sent, screen read back."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from .conftest import ROOT, sample

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def traceview_command() -> list[str]:
    script = Path(sys.executable).with_name("traceview")
    return [str(script)] if script.exists() else [sys.executable, "-m", "traceview"]


class Tmux:
    def __init__(self, session: str) -> None:
        self.session = session

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", *args], check=True, capture_output=True, text=True, timeout=10
        ).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session)

    def wait_for(self, predicate, what: str, deadline: float = 15.0) -> str:
        """Poll the pane until ``predicate(screen)`` holds; fail after ``deadline`` s."""
        end = time.monotonic() + deadline
        screen = ""
        while time.monotonic() < end:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.05)  # polling interval of a bounded wait, not a synchronisation sleep
        raise AssertionError(f"timed out waiting for {what}; screen was:\n{screen}")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)


@pytest.fixture
def tmux():
    session = f"traceview-test-{uuid.uuid4().hex[:8]}"
    mux = Tmux(session)
    yield mux
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, timeout=10)


def test_claims_in_a_real_terminal(tmux: Tmux):
    claims = sample("claims")
    command = " ".join(
        ["unset COLUMNS LINES;", "TEXTUAL_ANIMATIONS=none", *traceview_command(), claims,
         "; echo traceview-exit-$?-done"]
    )
    tmux.run(
        "new-session", "-d", "-s", tmux.session, "-x", "160", "-y", "48", "-c", str(ROOT),
        "env", "TERM=xterm-256color", "PS1=$ ", "sh",
    )
    # A running tmux server may size new windows by its clients; pin this one to 160x48.
    tmux.run("set-option", "-t", tmux.session, "window-size", "manual")
    tmux.run("resize-window", "-t", tmux.session, "-x", "160", "-y", "48")
    tmux.keys(command, "Enter")
    def deposit_on_turn_3(screen: str) -> bool:
        rows = [line.split() for line in screen.splitlines() if "6,110" in line]
        return "4 turns" in screen and any(r[0] == "3" and "⊕" in r[-1] for r in rows)

    tmux.wait_for(deposit_on_turn_3, "the deposit marker ⊕ on turn 3 (billed 6,110)")

    tmux.keys("j", "j", "Enter")
    screen = tmux.wait_for(
        lambda s: "turn 3" in s and "bodies" in s and "tokens arrived without a request" in s,
        "the detail of turn 3",
    )
    assert "file_search_call.results" in screen
    assert "turn 3" in screen

    tmux.keys("Escape")
    tmux.wait_for(lambda s: "4 turns" in s, "back on the turns view")
    tmux.keys("q")
    screen = tmux.wait_for(
        lambda s: re.search(r"traceview-exit-\d+-done", s), "the app to quit"
    )
    assert "traceview-exit-0-done" in screen
    assert "Traceback" not in screen


def test_claims_at_80x24_shows_the_signals(tmux: Tmux):
    """The size many terminals and SSH sessions open at: hosted evidence, markers, the
    marker counts and `? Help` are on the screen without scrolling."""
    claims = sample("claims")
    command = " ".join(
        ["unset COLUMNS LINES;", "TEXTUAL_ANIMATIONS=none", *traceview_command(), claims,
         "; echo traceview-exit-$?-done"]
    )
    tmux.run(
        "new-session", "-d", "-s", tmux.session, "-x", "80", "-y", "24", "-c", str(ROOT),
        "env", "TERM=xterm-256color", "PS1=$ ", "sh",
    )
    tmux.run("set-option", "-t", tmux.session, "window-size", "manual")
    tmux.run("resize-window", "-t", tmux.session, "-x", "80", "-y", "24")
    tmux.keys(command, "Enter")

    def signals(screen: str) -> bool:
        rows = {line.split()[0]: line for line in screen.splitlines()[2:8] if line.split()}
        return ("4 turns" in screen and "3" in rows and "⊕" in rows["3"]
                and "file_search ✗" in rows.get("2", "") and "? Help" in screen)

    screen = tmux.wait_for(signals, "turn 3's ⊕ and turn 2's file_search ✗ at 80x24")
    assert "7 markers (⊕1 ✗2" in screen.splitlines()[0]
    assert "? Help" in [line for line in screen.splitlines() if line.strip()][-1]
    assert all(len(line) <= 80 for line in screen.splitlines())
    tmux.keys("q")
    screen = tmux.wait_for(lambda s: re.search(r"traceview-exit-\d+-done", s), "the app to quit")
    assert "Traceback" not in screen
