"""The facts of a turn's evidence lineage, read once while the capture is scanned.

What a request chose (tool_choice, sampling settings, reasoning effort, the case it names
in metadata, the safety checks it acknowledged) and what a response cited and retrieved
(annotations, each hosted call's queries and results, pending safety checks, logprobs).
Kept as small tuples in the side's `extra` under "lineage", only on the turns that have
any: analysis/lineage.py reads them into a TurnLineage.
"""

from __future__ import annotations

import math
from math import copysign
from typing import Any, TypeVar

from traceview.safety.known_keys import registered_keys
from traceview.safety.redact import redact_text

LINEAGE = "lineage"  # the key in a side's `extra`
VECTOR_STORES = "vector_stores"  # also a key of the response's `extra`
_TEXT_MAX = 200
T = TypeVar("T")
_SETTINGS = ("temperature", "top_p", "seed")
CITATION_TYPES = ("url_citation", "file_citation", "container_file_citation", "file_path")
# The hosted calls whose results a citation can name.
RETRIEVING = ("file_search_call", "web_search_call", "code_interpreter_call")
# One copy of each distinct fact kept in `extra` (see `_one_copy`), up to this many.
_COPIES_MAX = 4096
_COPIES: dict[str, Any] = {}


def _text(value: Any, limit: int = _TEXT_MAX) -> str | None:
    """A provider or application string, secrets masked and clipped; None if not a string."""
    return redact_repeated(value)[:limit] if type(value) is str and value else None


class _Kept:
    """What is made once of values a capture repeats on many turns, kept with the
    registered keys (which redact_text masks) it was made under, and dropped when they
    change."""

    LONGEST = 256  # longer strings are seldom repeated: made each time
    MOST = 4096

    def __init__(self) -> None:
        self.state: tuple[tuple[str, ...] | None, dict[Any, Any]] = (None, {})

    def kept(self) -> dict[Any, Any]:
        """What was made under the keys registered now."""
        under, made = self.state
        keys = registered_keys()
        if under is not keys:
            under, made = self.state = (keys, {})
        return made


class _Repeated(_Kept):
    """Short strings (file ids and names, queries), each masked once: text ->
    redact_text(text)."""

    def __call__(self, text: str) -> str:
        masked = self.kept()
        got: str | None = masked.get(text)
        if got is None:
            got = redact_text(text)
            if len(text) <= self.LONGEST and len(masked) < self.MOST:
                masked[text] = got
        return got


class _Results(_Kept):
    """File-search results (the same file, name, score and store on many turns), each
    read once: result dict -> (file_id, filename, score, vector store), kept by those
    values. The score is kept with its type and its sign (1 and 1.0, 0.0 and -0.0 stay
    apart); a result with a score of another kind, or longer strings, is read each time."""

    def __call__(self, r: dict[str, Any]) -> tuple[Any, ...]:
        fid, name, score = r.get("file_id"), r.get("filename"), r.get("score")
        attrs = r.get("attributes")
        store = r.get("vector_store_id") or (
            attrs.get("vector_store_id") if type(attrs) is dict else None)
        fid = fid if type(fid) is str else None
        name = name if type(name) is str else None
        store = store if type(store) is str else None
        if type(score) is float:
            key: Any = (fid, name, store, score, copysign(1.0, score))
        elif type(score) is int or score is None:
            key = (fid, name, store, score)
        else:
            return _result(fid, name, score, store)
        made = self.kept()
        got: tuple[Any, ...] | None = made.get(key)
        if got is None:
            got = _result(fid, name, score, store)
            if len(made) < self.MOST and sum(len(s) for s in (fid, name, store) if s) \
                    <= self.LONGEST:
                made[key] = got
        return got


def _result(fid: str | None, name: str | None, score: Any,
            store: str | None) -> tuple[Any, ...]:
    """One file-search result's facts, masked and clipped (its store: where the result or
    its attributes name one)."""
    return _text(fid, 120), _text(name), _number(score), _text(store, 120)


redact_repeated = _Repeated()
_file_result = _Results()


def _one_copy(value: T, key: Any = None) -> T:
    """`value`, or an equal one kept before: a capture searches the same stores and
    retrieves the same files on many turns, and each turn's copy stayed in memory for the
    whole analysis. Keyed by repr, so 1 and 1.0 (or 0.0 and -0.0) stay apart and the
    report writes exactly what the turn held; `key`: that repr when the caller has it, or
    a tuple of strings itself (equal exactly when their reprs are)."""
    if key is None:
        key = repr(value)
    kept = _COPIES.get(key)
    if kept is not None:
        return kept  # type: ignore[no-any-return]
    if len(_COPIES) < _COPIES_MAX:
        _COPIES[key] = value
    return value


