"""Export the visible turns table (filtered rows, shown columns) as CSV, JSON or markdown.

CSV and JSON are data: each column's raw value (numbers as numbers, unknown as empty /
null, the whole user text, hosted calls and markers by name); only markdown, written for
people, carries the screen's formatting. Every string goes through the sanitiser and the
redactor (a file written here is an output like any other).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.text import Text

from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible
from traceview.ui.widgets.row_table import Column

FORMATS = {"csv": "csv", "json": "json", "markdown": "md"}


def clean(value: Any) -> Any:
    """``value`` with every string in it made visible and redacted (lists, dicts too)."""
    if isinstance(value, str):
        return redact_text(visible(value))
    if isinstance(value, dict):
        return {clean(str(k)): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if value is None or isinstance(value, (int, float, bool)):
        return value
    return clean(str(value))


def raw_value(column: Column, row: Any) -> Any:
    if column.value is not None:
        return clean(column.value(row))
    return display_value(column, row)


def display_value(column: Column, row: Any) -> str:
    value = column.cell(row)
    return str(clean(value.plain if isinstance(value, Text) else str(value)))


def _csv_cell(value: Any) -> str:
    """One CSV field: unknown empty, lists of names joined by ``;``, calls as JSON; text
    neutralised as every CSV traceview writes (a cell a spreadsheet would run as a formula
    gets a leading apostrophe; numbers stay numbers)."""
    from traceview.export.sinks import csv_safe

    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = ";".join(value)
    return str(csv_safe(value))


def render(fmt: str, columns: Sequence[Column], rows: Sequence[Any]) -> str:
    titles = [c.title for c in columns]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(titles)
        writer.writerows([_csv_cell(raw_value(c, r)) for c in columns] for r in rows)
        return out.getvalue()
    if fmt == "json":
        data = [{t: raw_value(c, r) for t, c in zip(titles, columns, strict=True)} for r in rows]
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    if fmt == "markdown":
        def line(values: list[str]) -> str:
            return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"
        cells = [[display_value(c, r) for c in columns] for r in rows]
        body = [line(titles), line(["---"] * len(titles))] + [line(r) for r in cells]
        return "\n".join(body) + "\n"
    raise ValueError(f"unknown export format {fmt!r} (csv, json, markdown)")


def write_export(path: Path, fmt: str, columns: Sequence[Column], rows: Sequence[Any],
                 inputs: Sequence[str] = ()) -> Path:
    """Write the table to ``path`` whole or not at all; PathRefused when ``path`` is one of
    the ``inputs`` (a typed name may be the capture itself) or not a regular file. Typing
    an existing file's name is the choice to replace it: the prompt has no --force."""
    from traceview.safety.outputs import refuse_output, replacing

    refuse_output(path, inputs, force=True)
    with replacing(path) as tmp:
        tmp.write_text(render(fmt, columns, rows), encoding="utf-8")
    return path
