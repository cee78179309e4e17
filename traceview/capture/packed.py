"""Several counts of one record kept in a single int, read back through descriptors.

A capture's summary keeps a dozen counts per turn (tokens, bytes, milliseconds). As
separate int objects they cost 28-32 bytes each plus a slot: more than half of what a
large capture's summary weighs. Packed 40 bits apiece into one int they cost a few bytes
each, and the record object loses the slots too. Reading a field is one shift and mask.

A count outside 0 … 2**40 - 2 (a negative or absurd value in a damaged capture) cannot be
packed and reads back as unknown (None), like any other unusable number.
"""

from __future__ import annotations

from typing import Any

BITS = 40
MASK = (1 << BITS) - 1


def code(value: int | None, nullable: bool = True) -> int:
    """A count's bits before shifting: for nullable counts None -> 0 and v -> v + 1; for
    counts whose absence means 0, v itself (so their usual value costs no bits)."""
    if value is None:
        return 0
    v = value + 1 if nullable else value
    return v if 0 <= v < MASK else 0


def count(index: int, *, nullable: bool = True) -> property:
    """A property reading field `index` of the owner's packed `_n` (a property over a
    closure: measured 130 ns a read, against 200 ns for a descriptor class)."""
    shift = index * BITS

    if nullable:
        def get(obj: Any, _s: int = shift, _m: int = MASK) -> int | None:
            v = obj._n >> _s & _m
            return v - 1 if v else None
    else:
        def get(obj: Any, _s: int = shift, _m: int = MASK) -> int | None:
            return obj._n >> _s & _m

    def put(obj: Any, value: int | None) -> None:
        obj._n = obj._n & ~(MASK << shift) | code(value, nullable) << shift

    return property(get, put)


def flag(index: int) -> property:
    """A property reading bit `index` of the owner's `_flags` (small ints are shared)."""
    bit = 1 << index

    def get(obj: Any) -> bool:
        return bool(obj._flags & bit)

    def put(obj: Any, value: bool) -> None:
        obj._flags = obj._flags | bit if value else obj._flags & ~bit

    return property(get, put)
