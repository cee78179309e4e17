"""The rules that would re-read a run of word characters from every place in it, found
once per run instead.

A regex search tries a rule at every place: where the rule reads to the end of a run
("ask-ask-…" for an "sk-" key inside a word, "a.a.a…://" for a URL's scheme, "eyJeyJ…"
for a JWT), that is quadratic in the run. Each finder here gives the rule's first match at
or after a place, reading each run once, so the masker stays linear on hostile text.
"""

from __future__ import annotations

from traceview.safety.shapes import (
    _BODY,
    _DIGIT,
    _JWT_ONLY,
    _KEEP6_ONLY,
    _LETTER,
    _RUN_TO_END,
    _SCHEME_RUN,
    _SCHEME_START,
    _SK_FIND,
    _run_end,
)


class _Keep2:
    """Where keep2 (an "sk-" key inside a word) matches, for a search from a place on.

    Its lookaheads scan the rest of the run from every "sk-": "ask-ask-…" with no digit
    was quadratic. But it matches from an "sk-" only if it matches from every earlier
    "sk-" of the same run (the body from there holds the body from here), and its body
    runs to the run's end: so each run is read once, from its first "sk-" at or after the
    search, and a run where that fails is done with. "sk-" in any case (_SK): "SK-",
    "Sk-", "sK-" too."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = self._find(0)  # the next "sk-" not yet ruled out
        self.run_end = -1  # the end of the run of `at`, once read
        self.digit = self.letter = -1  # the first digit and letter in the run at or after

    def start(self, pos: int) -> int:
        """The start of keep2's first match at or after `pos`, or -1."""
        text = self.text
        while self.at >= 0:
            if self.at < pos:
                self.at = self._find(pos)
                continue
            at = self.at
            if at >= self.run_end:  # a new run
                self.run_end = _run_end(_BODY, text, at)
                self.digit = self.letter = at
            body, end = at + 3, self.run_end
            if self.digit < body:
                d = _DIGIT.search(text, body, end)
                self.digit = end if d is None else d.start()
            if self.letter < body:
                c = _LETTER.search(text, body, end)
                self.letter = end if c is None else c.start()
            if self.digit < end and self.letter < end and end - body >= 20:
                return at
            self.at = self._find(end)  # so for every later "sk-" of the run
        return -1

    def _find(self, pos: int) -> int:
        """Where the next "sk-", in any case, begins at or after `pos`, or -1."""
        m = _SK_FIND.search(self.text, pos)
        return -1 if m is None else m.start()


class _Found:
    """A match found by `_Url` or `_Jwt`, read as `mask` reads a re.Match."""

    __slots__ = ("_start", "_end", "lastgroup", "_keep")

    def __init__(self, start: int, end: int, lastgroup: str | None, keep: str) -> None:
        self._start, self._end, self.lastgroup, self._keep = start, end, lastgroup, keep

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def span(self) -> tuple[int, int]:
        return self._start, self._end

    def group(self, name: str) -> str:
        return self._keep


class _Url:
    r"""Where keep6 (https://user:password@host) matches, for a search from a place on.

    Its scheme ("[a-zA-Z][a-zA-Z0-9+.\-]*" before "://") may start at any word start of
    the run before "://", and a search tried each, reading to the run's end: "a.a.a…"
    in a text holding "://" was quadratic. It matches from the first such start at or
    after the search, or from none (what follows "://" decides, the same for all): so
    each "://" is read once, its run once (backwards, in the reversed text)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.k = text.find("://")
        self.rev = ""
        self.r = -1  # the start of the run before k, once read
        self.p = -1  # the first scheme start found in it, and from where it was searched
        self.lo = -1
        self.hit: tuple[int, int] | None | bool = None  # (end, keep6's end) / False

    def first(self, pos: int) -> _Found | None:
        text = self.text
        while self.k >= 0:
            k = self.k
            if self.r < 0:
                if not self.rev:
                    self.rev = text[::-1]
                n = len(text)
                self.r = k - (_run_end(_SCHEME_RUN, self.rev, n - k) - (n - k))
                self.hit, self.p, self.lo = None, -1, -1
            lo = max(self.r, pos)
            if not (self.lo <= lo <= self.p):  # else the start found before still holds
                found = _SCHEME_START.search(text, lo, k) if lo < k else None
                self.p, self.lo = (-1, -1) if found is None else (found.start(), lo)
            if self.p >= 0:
                if self.hit is None:
                    m = _KEEP6_ONLY.match(text, self.p)
                    self.hit = False if m is None else (m.end(), m.end("keep6"))
                if self.hit:
                    end, keep_end = self.hit  # type: ignore[misc]
                    return _Found(self.p, end, "keep6", text[self.p:keep_end])
            self.k, self.r = text.find("://", k + 1), -1
        return None


class _Schemes:
    """The starts of _NAME_START's URL rule in text[:endpos], for a scan from a place on:
    like `_Url` (the first word start of the run before each "://", at or after the
    scan), without what follows "://"."""

    def __init__(self, text: str, pos: int, endpos: int) -> None:
        self.text, self.endpos = text, endpos
        self.k = text.find("://", pos, endpos)
        self.floor = pos  # no run before k starts earlier than this ("://" ends runs)
        self.p = self.lo = -1

    def first(self, pos: int) -> int:
        """The first start at or after `pos` (its match ends at self.k + 3), or -1."""
        text = self.text
        while self.k >= 0:
            k = self.k
            lo = max(self.floor, pos)
            if not (self.lo <= lo <= self.p):
                run = _RUN_TO_END.search(text, lo, k) if lo < k else None
                start = lo if run is None else run.start()
                found = _SCHEME_START.search(text, start, k) if start < k else None
                self.p, self.lo = (-1, -1) if found is None else (found.start(), lo)
            if self.p >= 0:
                return self.p
            self.floor = k + 1
            self.k = text.find("://", k + 1, self.endpos)
        return -1


class _Jwt:
    """Where a JWT matches, for a search from a place on: from the first "eyJ" of a run
    at or after the search if from any (the rest is the same from each), so each run is
    read once ("eyJeyJ…" was quadratic)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = text.find("eyJ")
        self.run_end = -1
        self.hit = -1  # the end of the match from the run's first "eyJ", or -1

    def first(self, pos: int) -> _Found | None:
        text = self.text
        while self.at >= 0:
            if self.at < pos:
                self.at = text.find("eyJ", pos)
                continue
            at = self.at
            if at >= self.run_end:
                self.run_end = _run_end(_BODY, text, at)
                m = _JWT_ONLY.match(text, at)
                self.hit = -1 if m is None else m.end()
            if self.hit >= 0 and self.run_end - at - 3 >= 8:
                return _Found(at, self.hit, None, "")
            self.at = text.find("eyJ", self.run_end)
        return None
