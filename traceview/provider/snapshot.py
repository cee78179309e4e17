"""Save a provider copy to a file, and read one back — from a snapshot or from a capture.

Postmortems happen days after the fact, when the provider may no longer hold the
conversation. A snapshot keeps the copy together with what a reader needs to trust it:
when it was fetched, from which host, which conversation, which include flags, how many
pages were read and whether that was all of them. It never holds a key or a full URL.

A capture that recorded the application's own ``GET …/items`` listing (or a response's
``GET …/input_items``) works too: the recorded pages are merged into one copy, which is
complete only if the recorded listing reached its last page.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from traceview.capture import bounded
from traceview.provider.provider_copy import ProviderCopy
from traceview.safety.redact import redact
from traceview.safety.sanitise import json_safe

SNAPSHOT_SCHEMA = "traceview.snapshot/1"

_LISTING = re.compile(
    r"^/(?:v1/)?(?:(?P<conv>conversations)/(?P<cid>[^/]+)/items|"
    r"(?P<resp>responses)/(?P<rid>[^/]+)/input_items)/?$"
)


class SnapshotError(Exception):
    """A file that cannot be used as a provider copy; the message names file, line and cause."""


def snapshot_dict(copy: ProviderCopy,
                  input_items: ProviderCopy | dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON document for ``copy`` (schema ``traceview.snapshot/1``).

    ``input_items`` is the last response's ``GET …/input_items`` (what the model received
    on the final turn, for replay fidelity), or a dict ``{"response", "error", "status"}``
    saying why it could not be read.
    """
    doc = {
        "schema": SNAPSHOT_SCHEMA,
        "fetched_at": copy.fetched_at,
        "host": copy.host,
        "kind": copy.kind,
        "conversation": copy.conversation,
        "include": list(copy.include),
        "pages": copy.pages,
        "item_count": copy.item_count,
        "complete": copy.complete,
        "stopped": copy.stopped,
        "warnings": list(copy.warnings),
        "items": copy.items,
    }
    if isinstance(input_items, ProviderCopy):
        doc["input_items"] = {
            "response": input_items.conversation, "fetched_at": input_items.fetched_at,
            "pages": input_items.pages, "complete": input_items.complete,
            "include": list(input_items.include), "stopped": input_items.stopped,
            "item_count": input_items.item_count, "items": input_items.items,
        }
    elif isinstance(input_items, dict):
        doc["input_items"] = input_items
    return doc


def save_snapshot(copy: ProviderCopy, path: str | Path,
                  input_items: ProviderCopy | dict[str, Any] | None = None) -> None:
    """Write ``copy`` (and the final response's input items) to ``path`` (UTF-8 JSON),
    secrets masked: a provider's stored text can quote a key (the one in use, or any
    other), and the file holds nothing the redactor would not let through to a screen.
    The provider's text is kept verbatim, its C1, bidi and invisible characters written as
    ``\\uXXXX`` escapes (`json_safe`), so showing the file on a terminal acts on none.
    """
    text = json.dumps(redact(snapshot_dict(copy, input_items)), ensure_ascii=False, indent=1)
    Path(path).write_bytes(json_safe(text.encode("utf-8", "surrogatepass")) + b"\n")


# The largest file read as a snapshot or listing: it is parsed whole, so a bigger one (a
# sparse 6 GB file beside a capture, found by `d`) is refused before it is read.
SNAPSHOT_MAX_BYTES = 256 << 20


