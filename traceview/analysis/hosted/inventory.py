"""The pass that builds the provider objects inventory (analysis/hosted/objects.py)
from the analysed turns and the capture's other exchanges.

Ids and dates are those quoted in the records' raw bytes, found when the lines were read
(capture/scan.py, kept in the turn table: `TurnTable.seen`) or, for a turn whose records
were not scanned, read again here. A stored response that only its own turn touches — one
per turn of a hosted capture — stays a row (`ResponseRows`); one that something else
names (a later previous_response_id, an exchange's path, a second turn with the same id)
is made a whole object.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, NamedTuple, cast

from traceview.analysis.columns import (
    Q_STORE_SET,
    Q_STORE_VALUE,
    S_STORE_SET,
    S_STORE_VALUE,
    Columns,
)
from traceview.analysis.hosted.object_calls import PATHS, exchange_into, path_parts
from traceview.analysis.hosted.objects import (
    KINDS,
    MAX_LINES,
    Objects,
    ProviderObject,
    ResponseRows,
    first_line,
)
from traceview.analysis.reports import table_rows
from traceview.capture.model import Turn as turn_view
from traceview.capture.scan import CREATED as _CREATED
from traceview.capture.scan import HEAD_BYTES, ids_in
from traceview.capture.scan import STORE as _STORE

KIND_OF = {b"vs_": "vector_store", b"fil": "file"}  # a quoted id's prefix -> its kind
_id = attrgetter("id")


def inventory(turns: Sequence[Any], exchanges: list[Any],
              read_raw: Callable[..., bytes | None],
              storage_price: dict[str, Any] | None = None) -> Objects:
    """The objects of a capture from its analysed turns (in index order) and exchanges.

    `read_raw(ref, limit=None)` returns a record's bytes, or its first `limit`, for the
    turns the reader did not scan.
    """
    tables = [(Columns(cols.table), rows) for cols, rows in table_rows(turns)]
    inv = _Inventory(turns, _named(tables, exchanges))
    for c, rows in tables:  # one pass over the columns: no view made per turn
        for row in rows:
            t = _read(c, row)
            found = _turn_ids(c, row, t, read_raw)
            inv.turn(t, found)
    for ex in exchanges:
        exchange_into(ex, inv.obj, inv.use, read_raw)
    return inv.finish(storage_price)


class _Turn(NamedTuple):
    """What the inventory reads of a turn, from the turn table's columns."""

    turn: int  # its index
    line: int
    api: str
    response_id: str | None
    previous_response_id: str | None
    conversation_id: str | None  # the request's, else the response's
    store: bool | None  # the request's flag, else the response's


def _read(c: Columns, row: int) -> _Turn:
    values, q, s = c.values, c.req_row[row], c.res_row[row]
    rid = res_conv = res_store = None
    if s >= 0:
        bits = c.s_flags[s]
        rid, res_conv = c.s_rid.get(s), values[c.s_conv[s]]
        res_store = bool(bits & S_STORE_VALUE) if bits & S_STORE_SET else None
    if q < 0:
        return _Turn(c.index[row], c.line[row], values[c.api[row]], rid, None, res_conv,
                     res_store)
    bits = c.q_flags[q]
    store = bool(bits & Q_STORE_VALUE) if bits & Q_STORE_SET else None
    return _Turn(c.index[row], c.line[row], values[c.api[row]], rid, c.q_prev.get(q),
                 values[c.q_conv[q]] or res_conv, res_store if store is None else store)


class _Named(NamedTuple):
    """The stored responses something other than their own turn names, found before the
    pass (a row is made whole when named, so it must be found again by its id)."""

    ids: set[str] | None  # named by a later turn or an exchange; None: every id
    repeated: set[int]  # hashes of ids more than one turn created (or a collision)

    def names(self, rid: str) -> bool:
        """Whether response `rid` may be named again (so its row must be found by id)."""
        return self.ids is None or rid in self.ids or hash(rid) in self.repeated


