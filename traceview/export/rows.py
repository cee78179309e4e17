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
from traceview.capture.redact import redact, redact_text
from traceview.capture.sources import SourceError
from traceview.export.schema import (
    CARRIED,
    TURN_FLATTENED,
    TURN_RENAMED,
    column_names,
    column_types,
    json_columns,
)
from traceview.report.safe import visible

Row = dict[str, Any]
_TURN_COLS = column_names("turns")
_CONV_COLS = column_names("conversations")
_TURN_KNOWN = set(_TURN_COLS) | set(TURN_RENAMED) | set(TURN_FLATTENED)
_CONV_KNOWN = set(_CONV_COLS)
_TURN_JSON = [c for c in json_columns("turns") if c not in CARRIED]


_CLEAN: dict[str, str] = {}
_SCALARS = frozenset((int, float, bool, type(None)))
_NUMERIC = frozenset(("int64", "float64", "bool", "timestamp"))
# Turn columns not read straight from the report dict under their own name.
_TURN_SPECIAL = frozenset(("capture_index", "conversation_index", "conversation_kind", "ts",
                           "date", "cost_tokens_usd", "cost_hosted_usd", "cost_reason",
                           "extras", *CARRIED))
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


# Every substring that makes `redact_text` look at a string (`sk-`, `earer`, and in lower
# case `key`, `authorization`) or that a secret-named key (capture.redact.SECRET_KEYS)
# contains: JSON without any of them comes out of the redactor unchanged.
_TRIGGERS = ("sk-", "earer", "key", "authorization", "access_token", "password", "secret")


def _no_trigger(text: str) -> bool:
    low = text.lower()
    return not any(t in low for t in _TRIGGERS)


def _dumps_redacted(value: Any) -> str:
    """`orjson.dumps(redact(value))`, without walking `value` in Python when the JSON text
    holds nothing the redactor looks for (then redact(value) equals value)."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = ""
    if text and _no_trigger(text):
        return text
    return orjson.dumps(redact(value)).decode()


def _extras(d: dict[str, Any], known: set[str]) -> str | None:
    if known.issuperset(d):
        return None  # the usual case: every key has its column
    rest = {k: v for k, v in d.items() if k not in known}
    return orjson.dumps(clean(redact(rest))).decode() if rest else None


def _carried(row: dict[str, Any], value: Any) -> tuple[Any, Any, Any]:
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
    return tokens, usd, detail


def day(ms: int | None) -> str:
    """The UTC date of a time in ms, the partition key; `unknown` without one."""
    if ms is None:
        return "unknown"
    n = ms // 86_400_000
    d = _DAYS.get(n)
    if d is None:
        d = _DAYS[n] = datetime.fromtimestamp(n * 86_400, tz=UTC).strftime("%Y-%m-%d")
    return d


Columns = dict[str, list[Any]]
# Rows of one table held as Python objects before they become Arrow columns: per batch,
# so a capture of a hundred thousand turns never holds all its rows at once.
BATCH_TURNS = 1024
_TURN_TYPES = column_types("turns")
_CONV_COLS_T = column_types("conversations")
_PROB_COLS_T = column_types("problems")


def capture_rows(path: str, options: Options | None = None) -> Iterator[tuple[str, Row]]:
    """(table, row) pairs for one capture file: its turns, conversations, problems.

    The rows of `capture_tables`, one at a time (for sinks that write rows: CSV, OTLP, the
    SQL cache); the Parquet export takes the columns as they are.
    """
    for table, cols in capture_tables(path, options):
        names = list(cols)
        for values in zip(*cols.values(), strict=True):
            yield table, dict(zip(names, values, strict=True))


def capture_tables(path: str, options: Options | None = None, *,
                   pricing: Pricing | None = None) -> Iterator[tuple[str, Columns]]:
    """(table, columns) batches for one capture file: its turns, conversations, problems,
    every column a list in schema order (one batch of up to BATCH_TURNS rows at a time).

    A file that cannot be read at all is one problem row, never an exception: a directory
    of ten thousand captures is not stopped by one bad file. `pricing`: a table already
    loaded, shared by every file of an export (loading it is per-file setup otherwise).
    """
    try:
        analysis = analyze([path], options, pricing=pricing, totals=False)
    except (SourceError, PricingError) as exc:
        yield "problems", {"source": [clean(path)], "line": [0], "kind": ["unreadable_source"],
                           "message": [clean(str(exc))]}
        return
    try:
        yield from _tables(analysis)
    finally:
        analysis.capture.close()


def _column(values: list[Any], kind: Any) -> list[Any]:
    """One column's values, cleaned: the same `clean()` on every value a row would get,
    without a row dict around it (numbers go through untouched, as `clean` leaves them)."""
    if kind in _NUMERIC:
        if not any(type(v) not in _SCALARS for v in values):
            return values
        return [v if type(v) in _SCALARS else clean(v) for v in values]
    return [v if type(v) in _SCALARS else clean(v) for v in values]


def _columns(rows: list[Row], types: dict[str, Any]) -> Columns:
    return {k: _column([r[k] for r in rows], t) for k, t in types.items()}


def _tables(analysis: Analysis) -> Iterator[tuple[str, Columns]]:
    where: dict[int, tuple[str, int]] = {}  # capture index -> (conversation kind, position)
    first_ms: dict[str, int] = {}
    for c in analysis.conversations:
        for pos, i in enumerate(c.turns, 1):
            where[i] = (c.kind, pos)
    turns = analysis.turns
    for lo in range(0, len(turns), BATCH_TURNS):
        yield "turns", _turn_columns(turns[lo:lo + BATCH_TURNS], where, first_ms)
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
        yield "conversations", _columns(rows, _CONV_COLS_T)
    if analysis.problems:
        ds = [p.to_dict() for p in analysis.problems]
        yield "problems", _columns(
            [{"source": d["source"], "line": d["line"], "kind": d["kind"],
              "message": d["message"]} for d in ds], _PROB_COLS_T)


def _turn_columns(turns: list[Any], where: dict[int, tuple[str, int]],
                  first_ms: dict[str, int]) -> Columns:
    """The turns table's columns for a run of turns: each report dict read once per
    column (a list comprehension), then cleaned column by column."""
    ds = [t.to_dict() for t in turns]
    cols: Columns = {k: [d.get(k) for d in ds] for k in _TURN_TYPES if k not in _TURN_SPECIAL}
    ms = [t.started_ms for t in turns]
    for t, m in zip(turns, ms, strict=True):
        if m is not None and t.conversation_key not in first_ms:
            first_ms[t.conversation_key] = m
    pos = [where.get(d["index"], (None, None)) for d in ds]
    costs = [d.get("cost") or {} for d in ds]
    cols["capture_index"] = [d["index"] for d in ds]
    cols["conversation_index"] = [p[1] for p in pos]
    cols["conversation_kind"] = [p[0] for p in pos]
    cols["ts"] = ms
    cols["date"] = [day(m) for m in ms]
    cols["cost_tokens_usd"] = [c.get("tokens_usd") for c in costs]
    cols["cost_hosted_usd"] = [c.get("hosted_usd") for c in costs]
    cols["cost_reason"] = [c.get("reason") for c in costs]
    cols["extras"] = [_extras(d, _TURN_KNOWN) for d in ds]
    carried = [_carried({}, d.get("carried_context")) for d in ds]
    for i, k in enumerate(CARRIED):
        cols[k] = [c[i] for c in carried]
    for k in _TURN_JSON:
        cols[k] = [_dumps_redacted(v) if v else None for v in cols[k]]
    return {k: _column(cols[k], kind) for k, kind in _TURN_TYPES.items()}
