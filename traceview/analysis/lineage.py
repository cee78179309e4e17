"""One turn's evidence lineage: what it cited, where each citation came from, what its
hosted calls retrieved, and the choices and settings the request made.

A family of per-turn facts of its own (not more flat fields on TurnReport): built when a
report reads it, from the facts the scan kept (capture/lineage.py) and what the lineage
rule found across turns (rules/lineage.py: citation verdicts, safety-check
acknowledgements, notes). A turn with none of it has no lineage (null in the report).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from traceview.capture.lineage import LINEAGE, RETRIEVING, VECTOR_STORES
from traceview.wire import INCLUDE_FLAGS

# How a citation's source was found: returned by a captured retrieval, not returned by
# any, not checkable (the retrieval's evidence was not captured), or not named at all.
VERDICTS = ("retrieved", "not_returned", "not_captured", "unidentified")


@dataclass(frozen=True, slots=True)
class Citation:
    """One annotation of the output text, and the retrieval that produced its source."""

    type: str
    url: str | None
    file_id: str | None
    container_id: str | None
    title: str | None
    start: int | None
    end: int | None
    item: int  # the output item (chat: the choice) it annotates
    verdict: str | None  # VERDICTS; None when the rule did not run (a turn read alone)
    by: dict[str, Any] | None  # {"turn", "call"} of the retrieval that returned it
    include: str | None  # the include flag that would have captured the evidence

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "url": self.url, "file_id": self.file_id,
                "container_id": self.container_id, "title": self.title,
                "start_index": self.start, "end_index": self.end, "output_item": self.item,
                "source": self.verdict, "retrieved_by": self.by, "include": self.include}


class TurnLineage(NamedTuple):
    """A turn's citations, retrievals, choices and settings (None: the request or
    response did not say). A tuple: made for every turn with any, where a frozen
    dataclass set each of its fields through object.__setattr__."""

    tool_choice: str | None
    tool_choice_met: bool | None
    temperature: float | None
    top_p: float | None
    seed: int | None
    effort: str | None
    case: dict[str, str] | None  # metadata, user, safety_identifier the request sent
    citations: tuple[Citation, ...]
    retrieval: tuple[dict[str, Any], ...]
    safety_checks: tuple[dict[str, Any], ...]
    logprobs: dict[str, Any] | None
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool_choice": self.tool_choice, "tool_choice_met": self.tool_choice_met,
            "sampling": {"temperature": self.temperature, "top_p": self.top_p,
                         "seed": self.seed, "reasoning_effort": self.effort},
            "case": self.case, "citations": [c.to_dict() for c in self.citations],
            "retrieval": list(self.retrieval), "safety_checks": list(self.safety_checks),
            "logprobs": self.logprobs, "notes": list(self.notes),
        }


def retrievals(calls: tuple[Any, ...], r: dict[str, Any]) -> list[tuple[Any, ...]]:
    """(type, call id, queries, results, sources, container) of each retrieving hosted
    call: its HostedCall with what the scan kept of its evidence (by its place)."""
    kept = {k: rest for k, *rest in r.get("retrieval", ())}
    return [(c.type, c.id, c.queries, *kept.get(k, (None, None, None)))
            for k, c in enumerate(c for c in calls if c.type in RETRIEVING)]


def lineage_of(req_extra: dict[str, Any] | None, res_extra: dict[str, Any] | None,
               calls: tuple[Any, ...], found: dict[str, Any] | None) -> TurnLineage | None:
    """The turn's lineage from its sides' facts, its hosted calls and the rule's findings;
    None when the turn has none of it."""
    q = req_extra.get(LINEAGE) if req_extra else None
    r = res_extra.get(LINEAGE) if res_extra else None
    if q is None and r is None and not any(c.type in RETRIEVING for c in calls):
        return None
    q, r, found = q or {}, r or {}, found or {}
    stores = res_extra.get(VECTOR_STORES, ()) if res_extra else ()
    verdicts = found.get("verdicts", ())
    cites = tuple(
        Citation(*c, *(verdicts[n] if n < len(verdicts) else (None, None, None)))
        for n, c in enumerate(r.get("citations", ())))
    acked = found.get("acknowledged", {})
    checks = tuple({"call_id": call, "id": cid, "code": code, "acknowledged": acked.get(cid)}
                   for call, cid, code in r.get("safety_checks", ()))
    lp = r.get("logprobs")
    case = {k: v for k in ("user", "safety_identifier") if (v := q.get(k))}
    case.update({f"metadata.{k}": v for k, v in (q.get("metadata") or {}).items() if v})
    return TurnLineage(
        q.get("tool_choice"), found.get("tool_choice_met"), q.get("temperature"),
        q.get("top_p"), q.get("seed"), q.get("effort"), case or None, cites,
        tuple(retrieval_dict(x, stores) for x in retrievals(calls, r)),
        checks,
        {"tokens": lp[0], "mean_probability": round(lp[1], 6),
         "min_probability": round(lp[2], 6)} if lp else None,
        tuple(found.get("notes", ())))


def retrieval_dict(x: tuple[Any, ...], stores: tuple[str, ...]) -> dict[str, Any]:
    """One hosted call's retrieval as the report gives it."""
    kind, call_id, queries, results, sources, container = x
    evidence = results if kind == "file_search_call" else sources
    missing = kind in ("file_search_call", "web_search_call") and evidence is None
    return {
        "type": kind, "id": call_id, "queries": list(queries),
        "results": None if results is None else [
            {"file_id": f, "filename": n, "score": s, "vector_store": v}
            for f, n, s, v in results],
        "sources": None if sources is None else list(sources),
        "vector_stores": list(stores) if kind == "file_search_call" else [],
        "container_id": container,
        "include": INCLUDE_FLAGS.get(kind) if missing else None,
    }
