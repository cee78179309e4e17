"""The claims scenario (case CS-88213, four turns, file search on turns 2 and 4) via the SDK.

Used by ``traceview demo``, by ``sample_traces/regenerate.py`` (which writes
``sample_traces/claims.jsonl`` from it) and by the end-to-end tests. The application
has the shape the issue describes: the system prompt goes into the conversation once,
as a developer item when the conversation is created, so every turn's request is only
model + conversation + one user message + the ``file_search`` tool (~300 bytes), and
what the turn is billed for is decided by what the provider stores.

With the simulator's token rules (``tokens.py``) the billed numbers are exact:

====  ======  ======  ==========================================================
turn  input   output  why
====  ======  ======  ==========================================================
1     1,210   380     priming 3 + file_search tool 1,069 + prompt item + message
2     1,690   402     + answer 1 + question 2; runs file_search (query + answer)
3     6,110   290     + the five policy chunks stored on turn 2 (the deposit)
4     6,580   510     + answer 3 + the claims-system note the app added + question
====  ======  ======  ==========================================================

Between turns 3 and 4 the application appends a developer note (the claim it logged in
its own system) with ``POST /v1/conversations/{id}/items``, as apps that keep the
model informed of back-office state do; the recorder captures that exchange too.
"""

from __future__ import annotations

from typing import Any

MODEL = "gpt-4.1"
VECTOR_STORE = "vs_68a1c0claims2024policy"
CASE = "CS-88213"
SYSTEM_PROMPT = (
    "You are Claire, the claims assistant for Harbour Mutual home contents insurance, "
    f"on case {CASE}. Answer from the policy wording, searching it with file search "
    "when you need to. Say what is and is not covered, name the section you rely on and state "
    "the excess. Never promise a claim will be paid: the handler decides."
)
TURNS = (
    "Hello. Last night our washing machine sprang a leak during a spin cycle. Water spread "
    "across the kitchen floor and soaked a wool rug and some boxes stored under the stairs. "
    "I'd like to start a claim.",
    "Is accidental damage covered for this? My schedule says accidental damage to contents is "
    "included. The rug was a hand-knotted wool rug bought two years ago for about £900, and "
    "the boxes held photo albums and a vinyl record collection. The machine itself is six years "
    "old and out of warranty. Do I claim for the machine, the rug and the boxes together, or "
    "separately?",
    "What's the excess I would pay on this claim?",
    "Please summarise the claim so far and list the receipts and photos I need to send.",
)
# Added to the conversation by the application after turn 3 (index into TURNS).
CLAIM_NOTE_BEFORE_TURN = 3
CLAIM_NOTE = (
    "Claims system note (added by the application, not by the customer): claim "
    f"HM-2026-004417 is logged for case {CASE}. Peril: escape of water from a washing "
    "machine (Section 3). Excess: £350 (Section 4, escape of water). Items: hand-knotted "
    "wool rug, about £900; two boxes of photo albums and vinyl records, value to be confirmed. "
    "Not claimed: the washing machine (mechanical breakdown, Section 5) and fitted flooring "
    "(buildings). Handler: Priya Natarajan, claims team B. Status: awaiting photos and receipts. "
    "Decision due in ten working days. Quote the claim reference in the summary."
)


def tools() -> list[dict[str, Any]]:
    return [{"type": "file_search", "vector_store_ids": [VECTOR_STORE]}]


def developer_item(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "developer", "content": text}


def run_claims(client: Any, *, include: bool = False, stream: bool = False) -> str:
    """Create the conversation (with the system prompt), drive the four turns; returns its id."""
    conversation = client.conversations.create(
        items=[developer_item(SYSTEM_PROMPT)], metadata={"case": CASE}
    )
    extra: dict[str, Any] = {"include": ["file_search_call.results"]} if include else {}
    for n, text in enumerate(TURNS):
        if n == CLAIM_NOTE_BEFORE_TURN:
            client.conversations.items.create(conversation.id,
                                              items=[developer_item(CLAIM_NOTE)])
        kwargs = dict(
            model=MODEL, conversation=conversation.id,
            input=[{"role": "user", "content": text}], tools=tools(), **extra,
        )
        if stream:
            with client.responses.stream(**kwargs) as events:
                for _ in events:
                    pass
        else:
            client.responses.create(**kwargs)
    return str(conversation.id)
