"""The shapes of a secret, and the masker that finds them in a text.

Each rule of `_PATTERNS` is a secret's shape: an OpenAI-style key (`sk-…`, `sess-…`,
`rk-…`), a secret-named field and its value (`api_key=…`, `"password": "…"`,
`Authorization: Bearer …`), a bearer token, a query-string secret (`?sig=…`), a URL's
password, a JWT, a Google, AWS or GitHub key. `mask` replaces each match's value with
`MASK`, keeping the name before it.

A few rules would read a long run of word characters once from every place in it (a regex
search tries each): "a_a_a_…" beside "secret", "ask-ask-…", "a.a.a…://", "eyJeyJ…". Their
matches are found once per run instead (`_Keep2`, `_Url`, `_Jwt`, `_Schemes`, `_inside`),
so the masker is linear in its text: a capture line, a provider reply or a file name cannot
stall the recorder, a report or the inspector.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "[redacted]"

_VALUE = r"(?!\[redacted\])[^\s\"'`,;&<>(){}\[\]\\]"
_NAMES = (r"api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|id[_-]?token|"
          r"auth[_-]?token|session[_-]?token|client[_-]?secret|secret[_-]?key|"
          r"subscription[_-]?key|private[_-]?key|password|passwd|authorization|secret|cookie")
# Between name and value: whitespace, raw or escaped once or more (JSON of JSON, or of a
# repr: "\\t", "\\\\t", "\\u0020", "\\xa0"). Seven backslashes at most: three levels of
# escaping (a run of them after a name is then not searched in quadratic time).
_SPACE = r"(?:\s|\\{1,7}(?:[tnrfb]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}))"
_GAP = _SPACE + "*"
# An auth scheme before the value, spaced like a gap: "Bearer\\tX" as JSON writes a tab.
_SCHEME = rf"(?i:bearer|basic|token|digest){_SPACE}+"
# A name and its ":" or "=" where a value would begin: "Bearer\\napi_key: <secret>" (a log
# line quoted with its escapes) is a scheme word, then a name whose value is the secret. The
# scheme must not take the name as its token: the match would end on the name and leave the
# secret after it in clear.
_NAME_VALUE = rf"(?i:[a-z0-9_\-]*(?:{_NAMES}))(?:\\{{0,7}}[\"'])?{_GAP}[:=]"
# The characters a name's run is made of, as "(?i:[a-z0-9_\-])" reads them: IGNORECASE
# also takes "İ", "ı", "ſ" and the Kelvin sign "K" for ASCII letters.
_RUN = "A-Za-z0-9_\\-\u0130\u0131\u017f\u212a"
# A name match (keep3, _NAME_START's first rule) starts where its run starts: the name is
# "[a-z0-9_\-]*" then a name, so any match starting later in the run (after a "_" or "-")
# is also a match from the run's start, found first. Letting it start after every "_" or
# "-" as well (the old "(?<![A-Za-z0-9])") cost a scan to the run's end at each of them:
# "a_a_a_…" beside "secret" was quadratic. The one place the old rule found more is a
# search that begins inside a run: `_inside` covers it.
_RUN_START = rf"(?<![{_RUN}])"
_INSIDE_START = r"(?<![A-Za-z0-9])"  # the old rule: also after a "_" or "-" inside a run


def _keep3(start: str) -> str:
    """The name rule, its name starting where ``start`` (a lookbehind) allows."""
    return (
        # NAME=value / "name": "value" / Name: [Bearer|Basic] value, incl. OPENAI_API_KEY=,
        # AZURE_OPENAI_API_KEY=, api-key: <hex>, Ocp-Apim-Subscription-Key: <hex>.
        # Between name and value: whitespace, raw or as JSON writes it (\t, \n, \u00a0 …).
        # Quotes escaped once or more: '"api_key": "…"' quoted in a string is \\\" in JSON.
        # A backslash is taken only with the quote it escapes: alone, it may begin "\n", and
        # the mask after it would leave "\[" (invalid JSON) where masked text is masked again.
        rf"(?P<keep3>{start}(?i:[a-z0-9_\-]*(?:{_NAMES}))(?:\\{{0,7}}[\"'])?{_GAP}[:=]"
        rf"{_GAP}(?:\\{{0,7}}[\"'])?"
        # Not the scheme itself before a masked value: "Bearer [redacted]" masked again would
        # read "[redacted] [redacted]" (the mask of a mask must be the mask).
        rf"(?:{_SCHEME}(?!{_NAME_VALUE}))?)(?!{_SCHEME}\[redacted\]){_VALUE}{{6,}}")


def _any_case(*words: str) -> list[str]:
    """Alternatives matching `words` (lower-case) in any ASCII case: a key's prefix, which
    a model may echo upper-cased ("SK-PROJ-…") or a log re-case ("Sk-…"); its letters are
    the key's all the same.

    Each alternative starts with a plain literal, the first letter in one case, the rest
    "(?ai:…)": sre passes over an alternative whose first literal differs without
    entering it, but enters one led by a class or an IGNORECASE literal wherever it is
    tried. ASCII letters only ("a"): IGNORECASE alone also takes "ſ" for "s" and the
    Kelvin sign for "k", which the redactor's pre-check (lower-cased text) does not read
    as "s" and "k": the pattern would mask text its pre-check passed over."""
    firsts = dict.fromkeys(w[0] for w in words)
    return [f"{c}(?ai:{'|'.join(w[1:] for w in words if w[0] == f)})"
            for f in firsts for c in (f, f.upper())]


# Where a key may start: not inside a word, or right after a JSON escape of a control
# character (raw JSON text writes a line feed before a quoted key as \n, and its "n"
# would otherwise read as the word the key is glued to).
_KEY_START = r"(?:(?<![A-Za-z0-9])|(?<=\\[nrtbf]))"
_SK = "(?ai:sk)-"  # matched where `_Keep2` found it, not searched for by the patterns
_OPENAI = "(?:" + "|".join(_any_case("sk", "sess", "rk")) + ")-"
# A session key glued to a word, one alternative per case of its first letter (see above).
_SESS_GLUED = "".join(rf"|{sess}-[A-Za-z0-9]{{40}}(?![A-Za-z0-9_\-])"
                      for sess in _any_case("sess"))
# OpenAI-style keys inside a word when long and mixed like a real key (see _Keep2).
_KEEP2 = (rf"|(?P<keep2>{_SK})(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])"
          r"[A-Za-z0-9_\-]{20,}")
_BODY = re.compile(r"[A-Za-z0-9_\-]*+")
_DIGIT = re.compile("[0-9]")
_SCHEME_RUN = re.compile(r"[a-zA-Z0-9+.\-]*+")
_SCHEME_START = re.compile(r"\b[a-zA-Z]")
_RUN_TO_END = re.compile(r"(?<![a-zA-Z0-9+.\-])[a-zA-Z0-9+.\-]*+\Z")
_LETTER = re.compile("[A-Za-z]")
_URL = r"\b[a-zA-Z][a-zA-Z0-9+.\-]*+://"  # possessive: ":" ends the run, never inside it
_KEEP6 = rf"(?P<keep6>{_URL}[^\s/:@\"'\\]+:)[^\s/@\"'\\]{{3,}}(?=@)"
_JWT = r"eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}"


def _run_end(run: re.Pattern[str], text: str, pos: int, endpos: int | None = None) -> int:
    """Where a run (a pattern that matches anywhere, maybe empty) from `pos` ends."""
    m = run.match(text, pos, len(text) if endpos is None else endpos)
    return pos if m is None else m.end()


def _patterns(url: bool, jwt: bool, keep2: bool = True) -> re.Pattern[str]:
    """The secret shapes; without the URL rule (keep6) when the text has no "://", and
    without the JWT rule when it has no ".eyJ": neither can match there, and each scans
    its run from every start ("a.a.a…" or "eyJeyJ…" beside a hint was quadratic).
    Without keep2, for searches: `_Keep2` finds its matches (see there)."""
    return re.compile(
        # OpenAI-style keys (sk-, sk-proj-, sk-svcacct-, sk-admin-, sk-ant-…, sess-, rk-):
        # at a word start or after "_", or inside a word when long and mixed like a key.
        rf"(?P<keep>{_KEY_START}{_OPENAI})[A-Za-z0-9_\-]{{8,}}"
        + (_KEEP2 if keep2 else "") +
        # NAME=value / "name": "value" / Name: [Bearer|Basic] value (see _keep3).
        "|" + _keep3(_RUN_START) +
        # Bearer <anything>
        rf"|(?P<keep4>\b(?i:bearer){_SPACE}+)(?!{_NAME_VALUE}){_VALUE}{{6,}}"
        # Query strings: ?key= &api_key= &access_token= …
        r"|(?P<keep5>[?&;](?i:key|api[_-]?key|apikey|access[_-]?token|token|auth|sig|"
        r"signature|client[_-]?secret|password|secret|code)=)(?!\[redacted\])"
        r"[^&\s\"'#<>\\]{4,}"
        # https://user:password@host
        + ("|" + _KEEP6 if url else "")
        # JWTs, Google API keys, AWS access key ids, GitHub tokens: masked whole.
        + ("|" + _JWT if jwt else "")
        + r"|AIza[0-9A-Za-z_\-]{30,}"
        # A known prefix followed by its exact body is a key wherever it sits, also glued
        # to the end of a word ("fooghp_…", "XAKIA…"): the body's length and the character
        # after it tell it from a word, which no boundary before the prefix could.
        r"|(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])"
        r"|(?<![A-Za-z0-9])(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"
        r"|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}(?![A-Za-z0-9_])"
        r"|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![A-Za-z0-9_])"
        + _SESS_GLUED)


_PATTERNS = _patterns(True, True)
_BY_SHAPE = {(url, jwt, k2): _patterns(url, jwt, k2)
             for url in (False, True) for jwt in (False, True) for k2 in (False, True)}
_KEEP2_ONLY = re.compile(_KEEP2[1:])
_SK_FIND = re.compile(_SK)
_KEEP6_ONLY = re.compile(_KEEP6)
_JWT_ONLY = re.compile(_JWT)


def _patterns_for(text: str, keep2: bool = True) -> re.Pattern[str]:
    """_PATTERNS, less the rules that cannot match `text` (see _patterns)."""
    return _BY_SHAPE["://" in text, ".eyJ" in text, keep2]


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


# Where a secret's name (or "Bearer ", a query key, a URL's user) may begin inside another
# secret's value: a value may hold "?", "=", "/" and ":", so "api-key: X?a=api-key: Y" is
# one match whose value ends at the second name's ":" and Y would stay in clear.
# `mask` stops the first value where a match of _PATTERNS begins that runs past it.
# Its name rule starts where a run starts, like keep3's (see _RUN_START).
_NAME_RULE = rf"(?i:[a-z0-9_\-]*(?:{_NAMES}))"
_NAME_START = re.compile(
    rf"{_RUN_START}{_NAME_RULE}|\b(?i:bearer)(?:\s|\\)|[?&;]|{_URL}")
_NAME_START_NO_URL = re.compile(rf"{_RUN_START}{_NAME_RULE}|\b(?i:bearer)(?:\s|\\)|[?&;]")
# The old rules, tried at one place only: the first place inside a run where they let a
# name start, when a search begins inside that run (`_inside`).
_NAME_INSIDE = re.compile(_INSIDE_START + _NAME_RULE)
_KEEP3_INSIDE = re.compile(_keep3(_INSIDE_START))
_RUN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
                       "\u0130\u0131\u017f\u212a")
# From inside a run, to just after its next "_", "-" (or "İ", "ı", "ſ", "K", which are no
# [A-Za-z0-9] either): the first place the old rules let a name start.
_TO_INSIDE = re.compile("[A-Za-z0-9]*+[_\\-\u0130\u0131\u017f\u212a]")
_RUN_SPAN = re.compile(f"[{_RUN}]*+")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

_KEEPS = ("keep", "keep2", "keep3", "keep4", "keep5", "keep6")
_TRIES = 8  # matches tried per value, from its end (see _value_end)


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


_ORDER = {"keep": 0, "keep2": 1, "keep3": 2, "keep4": 3, "keep5": 4, "keep6": 5, None: 7}


def _first(m: re.Match[str] | None, found: _Found | None, order: int) -> Any:
    """The earlier of two matches; at one place, the rule that comes first in _PATTERNS
    (`order` is `found`'s; `m` is from the search, which has neither keep6 nor JWT)."""
    if found is None:
        return m
    if m is None or found.start() < m.start() or (
            found.start() == m.start() and order < _ORDER[m.lastgroup]):
        return found
    return m


def _value_end(text: str, vstart: int, end: int,
               pats: re.Pattern[str] = _PATTERNS) -> int:
    """Where the value text[vstart:end] must stop: at the start of a match of _PATTERNS
    that runs past `end` (the next secret's name is in the value, its value after it).

    Such a match either has its name at the value's very end (whitespace, a quote or a
    backslash ended the value and begins that match's gap) or is a query key or URL user
    whose value takes the character that ended this one (",", "(" …): both are among the
    last names in the value. So names are tried from the end, a few at most: a value of
    many names costs a few short matches, not one match to its end per name."""
    starts = _name_starts(text, vstart, end + 1, text.find("://", vstart, end + 1) >= 0)
    tried = 0
    for c in reversed(starts):  # "Bearer" and one space may end at end + 1
        if c >= end:
            continue
        inner = _match_at(text, c, pats)
        if inner is None:
            continue
        if inner.end() > end:
            return c
        tried += 1
        if tried == _TRIES:
            break
    return end


def mask(text: str) -> str:
    """_PATTERNS.sub, except that a value ends where another secret's match begins and
    runs past it (see _NAME_START): that match is then masked in turn."""
    pats = _patterns_for(text)
    search = _BY_SHAPE[False, False, False].search  # the rest is found per run:
    keep2 = _Keep2(text) if "k-" in text or "K-" in text else None  # "sk-" in any case
    url = _Url(text) if "://" in text else None
    jwt = _Jwt(text) if ".eyJ" in text else None
    m = _first(search(text), url.first(0) if url else None, 5)
    m = _first(m, jwt.first(0) if jwt else None, 6)
    if keep2 is not None:
        m = _with_keep2(text, m, keep2.start(0))
    if m is None:
        return text
    out: list[str] = []
    pos = 0
    dead = -1  # where _KEEP3_INSIDE last failed (see _inside)
    while m is not None:
        start, end = m.span()
        keep = m.group(m.lastgroup) if m.lastgroup in _KEEPS else ""
        vstart = start + len(keep)
        if keep and m.lastgroup not in ("keep", "keep2"):
            end = _value_end(text, vstart, end, pats)
        out += (text[pos:start], keep, MASK)
        pos = end
        m = search(text, end)
        if url is not None:
            m = _first(m, url.first(end), 5)
        if jwt is not None:
            m = _first(m, jwt.first(end), 6)
        if keep2 is not None:
            m = _with_keep2(text, m, keep2.start(end))
        if end and text[end - 1] in _RUN_CHARS:
            m, dead = _inside(text, end, m, dead)
    out.append(text[pos:])
    return "".join(out)


def _with_keep2(text: str, m: re.Match[str] | None, at: int) -> re.Match[str] | None:
    """The first match of all the rules, given `m`, the first of all but keep2, and `at`,
    where keep2 first matches (-1: nowhere): keep2 comes second, after keep only."""
    if at < 0 or (m is not None and (m.start() < at or (
            m.start() == at and m.lastgroup == "keep"))):
        return m
    return _KEEP2_ONLY.match(text, at) or m  # (it matches there: `_Keep2` checked)


def _inside(text: str, pos: int, m: re.Match[str] | None,
            dead: int) -> tuple[re.Match[str] | None, int]:
    """The match a search from `pos` finds under the old name rule, given `m`, the one it
    finds under the run-start rule (_RUN_START), when `pos` is inside a run (a match
    before it ended there, an AWS key glued to a word or a value cut at a name).

    The rules differ at one place only: the first place in the run at or after `pos` just
    after a "_" or "-", where the old rule lets a name start (further on in the run, a
    name would also match from there). `dead` is where _KEEP3_INSIDE last failed: it then
    fails at every later place in the same run, which is not searched again (a run of
    glued keys costs one search of the run, not one per key). Returns the match and the
    new `dead`."""
    limit = len(text) if m is None else m.start()
    t = _TO_INSIDE.match(text, pos - 1, limit)
    if t is None:
        return m, dead
    p0 = t.end()
    if m is not None and m.start() == p0 and m.lastgroup in ("keep", "keep2"):
        return m, dead  # the old rule tried these first too
    if 0 <= dead <= p0 and _run_end(_RUN_SPAN, text, dead, p0) == p0:
        return m, p0
    inner = _KEEP3_INSIDE.match(text, p0)
    return (m, p0) if inner is None else (inner, dead)


def _name_starts(text: str, pos: int, endpos: int, url: bool = True) -> list[int]:
    """The starts of _NAME_START's matches in text[pos:endpos] under the old name rule:
    inside a run at `pos`, its first place after a "_" or "-" (see _inside) may hold one
    more; before it there are none (each place is preceded by a letter or digit)."""
    starts: list[int] = []
    if pos and text[pos - 1] in _RUN_CHARS:
        t = _TO_INSIDE.match(text, pos - 1, endpos)
        if t is not None:
            name = _NAME_INSIDE.match(text, t.end(), endpos)
            if name is not None:
                starts.append(name.start())
                pos = name.end()
    search = _NAME_START_NO_URL.search
    if not url:  # no "://", no URL to find
        starts += [c.start() for c in _NAME_START_NO_URL.finditer(text, pos, endpos)]
        return starts
    # The URL rule's starts (`_Schemes`) merged in: a scan tried it from every word start
    # of a run, reading to the run's end ("a.a.a…/x://" in a value was quadratic).
    schemes = _Schemes(text, pos, endpos)
    m = search(text, pos, endpos)
    while True:
        if m is not None and m.start() < pos:
            m = search(text, pos, endpos)
        p = schemes.first(pos)
        if m is not None and (p < 0 or m.start() <= p):  # the URL rule comes last
            starts.append(m.start())
            pos = m.end()
        elif p >= 0:
            starts.append(p)
            pos = schemes.k + 3
        else:
            return starts


def _match_at(text: str, c: int,
              pats: re.Pattern[str] = _PATTERNS) -> re.Match[str] | None:
    """_PATTERNS.match under the old name rule, which also starts a name just after a
    "_" or "-" inside a run (see _inside)."""
    m = pats.match(text, c)
    if (c and text[c - 1] in _RUN_CHARS and text[c - 1] not in _ALNUM
            and (m is None or m.lastgroup not in ("keep", "keep2"))):
        inner = _KEEP3_INSIDE.match(text, c)
        if inner is not None:
            return inner
    return m

