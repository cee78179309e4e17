"""Make untrusted capture text safe to print: no escape sequences, no control characters.

Everything a capture holds was written by someone else: a prompt can contain Rich
markup, ANSI/OSC/DCS escape sequences, bidi overrides, zero-width or tag characters.
Renderers only ever build ``rich.text.Text`` objects (never markup strings) and pass
every string through :func:`visible` first, which swaps each control and format
character for a visible stand-in, so nothing can style, link, retitle the window, write
the clipboard, move the cursor, reorder or hide text. An escape sequence is made inert
by its first byte: ``ESC ] 52 ; … BEL`` becomes the text ``\\x1b]52;…\\x07``. One table
serves the report, the inspector and every message on stderr, so the same text reads
the same everywhere; :func:`line` also masks secrets for messages (see ``redact``).
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

from traceview.safety.redact import redact_text

# Every character that is not text a person should see as such:
#   C0 controls and DEL, C1 controls (U+0080–009F, 8-bit CSI/OSC/DCS/ST), the soft hyphen,
#   Arabic letter mark, Mongolian vowel separator, zero-width and bidi marks (U+200B–200F),
#   line/paragraph separators and bidi embeddings/overrides (U+2028–202E), word joiner,
#   invisible operators, bidi isolates and deprecated format chars (U+2060–206F), the BOM,
#   interlinear annotation (U+FFF9–FFFB), tag characters (U+E0000–E007F) and lone
#   surrogates (which no terminal or XML document can hold).
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\ud800-\udfff]"
)
_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _stand_in(code: int) -> str:
    """The visible replacement for one control or format character: its escaped repr.

    Escapes (``\\x1b[31m``) read the same in every font and are what a developer
    recognises; the "Control Pictures" block is missing from many monospace fonts.
    """
    if code in _NAMED:
        return _NAMED[code]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _one_line(m: re.Match[str]) -> str:
    return _stand_in(ord(m.group()))


def _multi_line(m: re.Match[str]) -> str:
    ch = m.group()
    if ch == "\n":
        return ch
    if ch == "\t":
        return "    "
    return _stand_in(ord(ch))


def visible(value: object, *, multiline: bool = False) -> str:
    """Return ``value`` as a string with every control/format character made visible.

    ``multiline`` keeps line feeds (for wrapped prose); otherwise a newline becomes ``\\n``
    so a table cell stays on one line. Secrets are masked here too (``redact_text``): this
    is the one function every displayed string passes, so no output path can skip it.
    """
    text = redact_text(value if isinstance(value, str) else str(value))
    if text.isprintable():  # the common case: no Cc/Cf/Zl/Zp/Cs character at all
        return text
    return UNSAFE.sub(_multi_line if multiline else _one_line, text)


def plain(text: str) -> str:
    """One-line form of :func:`visible`, for table cells and report lines."""
    return visible(text)


def line(value: object) -> str:
    """A message for stderr or a notification: secrets masked, made visible, line feeds kept.

    Messages quote file names, conversation ids and provider replies; all of them are
    untrusted, so every message goes through here rather than each call site choosing.
    """
    return visible(value, multiline=True)


def say(*parts: object, file: TextIO | None = None) -> None:
    """``print`` for messages to stderr: each part through :func:`line`."""
    print(" ".join(line(p) for p in parts), file=file or sys.stderr)


_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)


def _json_escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


# The UTF-8 forms of _JSON_UNSAFE's characters: DEL, and the lead bytes of U+0080-00AD
# (C2), U+061C (D8), U+180E (E1), U+FEFF and U+FFF9-FFFB (EF) and the tag characters (F3);
# under lead byte E2, only U+200B-200F, U+2028-202E and U+2060-206F, since E2 also leads
# the "≈", "—" and "…" every report writes.
_UNSAFE_LEADS = (b"\x7f", b"\xc2", b"\xd8", b"\xe1", b"\xef", b"\xf3")
_UNSAFE_E2 = re.compile(rb"\xe2(?:\x80[\x8b-\x8f\xa8-\xae]|\x81[\xa0-\xaf])")


def _maybe_json_unsafe(chunk: bytes) -> bool:
    """False only when ``chunk`` (UTF-8) holds no character of _JSON_UNSAFE: a byte search
    per lead byte (memchr) and one regex led by a literal byte, instead of decoding the
    chunk and running the character class over every character (a tenth of the writer)."""
    for lead in _UNSAFE_LEADS:
        if lead in chunk:
            return True
    return _UNSAFE_E2.search(chunk) is not None


def json_safe(chunk: bytes) -> bytes:
    """JSON text with the characters a terminal acts on written as ``\\uXXXX`` escapes.

    orjson escapes C0 controls already; C1, bidi, invisible and tag characters it writes
    raw. Escaping them keeps the JSON equal (same value after parsing) and inert on a
    terminal. Only ever applied inside strings: these characters are invalid elsewhere.
    """
    if chunk.isascii() and b"\x7f" not in chunk:
        return chunk
    if not _maybe_json_unsafe(chunk):
        return chunk
    text = chunk.decode("utf-8", "surrogatepass")
    if text.isprintable() or not _JSON_UNSAFE.search(text):
        return chunk
    return _JSON_UNSAFE.sub(_json_escape, text).encode("utf-8")


def json_safe_dump(chunk: bytes, apart: bytes) -> bytes:
    """`json_safe(chunk)` for a chunk dumped of what `apart` holds (redact.py
    `dumped_apart`), masked or not, judged on `apart`: the characters escaped here are
    never outside a JSON string (JSON structure is ASCII, DEL included only in a string),
    a string is written alike in both, and a mask adds none."""
    return json_safe(chunk) if _maybe_json_unsafe(apart) else chunk


class SafeStream:
    """A text stream whose every write goes through :func:`line` (stderr of every command).

    Installed once by the CLI, so a message from any module, a provider reply or a file
    name can never reach the terminal raw, and no call site has to remember.
    """

    def __init__(self, raw: TextIO) -> None:
        self._raw = raw

    def write(self, text: str) -> int:
        self._raw.write(line(text))
        return len(text)

    def terminal(self) -> TextIO:
        """The stream underneath, for a writer that makes its own text safe and must send
        terminal control (Rich progress): control written here would be shown as text."""
        return self._raw

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


def install_safe_stderr() -> None:
    if not isinstance(sys.stderr, SafeStream) and sys.stderr is not None:
        sys.stderr = SafeStream(sys.stderr)
