"""What the provider objects inventory reads from a turn's raw record bytes, found while
the line is read (in the worker process that reads it) instead of by reading the file again.

The inventory (analysis/objects.py) lists the vector store and file ids quoted anywhere in
a turn's request and response, the response's first `created_at` and the `store` flag of
requests that set it outside the facts' own view. It finds them with three patterns over
the bytes: the same patterns run here over the same bytes — the whole request record, and
the response record's first HEAD_BYTES (all of it when it holds hosted calls, whose
citations and container files may sit anywhere) — so the listing is the same whichever
way the ids were found (a pattern searched up to `end` finds what it finds in raw[:end]).
The `store` flag is searched for in a request's bytes only when its facts hold none, and
never in a response's: the inventory needs it only when the facts of neither side hold one,
which real responses (they echo `store`) almost never leave it to, so such a turn is
read again instead (TurnTable.seen).
"""

from __future__ import annotations

import re

# Vector store and file ids, as whole JSON strings, in one scan of the bytes (in valid JSON
# two quoted strings never share a quote, so the matches are those of one pattern each).
IDS = re.compile(rb'"(vs_[A-Za-z0-9_\-]+|file-[A-Za-z0-9_\-]+|file_[0-9a-f]{16,})"')
STORE = re.compile(rb'"store"\s*:\s*(true|false)')
# A number that ends there: not the "1" of "1e+300", nor a number cut at the head's end
# (HEAD_BYTES), which would read as a time in 1970.
CREATED = re.compile(rb'"created_at"\s*:\s*([0-9]+(?:\.[0-9]+)?)(?=\s*[,}\]])')
HEAD_BYTES = 2048  # bytes of a response read for its created_at when it has no hosted call

# The store flag as found: not at all, true, false.
NO_STORE, STORE_TRUE, STORE_FALSE = 0, 1, 2


def ids_in(raw: bytes, end: int) -> tuple[bytes, ...]:
    """The distinct quoted vector store / file ids in raw[:end], in order of first
    appearance. Repeats are dropped: the inventory and the ledger make a set of them (the
    listing is the same), and a record quoting one id a million times keeps one copy."""
    return tuple(dict.fromkeys(IDS.findall(raw, 0, end)))


def store_in(raw: bytes, end: int) -> int:
    """The first `"store": true|false` in raw[:end]: NO_STORE, STORE_TRUE or STORE_FALSE."""
    m = STORE.search(raw, 0, end)
    if m is None:
        return NO_STORE
    return STORE_TRUE if m.group(1) == b"true" else STORE_FALSE


def created_in(raw: bytes, end: int) -> int | float | None:
    """The first `"created_at": <number>` in raw[:end]: whole seconds (no fraction but
    zeros, fewer than 16 digits: exact as a float too) as an int, anything else as a float;
    the turn table keeps either as a double."""
    m = CREATED.search(raw, 0, end)
    if m is None:
        return None
    digits = m.group(1)
    whole, _, fraction = digits.partition(b".")
    if len(whole) < 16 and not fraction.strip(b"0"):
        return int(whole)
    return float(digits)
