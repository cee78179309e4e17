"""Importers: files people already have (HAR, Batch, OTLP GenAI spans) as capture records.

``adopt`` is called on every source before it is read. A native capture (JSONL records)
is left alone at the cost of reading its first line; a foreign file is converted once into
a spooled JSONL of the same records the recorder writes, which the loader then reads like
any capture (so bodies can still be re-read by byte range). A whole-file JSON of a shape
traceview does not import gives ONE finding that says what it looks like, instead of a
problem per line. Pure: no network, no clock.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from traceview.capture.foreign import foreign_document, foreign_message
from traceview.capture.formats.common import Emitter, FormatError
from traceview.safety.outputs import Unread, read_bounded
from traceview.safety.sanitise import json_safe

# The importers (batch, har, otlp) and `describe` are imported where a foreign file is
# met: a native capture, the common case, is judged by its first line, and HAR's streaming
# parser brings ijson and decimal with it.

FORMATS = ("capture", "har", "batch", "otlp")
HEAD = 1 << 16
FIRST_LINE_MAX = 64 << 20  # a first record larger than this is not sniffed further
PRETTY_FIRST_LINE = 256
# A JSON document over many lines (pretty-printed OTLP, or JSON of no format) is parsed
# whole, and OTLP JSON Lines are held until their spans are ordered by start time: past
# this size either is one problem naming the file, never memory several times its size.
# (A HAR of any size is streamed; a capture is read a line at a time.)
WHOLE_MAX = 256 << 20


@dataclass
class Adopted:
    """What ``adopt`` decided for one source."""

    fmt: str  # one of FORMATS
    path: str  # where the records are read from (the spooled conversion, or the file itself)
    summary: dict[str, Any] | None = None  # for the report's ``imports`` list
    # (kind, message, the line of the file it is about)
    findings: list[tuple[str, str, int]] = field(default_factory=list)
    original: str = ""  # the file the conversion was read from
    name: str = ""  # the source as given, as its problems name it


def _first_line(head: bytes) -> bytes:
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return head.split(b"\n", 1)[0].strip()


def _capture_like(obj: dict[str, Any]) -> bool:
    return ("dir" in obj or ("type" in obj and "sequence_number" in obj)
            or obj.get("object") in ("response", "chat.completion", "response.compaction"))


def _objects(lines: list[bytes]) -> list[dict[str, Any]]:
    out = []
    for raw in lines:
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


# A HAR opens with '{"log": {', pretty or minified: known from the head alone, so a HAR of
# any size is never read whole to be recognised (its importer streams it).
_HAR_START = re.compile(rb'(?:\xef\xbb\xbf)?\s*\{\s*"log"\s*:\s*\{')


def _next_lines(path: str, head: bytes) -> list[bytes]:
    """The lines after the first that the head holds whole (up to 39), else the second line
    read to its end: a capture's record can be longer than the head."""
    lines = head.split(b"\n")[1:-1][:39]
    if lines or b"\n" not in head:
        return lines
    with open(path, "rb") as f:
        f.readline(FIRST_LINE_MAX)
        return [f.readline(FIRST_LINE_MAX)]


