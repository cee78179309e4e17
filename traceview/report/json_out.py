"""The traceview.report/1 document, written a batch of turns at a time.

A capture of a hundred thousand turns would need every turn's dict in memory at once to
serialise in one call; streaming keeps the report's peak at the analysis's own. Rows go
out in batches, each through the output boundary once (one dumps, one redaction pass, one
sanitising pass per batch): paid per turn, those calls were most of the writer's time.

The per-turn prose (`explanation`, `findings`) is written only when asked for (`explain`):
every number, marker, id and reason code it puts in words is in the row already, and the
sentences made the document larger than the capture.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import islice
from typing import Any, BinaryIO

import orjson

from traceview.analysis.report_rows import row_dicts, unexplained_batches
from traceview.analysis.session import Analysis
from traceview.capture.handoff import written
from traceview.capture.pool import min_parallel_rows, workers
from traceview.safety.redact import dumped_apart, keys_apart, redact_dump, redact_json
from traceview.safety.sanitise import json_shown, json_shown_dump

# Placeholders carry a per-process nonce: a capture's string (a query, a problem) could
# otherwise spell one and be taken for the list it names. They are plain ASCII, which the
# boundary (`_safe`) leaves as it is: they are looked for in its output.
_NONCE = os.urandom(8).hex()  # secrets.token_hex, without hmac's import of OpenSSL
_PLACEHOLDER = f"turns-{_NONCE}"
_OBJECTS = f"objects-{_NONCE}"  # the provider objects' list: one per stored response
# Rows per dumps / redact / sanitise call. A batch's dicts and its three buffers (dumps,
# the indented copy, the chunk) are the write's peak above the analysis, so a batch stays
# small; the per-call costs, paid once a batch, are then a small share of a row's.
BATCH = 64


def _safe(chunk: bytes) -> bytes:
    """The one boundary every byte of the document passes: keys masked, and every string
    made what the sanitiser shows of it (a control decodes to its escape, never to itself:
    `jq -r` writes a decoded value raw)."""
    return json_shown(redact_json(chunk))


def _safe_apart(chunk: bytes, keys: Sequence[str], values: Iterable[Any]) -> bytes:
    """`_safe(chunk)` for a chunk dumped of dicts of `keys` made of `values` (their rows'
    columns): the boundary's two checks judge the keys and values dumped apart."""
    apart = dumped_apart(keys, values)
    return json_shown_dump(redact_dump(chunk, apart), apart)


def _items(batches: Iterator[Batch], indent: bytes,
           lists: _LongLists | None = None) -> Iterator[bytes]:
    """The elements of a JSON list, as orjson's OPT_INDENT_2 writes them at ``indent``
    spaces of nesting plus 2, a batch at a time: `[` and the closing line are the caller's.

    A batch is dumped as a list nested in as many one-key objects as ``indent`` has levels
    (`{"": {"": […]}}`), so orjson writes each element at its place in the document:
    exactly what dumping each element alone and shifting it by ``indent`` + 2 gave,
    separators included, cut out of the dump with one slice (shifting every line of a
    batch dumped at nesting 1 took a pass and a copy of it). `batches`: each batch's
    elements, and what the redactor may judge apart (`redact_dump`'s keys and values) or
    None; `lists`: the long turn lists the batch's dicts left markers for, written in
    their place."""
    first = True
    newline = b"\n" + indent
    depth = len(indent) // 2
    # What the wrapping objects add around the list's elements: cut off by the slice.
    head = b"".join(b"{\n" + b"  " * (level + 1) + b'"": ' for level in range(depth)) + b"["
    tail = b"\n" + indent + b"]" + b"".join(b"\n" + b"  " * level + b"}"
                                           for level in reversed(range(depth)))
    while True:
        # One batch alive at a time: the last batch's dicts and buffers are dropped before
        # the next is made.
        got = next(batches, None)
        if got is None:
            return
        wrapped: Any = got[0]
        apart = got[1]
        del got
        for _ in range(depth):
            wrapped = {"": wrapped}
        body = orjson.dumps(wrapped, option=orjson.OPT_INDENT_2)
        del wrapped
        body = body[len(head):-len(tail)]
        body = _safe(body) if apart is None else _safe_apart(body, *apart)
        del apart
        if not first:
            yield b","  # apart: a comma glued on would copy the whole chunk once more
        first = False
        if lists is not None and lists.held:
            yield from lists.write(body, newline)
        else:
            yield body
        del body


# A batch of a list's elements, and what the redactor may judge apart (`_items`).
Batch = tuple[list[Any], tuple[Sequence[str], Iterable[Any]] | None]


