"""OpenAI Batch files: the input (requests) and the output (responses), one JSON per line.

Each line becomes one record linked by ``custom_id``: open the input and the output file
together (in any order) and every request is paired with its response. A batch has no
wire timing: ``elapsed_ms`` is unknown, never 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import orjson

from traceview.capture.formats.common import Emitter, as_dict, provider_path

# The longest batch line read as one (a request the Batch API would take is far smaller); a
# longer one is skipped in reads of this size and counted as malformed.
LINE_MAX = 64 << 20
NO_TIMING = "elapsed time (a batch runs its requests offline)"
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark (Windows tools) before line 1
# Malformed lines named one by one in a file's problems; past these, how many more.
NAMED = 10


def is_input(obj: Any) -> bool:
    return isinstance(obj, dict) and "custom_id" in obj and "body" in obj and "url" in obj


def is_output(obj: Any) -> bool:
    return isinstance(obj, dict) and "custom_id" in obj and ("response" in obj or "error" in obj)


def side(first_line: bytes) -> str | None:
    """'input' | 'output' for a batch file's first line, else None."""
    try:
        obj = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        return None
    return "input" if is_input(obj) else "output" if is_output(obj) else None


def join(inputs: list[str], outputs: list[str], em: Emitter,
         doubled: dict[str, list[tuple[int, str]]] | None = None) -> int:
    """Input and output files read as one: each request followed by its own response, found
    by ``custom_id`` wherever it sits in the output (a batch finishes in any order). Only
    where each answer starts is kept, and it is read again when its request comes: a batch
    of any size is joined in memory the size of its ids. An id requested or answered again
    pairs its requests and answers in order (the answers left over are shown alone), and is
    said in `doubled` (by file: (line, what))."""
    answers: dict[str, tuple[int, int, int]] = {}  # custom_id -> (output file, line, offset)
    again: dict[str, list[tuple[int, int, int]]] = {}  # an id's later answers, in order
    said = doubled if doubled is not None else {}
    for k, path in enumerate(outputs):
        for n, at, obj in _parsed(path, em):
            if not is_output(obj):
                if obj is not None:
                    em.ignore("not a batch line")
                continue
            cid = str(obj["custom_id"])
            first = answers.setdefault(cid, (k, n, at))
            if first != (k, n, at):
                again.setdefault(cid, []).append((k, n, at))
                said.setdefault(path, []).append(_repeat(n, "answers", cid, first[1], (
                    outputs[first[0]] if first[0] != k else None)))
    calls = 0
    with ExitStack() as stack:
        files = [stack.enter_context(open(path, "rb")) for path in outputs]

        def answer(k: int, n: int, at: int) -> None:
            files[k].seek(at)
            obj = _loads(files[k].readline(LINE_MAX))
            if is_output(obj):  # else the file changed under us: the line is not counted
                em.write(_output(obj, n, em, outputs[k]))

        asked: dict[str, tuple[str, int]] = {}  # custom_id -> (input file, line) first seen
        unanswered: dict[str, list[tuple[int, str]]] = {}  # input file -> (line, custom_id)
        for path in inputs:
            for n, _, obj in _parsed(path, em):
                if not is_input(obj):
                    if obj is not None:
                        em.ignore("not a batch line")
                    continue
                cid = str(obj["custom_id"])
                first_asked = asked.setdefault(cid, (path, n))
                if first_asked != (path, n):
                    said.setdefault(path, []).append(_repeat(n, "requests", cid, first_asked[1], (
                        first_asked[0] if first_asked[0] != path else None)))
                calls += 1
                _write_input(obj, n, em, path)
                found = answers.pop(cid, None)
                if found is None and again.get(cid):
                    found = again[cid].pop(0)
                if found is not None:
                    answer(*found)
                elif first_asked == (path, n):  # a repeat is already said as one
                    unanswered.setdefault(path, []).append((n, cid))
        unasked: dict[str, list[tuple[int, str]]] = {}  # output file -> (line, custom_id)
        for cid, (k, n, _) in answers.items():
            unasked.setdefault(outputs[k], []).append((n, cid))
        left = [*answers.values(), *(a for later in again.values() for a in later)]
        for found in left:  # answers with no request to follow
            calls += 1
            answer(*found)
    for path, lines in unanswered.items():
        said.setdefault(path, []).extend(_unpaired(lines, "request", "no output file given "
                                                   "answers", ""))
    for path, lines in unasked.items():
        said.setdefault(path, []).extend(_unpaired(lines, "answer", "no input file given "
                                                   "requests", "; shown alone"))
    em.turns = calls
    return calls


