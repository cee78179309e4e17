"""Provider objects: what a capture created, used and deleted on the provider's side.

Hosted state lives in objects the application never holds: conversations, stored
responses (``store`` is true unless the request said false), files and vector stores.
The inventory lists each one with the lines that created, used and deleted it, the
retention that applies (the documented default with its source and date, or a vector
store's ``expires_after``) and so when it expires, and — where the price table has one —
its storage fee. The pass that builds it is analysis/hosted/inventory.py.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from traceview.analysis.by_index import finder
from traceview.analysis.hosted.retention import RETENTION, expiry, iso_time, retention
from traceview.capture.model import Turn

KINDS = ("conversation", "response", "file", "vector_store")
_PATHS = {"conversations": "conversation", "responses": "response", "files": "file",
          "vector_stores": "vector_store"}
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

    _more: dict[str, Any] | None

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
        self.turns = array("I")  # turn indices (run 1..n; TURN_INDEX)
        self.store = store  # responses only
        self._more: dict[str, Any] | None = None

    @property
    def state(self) -> str:
        return state_of(self.kind, self.store, self.deleted_line, self.missing_line)

    def retention(self) -> dict[str, Any]:
        return retention(self.kind, self.expires_after)

    def expires(self) -> tuple[str | None, str]:
        """(ISO date or None, sentence)."""
        return expiry(self.kind, self.state, self.deleted_line, self.expires_at,
                      self.expires_after, self.last_used_at, self.created_at)

    def to_dict(self, turns_as: Callable[[array[int]], Any] | None = None) -> dict[str, Any]:
        """`turns_as(turns)` writes the turn list in place of a list (a streaming writer's
        pre-serialised JSON: a vector store used on every turn lists every turn)."""
        more = self._more or {}
        return object_dict(
            self.kind, self.id, self.created_line, self.created_at,
            self.turns.tolist() if turns_as is None else turns_as(self.turns), self.store,
            name=more.get("name"), used_lines=self.used_lines.tolist(), uses=self.uses,
            last_used_at=self.last_used_at, deleted_line=more.get("deleted_line"),
            missing_line=more.get("missing_line"),
            items_deleted_lines=list(more.get("items_deleted_lines") or ()),
            usage_bytes=more.get("usage_bytes"), expires_after=more.get("expires_after"),
            expires_at=more.get("expires_at"),
            storage_usd_per_day=more.get("storage_usd_per_day"))


def state_of(kind: str, store: bool | None, deleted_line: int | None,
             missing_line: int | None) -> str:
    """An object's state: deleted, not_found (a later 404 names it), not_stored (a
    response the request asked not to store) or exists."""
    if deleted_line is not None:
        return "deleted"
    if missing_line is not None:
        return "not_found"
    if kind == "response" and store is False:
        return "not_stored"
    return "exists"


def object_dict(kind: str, id: str, created_line: int | None,  # noqa: A002 - the object's id
                created_at: float | None, turns: Any, store: bool | None, *,
                name: str | None = None, used_lines: list[int] | None = None, uses: int = 0,
                last_used_at: float | None = None, deleted_line: int | None = None,
                missing_line: int | None = None, items_deleted_lines: list[int] | None = None,
                usage_bytes: int | None = None, expires_after: dict[str, Any] | None = None,
                expires_at: float | None = None,
                storage_usd_per_day: float | None = None) -> dict[str, Any]:
    """An object as a report lists it, made of its values: a whole object's
    (`ProviderObject.to_dict`) and a stored response's row (`ResponseRows.to_dict`), which
    is listed without being made an object."""
    state = state_of(kind, store, deleted_line, missing_line)
    date, sentence = expiry(kind, state, deleted_line, expires_at, expires_after,
                            last_used_at, created_at)
    return {
        "kind": kind, "id": id, "state": state, "name": name,
        "created_line": created_line, "created_at": iso_time(created_at),
        "used_lines": used_lines or [], "uses": uses, "turns": turns,
        "store": store, "deleted_line": deleted_line, "missing_line": missing_line,
        "items_deleted_lines": items_deleted_lines or [],
        # The documented default is stated once, in the inventory's retention_defaults;
        # only a vector store's own expires_after is spelled out here.
        "retention": retention(kind, expires_after) if expires_after else "default",
        "expires_around": date, "expiry": sentence,
        "usage_bytes": usage_bytes, "expires_after": expires_after,
        "storage_usd_per_day": None if storage_usd_per_day is None
        else round(storage_usd_per_day, 6),
    }


class Objects:
    """The inventory. Stored responses that nothing but their own turn touched — one per
    turn of a hosted capture — are not objects here but a row each (the turn's index,
    its `created_at`, its store flag: 13 bytes), made into a `ProviderObject` only when
    listed; every other object is held whole."""

    def __init__(self, objects: list[ProviderObject] | None = None,
                 turn_notes: dict[int, dict[str, Any]] | None = None,
                 storage_price: dict[str, Any] | None = None,
                 rows: ResponseRows | None = None) -> None:
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

    def held(self, kind: str) -> list[ProviderObject]:
        """The objects of `kind` held whole (not the stored responses kept as rows)."""
        return [o for o in self._full if o.kind == kind]

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
        listed = list(self.objects.dicts()) if objects is None else objects
        return {"counts": self.counts(), "objects": listed,
                "storage_price": self.storage_price,
                "retention_defaults": RETENTION}


class ResponseRows:
    """Stored responses as columns, in the inventory's order: the index of the turn that
    created each (its id and line are read back from the turn: `find`), `created_at`
    (NaN: unknown) and the store flag."""

    def __init__(self, turns: Sequence[Any]) -> None:
        self.turns = turns
        self.find = finder(turns)
        self.index = array("I")  # TURN_INDEX
        self.created = array("d")
        self.store = bytearray()

    def __len__(self) -> int:
        return len(self.index)

    def add(self, index: int, created: float | None, store: bool) -> None:
        self.index.append(index)
        self.created.append(_NAN if created is None else created)
        self.store.append(store)

    def created_at(self, r: int) -> float | None:
        """Row `r`'s `created_at` (None: unknown)."""
        v = self.created[r]
        return None if v != v else v

    def sort(self, in_order: bool, dead: set[int]) -> None:
        """Drop the rows made whole (`dead`) and put the rest in the listing's order (by
        created line, then id): nothing to do when they were added in that order, as they
        are when one file is read."""
        if in_order and not dead:
            return
        keys = sorted((*self._read(r), r) for r in range(len(self)) if r not in dead)
        index, created, store = self.index, self.created, self.store
        self.index = array("I", [index[r] for _l, _i, r in keys])
        self.created = array("d", [created[r] for _l, _i, r in keys])
        self.store = bytearray(store[r] for _l, _i, r in keys)

    def _read(self, r: int) -> tuple[int, str]:
        """Row `r`'s created line and response id, read from its turn's table row (the
        columns `Turn.response` and `Turn.response_id` read, without making the record's
        reference and the response's row view they are read through). A row is made only
        for a turn whose response has an id."""
        turn = self.find(self.index[r]).turn
        table, row = turn.table, turn.row
        res_row = table.res_row[row]
        rid = table.responses.cols["response_id"].get(res_row) if res_row >= 0 else None
        assert rid is not None  # a row is a stored response's: it has an id
        return _created_line(turn), rid

    def to_dict(self, r: int) -> dict[str, Any]:
        """Row `r` as the report lists it (`object_dict`), not made an object first: a
        hosted capture lists one a turn."""
        line, rid = self._read(r)
        return object_dict("response", rid, line, self.created_at(r), [self.index[r]],
                           bool(self.store[r]))

    def whole(self, r: int) -> ProviderObject:
        line, rid = self._read(r)
        o = ProviderObject("response", rid, line, self.created_at(r), bool(self.store[r]))
        o.turns.append(self.index[r])
        return o


