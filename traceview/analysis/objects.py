"""Provider objects: what a capture created, used and deleted on the provider's side.

Hosted state lives in objects the application never holds: conversations, stored
responses (``store`` is true unless the request said false), files and vector stores.
This inventory lists each one with the lines that created, used and deleted it, the
retention that applies (the documented default with its source and date, or a vector
store's ``expires_after``) and so when it expires, and — where the price table has one —
its storage fee. Deletions recorded in the capture (a ``DELETE`` exchange, a later 404)
are attached to the turns they affect, so those turns say "provider copy deleted (line N)"
while the local record stays whole.

Pure: ids and dates are those quoted in the records' raw bytes, found when the lines were
read (capture/scan.py, kept in the turn table) or, for a turn whose records were not
scanned, read again through the capture. The usual capture's turns are read a column at a
time (analysis/object_columns.py); the per-turn loop here is the general path.
"""

from __future__ import annotations

import heapq
import itertools
from array import array
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from operator import attrgetter
from typing import Any, NamedTuple

from traceview.analysis.by_index import finder
from traceview.analysis.columns import (
    Q_STORE_SET,
    Q_STORE_VALUE,
    S_STORE_SET,
    S_STORE_VALUE,
    Columns,
)
from traceview.analysis.object_columns import KIND_OF, fill, table_of
from traceview.capture.scan import CREATED as _CREATED
from traceview.capture.scan import HEAD_BYTES
from traceview.capture.scan import IDS as _IDS
from traceview.capture.scan import STORE as _STORE
from traceview.safety.redact import redact_text

# The documented defaults, with where they are written and when that text was taken.
RETENTION_SOURCE = ("OpenAI API docs, Conversation state guide "
                    "(platform.openai.com/docs/guides/conversation-state)")
RETENTION_AS_OF = "2025-10-01"
RETENTION: dict[str, dict[str, Any]] = {
    "response": {"days": 30, "text": "stored responses are kept 30 days by default",
                 "source": RETENTION_SOURCE, "as_of": RETENTION_AS_OF},
    "conversation": {"days": None, "text": "conversations and their items are not subject to "
                     "the 30-day TTL: kept until deleted", "source": RETENTION_SOURCE,
                     "as_of": RETENTION_AS_OF},
    "file": {"days": None, "text": "files are kept until deleted (unless uploaded with "
             "expires_after)", "source": "OpenAI API reference, Files",
             "as_of": RETENTION_AS_OF},
    "vector_store": {"days": None, "text": "vector stores are kept until deleted unless "
                     "expires_after is set", "source": "OpenAI API reference, Vector stores",
                     "as_of": RETENTION_AS_OF},
}
KINDS = ("conversation", "response", "file", "vector_store")
_PATHS = {"conversations": "conversation", "responses": "response", "files": "file",
          "vector_stores": "vector_store"}
# Vector store and file ids, `store` flags and `created_at` in a record's raw bytes: the
# patterns the reader also runs when it reads each line (capture/scan.py), so most turns'
# are found in the turn table and their records are not read again here.
_KIND_OF = KIND_OF
MAX_LINES = 20  # used-on lines kept per object (the count is exact)


def _rare(name: str) -> property:
    """A field few objects set (a deletion, a 404, what a create's body said): kept in the
    object's `_more` dict, made the first time one is set (a slot each was 8 bytes on
    every object; a hosted capture has one conversation object per few turns)."""

    def get(self: ProviderObject) -> Any:
        more = self._more
        return None if more is None else more.get(name)

    def put(self: ProviderObject, value: Any) -> None:
        if self._more is None:
            if value is None:
                return
            self._more = {}
        self._more[name] = value

    return property(get, put)


