"""Who a turn was for: its conversation's metadata (set by POST /v1/conversations or read
from a conversation object in the capture), the request's own `metadata`, `user` and
`safety_identifier`, and the provider project and organization it was billed to (the
`openai-project` / `openai-organization` headers, when the capture kept them). A team
reading its invoice asks "which tenant's conversations carry the most re-billed context"
and "which project paid for this"; these are the keys it asks by.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from traceview.capture.facts import metadata_tags
from traceview.capture.model import Exchange, RecordRef

# Keys that are not metadata but are grouped by alike.
IDENTITY_KEYS = ("user", "safety_identifier", "project")
# Where a turn's project was read: the provider's answer names the project it billed, the
# client's request the one it asked for (the provider bills that one when the key may).
PROJECT_FROM = {"response": "response header openai-project",
                "request": "request header OpenAI-Project"}
MAX_GROUPS = 1000  # values per key listed in the report (the rest summed as "(other)")


@dataclass(frozen=True)
class TurnAttribution:
    """One turn's attribution: the request's metadata over its conversation's (a key the
    request sets wins), and the end-user ids it sent."""

    metadata: dict[str, str] = field(default_factory=dict)
    conversation_metadata: dict[str, str] = field(default_factory=dict)
    user: str | None = None
    safety_identifier: str | None = None
    project: str | None = None
    organization: str | None = None
    project_from: str | None = None  # a PROJECT_FROM value; None: the capture has none

    def value(self, key: str) -> str | None:
        """The turn's value of `key`: a metadata key, or "user" / "safety_identifier" /
        "project"."""
        if key == "user":
            return self.user
        if key == "safety_identifier":
            return self.safety_identifier
        if key == "project":
            return self.project
        return self.metadata.get(key)

    def keys(self) -> list[str]:
        return [*self.metadata, *(k for k in IDENTITY_KEYS if self.value(k) is not None)]

    def to_dict(self) -> dict[str, Any]:
        return {"metadata": dict(self.metadata),
                "conversation_metadata": dict(self.conversation_metadata),
                "user": self.user, "safety_identifier": self.safety_identifier,
                "project": self.project, "organization": self.organization,
                "project_from": self.project_from}


NONE = TurnAttribution()
# NONE as a report writes it: shared by every row that says nothing of its owner (never
# mutate it, like EMPTY_CARRY).
NO_ATTRIBUTION = NONE.to_dict()


def billed_to(req_extra: dict[str, Any] | None, res_extra: dict[str, Any] | None
              ) -> tuple[str | None, str | None, str | None]:
    """(project, organization, where the project was read) of one turn: the response's
    headers over the request's; (None, None, None) when the capture kept neither."""
    project = organization = source = None
    for extra, where in ((res_extra, "response"), (req_extra, "request")):
        if not extra:
            continue
        if project is None and extra.get("project"):
            project, source = extra["project"], PROJECT_FROM[where]
        organization = organization or extra.get("organization")
    return project, organization, source


def attribution(req_extra: dict[str, Any] | None,
                conversation_meta: dict[str, str] | None,
                res_extra: dict[str, Any] | None = None) -> TurnAttribution:
    """The turn's attribution from its request's and response's extra facts and its
    conversation's metadata (NONE, shared, when none says anything)."""
    meta = req_extra.get("metadata") if req_extra else None
    user = req_extra.get("user") if req_extra else None
    sid = req_extra.get("safety_identifier") if req_extra else None
    project, organization, source = billed_to(req_extra, res_extra)
    if not (meta or user or sid or conversation_meta or project or organization):
        return NONE
    merged = {**(conversation_meta or {}), **(meta or {})}
    return TurnAttribution(merged, dict(conversation_meta or {}), user, sid, project,
                           organization, source)


def conversation_metadata(exchanges: Sequence[Exchange],
                          read: Callable[[RecordRef | None], dict[str, Any] | None]
                          ) -> dict[str, dict[str, str]]:
    """Each conversation's metadata as the capture shows it: the POST that created it (its
    request body, else the conversation object answered), a later POST that updated it,
    or a conversation object read back. A later record wins, as on the provider."""
    out: dict[str, dict[str, str]] = {}
    for ex in exchanges:
        if not ex.conversation_id or not ex.path.rstrip("/").startswith("/v1/conversations"):
            continue
        if ex.path.rstrip("/").count("/") > 3:
            continue  # items of a conversation, not the conversation
        found = None
        for ref in (ex.response, ex.request):
            rec = read(ref) if ref is not None else None
            body = rec.get("body") if isinstance(rec, dict) else None
            meta = body.get("metadata") if isinstance(body, dict) else None
            if isinstance(meta, dict) and meta:
                found = metadata_tags(meta)
                break
        if found is not None:
            out[ex.conversation_id] = found
    return out


def groups(turns: Sequence[Any]) -> dict[str, list[dict[str, Any]]]:
    """Turns grouped by each attribution key any turn has (metadata keys first, then user,
    safety_identifier): per value (None: the turns without it) conversations, turns,
    billed input, carried context (tokens and cost) and cost, the most costly first. Each
    turn is read once; what the groups need of it is kept in a small tuple."""
    seen: dict[str, None] = {}
    for t in turns:  # most captures carry no attribution: then nothing more is read
        for k in t.turn_attribution.keys():
            seen.setdefault(k, None)
    if not seen:
        return {}
    facts = []
    for t in turns:
        carry = t.carried
        d = carry.to_dict() if carry is not None else {}
        facts.append((t.turn_attribution, t.conversation_key, t.input_tokens or 0,
                      d.get("tokens") or 0, d.get("cost_usd") or 0.0, t.cost_usd))
    out = {}
    for key in sorted(seen, key=lambda k: (k in IDENTITY_KEYS, list(seen).index(k))):
        by_value: dict[str | None, dict[str, Any]] = {}
        for owner, *numbers in facts:
            _add(_group(by_value, key, owner.value(key)), *numbers)
        rows = [_finish(g) for g in by_value.values()]
        rows.sort(key=lambda g: (-(g["cost_usd"] or 0.0), g["value"] is None, g["value"] or ""))
        out[key] = rows
    return out


def _group(by_value: dict[str | None, dict[str, Any]], key: str,
           value: str | None) -> dict[str, Any]:
    if value is not None and value not in by_value and len(by_value) >= MAX_GROUPS:
        value = "(other)"
    g = by_value.get(value)
    if g is None:
        g = by_value[value] = {"key": key, "value": value, "conversations": set(), "turns": 0,
                               "input_tokens": 0, "carried_tokens": 0,
                               "carried_cost_usd": 0.0, "cost_usd": 0.0,
                               "cost_unknown_turns": 0}
    return g


def _add(g: dict[str, Any], conversation: str, input_tokens: int, carried: int,
         carried_usd: float, cost: float | None) -> None:
    g["conversations"].add(conversation)
    g["turns"] += 1
    g["input_tokens"] += input_tokens
    g["carried_tokens"] += carried
    g["carried_cost_usd"] += carried_usd
    if cost is None:
        g["cost_unknown_turns"] += 1
    else:
        g["cost_usd"] += cost


def _finish(g: dict[str, Any]) -> dict[str, Any]:
    g["conversations"] = len(g["conversations"])
    g["cost_usd"] = round(g["cost_usd"], 6)
    g["carried_cost_usd"] = round(g["carried_cost_usd"], 6)
    return g


def report(turns: Sequence[Any]) -> dict[str, Any]:
    """The report's `attribution` section: the keys found and each key's groups."""
    found = groups(turns)
    return {"keys": list(found), "groups": found}
