"""Make untrusted capture text safe to print: no escape sequences, no control characters.

Rich markup is never interpreted because renderers wrap text in `Text` (not markup
strings); this removes what `Text` would still pass through to the terminal.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(m: re.Match[str]) -> str:
    c = m.group(0)
    if c == "\x1b":
        return "␛"
    if ord(c) < 0x20:
        return chr(0x2400 + ord(c))  # ␀ … ␟: the control picture for the character
    if c == "\x7f":
        return "␡"
    return f"\\x{ord(c):02x}"


def plain(text: str) -> str:
    """The text with every control character (ESC, BEL, CSI, …) replaced by a visible sign."""
    return _CONTROL.sub(_visible, text)
