"""The diff view: the capture's items beside the provider copy, aligned row by row.

The provider copy is fetched (or read from ``--items FILE``) in a thread worker owned by
this screen, so leaving the screen cancels it and the UI stays live while it runs; the
worker posts DiffReady and the handler shows it. The rows come from the core's
``analysis.diff`` and are laid out by ``widgets/diff_table.py``. A copy that is partial,
or a fetch that failed, is announced in a banner and is never labelled complete.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Static

from traceview.report.diff_output import SYMBOLS
from traceview.safety.redact import redact_text
from traceview.ui.diff_worker import DiffOutcome, DiffRequest, compute_diff
from traceview.ui.messages import DiffReady
from traceview.ui.safe_text import safe
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.widgets.account import capture_name
from traceview.ui.widgets.diff_table import (
    DiffTable,
    banner_text,
    body_text,
    diff_columns,
    legend_entries,
    status_text,
    summary_text,
    turn_cell,
)
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.legend_box import LegendBox
from traceview.ui.widgets.row_table import RowHeader, RowTable
from traceview.ui.widgets.text_scroll import TextScroll

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow
    from traceview.ui.inspector import Inspector


def _file_part(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", value).strip("_") or "conversation"


def diff_request(app: Inspector, turn: TurnRow) -> DiffRequest:
    """What `d` on ``turn`` asks the diff worker for: its conversation against the
    provider copy (fetched, or read from a snapshot), with the app's fetch settings."""
    return DiffRequest(
        paths=list(app.paths), turn_index=turn.index,
        conversation=getattr(turn, "conversation", None), items_path=snapshot_for(app),
        timeout=app.diff_timeout, max_retries=app.diff_max_retries,
        capture=getattr(app.session, "capture", None),
    )


def snapshot_for(app: Inspector) -> str | None:
    """The snapshot `d` compares with: --items, else — with no API key to fetch with —
    a ``<capture>.snapshot.json`` shipped beside the capture (the claims sample has one),
    so the diff works offline and says it is a snapshot, and from when."""
    if app.items_path is not None:
        return app.items_path
    if os.environ.get("OPENAI_API_KEY") or len(app.paths) != 1:
        return None
    capture = Path(app.paths[0])
    sibling = capture.with_name(capture.name.removesuffix(".jsonl") + ".snapshot.json")
    return str(sibling) if sibling.is_file() else None