def _named(tables: Sequence[tuple[Columns, Sequence[int]]], exchanges: list[Any]) -> _Named:
    """Every previous_response_id, the ids in exchanges' paths (every id, when an exchange
    could create a response: its id is in its body), and the ids created twice — found
    by their hashes, 8 bytes a turn."""
    ids: set[str] = set()
    hashes = array("q")
    for c, rows in tables:
        for row in rows:
            q, s = c.req_row[row], c.res_row[row]
            prev = c.q_prev.get(q) if q >= 0 else None
            if prev:
                ids.add(prev)
            rid = c.s_rid.get(s) if s >= 0 else None
            if rid:
                hashes.append(hash(rid))
    for ex in exchanges:
        parts = path_parts(ex)
        if not parts or PATHS.get(parts[0]) != "response":
            continue
        if len(parts) == 1:
            return _Named(None, set())
        ids.add(parts[1])
    ordered = sorted(hashes)
    return _Named(ids, {h for h, after in zip(ordered, ordered[1:], strict=False)
                        if h == after})


class _TurnIds(NamedTuple):
    """What the inventory reads in a turn's record bytes."""

    req_ids: Sequence[bytes]
    res_ids: Sequence[bytes]
    created_at: float | None
    store: bool  # the facts' flag, else the bytes', else stored
    res_line: int | None


class _Inventory:
    """The objects found so far, by kind then id, and the stored responses kept as rows."""

    def __init__(self, turns: Sequence[Any], named: _Named) -> None:
        self.turns = turns
        self.found: dict[str, dict[str, ProviderObject]] = {k: {} for k in KINDS}
        self.rows = ResponseRows(turns)
        self.named = named
        self.row_of: dict[str, int] = {}  # a named response id -> its row
        self.dead: set[int] = set()  # rows made whole
        self.last_key: tuple[int, str] = (-1, "")  # the last row's place in the listing
        self.in_order = True  # rows were added in the listing's order
        self.kinds: dict[bytes, tuple[str, str]] = {}  # a quoted id -> (kind, id)
        self.turn_sets: dict[int, set[int]] = {}  # an object's turns, once not in order

    def obj(self, kind: str, oid: str) -> ProviderObject:
        """The object `oid` of `kind`, made (or made whole from its row) when new."""
        of_kind = self.found[kind]
        o = of_kind.get(oid)
        if o is None:
            r = self.row_of.pop(oid, None) if kind == "response" else None
            if r is not None:
                o = self.rows.whole(r)
                self.dead.add(r)
            else:
                o = ProviderObject(kind, oid)
            of_kind[oid] = o
        return o

    def add_turn(self, o: ProviderObject, turn: int, once: bool) -> None:
        """Add `turn` to the object's turns (once: not if it is there already). Turns come
        in index order, so a list that only grew needs no membership test."""
        ts = o.turns
        seen = self.turn_sets.get(id(o))
        if seen is None:
            if not ts or turn > ts[-1]:
                ts.append(turn)
                return
            if once and turn == ts[-1]:
                return
            seen = self.turn_sets[id(o)] = set(ts)
        if once and turn in seen:
            return
        seen.add(turn)
        ts.append(turn)

    def use(self, o: ProviderObject, line: int, turn: int | None, when: float | None) -> None:
        """Note a use of `o` on `line` (by `turn`, at `when`, when known)."""
        o.uses += 1
        if len(o.used_lines) < MAX_LINES and line not in o.used_lines:
            o.used_lines.append(line)
        if turn is not None:
            self.add_turn(o, turn, True)
        if when is not None:
            o.last_used_at = max(o.last_used_at or when, when)

    def turn(self, t: _Turn, found: _TurnIds) -> None:
        """Note a turn's objects: its stored response, the response it continues, its
        conversation and the files and vector stores it quotes."""
        index, line = t.turn, t.line
        if t.response_id and t.api == "responses":
            self.response(t.response_id, index, line, found)
        if t.previous_response_id:
            self.use(self.obj("response", t.previous_response_id), line, index,
                     found.created_at)
        if t.conversation_id:
            c = self.obj("conversation", t.conversation_id)
            self.use(c, line, index, found.created_at)
            if c.created_at is None:
                c.created_at = found.created_at
        if found.req_ids or found.res_ids:
            named = {self.kind_of(m) for m in (*found.req_ids, *found.res_ids)}
            for kind, oid in sorted(named):
                self.use(self.obj(kind, oid), line, index, found.created_at)

    def kind_of(self, m: bytes) -> tuple[str, str]:
        """(kind, id) of a quoted id (the same few ids on every turn: made once each)."""
        got = self.kinds.get(m)
        if got is None:
            got = self.kinds[m] = (KIND_OF[m[:3]], m.decode())
        return got

    def response(self, rid: str, index: int, line: int, found: _TurnIds) -> None:
        """A stored response created by turn `index`: a row, unless something else names
        it (then a whole object)."""
        created_line = found.res_line if found.res_line is not None else line
        if rid in self.row_of or rid in self.found["response"]:
            r = self.obj("response", rid)
            r.created_line = created_line
            r.created_at = found.created_at
            r.store = found.store
            self.add_turn(r, index, False)
            return
        if self.named.names(rid):
            self.row_of[rid] = len(self.rows)
        key = (created_line, rid)
        self.in_order = self.in_order and key > self.last_key
        self.last_key = key
        self.rows.add(index, found.created_at, found.store)

    def finish(self, storage_price: dict[str, Any] | None) -> Objects:
        """The inventory, in the listing's order (kind, first line, id), with notes on the
        turns whose provider copy the capture deleted."""
        self.row_of.clear()
        self.rows.sort(self.in_order, self.dead)
        result = Objects([o for k in KINDS for o in sorted(
            sorted(self.found[k].values(), key=_id), key=first_line)],
            storage_price=storage_price, rows=self.rows)
        for o in result._full:
            o.used_lines = array("q", sorted(o.used_lines))
            o.turns = array("I", o.turns)  # at its length: appends left room to grow
            if o.kind == "vector_store" and storage_price and o.usage_bytes is not None:
                o.storage_usd_per_day = _storage_fee(o.usage_bytes, storage_price)
        _attach_to_turns(result, self.turns)
        return result


