"""Make untrusted capture text safe to put on a terminal.

Everything a capture holds was written by someone else: a prompt can contain Rich
markup (``[bold]``), ANSI/OSC escape sequences or bidi overrides. The inspector shows
such text *literally*: it only ever builds ``rich.text.Text`` objects (never markup
strings) and passes every string through ``traceview.safety.sanitise.visible``.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from traceview.safety.sanitise import visible

__all__ = ["clip", "safe", "visible"]

def safe(value: object, style: str | Style = "", *, multiline: bool = False) -> Text:
    """A ``Text`` holding ``value`` literally (no markup parsing), made visible."""
    return Text(visible(value, multiline=multiline), style=style)


def clip(value: str, limit: int) -> str:
    """Cut a long string before it reaches any renderer, saying how much was cut."""
    if len(value) <= limit:
        return value
    return f"{value[:limit]}… (+{len(value) - limit:,} chars)"
