"""tenants.jsonl: a support service shared by two tenants, as its invoice sees it (issue 33).

Conversations are created with `metadata` (tenant, case_id); requests add their own
`metadata` (feature), `user` and `safety_identifier`. acme's agent offers
`web_search_preview` on gpt-4o-mini (a non-reasoning model: $25 per 1,000 calls) and runs
one turn at the flex tier; a vector store (2.5 GB) lives from its create to its delete; an
embeddings call and a flagged moderation guard globex's second turn.
"""

from __future__ import annotations

from typing import Any

from capture_writer import CaptureLines
from sdk_build import MODEL, MODEL_ALIAS, conversation, dump, hex_id, message, response, usage
from sdk_build import web_search_call as ws_call

T0 = 1764576000  # 2025-12-01 08:00:00 UTC
PREVIEW = [{"type": "web_search_preview"}]
STORE_BYTES = 2_500_000_000

# (tenant, case, user, [(question, answer, usage, web searches, tier)])
CASES: list[tuple[str, str, str, list[tuple[str, str, tuple[int, int, int], int, str]]]] = [
    ("acme", "AC-1001", "acme-user-7", [
        ("Is the 2025 model of our router affected by the recall?",
         "Yes: units with serials starting R25 are covered; the recall page lists them.",
         (1850, 210, 0), 2, "default"),
        ("What do customers need to send back?",
         "Only the router itself, in any box; the prepaid label covers it.",
         (5260, 180, 1024), 1, "default"),
        ("Summarise the case for the ticket.",
         "Recall confirmed for R25 serials; customer sends the router with the prepaid label.",
         (5610, 120, 4096), 0, "flex")]),
    ("acme", "AC-1002", "acme-user-9", [
        ("Which firmware fixes the overheating warning?",
         "Firmware 4.2.1 and later; it ships through automatic updates this week.",
         (1790, 160, 0), 3, "default"),
        ("Can the customer update it by hand?",
         "Yes: Settings > System > Update, then restart the router.",
         (5480, 140, 1024), 0, "default")]),
    ("globex", "GX-2001", "globex-user-1", [
        ("Reset my password please.",
         "I have sent a reset link to the address on your account.",
         (640, 90, 0), 0, "default"),
        ("It still does not work, this is useless.",
         "Sorry about that: I have escalated the case to a person who will call you today.",
         (820, 110, 0), 0, "default")]),
]


def _exchange(out: CaptureLines, endpoint: str, req: dict[str, Any] | None,
              res: dict[str, Any], elapsed: int) -> None:
    out.req(req, endpoint)
    out.res(res, elapsed)


def tenants() -> bytes:
    """Seven turns over three conversations of two tenants, and the exchanges around them."""
    out = CaptureLines()
    t = T0
    store = hex_id("vs", "tenants/store", t, width=32)
    _exchange(out, "POST /v1/vector_stores", {"name": "acme-manuals"},
              {"id": store, "object": "vector_store", "created_at": t, "name": "acme-manuals",
               "usage_bytes": STORE_BYTES, "status": "completed",
               "file_counts": {"in_progress": 0, "completed": 12, "failed": 0,
                               "cancelled": 0, "total": 12}}, 410)
    for tenant, case, user, turns in CASES:
        t += 60
        conv = hex_id("conv", f"tenants/{case}", t, width=48)
        meta = {"tenant": tenant, "case_id": case}
        _exchange(out, "POST /v1/conversations", {"metadata": meta},
                  dump(conversation(conv, t, meta)), 120)
        for n, (question, answer, use, searches, tier) in enumerate(turns):
            t += 45
            if tenant == "globex" and n == 1:
                _guard(out, question, t - 5)
            req: dict[str, Any] = {"model": MODEL_ALIAS, "conversation": conv,
                                   "input": question, "metadata": {"feature": "support"},
                                   "user": user, "safety_identifier": f"sid-{user}"}
            if searches:
                req["tools"] = PREVIEW
            if tier != "default":
                req["service_tier"] = tier
            calls = [ws_call(hex_id("ws", f"tenants/{case}/{n}/{k}", t), question, None)
                     for k in range(searches)]
            body = dump(response(
                resp_id=hex_id("resp", f"tenants/{case}/{n}", t), created_at=t,
                conversation_id=conv, usage_=usage(*use),
                output=[*calls, message(hex_id("msg", f"tenants/{case}/{n}", t), answer)],
                tools=[{"type": "web_search_preview", "search_context_size": "medium"}]
                if searches else None))
            body["service_tier"] = tier
            out.req(req)
            out.res(body, 2100 + 700 * searches)
    t += 30
    _exchange(out, f"DELETE /v1/vector_stores/{store}", None,
              {"id": store, "object": "vector_store.deleted", "deleted": True}, 95)
    return out.to_bytes()


def _guard(out: CaptureLines, text: str, t: int) -> None:
    """What the service runs before a turn: an embedding of the text and a moderation."""
    _exchange(out, "POST /v1/embeddings",
              {"model": "text-embedding-3-small", "input": text, "user": "globex-user-1"},
              {"object": "list", "model": "text-embedding-3-small",
               "data": [{"object": "embedding", "index": 0, "embedding": [0.0125, -0.0311]}],
               "usage": {"prompt_tokens": 11, "total_tokens": 11}}, 85)
    _exchange(out, "POST /v1/moderations", {"model": "omni-moderation-latest", "input": text},
              {"id": hex_id("modr", "tenants/guard", t, sep="-"),
               "model": "omni-moderation-latest",
               "results": [{"flagged": True, "categories": {"harassment": True,
                                                            "violence": False},
                            "category_scores": {"harassment": 0.71, "violence": 0.01}}]}, 140)


__all__ = ["MODEL", "tenants"]