def _batched(values: Iterable[Any], to_dict: Callable[[Any], Any],
             batch_size: int = BATCH) -> Iterator[Batch]:
    """`to_dict` of each of `values`, `batch_size` a batch, each judged by its keys and
    values (`_apart`)."""
    it = iter(values)
    while True:
        batch = [to_dict(v) for v in islice(it, batch_size)]
        if not batch:
            return
        yield batch, _apart(batch)
        del batch  # not held while the next is made


def _apart(batch: list[Any]) -> tuple[Sequence[str], Iterable[Any]] | None:
    """What the boundary judges of a batch of dicts in place of its indented dump
    (`redact_dump`): their keys once, and each dict's values on a line (`keys_apart`);
    None (the batch judged whole) when an item is not a dict."""
    return keys_apart(batch)


def iter_json(analysis: Analysis, explain: bool = False) -> Iterator[bytes]:
    """The document as chunks of bytes, indented like orjson's OPT_INDENT_2; with
    `explain`, each turn carries its sentences (`explanation`, `findings`). Made in this
    process (`write_json` hands a large capture's lists to forked writers).

    Every value is redacted and every chunk made terminal-safe here, at the boundary, so
    no field (endpoint query, status, error, id) can carry a key or a control out.
    """
    pieces, writers = _plan(analysis, explain)
    for piece in pieces:
        if isinstance(piece, bytes):
            yield piece
        else:
            marker, start, stop = piece
            yield from writers[marker](start, stop)


def write_json(analysis: Analysis, out: BinaryIO, explain: bool = False) -> None:
    """The document (`iter_json`'s bytes) written to `out`. A large capture's lists are
    made by forked writers that write their parts to `out`'s descriptor themselves, in
    document order (capture/handoff.py): the analysis is in their memory already, and the
    bytes they make never pass through this process."""
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stream: no descriptor
        fd = -1
    if fd < 0 or len(analysis.turns) < min_parallel_rows() or workers() < 2:
        for chunk in iter_json(analysis, explain):
            out.write(chunk)
            del chunk  # not held while the next is made: a batch less at the peak
        return
    pieces, writers = _plan(analysis, explain)
    tasks: list[tuple[bytes, tuple[bytes, int, int]]] = []
    head: list[bytes] = []  # the document's own bytes since the last part
    for piece in pieces:
        if isinstance(piece, bytes):
            head.append(piece)
        else:
            tasks.append((b"".join(head), piece))
            head = []
    out.flush()
    _WRITERS.update(writers)
    try:
        written(_part, tasks, workers(), fd)
    finally:
        _WRITERS.clear()
    out.write(b"".join(head))


# The lists that grow with the capture, each streamed in place of its placeholder, a part
# (`ROWS_A_PART` items) at a time. A list dumped whole would be the write's peak (every
# conversation's carried context, every verdict, at once).
_CONVERSATIONS = f"conversations-{_NONCE}"
_VERDICTS = f"verdicts-{_NONCE}"
# Items a part: whole batches, so the parts joined are the one-process document byte for
# byte; a few hundred kB of JSON a part, a few held by each writer until their turn
# (capture/handoff.py AHEAD).
ROWS_A_PART = BATCH
# How `_part` writes the items [start, stop) of each list in a worker, by its placeholder
# (set before the workers fork, inherited by them; only while they write).
_WRITERS: dict[bytes, Callable[[int, int], Iterable[bytes]]] = {}
Piece = bytes | tuple[bytes, int, int]  # the document's own bytes, or a list's part


def _plan(analysis: Analysis, explain: bool) -> tuple[
        list[Piece], dict[bytes, Callable[[int, int], Iterable[bytes]]]]:
    """The document cut into its own bytes and its lists' parts, and how each list's part
    is written (by its placeholder)."""
    fidelity = analysis.fidelity
    listing = analysis.objects.objects if analysis.objects else []
    verdicts = fidelity.verdicts if fidelity else []
    lists: dict[bytes, tuple[int, int, Callable[[int, int], Iterable[bytes]]]] = {
        orjson.dumps(_CONVERSATIONS): (len(analysis.conversations), 1, partial(
            _dict_part, analysis.conversations, b"  ", CONVERSATIONS)),
        orjson.dumps(_PLACEHOLDER): (len(analysis.turns), 1, partial(
            _turn_part, analysis.turns, explain, b"  ")),
        orjson.dumps(_OBJECTS): (len(listing), 2, partial(_object_part, listing, b"    ")),
        orjson.dumps(_VERDICTS): (len(verdicts), 2, partial(
            _dict_part, verdicts, b"    ", BATCH)),
    }
    rest = _safe(orjson.dumps(
        analysis.to_report(turns=_PLACEHOLDER, objects=_OBJECTS,
                           conversations=_CONVERSATIONS, verdicts=_VERDICTS),
        option=orjson.OPT_INDENT_2))
    pieces = list(_pieces(rest, {m: (n, depth) for m, (n, depth, _) in lists.items()}))
    return pieces, {m: write for m, (_, _, write) in lists.items()}