def _number(value: Any) -> float | int | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None


def tool_choice(value: Any) -> str | None:
    """"auto" | "none" | "required" | "function:NAME" | a hosted tool type |
    "allowed_tools:MODE" | "mcp:SERVER"; None when the request did not say."""
    if type(value) is str:
        return _text(value, 80)
    if type(value) is not dict:
        return None
    kind = value.get("type")
    if kind == "function":
        fn = value.get("function")
        name = value.get("name") or (fn.get("name") if type(fn) is dict else None)
        return f"function:{_text(name, 80)}" if type(name) is str else "function"
    if kind == "custom":
        return f"custom:{_text(value.get('name'), 80)}"
    if kind == "allowed_tools":
        return f"allowed_tools:{_text(value.get('mode'), 20) or 'auto'}"
    if kind == "mcp":
        return f"mcp:{_text(value.get('server_label'), 80)}"
    return _text(kind, 80)


# The body keys request_lineage reads.
_REQUEST_KEYS = frozenset(("tool_choice", *_SETTINGS, "reasoning", "reasoning_effort",
                           "metadata", "user", "safety_identifier"))


def request_lineage(body: dict[str, Any], items: list[Any] | None) -> dict[str, Any] | None:
    """A request's choices and settings (only those it set), or None. A body with none of
    their keys (most bodies: the check is one pass over its few keys in C) and no items to
    read has none, without a lookup of each."""
    if not items and body.keys().isdisjoint(_REQUEST_KEYS):
        return None
    g = body.get
    out: dict[str, Any] = {}
    choice = tool_choice(g("tool_choice"))
    if choice is not None:
        out["tool_choice"] = choice
    for key in _SETTINGS:
        v = _number(g(key))
        if v is not None:
            out[key] = v
    reasoning = g("reasoning")
    effort = reasoning.get("effort") if type(reasoning) is dict else g("reasoning_effort")
    if type(effort) is str:
        out["effort"] = _text(effort, 20)
    meta = g("metadata")
    if type(meta) is dict and meta:
        out["metadata"] = {_text(str(k), 64): _text(v, 128) for k, v in list(meta.items())[:16]
                           if type(v) is str}
    for key in ("user", "safety_identifier"):
        if type(g(key)) is str and g(key):
            out[key] = _text(g(key), 128)
    acked = _acknowledged(items) if items else ()
    if acked:
        out["acknowledged"] = acked
    return out or None


def _vector_stores(tools: Any) -> tuple[str, ...]:
    """The vector store ids the request's file_search tools search."""
    if type(tools) is not list:
        return ()
    ids = [v for t in tools if type(t) is dict and t.get("type") == "file_search"
           and type(t.get("vector_store_ids")) is list
           for v in t["vector_store_ids"] if type(v) is str]
    stores = tuple(dict.fromkeys(ids))
    return _one_copy(stores, stores)


def _acknowledged(items: list[Any]) -> tuple[str, ...]:
    """Ids of the safety checks the input's computer_call_output items acknowledge."""
    ids = [c["id"] for i in items if type(i) is dict and i.get("type") == "computer_call_output"
           and type(i.get("acknowledged_safety_checks")) is list
           for c in i["acknowledged_safety_checks"] if type(c) is dict
           and type(c.get("id")) is str]
    return tuple(ids)


def response_lineage(output: list[Any], tools: Any) -> dict[str, Any] | None:
    """A Responses output's citations, retrievals, pending safety checks and logprobs;
    with a file search, the vector stores its tool searched (the response echoes the
    request's `tools`: read here, not kept for every request that offers the tool)."""
    citations: list[tuple[Any, ...]] = []
    retrieval: list[tuple[Any, ...]] = []
    keys: list[str] = []  # each retrieval's repr, made once: the tuple of them is kept too
    checks: list[tuple[Any, ...]] = []
    probs: list[float] = []
    searched = False
    k = -1  # the call's place among the output's retrieving calls
    for n, item in enumerate(output):
        if type(item) is not dict:
            continue
        t = item.get("type")
        if t == "message" or (t is None and "role" in item):
            content = item.get("content")
            for part in content if type(content) is list else ():
                # Most parts hold neither (an empty list, a null): passed over here.
                if type(part) is dict and (part.get("annotations") or part.get("logprobs")):
                    _part(part, n, citations, probs)
        elif t in RETRIEVING:
            k += 1
            searched = searched or t == "file_search_call"
            found = _retrieval(item, t)
            if found != (None, None, None):  # the call's id and queries are its HostedCall's
                entry = (k, *found)
                keys.append(repr(entry))
                retrieval.append(_one_copy(entry, keys[-1]))
        elif t == "computer_call" and type(item.get("pending_safety_checks")) is list:
            checks.extend((_text(item.get("call_id"), 80), _text(c.get("id"), 80),
                           _text(c.get("code"), 80))
                          for c in item["pending_safety_checks"] if type(c) is dict)
    out = _pack(citations, retrieval, checks, probs, _tuple_repr(keys) if keys else None)
    stores = _vector_stores(tools) if searched else ()
    if stores:  # beside the lineage, not in it: most searching turns have nothing else
        out = {**(out or {}), VECTOR_STORES: stores}
    return out


