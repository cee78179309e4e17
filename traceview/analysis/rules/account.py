"""Each turn's input account: its request's half (request_half.py, made in a worker for a
large capture, else here from the request body read again by its byte range) joined with
the response's lines.

The core keeps only small per-turn summaries, so an account is reduced at once to what the
rules and the report need: the components as pooled tuples (turns repeat their framing,
tools and handles, so a capture's accounts share most lines), the account's sum, and the
parts the next turn of a hosted conversation compares against (its instructions, tools and
schema). The response is not read: its hosted calls and start time are in the turn's facts.
Reasoning items a request resends get their producing turn's reasoning tokens by reading
the few recent responses that produced reasoning, and only when a request resends some.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any, NamedTuple

from traceview.analysis.account.account import (
    RequestFacts,
    preamble_era,
    response_components,
)
from traceview.analysis.account.carried import CarriedCount
from traceview.analysis.account.framing import CHAT, RESPONSES, framing_for
from traceview.analysis.account.model import Component
from traceview.analysis.account.sized import Asking, measured
from traceview.analysis.account.tokens import encoding_name, remember
from traceview.analysis.rules.request_half import STATIC, Half, Line, request_half
from traceview.capture.model import RecordRef, Turn

# The carried line of a conversation the capture created with no items.
_EMPTY = Component("carried", "", 0, "known",
                   reason="the conversation was created empty in this capture: nothing carried"
                          " yet")
_RECENT = 16  # responses with reasoning kept for a later resend (the tool loop's turns)
_PRODUCED = 4096  # reasoning item ids remembered, oldest forgotten first
_RESPONSES = 4096  # distinct response-line combinations remembered (a hostile capture: more)


class Static(NamedTuple):
    """What a request sends again each turn: the known sum, the unknown lines, and each
    kind's lines (for what changed)."""

    known: int
    unknown: tuple[tuple[str, str], ...]
    kinds: tuple[tuple[str, tuple[tuple[str, int | None], ...]], ...]


class TurnAccount(NamedTuple):
    """One turn's account, reduced."""

    lines: tuple[Line, ...]
    expected: int | None  # the sum, None when a line is unknown
    hosted: bool  # a conversation handle or previous_response_id: carried on the provider
    items: int | None  # the input items' tokens (None: one is unknown)
    items_unknown: str | None  # why `items` is None
    static: Static
    resent: tuple[int, int] | None  # history sent again on a hosted turn: (tokens, items)
    compactable: bool  # truncation "auto", context management, a compaction item or stored state
    # What an output message of the previous turn costs as this turn's input beyond its
    # output tokens: the message framing less the end token its output count included.
    carried_message: int

    def started_empty(self) -> TurnAccount:
        """This account on the first turn of a conversation the capture created empty:
        nothing is carried, so the lines' sum is the expectation (the visible case)."""
        lines = tuple(_EMPTY if line[0] == "carried" else line for line in self.lines)
        return self._replace(lines=lines, expected=_expected(lines), hosted=False)


def _expected(lines: tuple[Line, ...]) -> int | None:
    """The lines' sum, None when one is unknown (never a guessed 0)."""
    tokens = [line[2] for line in lines]
    return None if None in tokens else sum(t for t in tokens if t is not None)


def _fit(half: Half, model: str | None, chat: bool) -> Half | None:
    """A worker's half (made for the request's model) as the turn's, when the turn's
    model counts and frames the request the same way (a dated response model, say); None
    when it must be made again. Media lines depend on the model's own image rules."""
    made, name = half.facts.model, model or half.facts.model
    if half.chat != chat:
        return None
    if name == made:
        return half
    api = CHAT if chat else RESPONSES
    if half.facts.media or encoding_name(name)[0] != encoding_name(made)[0] \
            or framing_for(name, api) != framing_for(made, api):
        return None
    return half._replace(facts=half.facts._replace(model=name))


def _body(record: dict[str, Any] | None) -> Any:
    return record.get("body") if isinstance(record, dict) else None


