"""The output boundary of the fleet tables: every string of a batch of columns sanitised
and redacted at once (an export is an output path, like the report and the screen); a
json column's text is made here too (`json_cells`), cleaned as it is made."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from typing import Any

import orjson

from traceview.export.schema import TABLES, column_types
from traceview.safety.known_keys import MIN_SECRET_LENGTH
from traceview.safety.redact import (
    lines_to_mask,
    redact,
    redact_json,
    redact_text,
)
from traceview.safety.sanitise import visible

Columns = dict[str, list[Any]]

_TYPES = {t: column_types(t) for t in TABLES}
_SCALARS = frozenset((int, float, bool, type(None)))
_NUMERIC = frozenset(("int64", "float64", "bool", "timestamp"))
_TEXT = frozenset((str, type(None)))
_LISTS = frozenset((list, type(None)))



def columns(table: str, cols: Columns) -> Columns:
    """Columns (from `capture_raw`) in schema order, every string sanitised and redacted
    (nested ones too; tuples become lists), numbers untouched. The strings of the whole
    batch are redacted together, and a column with nothing to change is passed on as is:
    so is a json column, whose text `json_cells` made clean."""
    types = _TYPES[table]
    strings: dict[str, None] = {}
    touched: dict[str, dict[str, None] | None] = {}  # column -> its strings (None: rebuild)
    for name, kind in types.items():
        values = cols[name]
        if kind == "json" or (kind in _NUMERIC and _SCALARS.issuperset(map(type, values))):
            continue
        own: dict[str, None] = {}
        tuples = _gather(values, own)
        strings.update(own)
        touched[name] = None if tuples else own
    changed = cleaned(strings)
    out: Columns = {}
    for name in types:
        values = cols[name]
        held = touched.get(name, {})
        if held is not None and not (changed and any(s in changed for s in held)):
            out[name] = values
        else:
            out[name] = [v if type(v) in _SCALARS else _apply(v, changed) for v in values]
    return out


def json_cells(values: list[Any]) -> list[str | None]:
    """A json column's cells: `orjson.dumps(redact(v))` of each value but None, the text
    cleaned as `columns` cleans a string. The values' texts are judged a line each, in one
    pass (`lines_to_mask`): a value whose text holds nothing to mask is its text, which
    only the sanitiser is left to run on; the others are redacted and their text cleaned."""
    texts = [None if v is None else orjson.dumps(v) for v in values]
    chunk = b"\n".join(t for t in texts if t is not None)
    flagged = lines_to_mask(chunk)
    # orjson escapes every C0 control: ASCII text without DEL is printable throughout (the
    # sanitiser's own test of a chunk, sanitise.py json_safe), so no text is tested alone.
    printable = chunk.isascii() and b"\x7f" not in chunk
    out: list[str | None] = []
    masked: dict[int, Any] = {}  # the place in `out` of each value to mask -> the value
    at = 0  # where the next text's line starts in `chunk`
    for v, t in zip(values, texts, strict=True):
        if t is None:
            out.append(None)
            continue
        flag, at = at in flagged, at + len(t) + 1
        if flag:
            masked[len(out)] = v
            out.append(None)  # its cell: below
            continue
        text = t.decode()
        out.append(text if printable or text.isprintable() else visible(text))
    if masked:
        done = clean_values([orjson.dumps(redact(v)).decode() for v in masked.values()])
        for i, cell in zip(masked, done, strict=True):
            out[i] = cell
    return out


def clean_values(values: list[Any]) -> list[Any]:
    """`values` with every string in them cleaned, as `columns` cleans a column's."""
    strings: dict[str, None] = {}
    _gather(values, strings)
    changed = cleaned(strings)
    return [v if type(v) in _SCALARS else _apply(v, changed) for v in values]


def _gather(values: list[Any], into: dict[str, None]) -> bool:
    """Every string in `values` (nested in lists and dicts too) into `into`; True when a
    tuple was met (cleaning makes it a list)."""
    kinds = set(map(type, values))
    flat = None
    if kinds <= _TEXT:  # strings and nulls: their distinct values, without a walk
        flat = dict.fromkeys(values)
    elif kinds <= _LISTS:  # lists (of strings, most often): their items, likewise
        try:
            flat = dict.fromkeys(chain.from_iterable(v for v in values if v is not None))
        except TypeError:  # a list or a dict among the items
            flat = None
    if flat is not None:
        flat.pop(None, None)
        if _TEXT.issuperset(map(type, flat)):
            into.update(flat)
            return False
    tuples = False
    stack = [v for v in values if type(v) not in _SCALARS]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str:
            into[v] = None
        elif t is dict:
            stack.extend(v.values())
        elif t is list:
            stack.extend(v)
        elif t is tuple:
            tuples = True
            stack.extend(v)
    return tuples


def _apply(value: Any, changed: dict[str, str]) -> Any:
    t = type(value)
    if t is str:
        return changed.get(value, value)
    if t is dict:
        return {k: v if type(v) in _SCALARS else _apply(v, changed) for k, v in value.items()}
    if t is list or t is tuple:
        return [v if type(v) in _SCALARS else _apply(v, changed) for v in value]
    return value


def cleaned(strings: Iterable[str]) -> dict[str, str]:
    """{string: `visible(redact_text(string))`} for the strings that cleaning changes.

    The one-line strings are redacted together: as the lines of one chunk through
    `redact_json`, which masks a line exactly as `redact_text` masks it alone (the same
    pre-check and masker, a line at a time). A string with a line feed is taken alone:
    the sanitiser changes it anyway (a line feed becomes `\\n`).
    """
    changed: dict[str, str] = {}
    lines = []
    for s in strings:
        if "\n" in s:
            changed[s] = visible(redact_text(s))
        elif len(s) >= MIN_SECRET_LENGTH:
            lines.append(s)
        elif not s.isprintable():
            changed[s] = visible(s)
    if lines:
        chunk = "\n".join(lines).encode("utf-8", "surrogatepass")
        masked = redact_json(chunk)
        if masked is chunk or masked == chunk:
            done = lines
        else:
            done = masked.decode("utf-8", "surrogatepass").split("\n")
            if len(done) != len(lines):  # not expected: every string on its own then
                done = [redact_text(s) for s in lines]
        for s, r in zip(lines, done, strict=True):
            if not r.isprintable():
                changed[s] = visible(r)
            elif r != s:
                changed[s] = r
    return changed