def _pieces(rest: bytes, lists: dict[bytes, tuple[int, int]]) -> Iterator[Piece]:
    """The document cut at its lists' placeholders (`lists`: each one's items and the
    nesting depth of its key): its own bytes, and each list present as its parts
    (placeholder, start, stop) between its brackets and commas."""
    while True:  # the placeholders in document order: those present, each once
        found = [(rest.find(m), m) for m in lists if m in rest]
        if not found:
            yield rest + b"\n"
            return
        _, marker = min(found)
        n, depth = lists.pop(marker)
        before, rest = rest.split(marker, 1)
        yield before + b"["
        for start in range(0, n, ROWS_A_PART):
            if start:
                yield b","
            yield marker, start, min(start + ROWS_A_PART, n)
        yield b"\n" + b"  " * depth + b"]" if n else b"]"


def _part(task: tuple[bytes, int, int]) -> bytes:
    """Items [start, stop) of the list `marker` names, in a forked writer (or here when
    none could take it): the turns' rows are most of the writer's work, a conversation's
    carried context is kilobytes of JSON, a stored response is an object to list, and a
    verdict's hash reads its conversation's input again (and loads OpenSSL, megabytes of
    memory this process then need not hold)."""
    marker, start, stop = task
    return b"".join(_WRITERS[marker](start, stop))


def _turn_part(turns: Sequence[Any], explain: bool, indent: bytes,
               start: int, stop: int) -> Iterator[bytes]:
    """The turns' rows (analysis/turn_report.py), without their prose unless `explain`:
    then the sentences are not made at all. Rows without prose come with the columns they
    were made of, for the redactor to judge apart."""
    turns = turns[start:stop]
    return _items(_batched(row_dicts(turns), _same) if explain
                  else unexplained_batches(turns), indent)


def _object_part(listing: Any, indent: bytes, start: int, stop: int) -> Iterator[bytes]:
    lists = _LongLists()
    return _items(_batched(listing.dicts(lists, start, stop), _same), indent, lists=lists)


def _dict_part(values: Sequence[Any], indent: bytes, batch_size: int,
               start: int, stop: int) -> Iterator[bytes]:
    return _items(_batched(values[start:stop], _as_dict, batch_size), indent)


# Conversations a batch: each writes its carried-context ledger (every source's charges),
# a dozen turns' worth of dicts; 64 of them were the write's peak on a hosted capture.
CONVERSATIONS = 8
# A provider object's turn list past this many turns is written apart from its object.
LONG_TURNS = 256
_ITEM = b",\n      "  # a number of the list, one per line, as _items' batch dump nests it
_NUMBERS = 4096  # numbers a chunk of a long list


class _LongLists:
    """A provider object's turn list, as `dicts()` asks for it: a list, or past LONG_TURNS
    a marker that `write` replaces with the list's numbers, streamed a slice at a time.

    A vector store used on every turn lists every turn. Made inside its batch, its bytes
    were copied by the dump, the safe pass and the indent shift, three copies of a list
    as long as the capture: the write's peak. The marker carries the per-process nonce, so
    no capture string can spell it."""

    def __init__(self) -> None:
        self.held: list[array[int]] = []
        self.marker = orjson.dumps(f"turn-list-{_NONCE}")

    def __call__(self, turns: array[int]) -> Any:
        if len(turns) <= LONG_TURNS:
            return turns.tolist()
        self.held.append(turns)
        return orjson.Fragment(self.marker)

    def write(self, body: bytes, newline: bytes) -> Iterator[bytes]:
        """`body` with each marker replaced, in order, by the list it stands for, as
        orjson's OPT_INDENT_2 writes it there (the numbers at nesting 3 of the batch's
        dump, shifted like the rest of the batch by `newline`)."""
        parts = body.split(self.marker)
        held, self.held = self.held, []
        item = _ITEM.replace(b"\n", newline)
        for part, turns in zip(parts, held, strict=False):
            yield part
            yield b"[" + item[1:]
            for start in range(0, len(turns), _NUMBERS):
                if start:
                    yield item
                yield _safe(item.join(b"%d" % i for i in turns[start:start + _NUMBERS]))
            yield newline + b"    ]"
        yield parts[-1]


def _as_dict(value: Any) -> dict[str, Any]:
    out: dict[str, Any] = value.to_dict()
    return out


def _same(value: dict[str, Any]) -> dict[str, Any]:
    return value


def render_json(analysis: Analysis, explain: bool = False) -> bytes:
    return b"".join(iter_json(analysis, explain))
