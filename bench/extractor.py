"""What the extraction workers cost the main process: forked children against spawned ones.

`capture/parallel.py: Extractor` hands a load its chunks' facts; in the CLI (one thread) the
workers are forked children (capture/children.py), in the inspector (a thread) children
started as new interpreters ("spawn"; a ProcessPoolExecutor over a forkserver before). This
runs the Extractor alone over every chunk of a
capture, in a fresh process per run, both ways, and prints per way (best of --repeat,
interleaved): the main process's CPU inside the Extractor (what the load's critical path
pays for its workers: the first chunk read here, receiving and decoding every other) and
for the whole process (imports included), the CPU of every process the run started
(children, a forkserver's: found through a subreaper on Linux), and the peak RSS of the main
process. The orjson loop over the same file is the bare cost the figures are read against.

    python bench/extractor.py /tmp/traceview-hosted-200mb.jsonl --workers 2 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from capture_arg import capture_file

ROOT = Path(__file__).resolve().parent.parent

RUN = r"""
import os, resource, sys
mode, path, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
if mode == "orjson":
    import orjson
    t0 = cpu()
    with open(path, "rb") as f:
        for raw in f:
            try:
                orjson.loads(raw)
            except orjson.JSONDecodeError:
                pass
    lines = -1
else:
    from traceview.capture import parallel
    if mode == "spawn":
        parallel.fork_safe = lambda: False
    t0 = cpu()
    size = os.path.getsize(path)
    tasks = ((0, path, s, e) for s, e in parallel.split(path, size, parallel.chunk_bytes()))
    ex = parallel.Extractor(workers)
    lines = 0
    for _, res in ex.run(tasks):
        lines += len(res[0])
    ex.close()
import sys as _s
print(cpu() - t0, cpu(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, lines,
      "multiprocessing" in _s.modules, file=sys.__stderr__)
"""


def _subreaper() -> bool:
    """Become the reaper of every orphaned descendant (the forkserver's workers), so their
    CPU lands in RUSAGE_CHILDREN. Linux only; elsewhere the total misses them."""
    try:
        import ctypes

        return ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _one(mode: str, path: str, workers: int) -> tuple[float, float, float, int, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", RUN, mode, path, str(workers)],
                         capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    while True:  # the orphans this process adopted
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    stage, whole, rss, lines, mp = out.stderr.split()[-5:]
    return float(stage), float(whole), total, int(rss) * 1024, int(lines), mp


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=capture_file)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ns = ap.parse_args(argv)
    _subreaper()
    modes = ("orjson", "fork", "spawn")
    runs: dict[str, list[tuple[float, float, float, int, int, str]]] = {m: [] for m in modes}
    for _ in range(ns.repeat):
        for mode in modes:
            runs[mode].append(_one(mode, ns.path, ns.workers))
    loop = min(r[0] for r in runs["orjson"])
    lines = runs["fork"][0][4]
    print(f"{ns.path}: {lines:,} lines, {ns.workers} workers, best of {ns.repeat}; "
          f"orjson loop {loop:.3f} s CPU", file=out)
    print(f"{'workers':8} {'main CPU in Extractor':>22} {'× loop':>7} {'µs/line':>8} "
          f"{'main process':>13} {'all processes':>14} {'main peak RSS':>14} "
          f"{'multiprocessing':>16}", file=out)
    for mode in ("fork", "spawn"):
        r = runs[mode]
        stage = min(x[0] for x in r)
        print(f"{mode:8} {stage:20.3f} s {stage / loop:6.2f}× {stage / max(1, lines) * 1e6:8.2f} "
              f"{min(x[1] for x in r):11.3f} s {min(x[2] for x in r):12.2f} s "
              f"{min(x[3] for x in r) / (1 << 20):10.1f} MiB {r[0][5]:>16}", file=out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
