"""`traceview hydrate`: rebuild a capture from response ids, while the provider keeps them.

For teams whose only trace is a list of response ids (an agents-SDK trace export, ids in
logs): each stored response is retrieved, with its ``input_items`` (every page), and
written as a req/res pair. The capture says it is rebuilt: every record carries
``origin: {"format": "provider", …}`` and the turns note that they were rebuilt from the
provider, not recorded on the wire — so request bytes and elapsed time stay unknown.
"""

from __future__ import annotations

import json
import re
import string
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai

from traceview.provider.client import ProviderConfig, host_of, map_openai_error
from traceview.provider.errors import ProviderError
from traceview.provider.fetch import _last_data_id, _pager, _paginate
from traceview.provider.provider_copy import ProviderCopy
from traceview.wire import HOSTED_EVIDENCE_INCLUDE

RESPONSE_ID = re.compile(r"\bresp_[A-Za-z0-9]{8,}\b")
REBUILT = ["request bytes (rebuilt from the provider's stored copy, not the wire)",
           "elapsed time (not recorded on the wire)"]
# What a rebuilt request repeats from the stored response (the rest was never stored).
REQUEST_FIELDS = ("model", "instructions", "tools", "tool_choice", "previous_response_id",
                  "truncation", "reasoning", "text", "max_output_tokens", "store",
                  "background", "parallel_tool_calls", "metadata", "prompt_cache_key")


@dataclass
class Hydrated:
    written: list[str] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)
    failed: list[tuple[str, ProviderError]] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)  # not tried after the key was refused


class IdsError(Exception):
    """A source of ids that cannot be read (a directory, an unreadable file)."""


def response_ids(args: list[str]) -> list[str]:
    """Ids given directly, or found anywhere in the files named (JSON, logs, plain lists)."""
    found: list[str] = []
    for arg in args:
        path = Path(arg)
        if arg == "-":
            found.extend(_ids_in(sys.stdin))
        elif RESPONSE_ID.fullmatch(arg) or not path.exists():
            found.extend(RESPONSE_ID.findall(arg))
        else:
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    found.extend(_ids_in(handle))
            except OSError as exc:
                raise IdsError(f"{arg}: cannot read ({exc.strerror or exc})") from None
    return list(dict.fromkeys(found))


IDS_CHUNK = 1 << 20
ID_CARRY = 1024  # a response id is ~60 characters
_ID_CHARS = string.ascii_letters + string.digits + "_"


def _ids_in(handle: Any) -> list[str]:
    """The response ids in a text stream, read a chunk at a time: an ids file may be a
    service's whole log (gigabytes), so it is never held whole. The word a chunk ends in is
    carried into the next (an id is never split) with the character before it (so ``\\b``
    sees what it saw), at most ID_CARRY characters of it: a longer word is no id, and a
    line of one endless word costs no memory."""
    found: list[str] = []
    carry = ""
    while chunk := handle.read(IDS_CHUNK):
        text = carry + chunk
        cut = len(text.rstrip(_ID_CHARS))
        found.extend(RESPONSE_ID.findall(text, 0, cut))
        carry = text[max(cut - 1, 0):]
        if len(carry) > ID_CARRY:  # inside a word that long: "x" keeps \b from matching
            carry = "x" + carry[-ID_CARRY:]
    found.extend(RESPONSE_ID.findall(carry))
    return found


def _input_items(client: openai.OpenAI, rid: str, include: list[str],
                 config: ProviderConfig, max_pages: int) -> ProviderCopy:
    call = _pager(client.responses.input_items.with_raw_response.list, rid, include)
    base = ProviderCopy(conversation=rid, items=[], pages=0, complete=False, kind="chain",
                        include=include, host=host_of(str(client.base_url)))
    copy = _paginate(call, _last_data_id, what=f"input items of {rid}", config=config,
                     max_pages=max_pages, base=base)
    return copy


def _retrieve(client: openai.OpenAI, rid: str, include: list[str],
              config: ProviderConfig) -> dict[str, Any]:
    try:
        raw = client.responses.with_raw_response.retrieve(
            rid, include=include)  # type: ignore[arg-type]  # flags pass through as given
    except openai.OpenAIError as exc:
        raise map_openai_error(exc, what=f"response {rid}", config=config) from None
    try:
        body = json.loads(raw.text)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise ProviderError("malformed", f"response {rid} from {config.host} is not a JSON "
                            "object")
    return body


