"""The redactor's name rule, started only where a run starts, masks what the old one did.

The old rule let a name start after every "_" or "-" and was quadratic on "a_a_a_…"
(tests/hostile/test_redact_runs.py). Below, the old matcher, copied verbatim from
the redactor before the change (plus the scheme-then-name fix and the
OpenAI prefixes in any case, "SK-", "Sk-", that both carry), is the oracle: over a
generated corpus of names, keys, separators, escapes and secret-looking values glued
every way, and over the cases where a search begins inside a run, the new `_mask`
returns the same text.
"""

from __future__ import annotations

import random
import re

import pytest

from traceview.safety import shapes as r

# --- the oracle: the old matcher, verbatim -----------------------------------------------
MASK = r.MASK
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
# Added to the oracle with the fix it carries over (tests/hostile/test_bearer_then_name.py):
# a scheme word never takes a following "name:" as its token.
_NAME_VALUE = rf"(?i:[a-z0-9_\-]*(?:{_NAMES}))(?:\\{{0,7}}[\"'])?{_GAP}[:=]"
_PATTERNS = re.compile(
    # OpenAI-style keys (sk-, sk-proj-, sk-svcacct-, sk-admin-, sk-ant-…, sess-, rk-):
    # at a word start or after "_", or inside a word when long and mixed like a real key.
    # Added to the oracle with the fix it carries over (tests/hostile/test_recased_keys.py):
    # the prefixes in any ASCII case; and a key may start right after a JSON escape
    # ("\n", "\t": test_a_key_after_a_line_feed_in_json_text).
    r"(?P<keep>(?:(?<![A-Za-z0-9])|(?<=\\[nrtbf]))(?ai:sk|sess|rk)-)[A-Za-z0-9_\-]{8,}"
    r"|(?P<keep2>(?ai:sk)-)(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{20,}"
    # NAME=value / "name": "value" / Name: [Bearer|Basic] value, incl. OPENAI_API_KEY=,
    # AZURE_OPENAI_API_KEY=, api-key: <hex>, Ocp-Apim-Subscription-Key: <hex>.
    # Between name and value: whitespace, raw or as JSON writes it (\t, \n, \u00a0 …).
    # Quotes escaped once or more: '"api_key": "…"' quoted in a string is \\\" in JSON. A
    # backslash is taken only with the quote it escapes: alone, it may begin "\n", and the
    # mask after it would leave "\[" (invalid JSON) where masked text is masked again.
    rf"|(?P<keep3>(?<![A-Za-z0-9])(?i:[a-z0-9_\-]*(?:{_NAMES}))(?:\\{{0,7}}[\"'])?{_GAP}[:=]"
    rf"{_GAP}(?:\\{{0,7}}[\"'])?"
    # Not the scheme itself before a masked value: "Bearer [redacted]" masked again would
    # read "[redacted] [redacted]" (the mask of a mask must be the mask).
    rf"(?:{_SCHEME}(?!{_NAME_VALUE}))?)(?!{_SCHEME}\[redacted\]){_VALUE}{{6,}}"
    # Bearer <anything>
    rf"|(?P<keep4>\b(?i:bearer){_SPACE}+)(?!{_NAME_VALUE}){_VALUE}{{6,}}"
    # Query strings: ?key= &api_key= &access_token= …
    r"|(?P<keep5>[?&;](?i:key|api[_-]?key|apikey|access[_-]?token|token|auth|sig|signature|"
    r"client[_-]?secret|password|secret|code)=)(?!\[redacted\])[^&\s\"'#<>\\]{4,}"
    # https://user:password@host
    r"|(?P<keep6>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@\"'\\]+:)[^\s/@\"'\\]{3,}(?=@)"
    # JWTs, Google API keys, AWS access key ids, GitHub tokens: masked whole.
    r"|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    # A known prefix followed by its exact body is a key wherever it sits, also glued to
    # the end of a word ("fooghp_…", "XAKIA…"): the body's length and the character after
    # it tell it from a word, which no boundary before the prefix could.
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])"
    r"|(?<![A-Za-z0-9])(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"
    r"|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}(?![A-Za-z0-9_])"
    r"|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![A-Za-z0-9_])"
    r"|(?ai:sess)-[A-Za-z0-9]{40}(?![A-Za-z0-9_\-])"
)
# Where a secret's name (or "Bearer ", a query key, a URL's user) may begin inside another
# secret's value: a value may hold "?", "=", "/" and ":", so "api-key: X?a=api-key: Y" is
# one match whose value ends at the second name's ":" and Y would stay in clear.
# `_mask` stops the first value where a match of _PATTERNS begins that runs past it.
_NAME_START = re.compile(
    rf"(?<![A-Za-z0-9])(?i:[a-z0-9_\-]*(?:{_NAMES}))|\b(?i:bearer)(?:\s|\\)|[?&;]"
    r"|\b[a-zA-Z][a-zA-Z0-9+.\-]*://")
