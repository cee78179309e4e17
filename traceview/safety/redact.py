"""Mask secrets before anything from a capture is shown, exported or written.

Captures written by other tools may hold API keys: a header someone logged into a body,
a prompt that quotes a config file, an error that echoes the key, a query string with
``?api_key=``. Values under secret-named keys are masked whole; key-shaped strings are
masked wherever they occur (also inside words and after ``_``); and the exact keys this
process knows (the one in use, from the environment or registered by a command with
:func:`add_secret`) are masked wherever they appear, whatever their shape.

This is the one redactor: the recorder, every report, the inspector (through
``traceview.safety.sanitise.visible``), snapshots and stderr all use it.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

MASK = "[redacted]"

# Field names whose (non-empty) value is a secret, compared lower-case with "-" as "_".
SECRET_KEYS = {
    "authorization", "proxy_authorization", "api_key", "apikey", "x_api_key",
    "openai_api_key", "azure_openai_api_key", "ocp_apim_subscription_key", "x_goog_api_key",
    "access_token", "refresh_token", "id_token", "auth_token", "session_token", "password",
    "passwd", "client_secret", "secret", "secret_key", "private_key", "cookie", "set_cookie",
    "subscription_key",
}

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
# "a_a_a_…" beside "secret" was quadratic (16 kB took 11 s). The one place the old rule
# found more is a search that begins inside a run: `_keep3_inside` covers it.
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
    tried: at every place, for a rule with no lookbehind (callgrind, the masker's search
    over capture lines: +3.4 % instructions led so, +0.5 % led by a literal). ASCII
    letters only ("a"): IGNORECASE alone also takes "ſ" for "s" and the Kelvin sign for
    "k", which the pre-checks (`_maybe_secret` lower-cases, `_hinted_lines` folds ASCII)
    do not read as "s" and "k": the pattern would mask text its pre-check passed over."""
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
    was quadratic (64 kB took 6 s). But it matches from an "sk-" only if it matches from
    every earlier "sk-" of the same run (the body from there holds the body from here),
    and its body runs to the run's end: so each run is read once, from its first "sk-"
    at or after the search, and a run where that fails is done with. "sk-" in any case
    (_SK): "SK-", "Sk-", "sK-" too."""

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
                self.run_end = _BODY.match(text, at).end()
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
# `_mask` stops the first value where a match of _PATTERNS begins that runs past it.
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
# Cheap pre-check in C (substring tests on the lower-cased text; a regex alternation costs
# ~100 ns a character): text holding none of these cannot match any pattern.
_LITERALS = ("sk-", "sess-", "rk-", "eyj", "aiza", "akia", "asia", "ghp_", "gho_", "ghu_",
             "ghs_", "ghr_", "github_pat", "://", "bearer", "secret", "passw", "authoriz",
             "cookie", "key=", "key:", "key\"", "key'", "key =", "key :", "token=", "token:",
             "token\"", "token'", "token =", "token :", "key\\", "token\\")


# "key" / "token" before ":" or "=" across more whitespace than the literals spell ("key  =",
# "token\t:", or as JSON writes it, "key\\t="): the literals cover none or one space.
_SPACED = re.compile(
    r"(?:key|token)(?:\s|\\{1,7}(?:[tnrfb]|x[0-9a-f]{2}|u[0-9a-f]{4}|u[0-9a-f]{8}))+[:=]")


def _class(chars: bytes, table: bytes | None = None) -> bytes:
    """A regex class of ``chars``, or of their images through ``table`` (bytes.translate)."""
    if table is not None:
        chars = chars.translate(table)
    return b"[" + b"".join(re.escape(bytes([c])) for c in sorted(set(chars))) + b"]"


def _spaced_gap(table: bytes | None = None) -> bytes:
    """_SPACED's gap and separator, as found in lower-cased JSON, where a byte over 0x7f
    (a non-ASCII space's UTF-8) may stand between name and separator too. A run of such
    bytes is taken whole (possessive): cut into 2–4-byte pieces, "token" before a line of
    CJK text was tried every way (exponential: 20 characters took seconds). With ``table``,
    every byte class as that table translates it: the gap as it reads in text translated
    so (`_hinted_lines` scans folded text), a class per byte so that nothing is missed."""
    def c(chars: bytes) -> bytes:
        return _class(chars, table)
    digit = c(b"0123456789abcdef")
    return (b"(?:" + c(b" \t\n\r\x0b\x0c") + b"|" + c(b"\\") + b"{1,7}(?:" + c(b"tnrfb")
            + b"|" + c(b"x") + digit + b"{2}|" + c(b"u") + digit + b"{4}|" + c(b"u") + digit
            + b"{8})|" + c(bytes(range(0x80, 0x100))) + b"{2,}+)+" + c(b":="))


_SPACED_GAP_B = _spaced_gap()
_SPACED_B = re.compile(rb"(?:key|token)" + _SPACED_GAP_B)  # as found in lower-cased JSON


# A query-string secret ("?auth=", "&sig=", ";code="): the query rule's own prefix, not
# any "=" beside a "?", "&" or ";" (an explanation's "include=[…]" and "cached;" sent 40 %
# of a report's notes through the full patterns).
_QUERY = re.compile(r"[?&;](?:key|api[_-]?key|apikey|access[_-]?token|token|auth|sig|"
                    r"signature|client[_-]?secret|password|secret|code)=")


def _literal_groups() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """_LITERALS grouped by a piece each holds (the anchors of `_hinted_lines`, below):
    text without the piece holds none of the group, so one substring test rules out a
    group, and the literals are tested only in the groups whose piece is there."""
    groups: dict[str, list[str]] = {}
    for lit in _LITERALS:
        anchor = next((a for a in ("=", "\\", "'", "j", "z", "/", "-", "gh", "key", "token",
                                   "ia") if a in lit), lit)
        groups.setdefault(anchor, []).append(lit)
    return tuple((a, tuple(lits)) for a, lits in groups.items())


_LITERAL_GROUPS = _literal_groups()


def _maybe_secret(text: str) -> bool:
    """Whether `text` holds any of _LITERALS (lower-cased), "key"/"token" spaced from a
    ":" or "=", or a query-string secret's prefix: if not, no pattern can match it."""
    low = text.lower()
    for anchor, lits in _LITERAL_GROUPS:
        if anchor in low:
            for lit in lits:
                if lit in low:
                    return True
    if ("key" in low or "token" in low) and _SPACED.search(low):
        return True
    return "=" in low and _QUERY.search(low) is not None


_known: set[str] = set()
_known_sorted: list[str] = []
_lock = threading.Lock()
MIN_SECRET_LENGTH = 8  # shorter values would mangle ordinary text
ENV_KEYS = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "OPENAI_ADMIN_KEY")


