"""The objects inventory's turn pass over whole columns, for the usual capture.

The inventory (analysis/objects.py) reads, for each turn, what its lines' facts found in
the records' bytes (the quoted vector store and file ids, the response's `created_at`, a
store flag: capture/scan.py, kept in the turn table) and its conversation id, response id
and store flag. Done turn by turn, that is a Python loop with a dozen calls a turn: ~6 us a
turn, 1.5 s for the 244,000 turns of a 1 GB hosted capture, run alone at the end of the
load. Here the same values are read a column at a time (C-level `map`, `compress`, slices
and sorts over the table's arrays), grouped by the few distinct values a hosted capture
repeats (one tuple of ids on every turn, one conversation per few turns), and each object
is made once from its group of turns.

Only for the capture whose turns ask nothing of the general loop: the analysis's turns
over one table, every record scanned when it was read, no previous_response_id, no
response id named by an exchange or seen twice. Anything else — and every capture made
some other way — takes the general loop, which gives the same inventory
(tests/core/test_objects_columns.py compares the two on every fixture).
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import compress, groupby
from operator import add, and_, lt, ne
from typing import Any

from traceview.analysis.columns import (
    Q_STORE_SET,
    Q_STORE_VALUE,
    S_STORE_SET,
    S_STORE_VALUE,
)
from traceview.capture.table import RequestSide, ResponseSide, flag_bit

_Q_SCANNED = flag_bit(RequestSide, "scanned")
_Q_RAW_SET = flag_bit(RequestSide, "raw_store_set")
_Q_RAW_VALUE = flag_bit(RequestSide, "raw_store_value")
_S_SCANNED = flag_bit(ResponseSide, "scanned")
_NONE = -1.0  # raw_created_at's "none found" (compared as a float: the column may be either)
_WHOLE_LIMIT = 0xFFFFFFFF  # _ResponseRows' 4-byte created_at holds less (objects.py)
# A quoted id's kind by its first three bytes (capture/scan.IDS finds only these).
KIND_OF = {b"vs_": "vector_store", b"fil": "file"}
_MANY = 16  # distinct keys found by one pass each up to this; by sorting beyond it
_is_row = (-1).__lt__  # a row number: not -1
_found = _NONE.__ne__  # a created_at found
_non_empty = (0).__lt__  # a text's length: not None (-1), not ""


def table_of(turns: Sequence[Any]) -> Any:
    """The one turn table the turns are the analysis's rows of (analysis/reports.py), or
    None (a list of views, turns of several tables)."""
    parts = getattr(turns, "_parts", None)
    if type(parts) is not list or len(parts) != 1 or not hasattr(turns, "rows"):
        return None
    table = getattr(parts[0], "table", None)
    return table if hasattr(table, "res_row") else None


def column(col: Any, rows: Sequence[int]) -> Sequence[Any]:
    """`col` read at each of `rows`: the column itself when they are all its rows in
    order (the usual case), else a copy of the same item size."""
    if type(rows) is range and rows.start == 0 and rows.step == 1:
        return col if rows.stop == len(col) else col[:rows.stop]
    return _like(col, map(col.__getitem__, rows))


def through(col: Any, rows: Iterable[int], missing: int) -> Sequence[Any]:
    """`col` at each of `rows` (another side's row numbers), `missing` where a row is -1
    (a side the turn lacks); of the column's item size (a list of ints was 40 bytes a
    turn: this pass runs while the whole capture is held, at the load's peak)."""
    ext = col[:]  # a copy with `missing` at its end: -1 reads it
    ext.append(missing)
    return _like(ext, map(ext.__getitem__, rows))


def _like(col: Any, items: Iterable[Any]) -> Sequence[Any]:
    return array(col.typecode, items) if type(col) is array else bytearray(items)


def groups(keys: Sequence[int], wanted: Iterable[int]) -> dict[int, array[int]]:
    """The positions of each wanted key in `keys`, in order: one C-level pass a key for a
    few keys, else one pass over the runs of equal keys (a conversation's turns mostly
    follow each other)."""
    wanted = set(wanted)
    positions = range(len(keys))
    if len(wanted) <= _MANY:
        return {k: array("I", compress(positions, map(k.__eq__, keys))) for k in wanted}
    out: dict[int, array[int]] = {}
    for k, run in groupby(positions, key=keys.__getitem__):
        if k in wanted:
            got = out.get(k)
            if got is None:
                out[k] = array("I", run)
            else:
                got.extend(run)
    return out


class TurnColumns:
    """The columns the pass reads, in report order (position p: the turn at rows[p])."""

    def __init__(self, table: Any, rows: Sequence[int]) -> None:
        self.table, self.rows = table, rows
        self.n = len(rows)
        self.values = table.pool.values
        self.index = column(table.index, rows)
        self.line = column(table.line, rows)
        self.qr = column(table.req_row, rows)
        self.sr = column(table.res_row, rows)

    def sides_whole(self) -> bool:
        """Each turn's record and its facts row go together (a record read, its facts
        stored), and every facts row was scanned when its line was read."""
        t = self.table
        req, res = t.requests, t.responses
        if any(map(ne, map(_is_row, column(t.req_source, self.rows)), map(_is_row, self.qr))):
            return False
        if any(map(ne, map(_is_row, column(t.res_source, self.rows)), map(_is_row, self.sr))):
            return False
        q_scanned = map(_Q_SCANNED.__and__, map(req.flags.__getitem__, filter(_is_row,
                                                                              self.qr)))
        s_scanned = map(_S_SCANNED.__and__, map(res.flags.__getitem__, filter(_is_row,
                                                                              self.sr)))
        return all(q_scanned) and all(s_scanned)


def fill(turns: Sequence[Any], table: Any, found: dict[str, dict[str, Any]], rows: Any,
         make: Callable[[str, str], Any], on_row: Callable[..., None] | None,
         on_rows: Callable[[Any, Sequence[int]], None] | None) -> bool | None:
    """Make the turns' objects into `found` and their stored responses into `rows` (an
    empty objects._ResponseRows), telling `on_rows(table, rows)` (else `on_row` each turn)
    that every turn was seen; return whether the rows were added in the listing's order.
    None, with nothing made: the general loop must read these turns."""
    c = TurnColumns(table, turns.rows())
    if c.n == 0 or not c.sides_whole():
        return None
    values = c.values
    req, res = table.requests, table.responses
    # The stored responses: turns of the responses API with a response id.
    ids = res.cols["response_id"]
    responses = table.pool.numbers.get("responses")
    api = column(table.api, c.rows)
    if responses is None:
        picked = bytearray(c.n)
    else:
        picked = bytearray(map(and_, map(responses.__eq__, api),
                               map(_non_empty, through(ids.lens, c.sr, -1))))
    store = _stores(c, picked)
    if store is None:  # a turn the general loop reads again (TurnTable.seen's None)
        return None
    if not _unique_ids(ids, compress(c.sr, picked)):
        return None
    when = through(res.cols["raw_created_at"], c.sr, -1)
    if on_rows is not None:
        on_rows(table, c.rows)
    elif on_row is not None:
        quoted, qcol = values, req.cols["quoted_ids"]
        for r, qi in zip(c.rows, c.qr, strict=True):
            on_row(table, r, None, quoted[qcol[qi]] if qi >= 0 else ())
    in_order = _add_rows(rows, c, picked, store, when)
    _conversations(found, c, when, make)
    _quoted(found, c, when, make)
    return in_order


def _stores(c: TurnColumns, picked: bytearray) -> bytearray | None:
    """Each picked turn's store flag — its request's facts, else its response's, else the
    flag its request's bytes hold — or None when one has none of the three."""
    qf = through(c.table.requests.flags, compress(c.qr, picked), 0)
    sf = map(c.table.responses.flags.__getitem__, compress(c.sr, picked))
    out = bytearray(map(_store, qf, sf))
    return None if 2 in out else out


def _store(q: int, s: int) -> int:
    if q & Q_STORE_SET:
        return 1 if q & Q_STORE_VALUE else 0
    if s & S_STORE_SET:
        return 1 if s & S_STORE_VALUE else 0
    if q & _Q_RAW_SET:
        return 1 if q & _Q_RAW_VALUE else 0
    return 2


def _unique_ids(ids: Any, res_rows: Iterable[int]) -> bool:
    """No response id is given twice (the general loop then makes the rows objects):
    found without a set when the ids ascend (as generated ids do), else by their hashes."""
    buf, starts, lens = ids.buf, ids.starts, ids.lens
    rows = array("q", res_rows)

    def raw() -> Iterable[bytes]:
        begin = map(starts.__getitem__, rows)
        end = map(add, map(starts.__getitem__, rows), map(lens.__getitem__, rows))
        return map(bytes, map(buf.__getitem__, map(slice, begin, end)))

    if all(itertools.starmap(lt, itertools.pairwise(raw()))):
        return True
    # Distinct hashes: distinct ids (a hash two ids share only sends the capture to the
    # general loop, which gives the same inventory).
    return len(set(map(hash, raw()))) == len(rows)


def _add_rows(rows: Any, c: TurnColumns, picked: bytearray, store: bytearray,
              when: Sequence[Any]) -> bool:
    """Append the picked turns to `rows` (objects._ResponseRows) as its `add` would, and
    say whether their (line, id) keys ascend."""
    index = array("I", compress(c.index, picked))
    created = _like(when, compress(when, picked))
    table = c.table
    res_lines = array("q", compress(column(table.res_line, c.rows), picked))
    if type(created) is array and created.typecode not in "fd" and \
            (not created or max(created) < _WHOLE_LIMIT):
        rows.index = index
        rows.created = array("I", map(_WHOLE_LIMIT.__and__, created))  # -1: unknown
        rows.store = store
    else:  # fractions, or times past 2106: as `add` widens its column
        for i, v, s in zip(index, created, store, strict=True):
            rows.add(i, None if v == _NONE else float(v), bool(s))
    if all(map(lt, res_lines, res_lines[1:])):
        return True
    ids = table.responses.cols["response_id"]
    keys = [(line, ids.get(si)) for line, si in zip(res_lines, compress(c.sr, picked),
                                                    strict=True)]
    return keys[0] > (-1, "") and all(map(lt, keys, keys[1:]))


def _conversations(found: dict[str, dict[str, Any]], c: TurnColumns, when: Sequence[Any],
                   make: Callable[[str, str], Any]) -> None:
    """Each conversation a turn names (its request's, else its response's)."""
    values, req, res = c.values, c.table.requests, c.table.responses
    asked = through(req.cols["conversation_id"], c.qr, 0)
    answered = through(res.cols["conversation_id"], c.sr, 0)
    keys = array("q", map(lambda q, s: q if values[q] else s, asked, answered))
    named = {k for k in set(keys) if values[k]}
    if not named:
        return
    of_kind = found["conversation"]
    for k, pos in groups(keys, named).items():
        o = _used(make("conversation", values[k]), c, pos, when)
        of_kind[o.id] = o
        first = next(filter(_found, map(when.__getitem__, pos)), None)
        if o.created_at is None and first is not None:
            o.created_at = float(first)


def _quoted(found: dict[str, dict[str, Any]], c: TurnColumns, when: Sequence[Any],
            make: Callable[[str, str], Any]) -> None:
    """Each vector store and file id a turn's records quote (request and response)."""
    values, req, res = c.values, c.table.requests, c.table.responses
    asked = through(req.cols["quoted_ids"], c.qr, 0)
    answered = through(res.cols["quoted_ids"], c.sr, 0)
    width = len(values)
    keys = array("q", map(lambda q, s: q * width + s, asked, answered))
    named: dict[int, set[tuple[str, str]]] = {}
    for k in set(keys):
        q, s = divmod(k, width)
        quoted = (*(values[q] or ()), *(values[s] or ()))
        if quoted:
            named[k] = {(KIND_OF[m[:3]], m.decode()) for m in quoted}
    if not named:
        return
    users: dict[tuple[str, str], list[array[int]]] = {}
    for k, pos in groups(keys, named).items():
        for obj in named[k]:
            users.setdefault(obj, []).append(pos)
    for (kind, oid), lists in users.items():
        pos = lists[0] if len(lists) == 1 else array("I", sorted(itertools.chain(*lists)))
        o = _used(make(kind, oid), c, pos, when)
        found[kind][oid] = o


def _used(o: Any, c: TurnColumns, pos: array[int], when: Sequence[Any]) -> Any:
    """`o` used once by each turn at `pos` (in order), as objects.inventory's `use`."""
    lines = c.line
    first = dict.fromkeys(map(lines.__getitem__, pos[:20]))
    if len(first) < 20 < len(pos):  # a line repeated: the first 20 distinct
        first = dict.fromkeys(itertools.islice(dict.fromkeys(map(lines.__getitem__, pos)), 20))
    o.uses += len(pos)
    o.used_lines = array("q", first)
    o.turns = array("I", map(c.index.__getitem__, pos))
    last = max(filter(_found, map(when.__getitem__, pos)), default=None)
    o.last_used_at = None if last is None else float(last)
    return o
