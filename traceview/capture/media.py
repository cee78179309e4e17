"""Non-text input (images, files, audio, screenshots) and what it likely costs in tokens.

Images are billed as tokens by a published rule that needs only the image's size and the
`detail` asked for, so a request that carries the image bytes (a base64 data URL) can be
estimated from the image header alone. Anything else (an image behind a URL or file id at
`detail` high/auto, a PDF, audio) cannot be estimated from the request: such input is
reported as unknown, never guessed.

The rule (OpenAI "Images and vision" guide, section "Calculating costs", as published in
2025-10 and unchanged in the guide since; verify when prices change):

* tile models (gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1, o3, computer-use-preview):
  `detail: low` costs the model's base tokens. Otherwise the image is scaled to fit
  2048×2048, then so its shortest side is 768 px; each 512 px tile costs the model's tile
  tokens, plus the base once. `detail: auto` (the default) is counted as high: the upper
  bound of what the provider may choose.
* patch models (gpt-4.1-mini, gpt-4.1-nano, o4-mini, gpt-5-mini, gpt-5-nano and later
  mini/nano): 32×32 px patches, capped at 1,536 (the image is scaled down to fit), times
  the model's multiplier.
"""

from __future__ import annotations

import binascii
import math
import struct
from typing import Any

from traceview.safety.redact import redact_text

RULE = ("OpenAI vision guide 'Calculating costs' (rule as published 2025-10): tiles of 512 px "
        "after fitting 2048² and a 768 px short side (base + per-tile tokens), or 32 px patches "
        "capped at 1,536 × a model multiplier; detail=auto counted as high")
RULE_TAKEN = "2025-10"

# model prefix -> (base tokens, tokens per 512 px tile); longest prefix wins.
_TILE_MODELS = {
    "gpt-4o-mini": (2833, 5667),
    "gpt-4o": (85, 170), "gpt-4.1": (85, 170), "gpt-4.5": (85, 170), "chatgpt-4o": (85, 170),
    "gpt-5": (70, 140), "o1": (75, 150), "o3": (75, 150),
    "computer-use-preview": (65, 129),
}
# model prefix -> multiplier of the 32 px patch count (patch models).
_PATCH_MODELS = {
    "gpt-4.1-mini": 1.62, "gpt-4.1-nano": 2.46, "o4-mini": 1.72,
    "gpt-5-mini": 1.62, "gpt-5-nano": 2.46, "gpt-5.4-mini": 1.62, "gpt-5.4-nano": 2.46,
}
_DEFAULT_TILE = (85, 170)

# Part and item types that carry non-text input.
IMAGE_PARTS = ("input_image", "computer_screenshot", "image_url")
OTHER_MEDIA = ("input_file", "input_audio", "file")


def _lookup(model: str | None, table: dict[str, Any]) -> Any:
    if not model:
        return None
    best = None
    for prefix in table:
        if model.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return table[best] if best is not None else None


def image_tokens(width: int | None, height: int | None, detail: str | None,
                 model: str | None) -> int | None:
    """Estimated input tokens of one image, or None when its size is needed and unknown."""
    patch = _lookup(model, _PATCH_MODELS)  # full families: more specific than tile prefixes
    if patch is not None:
        if not width or not height:
            return None
        return _patch_tokens(width, height, patch)
    base, per_tile = _lookup(model, _TILE_MODELS) or _DEFAULT_TILE
    if detail == "low":
        return base
    if not width or not height:
        return None
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return base + per_tile * tiles


