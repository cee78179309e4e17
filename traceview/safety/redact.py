"""Mask secrets before anything from a capture is shown, exported or written.

Captures written by other tools may hold API keys: a header someone logged into a body,
a prompt that quotes a config file, an error that echoes the key, a query string with
``?api_key=``. Values under secret-named keys are masked whole; key-shaped strings are
masked wherever they occur (also inside words and after ``_``); and the exact keys this
process knows (the one in use, from the environment or registered by a command with
:func:`add_secret`; known_keys.py) are masked wherever they appear, whatever their shape.

This is the one redactor: the recorder, every report, the inspector (through
``traceview.safety.sanitise.visible``), snapshots and stderr all use it. Every path runs
the same two steps: a cheap pre-check (`_hinted_lines`: does the text hold a piece every
secret shape holds?) and, where it says yes, the masker of shapes.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import orjson

from traceview.safety import MASK, known_keys
from traceview.safety.known_keys import MIN_SECRET_LENGTH

__all__ = ["MASK", "SECRET_KEYS", "is_secret_name", "lines_to_mask", "dumped_apart",
           "keys_apart", "nothing_to_mask", "redact", "redact_dump", "redact_json",
           "redact_text"]

# Field names whose (non-empty) value is a secret, compared lower-case with "-" as "_".
SECRET_KEYS = {
    "authorization", "proxy_authorization", "api_key", "apikey", "x_api_key",
    "openai_api_key", "azure_openai_api_key", "ocp_apim_subscription_key", "x_goog_api_key",
    "access_token", "refresh_token", "id_token", "auth_token", "session_token", "password",
    "passwd", "client_secret", "secret", "secret_key", "private_key", "cookie", "set_cookie",
    "subscription_key",
}

# --- The pre-check: which lines may hold a secret ----------------------------------------

# A line may hold a secret when its lower-cased bytes hold a piece every shape of shapes.py
# holds (a text with none of them is returned as it is): a key's prefix, a URL with a user,
# "bearer", a secret's name, "key"/"token" before a separator (also across whitespace, raw
# or escaped, or a run of non-ASCII bytes: a non-ASCII space's UTF-8), or a query-string
# secret's prefix. A name ending in `key"` counts unless it is one of traceview's own report
# fields (a report writes them on every row) or the wire's `prompt_cache_key` (on every
# Responses body: a recorder or proxy would mask each whole line for it); no name the
# masker reads ends in "cache_key". The Kelvin sign reads as "k" to the masker's case-blind
# name rule.
_KELVIN = "\u212a".encode()
_LITERALS = (b"sk-", b"sess-", b"rk-", b"eyj", b"aiza", b"akia", b"asia", b"ghp_", b"gho_",
             b"ghu_", b"ghs_", b"ghr_", b"github_pat", b"://", b"bearer", b"secret", b"passw",
             b"authoriz", b"cookie")
_GAP = (rb"(?:[ \t\n\r\x0b\x0c\x1c-\x1f]|\\{1,7}(?:[tnrfb]|x[0-9a-f]{2}|u[0-9a-f]{4}|u[0-9a-f]{8})"
        rb"|[\x80-\xff]{2,}+)")  # the run taken whole: cut into pieces, it was tried every way
_QUERY_NAMES = (rb"(?:key|api[_-]?key|apikey|access[_-]?token|token|auth|sig|signature"
                rb"|client[_-]?secret|password|secret|code)=")
_HINT = re.compile(b"|".join([  # each led by a literal byte: sre skips the rest at once
    *(re.escape(lit) for lit in _LITERALS),
    *(stem + rb"(?:[:='\\]|" + _GAP + rb"++[:=])" for stem in (b"key", b"token")),
    b"key" + _GAP + rb"++[a-z0-9_\-]{16}",  # "api-key <hex>" (shapes.py _KEY_GAP)
    rb'token"', rb'key"(?<!"key")(?<!"conversation_key")(?<!"prompt_cache_key")',
    rb"[?&;]" + _QUERY_NAMES, rb"\\u0026" + _QUERY_NAMES,  # "&" as Go's JSON writes it
    rb"signature=", rb"-credential=",  # a signed URL's X-Amz-* and X-Goog-* (shapes.py)
    re.escape(_KELVIN)]))
# The farthest a piece begins before the byte a scan finds in it ("?client_secret="), and
# how far behind its start _HINT looks ('"conversation_key"').
_REACH, _BEHIND = 14, 14
_LINE_TRIES = 24  # finds tried one by one on a line before it is searched whole

# How lines with a hint are found in about one pass over a chunk: the chunk is folded with
# one `bytes.translate` (ASCII lower-cased, and each anchor byte made 0), and one regex led
# by a literal 0 finds each piece in its folded form: sre runs through the bytes between
# 0s in C and tries the pieces only at a 0. Folding maps each byte alone, so a piece in the
# lower-cased text is its folded form at the same offset in the folded text. Two anchors
# fold alike, and "key"/"token" are found before any separator-like byte: each line found
# is then checked with _HINT. Pieces with no anchor ("secret", "sess-", "asia") are found
# by a scan led by their "s", and an "=" (query strings) by `bytes.find`.
_ANCHORS = b"kbwgjz/'\\=\xaa"  # \xaa: the Kelvin sign's last byte
_FOLD = bytes.maketrans(bytes(range(65, 91)) + _ANCHORS + _ANCHORS.upper(),
                        bytes(range(97, 123)) + bytes(2 * len(_ANCHORS)))


def _scans() -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """The two scans over the folded chunk (see _FOLD). At a 0, each piece is tried as the
    bytes after its first anchor, then the whole piece behind them; the pieces go in
    groups by the byte after the anchor (sre passes over a group led by another byte
    without entering it), and the pieces that end at the anchor behind one test of the
    byte before it: most anchors begin no piece and are left after a byte or two."""
    def behind(folded: bytes) -> bytes:
        return b"(?<=" + re.escape(folded) + b")"

    def from_byte(lead: int, lit: bytes, ahead: bytes = b"") -> tuple[bytes, bytes]:
        """`lit` matched from after its first `lead` on (its first byte apart), checked
        by `ahead`, then whole behind it."""
        at = lit.index(lead)
        return lit[at + 1:at + 2], re.escape(lit[at + 2:]) + ahead + (behind(lit) if at else b"")

    folded = [lit.translate(_FOLD) for lit in (*_LITERALS, _KELVIN)]
    separators = bytes(sorted(set(b":='\"\\ \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f".translate(_FOLD))))
    sep = (b"(?=[" + b"".join(re.escape(bytes([c])) for c in separators)
           + b"\\x80-\\xff])")
    # Not the fields _HINT passes over: traceview's `"key"` and `"conversation_key"`, the
    # wire's `"prompt_cache_key"`.
    own = b"".join(b"(?!" + behind(name.translate(_FOLD)) + b'")'
                   for name in (b'"key', b'"conversation_key', b'"prompt_cache_key'))
    pieces = [(f, b"") for f in folded if 0 in f]
    pieces += [(b"key".translate(_FOLD), sep + own), (b"token".translate(_FOLD), sep)]
    groups: dict[bytes, list[bytes]] = {}  # the byte after the anchor -> the rests
    ends = []  # the pieces whose first anchor is their last byte
    for piece, ahead in pieces:
        if piece.index(0) == len(piece) - 1:
            ends.append(piece)
        else:
            first, rest = from_byte(0, piece, ahead)
            groups.setdefault(first, []).append(rest)
    led = [re.escape(first) + b"(?:" + b"|".join(rests) + b")" for first, rests in groups.items()]
    led.append(b"(?<=[" + re.escape(bytes(e[-2] for e in ends)) + b"]\\x00)(?:"
               + b"|".join(map(behind, ends)) + b")")
    bare = [b"".join(from_byte(ord("s"), f)) for f in folded if 0 not in f]
    return (re.compile(b"\\x00(?:" + b"|".join(led) + b")"),
            re.compile(b"s(?:" + b"|".join(bare) + b")"))


_SCANS = _scans()


def _hinted_lines(chunk: bytes) -> list[int]:
    """Start offsets, in order, of the lines of ``chunk`` (UTF-8) that hold a hint (see
    _HINT). Every piece begins at most _REACH before a byte a scan finds in it, so where a
    scan finds one, _HINT is tried at each place from there back to _REACH before it: a
    few anchored tries, where a search to the line's end would cost all the rest of the
    line (a record is one line). After _LINE_TRIES finds on a line without a hint, the
    scan searches the rest of the line once and goes on after it. Each scan's first find
    comes first, before any line is looked at: most texts (a prompt's excerpt, a query)
    have none, and are told by the scans alone."""
    folded = chunk.translate(_FOLD)
    scan0, scan1 = _SCANS
    first0, first1, eq = scan0.search(folded), scan1.search(folded), chunk.find(b"=")
    if first0 is None and first1 is None and eq < 0:
        return []
    check, hinted, tries = _checker(chunk)
    for scan, m in ((scan0, first0), (scan1, first1)):
        tries.clear()
        while m is not None:
            m = scan.search(folded, check(m.start()))
    tries.clear()
    while eq >= 0:
        eq = chunk.find(b"=", check(eq))
    return sorted(hinted)


def _checker(chunk: bytes) -> tuple[Callable[[int], int], set[int], dict[int, int]]:
    """`check(i)` for _hinted_lines' finds in `chunk`, the set of hinted line starts it
    fills, and its count of finds a line (cleared by the caller before each scan)."""
    find, rfind, size = chunk.find, chunk.rfind, len(chunk)
    hinted: set[int] = set()
    # Each line a find is on, lower-cased once (by its start): most chunks have a find on
    # a few lines, and lower-casing the whole chunk for them was a pass over every byte.
    lowered: dict[int, bytes] = {}
    tries: dict[int, int] = {}  # this scan's finds so far on the line starting at each offset

    def check(i: int) -> int:
        """Where the scan goes on after a piece's byte at `i`: past it, or past its line."""
        start = rfind(b"\n", 0, i) + 1
        end = find(b"\n", i)
        end = size if end < 0 else end
        if start in hinted:
            return end
        text = lowered.get(start)
        if text is None:
            text = lowered[start] = chunk[start:end].lower()
        first, i, stop = max(start, i - _REACH) - start, i - start, end - start
        tries[start] = tried = tries.get(start, 0) + 1
        if tried <= _LINE_TRIES:
            if any(_HINT.match(text, at, stop) for at in range(first, i + 1)):
                hinted.add(start)
                return end
            return start + i + 1
        if _HINT.search(text, first, stop) is not None:
            hinted.add(start)
        return end  # searched to the line's end: nothing more to find on it

    return check, hinted, tries


# --- The redactors -------------------------------------------------------------------------


def mask(text: str) -> str:
    """The masker of shapes.py (mask.py), imported the first time a text needs it: most
    commands find nothing to mask, and its rules take longer to compile than a small
    report takes to read."""
    from traceview.safety.mask import mask as masker

    return masker(text)


def redact_text(text: str) -> str:
    """The text with every key-shaped substring and every registered key masked."""
    if len(text) < MIN_SECRET_LENGTH:  # too short to hold any shape or registered key
        return text
    for key in known_keys.held:
        if key in text:
            text = text.replace(key, MASK)
    # One line (a line feed as a space): a name's gap may run past a line's end.
    if not _hinted_lines(text.encode("utf-8", "surrogatepass").replace(b"\n", b" ")):
        return text
    return mask(text)


def redact_json(chunk: bytes) -> bytes:
    """Serialised JSON with secrets masked, a line at a time: a report of a million turns
    cannot afford a walk over every value. Only the lines the pre-check names are decoded
    and masked; a line repeated (a sentence per conversation) is masked once.

    Safe on JSON text: no shape's masked part can contain a quote or a backslash, so
    string boundaries and escapes stay intact and the document stays valid.
    """
    for key in known_keys.held:
        chunk = chunk.replace(key.encode("utf-8", "surrogatepass"), MASK.encode())
    out: list[bytes] = []
    pos = 0
    done: dict[bytes, bytes] = {}
    for start in _hinted_lines(chunk):
        end = chunk.find(b"\n", start)
        end = len(chunk) if end < 0 else end
        line = chunk[start:end]
        if line not in done:
            done[line] = mask(line.decode("utf-8", "surrogatepass")).encode(
                "utf-8", "surrogatepass")
        if done[line] != line:
            out += (chunk[pos:start], done[line])
            pos = end
    if not out:
        return chunk
    out.append(chunk[pos:])
    return b"".join(out)


def dumped_apart(keys: Sequence[str], values: Iterable[Any]) -> bytes:
    """`keys` and each of `values` dumped apart, a line each: what `redact_dump` (and the
    sanitiser's `json_shown_dump`) judge in place of a chunk dumped of dicts whose keys are
    among `keys` and whose strings, but those keys, are all strings of `values` (at any
    depth, keys or values), where most of the chunk's bytes (its indentation, its keys
    written again on every dict) cannot hold what they look for."""
    return b"\n".join([orjson.dumps(list(keys)), *map(orjson.dumps, values)])


def keys_apart(dicts: list[Any]) -> tuple[list[str], list[list[Any]]] | None:
    """What `dumped_apart` may judge in place of a list of dicts: their keys, once, and
    each one's values (every string of the dicts is one of them), where their dump writes
    every dict's keys again; None when an item is not a dict."""
    if any(type(d) is not dict for d in dicts):
        return None
    return list(set().union(*dicts)), list(map(list, map(dict.values, dicts)))


def redact_dump(chunk: bytes, apart: bytes) -> bytes:
    """`redact_json(chunk)` for `chunk`, orjson's dump (at any indentation) of what
    `apart` holds (`dumped_apart`), its pre-check run on `apart`, not on the chunk.

    The same verdict: each piece of _HINT lies within one JSON string token, its quotes
    included (no piece can begin outside a string, where JSON writes no letter but those
    of true, false, null and an exponent, and none holds an unescaped quote but a string's
    last one; the names `"key"`, `"conversation_key"` and `"prompt_cache_key"` are
    passed over by the token alone). orjson writes a string's token the same wherever it
    is and at any indentation, and never across lines, so the chunk has a line to check
    only if `apart` has one. Then, or while a key is registered, the chunk goes through
    `redact_json` whole."""
    return redact_json(chunk) if known_keys.held or _hinted_lines(apart) else chunk


def is_secret_name(name: str) -> bool:
    return name.lower().replace("-", "_") in SECRET_KEYS


def _unhinted_names() -> list[str]:
    """The secret names whose field, as JSON text writes it ("-" or "_" alike), holds no
    hint of the pre-check (none today: each ends in a hint such as `key"` or holds one
    such as "authoriz"); only those need the field search below."""
    def spellings(name: str) -> list[str]:
        first, _, rest = name.partition("_")
        if not _:
            return [first]
        return [first + sep + tail for sep in "_-" for tail in spellings(rest)]

    return sorted(k for k in SECRET_KEYS
                  if any(not _hinted_lines(f'"{form}":'.encode()) for form in spellings(k)))


# A secret-named field that no hint finds, as JSON text writes it, lower-cased.
_UNHINTED = _unhinted_names()
_SECRET_FIELD = re.compile(b'"(?:' + b"|".join(
    re.escape(k.encode()).replace(b"_", b"[_-]") for k in _UNHINTED) + b')":') if _UNHINTED \
    else None


def nothing_to_mask(text: bytes) -> bool:
    """True when the JSON text `text` holds nothing to mask: neither `redact()` of its
    value nor `redact_text()` of the text would change anything. With no backslash there,
    every key and string appears in it verbatim, so any hint and any secret-named field
    would show (a registered key may hide in any shape); with no line feed, its lines are
    the one line `redact_text` reads. A writer that has serialised a record asks this once
    instead of masking it value by value and then as text. (The backslash is looked for
    first as well: a text with one is told at once, without the pre-check.)"""
    return b"\\" not in text and b"\n" not in text and not lines_to_mask(text)


def lines_to_mask(chunk: bytes) -> set[int]:
    """Start offsets of the lines of `chunk` for which `nothing_to_mask(line)` is False:
    every line while a key is registered, else those with a backslash, a hint or a
    secret-named field. Each line is judged alone, as `_hinted_lines` judges it: values
    serialised one a line (an export's json column) are judged in one pass, each check
    stopping at its line's end, where one long line had every check run to its ends."""
    if known_keys.held:
        return {0, *(m.end() for m in re.finditer(b"\n", chunk))}
    out = set(_hinted_lines(chunk))
    out.update(_line_starts(chunk, re.finditer(rb"\\[^\n]*", chunk)))
    if _SECRET_FIELD is not None:
        out.update(_line_starts(chunk, _SECRET_FIELD.finditer(chunk.lower())))
    return out


def _line_starts(chunk: bytes, found: Iterator[re.Match[bytes]]) -> Iterator[int]:
    """The start of the line each match begins on."""
    rfind = chunk.rfind
    return (rfind(b"\n", 0, m.start()) + 1 for m in found)


def _unchanged(value: Any) -> bool:
    """True when `redact(value)` would equal `value`, told from its JSON text."""
    try:
        text = orjson.dumps(value)
    except TypeError:  # not JSON (a set, a big integer, a non-str key): walk it
        return False
    return nothing_to_mask(text)


def redact(obj: Any) -> Any:
    """A JSON value with secret-named fields and key-shaped strings masked: `obj` itself
    when nothing in it needs masking, else a copy.

    Iterative, so a value nested as deep as the parser allows cannot exhaust the stack.
    """
    if _unchanged(obj):
        return obj
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