def _turn_ids(c: Columns, row: int, t: _Turn, read_raw: Callable[..., bytes | None],
              ) -> _TurnIds:
    """What the inventory reads in a turn's records: from the turn table when its lines
    were scanned, else from its bytes (a response's head only, unless it holds hosted
    calls: they name files)."""
    flag = t.store
    scan = c.table.seen(row)
    if scan is not None:
        req_ids, res_ids, when, raw_store, res_line = scan
        store = flag if isinstance(flag, bool) else raw_store is not False
        return _TurnIds(req_ids, res_ids, when, store, res_line)
    turn = turn_view(c.table, row)
    req_ref, res_ref = turn.request, turn.response
    s = c.res_row[row]
    head = None if s >= 0 and s in c.s_hosted else HEAD_BYTES
    req_raw, res_raw = _read_pair(read_raw, req_ref, res_ref, head)
    return _TurnIds(ids_in(req_raw, len(req_raw)) if req_raw else (),
                    ids_in(res_raw, len(res_raw)) if res_raw else (), _created(res_raw),
                    flag if isinstance(flag, bool) else _store(req_raw, res_raw),
                    res_ref.line if res_ref is not None else None)


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
        per_gb_day = float(cast(Any, price.get("per_gb_day", price.get("usd_per_gb_day"))))
        free = float(price.get("free_gb", 0))
    except (TypeError, ValueError):
        return None
    return max(usage_bytes / 1e9 - free, 0.0) * per_gb_day


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

