"""Images by the provider's published size rule; other media are unknown.

Tile rule (gpt-4o, gpt-4.1, gpt-4.5, o1, o3, gpt-5 class): at detail "low" a fixed base; else
fit inside 2048x2048, scale the short side down to 768, and add a per-tile price for every
512-pixel tile. Patch rule (gpt-4.1-mini/nano, o4-mini, gpt-5-mini/nano): 32-pixel patches,
at most 1536, times a model multiplier. An image's size is read from the bytes of a data URL
(PNG, GIF, JPEG and WebP headers); a remote URL has no size here, so only `low` is known.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct

# (model prefix, base tokens, tokens per 512px tile), longest prefix first.
_TILE_RULES: tuple[tuple[str, int, int], ...] = (
    ("gpt-4o-mini", 2833, 5667), ("gpt-5-chat", 70, 140), ("gpt-5", 70, 140),
    ("gpt-4o", 85, 170), ("chatgpt-4o", 85, 170), ("gpt-4.1", 85, 170),
    ("gpt-4.5", 85, 170), ("o1", 75, 150), ("o3", 75, 150), ("computer-use", 65, 129),
    # The rule was first published for GPT-4 with vision (gpt-4-vision-preview, gpt-4-turbo).
    ("gpt-4-turbo", 85, 170), ("gpt-4-vision", 85, 170), ("gpt-4-1106-vision", 85, 170),
)
# (model prefix, multiplier) for the 32px patch rule: the published multipliers, except
# gpt-5-mini, measured at 1.2 on real captures (the published 1.62 overstated every one of
# them by a third; docs/input-account.md names them).
_PATCH_RULES: tuple[tuple[str, float], ...] = (
    ("gpt-5-mini", 1.2), ("gpt-5-nano", 2.46), ("gpt-4.1-mini", 1.62),
    ("gpt-4.1-nano", 2.46), ("o4-mini", 1.72),
)
_HEAD_BYTES = 64 * 1024


def image_tokens(model: str | None, detail: str | None,
                 size: tuple[int, int] | None) -> tuple[int | None, str]:
    """Tokens of one image and the rule used (None with the reason when not computable)."""
    name = (model or "").lower().rsplit("/", 1)[-1]
    for prefix, mult in _PATCH_RULES:
        if name.startswith(prefix):
            if size is None:
                return None, "image size not in the capture (remote URL or file id)"
            return math.ceil(_patches(*size) * mult), "32px patch rule"
    if name.startswith("gpt-5."):  # gpt-5.1 and later: no published rule (a 60x30 PNG
        return None, f"no published image rule for model {model!r}"  # billed ~4 on 5.4)
    for prefix, base, tile in _TILE_RULES:
        if name.startswith(prefix):
            if detail == "low":
                return base, "detail low: base tokens"
            if size is None:
                return None, "image size not in the capture (remote URL or file id)"
            return base + tile * _tiles(*size), "512px tile rule"
    return None, f"no published image rule for model {model!r}"


def _tiles(width: int, height: int) -> int:
    scale = min(1.0, 2048 / max(width, height, 1))
    w, h = width * scale, height * scale
    shrink = min(1.0, 768 / max(min(w, h), 1))
    w, h = w * shrink, h * shrink
    return math.ceil(w / 512) * math.ceil(h / 512)


def _patches(width: int, height: int) -> int:
    patches = math.ceil(width / 32) * math.ceil(height / 32)
    if patches <= 1536:
        return patches
    shrink = math.sqrt(32 * 32 * 1536 / (width * height))
    w, h = width * shrink, height * shrink
    shrink *= min(math.floor(w / 32) / (w / 32), math.floor(h / 32) / (h / 32))
    return min(1536, math.ceil(width * shrink / 32) * math.ceil(height * shrink / 32))


def data_url_size(url: str) -> tuple[int, int] | None:
    """Width and height of an image in a base64 data URL, from its header bytes."""
    if not url.startswith("data:") or "," not in url:
        return None
    head = url.split(",", 1)[1][: _HEAD_BYTES * 4 // 3]
    head = head[: len(head) - len(head) % 4]
    try:
        raw = base64.b64decode(head)
    except (binascii.Error, ValueError):
        return None
    return image_size(raw)


def image_size(raw: bytes) -> tuple[int, int] | None:
    """Width and height from the first bytes of a PNG, GIF, WebP or JPEG file."""
    if raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) >= 24:
        w, h = struct.unpack(">II", raw[16:24])
        return int(w), int(h)
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        w, h = struct.unpack("<HH", raw[6:10])
        return int(w), int(h)
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return _webp_size(raw)
    if raw[:2] == b"\xff\xd8":
        return _jpeg_size(raw)
    return None


def _webp_size(raw: bytes) -> tuple[int, int] | None:
    chunk = raw[12:16]
    if chunk == b"VP8 " and len(raw) >= 30:
        w, h = struct.unpack("<HH", raw[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L" and len(raw) >= 25:
        bits = int.from_bytes(raw[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(raw) >= 30:
        return int.from_bytes(raw[24:27], "little") + 1, int.from_bytes(raw[27:30], "little") + 1
    return None


def _jpeg_size(raw: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(raw):
        if raw[i] != 0xFF:
            i += 1
            continue
        marker = raw[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = int.from_bytes(raw[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", raw[i + 5:i + 9])
            return int(w), int(h)
        i += 2 + length
    return None
