"""The simulator's canned world: one bundled policy document, canned replies, web sources.

File search chunks the document the way a vector store does by default (fixed windows
with 50 % overlap; ``CHUNK_TOKENS`` sim-tokens per window) and ranks chunks by how many
distinct query terms they contain. No embeddings, no model: the same query always
returns the same chunks with the same scores.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

CHUNK_TOKENS = 795
CHUNK_OVERLAP_TOKENS = 400
MAX_RESULTS = 5
POLICY_FILENAME = "HomeContents_PolicyWording_2024.pdf"
POLICY_FILE_ID = "file-Hc7Pw2024SimPolicyWording1"
DEFAULT_VECTOR_STORE = "vs_sim_policy_wording"

# A file search runs under tool_choice "auto" when the user's message names one of these
# terms and no file-search result already in the conversation contains it.
INDEX_TERMS = (
    "accidental",
    "covered",
    "cover",
    "excess",
    "exclusions",
    "receipts",
    "photos",
    "settle",
    "settlement",
    "cancel",
    "possessions",
    "policy",
)
# A web search runs under "auto" when the message contains one of these.
WEB_TERMS = ("latest", "news", "today", "current", "online", "website")

STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be because been before
    being both but by can could did do does doing for from had has have having he her here
    hers him his how i if in into is it its just like me more most my no nor not now of off
    on once only or other our ours out over own same she should so some such than that the
    their them then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself
    i'd i'm i've it's what's don't didn't doesn't isn't wasn't can't won't please tell know
    need want last night just much many also still""".split()
)

_WORD = re.compile(r"[a-z0-9£']+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def query_terms(text: str) -> list[str]:
    """Content words of a message, in order, without repeats."""
    seen: list[str] = []
    for word in words(text):
        word = word.strip("'")
        if len(word) < 4 or word in STOPWORDS or word in seen:
            continue
        seen.append(word)
    return seen


def search_query(text: str) -> str:
    """The query the simulated model would write: the message's first content words."""
    return " ".join(query_terms(text)[:10])


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str
    words: frozenset[str]


@cache
def policy_text() -> str:
    return resources.files("traceview.sim").joinpath("data/policy.md").read_text("utf-8")


@cache
def chunks() -> tuple[Chunk, ...]:
    """Byte windows of CHUNK_TOKENS*4 bytes every (CHUNK_TOKENS-OVERLAP)*4 bytes.

    Windows may start or end mid-word, as provider chunks do; a cut inside a
    multi-byte character moves back to the character boundary.
    """
    data = policy_text().encode("utf-8")
    size, stride = CHUNK_TOKENS * 4, (CHUNK_TOKENS - CHUNK_OVERLAP_TOKENS) * 4
    out: list[Chunk] = []
    start = 0
    while True:
        end = min(start + size, len(data))
        s, e = start, end
        while s < len(data) and (data[s] & 0xC0) == 0x80:
            s += 1
        while e < len(data) and (data[e] & 0xC0) == 0x80:
            e -= 1
        text = data[s:e].decode("utf-8")
        out.append(Chunk(len(out), text, frozenset(words(text))))
        if end >= len(data):
            return tuple(out)
        start += stride


def file_search(query: str, max_results: int | None = None) -> list[dict[str, Any]]:
    """Ranked result chunks for a query, shaped like ``file_search_call.results[]``."""
    terms = query_terms(query)
    limit = min(MAX_RESULTS, max_results or MAX_RESULTS)
    scored = []
    for chunk in chunks():
        hits = sum(1 for t in terms if t in chunk.words)
        if hits:
            scored.append((hits, chunk))
    scored.sort(key=lambda hc: (-hc[0], hc[1].index))
    results = []
    for rank, (hits, chunk) in enumerate(scored[:limit]):
        score = round(0.55 + 0.4 * hits / max(len(terms), 1) - 0.0137 * rank, 4)
        results.append(
            {
                "attributes": {},
                "file_id": POLICY_FILE_ID,
                "filename": POLICY_FILENAME,
                "score": score,
                "text": chunk.text,
            }
        )
    return results


def wants_file_search(message: str, deposited_texts: list[str]) -> bool:
    """The documented ``tool_choice: "auto"`` rule for file_search (see module doc)."""
    terms = set(words(message))
    deposited = set()
    for text in deposited_texts:
        deposited.update(words(text))
    return any(term in terms and term not in deposited for term in INDEX_TERMS)


def wants_web_search(message: str) -> bool:
    terms = set(words(message))
    return any(term in terms for term in WEB_TERMS)


@cache
def _replies() -> list[dict[str, Any]]:
    raw = resources.files("traceview.sim").joinpath("data/replies.json").read_text("utf-8")
    replies: list[dict[str, Any]] = json.loads(raw)["replies"]
    return replies


def reply_for(message: str) -> str:
    """The canned reply whose keywords all occur in the message; a generic one otherwise."""
    present = set(words(message))
    for entry in _replies():
        if all(k in present for k in entry["keywords"]):
            return str(entry["text"])
    first = " ".join(message.split()[:12])
    return (
        f"Thanks, I have noted that: \u201c{first}\u201d. This is the traceview simulator, "
        "so the answer is canned, but the token accounting is what the provider would bill."
    )


WEB_SOURCES = (
    "https://www.gov.uk/government/organisations/financial-ombudsman-service",
    "https://www.financial-ombudsman.org.uk/consumers/complaints-can-help/insurance",
    "https://www.citizensadvice.org.uk/consumer/insurance/insurance-claims/",
)