def add_secret(value: str | None) -> None:
    """Mask this exact value wherever it appears from now on (the key a command uses)."""
    if not value:
        return
    value = value.strip()
    if value.lower().startswith("bearer "):
        value = value[7:].strip()
    if len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value not in _known:
            _known.add(value)
            _known_sorted[:] = sorted(_known, key=len, reverse=True)


for _name in ENV_KEYS:  # the keys in use are known before any command runs
    add_secret(os.environ.get(_name))


def redact_text(text: str) -> str:
    """The text with every key-shaped substring and every known key masked."""
    if len(text) < MIN_SECRET_LENGTH:  # too short to hold any shape or known key
        return text
    for secret in _known_sorted:
        if secret in text:
            text = text.replace(secret, MASK)
    if not _maybe_secret(text):
        return text
    return _mask(text)


_KEEPS = ("keep", "keep2", "keep3", "keep4", "keep5", "keep6")
_TRIES = 8  # matches tried per value, from its end (see _value_end)


class _Found:
    """A match found by `_Url` or `_Jwt`, read as `_mask` reads a re.Match."""

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
                self.r = k - (_SCHEME_RUN.match(self.rev, n - k).end() - (n - k))
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
                self.run_end = _BODY.match(text, at).end()
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


def _mask(text: str) -> str:
    """_PATTERNS.sub, except that a value ends where another secret's match begins and
    runs past it (see _NAME_START): that match is then masked in turn."""
    pats = _patterns_for(text)
    search = _BY_SHAPE[False, False, False].search  # the rest is found per run:
    keep2 = _Keep2(text) if "k-" in text or "K-" in text else None  # "sk-" in any case
    url = _Url(text) if "://" in text else None
    jwt = _Jwt(text) if ".eyJ" in text else None
    m = _first(_first(search(text), url and url.first(0), 5), jwt and jwt.first(0), 6)
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
    if 0 <= dead <= p0 and _RUN_SPAN.match(text, dead, p0).end() == p0:
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