class Accounts:
    """Makes each turn's account with `read` (a record's dict by its RecordRef)."""

    def __init__(self, read: Callable[[RecordRef | None], dict[str, Any] | None]) -> None:
        self.read = read
        self.pool: dict[Any, Any] = {}  # lines and static parts, shared
        # Each distinct account (request lines + response lines): its lines, sum, static.
        self.joined: dict[tuple[Any, ...], tuple[tuple[Line, ...], int | None, Static]] = {}
        # Each distinct (request facts, output types, preamble era): its response lines.
        self.responses: dict[tuple[Any, ...], tuple[Line, ...]] = {}
        self.produced: OrderedDict[str, tuple[int, int | None]] = OrderedDict()
        self.recent: deque[tuple[RecordRef, int, int]] = deque(maxlen=_RECENT)
        # Requests' halves made by the workers, by source and offset: until their turn; each
        # by its number in `known`, the distinct halves (their lines and facts pooled).
        self.halves: dict[int, dict[int, int]] = {}
        self.known: list[Half] = []
        self.numbers: dict[Half, int] = {}
        # Each distinct (half's number, turn's model, chat, output types, preamble era):
        # its turns' account.
        self.accounts: dict[tuple[int, str | None, bool, tuple[str, ...], bool],
                            TurnAccount] = {}

    def take(self, source: int, made: Any) -> None:
        """A worker's counts remembered and its halves kept, before its chunk is paired.
        The chunk's alike requests share one Half object (account_workers.py): each is
        numbered once here, so its turns find their account by a small key."""
        counts, halves = made
        remember(counts)
        chunk: dict[int, int] = {}  # id of a half of this chunk (all held in `halves`) -> number
        waiting = self.halves.setdefault(source, {})
        for offset, half in halves.items():
            number = chunk.get(id(half))
            if number is None:
                number = chunk[id(half)] = self._number(half)
            waiting[offset] = number

    def _number(self, half: Half) -> int:
        """The number of `half`'s value, kept with its lines and facts pooled."""
        number = self.numbers.get(half)
        if number is None:
            pool = self.pool
            lines = tuple([pool.setdefault(c, c) for c in half.lines])
            half = half._replace(facts=pool.setdefault(half.facts, half.facts),
                                 lines=pool.setdefault(lines, lines))
            number = self.numbers[half] = len(self.known)
            self.known.append(half)
        return number

    def of(self, turn: Turn, model: str | None, output_types: tuple[str, ...],
           reasoning_tokens: int | None, created: float | None,
           billed: int | None = None) -> TurnAccount | None:
        """The turn's account, or None when its request body cannot be read. `billed`:
        the turn's billed input when its response completed (it may size a media part for
        later turns: analysis/account/sized.py)."""
        number = self._waiting(turn)
        result = self._joined(number, model, turn.api == "chat", output_types, created) \
            if number is not None else None
        if result is None and isinstance(
                body := _body(self.read(ref) if (ref := turn.request) is not None else None),
                dict):
            result = self._account(turn, body, model, output_types, created, billed)
        if "reasoning" in output_types and reasoning_tokens is not None \
                and turn.response is not None:
            self.recent.append((turn.response, reasoning_tokens, turn.index))
        return result

    def _joined(self, number: int, model: str | None, chat: bool,
                output_types: tuple[str, ...], created: float | None) -> TurnAccount | None:
        """The account of a worker's half as the turn's (`_fit`), None when the half does
        not fit the turn. Turns repeat their request, model and output types: each
        distinct combination is joined once and its account shared, found by a small key
        rather than by hashing its lines each turn."""
        key = (number, model, chat, output_types, preamble_era(created))
        account = self.accounts.get(key)
        if account is None and (fit := _fit(self.known[number], model, chat)) is not None:
            account = self.accounts[key] = self._join(fit, output_types, created)
        return account

    def _waiting(self, turn: Turn) -> int | None:
        """The number of the worker's half of the turn's request, if one was made (taken:
        used once); looked up by the request's source and offset, read from the turn table."""
        table, row = turn.table, turn.row
        waiting = self.halves.get(table.req_source[row])
        return waiting.pop(table.req_offset[row], None) if waiting else None

    def _account(self, turn: Turn, body: dict[str, Any], model: str | None,
                 output_types: tuple[str, ...], created: float | None,
                 billed: int | None = None) -> TurnAccount:
        items = body.get("input")
        if isinstance(items, list) and self.recent and _resends_reasoning(items):
            self._learn_reasoning()
        asking = Asking(self.produced)
        result = self._join(request_half(body, model, turn.api == "chat", asking,
                                         self.pool), output_types, created)
        size = measured(result.lines, asking.missed, billed) if asking.missed else None
        if size is not None:
            self.produced[size[0]] = (size[1], turn.index)
        return result

    def _join(self, half: Half, output_types: tuple[str, ...],
              created: float | None) -> TurnAccount:
        """The request's half and the response's lines: the turn's account. Turns repeat
        their accounts, so each distinct one is summed once and its lines are shared; it
        is found by what decides it (the request's lines and facts, the output types, the
        preamble era), so the response's lines are made only for a new one."""
        key = (half.lines, half.facts, output_types, preamble_era(created))
        joined = self.joined.get(key)
        if joined is None:
            pool = self.pool
            response = self._response_lines(half.facts, output_types, created)
            made = tuple(pool.setdefault(line, line) for line in (*half.lines, *response))
            lines = pool.setdefault(made, made)
            # Kept under the shared lines and facts, not the ones this half arrived with.
            shared = lines[:len(half.lines)]
            key = (pool.setdefault(shared, shared), pool.setdefault(half.facts, half.facts),
                   *key[2:])
            joined = self.joined[key] = (lines, _expected(lines), self._static(lines))
        lines, expected, static = joined
        return TurnAccount(lines, expected, half.hosted, half.items, half.items_unknown,
                           static, half.resent, half.compactable, half.carried_message)

    def _response_lines(self, facts: RequestFacts, output_types: tuple[str, ...],
                        created: float | None) -> tuple[Line, ...]:
        """The response's lines (`response_components`), shared: turns repeat their
        request facts and output types, so each distinct combination is made once."""
        key = (facts, output_types, preamble_era(created))
        lines = self.responses.get(key)
        if lines is None:
            lines = tuple(self.pool.setdefault(line, line) for line in
                          response_components(facts, output_types, created))
            if len(self.responses) < _RESPONSES:
                self.responses[key] = lines
        return lines

    def _static(self, all_lines: tuple[Line, ...]) -> Static:
        lines = [c for c in all_lines if c[0] in STATIC]
        by_kind: dict[str, list[tuple[str, int | None]]] = {}
        for c in lines:
            by_kind.setdefault(c[0], []).append((c[1], c[2]))
        static = Static(sum(c[2] for c in lines if c[2] is not None),
                        tuple((c[0], c[1]) for c in lines if c[2] is None),
                        tuple((k, tuple(v)) for k, v in by_kind.items()))
        return self.pool.setdefault(static, static)  # type: ignore[no-any-return]

    def _learn_reasoning(self) -> None:
        """Reasoning item id -> (the producing turn's reasoning tokens, its index), from the
        recent responses that produced exactly one reasoning item."""
        while self.recent:
            ref, tokens, index = self.recent.popleft()
            record = self.read(ref)
            body = record.get("body") if isinstance(record, dict) else None
            output = body.get("output") if isinstance(body, dict) else None
            ids = [str(o["id"]) for o in output or () if isinstance(o, dict)
                   and o.get("type") == "reasoning" and isinstance(o.get("id"), str)]
            if len(ids) == 1:
                self.produced[ids[0]] = (tokens, index)
                while len(self.produced) > _PRODUCED:
                    self.produced.popitem(last=False)


