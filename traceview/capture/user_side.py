"""What the user said on a turn, read from the request's input: the excerpt of the last
item (its words, secrets masked), the signature of the first user text (which groups a
stateless conversation's turns), and the input the provider has not seen before."""

from __future__ import annotations

from typing import Any
from zlib import crc32

from traceview.capture.items import describe_item, is_message, message_text, model_produced
from traceview.safety.redact import redact_text

USER_TEXT_MAX = 160


def _excerpt(words: list[str], limit: int = USER_TEXT_MAX) -> str:
    """The words joined by single spaces, secrets masked (redact_text), cut at `limit`."""
    return redact_text(" ".join(words))[:limit]


def user_excerpt(text: str) -> tuple[str, int]:
    """(excerpt, number of words) of a user text: the excerpt is made of the words of its
    first USER_TEXT_MAX * 2 characters, which are all of its words when that
    is the whole text."""
    head = text[: USER_TEXT_MAX * 2]
    words = head.split()
    n_words = len(words) if len(head) == len(text) else len(text.split())
    return _excerpt(words), n_words


def signature(text: str) -> int:
    """A stable 64-bit signature of a text, equal in every process: the CRC-32 of its bytes
    and of its bytes reversed (two texts share it only when both collide). Not hash(): str
    hashes are salted per process, and facts are made in worker processes whose signatures
    the main process compares; not hashlib, which brings OpenSSL into a one-process report."""
    raw = text.encode("utf-8", "surrogatepass")
    return crc32(raw) << 32 | crc32(raw[::-1])


def user_side(items: list[Any], want_sig: bool = True,
               ) -> tuple[str | None, int | None, int | None]:
    """(short text of the last input item, words of that text, signature of the first user
    text — only when `want_sig`: a chained turn is never grouped by it)."""
    first_sig = first = first_text = None
    if want_sig:
        for item in items:
            if is_message(item) and item.get("role") == "user":
                first, first_text = item, message_text(item) or ""
                first_sig = signature(first_text)
                break
    if not items:
        return None, None, first_sig
    last = items[-1]
    lt = last.get("type") if type(last) is dict else None
    if lt == "compaction_trigger":
        for item in reversed(items):  # the last item that is not a trigger, if any
            if not (isinstance(item, dict) and item.get("type") == "compaction_trigger"):
                last = item
                break
        lt = last.get("type") if type(last) is dict else None
    # is_message(last), read here: a dict typed "message", or untyped with a role.
    if type(last) is dict and last.get("role") == "user" and (
            lt == "message" or (lt is None and "type" not in last)):
        if last is first:
            text = first_text
        else:
            text = last.get("content")
            if type(text) is not str:  # a list of parts (or none): message_text reads it
                text = message_text(last) or ""
        excerpt, n_words = user_excerpt(text or "")
        return excerpt, n_words, first_sig
    return describe_item(last), None, first_sig


def new_items(items: list[Any]) -> list[Any]:
    """Input the provider has not seen before: what follows the last item the model
    produced. A stateless client resends the rest; so does a chained client that sends the
    whole history again (billed twice, but not new input)."""
    for i in range(len(items) - 1, -1, -1):
        if model_produced(items[i]):
            return items[i + 1 :]
    return items
