"""tool_choice_unmet, citation_unretrieved, citation_unidentified, and the lineage notes.

A citation is an observation that needs a source: each is tied to the captured retrieval
(web-search sources, file-search results, a code-interpreter container) of its
conversation that returned it, so far. Some findings span turns: a computer call's safety
checks are acknowledged (or not) by the next turn, and a `seed` sent again with another
`system_fingerprint` anywhere in the capture cannot reproduce its output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from traceview.analysis.lineage import retrievals
from traceview.analysis.rules.facts import TurnFacts
from traceview.capture.lineage import LINEAGE, RETRIEVING
from traceview.wire import HOSTED_TOOL_CALLS, INCLUDE_FLAGS

_FAILED = ("failed", "cancelled", "unknown", "queued", "in_progress")
# A call's type, read in C over a turn's calls; the types that retrieve a source.
_TYPE, _RETRIEVING = attrgetter("type"), frozenset(RETRIEVING)
# Output item kinds that are a call of some tool (chat: "tool_calls").
_CALL_KINDS = frozenset({*(t for calls in HOSTED_TOOL_CALLS.values() for t in calls),
                         "function_call", "custom_tool_call", "computer_call",
                         "local_shell_call", "shell_call", "apply_patch_call",
                         "tool_search_call", "tool_calls"})


@dataclass(slots=True)
class _Sources:
    """What one conversation's captured retrievals returned so far, by source."""

    urls: dict[str, tuple[int, str | None]] = field(default_factory=dict)
    files: dict[str, tuple[int, str | None]] = field(default_factory=dict)
    containers: dict[str, tuple[int, str | None]] = field(default_factory=dict)
    # A retrieval whose evidence was not captured: its turn and call, by call type.
    unseen: dict[str, tuple[int, str | None]] = field(default_factory=dict)


def url_key(url: str) -> str:
    """A URL as citations and search sources both spell it: no utm_ tracking parameters,
    no fragment, no trailing slash (the provider appends utm_source to cited links)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if not k.startswith("utm_")])
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"),
                       query, ""))


class LineageRule:
    """The lineage rule's running state over a capture: each conversation's sources, the
    safety checks its last turn left pending, and each seed's first fingerprint."""

    def __init__(self) -> None:
        self.sources: dict[int, _Sources] = {}
        self.pending: dict[int, tuple[dict[int, Any], int, tuple[str, ...]]] = {}
        self.seeds: dict[Any, tuple[str, int]] = {}

    def turn(self, f: TurnFacts, conv: int, store: dict[int, Any]) -> list[str]:
        """The turn's lineage markers; what lies behind them goes into `store` (the
        TurnColumns' lineage findings, by row)."""
        q = f.req_extra.get(LINEAGE) if f.req_extra else None
        r = f.res_extra.get(LINEAGE) if f.res_extra else None
        if self.pending:
            self._acknowledge(conv, q or {})
        if q is None and r is None and _RETRIEVING.isdisjoint(map(_TYPE, f.hosted_calls)):
            return []
        q, r = q or {}, r or {}
        found: dict[str, Any] = {}
        markers: list[str] = []
        met = tool_choice_met(q.get("tool_choice"), f)
        if met is not None:
            found["tool_choice_met"] = met
            if not met:
                markers.append("tool_choice_unmet")
        src = self.sources.get(conv)
        if src is None:  # made on the conversation's first turn with lineage, not on each
            src = self.sources[conv] = _Sources()
        _learn(src, f.index, retrievals(f.hosted_calls, r))
        verdicts = tuple(verdict(c, src) for c in r.get("citations", ()))
        if verdicts:
            found["verdicts"] = verdicts
            if any(v[0] in ("not_returned", "not_captured") for v in verdicts):
                markers.append("citation_unretrieved")
            if any(v[0] == "unidentified" for v in verdicts):
                markers.append("citation_unidentified")
        notes = self._notes(f, q)
        if notes:
            found["notes"] = notes
        checks = tuple(c[1] for c in r.get("safety_checks", ()) if c[1])
        if checks:
            self.pending[conv] = (store, f.row, checks)
        if found:
            store[f.row] = found
        return markers

    def _acknowledge(self, conv: int, q: dict[str, Any]) -> None:
        """Record on the conversation's previous turn whether this turn acknowledged the
        safety checks it left pending."""
        held = self.pending.pop(conv, None)
        if held is None:
            return
        store, row, checks = held
        acked = set(q.get("acknowledged", ()))
        found = store.setdefault(row, {})
        found["acknowledged"] = {c: c in acked for c in checks}

    def _notes(self, f: TurnFacts, q: dict[str, Any]) -> tuple[str, ...]:
        notes = []
        if "temperature" in q and "top_p" in q:
            notes.append(f"temperature ({q['temperature']}) and top_p ({q['top_p']}) both "
                         "set: the provider advises altering one, not both")
        seed = q.get("seed")
        if seed is not None and f.fingerprint is not None:
            first = self.seeds.setdefault(seed, (f.fingerprint, f.index))
            if first[0] != f.fingerprint:
                notes.append(f"seed {seed} was sent on turn {first[1]} too, served by "
                             f"{first[0]}; this turn by {f.fingerprint}: the same seed on "
                             "another backend need not give the same output")
        return tuple(notes)