class ProviderObject:
    """One provider object. Slots, and the turn list an `array`: a capture that uses one
    vector store on every turn lists every turn under it. Fields few objects set are in
    `_more` (`_rare`)."""

    __slots__ = ("kind", "id", "created_line", "created_at", "last_used_at", "used_lines",
                 "uses", "turns", "store", "_more")

    deleted_line = _rare("deleted_line")
    missing_line = _rare("missing_line")  # a later 404 names it
    name = _rare("name")
    usage_bytes = _rare("usage_bytes")
    expires_after = _rare("expires_after")
    expires_at = _rare("expires_at")
    storage_usd_per_day = _rare("storage_usd_per_day")

    @property
    def items_deleted_lines(self) -> list[int]:
        """Lines of the DELETEs of a conversation's items (a list held only when any)."""
        more = self._more
        got = None if more is None else more.get("items_deleted_lines")
        if got is None:
            got = []
            if more is None:
                more = self._more = {}
            more["items_deleted_lines"] = got
        return got

    def __init__(self, kind: str, id: str,  # noqa: A002 - the object's id
                 created_line: int | None = None, created_at: float | None = None,
                 store: bool | None = None) -> None:
        self.kind = kind  # conversation | response | file | vector_store
        self.id = id
        self.created_line = created_line
        self.created_at = created_at  # epoch seconds, when known
        self.last_used_at: float | None = None
        self.used_lines = array("q")  # at most MAX_LINES
        self.uses = 0
        self.turns = array("I")  # turn indices (run 1..n)
        self.store = store  # responses only
        self._more: dict[str, Any] | None = None

    @property
    def state(self) -> str:
        if self.deleted_line is not None:
            return "deleted"
        if self.missing_line is not None:
            return "not_found"
        if self.kind == "response" and self.store is False:
            return "not_stored"
        return "exists"

    def retention(self) -> dict[str, Any]:
        base = dict(RETENTION[self.kind])
        if self.expires_after:
            base["text"] = (f"expires_after {self.expires_after.get('days')} day(s) after "
                            f"{self.expires_after.get('anchor', 'last_active_at')}")
            base["source"] = "the vector store's expires_after (in the capture)"
        return base

    def expires(self) -> tuple[str | None, str]:
        """(ISO date or None, sentence)."""
        if self.state == "deleted":
            return None, f"provider copy deleted (line {self.deleted_line})"
        if self.state == "not_stored":
            return None, "not stored (store=false): nothing kept to expire"
        when = self.expires_at
        if when is None:
            days = RETENTION[self.kind]["days"]
            if self.expires_after:
                days = self.expires_after.get("days")
                anchor = self.last_used_at or self.created_at
            else:
                anchor = self.created_at
            if isinstance(days, int | float) and anchor is not None:
                when = anchor + float(days) * 86400
            elif days is None:
                return None, RETENTION[self.kind]["text"]
            else:
                return None, "expiry unknown (no creation time in the capture)"
        date = _date(when)
        return date, f"expires around {date}" if date is not None else _OUT_OF_RANGE

    def to_dict(self, turns_as: Callable[[array[int]], Any] | None = None) -> dict[str, Any]:
        """`turns_as(turns)` writes the turn list in place of a list (a streaming writer's
        pre-serialised JSON: a vector store used on every turn lists every turn)."""
        date, sentence = self.expires()
        return {
            "kind": self.kind, "id": self.id, "state": self.state, "name": self.name,
            "created_line": self.created_line, "created_at": _iso(self.created_at),
            "used_lines": self.used_lines.tolist(), "uses": self.uses,
            "turns": self.turns.tolist() if turns_as is None else turns_as(self.turns),
            "store": self.store, "deleted_line": self.deleted_line,
            "missing_line": self.missing_line,
            "items_deleted_lines": list(self._more.get("items_deleted_lines") or ())
            if self._more is not None else [],
            # The documented default is stated once, in the inventory's retention_defaults;
            # only a vector store's own expires_after is spelled out here.
            "retention": self.retention() if self.expires_after else "default",
            "expires_around": date, "expiry": sentence,
            "usage_bytes": self.usage_bytes, "expires_after": self.expires_after,
            "storage_usd_per_day": None if self.storage_usd_per_day is None
            else round(self.storage_usd_per_day, 6),
        }


class Objects:
    """The inventory. Stored responses that nothing but their own turn touched — one per
    turn of a hosted capture — are not objects here but a row each (the turn's index,
    its `created_at`, its store flag: 13 bytes), made into a `ProviderObject` only when
    listed; every other object is held whole."""

    def __init__(self, objects: list[ProviderObject] | None = None,
                 turn_notes: dict[int, dict[str, Any]] | None = None,
                 storage_price: dict[str, Any] | None = None,
                 rows: _ResponseRows | None = None) -> None:
        self._full = objects or []
        self._rows = rows
        self.turn_notes: dict[int, dict[str, Any]] = turn_notes or {}
        self.storage_price = storage_price

    def turn_note(self, index: int) -> dict[str, Any] | None:
        """The note of turn `index` whose provider copy the capture deleted (or found gone):
        {"object", "kind", "state", "line", "note"}; None for every other turn. Held here by
        turn index: a reader of turns (TurnReport.provider_copy) can ask rather than have
        it written onto each turn."""
        return self.turn_notes.get(index)

    @property
    def objects(self) -> _Listing:
        """Every object, in the inventory's order (kind, first line, id)."""
        return _Listing(self._full, self._rows)

    def deleted_ids(self) -> dict[str, int]:
        """Object id -> the line that deleted it (or a later 404 that shows it gone)."""
        out: dict[str, int] = {}
        for o in self._full:  # a row is never deleted: a deletion makes it whole
            line = o.deleted_line or o.missing_line
            if line is not None:
                out[o.id] = line
        return out

    def counts(self) -> dict[str, int]:
        out = {k: sum(1 for o in self._full if o.kind == k) for k in KINDS}
        out["response"] += len(self._rows) if self._rows is not None else 0
        return out

    def to_dict(self, *, objects: Any = None) -> dict[str, Any]:
        """`objects` replaces the list (a placeholder for a streaming writer)."""
        listed = [o.to_dict() for o in self.objects] if objects is None else objects
        return {"counts": self.counts(), "objects": listed,
                "storage_price": self.storage_price,
                "retention_defaults": RETENTION}


