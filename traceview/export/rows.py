"""One capture file -> rows of the fleet tables (the map step every exporter shares).

Rows are built from the report's own objects (`TurnReport.to_dict()`,
`ConversationReport.to_dict()`, `Problem.to_dict()`), so a table and
`traceview report --format json` can never disagree. Each file is analysed on its own,
exactly as `traceview report FILE` would: the unit a worker (or a cluster) takes.
Every string leaves through the redactor and the sanitiser: an export is an output path.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import orjson

from traceview.analysis.options import Options
from traceview.analysis.pricing import Pricing, PricingError
from traceview.analysis.session import Analysis, analyze
from traceview.capture.sources import SourceError
from traceview.export.schema import (
    CARRIED,
    TURN_FLATTENED,
    TURN_RENAMED,
    column_names,
    column_types,
    json_columns,
)
from traceview.safety.redact import redact, redact_text
from traceview.safety.sanitise import visible

Row = dict[str, Any]
_TURN_COLS = column_names("turns")
_CONV_COLS = column_names("conversations")
_TURN_KNOWN = set(_TURN_COLS) | set(TURN_RENAMED) | set(TURN_FLATTENED)
_CONV_KNOWN = set(_CONV_COLS)
_TURN_JSON = [c for c in json_columns("turns") if c not in CARRIED]


_CLEAN: dict[str, str] = {}
_SCALARS = frozenset((int, float, bool, type(None)))
_NUMERIC = frozenset(("int64", "float64", "bool", "timestamp"))
_DAYS: dict[int, str] = {}


def clean(value: Any) -> Any:
    """A row (or any JSON-shaped value) with every string's secrets masked and made visible.

    Rows' keys are schema names and the report's own keys, never secret-named fields, so
    only the strings need the redactor here; arbitrary JSON (`extras`) also goes through
    `redact()`, which masks values under secret-named keys.
    """
    t = type(value)
    if t is str:
        if len(value) < 40:  # models, statuses, markers, tools: the same few, again and again
            done = _CLEAN.get(value)
            if done is None:
                done = visible(redact_text(value))
                if len(_CLEAN) < 4096:
                    _CLEAN[value] = done
            return done
        return visible(redact_text(value))
    if t is dict:
        return {k: v if type(v) in _SCALARS else clean(v) for k, v in value.items()}
    if t is list or t is tuple:
        return [v if type(v) in _SCALARS else clean(v) for v in value]
    return value


def _dumps_redacted(value: Any) -> str:
    """`orjson.dumps(redact(value))` (the redactor passes a value with nothing to mask
    over without walking it)."""
    return orjson.dumps(redact(value)).decode()


def _extras(d: dict[str, Any], known: set[str]) -> str | None:
    if known.issuperset(d):
        return None  # the usual case: every key has its column
    rest = {k: v for k, v in d.items() if k not in known}
    return orjson.dumps(clean(redact(rest))).decode() if rest else None


def _carried(row: dict[str, Any], value: Any) -> None:
    """The report's `carried_context` (an object with `tokens` and `cost_usd`; a bare count
    is taken as the tokens) into its three columns."""
    tokens = usd = detail = None
    if type(value) is dict:
        tokens = value.get("tokens") if type(value.get("tokens")) is int else None
        usd = value.get("cost_usd") if type(value.get("cost_usd")) in (int, float) else None
        detail = _dumps_redacted(value)
    elif type(value) is int:
        tokens = value
    row["carried_context"], row["carried_context_usd"] = tokens, usd
    row["carried_context_detail"] = detail


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


Columns = dict[str, list[Any]]
# Rows held as Python objects before they become columns: a batch, never a whole table.
BATCH_TURNS = 1024
_TYPES = {t: column_types(t) for t in ("turns", "conversations", "problems")}


def capture_rows(path: str, options: Options | None = None) -> Iterator[tuple[str, Row]]:
    """(table, row) pairs for one capture file: its turns, conversations, problems, every
    string sanitised and redacted (the rows of `columns(capture_raw(…))`, one at a time)."""
    for table, rows in capture_raw(path, options):
        cols = columns(table, rows)
        names = list(cols)
        for values in zip(*cols.values(), strict=True):
            yield table, dict(zip(names, values, strict=True))


def capture_raw(path: str, options: Options | None = None, *,
                pricing: Pricing | None = None) -> Iterator[tuple[str, list[Row]]]:
    """(table, rows) for one capture file, its strings not yet cleaned: `columns()` cleans
    them column by column, so an exporter may gather the rows of many small files into
    one batch first (per-column work is paid per batch, not per file).

    A file that cannot be read at all is one problem row, never an exception: a directory
    of ten thousand captures is not stopped by one bad file. `pricing`: a table already
    loaded, shared by every file of an export (loading it is per-file setup otherwise).
    """
    try:
        analysis = analyze([path], options, pricing=pricing, totals=False)
    except (SourceError, PricingError) as exc:
        yield "problems", [{"source": path, "line": 0, "kind": "unreadable_source",
                            "message": str(exc)}]
        return
    try:
        yield from _raw(analysis)
    finally:
        analysis.capture.close()


def columns(table: str, rows: list[Row]) -> Columns:
    """Rows (from `capture_raw`) as columns in schema order, every value cleaned exactly
    as `clean(row)` cleans it: numbers untouched, every string sanitised and redacted."""
    return {k: _column([r[k] for r in rows], t) for k, t in _TYPES[table].items()}


def _column(values: list[Any], kind: Any) -> list[Any]:
    if kind in _NUMERIC and not any(type(v) not in _SCALARS for v in values):
        return values
    return [v if type(v) in _SCALARS else clean(v) for v in values]


def _raw(analysis: Analysis) -> Iterator[tuple[str, list[Row]]]:
    where: dict[int, tuple[str, int]] = {}  # capture index -> (conversation kind, position)
    first_ms: dict[str, int] = {}
    for c in analysis.conversations:
        for pos, i in enumerate(c.turns, 1):
            where[i] = (c.kind, pos)
    turns = analysis.turns
    for lo in range(0, len(turns), BATCH_TURNS):
        yield "turns", [_turn_row(t, where, first_ms) for t in turns[lo:lo + BATCH_TURNS]]
    if analysis.conversations:
        rows = []
        for c in analysis.conversations:
            d = c.to_dict()
            row = {k: d.get(k) for k in _CONV_COLS}
            row.update(turn_count=len(c.turns), first_ts=first_ms.get(c.key),
                       markers=[{"marker": m, "count": n}
                                for m, n in (d["markers"] or {}).items()],
                       extras=_extras(d, _CONV_KNOWN))
            _carried(row, d.get("carried_context"))
            rows.append(row)
        yield "conversations", rows
    if analysis.problems:
        ds = [p.to_dict() for p in analysis.problems]
        yield "problems", [{"source": d["source"], "line": d["line"], "kind": d["kind"],
                            "message": d["message"]} for d in ds]


def _turn_row(t: Any, where: dict[int, tuple[str, int]], first_ms: dict[str, int]) -> Row:
    d = t.to_dict()
    kind, pos = where.get(t.index, (None, None))
    ms = t.started_ms
    if ms is not None and t.conversation_key not in first_ms:
        first_ms[t.conversation_key] = ms
    row = {k: d.get(k) for k in _TURN_COLS}
    cost = d.get("cost") or {}
    row.update(
        capture_index=d["index"], conversation_index=pos, conversation_kind=kind,
        ts=ms, date=day(ms), cost_tokens_usd=cost.get("tokens_usd"),
        cost_hosted_usd=cost.get("hosted_usd"), cost_reason=cost.get("reason"),
        extras=_extras(d, _TURN_KNOWN))
    _carried(row, d.get("carried_context"))
    for k in _TURN_JSON:
        v = row[k]
        row[k] = _dumps_redacted(v) if v else None
    return row
