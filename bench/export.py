"""`traceview export --to parquet` and `traceview sql`, against the report and the bare cost.

For one large capture (and, with `--files N`, a directory of N small captures) runs
`report --format json`, `export --to parquet`, `--to duckdb`, `--to csv` and a cold and
cached `sql` aggregate. Prints wall and CPU seconds, × the orjson loop, peak RSS as a share
of the input, and each command's wall and peak RSS ÷ the report's (issue 29: parquet ≤ 1.2×
the report's time, ≤ 35 % RSS of the file; issue 31: every export and sql ≤ 2× the report's
memory). Needs the `[fleet]` extra.

    python bench/export.py                                   # 200 MB of the hosted shape
    python bench/export.py --path big.jsonl --other /work/prev
    python bench/export.py --mb 20 --files 2000 --repeat 1
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import side

WHAT = ("report", "export", "duckdb", "csv", "sql, cold", "sql, cached")  # "export": to Parquet
AGG = ("SELECT model, count(*) AS turns, sum(input_tokens) AS billed_input "
       "FROM turns GROUP BY model ORDER BY model")


def measure(name: str, inputs: list[Path], trees: list, repeat: int, work: Path,
            what: tuple[str, ...] = WHAT) -> None:
    size = sum(p.stat().st_size for p in inputs)
    read_s, loop_s = side.bare_costs(inputs)
    target = [str(inputs[0].parent)] if len(inputs) > 1 else [str(inputs[0])]
    runs: dict[tuple[str, str], list] = {}
    for _ in range(repeat):
        for tree in trees:
            out, cache, csv = (work / f"{tree.label}-{x}" for x in ("parquet", "cache", "csv"))
            for stale in (out, cache, csv):
                shutil.rmtree(stale, ignore_errors=True)
            db = work / f"{tree.label}.duckdb"
            db.unlink(missing_ok=True)
            for command, args in (("report", ["report", "--format", "json", *target]),
                                 ("export", ["export", *target, "--to", "parquet", "-o", str(out)]),
                                 ("duckdb", ["export", *target, "--to", "duckdb", "-o", str(db)]),
                                 ("csv", ["export", *target, "--to", "csv", "-o", str(csv)]),
                                 ("sql, cold", ["sql", AGG, *target, "--cache", str(cache)]),
                                 ("sql, cached", ["sql", AGG, *target, "--cache", str(cache)])):
                if command not in what:
                    continue
                runs.setdefault((tree.label, command), []).append(side.command(tree, args))
    labels = [t.label for t in trees]
    print(f"\n{name}: {size / 1e6:,.0f} MB in {len(inputs):,} file(s); best of {repeat}; "
          f"bare cost: read {read_s:.2f} s, orjson loop {loop_s:.2f} s")
    got = {w: [side.best(runs[(label, w)]) for label in labels] for w in what}
    rows = [row for w in what for row in side.cost_rows(w, got[w], size, loop_s,
                                                       "input", ".0%")]
    rows += [(f"{w} ÷ report: wall (CPU), peak RSS",
              [f"{e.wall / r.wall:.2f} ({e.cpu / r.cpu:.2f}), {e.rss / r.rss:.2f}"
               for e, r in zip(got[w], got["report"], strict=True)])
             for w in what if w != "report" and "report" in got]
    side.table(name, rows, labels)


def main() -> int:
    ap = side.parser(__doc__, repeat=2)
    ap.add_argument("--path", type=side.capture_file, help="capture to export (default: generated)")
    ap.add_argument("--mb", type=int, default=200, help="size of the generated capture")
    ap.add_argument("--files", type=int, default=0,
                    help="also a directory of this many small captures (tests/shapes/fleet.py)")
    ap.add_argument("--what", nargs="+", default=list(WHAT), choices=WHAT, metavar="COMMAND",
                    help="the commands to run (default: all): " + "; ".join(WHAT))
    ns = ap.parse_args()
    what = tuple(w for w in WHAT if w in ns.what)
    trees = side.checkouts(ns.other)
    with tempfile.TemporaryDirectory(prefix="traceview-bench-export-") as tmp:
        work, path = Path(tmp), ns.path or side.generated("hosted", ns.mb)
        measure(path.name, [path], trees, ns.repeat, work, what)
        if ns.files:
            fleet = Path(tempfile.gettempdir()) / f"traceview-fleet-{ns.files}"
            if not fleet.exists():
                side.shape_module("fleet").write_fleet(fleet, ns.files)
            measure(fleet.name, sorted(fleet.glob("*.jsonl")), trees, ns.repeat, work, what)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