# A stored response row's dict before its own values are set (ProviderObject.to_dict's
# keys, in order, with the values every such row shares).
_ROW_DICT: dict[str, Any] = {
    "kind": "response", "id": None, "state": "exists", "name": None, "created_line": None,
    "created_at": None, "used_lines": None, "uses": 0, "turns": None, "store": None,
    "deleted_line": None, "missing_line": None, "items_deleted_lines": None,
    "retention": "default", "expires_around": None, "expiry": None, "usage_bytes": None,
    "expires_after": None, "storage_usd_per_day": None,
}


class _ResponseRows:
    """Stored responses as columns, in the inventory's order: the index of the turn that
    created each (its id and line are read back from the turn: `find`), `created_at` and
    the store flag. `created_at` is whole seconds in 4 bytes (_UNKNOWN_AT: unknown) until a
    value is not (then every value is a float, NaN: unknown)."""

    def __init__(self, turns: Sequence[Any]) -> None:
        self.turns = turns
        self.find = finder(turns)
        self.index = array("I")
        self.created = array("I")
        self.store = bytearray()

    def __len__(self) -> int:
        return len(self.index)

    def add(self, index: int, created: float | None, store: bool) -> None:
        self.index.append(index)
        col = self.created
        if created is None:
            col.append(_UNKNOWN_AT if col.typecode == "I" else _NAN)
        elif col.typecode == "d":
            col.append(created)
        elif 0 <= created < _UNKNOWN_AT and created == int(created):
            col.append(int(created))
        else:  # a time whole seconds do not hold: every value a float from here on
            self.created = array("d", [_NAN if v == _UNKNOWN_AT else float(v) for v in col])
            self.created.append(created)
        self.store.append(store)

    def created_at(self, r: int) -> float | None:
        """Row `r`'s `created_at` (None: unknown)."""
        v = self.created[r]
        if self.created.typecode == "I":
            return None if v == _UNKNOWN_AT else float(v)
        return None if v != v else v

    def sort(self, in_order: bool, dead: set[int]) -> None:
        """Drop the rows made whole (`dead`) and put the rest in the listing's order (by
        created line, then id): nothing to do when they were added in that order, as they
        are when one file is read."""
        if in_order and not dead:
            return
        find = self.find
        keys = sorted((_created_line(t), t.response_id or "", r)
                      for r, t in enumerate(map(find, self.index)) if r not in dead)
        index, created, store = self.index, self.created, self.store
        self.index = array("I", [index[r] for _l, _i, r in keys])
        self.created = array(created.typecode, [created[r] for _l, _i, r in keys])
        self.store = bytearray(store[r] for _l, _i, r in keys)

    def whole(self, r: int) -> ProviderObject:
        t = self.find(self.index[r])
        o = ProviderObject("response", t.response_id, _created_line(t), self.created_at(r),
                           bool(self.store[r]))
        o.turns.append(t.index)
        return o

    def __iter__(self) -> Iterator[ProviderObject]:
        return (self.whole(r) for r in range(len(self.index)))

    def row_dict(self, r: int) -> dict[str, Any]:
        """`whole(r).to_dict()` without the object: a report lists one per turn of a hosted
        capture, and the object, its expiry arithmetic and two datetimes were a tenth of
        the JSON report (tests/core/test_objects.py compares the two on every row)."""
        turn = self.find(self.index[r]).turn
        # The turn's id, index and response line read from its table row: what
        # `t.response_id`, `t.index` and `_created_line(t)` read through three views.
        table, row = turn.table, turn.row
        res = table.res_row[row]
        rid = table.responses.cols["response_id"].get(res) if res >= 0 else None
        line = table.res_line[row] if table.res_source[row] >= 0 else table.line[row]
        created = self.created_at(r)
        store = bool(self.store[r])
        days = RETENTION["response"]["days"]
        if not store:
            date, sentence = None, "not stored (store=false): nothing kept to expire"
        elif created is None or not isinstance(days, int | float):
            date, sentence = self.whole(r).expires()
        else:
            date = _date(created + float(days) * 86400)
            sentence = f"expires around {date}" if date is not None else _OUT_OF_RANGE
        # A copy of the template (a dict display of 21 keys is built in chunks) with the
        # row's own values set.
        d = _ROW_DICT.copy()
        d["id"] = rid
        if not store:
            d["state"] = "not_stored"
        d["created_line"] = line
        d["created_at"] = _iso(created)
        d["used_lines"] = []
        d["turns"] = [table.index[row]]
        d["store"] = store
        d["items_deleted_lines"] = []
        d["expires_around"] = date
        d["expiry"] = sentence
        return d


    def row_dicts(self) -> Iterator[dict[str, Any]]:
        """`row_dict(r)` of every row in order, read straight from the columns: each
        row's table row found from its turn index (no view made), and the dates of a
        `created_at` in whole seconds made once per day (rows of a capture share a few
        days). The same dicts (tests/core/test_objects.py compares)."""
        table_rows = self._table_rows()
        if table_rows is None:
            yield from map(self.row_dict, range(len(self.index)))
            return
        table, row_of = table_rows
        days = RETENTION["response"]["days"]
        index, created, store_col = self.index, self.created, self.store
        whole = created.typecode == "I"
        ids = table.responses.cols["response_id"]
        res_row, res_source, res_line, line_col, index_col = (
            table.res_row, table.res_source, table.res_line, table.line, table.index)
        by_day: dict[int, tuple[str, str | None, str]] = {}  # day -> date, expiry, sentence
        template = _ROW_DICT
        not_stored = "not stored (store=false): nothing kept to expire"
        for r in range(len(index)):
            row = row_of(index[r])
            res = res_row[row]
            v = created[r]
            store = bool(store_col[r])
            d = template.copy()
            d["id"] = ids.get(res) if res >= 0 else None
            d["created_line"] = res_line[row] if res_source[row] >= 0 else line_col[row]
            if whole and v != _UNKNOWN_AT and isinstance(days, int) and 0 <= days < 36500:
                day = v // 86400
                got = by_day.get(day)
                if got is None:
                    date = _date(v + float(days) * 86400)
                    got = by_day[day] = (_day(float(day * 86400)) or "", date,
                                         f"expires around {date}" if date is not None
                                         else _OUT_OF_RANGE)
                minute, sec = divmod(v - day * 86400, 60)
                d["created_at"] = got[0] + "T" + _CLOCK[minute] + _SECONDS[sec]
                if store:
                    d["expires_around"], d["expiry"] = got[1], got[2]
                else:
                    d["state"] = "not_stored"
                    d["expires_around"], d["expiry"] = None, not_stored
            else:  # unknown or fractional times, other retention: as row_dict does
                whole_d = self.row_dict(r)
                d.update((k, whole_d[k]) for k in ("state", "created_at", "expires_around",
                                                    "expiry"))
            d["used_lines"] = []
            d["turns"] = [index_col[row]]
            d["store"] = store
            d["items_deleted_lines"] = []
            yield d

    def _table_rows(self) -> tuple[Any, Callable[[int], int]] | None:
        """(the table, turn index -> its table row) when the turns are the analysis's
        over one table (analysis/reports.py); None otherwise (`find` is used)."""
        turns = self.turns
        parts = getattr(turns, "_parts", None)
        if type(parts) is not list or len(parts) != 1 or not hasattr(turns, "rows"):
            return None
        table = getattr(parts[0], "table", None)
        if table is None or not hasattr(table, "res_row"):
            return None
        rows = turns.rows()
        index = table.index
        n = len(rows)
        by_index: dict[int, int] | None = None

        def row_of(i: int) -> int:
            nonlocal by_index
            if 0 < i <= n:
                r = rows[i - 1]
                if index[r] == i:
                    return r
            if by_index is None:  # indices with gaps: the finder's map, made once
                by_index = {index[r]: r for r in rows}
            return by_index[i]

        return table, row_of


