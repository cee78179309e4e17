"""Replay fidelity's verdicts: one per conversation, whether its last input can be rebuilt,
exactly, from what is held locally, and if not, the one reason why.

A conversation that does not replay gets exactly one reason, the first that applies:
provider copy deleted / expired, compaction, hosted results not captured, encrypted
reasoning, items added outside the capture, then whatever the hashes show. The pass
that judges an analysed capture is analysis/hosted/fidelity.py.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from traceview.analysis.hosted.canonical import digest, first_difference

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
        screen), outside the load's safety net (hosted/attach.py): a shape nothing
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
        return d if isinstance(d, str) else missing_sentence(*d)

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


# The reasons a verdict made again when read can have, by code: the early reasons (known
# from the turns), then those of a hosted conversation with no provider copy whose records
# hold no item a late reason reads (its hash made when read: `Verdict._rebuild`).
EARLY = ("deleted", "compaction", "evidence_missing")
CODES = (*EARLY, "no_provider_copy", "outside_capture")


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
        self._codes = bytearray(len(self._items))  # 0: whole; else 1 + index in CODES
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
            yield CODES[code - 1] if code else item.reason

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
    assert rebuilt is not None  # the caller rebuilds whenever it has a copy to hash against
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




def missing_sentence(turn: int, call: Any) -> str:
    """The sentence of hosted results not captured: `call` (the facts' hosted call) on
    `turn`."""
    flag = f' (add include=["{call.include}"])' if call.include else ""
    return f"{call.type.removesuffix('_call')} results on turn {turn} were not captured{flag}"
