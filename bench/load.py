"""Full analysis and report of a large capture, against the bare cost of the same work.

Prints time ratios against (a) reading the bytes and (b) `orjson.loads` on every line,
peak RSS as a fraction of the file size, bytes per turn (peak RSS above the orjson loop's,
per turn) and the speedup from one process to all cores. Each measurement runs in a fresh
process so its peak RSS is its own. Two shapes: `bench` (bigger turns, gen_capture.py) and
`hosted` (many ~4 kB turns, gen_hosted.py: where the per-turn cost shows).
Targets (issue #11): report --format json ≤ 3× the loop on all cores, ≤ 5× in one process;
the text report within 1.2× of JSON; peak RSS ≤ 25 % of the file.

    python bench/load.py                    # both shapes, 200 MB each, in the temp dir
    python bench/load.py --shape hosted --mb 50 --repeat 5
    python bench/load.py --path /tmp/x.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent

PHASES = {
    "read": """
with open(PATH, 'rb') as f:
    while f.read(4 << 20):
        pass
""",
    "orjson": """
import orjson
with open(PATH, 'rb') as f:
    for raw in f:
        try:  # a damaged line costs the baseline no more than it costs the analysis
            orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
""",
    # --stages: where the time between the orjson loop and the full analysis goes.
    "fields": """
import orjson
with open(PATH, 'rb') as f:
    for raw in f:
        try:
            o = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        b = o.get("body") if isinstance(o, dict) else None
        b = b if isinstance(b, dict) else {}
        u = b.get("usage") if isinstance(b.get("usage"), dict) else {}
        o = o if isinstance(o, dict) else {}
        (o.get("dir"), o.get("id"), b.get("id"), b.get("status"), b.get("conversation"),
         u.get("input_tokens"), u.get("output_tokens"))
""",
    "reader": """
from traceview.capture import load
N = len(load(PATH).turns)
""",
    "analysis": """
from traceview.analysis import analyze
a = analyze(PATH)
assert a.complete
N = len(a.turns)
""",
    "report-json": """
from traceview.cli import main
sys.stdout = open(os.devnull, "w")
main(["report", "--format", "json", PATH])
""",
    "report-text": """
from traceview.cli import main
sys.stdout = open(os.devnull, "w")
main(["report", "--format", "text", "--width", "100", PATH])
""",
}
# Phases that run once per worker count (TRACEVIEW_WORKERS=1 and =all cores).
SCALED = ("analysis", "report-json", "report-text")
CORES = os.cpu_count() or 1

RUNNER = """
import os, resource, sys, time
PATH = sys.argv[1]
N = None
t0 = time.perf_counter()
{body}
dt = time.perf_counter() - t0
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
rss = me.ru_maxrss * 1024
print(me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime, kids.ru_maxrss * 1024,
      dt, rss, N, file=sys.__stdout__)