def chat_lineage(choices: list[Any]) -> dict[str, Any] | None:
    """A chat completion's annotations (message.annotations) and logprobs."""
    citations: list[tuple[Any, ...]] = []
    probs: list[float] = []
    for n, choice in enumerate(choices):
        if type(choice) is not dict:
            continue
        msg = choice.get("message")
        if type(msg) is dict and type(msg.get("annotations")) is list:
            for a in msg["annotations"]:
                if type(a) is dict:
                    citations.append(_citation(a, n))
        lp = choice.get("logprobs")
        if type(lp) is dict:
            _probs(lp.get("content"), probs)
    return _pack(citations, [], [], probs)


def _tuple_repr(reprs: list[str]) -> str:
    """The repr of a tuple whose items have these reprs (one item: a trailing comma)."""
    return f"({reprs[0]},)" if len(reprs) == 1 else f"({', '.join(reprs)})"


def _pack(citations: list[tuple[Any, ...]], retrieval: list[tuple[Any, ...]],
          checks: list[tuple[Any, ...]], probs: list[float],
          retrieval_key: str | None = None) -> dict[str, Any] | None:
    """The lineage kept of a response (`retrieval_key`: the repr of its retrieval, when
    the caller made its items' reprs already)."""
    out: dict[str, Any] = {}
    if citations:
        out["citations"] = tuple(citations)
    if retrieval:
        out["retrieval"] = _one_copy(tuple(retrieval), retrieval_key)
    if checks:
        out["safety_checks"] = tuple(checks)
    if probs:
        out["logprobs"] = (len(probs), sum(probs) / len(probs), min(probs))
    return out or None


def _part(part: dict[str, Any], item: int, citations: list[tuple[Any, ...]],
          probs: list[float]) -> None:
    anns = part.get("annotations")
    if type(anns) is list:
        for a in anns:
            if type(a) is dict:
                citations.append(_citation(a, item))
    _probs(part.get("logprobs"), probs)


def _probs(tokens: Any, probs: list[float]) -> None:
    """Each token's probability (exp of its logprob)."""
    if type(tokens) is list:
        for tok in tokens:
            lp = tok.get("logprob") if type(tok) is dict else None
            if isinstance(lp, int | float) and not isinstance(lp, bool) and lp <= 0:
                probs.append(math.exp(lp))


def _citation(a: dict[str, Any], item: int) -> tuple[Any, ...]:
    """(type, url, file_id, container_id, title or filename, start, end, output item)."""
    kind = a.get("type")
    nested = a.get(kind) if type(kind) is str else None  # chat: {"url_citation": {...}}
    inner: dict[str, Any] = nested if type(nested) is dict else a
    g = inner.get
    start, end = g("start_index"), g("end_index")
    if start is None and type(g("index")) is int:
        start = g("index")
    return (_text(kind, 40) or "unknown", _text(g("url"), 500), _text(g("file_id"), 120),
            _text(g("container_id"), 120), _text(g("title")) or _text(g("filename")),
            start if type(start) is int else None, end if type(end) is int else None, item)


def _retrieval(item: dict[str, Any], kind: str) -> tuple[Any, ...]:
    """(results or None, sources or None, container id): results are (file_id, filename,
    score, vector store) — None when the capture lacks them."""
    results: tuple[tuple[Any, ...], ...] | None = None
    sources: tuple[str | None, ...] | None = None
    if kind == "file_search_call":
        raw = item.get("results")
        if type(raw) is list:
            results = tuple([_file_result(r) for r in raw if type(r) is dict])
    elif kind == "web_search_call":
        action = item.get("action")
        if type(action) is dict:
            src = action.get("sources")
            if type(src) is list:
                sources = tuple(_text(s.get("url"), 500) for s in src if type(s) is dict)
            elif action.get("type") in ("open_page", "find_in_page"):
                sources = (_text(action.get("url"), 500),)  # the page read is the source
    return results, sources, _text(item.get("container_id"), 120)