class _Listing:
    """The inventory's list, made on demand: whole objects merged with response rows."""

    def __init__(self, full: list[ProviderObject], rows: _ResponseRows | None) -> None:
        self._full = full
        self._rows = rows

    def __len__(self) -> int:
        return len(self._full) + (len(self._rows) if self._rows is not None else 0)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[ProviderObject]:
        if not self._rows:
            return iter(self._full)
        full = self._full
        responses = [o for o in full if o.kind == "response"]
        if responses:
            return heapq.merge(full, self._rows, key=_order)
        # No whole response to interleave: the rows sit between the kinds before and after.
        n = sum(1 for o in full if o.kind == "conversation")
        return itertools.chain(full[:n], self._rows, full[n:])

    def dicts(self, turns_as: Callable[[array[int]], Any] | None = None,
              ) -> Iterator[dict[str, Any]]:
        """Each object's `to_dict(turns_as)`, in the listing's order (what a report writes):
        a response row's made from its columns (`_ResponseRows.row_dict`)."""
        rows, full = self._rows, self._full
        if not rows or any(o.kind == "response" for o in full):
            return (o.to_dict(turns_as) if isinstance(o, ProviderObject) else o.to_dict()
                    for o in self)
        n = sum(1 for o in full if o.kind == "conversation")
        return itertools.chain((o.to_dict(turns_as) for o in full[:n]),
                               rows.row_dicts(),
                               (o.to_dict(turns_as) for o in full[n:]))

    def __getitem__(self, i: int) -> ProviderObject:
        return list(self)[i]


_NAN = float("nan")
_UNKNOWN_AT = 0xFFFFFFFF  # an unknown created_at in 4-byte whole seconds


def _tight(values: list[int]) -> array[int]:
    """Lines as an array of 4-byte items (8 only when a line number needs it)."""
    try:
        return array("i", values)
    except OverflowError:
        return array("q", values)


def _created_line(t: Any) -> int:
    ref = t.response_ref
    return ref.line if ref is not None else t.line


# ------------------------------------------------------------------------------ building