"""


class BenchError(Exception):
    """A capture or phase the benchmark cannot use; the message says which and why."""


Result = tuple[float, int, "int | None", list[float]]
# CPU seconds of the phase's own process (and of children it waited for, and their peak
# RSS) per run: on a busy machine wall time says little about scaling, but the main
# process's CPU time is the critical path of the all-cores run.
cpus: dict[str, list[tuple[float, float, int]]] = {}


def measure(phases: list[str], path: Path, repeat: int) -> dict[str, Result]:
    """Best time of `repeat` runs per phase (and every time, for the spread), the phases
    interleaved run by run so a busy machine slows them alike (the ratios are what matter).
    A phase named `x@N` runs phase x with TRACEVIEW_WORKERS=N."""
    best: dict[str, Result] = {}
    cpus.clear()
    for _ in range(repeat):
        for phase in phases:
            name, _, workers = phase.partition("@")
            code = RUNNER.format(body=PHASES[name])
            env = dict(os.environ, TRACEVIEW_WORKERS=workers or "1")
            out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                                 text=True, cwd=HERE.parent, env=env)
            if out.returncode != 0:
                last = (out.stderr.strip().splitlines() or ["no output"])[-1]
                raise BenchError(f"the {phase} phase failed on {path}: {last}")
            cpu, kid_cpu, kid_rss, dt, rss, n = out.stdout.split()[-6:]
            cpus.setdefault(phase, []).append((float(cpu), float(kid_cpu), int(kid_rss)))
            times = best[phase][3] if phase in best else []
            times.append(float(dt))
            cur = (float(dt), int(rss), None if n == "None" else int(n), times)
            if phase not in best or cur[0] < best[phase][0]:
                best[phase] = cur
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", choices=("bench", "hosted", "both"), default="both",
                    help="which generated capture (default: both)")
    ap.add_argument("--mb", type=int, default=200, help="capture size to generate (MB)")
    ap.add_argument("--path", default=None, help="capture to use (generated if missing)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per phase; best is kept")
    ap.add_argument("--workers", type=int, default=CORES,
                    help=f"worker processes for the all-cores runs (default: {CORES})")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    ap.add_argument("--stages", action="store_true",
                    help="also time the stages in between: the orjson loop plus the few fields "
                         "any analysis reads, and reading + pairing without the analysis")
    ns = ap.parse_args()
    if ns.repeat < 1 or ns.mb < 1 or ns.workers < 1:
        ap.error("--repeat, --mb and --workers must be at least 1")
    shapes = ["bench", "hosted"] if ns.shape == "both" else [ns.shape]
    if ns.path:
        shapes = ["given"]
    rc = 0
    for shape in shapes:
        path = Path(ns.path or Path(tempfile.gettempdir()) / f"traceview-{shape}-{ns.mb}mb.jsonl")
        try:
            rc = max(rc, _run(ns, path, shape))
        except BenchError as exc:
            print(f"load.py: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"load.py: {path}: {exc.strerror or exc}; pass --path to a writable file "
                  "or an existing capture", file=sys.stderr)
            return 2
    return rc


def _generate(path: Path, shape: str, mb: int) -> None:
    sys.path.insert(0, str(HERE))
    if shape == "hosted":
        from gen_hosted import generate
    else:
        from gen_capture import generate
    print(f"generating {path} ({mb} MB, {shape} shape)…", flush=True)
    generate(path, mb * 1_000_000)


def _spread(times: list[float]) -> str:
    return f"{min(times):.2f}–{max(times):.2f}" if len(times) > 1 else f"{times[0]:.2f}"


def _run(ns: argparse.Namespace, path: Path, shape: str) -> int:
    if path.is_dir():
        raise BenchError(f"{path} is a directory; pass one capture file")
    if not path.exists():
        _generate(path, shape, ns.mb)
    size = path.stat().st_size
    if size == 0:
        raise BenchError(f"{path} is empty")
    phases = [p for p in PHASES if (ns.stages or p not in ("fields", "reader"))
              and p not in SCALED]
    counts = [1] if ns.workers == 1 else [1, ns.workers]
    phases += [f"{p}@{n}" for p in SCALED for n in counts]
    results = measure(phases, path, ns.repeat)
    read_t = results["read"][0]
    loop_t, loop_rss = results["orjson"][:2]
    turns = results["analysis@1"][2] or 0
    print(f"\ncapture ({shape} shape): {path} — {size / 1e6:,.0f} MB, {turns:,} turns, "
          f"{size / max(turns, 1):,.0f} B of capture a turn; best of {ns.repeat}, "
          f"{os.cpu_count()} cores")
    print(f"{'phase':<18}{'seconds':>9}{'spread':>13}{'peak RSS':>12}{'RSS/size':>10}"
          f"{'× loop':>9}{'B/turn':>9}")
    for name, (t, rss, _, times) in results.items():
        per_turn = f"{(rss - loop_rss) / turns:>9,.0f}" if turns and "@" in name else ""
        print(f"{name:<18}{t:>9.2f}{_spread(times):>13}{rss / 1e6:>10.0f} MB{rss / size:>9.1%}"
              f"{t / loop_t:>8.2f}×{per_turn}")
    # The main process's CPU time: what a busy machine inflates least, and with workers the
    # critical path (the workers run under a forkserver, so their CPU is not counted here).
    loop_cpu = min(cpus["orjson"])[0]
    print(f"{'phase':<18}{'main CPU s':>11}{'× loop CPU':>12}")
    for name in results:
        c = min(cpus[name])[0]
        print(f"{name:<18}{c:>11.2f}{c / loop_cpu:>11.2f}×")
    summary: dict[str, float] = {"size": size, "turns": turns}
    for n in counts:
        j, tx = results[f"report-json@{n}"], results[f"report-text@{n}"]
        print(f"{n} process{'es' if n > 1 else ''}: report json {j[0] / loop_t:.2f}× loop "
              f"(target ≤ {3 if n > 1 else 5}), peak RSS {j[1] / size:.1%} (target ≤ 25 %); "
              f"text / json {tx[0] / j[0]:.2f} (target ≤ 1.2)")
        summary[f"json_ratio_{n}"] = j[0] / loop_t
        summary[f"text_over_json_{n}"] = tx[0] / j[0]
        summary[f"rss_fraction_{n}"] = j[1] / size
    if len(counts) > 1:
        for p in SCALED:
            sp = results[f"{p}@1"][0] / results[f"{p}@{counts[-1]}"][0]
            print(f"speedup 1 → {counts[-1]} workers, {p}: {sp:.2f}×")
            summary[f"speedup_{p}"] = sp
    print(f"analysis / bare read: {results['analysis@1'][0] / read_t:.1f}×; "
          f"bytes per turn = (peak RSS − the orjson loop's) / turns")
    if ns.json:
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
