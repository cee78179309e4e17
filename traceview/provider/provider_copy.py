"""The provider copy: a conversation's items as the provider lists them, and how they were
read. Its own module because both the fetch and the one error type (a partial copy rides on
it) need it, and neither may import the other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ProviderCopy:
    """A conversation's items as the provider lists them, with how they were obtained.

    ``complete`` is true only when the last page said ``has_more: false`` (and, for a chain,
    the final response was read too). ``origin`` says where the copy came from: ``live``,
    ``snapshot`` or ``capture`` (a recorded listing).
    """

    conversation: str
    items: list[dict[str, Any]]
    pages: int
    complete: bool
    kind: str = "conversation"  # "conversation" | "chain"
    include: list[str] = field(default_factory=list)
    host: str | None = None
    fetched_at: str | None = None
    origin: str = "live"
    stopped: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    # False for a recorded ``input_items`` listing: the last response's output is not in it.
    covers_output: bool = True

    @property
    def item_count(self) -> int:
        return len(self.items)
