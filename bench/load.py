"""`traceview report` on a large capture, against the bare cost of reading it.

Runs `traceview --version` (start-up alone), `report --format json` and `report --format
text` in fresh processes (one worker and all cores), interleaved with the same commands of
`--other` checkouts, and prints wall and CPU seconds, × the orjson loop (read +
`orjson.loads` every line), and the main process's peak RSS as a share of the file. The
rebuild's budget: JSON report ≤ 1.5× the previous main's wall time, peak RSS ≤ 35 % of the
file.

    python bench/load.py                                  # 200 MB of the hosted shape
    python bench/load.py --path big.jsonl --other /work/prev --repeat 2
    python bench/load.py --shape bench --mb 50
"""

from __future__ import annotations

import argparse
import os

from side import add_arguments, bare_costs, best, capture_file, checkouts, command, generated, table

CORES = os.cpu_count() or 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", type=capture_file, help="capture to read (default: generated)")
    ap.add_argument("--shape", choices=("hosted", "bench"), default="hosted")
    ap.add_argument("--mb", type=int, default=200, help="size of the generated capture")
    ap.add_argument("--formats", default="json,text", help="report formats to run")
    add_arguments(ap, repeat=2)
    ns = ap.parse_args()
    path = ns.path or generated(ns.shape, ns.mb)
    trees = checkouts(ns.other)
    size = path.stat().st_size
    read_s, loop_s = bare_costs([path])
    workers = sorted({1, CORES})
    cases = [(fmt, n) for fmt in ns.formats.split(",") for n in workers]
    runs: dict[tuple[str, str, int], list] = {}
    for _ in range(ns.repeat):
        for tree in trees:  # start-up alone: what every command pays before it reads a byte
            runs.setdefault((tree.label, "--version", 0), []).append(
                command(tree, ["--version"]))
        for fmt, n in cases:
            for tree in trees:
                args = ["report", "--format", fmt, str(path)]
                if fmt == "text":
                    args[3:3] = ["--width", "100"]
                run = command(tree, args, TRACEVIEW_WORKERS=str(n))
                runs.setdefault((tree.label, fmt, n), []).append(run)
    print(f"capture: {path} — {size / 1e6:,.0f} MB; best of {ns.repeat}; {CORES} cores")
    print(f"bare cost: read the bytes {read_s:.2f} s, read + orjson.loads every line "
          f"{loop_s:.2f} s (the loop)")
    labels = [t.label for t in trees]
    rows = [("traceview --version: wall s",
             [f"{best(runs[(label, '--version', 0)]).wall:.2f}" for label in labels])]
    for fmt, n in cases:
        got = [best(runs[(label, fmt, n)]) for label in labels]
        rows += [
            (f"{fmt}, {n} worker(s): wall s (× loop)",
             [f"{r.wall:.2f} ({r.wall / loop_s:.1f}×)" for r in got]),
            (f"{fmt}, {n} worker(s): CPU s", [f"{r.cpu:.2f}" for r in got]),
            (f"{fmt}, {n} worker(s): peak RSS (% file)",
             [f"{r.rss / 1e6:.0f} MB ({r.rss / size:.1%})" for r in got]),
        ]
        if len(got) > 1:
            rows.append((f"{fmt}, {n} worker(s): wall, this ÷ other",
                         ["—"] + [f"{got[0].wall / r.wall:.2f}" for r in got[1:]]))
    table("report", rows, labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
