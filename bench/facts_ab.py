"""Decode + facts (`reader.line_facts`) of this checkout beside another's, in one process.

On a machine shared by several people the load moves faster than a change of a few per
cent shows: two runs a minute apart differ by more than the change. So both versions run
in the same process, in rounds whose order is shuffled, on the same lines held in memory,
and each keeps its best CPU time (time.process_time) over the rounds: what disturbs one
disturbs the other. The other checkout's `traceview` package is copied to a temporary
directory under another name (`traceview_other`, its imports rewritten) so both import
side by side.

Printed, in µs of CPU per turn (a turn = a request line; best of --rounds):
  keep=True  — one process: line_facts with the parsed record kept (as the builder feeds)
  rows       — a worker: line_facts(keep=False) and its facts stored as rows (`as_rows`)
  orjson     — the bare orjson.loads of each line (the same in both: a control)

    python bench/facts_ab.py /tmp/h50.jsonl --against /work/main --rounds 30
"""

from __future__ import annotations

import argparse
import gc
import importlib
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import orjson  # noqa: E402
from capture_arg import capture_file  # noqa: E402

OTHER = "traceview_other"


def import_other(checkout: Path, into: Path) -> tuple[Any, Any]:
    """(reader, table) of `checkout`'s traceview, imported as `traceview_other`."""
    dest = into / OTHER
    shutil.copytree(checkout / "traceview", dest,
                    ignore=shutil.ignore_patterns("__pycache__"))
    word = re.compile(rb"\btraceview\b(?=[. ])")
    for path in dest.rglob("*.py"):
        path.write_bytes(word.sub(OTHER.encode(), path.read_bytes()))
    sys.path.insert(0, str(into))
    return (importlib.import_module(f"{OTHER}.capture.reader"),
            importlib.import_module(f"{OTHER}.capture.table"))


def ab_parser(doc: str, *, rounds: int, lines: int) -> argparse.ArgumentParser:
    """The arguments every same-process A/B takes: a capture, the other checkout, rounds
    and how many of the capture's lines are used."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("path", type=capture_file)
    ap.add_argument("--against", type=Path, required=True,
                    help="the other checkout (a directory holding traceview/)")
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--lines", type=int, default=lines, help="lines of the capture used")
    return ap


def ab_args(ap: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parsed, with --against checked to hold a traceview/ package."""
    args = ap.parse_args(argv)
    if not (args.against / "traceview").is_dir():
        ap.error(f"{args.against}: no traceview/ package there")
    return args


def first_lines(path: str, n: int) -> list[bytes]:
    """The capture's first `n` lines, held in memory (both sides read the same)."""
    with open(path, "rb") as f:
        return [raw for _, raw in zip(range(n), f, strict=False)]


def shuffled_best(cases: dict[str, Callable[[], None]], lines: list[bytes],
                  rounds: int) -> dict[str, float]:
    """Each case's best CPU seconds over `rounds` rounds run in a shuffled order, beside
    the bare orjson loop over `lines` ("orjson (control)"): the load of a shared machine
    then disturbs every side alike. Each is run once first to warm it (interned names,
    cached kinds and tools, compiled patterns)."""
    def bare() -> None:
        loads = orjson.loads
        for raw in lines:
            loads(raw)

    cases = {**cases, "orjson (control)": bare}
    for fn in cases.values():
        fn()
    best = dict.fromkeys(cases, float("inf"))
    gc.disable()
    try:
        for _ in range(rounds):
            order = list(cases)
            random.shuffle(order)
            for name in order:
                t0 = time.process_time()
                cases[name]()
                best[name] = min(best[name], time.process_time() - t0)
    finally:
        gc.enable()
    return best


def runners(reader: Any, table: Any, lines: list[bytes]) -> dict[str, Callable[[], None]]:
    line_facts, as_rows = reader.line_facts, reader.as_rows

    def keep() -> None:
        for raw in lines:
            line_facts(raw, raw[-1:] == b"\n", True)

    def rows() -> None:
        facts = table.Facts()
        for raw in lines:
            as_rows(line_facts(raw, raw[-1:] == b"\n", False), facts)

    return {"keep=True": keep, "rows": rows}


def main(argv: list[str] | None = None) -> None:
    ap = ab_parser(__doc__, rounds=20, lines=6000)
    args = ab_args(ap, argv)
    from traceview.capture import reader, table

    lines = first_lines(args.path, args.lines)
    turns = max(1, sum(raw.startswith(b'{"dir": "req"') or raw.startswith(b'{"dir":"req"')
                       for raw in lines))
    with tempfile.TemporaryDirectory(prefix="facts-ab-") as tmp:
        o_reader, o_table = import_other(args.against, Path(tmp))
        cases: dict[str, Callable[[], None]] = {}
        for side, (r, t) in (("this", (reader, table)), ("other", (o_reader, o_table))):
            for name, fn in runners(r, t, lines).items():
                cases[f"{name} {side}"] = fn
        best = shuffled_best(cases, lines, args.rounds)
    print(f"{args.path}: {len(lines):,} lines, {turns:,} turns; best of {args.rounds} "
          f"shuffled rounds, CPU µs/turn; other = {args.against}")
    for name in ("keep=True", "rows"):
        mine, other = best[f"{name} this"], best[f"{name} other"]
        print(f"  {name:<10} this {mine / turns * 1e6:7.2f}   other {other / turns * 1e6:7.2f}"
              f"   this/other {mine / other:5.3f}")
    print(f"  orjson     {best['orjson (control)'] / turns * 1e6:7.2f}")


if __name__ == "__main__":
    main()
