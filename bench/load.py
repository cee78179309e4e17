"""`traceview report` on a large capture, against the bare cost of reading it.

Runs `traceview --version` (start-up alone), `report --format json` and `report --format
text` (`--formats`; one worker and all cores) and prints wall and CPU seconds, × the orjson
loop, and peak RSS as a share of the file. The rebuild's budget: JSON report ≤ 1.5× the
previous main's wall time, peak RSS ≤ 35 % of the file.

    python bench/load.py                                  # 200 MB of the hosted shape
    python bench/load.py --path big.jsonl --other /work/prev --repeat 2
"""

from __future__ import annotations

import os

import side

CORES = os.cpu_count() or 1


def main() -> int:
    ap = side.parser(__doc__, repeat=2)
    ap.add_argument("--path", type=side.capture_file, help="capture to read (default: generated)")
    ap.add_argument("--mb", type=int, default=200, help="size of the generated capture")
    ap.add_argument("--formats", default="json,text", help="report formats to run")
    ns = ap.parse_args()
    path = ns.path or side.generated("hosted", ns.mb)
    trees, size = side.checkouts(ns.other), path.stat().st_size
    read_s, loop_s = side.bare_costs([path])
    cases = [("--version", ["--version"], {})]  # start-up: what every command pays first
    for fmt in ns.formats.split(","):
        width = ["--width", "100"] if fmt == "text" else []
        cases += [(f"{fmt}, {n} worker(s)", ["report", "--format", fmt, *width, str(path)],
                   {"TRACEVIEW_WORKERS": str(n)}) for n in sorted({1, CORES})]
    got = side.best_of(trees, cases, ns.repeat)
    print(f"capture: {path} — {size / 1e6:,.0f} MB; best of {ns.repeat}; {CORES} cores\n"
          f"bare cost: read the bytes {read_s:.2f} s, read + orjson.loads every line "
          f"{loop_s:.2f} s (the loop)")
    labels = [t.label for t in trees]
    rows = [("traceview --version: wall s",
             [f"{got[(label, '--version')].wall:.2f}" for label in labels])]
    for name, _args, _env in cases[1:]:
        runs = [got[(label, name)] for label in labels]
        rows += side.cost_rows(name, runs, size, loop_s)
        if len(runs) > 1:
            rows.append((f"{name}: wall, this ÷ other",
                         ["—"] + [f"{runs[0].wall / r.wall:.2f}" for r in runs[1:]]))
    side.table("report", rows, labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
