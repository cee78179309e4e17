"""The claims scenario (four turns, file search on turns 2 and 4) driven through the SDK.

Used by ``traceview demo``, by ``sample_traces/regenerate.py`` and by the end-to-end
tests. With the simulator's rules the numbers match the hand-built sample: turn 2 bills
1,690 input / 402 output; turn 3, a nine-word question, bills 6,110 because turn 2's
file-search chunks were deposited into the stored conversation.
"""

from __future__ import annotations

from typing import Any

MODEL = "gpt-4.1"
VECTOR_STORE = "vs_68a1c0claims2024policy"
INSTRUCTIONS = (
    "You are Claire, the claims assistant for Harbour Mutual home contents insurance. "
    "Answer from the policy wording, using the file search tool when you need it. Be precise "
    "about what is and is not covered, name the section you rely on, and state the excess "
    "that applies. Never promise that a claim will be paid: the claims handler decides."
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


def tools() -> list[dict[str, Any]]:
    return [{"type": "file_search", "vector_store_ids": [VECTOR_STORE]}]


def run_claims(client: Any, *, include: bool = False, stream: bool = False) -> str:
    """Drive the four turns on a new conversation; returns the conversation id."""
    conversation = client.conversations.create(metadata={"case": "CS-88213"})
    extra: dict[str, Any] = {"include": ["file_search_call.results"]} if include else {}
    for text in TURNS:
        kwargs = dict(
            model=MODEL, conversation=conversation.id, instructions=INSTRUCTIONS,
            input=[{"role": "user", "content": text}], tools=tools(), **extra,
        )
        if stream:
            with client.responses.stream(**kwargs) as events:
                for _ in events:
                    pass
        else:
            client.responses.create(**kwargs)
    return conversation.id
