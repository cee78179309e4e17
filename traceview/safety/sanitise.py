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


# The characters of UNSAFE that JSON text may hold raw, which `json_safe` escapes: all but
# C0 controls (a JSON writer escapes those itself; raw, they are only the whitespace
# between tokens). One table: what the sanitiser shows as escapes, a written file escapes.
_JSON_UNSAFE = re.compile("(?![\x00-\x1f])" + UNSAFE.pattern)


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

    For the captures and snapshots traceview writes (recorder, proxy, hydrate, fetch,
    imports): their data must stay verbatim, yet `cat` or `less` of the file must not act
    on it. JSON writers escape C0 controls already; C1, bidi, invisible and tag characters
    they write raw. Escaping them keeps the JSON equal (same value after parsing) and
    inert on a terminal. Only ever applied inside strings: these characters are invalid
    elsewhere. (The documents traceview prints go through :func:`json_shown` instead.)
    """
    if chunk.isascii() and b"\x7f" not in chunk:
        return chunk
    if not _maybe_json_unsafe(chunk):
        return chunk
    text = chunk.decode("utf-8", "surrogatepass")
    if text.isprintable() or not _JSON_UNSAFE.search(text):
        return chunk
    return _JSON_UNSAFE.sub(_json_escape, text).encode("utf-8")


# In JSON text: one backslash escape (a surrogate pair, a \uXXXX, or one character) or one
# raw character of _JSON_UNSAFE.
# Escapes are matched whole, left to right, so an escaped backslash before an "n" is never
# read as an escaped newline.
_JSON_TOKEN = re.compile(r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                         r"|u[0-9a-fA-F]{4}|.)|" + _JSON_UNSAFE.pattern)
_JSON_SHORT = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_MAYBE_ESCAPED = re.compile(rb"\\[bfnrtu]")  # an escape that may stand for a control


def _shown_token(m: re.Match[str]) -> str:
    """The JSON text of what :func:`visible` shows of one character: the escape (or raw
    character) itself when it is not unsafe, else its stand-in as a JSON string's text."""
    token = m.group()
    if token[0] != "\\":
        char = token
    elif token[1] == "u":
        code = int(token[2:6], 16)
        if len(token) > 6:  # a surrogate pair: one astral character (a tag character)
            code = 0x10000 + ((code - 0xD800) << 10) + (int(token[8:12], 16) - 0xDC00)
        char = chr(code)
    else:
        char = _JSON_SHORT.get(token[1], "")
    if not char or not UNSAFE.match(char):
        return token
    return _stand_in(ord(char)).replace("\\", "\\\\")


def _maybe_json_shown(chunk: bytes) -> bool:
    """False only when ``chunk`` (JSON text) holds no character :func:`json_shown` changes:
    neither a raw one (`_maybe_json_unsafe`) nor an escape that may stand for a control."""
    return _maybe_json_unsafe(chunk) or (b"\\" in chunk and
                                         _MAYBE_ESCAPED.search(chunk) is not None)


def json_shown(chunk: bytes) -> bytes:
    """JSON text whose every string (keys too) is what :func:`visible` shows of it: each
    control and format character of UNSAFE, raw or escaped (``\\u001b``, ``\\n``), becomes
    its stand-in as text (``\\\\x1b``, ``\\\\n``).

    The documents traceview prints (report, diff, objects, …) are read by people and by
    ``jq -r``, which writes a decoded value raw: a value that decodes to ESC ] 52 would
    write the clipboard. A decoded string is therefore already the sanitiser's text, as
    the report contract says. Captures and snapshots, which must keep their data, use
    :func:`json_safe` instead.
    """
    if chunk.isascii() and b"\x7f" not in chunk and b"\\" not in chunk:
        return chunk
    if not _maybe_json_shown(chunk):
        return chunk
    text = chunk.decode("utf-8", "surrogatepass")
    shown = _JSON_TOKEN.sub(_shown_token, text)
    return chunk if shown == text else shown.encode("utf-8", "surrogatepass")


def json_shown_dump(chunk: bytes, apart: bytes) -> bytes:
    """`json_shown(chunk)` for a chunk dumped of what `apart` holds (redact.py
    `dumped_apart`), judged on `apart`: every character or escape it changes is inside a
    JSON string, and a string is written alike in both."""
    return json_shown(chunk) if _maybe_json_shown(apart) else chunk


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