class DiffScreen(InspectorScreen):
    """Capture | provider, one aligned row per item; n/p hop between differences."""

    VIEW = "diff"

    BINDINGS = [
        Binding("n", "next_difference(1)", "Next diff", id="diff.next"),
        Binding("N", "next_difference(-1)", "Prev diff", id="diff.previous"),
        Binding("w", "save_snapshot", "Save", tooltip="Save the provider copy as a snapshot",
                id="diff.save"),
        Binding("r", "refetch", "Refetch", tooltip="Fetch the provider copy again",
                id="diff.refetch"),
        Binding("escape,q", "back", "Back", tooltip="Back (cancels a running fetch)",
                id="diff.back"),
    ]

    def __init__(self, request: DiffRequest) -> None:
        super().__init__(id="diff")
        self.request = request
        self.outcome: DiffOutcome | None = None
        self.rows: list[Any] = []


    @property
    def fetching(self) -> bool:
        return any(w.group == "diff" and w.is_running for w in self.workers)

    @property
    def target(self) -> str | None:
        return self.outcome.target if self.outcome is not None else None

    def compose(self) -> ComposeResult:
        yield Static(id="diff-title")
        yield Static(id="diff-status")
        yield Static(id="diff-banner")
        with Horizontal(id="diff-fetching"):
            yield LoadingIndicator(id="diff-spinner")
            yield Static(id="diff-fetching-text")
        yield Static(id="diff-summary")
        table = DiffTable(diff_columns(), id="diff-rows")
        yield RowHeader(table, id="diff-header")
        yield table
        with TextScroll(id="diff-row"):
            yield Static(id="diff-row-text")
        legend = LegendBox(id="diff-legend", max_lines=2)
        legend.show(legend_entries())
        yield legend
        yield KeyFooter()

    @property
    def table(self) -> DiffTable:
        return self.query_one("#diff-rows", DiffTable)

    def on_mount(self) -> None:
        self.table.focus()
        self.start()

    # -- the worker -------------------------------------------------------------------------
    def start(self) -> None:
        """(Re)fetch in a thread; an earlier fetch of this screen is cancelled (exclusive)."""
        self.outcome = None
        self.rows = []
        self.table.set_rows(self.rows)
        self.query_one("#diff-summary", Static).update("")
        self.query_one("#diff-row-text", Static).update("")
        self._show_banner(None)
        source = (f"reading {self.request.items_path}" if self.request.items_path
                  else "fetching provider copy")
        self.query_one("#diff-fetching-text", Static).update(
            safe(f"{source} of turn {self.request.turn_index}'s conversation… (esc to cancel)")
        )
        self.query_one("#diff-fetching").add_class("visible")
        self._refresh_title()
        request = self.request
        self.run_worker(lambda: self._work(request), thread=True, exclusive=True, group="diff",
                        name="fetch provider copy", exit_on_error=False)

    def _work(self, request: DiffRequest) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        try:
            outcome = compute_diff(request, lambda: worker.is_cancelled)
        except Exception as exc:  # a bug must not take the inspector down with it
            outcome = DiffOutcome(None, error=f"{type(exc).__name__}: {exc}",
                                  error_kind="internal")
        if not worker.is_cancelled:
            self.post_message(DiffReady(outcome))

    def on_diff_ready(self, message: DiffReady) -> None:
        self.query_one("#diff-fetching").remove_class("visible")
        self.outcome = message.outcome
        result = self.outcome.result
        self.rows = list(result.rows) if result is not None else []
        first = next((i for i, r in enumerate(self.rows) if r.kind != "same"), 0)
        self.table.set_rows(self.rows, first)
        self._show_banner(banner_text(self.outcome))
        self.query_one("#diff-summary", Static).update(summary_text(self.outcome))
        self.query_one("#diff-header", RowHeader).refresh()
        self._refresh_title()
        self._show_row()

    # -- display ----------------------------------------------------------------------------
    def _refresh_title(self) -> None:
        title = Text("traceview", style="bold")
        title.append(" · diff vs provider copy · ")
        title.append_text(safe(capture_name(self.inspector.sources)))
        outcome = self.outcome
        if outcome is not None and outcome.target:
            kind = outcome.result.kind if outcome.result is not None else "conversation"
            title.append_text(safe(f" · {kind} {outcome.target}"))
        self.query_one("#diff-title", Static).update(title)
        self.query_one("#diff-status", Static).update(status_text(outcome))

    def _show_banner(self, text: Text | None) -> None:
        banner = self.query_one("#diff-banner", Static)
        banner.update(text or "")
        banner.set_class(text is not None, "visible")
        failed = self.outcome is not None and self.outcome.result is None
        banner.set_class(failed, "-failed")

    @on(RowTable.Highlighted, "#diff-rows")
    def _highlighted(self, event: RowTable.Highlighted) -> None:
        self._show_row()

    @on(RowTable.Selected, "#diff-rows")
    def _selected(self, event: RowTable.Selected) -> None:
        self.action_open_bodies()

    def _show_row(self) -> None:
        row = self.table.current()
        out = Text()
        if row is not None:
            out.append(f"{SYMBOLS.get(row.kind, '?')} {row.kind}", style="bold")
            out.append(f"  turn {turn_cell(row)}  ")
            out.append_text(safe(f"{row.item_type} {row.item_id or ''}".strip(), style="dim"))
            if row.tokens:
                out.append(f"  ≈ {row.tokens:,} tokens", style="bold")
            out.append("\n")
            out.append_text(safe(redact_text(row.reason), multiline=True))
            out.append("  (enter: both bodies)", style="dim")
        self.query_one("#diff-row-text", Static).update(out)

    # -- actions ----------------------------------------------------------------------------
    def action_next_difference(self, direction: int) -> None:
        start = self.table.cursor + direction
        indices = range(start, len(self.rows)) if direction > 0 else range(start, -1, -1)
        for i in indices:
            if self.rows[i].kind != "same":
                self.table.move_to(i)
                return
        where = "below" if direction > 0 else "above"
        self.notify(f"no more differences {where}", markup=False)

    def action_open_bodies(self) -> None:
        row = self.table.current()
        if row is not None:
            self.app.push_screen(DiffBodiesScreen(row))

    def snapshot_path(self) -> Path:
        """``<capture-stem>-<conversation>-snapshot.json`` in the output directory (the
        one rule of ui/output.py; a fixed name, so `--items` finds it again)."""
        stem = Path(self.inspector.sources[0]).name if self.inspector.sources else "capture"
        for suffix in (".gz", ".jsonl", ".json"):
            stem = stem.removesuffix(suffix)
        name = f"{_file_part(stem)}-{_file_part(self.target or 'conversation')}-snapshot.json"
        return Path(getattr(self.inspector, "output_dir", None) or ".") / name

    def action_save_snapshot(self) -> Path | None:
        copy = self.outcome.copy if self.outcome is not None else None
        if copy is None:
            self.notify("no provider copy to save yet", markup=False)
            return None
        from traceview.provider.snapshot import save_snapshot

        path = self.snapshot_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            save_snapshot(copy, path)
        except OSError as exc:
            self.notify(f"cannot write {path}: {exc.strerror or exc}", severity="error",
                        markup=False)
            return None
        state = "complete" if copy.complete else "PARTIAL"
        self.notify(f"snapshot ({state}, {copy.item_count:,} items) written to "
                    f"{path.resolve()}",
                    title="snapshot", markup=False)
        return path

    def action_refetch(self) -> None:
        self.start()

    def action_back(self) -> None:
        if self.fetching:
            self.workers.cancel_group(self, "diff")
            self.notify("diff cancelled", markup=False)
        self.app.pop_screen()


class DiffBodiesScreen(Screen[None]):
    """One diff row's two items side by side: capture left, provider right (redacted)."""

    VIEW = "diff"

    BINDINGS = [
        Binding("escape,q,backspace", "back", "Back", id="diff_bodies.back"),
    ]

    def __init__(self, row: Any) -> None:
        super().__init__(id="diff-bodies")
        self.row = row

    def compose(self) -> ComposeResult:
        row = self.row
        title = Text("traceview", style="bold")
        title.append(" · diff item · ")
        title.append(f"{SYMBOLS.get(row.kind, '?')} {row.kind} · turn {turn_cell(row)} · ")
        title.append_text(safe(f"{row.item_type} {row.item_id or ''}".strip()))
        yield Static(title, id="diff-bodies-title")
        yield Static(safe(redact_text(row.reason), multiline=True), id="diff-bodies-reason")
        with Horizontal(id="diff-bodies-panes"):
            with TextScroll(id="diff-capture-body", classes="diff-body"):
                yield Static(body_text("capture", row.capture_item, "not in the capture"))
            with TextScroll(id="diff-provider-body", classes="diff-body"):
                yield Static(body_text("provider", row.provider_item, "not at the provider"))
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#diff-capture-body").focus()

    def action_back(self) -> None:
        self.app.pop_screen()