def _own_items(items: list[Any], seen: set[str]) -> list[Any]:
    """The items this turn sent itself: the provider's input listing less the items of the
    turns rebuilt before it (their inputs and outputs, which a chain or conversation
    carries and the listing repeats)."""
    return [i for i in items if not (isinstance(i, dict) and i.get("id") in seen)]


def _ids(items: Any) -> set[str]:
    return {i["id"] for i in items or () if isinstance(i, dict) and isinstance(i.get("id"), str)}


def _records(n: int, rid: str, body: dict[str, Any], items: ProviderCopy,
             host: str, seen: set[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    request: dict[str, Any] = {k: body[k] for k in REQUEST_FIELDS if body.get(k) is not None}
    conv = body.get("conversation")
    if isinstance(conv, dict) and isinstance(conv.get("id"), str):
        request["conversation"] = conv["id"]
    request["input"] = _own_items(items.items, seen)
    origin: dict[str, Any] = {"format": "provider", "entry": rid, "host": host,
                              "cannot_carry": list(REBUILT)}
    carried = len(items.items) - len(request["input"])
    if carried:
        origin["carried_items"] = carried
    prev = body.get("previous_response_id")
    if isinstance(prev, str) and prev and not carried and len(items.items) > 1:
        origin["cannot_carry"].append("which input items are the turn's own (the response "
                                      "it continues was not rebuilt)")
    if not items.complete:
        origin["cannot_carry"].append("some input items (the listing stopped early)")
        origin["partial"] = True
    link = f"hydrated_{n:06d}"
    created = body.get("created_at")
    done = body.get("completed_at")
    return ({"dir": "req", "id": link, "ts": created, "endpoint": "POST /v1/responses",
             "body": request, "origin": origin},
            {"dir": "res", "id": link, "ts": done if done is not None else created,
             "status_code": 200, "elapsed_ms": None, "body": body, "origin": origin})


def hydrate(client: openai.OpenAI, ids: list[str], writer: Any, *,
            include: list[str] | None = None, config: ProviderConfig | None = None,
            max_pages: int = 1000) -> Hydrated:
    """Write one rebuilt turn per id into ``writer`` (a CaptureWriter) in the order the
    provider created them, whatever the order given (ties keep it); each request holds the
    turn's own input items. An id the provider no longer has is reported, not fatal."""
    include = list(HOSTED_EVIDENCE_INCLUDE if include is None else include)
    config = config or ProviderConfig(base_url=str(client.base_url))
    host = host_of(str(client.base_url))
    result = Hydrated()
    fetched = _fetch(client, ids, include, config, max_pages, result)
    fetched.sort(key=lambda f: _created(f[1]))  # stable: equal times keep the given order
    seen: set[str] = set()
    for n, (rid, body, items) in enumerate(fetched, start=1):
        for record in _records(n, rid, body, items, host, seen):
            writer.write(record)
        seen |= _ids(items.items) | _ids(body.get("output"))
        result.written.append(rid)
    return result


def _created(body: dict[str, Any]) -> float:
    created = body.get("created_at")
    return float(created) if isinstance(created, int | float) else float("inf")


def _fetch(client: openai.OpenAI, ids: list[str], include: list[str], config: ProviderConfig,
           max_pages: int, result: Hydrated) -> list[tuple[str, dict[str, Any], ProviderCopy]]:
    """Each id's stored response and input items; failures go in ``result``."""
    fetched: list[tuple[str, dict[str, Any], ProviderCopy]] = []
    for n, rid in enumerate(ids, start=1):
        try:
            body = _retrieve(client, rid, include, config)
            try:
                items = _input_items(client, rid, include, config, max_pages)
            except ProviderError as err:
                partial = getattr(err, "partial", None)
                if partial is None:
                    raise
                items = partial
                result.partial.append(rid)
        except ProviderError as err:
            result.failed.append((rid, err))
            if err.kind == "auth":  # the key is refused: every other id would be too
                result.stopped = [r for r in ids[n:] if r != rid]
                break
            continue
        fetched.append((rid, body, items))
    return fetched
