"""One capture file -> the fleet tables as columns (the map step every exporter shares).

A turn's cells are the report's own values: its rows, made a batch of turns at a time as
`report --format json --explain` makes them (`explained_batches`), each column the values
of the row key of its name (`index` as `capture_index`, `cost` and `carried_context`
split in three), so a
table and the report can never disagree. Each file is analysed on its own,
exactly as `traceview report FILE` would: the unit a worker (or a cluster) takes.
Every string leaves through the redactor and the sanitiser, a batch at a time: an export
is an output path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from itertools import chain
from typing import Any

import orjson

from traceview.analysis.options import Options
from traceview.analysis.pricing import Pricing, PricingError
from traceview.analysis.report_rows import Explained, explained_batches
from traceview.analysis.session import Analysis, analyze
from traceview.analysis.turn_sides import started_ms_of
from traceview.capture.sources import SourceError
from traceview.export.clean import clean_values, columns, json_cells
from traceview.export.schema import (
    ATTRIBUTED,
    CARRIED,
    COST_MORE,
    TURN_FLATTENED,
    TURN_RENAMED,
    column_names,
    column_types,
    json_columns,
)
from traceview.safety.redact import redact

Row = dict[str, Any]
Columns = dict[str, list[Any]]
# Turns whose cells are held as Python objects at once: a batch, never a whole table.
BATCH_TURNS = 256
# Conversations likewise: each carries its whole carried-context account (kilobytes).
BATCH_CONVERSATIONS = 256
# Turns whose report rows are alive at once while a batch is made (`turn_tables`): the
# rows' own batch (analysis/turn_report.py).
ROWS_AT_ONCE = 64

_TYPES = {t: column_types(t) for t in ("turns", "conversations", "problems", "hosted_calls")}
_TURN_COLS = column_names("turns")
_CONV_COLS = column_names("conversations")
_TURN_KNOWN = set(_TURN_COLS) | set(TURN_RENAMED) | set(TURN_FLATTENED) | set(ATTRIBUTED)
_CONV_KNOWN = set(_CONV_COLS)
_TURN_JSON = [c for c in json_columns("turns") if c not in CARRIED]
# Turn columns that are not the report row's key of the same name: made below.
_MADE = {"capture_index", "conversation_index", "conversation_kind", "ts", "date",
         *TURN_FLATTENED["cost"], *TURN_FLATTENED["timing"], *CARRIED, "explanation",
         "findings", "extras", *COST_MORE, *ATTRIBUTED["attributed_to"]}
_PROPS = tuple(c for c in _TURN_COLS if c not in _MADE)
_DAYS: dict[int, str] = {}


def day(ms: int | None) -> str:
    """The UTC date of a time in ms, the partition key; `unknown` without one."""
    if ms is None:
        return "unknown"
    n = ms // 86_400_000
    d = _DAYS.get(n)
    if d is None:
        try:
            d = _DAYS[n] = datetime.fromtimestamp(n * 86_400, tz=UTC).strftime("%Y-%m-%d")
        except (OverflowError, ValueError, OSError):  # past year 9999: as the report reads it
            return "unknown"
    return d


# ---- the capture's tables, as columns --------------------------------------------------


def capture_rows(path: str, options: Options | None = None) -> Iterator[tuple[str, Row]]:
    """(table, row) pairs for one capture file, every string sanitised and redacted: the
    rows of `columns(capture_raw(…))`, one at a time (for a reader that wants rows)."""
    for table, raw in capture_raw(path, options):
        cols = columns(table, raw)
        names = list(cols)
        for values in zip(*cols.values(), strict=True):
            yield table, dict(zip(names, values, strict=True))


def capture_raw(path: str, options: Options | None = None, *,
                pricing: Pricing | None = None,
                elsewhere: Callable[[Analysis], bool] | None = None,
                ) -> Iterator[tuple[str, Columns]]:
    """(table, columns) for one capture file, its strings not yet cleaned: `columns()`
    cleans a batch at once, so an exporter may gather the columns of many small files
    into one batch first (per-batch work is paid per batch, not per file).

    A file that cannot be read at all is one problem row, never an exception: a directory
    of ten thousand captures is not stopped by one bad file. `pricing`: a table already
    loaded, shared by every file of an export (loading it is per-file setup otherwise).
    `elsewhere(analysis)`: True when it wrote the capture's tables itself (in worker
    processes: export/parts.py); nothing is yielded then.
    """
    try:
        analysis = analyze([path], options, pricing=pricing, totals=False)
    except (SourceError, PricingError) as exc:
        yield "problems", {"source": [path], "line": [0], "kind": ["unreadable_source"],
                           "message": [str(exc)]}
        return
    try:
        if elsewhere is None or not elsewhere(analysis):
            where = places(analysis)
            yield from turn_tables(analysis, where, 0, len(analysis.turns))
            yield from conversation_tables(analysis, 0, len(analysis.conversations))
            yield from problem_tables(analysis)
    finally:
        analysis.capture.close()


def places(analysis: Analysis) -> dict[int, tuple[str, int]]:
    """Capture index -> (conversation kind, position in it), for every turn."""
    where: dict[int, tuple[str, int]] = {}
    for c in analysis.conversations:
        for pos, i in enumerate(c.turns, 1):
            where[i] = (c.kind, pos)
    return where


def turn_tables(analysis: Analysis, where: dict[int, tuple[str, int]], lo: int,
                hi: int) -> Iterator[tuple[str, Columns]]:
    """The turns [lo, hi) as the turns and hosted_calls tables, a batch at a time. A
    batch's report rows (dicts of dicts: the cost, the timing, the carried context, the
    input account…) are made `ROWS_AT_ONCE` turns at a time, and the columns they were
    made of joined: the rows of a whole batch, alive together, no longer fit the
    processor's caches."""
    turns = analysis.turns
    for start in range(lo, hi, BATCH_TURNS):
        stop = min(start + BATCH_TURNS, hi)
        cols: list[Columns] = []
        calls: list[Columns] = []
        for at in range(start, stop, ROWS_AT_ONCE):
            for made in explained_batches(turns[at:min(at + ROWS_AT_ONCE, stop)]):
                cols.append(turn_columns(made, where))
                calls.append(hosted_call_columns(made.columns))
        yield "turns", _joined(cols)
        if any(c["id"] for c in calls):
            yield "hosted_calls", _joined(calls)