def inventory(turns: Sequence[Any], exchanges: list[Any],
              read_raw: Callable[..., bytes | None],
              storage_price: dict[str, Any] | None = None,
              on_request: Callable[[Any, bytes | None, list[bytes]], None] | None = None,
              on_row: Callable[[Any, int, bytes | None, list[bytes]], None] | None = None,
              on_rows: Callable[[Any, Sequence[int], bool], None] | None = None,
              *, by_columns: bool = True) -> Objects:
    """The objects of a capture from its analysed turns and its exchanges.

    `read_raw(ref, limit=None)` returns a record's bytes, or its first `limit` (ids and
    `created_at` are found in them without parsing the body), for the turns the reader
    did not scan (`TurnTable.seen`). `on_request(turn, bytes, ids)` is told each turn's
    object ids quoted in its request (the ledger reads its vector stores there), with the
    request's bytes when they were read here, else None. `on_row(table, row, bytes, ids)`
    is told the same by the turn's table row, in place of `on_request`, for a turn read
    from a turn table (no view made for it). `on_rows(table, rows, same)`, when given, is
    told instead, once, that every turn of those table rows was seen with its request's ids
    from the table's `quoted_ids` column, when the turns are read a column at a time
    (analysis/object_columns.py: the usual capture; `by_columns=False` never does).
    """
    # By kind, then id (a (kind, id) tuple key was 64 bytes an object).
    found: dict[str, dict[str, ProviderObject]] = {k: {} for k in KINDS}
    rows = _ResponseRows(turns)
    # Response id -> its row, while the turns are read: only the ids something else names
    # (a later turn's previous_response_id, an exchange's path), and a hash of every other
    # id to notice one seen twice (then every row's id is mapped from there on). A map of
    # every stored response was the pass's peak: ~150 bytes a turn.
    row_of: dict[str, int] = {}
    named_table, named_ids = _referenced(turns, exchanges)  # ids None: map every id
    # A row a turn at most: probed in the per-turn loop below, never grown; made there
    # (the column path reads none, and its 8 bytes a slot were a megabyte of the pass's
    # peak on a 50,000-turn capture).
    slots: array[int] | None = None
    mask = 0
    dead: set[int] = set()  # rows made whole
    last_key: tuple[int, str] = (-1, "")  # the last row's place in the listing
    in_order = True  # rows were added in the listing's order
    ids: dict[bytes, tuple[str, str]] = {}  # a quoted id -> (kind, id)

    def obj(kind: str, oid: str) -> ProviderObject:
        of_kind = found[kind]
        o = of_kind.get(oid)
        if o is None:
            r = row_of.pop(oid, None) if kind == "response" else None
            if r is not None:
                o = rows.whole(r)
                dead.add(r)
            else:
                o = ProviderObject(kind, oid)
            of_kind[oid] = o
        return o

    # An object's turn list holds each turn once. Turns come in index order, so a list that
    # only grew needs no membership test; one that did not gets a set beside it (`x in
    # o.turns` scanned the list: quadratic in the turns that use one vector store).
    turn_sets: dict[int, set[int]] = {}

    def add_turn(o: ProviderObject, turn: int, once: bool) -> None:
        ts = o.turns
        seen = turn_sets.get(id(o))
        if seen is None:
            if not ts or turn > ts[-1]:
                ts.append(turn)
                return
            if once and turn == ts[-1]:
                return
            seen = turn_sets[id(o)] = set(ts)
        if once and turn in seen:
            return
        seen.add(turn)
        ts.append(turn)

    def use(o: ProviderObject, line: int, turn: int | None, when: float | None) -> None:
        o.uses += 1
        if len(o.used_lines) < MAX_LINES and line not in o.used_lines:
            o.used_lines.append(line)
        if turn is not None:
            add_turn(o, turn, True)
        if when is not None:
            o.last_used_at = max(o.last_used_at or when, when)

    # The usual capture's turns a column at a time; else (None) the loop below, per turn.
    whole = table_of(turns) if by_columns and named_ids is not None and not named_ids \
        else None
    made = fill(turns, whole, rows, obj, on_row, on_rows) \
        if whole is not None and whole is named_table else None
    if made is not None:
        in_order = made
    elif named_ids is not None:
        slots = _hash_slots(len(turns))
        mask = len(slots) - 1
    for t, table, row, index, line, rid, responses, flag, prev, cid in (
            _turn_facts(turns) if made is None else ()):
        # A response names files (citations, container files) only around hosted calls;
        # otherwise its head, where `created_at` sits, is enough (bodies can be large).
        scan = table.seen(row) if table is not None else None
        if slots is not None and table is not named_table:  # ids named here not read
            slots = named_ids = None
            row_of = _all_rows(rows, dead, row_of)
        if scan is not None:  # found when the lines were read (capture/scan.py)
            req_raw = res_raw = None
            req_ids, res_ids, when, raw_store, res_line = scan
        else:
            if type(t) is int:  # the view, made where the columns do not suffice
                t = turns[t]
            turn = t.turn
            res = turn.res
            req_ref, res_ref = turn.request, turn.response
            res_line = res_ref.line if res_ref is not None else None
            head = None if res is not None and res.hosted_calls else HEAD_BYTES
            req_raw, res_raw = _read_pair(read_raw, req_ref, res_ref, head)
            when = _created(res_raw)
            req_ids = _IDS.findall(req_raw) if req_raw else []
            res_ids = _IDS.findall(res_raw) if res_raw else []
            raw_store = None
        if on_row is not None and table is not None:
            on_row(table, row, req_raw, req_ids)
        elif on_request is not None:
            on_request(turns[t] if type(t) is int else t, req_raw, req_ids)
        if rid and responses:
            # The facts' flag, the request's else the response's echo (TurnReport.store).
            store = flag if isinstance(flag, bool) else (
                (True if raw_store is None else raw_store) if scan is not None
                else _store(req_raw, res_raw))
            if slots is not None:  # a hash table's probe inlined: this runs on every turn
                h = hash(rid) or 1
                i = h & mask
                while (v := slots[i]) and v != h:
                    i = (i + 1) & mask
                if v:  # seen before, or a collision: every id mapped from here on
                    slots = named_ids = None
                    row_of = _all_rows(rows, dead, row_of)
                else:
                    slots[i] = h
            if rid in row_of or rid in found["response"]:
                r = obj("response", rid)
                r.created_line = res_line if res_line is not None else line
                r.created_at = when
                r.store = store
                add_turn(r, index, False)
            else:
                if named_ids is None or rid in named_ids:
                    row_of[rid] = len(rows.index)
                key = (res_line if res_line is not None else line, rid)
                in_order = in_order and key > last_key
                last_key = key
                rows.add(index, when, store)
        if prev:
            use(obj("response", prev), line, index, when)
        if cid:
            c = obj("conversation", cid)
            use(c, line, index, when)
            if c.created_at is None:
                c.created_at = when
        if req_ids or res_ids:
            # The same few ids on every turn: each one's (kind, id) is made once.
            named = {ids.get(m) or ids.setdefault(m, (_KIND_OF[m[:3]], m.decode()))
                     for m in (*req_ids, *res_ids)}
            for kind, oid in sorted(named) if len(named) > 1 else named:
                use(obj(kind, oid), line, index, when)
    slots = None
    for ex in exchanges:
        _exchange(ex, obj, use, read_raw)
    row_of.clear()
    rows.sort(in_order, dead)
    # In _order's order (kind, first line, id): by kind as found, each kind sorted by id
    # then (stably) by first line; no key tuple an object.
    result = Objects([o for k in KINDS
                      for o in sorted(sorted(found[k].values(), key=_id), key=_first)],
                     storage_price=storage_price, rows=rows)
    found.clear()
    for o in result._full:
        o.used_lines = _tight(sorted(o.used_lines))
        o.turns = array("I", o.turns)  # at its length: appends left room to grow
        if o.kind == "vector_store" and storage_price and o.usage_bytes is not None:
            o.storage_usd_per_day = _storage_fee(o.usage_bytes, storage_price)
    _attach_to_turns(result, turns)
    return result


