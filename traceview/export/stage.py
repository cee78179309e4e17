"""Parquet files staged for DuckDB to load (export/duck.py), named in their rows' order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traceview.analysis.session import Analysis
from traceview.export.parts import write_parts
from traceview.export.rows import Columns
from traceview.export.schema import TABLES
from traceview.export.sinks import ParquetSink, Sink


class StageSink(Sink):
    """Parquet files in `folder`, `TABLE/sNNNNN[-NNNNN].parquet`, named in the order of
    their rows: this process's rows, then a capture written by workers, then this
    process's again, each a segment of its own."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder
        self._segment = 0
        self._here: ParquetSink | None = None

    def _layout(self) -> ParquetSink:
        return ParquetSink(self.folder, partition_by=(), prefix=f"s{self._segment:05d}",
                           write_empty=False)

    def add_columns(self, table: str, cols: Columns) -> None:
        n = len(next(iter(cols.values()))) if cols else 0
        if n:
            self.counts[table] += n
            if self._here is None:
                self._here = self._layout()
            self._here.add_columns(table, cols)

    def _write(self, table: str, part: str, rows: list[dict[str, Any]]) -> None:
        self.counts[table] -= len(rows)  # counted once more as columns
        self.add_columns(table, {c: [r.get(c) for r in rows] for c, _, _ in TABLES[table][1]})

    def write_parts(self, analysis: Analysis) -> bool:
        """A large capture's rows written by workers (export/parts.py) as a segment of
        their own; False when it is small: its rows then come through `add_columns`."""
        self._cut()
        layout = self._layout()
        if not write_parts(layout, analysis):
            return False
        for table, n in layout.counts.items():
            self.counts[table] += n
        self._segment += 1
        return True

    def _cut(self) -> None:
        """This process's open files closed: later rows go to the next segment's."""
        if self._here is not None:
            self._here.close()
            self._here = None
            self._segment += 1

    def _close(self) -> None:
        self._cut()

    def files(self) -> dict[str, list[str]]:
        """Each table's files, in the order of their rows."""
        return {t: sorted(str(p) for p in (self.folder / t).glob("*.parquet")) for t in TABLES}