def _joined(parts: list[Columns]) -> Columns:
    """The rows of `parts` one after another, as new lists (a batch's columns may share
    a list: none is extended in place)."""
    return {name: list(chain.from_iterable(p[name] for p in parts)) for name in parts[0]}


def conversation_tables(analysis: Analysis, lo: int, hi: int) -> Iterator[tuple[str, Columns]]:
    """The conversations [lo, hi), a batch at a time."""
    conversations = analysis.conversations
    for start in range(lo, hi, BATCH_CONVERSATIONS):
        yield "conversations", _conversation_columns(
            analysis, conversations[start:min(start + BATCH_CONVERSATIONS, hi)])


def problem_tables(analysis: Analysis) -> Iterator[tuple[str, Columns]]:
    if analysis.problems:
        ds = [p.to_dict() for p in analysis.problems]
        yield "problems", {k: [d[k] for d in ds] for k in _TYPES["problems"]}


def hosted_call_columns(keyed: Columns) -> Columns:
    """One row per hosted call of a batch of turns (the report's rows' columns: `keyed`):
    its `hosted_calls` with the retrieval `lineage` gives it (queries, result files,
    sources, vector stores)."""
    cols: Columns = {k: [] for k in _TYPES["hosted_calls"]}
    for k, calls in enumerate(keyed["hosted_calls"]):
        if not calls:
            continue
        lineage = keyed["lineage"][k]
        found = {r["id"]: r for r in (lineage or {}).get("retrieval", ()) if r["id"]}
        for pos, c in enumerate(calls, 1):
            r = found.get(c["id"]) or {}
            res = r.get("results")
            row = {"source": keyed["source"][k], "capture_index": keyed["index"][k],
                   "conversation_key": keyed["conversation_key"][k], "position": pos,
                   "type": c["type"], "id": c["id"], "status": c["status"],
                   "evidence": c["evidence"], "include": c["include"],
                   "queries": list(c.get("queries") or r.get("queries") or []),
                   "result_file_ids": None if res is None else [x["file_id"] for x in res],
                   "result_filenames": None if res is None else [x["filename"] for x in res],
                   "result_scores": None if res is None else [x["score"] for x in res],
                   "vector_stores": r.get("vector_stores") or [],
                   "sources": r.get("sources"), "container_id": r.get("container_id")}
            for name, v in row.items():
                cols[name].append(v)
    return cols