_Facts = tuple[Any, Any, int, int, int, "str | None", bool, "bool | None", "str | None",
               "str | None"]


def _turn_facts(turns: Sequence[Any]) -> Iterator[_Facts]:
    """What the inventory reads of each turn, in order: (the turn, or its position in
    `turns` where its view was not made; its table or None; its row; index; line; response
    id; whether its api is "responses"; its store flag, the request's else the response's
    (None: neither sent one); previous_response_id; conversation id). Read from the turn
    table's columns (analysis/columns.py) when the turns are the analysis's over one
    table, as the row views read them (capture/model.py); else through the views."""
    parts = getattr(turns, "_parts", None)
    if type(parts) is list and len(parts) == 1 and hasattr(turns, "rows") and \
            hasattr(getattr(parts[0], "table", None), "res_row"):
        yield from _column_facts(turns, parts[0].table)
        return
    for t in turns:
        turn = t.turn
        res, req = turn.res, turn.req
        flag = req.store if req is not None else None
        if flag is None and res is not None:
            flag = res.store
        yield (t, getattr(turn, "table", None), getattr(turn, "row", -1), turn.index,
               turn.line, res.response_id if res is not None else None,
               turn.api == "responses", flag,
               req.previous_response_id if req is not None else None, turn.conversation_id)


def _column_facts(turns: Any, table: Any) -> Iterator[_Facts]:
    rows = turns.rows()
    pos, n = 0, len(rows)
    while pos < n:  # bound again whenever a column widened (the table's version changed)
        c = Columns(table)
        version = c.version
        values, req_row, res_row, index, line, api = (c.values, c.req_row, c.res_row,
                                                      c.index, table.line, c.api)
        q_flags, s_flags, q_conv, s_conv = c.q_flags, c.s_flags, c.q_conv, c.s_conv
        prev_col = table.requests.cols["previous_response_id"]
        ids = table.responses.cols["response_id"]
        while pos < n and table.version == version:
            r = rows[pos]
            qi, si = req_row[r], res_row[r]
            flag = cid = prev = None
            if qi >= 0:
                bits = q_flags[qi]
                if bits & Q_STORE_SET:
                    flag = bool(bits & Q_STORE_VALUE)
                cid = values[q_conv[qi]]
                prev = prev_col.get(qi)
            if si >= 0:
                bits = s_flags[si]
                if flag is None and bits & S_STORE_SET:
                    flag = bool(bits & S_STORE_VALUE)
                if not cid:
                    cid = values[s_conv[si]]
            yield (pos, table, r, index[r], line[r], ids.get(si) if si >= 0 else None,
                   values[api[r]] == "responses", flag, prev, cid)
            pos += 1


