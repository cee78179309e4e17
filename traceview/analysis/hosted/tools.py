"""A request's tool configuration, as the carried-context ledger compares it.

Context that a hosted tool deposited stays in the stored conversation after the request
stops offering that tool (or points file_search at other vector stores); the ledger
flags such context as outliving its configuration, and says why in a sentence.
"""

from __future__ import annotations

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


class Configs:
    """Each distinct tool configuration made once: a capture repeats a handful on every
    turn, and turns that share one share the object (the ledger notes a configuration's
    outlived sources once)."""

    def __init__(self) -> None:
        self._known: dict[tuple[frozenset[str], frozenset[str]], ToolConfig] = {}
        self._seen: dict[tuple[tuple[str, ...], tuple[bytes, ...]], ToolConfig] = {}

    def of(self, offered: Sequence[str], ids: Sequence[bytes]) -> ToolConfig:
        """The configuration of a request offering `offered`, quoting the object ids `ids`
        (its vector stores count when it offers file_search)."""
        key = (tuple(offered), tuple(ids))
        got = self._seen.get(key)
        if got is None:
            tools = frozenset(map(tool_name, offered))
            stores = frozenset(m.decode() for m in ids if m[:3] == b"vs_") \
                if "file_search" in tools else frozenset()
            got = self._known.get((tools, stores))
            if got is None:
                got = ToolConfig(tools, stores)
                if len(self._known) < 4096:  # a hostile capture's distinct ids: not kept
                    self._known[(tools, stores)] = got
            if len(self._seen) < 4096:
                self._seen[key] = got
        return got
