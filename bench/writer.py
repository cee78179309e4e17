"""The report writer alone, stage by stage, against the bare cost of serialising its rows.

The analysis is built once (not timed); then each stage of `report --format json` and of
the text report is timed in CPU seconds (best of --repeat) and printed as a ratio to
`orjson.dumps` of the same rows, the floor no writer can go under: rows built from the
facts (`row()`, with and without the explanation), the explanations alone, redaction of
the serialised text, the terminal-safety pass, the document's other lists (conversations,
provider objects, fidelity verdicts: each written whole, beside a dumps of its dicts), the
whole JSON writer and the whole text writer. Indented stages are floors of the stage above
them: the explanations' (their sentences joined from their pieces, their numbers written
once) and the redactor's (one regex scan, one memchr scan of the same bytes; the redactor
makes about ten of the first, a lower-cased copy and a few of the second). `--profile`
prints where the JSON writer's time goes (cProfile, by own time).

    python bench/writer.py /tmp/h50.jsonl
    python bench/writer.py /tmp/h50.jsonl --profile
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

import orjson  # noqa: E402
from capture_arg import capture_file  # noqa: E402
from rich.console import Console  # noqa: E402

from traceview.analysis.session import analyze  # noqa: E402
from traceview.analysis.turn_report import explain_row  # noqa: E402
from traceview.report.json_out import BATCH, _as_dict, _items, iter_json  # noqa: E402
from traceview.report.text import render_text  # noqa: E402
from traceview.safety.redact import redact_json  # noqa: E402
from traceview.safety.sanitise import json_safe  # noqa: E402

_NUMBER = re.compile(r"(\d[\d,]*)")
_ABSENT = re.compile(rb"\x00sk-")  # a literal that is never there: sre scans every byte


def _sentences_floor(pieces: list[list[list[str]]], numbers: list[int]) -> None:
    for e in pieces:
        [" ".join(p) for p in e]
    for n in numbers:
        f"{n:,}"


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", type=capture_file)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ns = ap.parse_args()
    os.environ.setdefault("TRACEVIEW_WORKERS", "1")
    analysis = analyze([ns.path])
    turns = analysis.turns
    rows = [t.row() for t in turns]
    batches = [orjson.dumps(rows[i:i + BATCH], option=orjson.OPT_INDENT_2)
               for i in range(0, len(rows), BATCH)]
    bare_rows = [t.row(explained=False, whole=False) for t in turns]
    # The explanations' floor: the same sentences put together from their pieces (numbers
    # already written) plus writing their numbers ("1,234") once each.
    sentences = [r["explanation"] for r in rows]
    pieces = [[_NUMBER.split(x) for x in e] for e in sentences]
    numbers = [int(m.replace(",", "")) for e in sentences for x in e
               for m in _NUMBER.findall(x) if m.replace(",", "").isdigit()]
    size = sum(len(c) for c in iter_json(analysis))

    def json_writer() -> None:
        for _ in iter_json(analysis):
            pass

    def text_writer() -> None:
        with open(os.devnull, "w") as f:
            render_text(analysis, Console(file=f, width=100, highlight=False, markup=False,
                                          emoji=False))

    gc.disable()  # as the writers run (report/gc_pause.py)
    floor = best(lambda: [orjson.dumps(rows[i:i + BATCH], option=orjson.OPT_INDENT_2)
                          for i in range(0, len(rows), BATCH)], ns.repeat)
    stages = {
        "orjson.dumps of the rows (floor)": floor,
        "rows, explained (row())": best(lambda: [t.row() for t in turns], ns.repeat),
        "rows for the text table (whole=False)": best(
            lambda: [t.row(explained=False, whole=False) for t in turns], ns.repeat),
        "explanations alone (explain_row)": best(
            lambda: [explain_row(r) for r in bare_rows], ns.repeat),
        "  explanations: floor (see below)": best(lambda: _sentences_floor(pieces, numbers),
                                                   ns.repeat),
        "redact_json over the turns": best(lambda: [redact_json(b) for b in batches],
                                           ns.repeat),
        "  redaction: floor, one regex scan": best(
            lambda: [_ABSENT.search(b) for b in batches], ns.repeat),
        "  redaction: floor, one memchr scan": best(
            lambda: [b.find(b"\x00") for b in batches], ns.repeat),
        "json_safe over the turns": best(lambda: [json_safe(b) for b in batches], ns.repeat),
    }
    # The document's other lists, each written whole (dicts, dumps, redaction, safety).
    objects = analysis.objects.objects if analysis.objects else ()
    verdicts = analysis.fidelity.verdicts if analysis.fidelity else ()
    for name, values, items in (
            ("conversations, written", analysis.conversations, analysis.conversations),
            ("provider objects, written", objects,
             objects.dicts() if hasattr(objects, "dicts") else objects),
            ("fidelity verdicts, written", verdicts, verdicts)):
        dicts = [v if isinstance(v, dict) else v.to_dict() for v in items]
        stages[f"  {name.split(',')[0]}: dumps (floor)"] = best(
            lambda d=dicts: orjson.dumps(d, option=orjson.OPT_INDENT_2), ns.repeat)
        stages[f"  {name}"] = best(
            lambda v=values: [None for _ in _items(
                v.dicts() if hasattr(v, "dicts") else v,
                (lambda x: x) if hasattr(v, "dicts") else _as_dict, b"  ")], ns.repeat)
    gc.enable()
    stages["JSON writer, whole document"] = best(json_writer, ns.repeat)
    stages["text writer, whole report"] = best(text_writer, ns.repeat)
    print(f"{ns.path}: {len(turns):,} turns, JSON report {size / 1e6:.1f} MB")
    for name, secs in stages.items():
        print(f"  {name:<42} {secs:7.3f} s  {secs / floor:6.1f}× floor"
              f"  {secs / max(len(turns), 1) * 1e6:6.1f} µs/turn")
    if ns.profile:
        prof = cProfile.Profile()
        prof.enable()
        json_writer()
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(20)
        print(out.getvalue())


if __name__ == "__main__":
    main()