def _referenced(turns: Sequence[Any], exchanges: list[Any]) -> tuple[Any, set[str] | None]:
    """(the table read, the response ids something other than their own turn names): every
    previous_response_id in the first turn's table (its column's lengths say which rows
    have one: a capture without chains reads none) and the ids in exchanges' paths. The
    ids are None — every id is mapped — when the turns have no table, or an exchange could
    create a response (its id is in its body). A turn of another table maps every id from
    there on (the caller's check)."""
    first = turns[0].turn if turns else None
    table = getattr(first, "table", None)
    if table is None:
        return None, None
    out: set[str] = set()
    col = table.requests.cols["previous_response_id"]
    lens = col.lens
    if len(lens) and max(lens) > 0:
        out.update(prev for qi, n in enumerate(lens) if n > 0 and (prev := col.get(qi)))
    for ex in exchanges:
        parts = [p for p in ex.path.split("/") if p]
        if parts and parts[0] == "v1":
            parts = parts[1:]
        if not parts or _PATHS.get(parts[0]) != "response":
            continue
        if len(parts) == 1:
            return table, None
        out.add(parts[1])
    return table, out


def _hash_slots(expected: int) -> array[int]:
    """An open-addressing table of response id hashes (0: empty), sized to stay at most
    half full with `expected` ids: ~16 bytes an id where a set of ints was ~75, and a map
    of id -> row ~150."""
    size = 1024
    while size < 2 * expected + 2:
        size *= 2
    return array("q", bytes(8 * size))


def _all_rows(rows: _ResponseRows, dead: set[int], row_of: dict[str, int]) -> dict[str, int]:
    """Every live row's response id -> the row (the first row of an id wins, as when
    every id was mapped as it came), from the turns."""
    out: dict[str, int] = {}
    find = rows.find
    for r, index in enumerate(rows.index):
        if r not in dead:
            rid = find(index).response_id
            if rid and rid not in out:
                out[rid] = r
    out.update((k, v) for k, v in row_of.items() if k not in out)
    return out


class _Span(NamedTuple):
    """A byte range read like a record's (`read_raw` reads any such range)."""

    source: int
    offset: int
    length: int
    line: int


def _read_pair(read_raw: Callable[..., bytes | None], req: Any, res: Any,
               head: int | None) -> tuple[bytes | None, bytes | None]:
    """A turn's request bytes and its response's (its first `head` bytes, when given):
    one read when the response follows the request, as it does in most captures."""
    if req is not None and res is not None and req.source == res.source:
        gap = res.offset - (req.offset + req.length)
        if 0 <= gap <= 64:
            end = res.offset + (res.length if head is None else min(head, res.length))
            data = read_raw(_Span(req.source, req.offset, end - req.offset, req.line))
            if data is not None and len(data) == end - req.offset:
                return data[:req.length], data[res.offset - req.offset:]
    return (read_raw(req) if req is not None else None,
            read_raw(res, head) if res is not None else None)


def _exchange(ex: Any, obj: Callable[[str, str], ProviderObject],
              use: Callable[[ProviderObject, int, int | None, float | None], None],
              read_raw: Callable[[Any], bytes | None]) -> None:
    parts = [p for p in ex.path.split("/") if p]
    if parts and parts[0] == "v1":
        parts = parts[1:]
    if not parts or parts[0] not in _PATHS:
        return
    kind = _PATHS[parts[0]]
    ok = ex.status_code in (None, 200, 201)
    if len(parts) == 1:  # a create
        if ex.method == "POST" and ok:
            raw = read_raw(ex.response)
            body = _json(raw)
            oid = body.get("id") if isinstance(body, dict) else None
            if isinstance(oid, str):
                o = obj(kind, oid)
                o.created_line = ex.line
                _details(o, body)
        return
    oid = parts[1]
    if kind == "response" and oid == "compact":
        return
    o = obj(kind, oid)
    sub = parts[2:]
    if ex.method == "DELETE" and ok:
        if sub and kind == "conversation" and sub[0] == "items":
            o.items_deleted_lines.append(ex.line)
        elif not sub:
            o.deleted_line = o.deleted_line or ex.line
        return
    if ex.status_code == 404 and not sub:
        o.missing_line = o.missing_line or ex.line
        return
    if ex.status_code == 404 and kind == "response" and sub == ["input_items"]:
        o.missing_line = o.missing_line or ex.line
        return
    use(o, ex.line, None, None)
    if ok and not sub and ex.method in ("GET", "POST"):
        body = _json(read_raw(ex.response))
        if isinstance(body, dict) and body.get("id") == oid:
            _details(o, body)