_BY_DIFFERENCE = ("the conversation kept on the provider's side, sized by difference from"
                  " turn {0}: its billed input and visible output, less its own"
                  " instructions, tools and schema")


def report_lines(lines: tuple[Line, ...], handle: str | None, expected: int | None,
                 source: int | None, copy: CarriedCount | None = None,
                 made: dict[Line, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The report's `input_account`: each line as a dict, the carried line named by the
    turn's handle and, when the expected input is known and every other line is too,
    sized by difference (what is left of the expected input: estimated); `copy`: counted
    instead from a provider copy's items (analysis/account/carried.py). `made`: the dicts
    of the lines met so far (a batch of rows: turns repeat most lines), each shared by
    the rows that hold its line; the carried line is every turn's own."""
    made = {} if made is None else made
    out = [_line_dict(line) if line[0] == "carried" else _shared(line, made) for line in lines]
    carried = next((d for d in out if d["component"] == "carried"), None)
    if carried is None:
        return out
    carried["name"] = handle or ""
    others = [line[2] for line in lines if line[0] not in ("carried", "hosted_pass")]
    counted = [t for t in others if isinstance(t, int)]
    rest = None if expected is None or source is None or len(counted) < len(others) \
        else expected - sum(counted)
    if rest is not None and rest >= 0:
        carried.update(tokens=rest, basis="estimated", source_turn=source,
                       reason=_BY_DIFFERENCE.format(source))
    if copy is not None:
        copy.fill(out)
    return out


def _shared(line: Line, made: dict[Line, dict[str, Any]]) -> dict[str, Any]:
    """The dict of `line`, made the first time it is met."""
    d = made.get(line)
    if d is None:
        d = made[line] = _line_dict(line)
    return d


def _line_dict(line: Line) -> dict[str, Any]:
    c, n, t, b, s, r = line
    return {"component": c, "name": n, "tokens": t, "basis": b, "source_turn": s, "reason": r}


def _resends_reasoning(items: list[Any]) -> bool:
    return any(isinstance(i, dict) and i.get("type") == "reasoning" for i in items)