_LITERALS_B = tuple(lit.encode() for lit in _LITERALS if lit != 'key"')
# traceview's own report fields whose names end in "key": not a hint of a secret.
_OWN_KEYS = (b'"key":', b'"conversation_key":')
_KEY_FIELD = b'key":'  # a field whose name ends in "key", unless it is one of _OWN_KEYS
_STEMS = (b"key", b"token")  # before ":" or "=" across whitespace or escapes (_SPACED_B)
# _SPACED_B as it matches the lower-cased text, matched on the text as it is.
_SPACED_I = re.compile(rb"(?:key|token)" + _SPACED_GAP_B, re.IGNORECASE)

# How `_hinted_lines` finds every literal in about one scan of the chunk, not one per
# literal (a scan per anchor was most of the redaction's time): the chunk is folded with
# one `bytes.translate` (ASCII lower-cased, as bytes.lower() does, and each byte of
# _ANCHOR_BYTES, in either case, made 0) and one regex led by a literal 0 finds, in the
# folded bytes, every literal as folded: sre runs through the bytes between 0s in a tight
# C loop and tries the alternatives only at a 0. The anchors are the rarest byte of most
# literals ("k" of "token", "-" of "sk-", "j" of "eyj", the "=" of "key=" …). Folding
# is a function of each byte, so a literal in the lower-cased text is its folded form in
# the folded text, at the same offset: the regex finds every line the literals do, and
# some more (two anchors fold alike: "s--" reads as "sk-"). Each line it finds is then
# checked, literal by literal, in its lower-cased bytes (`_line_hinted`): the selection
# is exactly the literal-by-literal one. Literals with no anchor byte ("secret", "asia")
# get a scan each.
_ANCHOR_BYTES = b"kbwgjz-/'\\="


def _fold_table() -> bytes:
    table = bytearray(bytes(range(256)).lower())
    for byte in _ANCHOR_BYTES + _ANCHOR_BYTES.upper():
        table[byte] = 0
    return bytes(table)


_FOLD = _fold_table()


def _lookbehind(folded: bytes, negative: bool = False) -> bytes:
    return (b"(?<!" if negative else b"(?<=") + re.escape(folded) + b")"


def _trie(items: list[tuple[bytes, bytes]]) -> list[bytes]:
    """Alternatives matching any of ``items`` (literal bytes, then a regex), the literals
    merged on their first bytes: sre skips an alternative whose first byte differs at once,
    so a 0 followed by a byte that leads no literal costs a handful of tests, not one per
    literal. [b""] when an item matches here with nothing more to check."""
    groups: dict[bytes, list[tuple[bytes, bytes]]] = {}
    tails: set[bytes] = set()
    for lit, tail in items:
        if lit:
            groups.setdefault(lit[:1], []).append((lit[1:], tail))
        else:
            tails.add(tail)
    if b"" in tails:
        return [b""]
    return [re.escape(first) + _group(_trie(rest)) for first, rest in sorted(groups.items())
            ] + sorted(tails)


def _group(alts: list[bytes]) -> bytes:
    return alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"