def _patch_tokens(width: int, height: int, multiplier: float) -> int:
    w, h = float(width), float(height)
    patches = math.ceil(w / 32) * math.ceil(h / 32)
    if patches > 1536:
        s = math.sqrt(1536 * 32 * 32 / (w * h))
        w, h = w * s, h * s
        # Fit whole patches along the width, as the guide does.
        s2 = math.floor(w / 32) / (w / 32)
        w, h = w * s2, h * s2
        patches = min(1536, math.ceil(w / 32) * math.ceil(h / 32))
    return int(patches * multiplier)


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the first bytes of a PNG, JPEG, GIF or WebP file."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return w, h
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        kind = data[12:16]
        if kind == b"VP8X":
            w = int.from_bytes(data[24:27], "little") + 1
            h = int.from_bytes(data[27:30], "little") + 1
            return w, h
        if kind == b"VP8 " and len(data) >= 30:
            w, h = struct.unpack("<HH", data[26:30])
            return w & 0x3FFF, h & 0x3FFF
        if kind == b"VP8L" and len(data) >= 25:
            b = data[21:25]
            w = 1 + (((b[1] & 0x3F) << 8) | b[0])
            h = 1 + (((b[3] & 0xF) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
            return w, h
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    n = len(data)
    while i + 9 < n:
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        seg = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD,
                      0xCE, 0xCF):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + seg
    return None


# Enough base64 to reach a JPEG's frame header past typical EXIF/ICC segments.
_HEAD_CHARS = 1 << 17


def data_url_size(url: str) -> tuple[int, int] | None:
    """The size of an image sent inline as `data:image/...;base64,...`, else None."""
    if not url.startswith("data:"):
        return None
    comma = url.find(",", 0, 200)
    if comma < 0 or ";base64" not in url[:comma]:
        return None
    head = url[comma + 1: comma + 1 + _HEAD_CHARS]
    head = head[: len(head) - len(head) % 4]
    try:
        import base64  # only for an inline image: not in every report's baseline

        raw = base64.b64decode(head, validate=False)
    except (binascii.Error, ValueError):
        return None
    return image_size(raw)


def _image_url(part: dict[str, Any]) -> Any:
    url = part.get("image_url")
    if isinstance(url, dict):  # chat: {"url": ..., "detail": ...}
        return url.get("url")
    return url


def _detail(part: dict[str, Any]) -> str | None:
    d = part.get("detail")
    if d is None and isinstance(part.get("image_url"), dict):
        d = part["image_url"].get("detail")
    return d if isinstance(d, str) else None


def describe(part: dict[str, Any], model: str | None) -> dict[str, Any]:
    """One non-text part: its kind, what is known of its size, its estimated tokens."""
    t = part.get("type")
    if t in IMAGE_PARTS:
        url = _image_url(part)
        detail = _detail(part)
        size = data_url_size(url) if isinstance(url, str) else None
        w, h = size if size else (None, None)
        tokens = image_tokens(w, h, detail, model)
        where = ("inline" if isinstance(url, str) and url.startswith("data:")
                 else "url" if isinstance(url, str) else "file_id" if part.get("file_id")
                 else "unknown")
        return {"type": t, "source": where, "detail": detail, "width": w, "height": h,
                "tokens": tokens}
    name = redact_text(part["filename"])[:200] if isinstance(part.get("filename"), str) else None
    return {"type": t, "source": "file_id" if part.get("file_id") else "inline",
            "filename": name, "tokens": None}


def media_parts(items: list[Any], model: str | None) -> list[dict[str, Any]]:
    """Every non-text part in a list of input items (messages, tool outputs, screenshots)."""
    found: list[dict[str, Any]] = []
    for item in items:
        _walk(item, model, found, 0)
    return found


def _walk(obj: Any, model: str | None, found: list[dict[str, Any]], depth: int) -> None:
    if depth > 8:
        return
    if isinstance(obj, dict):
        t = obj.get("type")
        if t in IMAGE_PARTS or t in OTHER_MEDIA:
            found.append(describe(obj, model))
            return
        for key in ("content", "output"):
            v = obj.get(key)
            if isinstance(v, (list, dict)):
                _walk(v, model, found, depth + 1)
    elif isinstance(obj, list):
        for v in obj:
            _walk(v, model, found, depth + 1)
