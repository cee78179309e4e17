"""Many turns' rows, made a batch of turns at a time: what the report writers and the
exporters read. A batch's rows are alive together and its per-batch reads (turn_batch.py)
are paid once for its turns, instead of once a turn as `TurnReport.row()` would.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby, islice
from typing import Any, NamedTuple

from traceview.analysis.turn_batch import Batch
from traceview.analysis.turn_columns import TurnColumns
from traceview.analysis.turn_report import TurnReport, made_rows, rows_at
from traceview.analysis.turn_row import ROW_KEYS, WHOLE_KEYS
from traceview.analysis.turn_rows import batch_columns, judged, rows_of

# Turns a batch of rows is made for at a time (turn_rows.py): a batch's dicts are alive
# together, and the per-batch reads are paid once per this many turns.
BATCH = 64



class Explained(NamedTuple):
    """A batch of turns' explained rows (`row()`), what each key's values were read as,
    and the batch read (a reader of its columns: an exporter's table is columns)."""

    rows: list[dict[str, Any]]
    columns: dict[str, list[Any]]  # row key -> the turns' values (the prose: the rows')
    batch: Batch


def explained_batches(reports: Sequence[TurnReport]) -> Iterator[Explained]:
    """`row_dicts(reports)` a batch at a time, each with the columns its rows were made of:
    a table's columns are those, not the rows taken apart again. Every report is a
    TurnReport (an analysis's turns)."""
    for cols, run in _batches(reports):
        if cols is None:
            raise TypeError(f"not a TurnReport: {run[0]!r}")
        b = Batch(cols, run)
        out, columns = made_rows(b, True, True)
        yield Explained(out, dict(zip(ROW_KEYS, columns, strict=True)), b)


def _batches(reports: Iterable[Any]) -> Iterator[tuple[TurnColumns | None, list[Any]]]:
    """The reports in order, as runs of up to BATCH TurnReports of one TurnColumns (their
    columns and table rows), anything else alone (None and [the report])."""
    it = iter(reports)
    while batch := list(islice(it, BATCH)):
        for cols, run in groupby(batch, key=_columns_of):
            if cols is None:
                for other in run:
                    yield None, [other]
            else:
                yield cols, [rep._r for rep in run]


def _columns_of(rep: Any) -> TurnColumns | None:
    return rep._cols if type(rep) is TurnReport else None


def unexplained_rows(reports: Iterable[TurnReport]) -> Iterator[dict[str, Any]]:
    """`report.unexplained_row()` of each report, in order, made a batch at a time
    (anything else than a TurnReport gives its `to_dict()` without the prose keys)."""
    for batch, _ in unexplained_batches(reports):
        yield from batch


def unexplained_batches(reports: Iterable[TurnReport]) -> Iterator[tuple[
        list[dict[str, Any]], tuple[tuple[str, ...], list[list[Any]]] | None]]:
    """`unexplained_rows` a batch at a time, each with what its rows were made of: their
    keys and a list of values per key, each value shared by several rows listed once
    (`judged`: the output boundary judges those apart, safety/redact.py `redact_dump`);
    None for anything else than TurnReports."""
    for cols, run in _batches(reports):
        if cols is not None:
            columns = batch_columns(Batch(cols, run), WHOLE_KEYS)
            yield rows_of(WHOLE_KEYS, columns), (WHOLE_KEYS, judged(WHOLE_KEYS, columns))
            continue
        row = run[0].to_dict()
        row.pop("explanation", None)
        row.pop("findings", None)
        yield [row], None


def row_dicts(reports: Iterable[TurnReport], explained: bool = True,
              whole: bool = True) -> Iterator[dict[str, Any]]:
    """`report.row(explained, whole=whole)` of each report, in order, made a batch at a
    time (anything else than a TurnReport gives its `to_dict()`)."""
    for cols, run in _batches(reports):
        if cols is not None:
            yield from rows_at(cols, run, explained, whole)
        else:
            yield run[0].to_dict()