def tool_choice_met(choice: str | None, f: TurnFacts) -> bool | None:
    """Whether a forcing tool_choice ("required", a named tool) got its call; None when
    the choice does not force one or the response did not complete."""
    if choice is None or not f.has_res or f.status in _FAILED:
        return None
    kinds = set(f.output_types)
    if choice in ("required", "allowed_tools:required"):
        return not kinds.isdisjoint(_CALL_KINDS)
    kind, _, name = choice.partition(":")
    if kind in ("function", "custom") and name:
        want = "function_call" if kind == "function" else "custom_tool_call"
        return any(a[0] == want and a[2] == name for a in f.actions)
    if kind == "mcp":
        return not kinds.isdisjoint(HOSTED_TOOL_CALLS["mcp"])
    calls = HOSTED_TOOL_CALLS.get(kind)
    if calls is not None:
        return not kinds.isdisjoint(calls)
    if kind.startswith("computer_use"):
        return "computer_call" in kinds
    return None


def _learn(src: _Sources, index: int, found: list[tuple[Any, ...]]) -> None:
    """Add what the turn's hosted calls returned (or failed to capture) to `src`."""
    for kind, call_id, _queries, results, sources, container in found:
        at = (index, call_id)
        if kind == "file_search_call":
            if results is None:
                src.unseen[kind] = at
            for file_id, *_ in results or ():
                if file_id:
                    src.files.setdefault(file_id, at)
        elif kind == "web_search_call":
            if sources is None:
                src.unseen[kind] = at
            for url in sources or ():
                if url:
                    src.urls.setdefault(url_key(url), at)
        elif kind == "code_interpreter_call" and container:
            src.containers.setdefault(container, at)


def verdict(c: tuple[Any, ...], src: _Sources) -> tuple[str, dict[str, Any] | None,
                                                          str | None]:
    """(verdict, the retrieval that returned it, the include flag that would have let it be
    checked) of one citation (capture/lineage.py's tuple)."""
    kind, url, file_id, container = c[0], c[1], c[2], c[3]
    if kind == "url_citation":
        if not url:
            return "unidentified", None, None
        return _find(src.urls.get(url_key(url)), src, "web_search_call")
    if not file_id:
        return "unidentified", None, None
    if kind == "file_citation":
        return _find(src.files.get(file_id), src, "file_search_call")
    at = src.containers.get(container) if container else None
    if at is None and kind == "file_path" and src.containers:
        at = next(iter(src.containers.values()))
    return _find(at, src, None)


def _find(at: tuple[int, str | None] | None, src: _Sources, call: str | None,
          ) -> tuple[str, dict[str, Any] | None, str | None]:
    if at is not None:
        return "retrieved", {"turn": at[0], "call": at[1]}, None
    if call is not None and call in src.unseen:
        seen = src.unseen[call]
        return "not_captured", {"turn": seen[0], "call": seen[1]}, INCLUDE_FLAGS[call]
    return "not_returned", None, None
