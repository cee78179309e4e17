"""Full analysis of a large capture, against the bare cost of the same work.

Prints time ratios against (a) reading the bytes and (b) `orjson.loads` on every line,
and peak RSS as a fraction of the file size. Each measurement runs in a fresh process
so its peak RSS is its own. Targets: time ≤ 1.5 × the orjson loop, RSS ≤ 25 % of size.

    python bench/load.py            # 200 MB capture, generated once into the temp dir
    python bench/load.py --mb 50 --path /tmp/x.jsonl
"""

from __future__ import annotations

import argparse
import json
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
}

RUNNER = """
import resource, sys, time
PATH = sys.argv[1]
N = None
t0 = time.perf_counter()
{body}
dt = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(dt, rss, N)
"""


class BenchError(Exception):
    """A capture or phase the benchmark cannot use; the message says which and why."""


def measure(phases: list[str], path: Path, repeat: int) -> dict[str, tuple[float, int, int | None]]:
    """Best time of `repeat` runs per phase, the phases interleaved run by run so a busy
    machine slows them alike (the ratios are what matter)."""
    best: dict[str, tuple[float, int, int | None]] = {}
    for _ in range(repeat):
        for phase in phases:
            code = RUNNER.format(body=PHASES[phase])
            out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                                 text=True, cwd=HERE.parent)
            if out.returncode != 0:
                last = (out.stderr.strip().splitlines() or ["no output"])[-1]
                raise BenchError(f"the {phase} phase failed on {path}: {last}")
            dt, rss, n = out.stdout.split()
            cur = (float(dt), int(rss), None if n == "None" else int(n))
            if phase not in best or cur[0] < best[phase][0]:
                best[phase] = cur
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=200, help="capture size to generate (MB)")
    ap.add_argument("--path", default=None, help="capture to use (generated if missing)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per phase; best is kept")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    ap.add_argument("--stages", action="store_true",
                    help="also time the stages in between: the orjson loop plus the few fields "
                         "any analysis reads, and reading + pairing without the analysis")
    ns = ap.parse_args()
    if ns.repeat < 1 or ns.mb < 1:
        ap.error("--repeat and --mb must be at least 1")
    path = Path(ns.path or Path(tempfile.gettempdir()) / f"traceview-bench-{ns.mb}mb.jsonl")
    try:
        return _run(ns, path)
    except BenchError as exc:
        print(f"load.py: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"load.py: {path}: {exc.strerror or exc}; pass --path to a writable file "
              "or an existing capture", file=sys.stderr)
        return 2


def _run(ns: argparse.Namespace, path: Path) -> int:
    if path.is_dir():
        raise BenchError(f"{path} is a directory; pass one capture file")
    if not path.exists():
        sys.path.insert(0, str(HERE))
        from gen_capture import generate

        print(f"generating {path} ({ns.mb} MB)…", flush=True)
        generate(path, ns.mb * 1_000_000)
    size = path.stat().st_size
    if size == 0:
        raise BenchError(f"{path} is empty")
    phases = [p for p in PHASES if ns.stages or p not in ("fields", "reader")]
    results = measure(phases, path, ns.repeat)
    read_t, _, _ = results["read"]
    loop_t, loop_rss, _ = results["orjson"]
    an_t, an_rss, turns = results["analysis"]
    print(f"capture: {path} — {size / 1e6:,.0f} MB, {turns:,} turns")
    print(f"{'phase':<18}{'seconds':>9}{'peak RSS':>12}{'RSS/size':>10}")
    for name, (t, rss, _) in results.items():
        print(f"{name:<18}{t:>9.2f}{rss / 1e6:>10.0f} MB{rss / size:>9.1%}"
              f"{t / loop_t:>8.2f}× loop")
    ratio = an_t / loop_t
    print(f"analysis / orjson loop:  {ratio:.2f}×  (target ≤ 1.5)")
    print(f"analysis / bare read:    {an_t / read_t:.1f}×")
    print(f"analysis peak RSS:       {an_rss / size:.1%} of file size  (target ≤ 25 %)")
    if ns.json:
        print(json.dumps({"size": size, "turns": turns, "ratio_orjson": ratio,
                          "ratio_read": an_t / read_t, "rss_fraction": an_rss / size}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
