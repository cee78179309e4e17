"""The turns view's outputs: `y`/`Y` copy, `E` and the palette's exports (a prompt with
the default path of ui/output.py, then data from ui/table_export.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from traceview.ui.safe_text import safe

if TYPE_CHECKING:
    from textual.app import App

    from traceview.analysis.seams import TurnRow
    from traceview.ui.inspector import Inspector
    from traceview.ui.widgets.row_table import RowTable


class TurnsOutput:
    """Copy and export for the turns view (mixed into MainScreen)."""

    rows: list[TurnRow]
    inspector: Inspector
    last_export: Path | None = None

    if TYPE_CHECKING:  # the screen's own, declared for the type checker only
        app: App[object]
        @property
        def table(self) -> RowTable: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...

    def action_copy(self) -> None:
        """y: the selected turn's response id (else its turn number) to the clipboard."""
        turn = self.table.current()
        if turn is None:
            return
        value = getattr(turn, "response_id", None) or f"turn {turn.index}"
        self.inspector.copy_to_clipboard(value)
        self.notify(safe(f"copied {value}").plain, markup=False, timeout=2)

    def action_copy_json(self) -> None:
        """Y: the selected turn as ``report --format json`` writes it, to the clipboard
        (Textual's copy_to_clipboard: the terminal's OSC 52, where the terminal allows)."""
        from traceview.ui.table_export import clean

        turn = self.table.current()
        if turn is None:
            return
        to_dict = getattr(turn, "to_dict", None)
        data = to_dict() if callable(to_dict) else {
            c.title: c.value(turn) if c.value else None for c in self.table.columns}
        text = json.dumps(clean(data), ensure_ascii=False, default=str)
        self.inspector.copy_to_clipboard(text)
        self.notify(f"turn {turn.index} copied as JSON ({len(text):,} characters) through "
                    "the terminal's clipboard (OSC 52)", markup=False, timeout=3)

    def action_export(self) -> None:
        self.export_table("csv")

    def export_columns(self) -> list[Any]:
        table = self.table
        return [c for c, _ in table.fit_columns(table.size.width or 200)]

    def export_table(self, fmt_name: str) -> None:
        """Ask where (the default path filled in), then write the visible table."""
        from traceview.ui.output import output_path
        from traceview.ui.screens.path_prompt import PathPrompt
        from traceview.ui.table_export import FORMATS

        app = self.inspector
        default = output_path(app.output_dir, app.sources, "turns", FORMATS[fmt_name])

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.write_table(fmt_name, path)

        prompt = PathPrompt(f"{len(self.rows):,} rows as {fmt_name}", default)
        self.app.push_screen(prompt, chosen)

    def write_table(self, fmt_name: str, path: Path) -> Path | None:
        from traceview.safety.outputs import PathRefused
        from traceview.ui.table_export import write_export

        try:
            written = write_export(path, fmt_name, self.export_columns(), self.rows,
                                   self.inspector.sources)
        except PathRefused as exc:
            self.notify(safe(f"nothing written: {exc}").plain, severity="error", markup=False)
            return None
        except OSError as exc:
            self.notify(f"export failed: {exc.strerror or exc}", severity="error",
                        markup=False)
            return None
        self.last_export = written
        self.notify(safe(f"{len(self.rows):,} rows written to {written.resolve()}").plain,
                    markup=False)
        return written
