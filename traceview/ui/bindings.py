"""The inspector's app-wide key bindings, in one list: the app binds it, and help (`?`)
and the keymap file's check read it without importing the app."""

from __future__ import annotations

from textual.binding import Binding, BindingType

APP_BINDINGS: list[BindingType] = [
    Binding("q", "quit", "Quit", id="app.quit"),
    Binding("question_mark", "help", "Help", id="app.help"),
    Binding("c", "conversations", "Conversations", id="app.conversations"),
    Binding("p", "problems", "Problems", id="app.problems"),
    Binding("d", "diff", "Diff", tooltip="Diff this conversation against the provider copy",
            id="app.diff"),
    Binding("s", "screenshot", "Screenshot", id="app.screenshot"),
    Binding("F", "follow", "Follow", tooltip="Follow the capture as it is written",
            id="app.follow"),
    Binding("R", "reload", "Reload", show=False, tooltip="Read the capture again",
            id="app.reload"),
    # Not in the footer (it is full, and every screen's snapshot would move): listed by
    # `?` and the command palette.
    Binding("l", "ledger", "Ledger", tooltip="Carried context of this conversation",
            show=False, id="app.ledger"),
    Binding("o", "objects", "Objects", tooltip="Provider objects the capture touched",
            show=False, id="app.objects"),
    Binding("i", "context", "Context", tooltip="What the model was shown on this turn",
            show=False, id="app.context"),
    Binding("t", "latency", "Latency", tooltip="Caller latency and time to first token",
            show=False, id="app.latency"),
]