_KEEPS = ("keep", "keep2", "keep3", "keep4", "keep5", "keep6")
_TRIES = 8  # matches tried per value, from its end (see _value_end)


def _value_end(text: str, vstart: int, end: int) -> int:
    """Where the value text[vstart:end] must stop: at the start of a match of _PATTERNS
    that runs past `end` (the next secret's name is in the value, its value after it).

    Such a match either has its name at the value's very end (whitespace, a quote or a
    backslash ended the value and begins that match's gap) or is a query key or URL user
    whose value takes the character that ended this one (",", "(" …): both are among the
    last names in the value. So names are tried from the end, a few at most: a value of
    many names costs a few short matches, not one match to its end per name."""
    starts = [c.start() for c in _NAME_START.finditer(text, vstart, end + 1)]
    tried = 0
    for c in reversed(starts):  # "Bearer" and one space may end at end + 1
        if c >= end:
            continue
        inner = _PATTERNS.match(text, c)
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
    search = _PATTERNS.search
    m = search(text)
    if m is None:
        return text
    out: list[str] = []
    pos = 0
    while m is not None:
        start, end = m.span()
        keep = m.group(m.lastgroup) if m.lastgroup in _KEEPS else ""
        vstart = start + len(keep)
        if keep and m.lastgroup not in ("keep", "keep2"):
            end = _value_end(text, vstart, end)
        out += (text[pos:start], keep, MASK)
        pos = end
        m = search(text, end)
    out.append(text[pos:])
    return "".join(out)


# --- the corpus ---------------------------------------------------------------------------
_PIECES = [
    "api_key", "API-KEY", "apikey", "access_token", "id-token", "client_secret", "secret",
    "Secret_Key", "password", "passwd", "authorization", "cookie", "subscription-key",
    "private_key", "token", "key", "Bearer", "basic", "sk-", "sk-proj-", "sess-", "rk-",
    "AKIA", "ASIA", "ghp_", "github_pat_", "eyJ", "AIza", "x", "a", "foo", "Z9", "0123",
    "_", "-", "__", "--", "_-", ".", "+", "://", "http", "https://u", "@", "@host",
    ":", "=", " : ", " = ", "?", "&", ";", "?key=", "&sig=", "\"", "'", "\\\"", "\\",
    "\\t", "\\n", "\\u0020", "\\xa0", "\t", " ", "  ", "\n", ",", "(", ")", "[redacted]",
    "hunter2222", "Zx12Cv34Bn56Qw", "0123456789ABCDEF", "abcdefghijklmnopqrstuvwxyz0123",
    "IOSFODNN7EXAMPLE", "task-", "ask-", "Zx12", "sk-ant-", "eyJhbGciOi", ".eyJ", "a.b",
    "\u0130", "\u0131", "\u017f", "\u212a", "\u00e9", "\u00a0",
    "SK-", "Sk-PROJ-", "sK-", "SESS-", "Rk-", "TASK-", "\u017fK-", "s\u212a-",
]


def _corpus(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(2, 24)))
            for _ in range(n)]


_GLUE = ["AKIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE", "ghp_" + "a1" * 18,
         "github_pat_" + "A" * 22 + "_" + "b" * 59, "\\\\t", "\\\\u0020", "\\\\n", "=", ": "]
_RUNS = ["x", "foo", "a1", "Z", "\u017f", "\u212a", "\u0131", "9"]
_JOINS = ["_", "-", "__", "-_", "\u0130", "\u017f", "\u212a", ""]