def _unpaired(lines: list[tuple[int, str]], does: str, nobody: str, shown: str
              ) -> list[tuple[int, str]]:
    """The lines whose custom_id the other side never mentions (files of different
    batches, or answers only in the error file): the first NAMED one by one, then how
    many more. Silently shown as they were, the files looked like a matching pair."""
    out = [(n, f"line {n} {does}s custom_id {cid!r}, which {nobody}{shown}")
           for n, cid in lines[:NAMED]]
    if len(lines) > NAMED:
        first = lines[NAMED][0]
        out.append((first, f"{len(lines) - NAMED} more lines from line {first} on {does} "
                           f"custom_ids {nobody}{shown}"))
    return out


def _repeat(n: int, does: str, cid: str, first: int, elsewhere: str | None) -> tuple[int, str]:
    """A line that repeats a custom_id, as its file's problem says it."""
    where = f"line {first}" + (f" of {elsewhere}" if elsewhere else "")
    return (n, f"line {n} {does} custom_id {cid!r} again (first on {where}); an id's "
               "requests and answers are paired in order, an answer left over shown alone")


def _loads(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _parsed(path: str, em: Emitter, damage: list[tuple[int, str]] | None = None
            ) -> Iterator[tuple[int, int, Any]]:
    """(line number, offset, value) of each line, read a line at a time; a blank line is
    skipped, a malformed one (or one over LINE_MAX, skipped in bounded reads) is counted as
    ignored, skipped and said in `damage` (the first NAMED by number, then how many more)."""
    malformed, first_unnamed = 0, 0
    with open(path, "rb") as f:
        at = 0
        for n, raw in enumerate(iter(lambda: f.readline(LINE_MAX), b""), start=1):
            start, at = at, at + len(raw)
            over = len(raw) == LINE_MAX and not raw.endswith(b"\n")
            if n == 1 and raw.startswith(BOM):  # not the line's: re-read from past it
                raw, start = raw[len(BOM):], start + len(BOM)
            if over:
                while (rest := f.readline(LINE_MAX)) and not rest.endswith(b"\n"):
                    at += len(rest)
                at += len(rest)
                why = f"is over {LINE_MAX >> 20} MiB"
            elif not raw.strip():
                continue
            else:
                try:
                    yield n, start, orjson.loads(raw)
                    continue
                except orjson.JSONDecodeError:
                    why = "is not JSON"
            em.ignore("malformed line")
            malformed += 1
            if malformed <= NAMED and damage is not None:
                damage.append((n, f"line {n} {why}; skipped"))
            elif malformed == NAMED + 1:
                first_unnamed = n
    if damage is not None and malformed > NAMED:
        damage.append((first_unnamed, f"{malformed - NAMED} more lines from line "
                                      f"{first_unnamed} on are malformed; skipped"))


def _write_input(obj: dict[str, Any], n: int, em: Emitter, file: str) -> None:
    path = provider_path(str(obj.get("url") or "")) or str(obj.get("url"))
    em.write({"dir": "req", "id": f"batch:{obj['custom_id']}",
              "endpoint": f"{str(obj.get('method') or 'POST').upper()} {path}",
              "body": obj.get("body"),
              "origin": em.origin(n, None, custom_id=obj["custom_id"],
                                  file=Path(file).name)})


def convert(path: str, em: Emitter) -> int:
    """One batch file alone (input or output), streamed a line at a time."""
    calls = 0
    for n, _, obj in _parsed(path, em, em.damage):
        if is_input(obj):
            calls += 1
            _write_input(obj, n, em, path)
        elif is_output(obj):
            calls += 1
            em.write(_output(obj, n, em, path))
            if obj.get("response") is not None and not isinstance(obj["response"], dict):
                # Else an answer of unknown status, and nothing said: the line looked fine.
                em.damage.append((n, f"line {n}'s response is not a JSON object; its "
                                     "numbers are unknown"))
        else:
            em.ignore("not a batch line")
    em.turns = calls
    return calls


def _output(obj: dict[str, Any], n: int, em: Emitter, file: str) -> dict[str, Any]:
    response = as_dict(obj.get("response"))
    record: dict[str, Any] = {
        "dir": "res", "id": f"batch:{obj['custom_id']}",
        "status_code": response.get("status_code"), "elapsed_ms": None,
        "body": response.get("body"),
        "origin": em.origin(n, [NO_TIMING], custom_id=obj["custom_id"],
                            batch_request=obj.get("id"), file=Path(file).name),
    }
    if isinstance(response.get("request_id"), str):
        record["headers"] = {"x-request-id": response["request_id"]}
    err = obj.get("error")
    if isinstance(err, dict) and not response:
        record["error"] = {"type": str(err.get("code") or "batch_error"),
                           "message": str(err.get("message") or "")}
    return record
