"""Export the visible turns table (filtered rows, shown columns) as CSV, JSON or markdown.

Cells are the same formatted strings the screen shows, passed through the output
sanitiser and the redactor (a file written here is an output path like any other).
Files get a new timestamped name every time: an export never overwrites.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.text import Text

from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible
from traceview.ui.widgets.row_table import Column

FORMATS = {"csv": "csv", "json": "json", "markdown": "md"}


def _cell(column: Column, row: Any) -> str:
    value = column.cell(row)
    plain = value.plain if isinstance(value, Text) else str(value)
    return redact_text(visible(plain))


def table_rows(columns: Sequence[Column], rows: Sequence[Any]) -> list[list[str]]:
    return [[_cell(c, r) for c in columns] for r in rows]


def render(fmt: str, columns: Sequence[Column], rows: Sequence[Any]) -> str:
    titles = [c.title for c in columns]
    cells = table_rows(columns, rows)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(titles)
        writer.writerows(cells)
        return out.getvalue()
    if fmt == "json":
        return json.dumps([dict(zip(titles, r, strict=True)) for r in cells], ensure_ascii=False,
                          indent=1) + "\n"
    if fmt == "markdown":
        def line(values: list[str]) -> str:
            return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"
        body = [line(titles), line(["---"] * len(titles))] + [line(r) for r in cells]
        return "\n".join(body) + "\n"
    raise ValueError(f"unknown export format {fmt!r} (csv, json, markdown)")


def unique_path(directory: Path, stem: str, suffix: str) -> Path:
    """``<stem>-<UTC timestamp>.<suffix>``, with a counter if that name exists already."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = directory / f"{stem}-{stamp}.{suffix}"
    n = 2
    while path.exists():
        path = directory / f"{stem}-{stamp}-{n}.{suffix}"
        n += 1
    return path


def write_export(directory: Path, stem: str, fmt: str, columns: Sequence[Column],
                 rows: Sequence[Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = unique_path(directory, stem, FORMATS[fmt])
    path.write_text(render(fmt, columns, rows), encoding="utf-8")
    return path
