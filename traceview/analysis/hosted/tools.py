"""A request's tool configuration, as the carried-context ledger compares it.

Context that a hosted tool deposited stays in the stored conversation after the request
stops offering that tool (or points file_search at other vector stores); the ledger
flags such context as outliving its configuration, and says why in a sentence.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from traceview.wire import WEB_SEARCH_ALIASES


@dataclass(frozen=True)
class ToolConfig:
    """The tools a request offered, and the vector stores its file_search could read."""

    tools: frozenset[str]
    vector_store_ids: frozenset[str] = frozenset()


def tool_name(kind: str) -> str:
    """A tool type as the ledger compares it (web search's dated aliases are one tool)."""
    return "web_search" if kind in WEB_SEARCH_ALIASES else kind


def tool_config(body: Any) -> ToolConfig | None:
    """A request body's tool configuration (None when the body is not a request)."""
    if not isinstance(body, dict):
        return None
    tools, stores = set(), set()
    for t in body.get("tools") or []:
        if not isinstance(t, dict) or not isinstance(t.get("type"), str):
            continue
        tools.add(tool_name(t["type"]))
        for vs in t.get("vector_store_ids") or []:
            if isinstance(vs, str):
                stores.add(vs)
    return ToolConfig(frozenset(tools), frozenset(stores))


def outlived(config: ToolConfig | None, here: ToolConfig | None) -> str | None:
    """Why context from where `config` was offered outlives the tool configuration of this
    turn, if it does."""
    if config is None or here is None:
        return None
    gone = sorted(config.tools - here.tools)
    if gone:
        return f"{', '.join(gone)} no longer offered; the model still reads its results"
    if "file_search" in config.tools and config.vector_store_ids and (
            here.vector_store_ids != config.vector_store_ids):
        before = ", ".join(sorted(config.vector_store_ids))
        now = ", ".join(sorted(here.vector_store_ids)) or "none"
        return (f"file_search now reads vector store(s) {now}, not {before}; the model still "
                "reads results from the old one(s)")
    return None


class TurnConfigs:
    """Each request's tool configuration by turn index, told by the objects pass (which
    reads the vector store ids each request quotes) and asked by the ledger. A capture
    repeats a handful of configurations on every turn: each distinct one is made once and
    a turn holds its number."""

    def __init__(self) -> None:
        self._number = array("I")  # by turn index; 0: none
        self._made: list[ToolConfig | None] = [None]  # by number
        self._known: dict[tuple[frozenset[str], frozenset[str]], int] = {}
        self._seen: dict[tuple[tuple[str, ...], tuple[bytes, ...]], int] = {}

    def see(self, index: int, offered: Sequence[str], ids: Sequence[bytes]) -> None:
        """Note the configuration of turn `index` (one with a request): the tools it
        offered, and the vector store ids it quoted when it offers file_search."""
        key = (tuple(offered), tuple(ids))
        number = self._seen.get(key)
        if number is None:
            number = self._number_of(*key)
            if len(self._seen) < 4096:  # a hostile capture's distinct ids: not remembered
                self._seen[key] = number
        held = self._number
        if index >= len(held):
            held.frombytes(bytes(held.itemsize * (index + 1 - len(held))))
        held[index] = number

    def _number_of(self, offered: tuple[str, ...], ids: tuple[bytes, ...]) -> int:
        """The number of the configuration offering `offered` with these quoted ids."""
        tools = frozenset(map(tool_name, offered))
        stores = frozenset(m.decode() for m in ids if m[:3] == b"vs_") \
            if "file_search" in tools else frozenset()
        number = self._known.get((tools, stores))
        if number is None:
            number = self._known[(tools, stores)] = len(self._made)
            self._made.append(ToolConfig(tools, stores))
        return number

    def get(self, index: int) -> ToolConfig | None:
        """The configuration of turn `index` (None: no request, or not seen)."""
        held = self._number
        return self._made[held[index] if 0 <= index < len(held) else 0]