def _details(o: ProviderObject, body: dict[str, Any]) -> None:
    created = body.get("created_at")
    if isinstance(created, int | float) and o.created_at is None:
        o.created_at = float(created)
    for key in ("filename", "name"):
        if isinstance(body.get(key), str) and o.name is None:
            o.name = redact_text(body[key])  # names are the application's text
    size = body.get("usage_bytes", body.get("bytes"))
    if isinstance(size, int):
        o.usage_bytes = size
    if isinstance(body.get("expires_after"), dict):
        o.expires_after = body["expires_after"]
    if isinstance(body.get("expires_at"), int | float):
        o.expires_at = float(body["expires_at"])
    if o.kind == "response" and isinstance(body.get("store"), bool):
        o.store = body["store"]


def _attach_to_turns(result: Objects, turns: Sequence[Any]) -> None:
    """Each turn whose provider copy was deleted (or found gone) gets a note."""
    gone = {o.id: o for o in result._full if o.state in ("deleted", "not_found")}
    if not gone:
        return
    for t in turns:
        for oid in (t.turn.conversation_id, t.response_id):
            o = gone.get(oid) if oid else None
            if o is None:
                continue
            line = o.deleted_line or o.missing_line
            what = "deleted" if o.deleted_line is not None else "gone (HTTP 404)"
            result.turn_notes[t.index] = {
                "object": o.id, "kind": o.kind, "state": o.state, "line": line,
                "note": f"provider copy {what} (line {line}); the local record stays whole",
            }
            break


def _storage_fee(usage_bytes: int, price: dict[str, Any]) -> float | None:
    try:
        per_gb_day = float(price.get("per_gb_day", price.get("usd_per_gb_day")))
        free = float(price.get("free_gb", 0))
    except (TypeError, ValueError):
        return None
    return max(usage_bytes / 1e9 - free, 0.0) * per_gb_day


def _order(o: ProviderObject) -> tuple[int, int, str]:
    return KINDS.index(o.kind), _first(o), o.id


def _first(o: ProviderObject) -> int:
    return o.created_line or (o.used_lines[0] if o.used_lines else 0)


_id = attrgetter("id")


def _store(req_raw: bytes | None, res_raw: bytes | None) -> bool:
    """Stored unless the request (or the response's echo) says store=false."""
    for raw in (req_raw, res_raw):
        m = _STORE.search(raw or b"")
        if m:
            return m.group(1) == b"true"
    return True


def _created(raw: bytes | None) -> float | None:
    m = _CREATED.search(raw or b"")
    return float(m.group(1)) if m else None


def _json(raw: bytes | None) -> Any:
    import orjson

    if not raw:
        return None
    try:
        rec = orjson.loads(raw)
    except ValueError:
        return None
    return rec.get("body") if isinstance(rec, dict) else None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DAYS: dict[int, str] = {}  # ISO date per whole day since the epoch, for _date and _iso
_WHOLE_LIMIT = 253402300800  # 10000-01-01: whole seconds below it have a four-digit year
_CLOCK = [f"{m // 60:02d}:{m % 60:02d}:" for m in range(1440)]  # "HH:MM:" per minute
_SECONDS = [f"{s:02d}Z" for s in range(60)]


def _day(epoch: float) -> str | None:
    """The ISO date of a whole, non-negative number of seconds (the usual `created_at`),
    looked up once per day; None for any other value (the datetime arithmetic decides)."""
    if not 0 <= epoch < _WHOLE_LIMIT or epoch != int(epoch):
        return None
    day = int(epoch) // 86400
    date = _DAYS.get(day)
    if date is None:
        date = (_EPOCH + timedelta(days=day)).date().isoformat()
        if len(_DAYS) < 4096:
            _DAYS[day] = date
    return date


def _date(epoch: float) -> str | None:
    """The ISO date of a time in epoch seconds; None for one no calendar holds (a damaged
    capture's year 11476, or milliseconds where seconds belong, past year 9999)."""
    date = _day(epoch)
    if date is not None:
        return date
    try:
        return (_EPOCH + timedelta(seconds=epoch)).date().isoformat()
    except (OverflowError, ValueError):
        return None


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    date = _day(epoch)
    if date is not None:  # the same text as below, without two datetimes a call
        minute, sec = divmod(int(epoch) % 86400, 60)
        return date + "T" + _CLOCK[minute] + _SECONDS[sec]
    try:
        t = _EPOCH + timedelta(seconds=epoch)
    except (OverflowError, ValueError):  # no calendar time (see _date)
        return None
    return t.isoformat(timespec="seconds").replace("+00:00", "Z")


_OUT_OF_RANGE = "expiry unknown (a time in the capture past year 9999)"


def deletions(exchanges: list[Any]) -> dict[str, int]:
    """Object id -> the line of the ``DELETE`` exchange that removed it (no body reads)."""
    out: dict[str, int] = {}
    for ex in exchanges:
        if ex.method != "DELETE" or ex.status_code not in (None, 200):
            continue
        parts = [p for p in ex.path.split("/") if p]
        if parts and parts[0] == "v1":
            parts = parts[1:]
        if len(parts) == 2 and parts[0] in _PATHS:
            out.setdefault(parts[1], ex.line)
    return out
