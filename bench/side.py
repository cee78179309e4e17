"""What the bench scripts share: the checkouts measured side by side, the bare cost of the
same work, one way to run a command and read its time and memory, and the tables.

A figure alone says little on a shared machine; a ratio does. So every script prints its
numbers against the bare cost of the same work (reading the bytes, `orjson.loads` on every
line) and, given `--other DIR`, runs another checkout's code on the same input, interleaved
run by run, so the machine's load hits both alike.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]

# Runs `traceview ARGS` and writes the main process's peak RSS (VmHWM: ru_maxrss would
# carry the parent's peak over the fork) where TV_BENCH_HWM says.
_COMMAND = """
import atexit, os, sys
def _hwm():
    with open("/proc/self/status") as f:
        kb = next(int(l.split()[1]) for l in f if l.startswith("VmHWM"))
    with open(os.environ["TV_BENCH_HWM"], "w") as out:
        out.write(str(kb * 1024))
atexit.register(_hwm)
from traceview.cli import main
sys.exit(main(sys.argv[1:]))
"""


@dataclass(frozen=True)
class Checkout:
    """A source tree and the interpreter that runs it (its own .venv when it has one)."""

    label: str
    root: Path
    python: str

    def env(self, **extra: str) -> dict[str, str]:
        path = os.pathsep.join(filter(None, [str(self.root), os.environ.get("PYTHONPATH")]))
        return {**os.environ, "PYTHONPATH": path, "TEXTUAL_ANIMATIONS": "none", **extra}


@dataclass(frozen=True)
class Run:
    wall: float  # seconds, process start to exit: what the user waits
    cpu: float  # seconds of CPU, the process and the workers it waited for
    rss: int  # bytes, the main process's peak
    rc: int


def parser(doc: str, repeat: int = 3) -> argparse.ArgumentParser:
    """A script's parser (its docstring's first line) with --other and --repeat."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--other", action="append", default=[], metavar="DIR", help="another "
                    "checkout to measure side by side (with its .venv, if any); repeatable")
    ap.add_argument("--repeat", type=int, default=repeat,
                    help=f"runs per measure, interleaved; the best is kept (default {repeat})")
    return ap


def checkouts(others: Sequence[str]) -> list[Checkout]:
    found = [Checkout("this", ROOT, sys.executable)]
    for text in others:
        root = Path(text).resolve()
        if not (root / "traceview").is_dir():
            sys.exit(f"--other {text}: not a traceview checkout (no traceview/ inside)")
        venv = root / ".venv" / "bin" / "python"
        found.append(Checkout(root.name, root, str(venv) if venv.exists() else sys.executable))
    return found


def capture_file(text: str) -> Path:
    """argparse type: a readable capture, else a one-line message and exit 2."""
    path = Path(text)
    if not path.is_file() or not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"no readable capture file: {text!r}")
    return path


def generated(shape: str, mb: int) -> Path:
    """A generated capture of `shape` ("hosted": tests/shapes/hosted.py), made once, reused."""
    path = Path(tempfile.gettempdir()) / f"traceview-{shape}-{mb}mb.jsonl"
    if not path.exists():
        print(f"generating {path} ({mb} MB, {shape} shape)…", flush=True)
        shape_module(shape).generate(path, mb * 1_000_000)
    return path


def shape_module(name: str) -> Any:
    """tests/shapes/NAME.py of this checkout (a generated capture's writer). Found after
    every other path: a measured checkout's child must import its own traceview, never
    this checkout's, which a path put first would give it."""
    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    return importlib.import_module(f"tests.shapes.{name}")


def measured_root() -> str:
    """The checkout whose traceview this process imported (a child reports it)."""
    import traceview

    return str(Path(traceview.__file__).resolve().parents[1])


