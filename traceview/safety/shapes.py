"""The shapes of a secret: one regex rule per shape, and where a secret's name may begin.

Each rule of `_PATTERNS` is a secret's shape: an OpenAI-style key (`sk-…`, `sess-…`,
`rk-…`), a secret-named field and its value (`api_key=…`, `"password": "…"`,
`Authorization: Bearer …`), a bearer token, a query-string secret (`?sig=…`), a URL's
password, a JWT, a Google, AWS or GitHub key. A named group (`keep`, `keep2` … `keep6`)
holds what stays before the mask: the name, its separator, the key's prefix. mask.py
applies them.
"""

from __future__ import annotations

import re

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


# A name that says a key is wrong or absent is an error's code, not a field holding a key:
# "invalid_api_key: Incorrect API key provided" (a provider's 401 as a report writes it)
# must keep "Incorrect".
_NOT_A_FIELD = (r"(?![iImMeErRwWuUbB](?i:nvalid|ncorrect|issing|xpired|evoked|rong|nknown|ad)"
                r"[_\-])")  # a class first: most runs are passed over at their first letter
# Names whose value may follow after whitespace alone, with no ":" or "=": an HTTP header
# dumped as "api-key <hex>" (Azure) or "Ocp-Apim-Subscription-Key <hex>". Without the
# separator only a key-like value counts (16 or more word characters, a digit and a
# letter among them), so prose ("the api key provided") keeps its words.
# (The names of _NAMES ending in "key" are exactly these: api_key, apikey, secret_key,
# subscription_key, private_key.) Part of keep3, so a name's run is read once.
_KEY_GAP = (rf"(?<=[kK][eE][yY]){_SPACE}+"
            r"(?=(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{16})")


def _keep3(start: str) -> str:
    """The name rule, its name starting where ``start`` (a lookbehind) allows."""
    return (
        # NAME=value / "name": "value" / Name: [Bearer|Basic] value, incl. OPENAI_API_KEY=,
        # AZURE_OPENAI_API_KEY=, api-key: <hex>, Ocp-Apim-Subscription-Key: <hex>.
        # Between name and value: whitespace, raw or as JSON writes it (\t, \n, \u00a0 …).
        # Quotes escaped once or more: '"api_key": "…"' quoted in a string is \\\" in JSON.
        # A backslash is taken only with the quote it escapes: alone, it may begin "\n", and
        # the mask after it would leave "\[" (invalid JSON) where masked text is masked again.
        rf"(?P<keep3>{start}{_NOT_A_FIELD}(?i:[a-z0-9_\-]*(?:{_NAMES}))(?:(?:\\{{0,7}}[\"'])?"
        rf"{_GAP}[:=]{_GAP}(?:\\{{0,7}}[\"'])?"
        # Not the scheme itself before a masked value: "Bearer [redacted]" masked again would
        # read "[redacted] [redacted]" (the mask of a mask must be the mask).
        rf"(?:{_SCHEME}(?!{_NAME_VALUE}))?"
        # Or, after a name ending in "key", whitespace alone before a key-like value.
        rf"|{_KEY_GAP}))(?!{_SCHEME}\[redacted\]){_VALUE}{{6,}}")


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
# OpenAI-style keys inside a word when long and mixed like a real key (runs.py `_Keep2`).
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
        # Query strings: ?key= &api_key= &access_token= …, and a signed URL's signature,
        # credential and session token (S3's X-Amz-*, GCS's X-Goog-*; Azure SAS: sig=).
        # "&" also as Go's JSON writes it in a string: \u0026.
        r"|(?P<keep5>(?:[?&;]|\\u0026)(?i:key|api[_-]?key|apikey|access[_-]?token|token|auth|"
        r"sig|signature|client[_-]?secret|password|secret|code"
        r"|x-(?:amz|goog)-(?:signature|credential)|x-amz-security-token)=)(?!\[redacted\])"
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



# Where a secret's name (or "Bearer ", a query key, a URL's user) may begin inside another
# secret's value: a value may hold "?", "=", "/" and ":", so "api-key: X?a=api-key: Y" is
# one match whose value ends at the second name's ":" and Y would stay in clear.
# `mask` (mask.py) stops the first value where a match of _PATTERNS begins that runs past it.
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
