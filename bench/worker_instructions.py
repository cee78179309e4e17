"""What a worker process does with each line, stage by stage, in instructions (callgrind).

On a machine shared by several people CPU time moves by more than a change of a few per cent
(bench/facts_ab.py shows two runs of the same code 10 % apart); instruction counts do not.
Each stage runs in its own interpreter under `valgrind --tool=callgrind`, over the first
--lines lines of a capture held in memory, and its count less that of a run that only sets
up (imports, the lines read and parsed, caches warmed by the first 200 lines) is divided
by the turns (request lines). Hash seeds are fixed, so two runs of the same code agree to
a fraction of a per cent. With --against, another checkout's code runs the same stages the same way:

  loads    orjson.loads of every line (the floor: the bare cost the other stages are read
           against; printed as a ratio to it)
  facts    reader.line_facts of every line, as a worker calls it (no record kept)
  req/res  reader.request_pre / response_pre over the parsed records (facts + byte scans)
  rows     every line's facts stored as a row of a chunk's columns (reader.as_rows)
  extract  parallel.extract over the capture's chunks and the pickling of each answer:
           all a worker does

    python bench/worker_instructions.py /tmp/h50.jsonl --lines 1000 --against /work/main

Counts are instructions, not time: a C loop over bytes (a regex, a translate) runs more
instructions per nanosecond than the interpreter does, so read them beside CPU time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from capture_arg import capture_file

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("loads", "facts", "req", "res", "rows", "extract")

# Run in the checkout's directory (first on sys.path): the stage named by argv[1] over the
# capture argv[2].
RUN = r"""
import os, pickle, sys
sys.path.insert(0, os.getcwd())
import orjson
from traceview.capture import parallel
from traceview.capture.reader import as_rows, line_facts, request_pre, response_pre
from traceview.capture.table import Facts
stage, path = sys.argv[1], sys.argv[2]
lines = open(path, "rb").readlines()
ranges = parallel.split(path, os.path.getsize(path), parallel.chunk_bytes())
for raw in lines[:200]:
    as_rows(line_facts(raw, True), Facts())
objs = [orjson.loads(raw) for raw in lines]  # in every run: the setup's count holds them
pairs = [(o, raw) for o, raw in zip(objs, lines)
         if type(o) is dict and o.get("dir") == stage]
if stage == "loads":
    for raw in lines:
        orjson.loads(raw)
elif stage == "facts":
    for raw in lines:
        line_facts(raw, raw[-1:] == b"\n")
elif stage == "req":
    for o, raw in pairs:
        request_pre(o, False, raw)
elif stage == "res":
    for o, raw in pairs:
        response_pre(o, False, raw)
elif stage == "rows":
    facts = Facts()
    for i, raw in enumerate(lines):
        if i % 500 == 0:
            facts = Facts()
        as_rows(line_facts(raw, raw[-1:] == b"\n"), facts)
elif stage == "extract":
    for start, end in ranges:
        pickle.dumps(parallel.extract(path, start, end), pickle.HIGHEST_PROTOCOL)
"""


def instructions(checkout: Path, stage: str, sample: Path, work: Path) -> int:
    """Instructions callgrind counts for one run of `stage` ("setup": none) in `checkout`."""
    out = work / f"callgrind.{stage}.out"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
         "-c", RUN, stage, str(sample)],
        cwd=checkout, env=env, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run of {stage!r} in {checkout} failed:\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def per_turn(checkout: Path, stages: list[str], sample: Path, turns: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="worker-instructions-") as tmp:
        base = instructions(checkout, "setup", sample, Path(tmp))
        return {s: (instructions(checkout, s, sample, Path(tmp)) - base) / turns for s in stages}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=capture_file)
    ap.add_argument("--lines", type=int, default=1000, help="lines of the capture read")
    ap.add_argument("--against", type=Path, help="another checkout, run the same way")
    ap.add_argument("--stages", default=",".join(STAGES), help="comma-separated, of " +
                    ", ".join(STAGES))
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: this bench counts instructions with it")
    stages = [s for s in args.stages.split(",") if s]
    if unknown := [s for s in stages if s not in STAGES]:
        raise SystemExit(f"unknown stage(s) {unknown}; stages are {', '.join(STAGES)}")
    with tempfile.TemporaryDirectory(prefix="worker-instructions-") as tmp:
        sample = Path(tmp) / "sample.jsonl"
        with open(args.path, "rb") as f, open(sample, "wb") as out:
            for _, raw in zip(range(args.lines), f, strict=False):
                out.write(raw)
        turns = max(1, sum(1 for raw in sample.read_bytes().splitlines()
                           if raw.startswith((b'{"dir": "req"', b'{"dir":"req"'))))
        this = per_turn(ROOT, stages, sample, turns)
        other = per_turn(args.against, stages, sample, turns) if args.against else None
    floor = this.get("loads")
    print(f"{args.path}: first {args.lines:,} lines, {turns:,} turns; instructions a turn "
          "(callgrind, less a setup-only run)" + (f"; other = {args.against}" if other else ""))
    for s in stages:
        row = f"  {s:8s} this {this[s]:>11,.0f}"
        if floor:
            row += f"  ({this[s] / floor:5.2f}× loads)"
        if other:
            row += f"   other {other[s]:>11,.0f}   this/other {this[s] / other[s]:.3f}"
        print(row)


if __name__ == "__main__":
    main()