def sniff(path: str) -> tuple[str, Any]:
    """(format, parsed document or None). 'capture' for JSONL records and anything unparsed;
    'json' for a whole-file JSON that is none of the importable formats."""
    with open(path, "rb") as f:
        head = f.read(HEAD)
        har = _HAR_START.match(head) is not None
        if not har and b"\n" not in head.lstrip()[:HEAD - 1]:  # a first line longer than the head
            head += f.readline(FIRST_LINE_MAX)
    line = _first_line(head)
    if not line:
        return "capture", None
    try:
        first = orjson.loads(line)
    except orjson.JSONDecodeError:
        first = None
    if not (isinstance(first, dict) and _capture_like(first)) \
            and any(_capture_like(o) for o in _objects(_next_lines(path, head))):
        # Capture records follow: a capture whose first line is odd (another format's,
        # damaged, an array), which the reader tells as that line's problem. Judged by
        # the first line alone, every record after it was dropped or refused.
        return "capture", None
    if har:
        return "har", None
    if isinstance(first, dict):
        if _capture_like(first):
            return "capture", None
        from traceview.capture.formats import batch

        if batch.is_input(first) or batch.is_output(first):
            return "batch", None
        if "resourceSpans" in first:
            return "otlp", None
        if isinstance(first.get("log"), dict):
            return "har", first
        return "json", first  # a JSON object (or JSONL of them) of a shape not imported
    if isinstance(first, list):
        return "json", first
    if first is None and len(line) <= PRETTY_FIRST_LINE and line[:1] in (b"{", b"["):
        # Pretty-printed JSON opens with a short line ("{", '{"log": {'); a JSONL record
        # cut short is long, and its file may be gigabytes: never read that whole (a
        # capture whose first record is short and damaged was told apart above).
        try:
            doc = orjson.loads(read_bounded(path, WHOLE_MAX).removeprefix(b"\xef\xbb\xbf"))
        except Unread:
            return "too_large", None
        except orjson.JSONDecodeError:
            return "capture", None  # a damaged capture: the reader says where, line by line
        if isinstance(doc, dict) and isinstance(doc.get("log"), dict):
            return "har", None  # its importer streams the file
        if isinstance(doc, dict) and "resourceSpans" in doc:
            return "otlp", doc
        return "json", doc
    return "capture", None


def adopt(name: str, path: str, spool_dir: Callable[[], Path],
          forced: str | None = None) -> Adopted:
    """Decide how to read one source and convert it if it is foreign."""
    if forced == "capture":
        return Adopted("capture", path)
    try:
        fmt, doc = sniff(path)
    except OSError:
        return Adopted("capture", path)  # the loader reports the unreadable file itself
    if fmt == "too_large":
        return Adopted("json", _EMPTY, None, [("unsupported_format", (
            f"{Path(path).name}: a JSON document over many lines, larger than "
            f"{WHOLE_MAX >> 20} MiB, is not parsed whole; a capture is JSON Lines (one "
            "record a line, read at any size), and so is OTLP's file exporter"), 1)])
    if forced is not None and forced != fmt:
        return _refuse(path, forced, fmt, doc)
    if fmt == "capture":
        return Adopted("capture", path)
    if fmt == "json":
        return _unrecognised(path, doc, spool_dir)
    target = _spooled(spool_dir, f"{Path(name).name}.{fmt}.jsonl")
    with open(target, "wb") as out:
        em = Emitter(out, fmt)
        try:
            calls = _convert(fmt, path, doc, em)
        except FormatError as exc:
            return Adopted(fmt, str(target), None, [("unsupported_format", f"{name}: {exc}", 1)])
        except (TypeError, ValueError, AttributeError, KeyError, IndexError,
                RecursionError) as exc:
            # A value of the wrong type where the format has a structure: the converters
            # check the shapes they know, and this is the backstop, so a malformed foreign
            # file is one problem naming it, never a traceback (hostile input, issue #9).
            return Adopted(fmt, _EMPTY, None, [(
                "unsupported_format", f"{name}: {_NAMES[fmt]} with a value of the wrong "
                f"type, not read ({type(exc).__name__}: {str(exc)[:200]})", 1)])
    summary = em.summary(calls)
    if fmt == "batch":
        from traceview.capture.formats import batch

        with open(path, "rb") as f:
            summary["side"] = batch.side(_first_line(f.read(HEAD)))
    findings = [("damaged_import", f"{name}: {where}", line) for line, where in em.damage]
    if calls == 0:
        findings.append(("no_provider_calls", f"this is {_NAMES[fmt]} with 0 provider calls"
                         + (f" ({summary['ignored']} other entries ignored)"
                            if summary["ignored"] else ""), 1))
    return Adopted(fmt, str(target), summary, findings, path, name)


