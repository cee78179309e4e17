"""Measure `traceview export --to parquet` and `traceview sql` against their bare costs.

Prints, for the 200 MB bench capture and for a directory of 10,000 small captures:
rows/s and peak RSS of the export, its time as a ratio of `report --format json` (target
<= 1.2x) and of the bare cost (reading the bytes; orjson.loads on every line), its peak RSS
as a share of the input (target <= 25 %); then the latency of a SQL aggregate over the
exported turns (target <= 1 s) against the same question answered by `jq` over the
captures. Each measured command runs in a fresh process, so its peak RSS is its own.

    python bench/export.py [--mb 200] [--files 10000] [--work /tmp/traceview-bench-export]
                           [--shape gen_capture|hosted] [--repeat 3] [--no-extras]

On a shared machine, `--repeat N` runs `report` and `export` N times, interleaved (so load
drift hits both alike), and prints the best run and the spread (max - min) of each;
`--no-extras` skips the `--jobs 2`, SQL and jq measurements.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gen_capture import generate  # noqa: E402
from bench.gen_fleet import write_fleet  # noqa: E402

# Runs one traceview command in a fresh process and writes (seconds, peak RSS bytes).
_CHILD = """
import json, os, sys, time
from traceview.cli import main
t, c = time.perf_counter(), time.process_time()
rc = main(sys.argv[1:])
s, cpu = time.perf_counter() - t, time.process_time() - c
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork/exec.
rss = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM"))
open(os.environ["TV_BENCH_OUT"], "w").write(json.dumps({"s": s, "cpu": cpu, "rss": rss, "rc": rc}))
"""
AGG = ("SELECT model, count(*) AS turns, sum(input_tokens) AS billed_input "
       "FROM turns GROUP BY model ORDER BY model")
JQ_AGG = ('reduce (inputs | select(.dir == "res") | .body) as $b ({}; '
          '.[$b.model // "null"].turns += 1 | '
          '.[$b.model // "null"].billed_input += ($b.usage.input_tokens // 0))')


def run_tv(*args: str) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, *args], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env={**os.environ, "TV_BENCH_OUT": out}, check=False)
        text = Path(out).read_text()
        if not text:
            sys.exit(f"traceview {args[0]} failed: {proc.stderr.decode()[-500:]}")
        return json.loads(text)
    finally:
        os.unlink(out)


def bare_cost(files: list[Path]) -> tuple[float, float, int]:
    """(seconds to read the bytes, seconds to read and orjson.loads every line, lines)."""
    t = time.perf_counter()
    for p in files:
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass
    read_s = time.perf_counter() - t
    t = time.perf_counter()
    n = 0
    for p in files:
        with open(p, "rb") as f:
            for line in f:
                try:
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    pass
                n += 1
    return read_s, time.perf_counter() - t, n


def timed(cmd: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return time.perf_counter() - t, proc.stdout


def sql_in_process(export_dir: Path, repeat: int = 5) -> tuple[float, float]:
    """(first query, best of the next ones) on an open connection: what a notebook pays."""
    from traceview.export.sql import connect, query

    con, _ = connect([str(export_dir)], Path(tempfile.gettempdir()))
    t = time.perf_counter()
    query(con, AGG)
    first = time.perf_counter() - t
    best = 1e9
    for _ in range(repeat):
        t = time.perf_counter()
        query(con, AGG)
        best = min(best, time.perf_counter() - t)
    con.close()
    return first, best


def best_of(runs: list[dict]) -> dict:
    """The best run of each measure (min time, min CPU, min RSS) and the spread of each."""
    out = {k: min(r[k] for r in runs) for k in ("s", "cpu", "rss")}
    out.update({f"{k}_spread": max(r[k] for r in runs) - out[k] for k in ("s", "cpu", "rss")})
    return out


def measure(label: str, inputs: list[str], files: list[Path], work: Path,
            repeat: int = 1, extras: bool = True) -> dict:
    size = sum(p.stat().st_size for p in files)
    read_s, loads_s, lines = bare_cost(files)
    out = work / f"export-{label}"
    reports, exports = [], []
    for _ in range(repeat):  # interleaved: drift on a shared machine hits both alike
        reports.append(run_tv("report", *inputs, "--format", "json"))
        shutil.rmtree(out, ignore_errors=True)
        exports.append(run_tv("export", *inputs, "--to", "parquet", "-o", str(out)))
    report, export = best_of(reports), best_of(exports)
    jobs = None
    if extras and len(files) > 1:
        jobs_out = work / f"export-{label}-jobs2"
        shutil.rmtree(jobs_out, ignore_errors=True)
        jobs = run_tv("export", *inputs, "--to", "parquet", "-o", str(jobs_out), "--jobs", "2")
        shutil.rmtree(jobs_out, ignore_errors=True)
    import pyarrow.dataset as ds

    rows = ds.dataset(out / "turns", format="parquet").count_rows()
    nan = float("nan")
    sql_cli = run_tv("sql", AGG, str(out)) if extras else {"s": nan}
    sql_first, sql_s = sql_in_process(out) if extras else (nan, nan)
    jq_s, _ = timed(["jq", "-n", JQ_AGG, *[str(p) for p in files]]) \
        if extras and shutil.which("jq") else (nan, "")
    r = {
        "input": label, "files": len(files), "MB": round(size / 1e6, 1), "lines": lines,
        "turns": rows, "read_s": round(read_s, 2), "loads_s": round(loads_s, 2),
        "report_json_s": round(report["s"], 2), "report_rss_MB": round(report["rss"] / 1e6),
        "export_s": round(export["s"], 2), "export_rss_MB": round(export["rss"] / 1e6),
        "rows_per_s": round(rows / export["s"]),
        "report_cpu_s": round(report["cpu"], 2), "export_cpu_s": round(export["cpu"], 2),
        "runs": repeat, "report_cpu_spread": round(report["cpu_spread"], 2),
        "export_cpu_spread": round(export["cpu_spread"], 2),
        "export_rss_spread_MB": round(export["rss_spread"] / 1e6),
        "export_vs_report": round(export["s"] / report["s"], 2),
        "export_vs_report_cpu": round(export["cpu"] / report["cpu"], 2),
        "export_vs_loads": round(export["s"] / loads_s, 2),
        "rss_share_of_input": round(export["rss"] / size, 3),
        "export_jobs2_s": round(jobs["s"], 2) if jobs else "-",
        "jobs2_vs_report": round(jobs["s"] / report["s"], 2) if jobs else "-",
        "sql_cli_s": round(sql_cli["s"], 3), "sql_first_query_s": round(sql_first, 4),
        "sql_query_s": round(sql_s, 4),
        "jq_s": round(jq_s, 2),
    }
    print(json.dumps(r), flush=True)
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "traceview-bench-export"))
    ap.add_argument("--shape", choices=["gen_capture", "hosted"], default="gen_capture")
    ap.add_argument("--repeat", type=int, default=1, help="runs of report and export (best-of)")
    ap.add_argument("--no-extras", action="store_true", help="skip --jobs 2, SQL and jq")
    ns = ap.parse_args()
    work = Path(ns.work)
    work.mkdir(parents=True, exist_ok=True)
    results = []
    if ns.mb:
        cap = work / f"capture-{ns.shape}-{ns.mb}mb.jsonl"
        if not cap.exists():
            if ns.shape == "hosted":
                subprocess.run([sys.executable, "/work/shared/bench/gen_hosted_shape.py",
                                str(cap), str(ns.mb)], check=True)
            else:
                generate(cap, ns.mb * 1024 * 1024)
        results.append(measure(f"{ns.mb}MB-{ns.shape}", [str(cap)], [cap], work,
                               ns.repeat, not ns.no_extras))
    if ns.files:
        fleet = work / f"fleet-{ns.files}"
        if not fleet.exists():
            write_fleet(fleet, ns.files)
        files = sorted(fleet.glob("*.jsonl"))
        results.append(measure(f"{ns.files}-files", [str(fleet)], files, work,
                               ns.repeat, not ns.no_extras))
    for k in results[0]:
        print(f"{k:<22}" + "".join(f"{str(r[k]):>20}" for r in results))
    print("targets: export_vs_report <= 1.2, rss_share_of_input <= 0.25, sql <= 1 s")


if __name__ == "__main__":
    main()
