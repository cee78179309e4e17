"""The words and numbers of an explanation in the report's one style: counts grouped by
thousands, sizes in kB/MB, dollars to four decimals, an include flag as a request writes it.
"""

from __future__ import annotations

from math import log

_GROUPED: dict[int, str] = {}  # f"{n:,}" of the counts met so far (tokens repeat a lot)


def count_text(v: int | None) -> str:
    if type(v) is not int:  # 5.0 == 5 as a key, but it reads "5.0": no cache for it
        return "unknown" if v is None else f"{v:,}"
    text = _GROUPED.get(v)
    if text is None:
        text = f"{v:,}"
        if len(_GROUPED) < 2048:
            _GROUPED[v] = text
    return text


_SUFFIXES = ("kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB", "RB", "QB")


def bytes_text(v: int | None) -> str:
    """`humanize.naturalsize(v, format="%.1f")` with " B" for bytes, written out: the same
    text (a test compares), without the translation lookups that made it a tenth of a
    report's time. Kept here so a headless load never imports humanize."""
    if v is None:
        return "unknown"
    if type(v) is int and 1000 <= v < 999_950:  # kB, the common case: one division
        return "%.1f kB" % (v / 1000)
    value = float(v)
    a = abs(value)
    if a < 1000:
        return f"{int(value)} B"
    exp = int(min(log(a, 1000), len(_SUFFIXES)))
    if exp < len(_SUFFIXES) and abs(float("%.1f" % (a / (1000**exp)))) >= 1000:
        exp += 1
    return "%.1f" % (value / (1000**exp)) + " " + _SUFFIXES[exp - 1]




def dollars(v: float) -> str:
    """Dollars in the report's one style: four decimals under $1, "<$0.0001" when smaller."""
    if 0 < v < 0.00005:
        return "<$0.0001"
    return f"${v:.4f}" if v < 1 else f"${v:,.2f}"


def include_text(flag: str) -> str:
    return f'include=["{flag}"]'


def usd_text(v: float | None) -> str:
    return "cost unknown" if v is None else f"≈ {dollars(v)}"
