"""The command palette's entries: every action as "group: action", offered only where it
applies (the app's own everywhere; a screen's only while that screen is shown).

Screens are told apart by their ``VIEW`` name, so listing the palette imports none of
the screens the first screen does not need.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

if TYPE_CHECKING:
    from traceview.ui.inspector import Inspector


def view_of(screen: object) -> str | None:
    """The screen's view name ("turns", "detail", "diff", …), None for other screens."""
    return getattr(type(screen), "VIEW", None)


def inspector_commands(app: Inspector, screen: Any) -> Iterator[SystemCommand]:
    """The inspector's entries for ``screen`` (Textual's own are listed by the app)."""
    yield from _everywhere(app)
    view = view_of(screen)
    if view != "diff":
        yield SystemCommand("diff: provider copy vs capture",
                            "Fetch the provider copy of this conversation and diff it",
                            app.action_diff)
    if view == "diff" and hasattr(screen, "action_refetch"):  # not a diff row's bodies
        yield from _diff(screen)
    if view == "turns":
        yield from _turns(app, screen)
    if view == "detail":
        yield from _detail(app, screen)


def _everywhere(app: Inspector) -> Iterator[SystemCommand]:
    yield SystemCommand("view: conversations", "Pick a conversation", app.action_conversations)
    yield SystemCommand("view: problems", "Problems found while loading", app.action_problems)
    yield SystemCommand("view: help", "Keys and legends", app.action_help)
    yield SystemCommand("view: carried-context ledger",
                        "What context that arrived without a request costs, turn by turn",
                        app.action_ledger)
    yield SystemCommand("view: provider objects",
                        "Conversations, stored responses, files, vector stores; retention",
                        app.action_objects)
    yield SystemCommand("view: context of the turn (i)",
                        "What the model was shown: the input account, itemised",
                        app.action_context)
    yield SystemCommand("view: latency",
                        "Caller latency and time to first token, p50/p95, per-turn bars",
                        app.action_latency)
    yield SystemCommand("app: screenshot", "Save an SVG of this screen", app.action_screenshot)


def _diff(screen: Any) -> Iterator[SystemCommand]:
    yield SystemCommand("diff: next difference", "Jump to the next row that differs",
                        lambda: screen.action_next_difference(1))
    yield SystemCommand("diff: previous difference", "Jump to the previous difference",
                        lambda: screen.action_next_difference(-1))
    yield SystemCommand("diff: show both bodies", "Capture and provider item side by side",
                        screen.action_open_bodies)
    yield SystemCommand("diff: save snapshot", "Write the provider copy to a file",
                        screen.action_save_snapshot)
    yield SystemCommand("diff: fetch again", "Fetch the provider copy again",
                        screen.action_refetch)
    yield SystemCommand("diff: back", "Back (cancels a running fetch)", screen.action_back)


def _turns(app: Inspector, screen: Any) -> Iterator[SystemCommand]:
    yield SystemCommand("turns: open detail", "Detail of the selected turn", app.action_detail)
    yield SystemCommand("turns: raw bodies", "Detail with raw JSON bodies",
                        lambda: app.action_detail(raw=True))
    yield SystemCommand("turns: next marked turn", "Jump to the next turn with a marker",
                        lambda: screen.action_next_marked(1))
    yield SystemCommand("turns: previous marked turn", "Jump to the previous marked turn",
                        lambda: screen.action_next_marked(-1))
    yield SystemCommand("turns: search", "Find ids, models, tools, markers, text (/, n, N)",
                        screen.action_search)
    yield SystemCommand("turns: filter", "Show only the turns that match (&)",
                        screen.action_filter)
    yield SystemCommand("turns: go to",
                        "A turn number, L123 (a line) or a resp_/conv_/call_ id (:)",
                        screen.action_goto)
    yield SystemCommand("turns: sort by next column", "Cycle the sort column (S)",
                        screen.action_sort)
    yield SystemCommand("turns: copy selected id", "Copy the turn's response id (y)",
                        screen.action_copy)
    yield SystemCommand("turns: copy selected turn as JSON",
                        "The turn as report --format json writes it, to the clipboard (Y)",
                        screen.action_copy_json)
    for fmt_name in ("csv", "json", "markdown"):
        yield SystemCommand(f"export: visible table as {fmt_name}",
                            "The filtered rows and shown columns, raw values (asks where)",
                            lambda f=fmt_name: screen.export_table(f))
    table = screen.table
    for column in table.columns[1:]:
        hidden = column.title in table.hidden
        yield SystemCommand(
            f"columns: {'show' if hidden else 'hide'} {column.title}",
            "Show or hide this column of the turns table",
            lambda t=column.title: screen.toggle_column(t))


def _detail(app: Inspector, screen: Any) -> Iterator[SystemCommand]:
    yield SystemCommand("detail: next turn", "The next turn's detail (])",
                        lambda: app.run_action("step(1)", screen))
    yield SystemCommand("detail: previous turn", "The previous turn's detail ([)",
                        lambda: app.run_action("step(-1)", screen))
    yield SystemCommand("detail: toggle raw bodies", "Tree or raw JSON", screen.action_toggle_raw)
    yield SystemCommand("detail: search bodies", "Find text in the bodies", screen.action_search)
    yield SystemCommand("detail: back", "Back to the turns", screen.action_back)
