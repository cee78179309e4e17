"""Pages of the organization Costs and Usage APIs, checked and turned into lines.

The same reader serves pages fetched live and pages saved to files: a page is
``{"object": "page", "data": [bucket…], "has_more", "next_page"}``, a bucket
``{"start_time", "end_time", "results": [result…]}`` and a result's ``object`` says which
API it came from (``organization.costs.result``, ``organization.usage.completions.result``,
…). Anything else is a :class:`PageError` naming the key that is wrong (docs/reconcile.md).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

from traceview.report.reconcile import BilledLine, BillRead, UsageLine
from traceview.safety.outputs import read_bounded

COSTS_OBJECT = "organization.costs.result"
_USAGE_PREFIX, _USAGE_SUFFIX = "organization.usage.", ".result"
# The count of each usage API, by endpoint: what "requests" means there.
_COUNTS = ("num_model_requests", "num_sessions", "images")
# The largest saved bill file read (parsed whole): a year of daily pages is a few MB.
PAGES_MAX_BYTES = 64 << 20


class PageError(Exception):
    """A page that is not the shape the Costs/Usage APIs send; the message says where."""


def _show(v: Any) -> str:
    """A value quoted in a message: its repr, cut short (a page can hold anything)."""
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _day(ts: Any, where: str) -> str:
    if type(ts) is not int or not 0 <= ts < 253402300800:
        raise PageError(f"{where}.start_time must be Unix seconds, not {_show(ts)}")
    return datetime.fromtimestamp(ts, UTC).date().isoformat()


# The largest amount a cost line may hold: two of 1e308 summed to an infinite bill, whose
# infinite remainder then passed the tolerance check as "reconciled".
MAX_AMOUNT = 1e12


def _number(v: Any, where: str) -> float:
    if type(v) not in (int, float) or v != v:
        raise PageError(f"{where} must be a number, not {_show(v)}")
    if not -MAX_AMOUNT <= v <= MAX_AMOUNT:
        raise PageError(f"{where} must be a number within ±{MAX_AMOUNT:g}, not {_show(v)}")
    return float(v)


def _opt_str(r: dict[str, Any], key: str, where: str) -> str | None:
    v = r.get(key)
    if v is not None and not isinstance(v, str):
        raise PageError(f"{where}.{key} must be a string or null, not {_show(v)}")
    return v


def _cost(r: dict[str, Any], day: str, where: str) -> BilledLine:
    amount = r.get("amount")
    if not isinstance(amount, dict):
        raise PageError(f"{where}.amount must be an object {{value, currency}}")
    currency = amount.get("currency", "usd")
    if not isinstance(currency, str):
        raise PageError(f"{where}.amount.currency must be a string")
    return BilledLine(day, _opt_str(r, "project_id", where), _opt_str(r, "line_item", where),
                      _number(amount.get("value"), f"{where}.amount.value"), currency.lower())


def _usage(r: dict[str, Any], endpoint: str, day: str, where: str) -> UsageLine:
    count = next((r[k] for k in _COUNTS if k in r), None)
    if count is not None and (type(count) is not int or count < 0):
        raise PageError(f"{where}: the request count must be a whole number ≥ 0, "
                        f"not {_show(count)}")
    quantities = {k: v for k, v in r.items()
                  if type(v) in (int, float) and k not in _COUNTS}
    return UsageLine(endpoint, day, _opt_str(r, "project_id", where),
                     _opt_str(r, "model", where), count, quantities)


def _results(bucket: dict[str, Any], where: str) -> list[Any]:
    results = bucket.get("results", bucket.get("result", []))  # reference pages spell both
    if not isinstance(results, list):
        raise PageError(f"{where}.results must be a list")
    return results


def read_page(page: Any, into: BillRead, where: str = "page", *, costs: bool = True
              ) -> tuple[bool, str | None]:
    """Add one page's lines to ``into``; ``(has_more, next_page)``. Raises PageError.
    ``costs``: a Costs API page, whose buckets (empty ones too) are days read."""
    if not isinstance(page, dict) or not isinstance(page.get("data"), list):
        raise PageError(f'{where} is not a page (expected {{"object": "page", "data": [...]}})')
    has_more = page.get("has_more", False)
    if not isinstance(has_more, bool):
        raise PageError(f"{where}.has_more must be true or false, not {_show(has_more)}")
    cursor = page.get("next_page")
    if cursor is not None and not isinstance(cursor, str):
        raise PageError(f"{where}.next_page must be a string or null")
    for i, bucket in enumerate(page["data"]):
        b_where = f"{where}.data[{i}]"
        if not isinstance(bucket, dict):
            raise PageError(f"{b_where} is not a bucket object")
        day = _day(bucket.get("start_time"), b_where)
        for j, r in enumerate(_results(bucket, b_where)):
            r_where = f"{b_where}.results[{j}]"
            obj = r.get("object") if isinstance(r, dict) else None
            if obj == COSTS_OBJECT:
                into.billed.append(_cost(r, day, r_where))
            elif isinstance(obj, str) and obj.startswith(_USAGE_PREFIX) \
                    and obj.endswith(_USAGE_SUFFIX):
                endpoint = obj[len(_USAGE_PREFIX):-len(_USAGE_SUFFIX)]
                into.usage.append(_usage(r, endpoint, day, r_where))
            else:
                raise PageError(f"{r_where}.object is {_show(obj)}: not a Costs or Usage "
                                "API result")
        if costs:
            into.days_read.add(day)
    return has_more, cursor


def _is_usage(page: Any) -> bool:
    """A page of a Usage API: any of its results says so (an empty page says nothing)."""
    data = page.get("data") if isinstance(page, dict) else None
    for bucket in data if isinstance(data, list) else ():
        results = bucket.get("results", bucket.get("result")) if isinstance(bucket, dict) else None
        for r in results if isinstance(results, list) else ():
            obj = r.get("object") if isinstance(r, dict) else None
            if isinstance(obj, str) and obj.startswith(_USAGE_PREFIX):
                return True
    return False


def _pages_of(path: str, raw: bytes) -> list[tuple[Any, str]]:
    """The pages of a saved file: one JSON page, a JSON list of pages, or JSON lines."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        doc = None
        out = []
        for n, text in enumerate(raw.splitlines(), 1):
            if not text.strip():
                continue
            try:
                out.append((orjson.loads(text), f"{path}:{n}"))
            except orjson.JSONDecodeError as exc:
                raise PageError(f"{path}:{n}: not JSON ({exc})") from None
        return out
    if isinstance(doc, list):
        return [(p, f"{path}[{i}]") for i, p in enumerate(doc)]
    return [(doc, path)]


def load_saved(paths: list[str]) -> BillRead:
    """Every page of every file; partial when a file's last page says ``has_more``."""
    bill = BillRead([], [], set(), True, [])
    for path in paths:
        try:
            raw = read_bounded(path, PAGES_MAX_BYTES)
        except OSError as exc:
            raise PageError(f"{path}: cannot read ({exc.strerror or exc})") from None
        pages = _pages_of(path, raw)
        if not pages:
            raise PageError(f"{path}: no pages in the file")
        has_more = False
        costs = not any(_is_usage(page) for page, _ in pages)
        for page, where in pages:
            has_more, _ = read_page(page, bill, where, costs=costs)
        bill.sources.append(f"{path} ({len(pages)} page{'s' if len(pages) != 1 else ''})")
        if has_more:
            bill.complete = False
            bill.stopped = (f"{path}: the last saved page says has_more: the pages after it "
                            "were not saved")
    if not bill.billed and not bill.days_read:
        raise PageError(f"{', '.join(paths)}: no Costs API page (results with object "
                        f"{COSTS_OBJECT!r}, or empty cost buckets) among the files")
    return bill