def _inside_corpus(n: int, seed: int) -> list[str]:
    """Texts built so that a search begins inside a run: a name and separator or a glued
    key, then a run ("foo_", "x-"…) with a name, a separator and a value at its end."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        head = rng.choice(["", "api_key", "secret", "token", "Bearer", "x"])
        text = head + rng.choice(_GLUE)
        for _ in range(rng.randint(1, 3)):
            text += rng.choice(_RUNS) + rng.choice(_JOINS)
        text += rng.choice(_PIECES[:22]) + rng.choice(["", " ", "\\\\t", "\\\""])
        text += rng.choice([":", "=", " : ", "://", ""]) + rng.choice(
            ["hunter2222", " Zx12Cv34Bn56Qw", "u:pw@host", "abc", "x_secret: abcdefgh"])
        out.append(text + rng.choice(["", " tail", "\\\"", "_AKIAIOSFODNN7EXAMPLE"]))
    return out


_A_JWT = ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
          "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
_SHAPES = ["https://user:pw1234@host", "a.b+c-d://u:pass@h", "x_https://u:secret99@h",
           "\u00e9http://u:pwpw@h", "1a-http://u:pwpw@h", "ftp://a:b", "://u:pw@h", _A_JWT,
           _A_JWT[:40], "eyJeyJ" + _A_JWT, "x" + _A_JWT, "sk-" + "ab12" * 6, "task-" + "ab12" * 6,
           "sk-sk-" + "abcd" * 6, "ask-" * 5 + "1a" * 10, "AIza" + "x1" * 16, "a.a.a.a",
           "SK-" + "AB12" * 6, "TASK-" + "ab12" * 6, "Sk-sK-" + "ABCD" * 6, "ASK-" * 5 + "1A" * 10,
           "x1Sk-" + "aB1" * 7, "\u017fk-" + "ab12" * 6]


def _shape_corpus(n: int, seed: int) -> list[str]:
    """Texts of URLs with a user and password, JWTs and "sk-" keys glued to runs and to
    each other: the rules found once per run (`_Url`, `_Jwt`, `_Keep2`)."""
    rng = random.Random(seed)
    parts = _SHAPES + ["a", "_", "-", ".", " ", "@", ":", "/", "x1", "secret=", "token: "]
    return ["".join(rng.choice(parts) for _ in range(rng.randint(1, 8))) for _ in range(n)]


# Searches that begin inside a run: after a glued AWS key, a value cut at a name, a gap
# that ends in a letter or digit ("\\t", "\\u0020"), a "-" before a scheme or "bearer".
_INSIDE = [
    "api_key=\\tfoo_secret : hunter2222",
    "api_key=\\u0020foo-password = hunter2222 more",
    "AKIAIOSFODNN7EXAMPLEx_password: hunter2222",
    "AKIAIOSFODNN7EXAMPLE_secret: hunter2222",
    "xAKIAIOSFODNN7EXAMPLEa-b_secret=hunter2222",
    "AKIAIOSFODNN7EXAMPLEaAKIAIOSFODNN7EXAMPLE_x_api_key: Zx12Cv34Bn56Qw",
    "secret: abc_x-https-secret://abcdefgh",
    "token: x-bearer\\tabcdefgh password: Zx12Cv34Bn56Qw",
    "api_key=\\tfoo\u017fsecret : hunter2222",
    "api_key=\\tfoo\u212asecret : hunter2222",
    "ghp_" + "a" * 36 + "-secret: hunter2222",
    "github_pat_" + "a" * 22 + "_" + "b" * 59 + "-api_key=Zx12Cv34Bn56Qw",
]


def _both(text: str) -> tuple[str, str]:
    return _mask(text), r.mask(text)


@pytest.mark.parametrize("text", _INSIDE)
def test_a_search_begun_inside_a_run_masks_as_before(text: str) -> None:
    old, new = _both(text)
    assert new == old


def test_the_inside_cases_need_the_old_rule_inside_a_run(monkeypatch) -> None:
    """With the run-start rule alone (no `_inside`, `_name_starts`, `_match_at`), these
    cases mask differently, one leaving its value in clear: they test the part of the
    change that keeps the old rule where a search begins inside a run."""
    monkeypatch.setattr(r, "_inside", lambda text, pos, m, dead: (m, dead))
    monkeypatch.setattr(r, "_match_at", lambda text, c, pats=r._PATTERNS: pats.match(text, c))
    monkeypatch.setattr(r, "_name_starts", lambda text, pos, endpos, url=True: [
        c.start() for c in r._NAME_START.finditer(text, pos, endpos)])
    differ = [t for t in _INSIDE if r.mask(t) != _mask(t)]
    assert len(differ) >= 3, differ
    assert "hunter2222" in r.mask("api_key=\\tfoo_secret : hunter2222")


@pytest.mark.parametrize("seed", range(4))
def test_the_generated_corpus_masks_as_before(seed: int) -> None:
    texts = _corpus(3000, seed) + _inside_corpus(3000, seed) + _shape_corpus(3000, seed)
    for text in texts:
        old, new = _both(text)
        assert new == old, text


def test_value_ends_and_name_starts_are_as_before() -> None:
    """`_value_end` (and the name starts it tries) at every match of the corpus."""
    for text in (_corpus(1500, 99) + _inside_corpus(1500, 99) + _shape_corpus(1500, 99)
                 + _INSIDE):
        for m in r._PATTERNS.finditer(text):
            keep = m.group(m.lastgroup) if m.lastgroup in _KEEPS else ""
            vstart = m.start() + len(keep)
            assert r._value_end(text, vstart, m.end()) == _value_end(text, vstart, m.end())
            assert r._name_starts(text, vstart, m.end() + 1) == [
                c.start() for c in _NAME_START.finditer(text, vstart, m.end() + 1)]