def _read_regular(p: Path) -> bytes:
    """The bytes of a saved file; a FIFO or a device (``/dev/zero``) is refused, since it
    would block or never end, and so is a file over SNAPSHOT_MAX_BYTES (read at most one
    byte past it, however the file grows). Raises SnapshotError."""
    try:
        # O_NONBLOCK: opening a FIFO would wait for a writer; a regular file ignores it.
        with open(os.open(p, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise SnapshotError(f"{p}: is not a regular file")
            raw = handle.read(SNAPSHOT_MAX_BYTES + 1)
    except OSError as exc:
        raise SnapshotError(f"{p}: cannot read ({exc.strerror or exc})") from None
    if len(raw) > SNAPSHOT_MAX_BYTES:
        raise SnapshotError(f"{p}: larger than {SNAPSHOT_MAX_BYTES >> 20} MiB; not read as a "
                            "snapshot")
    return raw


def load_items(path: str | Path, conversation: str | None = None) -> ProviderCopy:
    """A provider copy from a snapshot, a saved list page, or a capture with a recorded listing.

    ``conversation`` picks one when the file holds listings of several. Raises SnapshotError.
    """
    p = Path(path)
    raw = _read_regular(p)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"{p}: not UTF-8 text (byte {exc.start})") from None
    try:
        doc = bounded.loads(text)
    except bounded.TooDeep as exc:
        raise SnapshotError(f"{p}: {exc}; not a provider copy traceview can read") from None
    except ValueError:
        doc = None  # several lines: a capture
    if isinstance(doc, dict) and doc.get("schema") == SNAPSHOT_SCHEMA:
        return _from_snapshot(doc, p, conversation)
    if isinstance(doc, dict) and isinstance(doc.get("data"), list) and "dir" not in doc:
        return _from_list_page(doc, p, conversation)
    if isinstance(doc, dict) and "schema" in doc:
        raise SnapshotError(f"{p}: schema {doc.get('schema')!r} is not {SNAPSHOT_SCHEMA}")
    return _from_capture(text, p, conversation)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _from_snapshot(doc: dict[str, Any], p: Path, conversation: str | None) -> ProviderCopy:
    items = doc.get("items")
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise SnapshotError(f"{p}: snapshot 'items' is not a list of objects")
    conv = doc.get("conversation")
    if conversation and conv and conversation != conv:
        raise SnapshotError(f"{p}: this snapshot is of {conv}, not {conversation}")
    pages = doc.get("pages")
    copy = ProviderCopy(
        conversation=str(conv or conversation or "?"),
        items=items,
        pages=pages if isinstance(pages, int) else 0,
        complete=doc.get("complete") is True,
        kind=str(doc.get("kind") or "conversation"),
        include=[str(f) for f in _list(doc.get("include"))],
        host=doc.get("host") if isinstance(doc.get("host"), str) else None,
        fetched_at=doc.get("fetched_at") if isinstance(doc.get("fetched_at"), str) else None,
        origin="snapshot",
        stopped=doc.get("stopped") if isinstance(doc.get("stopped"), dict) else None,
        warnings=[str(w) for w in _list(doc.get("warnings"))],
    )
    if doc.get("item_count") not in (None, len(items)):
        copy.warnings.append(
            f"the snapshot says item_count {doc.get('item_count')} but holds {len(items)} items"
        )
    return copy


def _from_list_page(doc: dict[str, Any], p: Path, conversation: str | None) -> ProviderCopy:
    """A single saved list page (for example ``curl`` output): complete if it is the last."""
    items = [i for i in doc["data"] if isinstance(i, dict)]
    return ProviderCopy(
        conversation=conversation or "?", items=items, pages=1,
        complete=doc.get("has_more") is not True, origin="snapshot",
        warnings=[] if doc.get("has_more") is not True else
        [f"{p} is one page of a longer listing (has_more: true)"],
    )


@dataclass
class _Listing:
    """One recorded walk through a listing: its pages in the order they were requested."""

    kind: str
    target: str
    order: str
    include: list[str]
    first_line: int
    pages: list[dict[str, Any]] = field(default_factory=list)
    cursor: str | None = None  # what the next page's ``after`` must be


def _from_capture(text: str, p: Path, conversation: str | None) -> ProviderCopy:
    listings: list[_Listing] = []
    notes: list[str] = []
    pending: tuple[int, str, str, dict[str, list[str]], Any] | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = bounded.loads(line)
        except ValueError:
            continue  # the capture reader reports malformed lines; here they carry no listing
        if not isinstance(rec, dict):
            continue
        if rec.get("dir") == "req":
            pending = _listing_request(rec, lineno)
            continue
        if rec.get("dir") != "res" or pending is None:
            continue
        req_line, kind, target, params, link = pending
        pending = None
        if link is not None and rec.get("id") not in (None, link):
            continue
        status = rec.get("status_code", rec.get("status", 200))
        body = rec.get("body")
        if status not in (None, 200) or not isinstance(body, dict):
            notes.append(f"line {lineno}: the recorded listing of {target} got HTTP {status}")
            continue
        if not isinstance(body.get("data"), list):
            notes.append(f"line {lineno}: the recorded listing of {target} is not a list page")
            continue
        _add_page(listings, kind, target, params, body, req_line)
    if not listings:
        raise SnapshotError(
            f"{p}: neither a snapshot nor a capture with a recorded GET …/items listing. "
            "Save one with `traceview fetch CAPTURE -o snapshot.json`."
            + (f" ({'; '.join(notes)})" if notes else "")
        )
    targets = list(dict.fromkeys(lst.target for lst in listings))
    if conversation:
        chosen = [lst for lst in listings if lst.target == conversation]
        if not chosen:
            raise SnapshotError(
                f"{p}: no recorded listing of {conversation} (it has: {', '.join(targets)})"
            )
    elif len(targets) > 1:
        raise SnapshotError(
            f"{p}: recorded listings of several conversations ({', '.join(targets)}); "
            "pick one with --conversation ID"
        )
    else:
        chosen = listings
    return _merge(chosen[-1], p, notes)  # the latest recorded walk is the freshest copy


def _listing_request(
    rec: dict[str, Any], lineno: int
) -> tuple[int, str, str, dict[str, list[str]], Any] | None:
    endpoint = rec.get("endpoint")
    if not isinstance(endpoint, str):
        return None
    method, _, url = endpoint.strip().partition(" ")
    if method.upper() != "GET":
        return None
    parts = urlsplit(url.strip())
    m = _LISTING.match(parts.path)
    if not m:
        return None
    kind, target = ("conversation", m["cid"]) if m["conv"] else ("chain", m["rid"])
    return lineno, kind, target, parse_qs(parts.query, keep_blank_values=True), rec.get("id")


def _add_page(
    listings: list[_Listing], kind: str, target: str, params: dict[str, list[str]],
    body: dict[str, Any], line: int,
) -> None:
    after = next(iter(params.get("after") or []), None)
    current = next((lst for lst in reversed(listings) if lst.target == target), None)
    if after is None or current is None or current.cursor != after:
        current = _Listing(
            kind=kind, target=target, order=(params.get("order") or ["desc"])[0],
            include=params.get("include[]") or params.get("include") or [], first_line=line,
        )
        listings.append(current)
    current.pages.append(body)
    data = body.get("data") or []
    if kind == "conversation":
        current.cursor = body.get("last_id")
    else:
        last = data[-1] if data else None
        current.cursor = last.get("id") if isinstance(last, dict) else None


def _merge(listing: _Listing, p: Path, notes: list[str]) -> ProviderCopy:
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for page in listing.pages:
        for item in page.get("data") or []:
            if not isinstance(item, dict):
                continue
            iid = item.get("id")
            if isinstance(iid, str):
                if iid in seen:
                    continue
                seen.add(iid)
            items.append(item)
    warnings = list(notes)
    if listing.order != "asc":
        items.reverse()  # the provider's default order is newest first
        warnings.append(
            f"the recorded listing was newest-first (order={listing.order}); shown oldest-first"
        )
    complete = listing.pages[-1].get("has_more") is not True
    if not complete:
        warnings.append(
            f"the recorded listing stops after {len(listing.pages)} page(s) with has_more: true"
        )
    if listing.kind == "chain":
        warnings.append("a recorded input_items listing holds the response's input items "
                        "only; the last turn's output is left out of the comparison")
    return ProviderCopy(
        covers_output=listing.kind != "chain",
        conversation=listing.target, items=items, pages=len(listing.pages), complete=complete,
        kind=listing.kind, include=listing.include, host=None, fetched_at=None,
        origin="capture", warnings=warnings,
    )


@dataclass
class InputItemsCopy:
    """A saved ``input_items`` listing of one response (what the model received)."""

    response: str
    items: list[dict[str, Any]] | None
    complete: bool
    fetched_at: str | None
    origin: str  # snapshot | capture
    status: str = "ok"  # ok | not_found | error
    error: str | None = None


def load_input_items(path: str | Path) -> dict[str, InputItemsCopy]:
    """Every saved ``input_items`` listing in a snapshot (its ``input_items`` section, or a
    snapshot of kind ``input_items``) or in a capture's recorded listings, by response id.
    Raises SnapshotError."""
    p = Path(path)
    try:
        text = _read_regular(p).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"{p}: not UTF-8 text (byte {exc.start})") from None
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    found: dict[str, InputItemsCopy] = {}
    if isinstance(doc, dict) and doc.get("schema") == SNAPSHOT_SCHEMA:
        when = doc.get("fetched_at") if isinstance(doc.get("fetched_at"), str) else None
        sec = doc.get("input_items")
        if doc.get("kind") == "input_items":
            sec = {"response": doc.get("conversation"), "items": doc.get("items"),
                   "complete": doc.get("complete"), "fetched_at": when}
        if isinstance(sec, dict) and isinstance(sec.get("response"), str):
            items = sec.get("items")
            ok = isinstance(items, list) and all(isinstance(i, dict) for i in items)
            status = str(sec.get("status") or ("ok" if ok else "error"))
            found[sec["response"]] = InputItemsCopy(
                sec["response"], items if ok else None, sec.get("complete") is True,
                sec.get("fetched_at") if isinstance(sec.get("fetched_at"), str) else when,
                "snapshot", status, sec.get("error") if isinstance(sec.get("error"), str)
                else None)
        if not found:
            raise SnapshotError(f"{p}: this snapshot holds no input_items listing; take one "
                                "that does with `traceview fetch CAPTURE -o FILE` (it saves "
                                "the final response's input items), or read them from the "
                                "provider with --live")
        return found
    if isinstance(doc, dict):
        raise SnapshotError(f"{p}: not a {SNAPSHOT_SCHEMA} snapshot or a capture")
    try:
        copy = _from_capture(text, p, None)
    except SnapshotError:
        raise SnapshotError(f"{p}: neither a snapshot nor a capture with a recorded "
                            "GET /v1/responses/{id}/input_items listing") from None
    if copy.kind == "chain":
        found[copy.conversation] = InputItemsCopy(copy.conversation, copy.items, copy.complete,
                                                  None, "capture")
    if not found:
        raise SnapshotError(f"{p}: the capture records no input_items listing")
    return found