def _led(lead: int, literals: list[bytes], more: list[tuple[bytes, bytes]]) -> bytes:
    """A regex led by the byte ``lead`` that matches at each occurrence of ``literals``
    (folded, each holding ``lead``) and of ``more`` (bytes after ``lead``, then a regex):
    a literal is found at its first ``lead``, the bytes after it matched, those before it
    checked behind (the lookbehind spells the whole literal). sre runs through the bytes
    between two ``lead`` in a tight C loop: only there does it try the alternatives."""
    items = list(more)
    ends: list[bytes] = []  # literals whose only `lead` is their last byte
    for folded in literals:
        at = folded.find(lead)
        if at == len(folded) - 1:
            ends.append(folded)
        else:
            items.append((folded[at + 1:], _lookbehind(folded) if at else b""))
    alts = _trie(items) if items else []  # one level of alternatives with the ends' test
    if ends:  # one test of the byte before `lead`, then each such literal
        alts.append(b"(?<=" + _class(bytes(f[-2] for f in ends)) + re.escape(bytes([lead]))
                    + b")(?:" + b"|".join(_lookbehind(f) for f in sorted(set(ends))) + b")")
    return re.escape(bytes([lead])) + _group(alts)


def _scans(literals: tuple[bytes, ...] = _LITERALS_B) -> tuple[re.Pattern[bytes], ...]:
    """The regexes `_hinted_lines` runs over the folded chunk: one led by 0 for every
    literal holding an anchor, the field rule and the spaced rule; then, for the literals
    holding none ("secret", "asia"), one led by a byte they share, or one each."""
    folded = [lit.translate(_FOLD) for lit in literals]
    anchored = [f for f in folded if 0 in f]
    bare = sorted({f for f in folded if 0 not in f})
    field = _KEY_FIELD.translate(_FOLD)  # a field ending in "key", unless one of traceview's
    more = [(field[field.find(0) + 1:],
             b"".join(_lookbehind(own.translate(_FOLD), True) for own in _OWN_KEYS))]
    # "key"/"token", then _SPACED_B's gap as folded, led by a test of its first byte (one
    # of these, a backslash folded to 0): "tokens" ends there.
    first = _class(b" \t\n\r\x0b\x0c\\" + bytes(range(0x80, 0x100)), _FOLD)
    gap = b"(?=" + first + b")(?=" + _spaced_gap(_FOLD) + b")"
    for stem in _STEMS:
        f = stem.translate(_FOLD)
        at = f.find(0)
        more.append((f[at + 1:], gap + (_lookbehind(f) if at else b"")))
    scans = [_led(0, anchored, more)]
    shared = set(bare[0]).intersection(*bare[1:]) if bare else set()
    if shared:  # one scan, not one each: any shared byte will do ("s")
        scans.append(_led(min(shared), bare, []))
    else:
        scans += [re.escape(f) for f in bare]
    return tuple(re.compile(scan) for scan in scans)


_SCANS = _scans()


def redact_json(chunk: bytes) -> bytes:
    """Serialised JSON with secrets masked, a line at a time (a report of a million turns
    cannot afford a walk over every value, nor copies of its largest chunk).

    Only the lines that hold a hint of a secret are decoded and searched: the hints are
    found with C scans over the whole chunk, so a large chunk with a single hint costs a
    few passes, not a check per line.

    Safe on JSON text: no pattern's masked part can contain a quote or a backslash, so
    string boundaries and escapes stay intact and the document stays valid.
    """
    starts = _hinted_lines(chunk)
    if not starts:
        return chunk
    out: list[bytes] = []
    pos = 0
    done: dict[bytes, bytes | None] = {}  # a sentence repeated per conversation: search once
    for start in sorted(starts):
        end = chunk.find(b"\n", start)
        end = len(chunk) if end < 0 else end
        line = chunk[start:end]
        if line not in done:
            text = line.decode("utf-8", "surrogatepass")
            masked = redact_text(text)
            done[line] = None if masked is text else masked.encode("utf-8", "surrogatepass")
        if done[line] is not None:
            out += (chunk[pos:start], done[line])
            pos = end
    if not out:
        return chunk
    out.append(chunk[pos:])
    return b"".join(out)


def _line_hinted(chunk: bytes, start: int, end: int) -> bool:
    """Whether the line chunk[start:end] holds a literal of _LITERALS_B (lower-cased), a
    field name ending in "key" other than traceview's own (_OWN_KEYS), or "key"/"token"
    spaced from its ":" or "=" (_SPACED_B: the gap may run on past the line's end)."""
    low = chunk[start:end].lower()
    for lit in _LITERALS_B:
        if lit in low:
            return True
    if low.count(_KEY_FIELD) > sum(low.count(own) for own in _OWN_KEYS):
        return True
    for stem in _STEMS:
        i = low.find(stem)
        while i >= 0:
            if _SPACED_I.match(chunk, start + i):
                return True
            i = low.find(stem, i + 1)
    return False


