"""A one-line title that keeps its most important parts at any width.

A title is a list of parts, each with a priority and one or more renderings (long to
short). When the line is too narrow the least important part shortens, then leaves, so
at 80 columns the marker counts and "N problems (p)" stay while the capture name and
the conversation id give way.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget

SEPARATOR = " · "


@dataclass
class Part:
    """One piece of the title: 0 never leaves; higher numbers shorten and leave first."""

    priority: int
    variants: list[Text]
    separator: str = SEPARATOR


def fit_parts(parts: list[Part], width: int) -> Text:
    """The parts joined, shortened and dropped (least important first) to fit ``width``."""
    chosen = [0] * len(parts)
    alive = [True] * len(parts)

    def line() -> Text:
        out = Text()
        first = True
        for part, pick, keep in zip(parts, chosen, alive, strict=True):
            if not keep:
                continue
            if not first:
                out.append(part.separator)
            out.append_text(part.variants[pick])
            first = False
        return out

    text = line()
    order = sorted(range(len(parts)), key=lambda i: -parts[i].priority)
    for i in order:
        if text.cell_len <= width or parts[i].priority == 0:
            break
        while text.cell_len > width and chosen[i] < len(parts[i].variants) - 1:
            chosen[i] += 1
            text = line()
        if text.cell_len > width:
            alive[i] = False
            text = line()
    return text


class TitleBar(Widget):
    """The screen's title line; call ``set_parts`` and it fits itself to its width."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.parts: list[Part] = []

    def set_parts(self, parts: list[Part]) -> None:
        self.parts = parts
        self.refresh()

    @property
    def plain(self) -> str:
        return fit_parts(self.parts, 10_000).plain

    def render(self) -> Text:
        width = self.content_region.width or self.size.width or 10_000
        text = fit_parts(self.parts, width)
        text.no_wrap = True
        text.truncate(width, overflow="ellipsis")
        return text
