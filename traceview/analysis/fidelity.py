"""Replay fidelity: can a conversation's last input be rebuilt, exactly, from what is held
locally?

The definition, used literally: rebuild the exact input of a conversation's **final**
turn from the capture (its requests and responses in order, plus the hosted evidence it
captured), serialise it canonically, hash it (sha256), and compare with the hash of the
input the model actually received. A conversation replays only if the hashes match.

What the model received:
- an owned-state turn (no ``conversation``, no ``previous_response_id``): its own request.
  The rebuild is the previous turn's input and output followed by the final request's new
  items, so an application that silently edited or dropped history does not replay;
- a hosted turn: the provider's ``GET /v1/responses/{id}/input_items`` (every page), given
  by the caller (live, a snapshot) or recorded in the capture itself.

A conversation that does not replay gets exactly one reason, the first that applies:
provider copy deleted / expired, compaction, hosted results not captured, encrypted
reasoning, items added outside the capture, then whatever the hashes show.

Canonical form: each item in stored shape (``transcript.normalise_input``), then
``item_compare.normalise`` (no ids, statuses, nulls or empties; text parts unified),
without presentation-only fields (``annotations``, ``logprobs``); the list is serialised
as JSON with sorted keys, no whitespace, UTF-8.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import Any

import orjson

try:  # CPython's builtin sha256, what hashlib falls back to: hashlib itself loads OpenSSL
    from _sha256 import sha256  # (3.5 MB of RSS for one digest per conversation)
except ImportError:  # pragma: no cover - other interpreters (3.12 renamed it _sha2)
    from hashlib import sha256

from traceview.analysis.by_index import finder
from traceview.analysis.columns import Columns
from traceview.analysis.item_compare import as_item, keyed, normalise
from traceview.analysis.transcript import (
    _response_body,
    capture_items,
    normalise_input,
    request_items,
)
from traceview.capture.calls import Calls
from traceview.capture.items import UNHELD_ITEMS

REASONS = {
    "deleted": "provider copy deleted",
    "expired": "provider copy expired",
    "compaction": "compaction (earlier items dropped, or replaced by an encrypted summary)",
    "evidence_missing": "hosted results not captured",
    "encrypted_reasoning": "encrypted reasoning the capture does not hold",
    "outside_capture": "items added outside the capture",
    "edited_history": "history edited or dropped by the application",
    "differs": "the provider's input differs from the rebuilt input",
    "no_provider_copy": "not verified: no provider copy of the final input",
    "no_request": "the final turn's request was not recorded",
}
_PRESENTATION = {"annotations", "logprobs"}


# ------------------------------------------------------------------------------ hashing


def canonical_item(item: Any) -> Any:
    stored = normalise_input(item) if isinstance(item, dict) else item
    obj = stored if stored is not None else item
    got = _canon(obj, True, None)
    return got if got is not _EMPTY else _empty_as(obj)


def _slow_canonical_item(item: Any) -> Any:
    """`canonical_item` as its definition reads: normalise, then strip (tests compare)."""
    stored = normalise_input(item) if isinstance(item, dict) else item
    return _strip(normalise(stored if stored is not None else item))


_EMPTY = object()  # what `_canon` returns where `normalise` would give an empty value


def _empty_as(obj: Any) -> Any:
    """The empty value `normalise` gives for `obj` (which `_canon` found empty)."""
    if isinstance(obj, dict):
        return {}
    if isinstance(obj, list):
        return []
    return obj


def _canon(obj: Any, top: bool, odd: list[Any] | None) -> Any:
    """`_strip(normalise(obj, top=top))` in one walk (a hosted conversation's rebuilt
    input is hashed item by item: the two walks were most of the hash's time), or _EMPTY
    where normalise's value is one it drops from a dict (None, [], {}, ""): it decides
    what normalise keeps before presentation fields are stripped.

    With `odd` a list (`canonical`, for orjson to write), a finite float is given as
    json.dumps writes it (its repr, an orjson.Fragment), and any other value but a str,
    int or bool (anything `default=str` would write) is appended to `odd`: then
    json.dumps writes the whole input."""
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        obj = as_item(obj, top)
        kept = False
        for key, val in obj.items():
            key, val = keyed(obj, key, val, top)
            if key is None:
                continue
            norm = _canon(val, False, odd)
            if norm is _EMPTY:
                continue
            kept = True
            if key not in _PRESENTATION:
                out[key] = norm
        return out if kept else _EMPTY
    if isinstance(obj, list):
        if not obj:
            return _EMPTY
        out_list = []
        for v in obj:
            norm = _canon(v, False, odd)
            out_list.append(norm if norm is not _EMPTY else _empty_as(v))
        return out_list
    if obj is None or obj == "":
        return _EMPTY
    if odd is not None and type(obj) not in _PLAIN:
        if type(obj) is float and obj - obj == 0.0:  # finite (json.dumps: NaN, Infinity)
            return orjson.Fragment(float.__repr__(obj).encode())
        odd.append(obj)
    return obj


_PLAIN = frozenset((str, int, bool))  # written alike by json.dumps and orjson


def _strip(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in _PRESENTATION}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def canonical(items: Sequence[Any]) -> bytes:
    """The canonical serialisation of an input (a list of items): json.dumps with sorted
    keys, no whitespace, UTF-8. Written by orjson, floats as json.dumps writes them (then
    the bytes are json.dumps's: tests/core/test_fidelity.py compares); by json.dumps when
    a value is anything but a str, int, bool or finite float, or orjson refuses one (an
    int past 64 bits, a key not a str, a lone surrogate)."""
    odd: list[Any] = []
    out = []
    for i in items:
        stored = normalise_input(i) if isinstance(i, dict) else i
        obj = stored if stored is not None else i
        got = _canon(obj, True, odd)
        out.append(got if got is not _EMPTY else _empty_as(obj))
    if not odd:
        try:
            return orjson.dumps(out, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # orjson.JSONEncodeError: json.dumps decides, as it always did
            pass
    return _json_canonical([canonical_item(i) for i in items])


def _json_canonical(values: list[Any]) -> bytes:
    return json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str).encode("utf-8")


def digest(items: Sequence[Any]) -> str:
    return sha256(canonical(items)).hexdigest()


def first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    """Index of the first item that differs (canonically), or None when equal."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if canonical_item(x) != canonical_item(y):
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


# ------------------------------------------------------------------------------ verdicts


@dataclass
class Received:
    """What the model received for a hosted final turn, and where that copy came from."""

    items: list[dict[str, Any]] | None
    origin: str  # live | snapshot | capture
    fetched_at: str | None = None
    complete: bool = True
    status: str = "ok"  # ok | not_found | error
    error: str | None = None


@dataclass(slots=True)
class Verdict:
    conversation: str  # the conversation key
    id: str | None
    mode: str  # owned | hosted
    final_turn: int | None
    final_response: str | None
    replays: bool
    reason: str | None  # a REASONS key
    # The sentence (`detail`): a str, or (turn, hosted call) for hosted results not
    # captured, made into its sentence when read — most verdicts of a hosted capture,
    # and the sentence was more than the rest of the verdict.
    _detail: str | tuple[int, Any]
    _rebuilt_sha256: str | None = None
    received_sha256: str | None = None
    received_from: str | None = None
    _rebuilt_items: int | None = None
    received_items: int | None = None
    # The rebuilt input, made when its hash or length is first read (a verdict the capture
    # settles without it: `assess` reads no body for it, and a screen that shows the
    # verdict's line never needs it); None once made, or when given whole.
    _rebuild: Callable[[], list[dict[str, Any]]] | None = None

    @property
    def rebuilt_sha256(self) -> str | None:
        if self._rebuild is not None:
            self._settle()
        return self._rebuilt_sha256

    @rebuilt_sha256.setter
    def rebuilt_sha256(self, value: str | None) -> None:
        self._rebuild = None
        self._rebuilt_sha256 = value

    @property
    def rebuilt_items(self) -> int | None:
        if self._rebuild is not None:
            self._settle()
        return self._rebuilt_items

    @rebuilt_items.setter
    def rebuilt_items(self, value: int | None) -> None:
        self._rebuild = None
        self._rebuilt_items = value

    def _settle(self) -> None:
        """Read and hash the rebuilt input. It runs where the verdict is read (a writer, a
        screen), outside the load's safety net (hosted_state.attach): a shape nothing
        anticipated leaves the hash unknown (None) rather than stopping that reader; the
        verdict itself was settled without it."""
        rebuild, self._rebuild = self._rebuild, None
        assert rebuild is not None
        try:
            rebuilt = rebuild()
            self._rebuilt_sha256 = digest(rebuilt)
            self._rebuilt_items = len(rebuilt)
        except Exception:  # noqa: BLE001 - a safety net, as attach's
            self._rebuilt_sha256 = self._rebuilt_items = None

    @property
    def detail(self) -> str:
        d = self._detail
        return d if isinstance(d, str) else _missing(*d)

    @detail.setter
    def detail(self, value: str | tuple[int, Any]) -> None:
        self._detail = value

    @property
    def status(self) -> str:
        if self.replays:
            return "replays"
        return "unverified" if self.reason == "no_provider_copy" else "fails"

    def line(self) -> str:
        """One line for the conversations screen and text output."""
        if self.replays:
            return f"replays (sha256 {self.rebuilt_sha256[:12] if self.rebuilt_sha256 else '?'}…)"
        return f"{self.status}: {REASONS.get(self.reason or '', self.reason)} — {self.detail}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "conversation": self.conversation, "id": self.id, "mode": self.mode,
            "final_turn": self.final_turn, "final_response": self.final_response,
            "status": self.status, "replays": self.replays, "reason": self.reason,
            "reason_text": REASONS.get(self.reason or "") if self.reason else None,
            "detail": self.detail, "rebuilt_sha256": self.rebuilt_sha256,
            "received_sha256": self.received_sha256, "received_from": self.received_from,
            "rebuilt_items": self.rebuilt_items, "received_items": self.received_items,
        }


# The reasons a verdict made again when read can have, by code: `_early_reason`'s, then
# those of a hosted conversation with no provider copy whose rebuilt input holds nothing
# `_late_reason` reads in items (its hash made when read: `Verdict._rebuild`).
_EARLY = ("deleted", "compaction", "evidence_missing")
_CODES = (*_EARLY, "no_provider_copy", "outside_capture")


class Fidelity:
    """The verdicts of one assessment, in conversation order.

    A hosted conversation whose verdict the capture alone settles (an early reason, no
    provider copy) is held as its conversation and the reason's code, and its `Verdict`
    made again when read (`_remake`: no body is read for it): most conversations of a
    hosted capture, and a verdict with its sentence and ids was most of the pass's
    memory. Every other verdict is held whole."""

    def __init__(self, verdicts: list[Verdict] | None = None, label: str = "now") -> None:
        self.label = label
        self._items: list[Any] = list(verdicts or [])  # a Verdict, or a conversation
        self._codes = bytearray(len(self._items))  # 0: whole; else 1 + index in _CODES
        # For a conversation: its final turn's index and the turn its reason names.
        self._final_at = array("q", bytes(8 * len(self._items)))
        self._reason_at = array("q", bytes(8 * len(self._items)))
        self._remake: Callable[[Any, int, int, int], Verdict] | None = None
        self._next = 0  # where `verdict` looks first

    @property
    def verdicts(self) -> _Verdicts:
        """Every verdict, made when read where it is not held."""
        return _Verdicts(self)

    def _add(self, item: Any, code: int = 0, final_at: int = 0, reason_at: int = 0) -> None:
        self._items.append(item)
        self._codes.append(code)
        self._final_at.append(final_at)
        self._reason_at.append(reason_at)

    def _verdict(self, k: int) -> Verdict:
        item = self._items[k]
        code = self._codes[k]
        if not code:
            return item  # type: ignore[no-any-return]
        assert self._remake is not None
        return self._remake(item, code, self._final_at[k], self._reason_at[k])

    def _reasons(self) -> Iterator[str | None]:
        """Each verdict's reason, in order, without making the verdicts."""
        for item, code in zip(self._items, self._codes, strict=True):
            yield _CODES[code - 1] if code else item.reason

    @property
    def score(self) -> float | None:
        """% of conversations that replay (None when there are none)."""
        if not self._items:
            return None
        return round(100.0 * self._replay() / len(self._items), 1)

    def _replay(self) -> int:
        return sum(item.replays for item, code in zip(self._items, self._codes, strict=True)
                   if not code)  # a verdict made again never replays: it has a reason

    def verdict(self, key: str) -> Verdict | None:
        """The verdict of conversation `key`. Looked for from just after the last one found:
        a screen asks for every conversation in order, one step each (from the start each
        time, a list of all was quadratic: minutes on a capture of 20,000), no map held."""
        items, codes = self._items, self._codes
        n = len(items)
        start = self._next if self._next < n else 0
        for k in chain(range(start, n), range(start)):
            item = items[k]
            if (item.key if codes[k] else item.conversation) == key:
                self._next = k + 1
                return self._verdict(k)
        return None

    def to_dict(self, *, verdicts: Any = None) -> dict[str, Any]:
        """`verdicts` replaces the list (a placeholder for a streaming writer)."""
        counts: dict[str, int] = {}
        for reason in self._reasons():
            counts[reason or "replays"] = counts.get(reason or "replays", 0) + 1
        return {"label": self.label, "score_pct": self.score,
                "conversations": len(self._items),
                "replay": self._replay(), "by_reason": counts,
                "verdicts": ([v.to_dict() for v in self.verdicts] if verdicts is None
                             else verdicts),
                "method": "sha256 of the canonical JSON of the final turn's input, rebuilt "
                          "from the capture, against the input the model received"}


class _Verdicts(Sequence[Verdict]):
    """A Fidelity's verdicts as a list reads them (each made when read where not held)."""

    __slots__ = ("_f",)

    def __init__(self, fidelity: Fidelity) -> None:
        self._f = fidelity

    def __len__(self) -> int:
        return len(self._f._items)

    def __getitem__(self, k: Any) -> Any:
        f = self._f
        if isinstance(k, slice):
            return [f._verdict(i) for i in range(*k.indices(len(f._items)))]
        if k < 0:
            k += len(f._items)
        if not 0 <= k < len(f._items):
            raise IndexError(k)
        return f._verdict(k)

    def __iter__(self) -> Iterator[Verdict]:
        f = self._f
        return (f._verdict(k) for k in range(len(f._items)))


def judge_owned(key: str, cid: str | None, final_turn: int, final_response: str | None,
                previous: list[dict[str, Any]] | None, final: list[dict[str, Any]],
                markers: dict[int, list[str]]) -> Verdict:
    """An owned-state conversation: the final request must extend the previous turn's
    input and output (`previous`, None for a first turn)."""
    prefix = previous or []
    rebuilt = prefix + final[len(prefix):]
    # A first turn's rebuild is its own request, item for item: one hash serves both.
    f_hash = digest(final)
    r_hash = digest(rebuilt) if previous else f_hash
    v = Verdict(key, cid, "owned", final_turn, final_response, r_hash == f_hash, None, "",
                r_hash, f_hash, f"own request (turn {final_turn})", len(rebuilt), len(final))
    if v.replays:
        v.detail = (f"the final request (turn {final_turn}) is the earlier turns' input and "
                    f"output plus {len(final) - len(prefix)} new item(s)" if previous else
                    f"a single turn: its input is its own request ({len(final)} item(s))")
        return v
    where = first_difference(prefix, final[:len(prefix)])
    # Only an explicit compaction (a compaction item or compact call) is the provider's
    # doing here; a fall in billed input on an owned transcript is the application sending
    # less, i.e. history dropped.
    comp = _first_marker(markers, final_turn, ("compaction",))
    if comp is not None:
        v.reason = "compaction"
        v.detail = f"compaction on turn {comp[0]}: the final request no longer resends history"
    else:
        v.reason = "edited_history"
        v.detail = (f"the final request (turn {final_turn}) differs from the previous turn's "
                    f"input and output at item {where if where is not None else len(final)}"
                    f" ({len(final)} item(s) sent, {len(prefix)} expected before the new ones)")
    return v


def judge_hosted(key: str, cid: str | None, final_turn: int, final_response: str | None,
                 rebuilt: list[dict[str, Any]] | None, received: Received | None,
                 static: tuple[str, Any] | None) -> Verdict:
    """A hosted conversation: the rebuild against the provider's input_items.

    `static` is the first reason the rebuild cannot be exact whatever the provider says
    (compaction, evidence not captured, …), found from the capture alone; with one, the
    rebuild may be skipped (`rebuilt` None: no local hash is reported).
    """
    r_hash = digest(rebuilt) if rebuilt is not None else None
    v = Verdict(key, cid, "hosted", final_turn, final_response, False, None, "", r_hash,
                None, None, len(rebuilt) if rebuilt is not None else None, None)
    got = received if received is not None and received.status == "ok" else None
    if got is not None and got.items is not None:
        v.received_sha256 = digest(got.items)
        v.received_items = len(got.items)
        v.received_from = _from(got)
    if received is not None and received.status == "not_found" and (
            static is None or static[0] not in ("deleted",)):
        v.reason = "expired"
        v.received_from = _from(received)
        v.detail = (f"the provider no longer has response {final_response} "
                    f"({received.error or 'not found'}; listed {received.origin}"
                    f"{' on ' + received.fetched_at if received.fetched_at else ''})")
        return v
    if static is not None:
        v.reason, v.detail = static
        return v
    if received is not None and received.status == "error":
        v.reason = "no_provider_copy"
        v.detail = f"the provider's input_items could not be read: {received.error}"
        return v
    if got is None or got.items is None:
        v.reason = "no_provider_copy"
        v.detail = ("the provider's input_items for the final turn were not read: pass --live "
                    "or --items SNAPSHOT")
        return v
    if not got.complete:
        v.reason = "differs"
        v.detail = "the provider copy is partial (not every page was read)"
        return v
    if v.received_sha256 == r_hash:
        v.replays = True
        v.detail = (f"{len(rebuilt)} item(s) rebuilt from the capture hash the same as the "
                    f"provider's input_items ({v.received_from})")
        return v
    where = first_difference(rebuilt, got.items)
    if len(got.items) > len(rebuilt) and where == len(rebuilt):
        v.reason = "outside_capture"
        v.detail = (f"the provider's input has {len(got.items) - len(rebuilt)} item(s) after the "
                    "capture's (another client, or the Conversations API)")
    elif len(got.items) > len(rebuilt):
        v.reason = "outside_capture"
        v.detail = (f"the provider's input has {len(got.items)} items, the capture rebuilds "
                    f"{len(rebuilt)}; first difference at item {where}")
    else:
        v.reason = "differs"
        v.detail = f"first difference at item {where} (provider {len(got.items)} items, " \
                   f"capture {len(rebuilt)})"
    return v


def _from(r: Received) -> str:
    when = f" fetched {r.fetched_at}" if r.fetched_at else ""
    return f"provider input_items ({r.origin}{when})"


def _first_marker(markers: dict[int, list[str]], upto: int,
                  wanted: tuple[str, ...]) -> tuple[int, str] | None:
    for idx in sorted(markers):
        if idx > upto:
            break
        for m in markers[idx]:
            if m in wanted:
                return idx, m
    return None


# ------------------------------------------------------------------------------ over an Analysis


def assess(analysis: Any, received: dict[str, Received] | None = None,
           objects: Any = None, label: str = "now", ahead: Any = None) -> Fidelity:
    """The verdict of every conversation of an analysed capture.

    `received` maps a final response id to the provider's copy of its input; without one,
    a recorded ``GET …/input_items`` listing in the capture is used when there is one.
    `objects` (analysis/objects.py) tells which provider copies the capture deleted.
    `ahead` (analysis/ahead.py): the verdicts of the first conversations, made while the
    capture loaded, taken when it can show they are these (nothing received, recorded,
    written or deleted, and its own checks).
    """
    cap = analysis.capture
    turn = finder(analysis.turns)
    recorded = recorded_input_items(cap)
    writes = conversation_writes(cap)
    deleted = objects.deleted_ids() if objects is not None else {}
    out = Fidelity(label=label)
    conversations: Sequence[Any] = analysis.conversations
    rest = None  # the table rows left after those judged ahead
    if ahead is not None and not received and not recorded and not writes and not deleted:
        made = ahead.verdicts(analysis, label)
        if made is not None:
            out, done, rest = made
            conversations = conversations[done:]
    calls = _HostedCalls()
    out._remake = _Remake(turn, deleted, calls, cap, writes)
    rows_of = _Rows.of(analysis.turns)
    if rows_of is not None and rest is not None:
        rows_of.bind_rows(rest, bytearray(1))  # the rest's rows only
    elif rows_of is not None:
        rows_of.bind()
    for conv in conversations:
        if rows_of is not None:  # read from the columns: views made only where needed
            rows = rows_of.rows(conv.turn_indices)
            found = rows_of.final(rows)
            if found is None:
                continue
            views = rows_of.views(rows)
            turns: Sequence[Any] = views
            final = views.view(rows[found[0]])
            prev = views.view(rows[found[1]]) if found[1] >= 0 else None
        else:
            turns = [t for t in map(turn, conv.turn_indices) if t is not None]
            final, prev = _final(turns)
            if final is None:
                continue
        rid = final.response_id
        if final.turn.conversation_id or final.turn.previous_response_id:
            got = (received or {}).get(rid or "") or recorded.get(rid or "")
            if rows_of is not None:
                early = rows_of.early(conv, turns, final.index, deleted, rid, calls,
                                      call=got is not None)
            else:
                early = _early(conv, turns, final, deleted, rid, calls)
            static = early[:2] if early is not None else None
            if early is not None and got is None:  # settled: made again when read
                out._add(conv, 1 + _EARLY.index(early[0]), final.index, early[2])
                continue
            if (got is None and rows_of is not None
                    and not (final.turn.conversation_id and writes.get(conv.id or ""))
                    and rows_of.held(turns._rows, final.index)):  # type: ignore[attr-defined]
                # No item of its rebuild can give a reason: settled from the turns alone.
                late = _late_reason(turns, final, [])
                out._add(conv, 1 + _CODES.index(late[0] if late else "no_provider_copy"),
                         final.index)
                continue
            turns = list(turns)
            # The rebuild reads every body of the conversation: skipped when a reason is
            # already certain and there is no provider copy to hash against.
            rebuilt = (_rebuilt_hosted(cap, conv, turns, final, writes)
                       if static is None or got is not None else None)
            if static is None and rebuilt is not None:
                static = _late_reason(turns, final, rebuilt)
            out._add(judge_hosted(conv.key, conv.id, final.index, rid, rebuilt, got, static))
        else:
            turns = list(turns)
            markers = {t.index: list(t.markers) for t in turns}
            final_items = _request_items(cap, final)
            previous = (_request_items(cap, prev) + _response_items(cap, prev)
                        if prev is not None else None)
            v = judge_owned(conv.key, conv.id, final.index, rid, previous, final_items,
                            markers)
            if rid and rid in deleted:
                v.detail += (f"; the provider's stored copy was deleted (line {deleted[rid]}), "
                             "which an owned transcript does not need")
            out._add(v)
    return out


def settled(rows_of: _Rows, conv: Any, calls: _HostedCalls) -> tuple[int, int, int] | bool:
    """What `assess`'s loop adds for `conv`, read from the columns, when nothing was
    received, no listing or conversation write recorded and nothing deleted, if one of its
    settled exits takes it: (code, final turn, reason's turn) for `Fidelity._add`; True
    when it has no final turn (nothing is added); False when neither (the loop would read
    its bodies). The ledger built ahead (analysis/ahead.py) asks it while a capture loads;
    tests/core/test_ledger_ahead.py compares the report with `assess`'s own."""
    rows = rows_of.rows(conv.turn_indices)
    found = rows_of.final(rows)
    if found is None:
        return True
    views = rows_of.views(rows)
    final = views.view(rows[found[0]])
    if not (final.turn.conversation_id or final.turn.previous_response_id):
        return False  # judged owned: from the request bodies
    early = rows_of.early(conv, views, final.index, {}, final.response_id, calls, call=False)
    if early is not None:
        return 1 + _EARLY.index(early[0]), final.index, early[2]
    if rows_of.held(rows, final.index):
        late = _late_reason(views, final, [])
        return 1 + _CODES.index(late[0] if late else "no_provider_copy"), final.index, 0
    return False


class _Rows:
    """The analysis's turns over one table (analysis/reports.py), read from the columns:
    a conversation's rows from its turn indices (as `finder` finds its turns) and the
    early reasons of `_early` from the markers and hosted call columns, no view made."""

    def __init__(self, turns: Any, cols: Any) -> None:
        self._turns = turns
        self._cols = cols
        self._map: dict[int, int] | None = None

    @classmethod
    def of(cls, turns: Any) -> _Rows | None:
        parts = getattr(turns, "_parts", None)
        if type(parts) is not list or len(parts) != 1 or not hasattr(turns, "rows"):
            return None
        table = getattr(parts[0], "table", None)
        return cls(turns, parts[0]) if hasattr(table, "res_row") else None

    def rows(self, indices: Sequence[int]) -> list[int]:
        rows, index = self._turns.rows(), self._cols.table.index
        try:  # the usual case: turn i at position i - 1, checked whole (in C)
            out = [rows[i - 1] for i in indices]
            if list(map(index.__getitem__, out)) == list(indices):
                return out
        except IndexError:
            pass
        n = len(rows)
        out = []
        for i in indices:
            if 0 < i <= n:
                r = rows[i - 1]
                if index[r] == i:
                    out.append(r)
                    continue
            if self._map is None:  # indices with gaps (finder's map, made once)
                self._map = {index[r]: r for r in rows}
            r = self._map.get(i)  # type: ignore[assignment]
            if r is not None:
                out.append(r)
        return out

    def views(self, rows: list[int]) -> _Views:
        return _Views(self._cols, rows)

    def final(self, rows: list[int]) -> tuple[int, int] | None:
        """`_final` over rows: (position of the final turn's row, of the one before it,
        -1 for none), None when no turn has a request; read from the columns."""
        t = self._cols.table
        req_source, api, values = t.req_source, t.api, t.pool.values
        final = -1
        for k in range(len(rows) - 1, -1, -1):
            r = rows[k]
            if req_source[r] >= 0 and values[api[r]] != "compact":
                if final >= 0:
                    return final, k
                final = k
        return (final, -1) if final >= 0 else None

    def bind(self) -> None:
        """What `early` and `held` ask of every row, found once for the whole table: the
        marker lists naming a compaction, the response rows with a call whose evidence is
        missing (None: the hosted calls are not in their columns), the rows whose facts
        hold UNHELD_ITEMS."""
        cols = self._cols
        t = cols.table
        self._compaction = frozenset(
            k for k, m in enumerate(cols.marker_lists)
            if m and ("compaction" in m or "compaction_likely" in m))
        self._missing = _missing_rows(t.responses.dicts["hosted_calls"],
                                      len(t.responses.flags))
        self._unheld_q = frozenset(k for k, x in t.requests.dicts["extra"].items()
                                   if UNHELD_ITEMS in x)
        self._unheld_s = frozenset(k for k, x in t.responses.dicts["extra"].items()
                                   if UNHELD_ITEMS in x)
        # A record without facts (none is expected): its rows are read, never settled.
        self._no_facts = -1 in t.req_row or -1 in t.res_row

    def bind_rows(self, rows: range, missing: bytearray) -> None:
        """`bind` for the turns at table rows `rows` only (the ledger built ahead asks
        `early` and `held` of a slice's conversations while the table grows): `missing`
        is a byte per response row (`_missing_rows`), those of `rows` set here."""
        cols = self._cols
        t = cols.table
        self._compaction = frozenset(
            k for k, m in enumerate(cols.marker_lists)
            if m and ("compaction" in m or "compaction_likely" in m))
        qrows, srows = t.req_row[rows.start:rows.stop], t.res_row[rows.start:rows.stop]
        self._no_facts = -1 in qrows or -1 in srows
        got = [s for s in srows if s >= 0]
        if got:
            _missing_between(t.responses.dicts["hosted_calls"], min(got), max(got) + 1,
                             missing)
        self._missing = missing
        q_extra, s_extra = t.requests.dicts["extra"], t.responses.dicts["extra"]
        self._unheld_q = frozenset(
            k for k in (qrows if q_extra else ()) if UNHELD_ITEMS in q_extra.get(k, ()))
        self._unheld_s = frozenset(
            k for k in (srows if s_extra else ()) if UNHELD_ITEMS in s_extra.get(k, ()))

    def held(self, rows: list[int], last: int) -> bool:
        """Whether the records of `rows` up to turn `last` hold every item of the rebuild
        `_late_reason` could read: no request or response the facts marked UNHELD_ITEMS,
        and facts for every record there is (a record without them is read)."""
        t = self._cols.table
        index, req_row, res_row = t.index, t.req_row, t.res_row
        if not self._no_facts:  # in C: no row of the conversation marked
            if last < max(map(index.__getitem__, rows)):
                rows = [r for r in rows if index[r] <= last]
            return (self._unheld_q.isdisjoint(map(req_row.__getitem__, rows))
                    and self._unheld_s.isdisjoint(map(res_row.__getitem__, rows)))
        req_source, res_source = t.req_source, t.res_source
        q_extra, s_extra = t.requests.dicts["extra"], t.responses.dicts["extra"]
        for r in rows:
            if index[r] > last:
                continue
            qi, si = req_row[r], res_row[r]
            if qi >= 0:
                x = q_extra.get(qi)
                if x is not None and UNHELD_ITEMS in x:
                    return False
            elif req_source[r] >= 0:
                return False
            if si >= 0:
                x = s_extra.get(si)
                if x is not None and UNHELD_ITEMS in x:
                    return False
            elif res_source[r] >= 0:
                return False
        return True

    def early(self, conv: Any, turns: _Views, last: int, deleted: dict[str, int], rid: Any,
              calls: _HostedCalls, call: bool) -> tuple[str, Any, int] | None:
        """`_early` over the rows of `turns`; the hosted call of "evidence_missing" is
        found only when `call` is true (else None: the verdict is made again when read)."""
        found = _deleted_reason(conv, rid, deleted)
        if found is not None:
            return found[0], found[1], 0
        cols = self._cols
        table = cols.table
        index, marker_ids = table.index, cols.marker_ids
        rows = turns._rows
        if last < max(map(index.__getitem__, rows)):
            rows = [r for r in rows if index[r] <= last]
        if not self._compaction.isdisjoint(map(marker_ids.__getitem__, rows)):
            for r in rows:
                if marker_ids[r] in self._compaction:
                    found = _compaction_reason(turns.view(r))
                    assert found is not None
                    return found[0], found[1], index[r]
        res_row = table.res_row
        hosted = table.responses.dicts["hosted_calls"]
        missing = self._missing
        if missing is not None:  # in C: no earlier response with a missing call
            earlier = [res_row[r] for r in rows if index[r] != last]
            if 1 not in map(missing.__getitem__, earlier):
                return None
            for r in rows:
                i = index[r]
                if i != last and res_row[r] >= 0 and missing[res_row[r]]:
                    if not call:  # no call made: the verdict is made again
                        return "evidence_missing", None, i
                    got = next(c for c in hosted.get(res_row[r], ())
                               if c.evidence == "missing")
                    return "evidence_missing", (i, got), i
            return None
        has = getattr(hosted, "has", None)
        before = [(r, index[r]) for r in rows]
        for r, i in before:
            if i == last:
                continue
            si = res_row[r]
            if si < 0 or (has is not None and not has(si, "missing")):
                continue
            if has is not None and not call:  # no call made: the verdict is made again
                return "evidence_missing", None, i
            got = next((c for c in hosted.get(si, ()) if c.evidence == "missing"), None)
            if got is not None:
                return "evidence_missing", (i, got), i
        return None


def _missing_rows(hosted: Any, n: int) -> bytearray | None:
    """1 at each of the `n` response rows with a hosted call whose evidence is missing, and
    a 0 after them (a row -1: none), read from the calls' columns (capture/calls.py: a
    call's shape is (type, status, evidence, include, detail)); None when the calls are not
    held there. A byte a row, no int object: the pass leaves no RSS behind it."""
    if not isinstance(hosted, Calls):
        return None
    values, shape, rows, ends = hosted.pool.values, hosted.shape, hosted.rows, hosted.ends
    found = bytearray(n + 1)
    for kind in set(shape):
        v = values[kind]
        if type(v) is not tuple or v[2] != "missing":
            continue
        if type(shape) is bytearray:  # each call of that shape found in C
            at = shape.find(kind)
            while at >= 0:
                k = bisect_right(ends, at)  # the row whose calls hold position `at`
                found[rows[k]] = 1
                at = shape.find(kind, ends[k])  # that row's other calls are not looked at
        else:
            for i, m in enumerate(shape):
                if m == kind:
                    found[rows[bisect_right(ends, i)]] = 1
    for row in hosted.changed or ():  # calls set out of order: read whole
        found[row] = any(c.evidence == "missing" for c in hosted.get(row, ()))
    return found


def _missing_between(hosted: Calls, lo: int, hi: int, found: bytearray) -> None:
    """`_missing_rows` of response rows [lo, hi) into `found` (grown to hi + 1 bytes, its
    last 0: a row -1 reads it), for calls held in their columns, none set again out of
    order."""
    if len(found) < hi + 1:
        del found[-1:]
        found.extend(bytes(hi + 1 - len(found)))
    values, shape, rows, ends = hosted.pool.values, hosted.shape, hosted.rows, hosted.ends
    k0, k1 = bisect_left(rows, lo), bisect_left(rows, hi)
    p0, p1 = (ends[k0 - 1] if k0 else 0), (ends[k1 - 1] if k1 else 0)
    for kind in set(shape[p0:p1]):
        v = values[kind]
        if type(v) is not tuple or v[2] != "missing":
            continue
        if type(shape) is bytearray:
            at = shape.find(kind, p0, p1)
            while at >= 0:
                k = bisect_right(ends, at)
                found[rows[k]] = 1
                at = shape.find(kind, ends[k], p1)
        else:
            for i in range(p0, p1):
                if shape[i] == kind:
                    found[rows[bisect_right(ends, i)]] = 1


class _Views(Sequence[Any]):
    """A conversation's turns as views made when read (TurnReport over the columns)."""

    __slots__ = ("_cols", "_rows")

    def __init__(self, cols: Any, rows: list[int]) -> None:
        self._cols = cols
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def view(self, r: int) -> Any:
        from traceview.analysis.turn_report import TurnReport  # it imports analysis modules

        return TurnReport(self._cols, r)

    def __getitem__(self, j: Any) -> Any:
        if isinstance(j, slice):
            return [self.view(r) for r in self._rows[j]]
        return self.view(self._rows[j])

    def __iter__(self) -> Iterator[Any]:
        return map(self.view, self._rows)


def _final(turns: Sequence[Any]) -> tuple[Any, Any]:
    """The final turn with a request (a compact call is not one), and the one before it:
    found from the end, so most turns are not read at all here."""
    final = prev = None
    for t in reversed(turns):
        if t.request_ref is not None and t.api != "compact":
            if final is not None:
                prev = t
                break
            final = t
    return final, prev


class _Remake:
    """The verdict of a hosted conversation the capture alone settled (`assess` held the
    conversation, the reason's code, its final turn and the turn the reason names): the
    same verdict from those two turns, no body read and no walk of the conversation.

    A conversation with no provider copy whose records hold no item `_late_reason` reads
    (the facts' UNHELD_ITEMS) is settled too: its late reason is read from its turns (no
    item), and its rebuilt input — read, hashed — only when the verdict's hash or length
    is read (`Verdict._rebuild`)."""

    __slots__ = ("_turn", "_deleted", "_calls", "_cap", "_writes")

    def __init__(self, turn: Callable[[int], Any], deleted: dict[str, int],
                 calls: _HostedCalls, cap: Any = None,
                 writes: dict[str, list[Any]] | None = None) -> None:
        self._turn = turn
        self._deleted = deleted
        self._calls = calls
        self._cap = cap
        self._writes = writes or {}

    def __call__(self, conv: Any, code: int, final_at: int, reason_at: int) -> Verdict:
        final = self._turn(final_at)
        rid = final.response_id
        reason = _CODES[code - 1]
        if code > len(_EARLY):  # no provider copy, no item read: its hash made when read
            turns = [t for t in map(self._turn, conv.turn_indices) if t is not None]
            v = judge_hosted(conv.key, conv.id, final_at, rid, None, None,
                             _late_reason(turns, final, []))
            v._rebuild = partial(_rebuilt_hosted, self._cap, conv, turns, final,
                                 self._writes)
            return v
        if reason == "deleted":
            static = _deleted_reason(conv, rid, self._deleted)
        elif reason == "compaction":
            static = _compaction_reason(self._turn(reason_at))
        else:
            t = self._turn(reason_at)
            static = reason, (reason_at, next(c for c in self._calls(t.turn)
                                              if c.evidence == "missing"))
        assert static is not None
        return judge_hosted(conv.key, conv.id, final_at, rid, None, None, static)


def _body(cap: Any, ref: Any) -> dict[str, Any] | None:
    rec = cap.read(ref) if ref is not None else None
    body = rec.get("body") if isinstance(rec, dict) else None
    return body if isinstance(body, dict) else None


def _request_items(cap: Any, t: Any) -> list[dict[str, Any]]:
    body = _body(cap, t.request_ref)
    if body is None:
        return []
    if isinstance(body.get("messages"), list):  # Chat Completions
        return [m for m in body["messages"] if isinstance(m, dict)]
    items = request_items(body)
    if isinstance(body.get("instructions"), str) and body["instructions"]:
        items = [{"type": "message", "role": "developer",
                  "content": [{"type": "input_text", "text": body["instructions"]}]}, *items]
    return items


def _response_items(cap: Any, t: Any) -> list[dict[str, Any]]:
    rec = cap.read(t.response_ref) if t.response_ref is not None else None
    if not isinstance(rec, dict):
        return []
    body = rec.get("body")
    if isinstance(body, dict) and isinstance(body.get("choices"), list):  # Chat Completions
        msgs = [c.get("message") for c in body["choices"] if isinstance(c, dict)]
        return [m for m in msgs[:1] if isinstance(m, dict)]
    body = _response_body(rec)
    out = body.get("output") if isinstance(body, dict) else None
    return [i for i in out if isinstance(i, dict)] if isinstance(out, list) else []


def _rebuilt_hosted(cap: Any, conv: Any, turns: list[Any], final: Any,
                    writes: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """The capture's items of a hosted conversation up to the final turn's input, in stored
    order: each turn's input and output, and items the application wrote through the
    Conversations API (`writes`, by conversation id). Reads only this conversation's bodies."""
    rows: list[tuple[int, int, int | None, Any, Any]] = []
    for t in turns:
        if t.api != "responses" or t.index > final.index:
            continue
        req = _body(cap, t.request_ref)
        # The final turn's output is not part of its input: its response is not read.
        ref = t.response_ref if t.index != final.index else None
        res = _response_body(cap.read(ref)) if ref is not None else None
        rows.append((t.turn.source, t.line, t.index, req, res))
    for ex in writes.get(conv.id or "", []) if final.turn.conversation_id else []:
        if (ex.source, ex.line) < (final.turn.source, final.line):
            rows.append((ex.source, ex.line, None, _body(cap, ex.request),
                         _body(cap, ex.response)))
    rows.sort(key=lambda r: (r[0], r[1]))
    return [ci.item for _s, _l, turn, req, res in rows
            for ci in capture_items([(turn, req, res)])]


def conversation_writes(cap: Any) -> dict[str, list[Any]]:
    """Conversations API writes (create with items, add items) by conversation id."""
    out: dict[str, list[Any]] = {}
    for ex in getattr(cap, "exchanges", []):
        if (ex.conversation_id and ex.method == "POST" and ex.status_code in (None, 200)
                and ex.path.rstrip("/").endswith(("/conversations", "/items"))):
            out.setdefault(ex.conversation_id, []).append(ex)
    return out


def _early_reason(conv: Any, turns: list[Any], final: Any,
                  deleted: dict[str, int], rid: Any = False,
                  calls: _HostedCalls | None = None) -> tuple[str, Any] | None:
    """Reasons known from the analysed turns alone, no body read: deleted, compaction,
    hosted results not captured (the first three of the order). `rid`: the final turn's
    response id, when the caller has read it; `calls`: the reader of hosted calls (one
    per pass: it holds the table's columns)."""
    early = _early(conv, turns, final, deleted, rid, calls)
    return early[:2] if early is not None else None


def _early(conv: Any, turns: list[Any], final: Any, deleted: dict[str, int],
           rid: Any = False, calls: _HostedCalls | None = None,
           ) -> tuple[str, Any, int] | None:
    """`_early_reason`, with the index of the turn the reason names (0: none)."""
    found = _deleted_reason(conv, final.response_id if rid is False else rid, deleted)
    if found is not None:
        return found[0], found[1], 0
    last = final.index
    before = [(t, i) for t in turns if (i := t.index) <= last]
    for t, i in before:
        if t.markers:
            found = _compaction_reason(t)
            if found is not None:
                return found[0], found[1], i
    if calls is None:
        calls = _HostedCalls()
    for t, i in before:
        if i == last:
            continue
        for c in calls(t.turn):
            if c.evidence == "missing":
                return "evidence_missing", (i, c), i  # its sentence: _missing
    return None


def _deleted_reason(conv: Any, rid: str | None, deleted: dict[str, int],
                    ) -> tuple[str, str] | None:
    for oid in (conv.id, rid):
        if oid and oid in deleted:
            return "deleted", (f"provider copy deleted (line {deleted[oid]}); the local record "
                               "stays whole and readable")
    return None


def _compaction_reason(t: Any) -> tuple[str, str] | None:
    m = t.markers
    if "compaction" in m:
        return "compaction", (f"compaction on turn {t.index}: an encrypted summary replaced "
                              "earlier items")
    if "compaction_likely" in m:
        return "compaction", (f"likely compaction on turn {t.index}: billed input fell with "
                              "no signal in the capture, so the provider dropped or "
                              "summarised items")
    return None


class _HostedCalls:
    """A turn's hosted calls as its facts hold them: read from its table's columns (a
    dict lookup) rather than through the response's view, made per call."""

    def __init__(self) -> None:
        self._cols: Columns | None = None

    def __call__(self, turn: Any) -> Any:
        table = getattr(turn, "table", None)
        if table is None:
            res = turn.res
            return res.hosted_calls if res is not None else ()
        c = self._cols
        if c is None or c.table is not table or c.version != table.version:
            c = self._cols = Columns(table)  # bound again when a column widened
        si = c.res_row[turn.row]
        return c.s_hosted.get(si, ()) if si >= 0 else ()


def _missing(turn: int, call: Any) -> str:
    """The sentence of hosted results not captured: `call` (the facts' hosted call) on
    `turn`."""
    flag = f' (add include=["{call.include}"])' if call.include else ""
    return f"{call.type.removesuffix('_call')} results on turn {turn} were not captured{flag}"


def _late_reason(turns: list[Any], final: Any,
                 rebuilt: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Reasons that need the rebuilt items: a compaction summary in them, encrypted
    reasoning, then items added outside the capture."""
    if any(i.get("type") == "compaction" for i in rebuilt):
        return "compaction", "the rebuilt input holds an encrypted compaction summary"
    for i in rebuilt:
        if i.get("type") == "reasoning" and not i.get("encrypted_content"):
            return "encrypted_reasoning", (
                "the provider holds reasoning items the capture has only by id; capture them "
                'with include=["reasoning.encrypted_content"]')
    first = turns[0] if turns else None
    if (first is not None and first.turn.previous_response_id
            and not any(t.response_id == first.turn.previous_response_id for t in turns)):
        return "outside_capture", (f"the chain continues response "
                                   f"{first.turn.previous_response_id}, which is not in the "
                                   "capture")
    for t in turns:
        if t.index <= final.index and "deposit" in t.markers and not t.attribution:
            # No count when the usage contradicts itself (cached above input): the deposit
            # is still named, without a number the capture does not support.
            n = t.unexplained_tokens
            what = f"≈ {n:,} tokens" if isinstance(n, int) else "context"
            return "outside_capture", (f"{what} entered before turn {t.index} with no "
                                       "request or hosted call in the capture")
    return None


def recorded_input_items(cap: Any) -> dict[str, Received]:
    """``GET /responses/{id}/input_items`` listings recorded in the capture, pages merged
    (a page with ``after=`` continues the listing before it), oldest first."""
    walks: dict[str, tuple[bool, list[dict[str, Any]], bool]] = {}
    found: dict[str, Received] = {}
    for ex in getattr(cap, "exchanges", []):
        if ex.method != "GET" or not ex.path.rstrip("/").endswith("/input_items"):
            continue
        rid = ex.path.rstrip("/").split("/")[-2]
        if ex.status_code not in (None, 200):
            if ex.status_code == 404:
                found[rid] = Received(None, "capture", status="not_found",
                                      error=f"HTTP 404 at line {ex.line}")
            continue
        rec = cap.read(ex.response)
        body = rec.get("body") if isinstance(rec, dict) else None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            continue
        items = [i for i in data if isinstance(i, dict)]
        desc = "order=asc" not in (ex.query or "")
        more = body.get("has_more") is True
        if rid in walks and "after=" in (ex.query or ""):
            walks[rid][1].extend(items)
            walks[rid] = (walks[rid][0], walks[rid][1], more)
        else:
            walks[rid] = (desc, items, more)
    for rid, (desc, items, more) in walks.items():
        found[rid] = Received(list(reversed(items)) if desc else items, "capture",
                              complete=not more)
    return found