def pairs(path: Path) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Each response of a capture (gzipped too) with the request just before it."""
    request = None
    with (gzip.open if path.suffix == ".gz" else open)(path, "rb") as f:
        for line in f:
            try:
                record = json.loads(line.decode("utf-8", "replace"))
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("dir") == "req":
                request = record
            elif isinstance(record, dict) and record.get("dir") == "res" and request:
                yield request, record
                request = None


def bare_costs(files: Iterable[Path]) -> tuple[float, float]:
    """Seconds to read every byte, and to read and `orjson.loads` every line."""
    files = list(files)
    t = time.perf_counter()
    for p in files:
        with open(p, "rb") as f:
            while f.read(1 << 22):
                pass
    read_s = time.perf_counter() - t
    t = time.perf_counter()
    for p in files:
        with open(p, "rb") as f:
            for line in f:
                try:  # a damaged line costs the floor no more than it costs traceview
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    pass
    return read_s, time.perf_counter() - t


def command(checkout: Checkout, args: Sequence[str], **env: str) -> Run:
    """`traceview ARGS` in a fresh process of `checkout`, its stdout discarded."""
    with tempfile.NamedTemporaryFile(prefix="tv-bench-", delete=False) as f:
        hwm = f.name
    try:
        t = time.perf_counter()
        proc = subprocess.Popen([checkout.python, "-c", _COMMAND, *args], cwd=checkout.root,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=checkout.env(TV_BENCH_HWM=hwm, **env))
        assert proc.stderr is not None
        err = proc.stderr.read()
        # wait4, not Popen.wait: it gives the CPU of this child and the workers it reaped.
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stderr.close()
        rss = int(Path(hwm).read_text() or 0)
    finally:
        os.unlink(hwm)
    if proc.returncode not in (0, 1):
        sys.exit(f"{checkout.label}: traceview {' '.join(args)} failed "
                 f"({proc.returncode}): {err.decode(errors='replace')[-400:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, rss, proc.returncode)


def best(runs: Sequence[Run]) -> Run:
    """The best of each figure over repeated runs (a busy machine only ever adds)."""
    return Run(min(r.wall for r in runs), min(r.cpu for r in runs), min(r.rss for r in runs),
               max(r.rc for r in runs))


def ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.0f} ms"


def table(title: str, rows: Sequence[tuple[str, Sequence[str]]], labels: Sequence[str]) -> None:
    """One row per measure, one column per checkout."""
    width = max([len(r[0]) for r in rows] + [len(title)])
    print(f"\n{title:<{width}}" + "".join(f"{label:>24}" for label in labels))
    for name, cells in rows:
        print(f"{name:<{width}}" + "".join(f"{c:>24}" for c in cells))


def best_of(trees: Sequence[Checkout], cases: Sequence[tuple[str, list[str], dict[str, str]]],
            repeat: int) -> dict[tuple[str, str], Run]:
    """Each case `(name, args, env)` in every checkout, interleaved; best by (label, case)."""
    runs: dict[tuple[str, str], list[Run]] = {}
    for _ in range(repeat):
        for name, args, env in cases:
            for tree in trees:
                runs.setdefault((tree.label, name), []).append(command(tree, args, **env))
    return {key: best(got) for key, got in runs.items()}


def cost_rows(name: str, got: Sequence[Run], size: int, loop_s: float | None = None,
              of: str = "file", share: str = ".1%") -> list[tuple[str, list[str]]]:
    """Wall (× the orjson loop when given), CPU and peak RSS (share of `size`) of a case."""
    return [(f"{name}: wall s" + (" (× loop)" if loop_s else ""),
             [f"{r.wall:.2f}" + (f" ({r.wall / loop_s:.1f}×)" if loop_s else "") for r in got]),
            (f"{name}: CPU s", [f"{r.cpu:.2f}" for r in got]),
            (f"{name}: peak RSS (% {of})",
             [f"{r.rss / 1e6:.0f} MB ({r.rss / size:{share}})" for r in got])]


def child_runs(script: str, trees: Sequence[Checkout], args: Sequence[str],
               repeat: int) -> dict[str, dict[str, Any]]:
    """`script --child ARGS` per checkout, interleaved; the best of each figure it printed."""
    got: dict[str, list[dict[str, Any]]] = {t.label: [] for t in trees}
    for _ in range(repeat):
        for tree in trees:
            proc = subprocess.run([tree.python, script, "--child", *args], cwd=tree.root,
                                  env=tree.env(), capture_output=True, text=True, check=False)
            if proc.returncode:
                sys.exit(f"{tree.label}: {proc.stderr[-600:]}")
            answer = json.loads(proc.stdout.splitlines()[-1])
            if answer.pop("root", None) != str(tree.root.resolve()):
                sys.exit(f"{tree.label}: its child did not import {tree.root}'s traceview")
            got[tree.label].append(answer)
    return {label: {key: min((r[key] for r in runs if r[key] is not None), default=None)
                    for key in runs[0]} for label, runs in got.items()}