def join_batches(adopted: list[Adopted], spool_dir: Callable[[], Path]) -> None:
    """Batch input and output files given together are read as one: the first input file
    gets every record (requests each followed by its response), the others are emptied."""
    sides = [(a, a.summary.get("side")) for a in adopted if a.fmt == "batch" and a.summary]
    inputs = [a for a, s in sides if s == "input"]
    outputs = [a for a, s in sides if s == "output"]
    if not inputs or not outputs:
        return
    from traceview.capture.formats import batch

    target = _spooled(spool_dir, "batch-joined.jsonl")
    doubled: dict[str, list[tuple[int, str]]] = {}
    with open(target, "wb") as out:
        em = Emitter(out, "batch")
        calls = batch.join([a.original for a in inputs], [a.original for a in outputs], em,
                           doubled)
    for a in inputs + outputs:
        a.findings += [("damaged_import", f"{a.name}: {where}", line)
                       for line, where in doubled.get(a.original, ())]
        a.findings.sort(key=lambda finding: finding[2])  # in the file's order
    first = inputs[0]
    first.path = str(target)
    own = first.summary or {}  # what the first input file itself held (its own read)
    first.summary = {**em.summary(calls), "side": "input+output",
                     **{k: own[k] for k in ("ignored", "ignored_kinds") if k in own}}
    for a in inputs[1:] + outputs:
        a.path = _EMPTY
        a.summary = {**(a.summary or {}), "joined_into": "the first batch input file"}


_SPOOLED: dict[str, int] = {}  # spool directory -> the next conversion's number


def _spooled(spool_dir: Callable[[], Path], name: str) -> Path:
    """A new name in the spool directory, numbered in order. The directory is listed once
    (its first conversion), not once per file: 8,000 one-entry HAR files were quadratic."""
    folder = spool_dir()
    key = str(folder)
    n = _SPOOLED[key] if key in _SPOOLED else len(list(folder.iterdir()))
    while (folder / f"{n}-{name}").exists():
        n += 1
    _SPOOLED[key] = n + 1
    return folder / f"{n}-{name}"


_NAMES = {"har": "a HAR file", "batch": "an OpenAI Batch file",
          "otlp": "an OTLP JSON trace file", "capture": "a capture"}


def _convert(fmt: str, path: str, doc: Any, em: Emitter) -> int:
    from traceview.capture.formats import batch, har, otlp

    if fmt == "har":
        with open(path, "rb") as f:
            return har.convert(f, em)
    if fmt == "batch":
        return batch.convert(path, em)
    if doc is not None:
        return otlp.convert([doc], em)
    try:  # its spans are ordered by start time, so they are all held: a bound, said
        whole = read_bounded(path, WHOLE_MAX)
    except Unread as exc:
        raise FormatError("an OTLP JSON Lines file is held whole to put its spans in start "
                          f"order, and this one is {exc.strerror}") from None
    docs = []  # OTLP JSON Lines (the collector's file exporter): one export request a line
    for raw in whole.splitlines():
        try:
            docs.append(orjson.loads(raw))
        except orjson.JSONDecodeError:
            em.ignore("malformed line")
    return otlp.convert(docs, em)


def _unrecognised(path: str, doc: Any, spool_dir: Callable[[], Path]) -> Adopted:
    if isinstance(doc, dict) and _capture_like(doc):
        # One pretty-printed response body: a capture of one response, not a foreign file.
        target = _spooled(spool_dir, f"{Path(path).name}.jsonl")
        target.write_bytes(json_safe(orjson.dumps({"dir": "res", "body": doc})) + b"\n")
        return Adopted("capture", str(target))
    from traceview.capture.formats.describe import looks_like

    foreign = foreign_document(doc)
    if foreign is not None:  # a bare body or stream event a line: say whose
        return Adopted("json", _EMPTY, None, [("foreign_traffic", f"{Path(path).name}: "
                                               f"{foreign_message(foreign)}", 1)])
    return Adopted("json", _EMPTY, None, [("unsupported_format", f"{Path(path).name}: "
                                           f"{looks_like(doc)}", 1)])


def _refuse(path: str, forced: str, fmt: str, doc: Any) -> Adopted:
    from traceview.capture.formats.describe import looks_like

    what = looks_like(doc) if fmt == "json" else f"this is {_NAMES.get(fmt, fmt)}"
    return Adopted(forced, _EMPTY, None, [("unsupported_format", f"{Path(path).name}: "
                                           f"--from {forced}, but {what}", 1)])


_EMPTY = os.devnull
__all__ = ["FORMATS", "Adopted", "FormatError", "adopt", "sniff"]
