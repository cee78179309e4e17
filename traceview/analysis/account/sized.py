"""Media, added tools and a tool search sized on an earlier turn of the same capture.

A file, a PDF, an image without a published rule or a remote image cannot be sized from
the request, nor can an `additional_tools` item (its provider preamble varies) or a
`tool_search` definition (it lists what is still to be found). But when an earlier turn
of the capture sent the very same part or item (the same data, file id, URL or tool
definitions, to the same model) and it was the only line of its account that could not
be counted, the provider's billed input less the other lines *is* its size. A later turn
that sends it again then knows it, labelled with the turn that measured it; the
measuring turn itself stays unknown (its expectation would be its own bill).

The sizes travel with the resent-item sizes (`item_tokens`) under a `sized:` key, so the
request's account stays a pure function of what earlier turns told it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from traceview.analysis.account.context import Context, ItemTokens
from traceview.analysis.account.model import ESTIMATED, Component

PREFIX = "sized:"
# The lines this rule may size: media parts whose content the request holds only by value
# or reference, never by size, tools added mid-conversation, and a tool search's
# definition (tools.py sizes only `tool_search` this way: the other hosted tools run
# their pass on nearly every turn that offers them).
SIZABLE = frozenset({"image", "file", "audio", "part", "additional_tools", "tools"})
_LOADING = frozenset({"tool_search_output", "additional_tools"})
_REASON = ("sized on turn {0}: sent there identical (same data, file id, URL or tool"
           " definitions; same model) as the only line that turn could not count, so its"
           " billed input less its other lines is this line's size")


def media_key(model: str | None, part: Mapping[str, Any]) -> str:
    """The identity of a media part for one model: a digest of the part as sent (its data
    or reference, detail and file name together), so only a byte-identical resend
    matches. (hashlib loads OpenSSL: imported only when a turn has such a part.)"""
    import hashlib

    try:
        text = json.dumps(part, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(part)
    digest = hashlib.blake2b(f"{model or ''}\0{text}".encode("utf-8", "surrogatepass"),
                             digest_size=16).hexdigest()
    return PREFIX + digest


def sized(ctx: Context, line: Component, part: Mapping[str, Any]) -> Component:
    """`line` (an unknown media or added-tools line) with the size an earlier turn measured
    for the same part or item, else unchanged."""
    found = ctx.item_tokens.get(media_key(ctx.model, part))
    if found is None:
        return line
    tokens, turn = found
    return Component(line.component, line.name, tokens, ESTIMATED, turn,
                     reason=_REASON.format(turn))


def searched(ctx: Context, line: Component, tools: Sequence[object],
             items: object) -> Component:
    """The `tool_search` line, sized like a media part: what it bills depends on the
    deferred tools still to be found, so its identity is the whole tool list with the
    tools already loaded (the input's `tool_search_output` and `additional_tools` items)."""
    if line.tokens is not None:
        return line
    loaded = [i for i in items if isinstance(i, dict) and isinstance(i.get("type"), str)
              and i["type"] in _LOADING] if isinstance(items, list) else []
    return sized(ctx, line, {"tools": list(tools), "loaded": loaded})


class Asking(Mapping[str, tuple[int, int | None]]):
    """`known` (what earlier turns produced and measured), noting the media keys a request
    looked up and did not find: the part a turn may measure."""

    def __init__(self, known: ItemTokens) -> None:
        self.known = known
        self.missed: list[str] = []

    def __getitem__(self, key: str) -> tuple[int, int | None]:
        try:
            return self.known[key]
        except KeyError:
            if key.startswith(PREFIX):
                self.missed.append(key)
            raise

    def __iter__(self) -> Iterator[str]:
        return iter(self.known)

    def __len__(self) -> int:
        return len(self.known)


def measured(lines: tuple[Component, ...], missed: list[str],
             billed: int | None) -> tuple[str, int] | None:
    """(key, size) when a turn's only unknown line is one part or item it looked up in vain
    and its billed input is known: billed less the other lines. None otherwise (two
    unknown parts, a hosted pass, a carried conversation, a size that is not positive)."""
    if billed is None or billed <= 0 or len(missed) != 1:
        return None
    unknown = [c for c in lines if c.tokens is None]
    if len(unknown) != 1 or unknown[0].component not in SIZABLE:
        return None
    size = billed - sum(c.tokens for c in lines if c.tokens is not None)
    return (missed[0], size) if size > 0 else None
