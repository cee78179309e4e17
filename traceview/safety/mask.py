"""The masker: each secret's value replaced with `MASK`, the name before it kept.

`mask` is `_PATTERNS.sub` (shapes.py) with two differences. A value ends where another
secret's match begins and runs past it (a value may hold "?", "=", "/" and ":", so
"api-key: X?a=api-key: Y" would otherwise be one match, Y in clear). And the rules that
would re-read a run from every place are found once per run (runs.py), so the masker is
linear in its text: a capture line, a provider reply or a file name cannot stall the
recorder, a report or the inspector.
"""

from __future__ import annotations

import re
from typing import Any

from traceview.safety import MASK
from traceview.safety.runs import _Found, _Jwt, _Keep2, _Schemes, _Url
from traceview.safety.shapes import (
    _ALNUM,
    _BY_SHAPE,
    _KEEP2_ONLY,
    _KEEP3_INSIDE,
    _NAME_INSIDE,
    _NAME_START_NO_URL,
    _PATTERNS,
    _RUN,
    _RUN_CHARS,
    _RUN_SPAN,
    _TO_INSIDE,
    _patterns_for,
    _run_end,
)

_KEEPS = ("keep", "keep2", "keep3", "keep4", "keep5", "keep6")
_TRIES = 8  # matches tried per value, from its end (see _value_end)


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
    spans = mask_spans(text)
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out += (text[pos:start], MASK)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def mask_spans(text: str) -> list[tuple[int, int]]:
    """Where `mask` puts its masks: the (start, end) of each secret's value, in order and
    apart. A stream's text deltas are masked through these: the spans of their join,
    cut back onto the deltas, so no key split across deltas can be read by joining them."""
    pats = _patterns_for(text)
    search = _BY_SHAPE[False, False, False].search  # the rest is found per run:
    keep2 = _Keep2(text) if "k-" in text or "K-" in text else None  # "sk-" in any case
    url = _Url(text) if "://" in text else None
    jwt = _Jwt(text) if ".eyJ" in text else None
    m = _first(search(text), url.first(0) if url else None, 5)
    m = _first(m, jwt.first(0) if jwt else None, 6)
    if keep2 is not None:
        m = _with_keep2(text, m, keep2.start(0))
    spans: list[tuple[int, int]] = []
    dead = -1  # where _KEEP3_INSIDE last failed (see _inside)
    while m is not None:
        start, end = m.span()
        keep = m.group(m.lastgroup) if m.lastgroup in _KEEPS else ""
        vstart = start + len(keep)
        if m.lastgroup == "keep3" and _names_a_file(text, start, keep):
            end = vstart  # "/etc/passwd: neither …": the words after it are searched anew
        else:
            if keep and m.lastgroup not in ("keep", "keep2"):
                end = _value_end(text, vstart, end, pats)
            spans.append((vstart, end))
        m = search(text, end)
        if url is not None:
            m = _first(m, url.first(end), 5)
        if jwt is not None:
            m = _first(m, jwt.first(end), 6)
        if keep2 is not None:
            m = _with_keep2(text, m, keep2.start(end))
        if end and text[end - 1] in _RUN_CHARS:
            m, dead = _inside(text, end, m, dead)
    return spans


# A message about a file: its path, ":" and a space ("/etc/passwd: neither a snapshot …").
_FILE_MESSAGE = re.compile(rf"[{_RUN}]+:[ \t]+")
_PATH_TOKEN = re.compile(r"(?:~|\.{1,2})?/[^\s\"'`:]*/?")
# A message's first word with a digit and a letter in 8 or more word characters reads as
# the file's content (a key), not prose: masked as before.
_KEY_LIKE = re.compile(r"(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{8}")
_PATH_REACH = 4096  # the farthest back a path's start is looked for
_WORD_ENDS = frozenset(" \t\n\r\"'`(=")


def _names_a_file(text: str, start: int, keep: str) -> bool:
    """True when a secret's name at `start` is the last part of a file's path written as
    ``PATH: message``: the path names a file, the message is prose, not the name's
    value. The path is the whole word, from its "/", "./", "../" or "~/" at the word's
    start; "user/password: …" (not a path), "api_key=…" (no message) and a path
    followed by a key-like word are still secrets."""
    if (not start or text[start - 1] != "/" or _FILE_MESSAGE.fullmatch(keep) is None
            or _KEY_LIKE.match(text, start + len(keep))):
        return False
    lo, word = max(0, start - _PATH_REACH), start - 1
    while word > lo and text[word - 1] not in _WORD_ENDS:  # linear over all matches: the
        word -= 1  # scans stop at the space each earlier such match ends with
    if word and text[word - 1] not in _WORD_ENDS:
        return False  # a word longer than a path is looked for: not taken for one
    return _PATH_TOKEN.fullmatch(text, word, start) is not None


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
