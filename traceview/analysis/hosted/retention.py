"""Retention: how long the provider keeps an object, and so when it expires.

The documented defaults with their source and date, a vector store's own
``expires_after``, and the dates and times a report writes them with (ISO 8601, UTC),
each calendar day formatted once.
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache
from typing import Any

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
_OUT_OF_RANGE = "expiry unknown (a time in the capture past year 9999)"
_NUMBER = int | float  # made once (`int | float` in a call makes a union on each)


def retention(kind: str, expires_after: dict[str, Any] | None) -> dict[str, Any]:
    """The retention that applies: the documented default, or a vector store's own."""
    base = dict(RETENTION[kind])
    if expires_after:
        base["text"] = (f"expires_after {expires_after.get('days')} day(s) after "
                        f"{expires_after.get('anchor', 'last_active_at')}")
        base["source"] = "the vector store's expires_after (in the capture)"
    return base


def expiry(kind: str, state: str, deleted_line: int | None, expires_at: float | None,
           expires_after: dict[str, Any] | None, last_used_at: float | None,
           created_at: float | None) -> tuple[str | None, str]:
    """When an object expires: (ISO date or None, sentence)."""
    if state == "deleted":
        return None, f"provider copy deleted (line {deleted_line})"
    if state == "not_stored":
        return None, "not stored (store=false): nothing kept to expire"
    when = expires_at
    if when is None:
        days = RETENTION[kind]["days"]
        if expires_after:
            days = expires_after.get("days")
            anchor = last_used_at or created_at
        else:
            anchor = created_at
        if isinstance(days, _NUMBER) and anchor is not None:
            when = anchor + float(days) * 86400
        elif days is None:
            return None, RETENTION[kind]["text"]
        else:
            return None, "expiry unknown (no creation time in the capture)"
    day = iso_date(when)
    return day, f"expires around {day}" if day is not None else _OUT_OF_RANGE


_EPOCH = date(1970, 1, 1)
# "00" to "59": an hour, minute or second written by a lookup (a format spec such as
# "{h:02d}" is parsed again on every call: most of a time's formatting).
TWO_DIGITS = tuple(f"{n:02d}" for n in range(60))
_MAX_DAYS = timedelta.max.days  # either way from the epoch


def _day_and_second(epoch: float) -> tuple[int, int] | None:
    """A time in epoch seconds as (days since the epoch, second of that day), rounded to
    the microsecond as `timedelta(seconds=epoch)` rounds it (the whole seconds kept, the
    fraction's microseconds rounded half to even) in integers: making the `timedelta`
    was most of a time's formatting. None for one no `timedelta` holds (a damaged
    capture's NaN, or a time past its days)."""
    try:
        whole = int(epoch)
    except (OverflowError, ValueError):
        return None
    seconds = (whole * 1_000_000 + round((epoch - whole) * 1e6)) // 1_000_000
    days, second = divmod(seconds, 86_400)
    return (days, second) if -_MAX_DAYS <= days <= _MAX_DAYS else None


@lru_cache(maxsize=4096)
def _day(days: int) -> str | None:
    """The ISO date `days` after the epoch, made once per day (a capture's objects fall on
    a few days); None for one no calendar holds (a damaged capture's year 11476, or
    milliseconds where seconds belong)."""
    try:
        return (_EPOCH + timedelta(days=days)).isoformat()
    except OverflowError:
        return None


def iso_date(epoch: float) -> str | None:
    """The ISO date of a time in epoch seconds (None: no calendar date)."""
    got = _day_and_second(epoch)
    return _day(got[0]) if got is not None else None


def iso_time(epoch: float | None) -> str | None:
    """A time in epoch seconds as ISO 8601 UTC to the second (None: unknown, or no
    calendar time)."""
    got = _day_and_second(epoch) if epoch is not None else None
    day = _day(got[0]) if got is not None else None
    if got is None or day is None:
        return None
    s = got[1]
    return f"{day}T{TWO_DIGITS[s // 3600]}:{TWO_DIGITS[s // 60 % 60]}:{TWO_DIGITS[s % 60]}Z"
