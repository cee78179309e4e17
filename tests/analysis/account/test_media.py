"""Images by the published size rule; sizes read from image headers."""

from __future__ import annotations

import base64
import struct

import pytest

from traceview.analysis.account.media import data_url_size, image_size, image_tokens


@pytest.mark.parametrize(("model", "detail", "size", "tokens"), [
    ("gpt-4o", "high", (1024, 1024), 85 + 170 * 4),    # 768 x 768: 2 x 2 tiles
    ("gpt-4o", "auto", (2048, 4096), 85 + 170 * 6),    # 1024 x 2048 -> 768 x 1536
    ("gpt-4o", None, (512, 512), 85 + 170),
    ("gpt-4o", "low", None, 85),
    ("gpt-4.1", "high", (4096, 8192), 85 + 170 * 6),
    ("gpt-4o-mini", "high", (1024, 1024), 2833 + 5667 * 4),
    ("gpt-5", "high", (1024, 1024), 70 + 140 * 4),
    ("o3", "low", None, 75),
    ("gpt-4.1-mini", "high", (1024, 1024), 1659),      # 32 x 32 patches x 1.62
    ("gpt-4.1-nano", "high", (1800, 2400), 3572),      # 33 x 44 = 1452 patches x 2.46
    ("gpt-4-1106-vision-preview", "auto", (1024, 1024), 85 + 170 * 4),
    ("gpt-4-turbo", "low", None, 85),
    ("gpt-5-mini", "auto", (597, 566), 411),           # 19 x 18 patches x 1.2 (measured)
])
def test_published_rules(model: str, detail: str | None, size: tuple[int, int] | None,
                         tokens: int) -> None:
    assert image_tokens(model, detail, size)[0] == tokens


def test_unknown_size_or_model_is_unknown() -> None:
    assert image_tokens("gpt-4o", "high", None) == (
        None, "image size not in the capture (remote URL or file id)")
    assert image_tokens("acme-1", "low", (10, 10))[0] is None
    assert image_tokens("gpt-5.4", "high", (60, 30))[0] is None  # no published rule


def _data(raw: bytes) -> str:
    return "data:image/x;base64," + base64.b64encode(raw).decode()


def test_sizes_from_headers() -> None:
    png = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 640, 480)
    gif = b"GIF89a" + struct.pack("<HH", 32, 16)
    jpeg = (b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 4) + b"\x00\x00"
            + b"\xff\xc0" + struct.pack(">HBHH", 11, 8, 300, 400) + b"\x00" * 8)
    webp = b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x00" * 8 + (199).to_bytes(3, "little") \
        + (99).to_bytes(3, "little")
    assert image_size(png + b"\x00" * 8) == (640, 480)
    assert image_size(gif + b"\x00" * 4) == (32, 16)
    assert image_size(jpeg) == (400, 300)
    assert image_size(webp) == (200, 100)
    assert data_url_size(_data(png + b"\x00" * 8)) == (640, 480)
    assert data_url_size("https://example.com/x.png") is None
    assert data_url_size("data:image/png;base64,@@@@") is None
    assert image_size(b"not an image") is None