def turn_columns(made: Explained, where: dict[int, tuple[str, int]]) -> Columns:
    """The turns table's columns of a batch of turns (the report's explained rows and the
    columns they were made of: `explained_batches`), in schema order, not yet cleaned."""
    keyed, rows = made.columns, made.rows
    cols: Columns = {name: keyed[name] for name in _PROPS}
    index = cols["capture_index"] = keyed["index"]
    place = [where.get(i, (None, None)) for i in index]
    cols["conversation_kind"] = [p[0] for p in place]
    cols["conversation_index"] = [p[1] for p in place]
    # The row's `ts` is ISO text: the table's is the start in ms.
    ms = cols["ts"] = list(map(started_ms_of, made.batch.response("started_at")))
    cols["date"] = [day(m) for m in ms]
    costs = keyed["cost"]
    for name, key in zip(TURN_FLATTENED["cost"], ("tokens_usd", "hosted_usd", "reason"),
                         strict=True):
        cols[name] = [c.get(key) for c in costs]
    cols["cost_tier"] = [c.get("tier") for c in costs]
    cols["cost_lines"] = [c.get("lines") for c in costs]
    owners = keyed["attributed_to"]
    cols["metadata"] = [a["metadata"] or None for a in owners]
    for name, key in _OWNER:
        cols[name] = [a[key] for a in owners]
    cols.update(_carried(keyed["carried_context"]))
    timings = keyed["timing"]
    for name in TURN_FLATTENED["timing"]:
        cols[name] = [t[name] for t in timings]
    for name in _TURN_JSON:
        cols[name] = _json_cells(cols[name])
    cols["explanation"] = [d["explanation"] for d in rows]
    cols["findings"] = [d["findings"] for d in rows]
    # Report keys this schema version has no column for (kept as JSON in `extras`).
    extra = [k for k in keyed if k not in _TURN_KNOWN]
    cols["extras"] = _extras([{k: d[k] for k in extra} for d in rows]
                             if extra else [{}] * len(rows))
    return {name: cols[name] for name in _TURN_COLS}


# The `attributed_to` keys with a column of their own, besides `metadata`.
_OWNER = (("end_user", "user"), ("safety_identifier", "safety_identifier"),
          ("project", "project"), ("organization", "organization"))


def _conversation_columns(analysis: Analysis, conversations: Iterable[Any]) -> Columns:
    """The conversations table: one of its few rows per conversation, from the report's
    own `to_dict()`."""
    convs = list(conversations)
    ds = [c.to_dict() for c in convs]
    cols: Columns = {k: [d.get(k) for d in ds] for k in _CONV_COLS}
    cols["turn_count"] = [len(c.turns) for c in convs]
    cols["first_ts"] = [_first_start(analysis, c.turns) for c in convs]
    cols["markers"] = [[{"marker": m, "count": n} for m, n in (d["markers"] or {}).items()]
                       for d in ds]
    cols.update(_carried([d.get("carried_context") for d in ds]))
    cols["extras"] = _extras([{k: v for k, v in d.items() if k not in _CONV_KNOWN}
                              for d in ds])
    return cols


def _first_start(analysis: Analysis, indices: Iterable[int]) -> Any:
    """The start of the first of these turns that has one (a conversation's first_ts)."""
    for i in indices:
        t = analysis.turn(i)
        if t is not None and (ms := t.started_ms) is not None:
            return ms
    return None


def _carried(values: list[Any]) -> Columns:
    """The report's `carried_context` (an object with `tokens` and `cost_usd`; a bare
    count is taken as the tokens) into its three columns."""
    tokens: list[Any] = []
    usd: list[Any] = []
    for v in values:
        if type(v) is dict:
            t, u = v.get("tokens"), v.get("cost_usd")
            tokens.append(t if type(t) is int else None)
            usd.append(u if type(u) in (int, float) else None)
        else:
            tokens.append(v if type(v) is int else None)
            usd.append(None)
    detail = json_cells([v if type(v) is dict else None for v in values])
    return dict(zip(CARRIED, (tokens, usd, detail), strict=True))


def _json_cells(values: list[Any]) -> list[str | None]:
    """A json column's cells: each non-empty value redacted and serialised, else null."""
    return json_cells([v if v else None for v in values])


def _extras(rests: list[dict[str, Any]]) -> list[str | None]:
    """JSON of the report keys without a column, per row (null: every key has one)."""
    if not any(rests):
        return [None] * len(rests)  # the usual case
    done = clean_values(redact(rests))
    return [orjson.dumps(r).decode() if r else None for r in done]
