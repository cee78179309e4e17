"""The canonical form of an input, and its hash: what replay fidelity compares.

Each item in stored shape (``transcript.normalise_input``), then the comparison's rules
(``item_compare``: no ids, statuses, nulls or empties; text parts unified), without
presentation-only fields (``annotations``, ``logprobs``); the list is serialised as JSON
with sorted keys, no whitespace, UTF-8, and hashed with sha256.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from traceview.analysis.item_compare import as_item, keyed
from traceview.analysis.transcript import normalise_input

_PRESENTATION = {"annotations", "logprobs"}
_EMPTY = object()  # where the comparison drops a value (None, [], {}, "")


def canonical_item(item: Any) -> Any:
    """One input item in canonical form."""
    stored = normalise_input(item) if isinstance(item, dict) else item
    obj = stored if stored is not None else item
    got = _canon(obj, True)
    return got if got is not _EMPTY else _empty_as(obj)


def _empty_as(obj: Any) -> Any:
    """The empty value the comparison gives for `obj` (which `_canon` found empty)."""
    if isinstance(obj, dict):
        return {}
    if isinstance(obj, list):
        return []
    return obj


def _canon(obj: Any, top: bool) -> Any:
    """`obj` normalised as the comparison reads it, presentation fields dropped, in one
    walk; _EMPTY where the comparison drops the value from a dict. Whether a dict is
    empty is decided before presentation fields are dropped (as the comparison sees it)."""
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        obj = as_item(obj, top)
        kept = False
        for key, val in obj.items():
            name, val = keyed(obj, key, val, top)
            if name is None:
                continue
            norm = _canon(val, False)
            if norm is _EMPTY:
                continue
            kept = True
            if name not in _PRESENTATION:
                out[name] = norm
        return out if kept else _EMPTY
    if isinstance(obj, list):
        if not obj:
            return _EMPTY
        return [v if (v := _canon(x, False)) is not _EMPTY else _empty_as(x) for x in obj]
    if obj is None or obj == "":
        return _EMPTY
    return obj


def canonical(items: Sequence[Any]) -> bytes:
    """The canonical serialisation of an input (a list of items): JSON with sorted keys, no
    whitespace, UTF-8 (a value JSON has no form for is written as its str)."""
    return json.dumps([canonical_item(i) for i in items], sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False, default=str).encode("utf-8")


def digest(items: Sequence[Any]) -> str:
    """The sha256 of an input's canonical serialisation, in hex. hashlib is imported here,
    when a hash is first taken: it loads OpenSSL (megabytes of resident memory), which a
    report whose verdicts need no hash never uses."""
    import hashlib

    return hashlib.sha256(canonical(items)).hexdigest()


def first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    """Index of the first item that differs (canonically), or None when equal."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if canonical_item(x) != canonical_item(y):
            return i
    return None if len(a) == len(b) else min(len(a), len(b))
