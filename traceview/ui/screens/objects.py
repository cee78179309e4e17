"""Provider objects (`o`): the conversations, stored responses, files and vector stores the
capture created, used or deleted, with the retention each implies; `x` turns it into the
deletion checklist `traceview objects CAPTURE [--case ID]` prints (containers too, in the
order to delete them, each with the call that deletes it), `f` filters it to one case, `v`
asks the provider about each of its objects (`--verify --live`: present, gone, error) and,
once every one answered, `w` writes the command's dated sidecar beside the capture.

Renders the core's `objects` inventory (analysis/objects.py), the same as
`traceview report --format json` carries, and its checklist (analysis/hosted/checklist.py).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from traceview.analysis.hosted.checklist import checklist, conversation_metadata
from traceview.ui.messages import ObjectChecked, ObjectsCheckEnded
from traceview.ui.objects_live import LiveCheck, live_config, live_title, sidecar_capture
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.objects_text import (
    CHECKLIST_COLUMNS,
    OBJECT_COLUMNS,
    checklist_detail,
    checklist_title,
    object_detail,
)
from traceview.ui.widgets.row_table import RowHeader, RowTable
from traceview.ui.widgets.text_scroll import TextScroll


class ObjectsScreen(InspectorScreen):
    """What the capture created, used and deleted on the provider's side; or (`x`) the
    deletion checklist of the capture or (`f`) of one case."""

    VIEW = "objects"

    BINDINGS = [Binding("escape,o", "back", "Back", tooltip="Back (cancels a running check)",
                        id="objects.back"),
                Binding("x", "checklist", "Checklist", id="objects.checklist"),
                Binding("f", "case", "Case", id="objects.case"),
                Binding("v", "check", "Check live", tooltip="Ask the provider whether each "
                        "object of the checklist is gone (404)", id="objects.check"),
                Binding("w", "write", "Write", tooltip="Write the finished check to the "
                        "dated sidecar beside the capture", id="objects.write")]

    def compose(self) -> ComposeResult:
        yield Static(id="objects-title")
        table = RowTable(OBJECT_COLUMNS, marked=lambda o: o["state"] in ("deleted", "not_found"),
                         id="object-table")
        yield RowHeader(table, id="object-header")
        yield table
        listed = RowTable(CHECKLIST_COLUMNS, marked=lambda o: o["state"] != "exists",
                          id="checklist-table")
        yield RowHeader(listed, id="checklist-header")
        yield listed
        yield Input(placeholder="case id (enter: filter the checklist; empty: every case)",
                    id="case-filter")
        with TextScroll(id="object-explain"):
            yield Static(id="object-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._case: str | None = None
        self._checklist = False
        self._doc: dict[str, Any] | None = None  # the checklist on screen
        self._live: LiveCheck | None = None
        self.query_one("#case-filter", Input).display = False
        self._show_mode()
        self.refresh_data()
        self._table().focus()

    def _table(self) -> RowTable:
        return self.query_one("#checklist-table" if self._checklist else "#object-table",
                              RowTable)

    def _show_mode(self) -> None:
        for wid in ("#object-table", "#object-header"):
            self.query_one(wid).display = not self._checklist
        for wid in ("#checklist-table", "#checklist-header"):
            self.query_one(wid).display = self._checklist

    def refresh_data(self) -> None:
        state = self.inspector.state
        objects = getattr(state.analysis, "objects", None)
        doc = objects.to_dict() if objects is not None else None
        rows = doc["objects"] if doc else []
        self._defaults = doc["retention_defaults"] if doc else {}
        table = self.query_one("#object-table", RowTable)
        table.set_rows(rows, table.cursor)
        title = Text("provider objects", style="bold")
        if doc is None:
            title.append(" · listed once the capture is read", style="italic")
        else:
            counts = doc["counts"]
            title.append(" · " + ", ".join(f"{n} {k.replace('_', ' ')}{'s' if n != 1 else ''}"
                                           for k, n in counts.items()))
        if self._checklist and objects is not None:
            title = self._refresh_checklist(state.analysis)
        self.query_one("#objects-title", Static).update(title)
        self._show(self._table().current())

    def _refresh_checklist(self, analysis: Any) -> Text:
        """The checklist of the case asked for (every case: None), as the command makes it."""
        cap = analysis.capture
        created = conversation_metadata(cap.exchanges, cap.read)
        doc = checklist(list(analysis.turns), analysis.objects, self._case, None, created)
        self._doc = doc
        self._show_checklist_rows()
        return self._checklist_heading()

    def _checklist_heading(self) -> Text:
        doc = self._doc
        if doc is None:
            return Text()
        title = checklist_title(doc)
        if self._case and not doc["turns"]:
            title.append(f" · no turn of case {self._case} in the capture", style="italic")
        return live_title(self._live) + title

    def _refresh_live(self) -> None:
        """Rows and title after an answer: the checklist itself is not made again."""
        self._show_checklist_rows()
        if self._checklist:
            self.query_one("#objects-title", Static).update(self._checklist_heading())
            self._show(self._table().current())

    def _show_checklist_rows(self) -> None:
        """The checklist's rows, each with what the provider said of it (if asked)."""
        doc, live = self._doc, self._live
        if doc is None:
            return
        rows = doc["objects"]
        if live is not None:
            rows = [{**o, "live": live.label(o),
                     "answer": live.answers.get((o["kind"], o["id"]))} for o in rows]
        listed = self.query_one("#checklist-table", RowTable)
        listed.set_rows(rows, listed.cursor)

    @on(RowTable.Highlighted)
    def _highlighted(self, event: RowTable.Highlighted) -> None:
        if event.table is self._table():  # not the hidden view's
            self._show(event.table.current())

    def _show(self, o: dict[str, Any] | None) -> None:
        self.query_one("#object-detail", Static).update(
            checklist_detail(o) if self._checklist
            else object_detail(o, getattr(self, "_defaults", None)))

    def action_checklist(self) -> None:
        self._checklist = not self._checklist
        self._show_mode()
        self.refresh_data()
        self._table().focus()

    def action_case(self) -> None:
        box = self.query_one("#case-filter", Input)
        box.display = True
        box.value = ""
        box.focus()

    @on(Input.Submitted, "#case-filter")
    def _case_given(self, event: Input.Submitted) -> None:
        self._case = event.value.strip() or None
        self._stop_check()
        self._live = None  # it was another list's
        event.input.display = False
        self._checklist = True
        self._show_mode()
        self.refresh_data()
        self._table().focus()

    # -- the live check (v), the sidecar (w) ----------------------------------------------
    def action_check(self) -> None:
        """Ask the provider about each object of the checklist on screen, in a worker."""
        if self._live is not None and self._live.running:
            self.notify("a live check is running: esc cancels it", markup=False)
            return
        if not self._checklist:
            self.action_checklist()
        doc = self._doc
        if doc is None or getattr(self.inspector.state.analysis, "objects", None) is None:
            self.notify("the capture is still being read", markup=False)
            return
        if not doc["objects"]:
            self.notify("no provider object to check", markup=False)
            return
        app = self.inspector
        live = LiveCheck(doc, live_config(app.diff_timeout, app.diff_max_retries))
        self._live = live
        self.run_worker(lambda: self._ask(live), thread=True, exclusive=True,
                        group="objects-check", name="check objects live", exit_on_error=False)
        self.refresh_data()

    def _ask(self, live: LiveCheck) -> None:
        """The worker: one answer posted at a time; stops between two when cancelled."""
        from textual.worker import get_current_worker

        from traceview.provider.errors import ProviderError
        from traceview.provider.objects_check import each_check

        worker = get_current_worker()
        answers: list[dict[str, Any]] = []
        try:
            for answer in each_check(live.config, live.doc["objects"]):
                if worker.is_cancelled:
                    return
                answers.append(answer)
                self.post_message(ObjectChecked(answer, len(answers), live.total))
        except ProviderError as exc:
            self.post_message(ObjectsCheckEnded(None, str(exc)))
            return
        except Exception as exc:  # a bug must not take the inspector down with it
            self.post_message(ObjectsCheckEnded(None, f"{type(exc).__name__}: {exc}"))
            return
        if not worker.is_cancelled:
            self.post_message(ObjectsCheckEnded(answers, None))

    def on_object_checked(self, message: ObjectChecked) -> None:
        live = self._live
        if live is None or not live.running:
            return  # a cancelled check's last answer
        a = message.answer
        live.answers[(a["kind"], a["id"])] = a
        self._refresh_live()

    def on_objects_check_ended(self, message: ObjectsCheckEnded) -> None:
        from traceview.provider.objects_check import verify_doc

        live = self._live
        if live is None or not live.running:
            return
        live.running = False
        if message.answers is None:
            self.notify(f"{message.error or 'the check stopped.'} Nothing was written.",
                        title="live check", severity="error", markup=False)
        else:
            live.verify = verify_doc(live.config, message.answers, live.started)
        self._refresh_live()

    def _stop_check(self) -> bool:
        """Cancel a running check (True when one was running)."""
        live = self._live
        if live is None or not live.running:
            return False
        self.workers.cancel_group(self, "objects-check")
        live.running = False
        return True

    def action_write(self) -> None:
        """The finished check, written as `traceview objects --verify --live` writes it."""
        from traceview.report.objects_out import sidecar_path, write_sidecar
        from traceview.safety.outputs import PathRefused

        live = self._live
        if live is None or live.verify is None:
            self.notify("nothing to write: v asks the provider about each object first, "
                        "and w writes the finished check", markup=False)
            return
        if live.written is not None:
            self.notify(f"already written to {live.written}", markup=False)
            return
        capture, why = sidecar_capture(self.inspector.paths)
        if capture is None:
            self.notify(why or "", severity="warning", markup=False)
            return
        sidecar = sidecar_path(capture, live.started)
        try:
            write_sidecar(live.doc, live.verify, sidecar, capture)
        except PathRefused as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        except OSError as exc:
            self.notify(f"cannot write {sidecar}: {exc.strerror or exc}", severity="error",
                        markup=False)
            return
        live.written = sidecar
        self.notify(f"live check written to {sidecar}", title="sidecar", markup=False)
        self._refresh_live()

    def action_back(self) -> None:
        if self._stop_check():
            live = self._live
            done = len(live.answers) if live else 0
            self.notify(f"live check cancelled after {done} answer(s): nothing written",
                        markup=False)
            self._refresh_live()
            return
        self.app.pop_screen()

    @on(RowTable.Selected)
    def _opened(self, event: RowTable.Selected) -> None:
        """⏎: the first turn that used the object, selected in the turns view."""
        from traceview.ui.state import conversation_key

        obj = event.table.current() or {}
        turns = [t for t in obj.get("turns") or [] if type(t) is int]
        first = self.inspector.state.by_index.get(turns[0]) if turns else None
        if first is None:
            return self.notify("no turn of this capture used it", markup=False)
        self._stop_check()  # a check still running ends here, unwritten
        self.app.pop_screen()
        self.inspector.main.show_conversation(conversation_key(first), first.index)
        if len(turns) > 1:
            self.notify(f"turn {turns[0]:,}: the first of {len(turns):,} turns that used "
                        f"{obj.get('id') or 'it'}", markup=False)
