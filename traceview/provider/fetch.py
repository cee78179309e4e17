"""Read every stored item of a conversation (or a response chain) from the provider.

A provider copy is only worth diffing if it is *all* of the conversation: the listing is
paged (at most 100 items a page) and defaults to newest-first, so this module always asks
for ``order=asc`` and ``limit=100``, follows every page to the end, and records how many
pages it read and whether it reached the last one. Anything less is raised as a
ProviderError whose ``partial`` copy is labelled incomplete.

Pages are read raw (the JSON the provider sent, not the SDK's models) so that a field the
provider omitted stays omitted instead of turning into ``null``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import openai

from traceview.capture import bounded
from traceview.provider.client import ProviderConfig, host_of, map_openai_error
from traceview.provider.errors import ProviderError
from traceview.provider.limits import DEFAULT_MAX_PAGES as DEFAULT_MAX_PAGES
from traceview.provider.provider_copy import ProviderCopy
from traceview.wire import HOSTED_EVIDENCE_INCLUDE

PAGE_LIMIT = 100


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _config_of(client: openai.OpenAI) -> ProviderConfig:
    timeout = client.timeout if isinstance(client.timeout, int | float) else 0.0
    return ProviderConfig(
        base_url=str(client.base_url), timeout=float(timeout), max_retries=client.max_retries
    )


def _parse_page(raw: Any, *, page_no: int, what: str, host: str) -> dict[str, Any]:
    """Check one raw list page; a page that is not a list object is a ``malformed`` error."""
    try:
        body = bounded.loads(raw.text)
    except ValueError as exc:
        raise ProviderError(
            "malformed", f"page {page_no} of {what} from {host} is not JSON ({exc})."
        ) from None
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise ProviderError(
            "malformed",
            f"page {page_no} of {what} from {host} is not a list page "
            '(expected {"object": "list", "data": [...]}).',
        )
    bad = [i for i, it in enumerate(body["data"]) if not isinstance(it, dict)]
    if bad:
        raise ProviderError(
            "malformed", f"page {page_no} of {what} from {host}: data[{bad[0]}] is not an object."
        )
    if body.get("has_more") not in (None, True, False):
        raise ProviderError(
            "malformed", f"page {page_no} of {what} from {host}: has_more is not true/false."
        )
    return body


def _paginate(
    call: Callable[[str | None], Any],
    next_cursor: Callable[[dict[str, Any]], str | None],
    *,
    what: str,
    config: ProviderConfig,
    max_pages: int,
    base: ProviderCopy,
) -> ProviderCopy:
    """Follow ``call(after)`` page by page until ``has_more`` is false.

    Stops with ``cursor_runaway`` when a cursor repeats or ``max_pages`` is exceeded, and
    de-duplicates items listed twice (the conversation changed while it was being read),
    saying so in ``warnings``. On any failure the copy read so far goes out on ``partial``.
    """
    copy = base
    seen_ids: set[str] = set()
    seen_cursors: set[str] = set()
    after: str | None = None
    while True:
        if copy.pages >= max_pages:
            raise _partial(copy, ProviderError(
                "cursor_runaway",
                f"{what} still had more pages after {max_pages} pages "
                f"({copy.item_count} items): stopped. The listing may never end; if the "
                "conversation is really this long, raise --max-pages."))
        body = _read_page(call, after, copy, what=what, config=config)
        _keep_new_items(copy, body["data"], seen_ids)
        if body.get("has_more") is None and body.get("last_id"):
            # No has_more but a cursor: nothing says this was the last page.
            raise _partial(copy, ProviderError(
                "malformed",
                f"page {copy.pages} of {what} has no has_more (missing or null) but a "
                "last_id to continue from: cannot tell whether the listing is complete."))
        if body.get("has_more") is not True:
            copy.complete = True
            return copy
        after = _follow(next_cursor(body), seen_cursors, copy, what)


def _read_page(call: Callable[[str | None], Any], after: str | None, copy: ProviderCopy, *,
               what: str, config: ProviderConfig) -> dict[str, Any]:
    """The next page, checked and counted; a failure carries the copy read so far."""
    try:
        raw = call(after)
    except openai.OpenAIError as exc:
        raise _partial(copy, map_openai_error(exc, what=what, config=config)) from None
    try:
        body = _parse_page(raw, page_no=copy.pages + 1, what=what, host=config.host)
    except ProviderError as err:
        raise _partial(copy, err) from None
    copy.pages += 1
    return body


def _keep_new_items(copy: ProviderCopy, items: list[dict[str, Any]], seen_ids: set[str]) -> None:
    """Append the page's items, each id once; a repeat means the conversation changed while
    it was being read, and the copy says so."""
    dupes = 0
    for item in items:
        iid = item.get("id")
        if isinstance(iid, str) and iid in seen_ids:
            dupes += 1
            continue
        if isinstance(iid, str):
            seen_ids.add(iid)
        copy.items.append(item)
    if dupes:
        copy.warnings.append(
            f"the conversation changed while it was being read: page {copy.pages} listed "
            f"{dupes} item(s) already seen on an earlier page (kept once). Fetch again for "
            "a consistent copy."
        )


def _follow(cursor: str | None, seen_cursors: set[str], copy: ProviderCopy, what: str) -> str:
    """The cursor to read next; a missing or repeated one stops the listing, partial."""
    if not cursor:
        raise _partial(copy, ProviderError(
            "malformed",
            f"page {copy.pages} of {what} says has_more but gives no cursor to continue "
            "from: the rest of the conversation cannot be listed."))
    if cursor in seen_cursors:
        raise _partial(copy, ProviderError(
            "cursor_runaway",
            f"the listing of {what} loops: page {copy.pages} points back to cursor "
            f"{cursor!r}, which was already followed. Stopped after {copy.pages} pages."))
    seen_cursors.add(cursor)
    return cursor


def _partial(copy: ProviderCopy, err: ProviderError) -> ProviderError:
    copy.complete = False
    copy.stopped = err.to_dict()
    err.partial = copy
    return err


def fetch_conversation_items(
    client: openai.OpenAI,
    conversation_id: str,
    *,
    include: list[str] | tuple[str, ...] = HOSTED_EVIDENCE_INCLUDE,
    max_pages: int = DEFAULT_MAX_PAGES,
    config: ProviderConfig | None = None,
) -> ProviderCopy:
    """All items of ``conversation_id``, oldest first, every page read; raises ProviderError."""
    config = config or _config_of(client)
    what = f"conversation {conversation_id}"
    incl = list(include)
    call = _pager(client.conversations.items.with_raw_response.list, conversation_id, incl)
    base = ProviderCopy(
        conversation=conversation_id, items=[], pages=0, complete=False, kind="conversation",
        include=incl, host=host_of(str(client.base_url)), fetched_at=_now(),
    )
    # Conversation items page on the page's ``last_id`` field (wire doc §3.2).
    return _paginate(
        call, lambda body: body.get("last_id") or None,
        what=what, config=config, max_pages=max_pages, base=base,
    )


def _pager(list_call: Callable[..., Any], owner: str,
           include: list[str]) -> Callable[[str | None], Any]:
    """One page request: oldest first, the largest page, the evidence flags, the cursor.

    Parameters go only when set, as the SDK sends them (wire doc §3.2).
    """
    def call(after: str | None) -> Any:
        kwargs: dict[str, Any] = {"order": "asc", "limit": PAGE_LIMIT}
        if include:
            kwargs["include"] = include
        if after is not None:
            kwargs["after"] = after
        return list_call(owner, **kwargs)

    return call


def _last_data_id(body: dict[str, Any]) -> str | None:
    data = body.get("data") or []
    last = data[-1] if data else None
    return last.get("id") if isinstance(last, dict) else None


def fetch_input_items(
    client: openai.OpenAI,
    response_id: str,
    *,
    include: list[str] | tuple[str, ...] = HOSTED_EVIDENCE_INCLUDE,
    max_pages: int = DEFAULT_MAX_PAGES,
    config: ProviderConfig | None = None,
) -> ProviderCopy:
    """The input the model received for ``response_id``: ``GET /v1/responses/{id}/input_items``,
    oldest first, every page read (kind ``input_items``). Raises ProviderError.

    Used by the chain diff, by replay fidelity and by ``fetch`` (which saves it too).
    """
    config = config or _config_of(client)
    what = f"response {response_id}"
    incl = list(include)
    call = _pager(client.responses.input_items.with_raw_response.list, response_id, incl)
    base = ProviderCopy(
        conversation=response_id, items=[], pages=0, complete=False, kind="input_items",
        include=incl, host=host_of(str(client.base_url)), fetched_at=_now(),
        covers_output=False,
    )
    # Response input items page on the last data element's id, not ``last_id`` (§3.2).
    return _paginate(
        call, _last_data_id, what=what, config=config, max_pages=max_pages, base=base
    )


def fetch_chain_items(
    client: openai.OpenAI,
    last_response_id: str,
    *,
    include: list[str] | tuple[str, ...] = HOSTED_EVIDENCE_INCLUDE,
    max_pages: int = DEFAULT_MAX_PAGES,
    config: ProviderConfig | None = None,
) -> ProviderCopy:
    """The context of a ``previous_response_id`` chain: the last response's input items
    (every page) followed by its output items. Raises ProviderError.
    """
    config = config or _config_of(client)
    what = f"response {last_response_id}"
    incl = list(include)
    try:
        copy = fetch_input_items(client, last_response_id, include=incl, max_pages=max_pages,
                                 config=config)
    except ProviderError as err:
        if err.partial is not None:
            err.partial.kind, err.partial.covers_output = "chain", True
        raise
    copy.kind = "chain"
    copy.covers_output = True
    copy.complete = False
    try:
        kwargs: dict[str, Any] = {"include": incl} if incl else {}
        raw = client.responses.with_raw_response.retrieve(last_response_id, **kwargs)
    except openai.OpenAIError as exc:
        raise _partial(copy, map_openai_error(exc, what=what, config=config)) from None
    try:
        body = bounded.loads(raw.text)
    except ValueError:
        body = None
    output = body.get("output") if isinstance(body, dict) else None
    if not isinstance(output, list) or not all(isinstance(it, dict) for it in output):
        raise _partial(
            copy,
            ProviderError("malformed", f"{what} from {config.host} has no usable output list."),
        )
    copy.items.extend(output)
    copy.complete = True
    return copy