def _hinted_lines(chunk: bytes) -> set[int]:
    """Start offsets of the lines of ``chunk`` that may hold a secret: those holding a
    literal of _LITERALS_B (lower-cased), a field name ending in "key" other than
    traceview's own (_OWN_KEYS), "key"/"token" spaced from a ":" or "=" (_SPACED_B), or
    an "=" with a "?", "&" or ";" (a query string).

    The folded chunk's scans (_SCANS) name the lines that may; `_line_hinted` decides
    each once; after a line is named, the scan goes on from its end.
    tests/core/test_redact_hints.py compares the lines chosen with a literal-by-literal
    search over reports, hostile payloads and fuzz.
    """
    if _known_sorted:  # a known key can hide in any shape: every line is searched
        starts = {0}
        i = chunk.find(b"\n")
        while i >= 0:
            starts.add(i + 1)
            i = chunk.find(b"\n", i + 1)
        return starts
    folded = chunk.translate(_FOLD)
    find, rfind = chunk.find, chunk.rfind
    starts = set()
    named: set[int] = set()
    for scan in _SCANS:
        search = scan.search
        m = search(folded)
        while m is not None:
            i = m.start()
            start = rfind(b"\n", 0, i) + 1
            end = find(b"\n", i)
            if start not in named:
                named.add(start)
                if _line_hinted(chunk, start, len(chunk) if end < 0 else end):
                    starts.add(start)
            if end < 0:
                break
            m = search(folded, end)
    # The query-string rule: an "=" with a "?", "&" or ";" on its line (no letter in
    # these: the chunk as it is reads as its lower-cased form).
    i = find(b"=")
    while i >= 0:
        start = rfind(b"\n", 0, i) + 1
        end = find(b"\n", i)
        end = len(chunk) if end < 0 else end
        if (find(b"?", start, end) >= 0 or find(b"&", start, end) >= 0
                or find(b";", start, end) >= 0):
            starts.add(start)
        i = find(b"=", end)
    return starts


def is_secret_name(name: str) -> bool:
    return name.lower().replace("-", "_") in SECRET_KEYS


def redact(obj: Any) -> Any:
    """A copy of a JSON value with secret-named fields and key-shaped strings masked.

    Iterative, so a value nested as deep as the parser allows cannot exhaust the stack.
    """
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(obj, root, 0)]
    while stack:
        value, parent, key = stack.pop()
        if isinstance(value, dict):
            new: dict[Any, Any] = {}
            parent[key] = new
            for k, v in value.items():
                name = redact_text(k) if isinstance(k, str) else k
                if isinstance(k, str) and v and is_secret_name(k):
                    new[name] = MASK
                else:
                    new[name] = None
                    stack.append((v, new, name))
        elif isinstance(value, list):
            items: list[Any] = [None] * len(value)
            parent[key] = items
            stack.extend((v, items, i) for i, v in enumerate(value))
        elif isinstance(value, str):
            parent[key] = redact_text(value)
        else:
            parent[key] = value
    return root[0]


_SECRET_KEY_FIELDS = tuple(f'"{name}":' for name in sorted(SECRET_KEYS))


def inert_json(text: str) -> bool:
    """True when the JSON value whose serialised text this is comes out of `redact()`
    unchanged, decided by C substring searches instead of a Python walk of every value.

    With no backslash in the text, every key and string appears in it verbatim, so any
    hint `redact_text` looks for (`_maybe_secret`) and any secret-named field (`"name":`,
    compared as `is_secret_name` compares) would show in the text; a known key may hide
    in any shape, so none may be registered."""
    if _known_sorted or "\\" in text or _maybe_secret(text):
        return False
    low = text.lower().replace("-", "_")
    return not any(field in low for field in _SECRET_KEY_FIELDS)
