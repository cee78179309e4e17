"""The one bounded JSON parser: every record, snapshot and provider page goes through it.

orjson refuses nesting past 1024 levels, but code that walks a value recursively
(redaction, transcripts, item comparison, the inspector's tree) would exhaust Python's
stack long before that. Capping depth once, where bytes become values, means nothing
downstream needs to care: a value deeper than MAX_DEPTH is refused with a message.
Real API bodies nest a few dozen levels at most (a JSON schema in a tool definition).
"""

from __future__ import annotations

from typing import Any

import orjson

MAX_DEPTH = 100


class TooDeep(ValueError):
    """A JSON value nested deeper than MAX_DEPTH (or than the parser allows)."""


def too_deep(obj: Any, limit: int = MAX_DEPTH) -> bool:
    """True if ``obj`` nests containers more than ``limit`` levels (iterative)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, dict | list))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, dict | list))
    return False


# Every byte but the two opening brackets: deleting them leaves the brackets to count, in
# one pass over a line instead of a `count` for each (it runs on every line read).
_NOT_OPENERS = bytes(b for b in range(256) if b not in b"[{")


def may_be_deep(raw: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """A cheap pre-check: fewer brackets than ``limit`` cannot nest that deep."""
    if isinstance(raw, str):
        return raw.count("[") + raw.count("{") > limit
    return len(raw.translate(None, _NOT_OPENERS)) > limit


def loads(raw: bytes | str, limit: int = MAX_DEPTH) -> Any:
    """``orjson.loads`` that raises TooDeep past ``limit`` levels (ValueError otherwise)."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "recursion" in str(exc).lower():
            raise TooDeep(f"nested deeper than {limit} levels") from None
        raise
    if may_be_deep(raw, limit) and too_deep(obj, limit):
        raise TooDeep(f"nested deeper than {limit} levels")
    return obj
