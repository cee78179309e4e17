"""Arm A's client-side retriever: the documents arm B uploads, searched locally.

Deliberately small and documented, so the comparison is about *where* retrieval runs,
not about a better index: documents are cut into windows of ``WINDOW`` words every
``STRIDE`` words; a query's content words (four letters or more, not stop words) score
a window by how many distinct ones it contains; the top ``k`` windows with at least
``min_hits`` are returned. A turn's retrieved passages are kept in arm A's transcript
and resent on later turns, as arm B's hosted results stay in its stored conversation:
the comparison is about where state lives, not about which state is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

WINDOW, STRIDE = 160, 80
_WORD = re.compile(r"[a-z0-9£']+")
_STOP = frozenset("""about above after again also because been before being both could
does doing from have having here into just like more most much need only other over please
same should some such than that their them then there these they this those through under
until very were what when where which while whom with would your yours want tell know""".split())


def terms(text: str) -> set[str]:
    return {w.strip("'") for w in _WORD.findall(text.lower())
            if len(w.strip("'")) >= 4 and w.strip("'") not in _STOP}


@dataclass(frozen=True)
class Passage:
    source: str
    text: str
    words: frozenset[str]


class Retriever:
    def __init__(self, documents: dict[str, str], k: int = 3, min_hits: int = 2) -> None:
        self.k, self.min_hits = k, min_hits
        self.passages: list[Passage] = []
        for name, text in documents.items():
            words = text.split()
            for start in range(0, max(len(words) - WINDOW, 0) + 1, STRIDE):
                chunk = " ".join(words[start:start + WINDOW])
                self.passages.append(Passage(name, chunk, frozenset(terms(chunk))))

    @classmethod
    def from_paths(cls, paths: list[Path], **kw: int) -> Retriever:
        return cls({p.name: p.read_text("utf-8", errors="replace") for p in paths}, **kw)

    def search(self, query: str) -> list[Passage]:
        wanted = terms(query)
        if not wanted:
            return []
        scored = [(len(wanted & p.words), i) for i, p in enumerate(self.passages)]
        scored = [s for s in scored if s[0] >= self.min_hits]
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [self.passages[i] for _, i in scored[: self.k]]
