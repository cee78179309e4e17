"""The reading stage, part by part, in µs per turn beside the floor of each part.

The lines of a capture are held in memory first, so every figure is CPU work, not I/O:

- `line_facts`: what a worker process does with each line (`reader.line_facts`), beside
  its floor, `orjson.loads` plus reading the same top-level fields of the record and body.
- `store`: storing each line's facts as a row of the turn table (`Side.add`), beside its
  floor, one `array.append` per column of the same values (read from the facts beforehand).
- `pairing`: the main process with workers — appending a chunk's columns and pairing its
  lines (`take` + `feed_pre` over what the workers return), beside its floor, one dict
  insert and pop per turn.
- `objects`: the hosted-state objects inventory (analysis/objects.py) over the analysed
  turns.

    python bench/reader_stages.py /tmp/h50.jsonl --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from array import array
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TRACEVIEW_WORKERS", "1")

import orjson  # noqa: E402
from capture_arg import capture_file  # noqa: E402

from traceview.capture.reader import CaptureBuilder, as_rows, line_facts  # noqa: E402
from traceview.capture.table import Facts  # noqa: E402


def best(repeat: int, fn: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=capture_file)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with open(args.path, "rb") as f:
        lines = f.readlines()
    r = args.repeat

    def loads() -> None:
        for raw in lines:
            orjson.loads(raw)

    def fields() -> None:
        for raw in lines:
            o = orjson.loads(raw)
            g = o.get
            (g("dir"), g("id"), g("endpoint"), g("recorded"), g("bytes"), g("origin"),
             g("elapsed_ms"), g("status_code"), g("events"), g("ts"), g("headers"), g("error"))
            b = g("body")
            if type(b) is dict:
                bg = b.get
                (bg("model"), bg("conversation"), bg("previous_response_id"), bg("include"),
                 bg("truncation"), bg("input"), bg("tools"), bg("stream"), bg("store"),
                 bg("instructions"), bg("background"), bg("context_management"), bg("id"),
                 bg("object"), bg("status"), bg("output"), bg("usage"), bg("error"),
                 bg("created_at"), bg("service_tier"), bg("tool_usage"))

    def facts_keep() -> None:
        for raw in lines:
            line_facts(raw, True, keep=True)

    def facts_worker() -> None:
        for raw in lines:
            line_facts(raw, True)

    pres = [line_facts(raw, True) for raw in lines]
    recs = [(p[0], p[8] if p[0] == "req" else p[4]) for p in pres if p and p[0] in ("req", "res")]

    def store() -> None:
        fx = Facts()
        radd, sadd = fx.requests.add, fx.responses.add
        for kind, rec in recs:
            if rec is not None:
                (radd if kind == "req" else sadd)(rec)

    # The same values, read beforehand: the floor appends them, one append per column.
    names = {"req": [n for n, _ in fx_cols(True)], "res": [n for n, _ in fx_cols(False)]}
    values = [(kind, [getattr(rec, n) for n in names[kind]]) for kind, rec in recs if rec]
    values = [(k, [v if type(v) is int else 0 for v in vs]) for k, vs in values]

    def append_floor() -> None:
        cols = {k: [array("q").append for _ in names[k]] for k in names}
        for kind, vs in values:
            for append, v in zip(cols[kind], vs, strict=True):
                append(v)

    # What a worker returns for the whole file (one chunk), and the main process's work.
    chunk_facts = Facts()
    chunk = [(len(raw), raw[-1:] == b"\n", as_rows(line_facts(raw, raw[-1:] == b"\n"),
                                                     chunk_facts))
             for raw in lines]

    def pairing() -> None:
        b = CaptureBuilder(["x"])
        b.take(chunk_facts)
        feed = b.feed_pre
        offset = 0
        for line_no, (length, ended, pre) in enumerate(chunk, 1):
            if pre is not None:
                feed(0, line_no, offset, length - 1 if ended else length, pre, dict)
            offset += length
        b.close()

    n_turns = sum(1 for p in pres if p and p[0] == "res")

    def dict_floor() -> None:
        d: dict[int, int] = {}
        for i in range(n_turns):
            d[i] = i
            d.pop(i)

    rows = [
        ("orjson.loads", best(r, loads)),
        ("+ fields read (floor)", best(r, fields)),
        ("line_facts, keep (1 process)", best(r, facts_keep)),
        ("line_facts (worker)", best(r, facts_worker)),
        ("append floor", best(r, append_floor)),
        ("store (Side.add)", best(r, store)),
        ("dict insert+pop floor", best(r, dict_floor)),
        ("take + pairing (main w/ workers)", best(r, pairing)),
    ]
    objects_s = objects_pass(args.path, r)
    if objects_s is not None:
        rows.append(("objects inventory", objects_s))
    print(f"{args.path}: {len(lines):,} lines, {n_turns:,} turns")
    print(f"{'stage':<34}{'CPU s':>8}{'µs/turn':>9}")
    for name, s in rows:
        print(f"{name:<34}{s:>8.3f}{s / n_turns * 1e6:>9.2f}")


def fx_cols(req: bool) -> list[tuple[str, bool]]:
    from traceview.capture.table import RequestSide, ResponseSide

    side = RequestSide if req else ResponseSide
    return [*side.COUNTS, *((n, False) for n in side.POOLED), *((n, False) for n in side.TEXTS),
            *((n, False) for n in side.FLAGS), *((n, False) for n, _, _ in side.SPARSE)]


def objects_pass(path: str, repeat: int) -> float | None:
    from traceview.analysis import hosted_state, session
    from traceview.analysis.objects import inventory

    real = session.attach_hosted_state
    session.attach_hosted_state = lambda a: None
    try:
        a = session.analyze(path)
    finally:
        session.attach_hosted_state = real
    cap = a.capture
    cfg = hosted_state._Configs()
    return best(repeat, lambda: inventory(a.turns, cap.exchanges, cap.read_raw, None,
                                          on_request=cfg.see, on_row=cfg.see_row))


if __name__ == "__main__":
    main()
