"""Masking a text that arrives in pieces: a stream's deltas, masked as their join.

A key streamed back split across deltas ("sk-pr", "oj-Ab…") has no key shape in any one
delta, so masking each delta alone leaves every part in clear, and joining the recorded
deltas gives the key back. Here the join is masked (the same two steps as `redact_text`:
registered keys, then the shapes) and each mask is cut back onto the pieces: a piece keeps
what lies outside every masked span, and the piece where a span begins carries the mask.
The pieces joined are then exactly `redact_text` of the join.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from traceview.safety import MASK, known_keys
from traceview.safety import redact as _redact
from traceview.safety.mask import mask_spans

__all__ = ["redact_pieces", "secret_spans"]


def _key_spans(text: str, keys: Iterable[str]) -> list[tuple[int, int]]:
    """Where the exact keys occur, longest key first (as `redact_text` replaces them:
    a key inside a longer one is gone once the longer one is masked)."""
    found: list[tuple[int, int]] = []
    for key in sorted(set(keys), key=len, reverse=True):
        at = text.find(key)
        while at >= 0:
            end = at + len(key)
            if not any(s < end and at < e for s, e in found):
                found.append((at, end))
            at = text.find(key, at + 1)
    return sorted(found)


def secret_spans(text: str, keys: Iterable[str] = ()) -> list[tuple[int, int]]:
    """The (start, end) spans of `text` that `redact_text` masks (with `keys` registered
    too), in order and apart."""
    keyed = _key_spans(text, (*known_keys.held, *keys))
    # The text as the shapes see it: each exact key already a mask. `moves` maps an offset
    # in it back to the text: (offset there, offset here, the key's span here or None).
    parts: list[str] = []
    moves: list[tuple[int, int, tuple[int, int] | None]] = [(0, 0, None)]
    pos = shown = 0
    for start, end in keyed:
        parts += (text[pos:start], MASK)
        shown += start - pos
        moves += [(shown, start, (start, end)), (shown + len(MASK), end, None)]
        shown += len(MASK)
        pos = end
    parts.append(text[pos:])
    seen = "".join(parts)
    hinted = _redact._hinted_lines(seen.encode("utf-8", "surrogatepass").replace(b"\n", b" "))
    shaped = mask_spans(seen) if hinted and len(seen) >= known_keys.MIN_SECRET_LENGTH else []
    spans = list(keyed)
    for start, end in shaped:
        spans.append((_back(moves, start, False), _back(moves, end, True)))
    return _merged(spans)


def _back(moves: Sequence[tuple[int, int, tuple[int, int] | None]], at: int,
          is_end: bool) -> int:
    """An offset of the keyed text as an offset of the text (inside a key's mask: the
    key's start, or its end for a span's end)."""
    for shown, here, key in reversed(moves):
        if shown <= at:
            if key is not None and at < shown + len(MASK):
                return key[1] if is_end and at > shown else key[0]
            return here + (at - shown)
    return at


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        elif end > start:
            out.append((start, end))
    return out


def redact_pieces(pieces: Sequence[str], keys: Iterable[str] = ()) -> list[str]:
    """The pieces with every secret of their join masked (see the module's docstring):
    `pieces` unchanged (as a list) when the join holds none."""
    text = "".join(pieces)
    spans = secret_spans(text, keys)
    if not spans:
        return list(pieces)
    out: list[str] = []
    at = 0  # where the current piece starts in the join
    i = 0  # the first span not yet wholly behind `at`
    for piece in pieces:
        end = at + len(piece)
        kept: list[str] = []
        pos = at
        while i < len(spans) and spans[i][0] < end:
            start, stop = spans[i]
            if start >= pos:
                kept.append(text[pos:start])
                if start >= at:
                    kept.append(MASK)
            pos = max(pos, min(stop, end))
            if stop > end:
                break
            i += 1
        kept.append(text[pos:end])
        out.append("".join(kept))
        at = end
    return out