class _Listing:
    """The inventory's list: whole objects merged with response rows, laid out when made
    (before a report's writers fork: each then makes its own range, `dicts(start, stop)`);
    a row is made a whole object only when listed."""

    def __init__(self, full: list[ProviderObject], rows: ResponseRows | None) -> None:
        self._rows = rows
        self._order = _laid_out(full, rows) if rows else list(full)

    def __len__(self) -> int:
        return len(self._order)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[ProviderObject]:
        return self.part(0, len(self))

    def part(self, start: int, stop: int) -> Iterator[ProviderObject]:
        """Objects [start, stop) of the listing."""
        return map(self._made, self._order[start:stop])

    def _made(self, entry: ProviderObject | int) -> ProviderObject:
        if isinstance(entry, ProviderObject):
            return entry
        assert self._rows is not None  # a row number: there are rows
        return self._rows.whole(entry)

    def dicts(self, turns_as: Callable[[array[int]], Any] | None = None,
              start: int = 0, stop: int | None = None) -> Iterator[dict[str, Any]]:
        """Each object's `to_dict(turns_as)`, in the listing's order (what a report
        writes), of objects [start, stop)."""
        rows = self._rows
        for entry in self._order[start:len(self) if stop is None else stop]:
            if isinstance(entry, ProviderObject):
                yield entry.to_dict(turns_as)
            else:
                assert rows is not None  # a row number: there are rows
                yield rows.to_dict(entry)

    def __getitem__(self, i: int) -> ProviderObject:
        return self._made(self._order[i])


def _laid_out(full: list[ProviderObject], rows: ResponseRows) -> list[ProviderObject | int]:
    """The listing in order (`order`): each whole object, and each response row by its
    row number. A kind listed before responses goes before every row, one listed after
    them after every row; a whole response goes before the rows whose place is not
    before its own (a tie: the whole object first), which are then placed once."""
    response = KINDS.index("response")
    places: list[tuple[int, int, str]] = []
    out: list[ProviderObject | int] = []
    taken = 0
    for o in full:
        kind = KINDS.index(o.kind)
        if kind == response and not places:
            places = [order(rows.whole(r)) for r in range(len(rows))]
        at = bisect_left(places, order(o)) if kind == response else (
            0 if kind < response else len(rows))
        out.extend(range(taken, at))
        out.append(o)
        taken = max(taken, at)
    out.extend(range(taken, len(rows)))
    return out

_NAN = float("nan")


def order(o: ProviderObject) -> tuple[int, int, str]:
    """An object's place in the listing: kind, first line, id."""
    return KINDS.index(o.kind), first_line(o), o.id


def first_line(o: ProviderObject) -> int:
    """The line that created an object, else the first that used it."""
    return o.created_line or (o.used_lines[0] if o.used_lines else 0)


def _created_line(turn: Turn) -> int:
    """The line of the response that created a stored response (else its turn's): the
    response record's line (`Turn.response`'s) read from the table without making the
    record's reference."""
    table, row = turn.table, turn.row
    line: int = table.res_line[row] if table.res_source[row] >= 0 else table.line[row]
    return line
