"""How many tokens a piece of new request input is likely to cost.

The method (stated wherever the number is shown, and always labelled an estimate):
≈ 4 UTF-8 bytes of text per token — OpenAI's rule of thumb for English — plus 4 tokens
of framing per item (role and separators). Opaque blobs (encrypted reasoning, base64
images) are left out: their billing does not follow their length. Good to ±25 % on
prose, which is far finer than the deposits it is used to detect (thousands of tokens).
"""

from __future__ import annotations

from typing import Any

from traceview.capture.items import text_bytes

BYTES_PER_TOKEN = 4
TOKENS_PER_ITEM = 4
METHOD = "≈ 4 bytes of text per token + 4 tokens per item"


def estimate_tokens(items: list[Any]) -> int:
    """Estimated input tokens for a list of input items (or a bare string as one item)."""
    total = 0
    for item in items:
        total += -(-text_bytes(item) // BYTES_PER_TOKEN) + TOKENS_PER_ITEM
    return total
