"""Every stage of `traceview report --format json`, against the measured floor of its work.

Issue #11 is done when its targets hold "or the closing note shows the measured floor of
each remaining stage with a profile". This prints that table, for one capture, in one
process (TRACEVIEW_WORKERS=1):

    stage | actual µs/turn | replay | floor µs/turn | actual/floor | floor × orjson loop | share

then the sums — the report and the inspector's load (every stage before the writer), in
one process and as the 2-core critical path (serial stages + parallel stages / 2) — each
beside issue #11's target, and with `--profile` each stage's top functions by own time.

*Actual*: the real pipeline (session.analyze, then json_out.iter_json written to
/dev/null) with a timer around each stage's public seam (SEAMS: reader.line_facts, the
table's `add`, CaptureBuilder.feed_run, Analyzer.add_all, the three hosted-state passes,
the rows (turn_report.row_dicts), explain, redact_json, json_safe, the writer's
orjson.dumps, the lists' to_dict / row_dicts). Time in a stage is its own (what it calls
that is another stage is that stage's). The per-call timer is perf_counter (process_time
is a system call of ~2 µs here: more than some stages); each stage is scaled by the run's
CPU / wall ratio and the timer's own cost (calibrated) is taken off. The instrumented
total is printed beside an uninstrumented run's CPU and a plain `traceview report --format
json` subprocess's CPU, so the scaling can be judged. *Replay*: the stage's real functions
re-run alone in bulk under process_time (no per-call timer), a cross-check that holds on a
busy machine.

*Floor*: the bare cost of the work the stage cannot avoid given today's data layout, on
the same data, in a plain loop over pre-extracted values: the C-level operations its
output requires (a decode, a search over the bytes, a column copy, one compare an id)
plus one Python object per output record (a tuple or a dict display). Each floor's
docstring says what it does and why that is a floor; its one-line summary is printed
under the table. Each floor is checked against the real stage's output (equal values,
strings, digests): "verified" when every record agrees, "UNVERIFIED (n differ)"
otherwise; a floor that cannot be compared says what it was checked against. Where the
stages stand today:

- decode+facts: orjson.loads, the fields the facts read, and the objects' scan of the
  bytes (capture/scan.py: ids and created_at, found while the line is read — the objects
  pass no longer reads the file again);
- objects: the column pass's output (analysis/object_columns.py): the stored responses'
  columns, the ledger's tool configurations, one record per conversation / quoted id;
- fidelity: one verdict per conversation from the columns (no body read: the rebuilt
  input's hash is deferred to its reader, analysis/fidelity.py);
- lists: the listings' dict displays plus the deferred hashes, which the writer pays
  (pread, decode, the canonical walk, sha256 of each settled verdict's rebuild).
Stages not floored (end of load, hosted glue, the document's rest) count at their actual
in the sums.

Every stage fails soft: a seam that moved reads 0 with a message on stderr (exit 2), a
floor or a replay that broke says so on its row (exit 1); the other rows are measured.
Best of --repeat for every figure. A script, not a test: tests/bench/test_floors_runs.py
only checks that it runs, that its floors verify and that a broken stage is a message.

    python bench/floors.py --path /tmp/h50.jsonl --repeat 3 --profile
    python bench/floors.py --shape bench --mb 50 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import importlib
import os
import pstats
import re
import resource
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import orjson  # noqa: E402
from capture_arg import capture_file  # noqa: E402


class SeamMoved(Exception):
    """A public function this script times is no longer where it was."""


# ---------------------------------------------------------------------------- the seams
# (stage, module, attribute path, how it is wrapped). Every stage's time is its own: a
# seam called from inside another stage's seam is charged to the inner stage.
SEAMS: list[tuple[str, str, str, str]] = [
    ("facts", "traceview.capture.reader", "line_facts", "call"),
    ("store", "traceview.capture.table", "RequestSide.add", "call"),
    ("store", "traceview.capture.table", "ResponseSide.add", "call"),
    ("pairing", "traceview.capture.reader", "CaptureBuilder.feed", "call"),
    # The loader pairs a step's lines in one call (line_facts is then the read loop's).
    ("pairing", "traceview.capture.reader", "CaptureBuilder.feed_run", "call?"),
    ("analyzer", "traceview.analysis.analyzer", "Analyzer.add", "call"),
    # The session analyses its finished turns a run at a time.
    ("analyzer", "traceview.analysis.analyzer", "Analyzer.add_all", "call?"),
    ("finish", "traceview.analysis.session", "Session._finish", "call"),
    ("hosted", "traceview.analysis.session", "attach_hosted_state", "call"),
    ("objects", "traceview.analysis.hosted_state", "inventory", "call"),
    ("ledger", "traceview.analysis.hosted_state", "build_ledger", "call"),
    ("fidelity", "traceview.analysis.hosted_state", "assess", "call"),
    # The ledger and the verdicts built ahead, a slice at a time while the capture loads
    # (analysis/ahead.py): charged to their stages, not to the read loop that calls them.
    ("ledger", "traceview.analysis.ahead", "LedgerAhead._feed", "call?"),
    ("fidelity", "traceview.analysis.ahead", "LedgerAhead._judge", "call?"),
    ("writer", "traceview.report.json_out", "iter_json", "gen"),
    # The writer's rows (turn_report.row_dicts: one generator a range, each step a row);
    # TurnReport.row is a one-row run of the same generator.
    ("rows", "traceview.analysis.turn_report", "_Columns.rows", "gen"),
    ("explain", "traceview.analysis.turn_report", "explain", "call"),
    ("explain", "traceview.analysis.turn_report", "explain_and_findings", "call"),
    ("redact", "traceview.report.json_out", "redact_json", "call"),
    ("safe", "traceview.report.json_out", "json_safe", "call"),
    ("dumps", "traceview.report.json_out", "orjson.dumps", "proxy"),
    ("lists", "traceview.analysis.turn_report", "ConversationReport.to_dict", "call"),
    ("lists", "traceview.analysis.objects", "ProviderObject.to_dict", "call"),
    # Optional (the objects' listing is written one way or the other): "?" may be gone.
    ("lists", "traceview.analysis.objects", "_ResponseRows.whole", "call?"),
    ("lists", "traceview.analysis.objects", "_Listing.dicts", "iter?"),
    # The stored responses' rows written straight from their columns (one dict a row).
    ("lists", "traceview.analysis.objects", "_ResponseRows.row_dicts", "gen?"),
    ("lists", "traceview.analysis.fidelity", "Verdict.to_dict", "call"),
    # A verdict the capture settled is made again when read (fidelity._Remake).
    ("lists", "traceview.analysis.fidelity", "Fidelity._verdict", "call?"),
]

# Rows of the table, in pipeline order: (stage, label).
STAGES: list[tuple[str, str]] = [
    ("read", "read loop + session (lines, batches)"),
    ("facts", "1 decode+facts (line_facts)"),
    ("store", "2 store in table (Side.add)"),
    ("pairing", "3 pairing (CaptureBuilder.feed)"),
    ("analyzer", "4 analyzer (Analyzer.add)"),
    ("finish", "  end of load (sort, conversations, totals)"),
    ("objects", "5 hosted: objects (inventory)"),
    ("ledger", "5 hosted: ledger (build_ledger)"),
    ("fidelity", "5 hosted: fidelity (assess)"),
    ("hosted", "5 hosted: glue (attach)"),
    ("rows", "6 writer: rows (row_dicts)"),
    ("explain", "6 writer: explanations (explain)"),
    ("redact", "6 writer: redaction (redact_json)"),
    ("safe", "6 writer: safety (json_safe)"),
    ("dumps", "6 writer: dumps (orjson.dumps)"),
    ("lists", "6 writer: lists (conv., objects, verdicts)"),
    ("writer", "6 writer: rest of the document"),
]
TARGET_ONE, TARGET_ALL = 5.0, 3.0  # × the orjson loop (issue #11)


def _resolve(module: str, path: str) -> tuple[Any, str, Any]:
    """(owner object, attribute name, current value) of `module`.`path`."""
    try:
        owner: Any = importlib.import_module(module)
    except ImportError as exc:
        raise SeamMoved(f"cannot import {module}: {exc}") from exc
    parts = path.split(".")
    for p in parts[:-1]:
        if not hasattr(owner, p):
            raise SeamMoved(f"{module}.{path}: {module} has no {p!r}")
        owner = getattr(owner, p)
    if not hasattr(owner, parts[-1]):
        raise SeamMoved(f"{module}.{path} is gone")
    return owner, parts[-1], getattr(owner, parts[-1])


class _OrjsonProxy:
    """orjson as the writer module sees it, with `dumps` replaced."""

    def __init__(self, dumps: Callable[..., bytes]) -> None:
        self.dumps = dumps

    def __getattr__(self, name: str) -> Any:
        return getattr(orjson, name)


class Clock:
    """Per-stage own time (ns), by a stack of the stages entered."""

    def __init__(self) -> None:
        self.incl: dict[str, int] = {}
        self.child: dict[str, int] = {}
        self.calls: dict[str, int] = {}
        self.stack: list[str] = []

    def reset(self) -> None:
        for d in (self.incl, self.child, self.calls):
            for k in d:
                d[k] = 0
        self.stack.clear()

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        pc, stack, incl, child, calls = (time.perf_counter_ns, self.stack, self.incl,
                                         self.child, self.calls)
        for d in (incl, child, calls):
            d.setdefault(name, 0)

        def timed(*a: Any, **k: Any) -> Any:
            stack.append(name)
            t0 = pc()
            try:
                return fn(*a, **k)
            finally:
                dt = pc() - t0
                stack.pop()
                incl[name] += dt
                calls[name] += 1
                if stack:
                    child[stack[-1]] += dt

        return timed

    def wrap_gen(self, name: str, fn: Callable[..., Iterator[Any]]) -> Callable[..., Any]:
        """A generator function: each step of the generator is timed."""
        def timed(*a: Any, **k: Any) -> Iterator[Any]:
            self.calls[name] += 1
            return self._steps(name, fn(*a, **k))

        for d in (self.incl, self.child, self.calls):
            d.setdefault(name, 0)
        return timed

    def wrap_iter(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """A function returning an iterator: the call and each step are timed."""
        call = self.wrap(name, fn)

        def timed(*a: Any, **k: Any) -> Iterator[Any]:
            return self._steps(name, iter(call(*a, **k)))

        return timed

    def _steps(self, name: str, it: Iterator[Any]) -> Iterator[Any]:
        pc, stack, incl, child = time.perf_counter_ns, self.stack, self.incl, self.child
        while True:
            stack.append(name)
            t0 = pc()
            try:
                x = next(it)
            except StopIteration:
                return
            finally:
                dt = pc() - t0
                stack.pop()
                incl[name] += dt
                if stack:
                    child[stack[-1]] += dt
            yield x

    def own(self, name: str) -> int:
        return self.incl.get(name, 0) - self.child.get(name, 0)


class Instrumented:
    """The seams wrapped with a Clock while inside `with`; restored on the way out."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.saved: list[tuple[Any, str, Any, bool]] = []
        self.targets = []
        self.moved: list[str] = []  # required seams that are gone: their stage reads 0
        for stage, m, p, kind in SEAMS:
            try:
                self.targets.append((stage, *_resolve(m, p), kind.rstrip("?")))
            except SeamMoved as exc:
                if not kind.endswith("?"):  # an optional seam may go: its time moves up
                    self.moved.append(str(exc))

    def __enter__(self) -> Instrumented:
        for stage, owner, attr, value, kind in self.targets:
            own = attr in vars(owner) if isinstance(owner, type) else True
            if kind == "proxy":  # json_out.orjson.dumps: wrap the module's orjson
                mod = importlib.import_module("traceview.report.json_out")
                self.saved.append((mod, "orjson", mod.orjson, True))
                mod.orjson = _OrjsonProxy(self.clock.wrap(stage, orjson.dumps))  # type: ignore[attr-defined]
                continue
            self.saved.append((owner, attr, value if own else None, own))
            wrap = {"gen": self.clock.wrap_gen, "iter": self.clock.wrap_iter}.get(
                kind, self.clock.wrap)
            setattr(owner, attr, wrap(stage, value))
        return self

    def __exit__(self, *_: object) -> None:
        for owner, attr, value, own in reversed(self.saved):
            if own:
                setattr(owner, attr, value)
            else:
                delattr(owner, attr)
        self.saved.clear()


# ------------------------------------------------------------------------ the real run
def _report(path: str, sink: Any) -> Any:
    """`traceview report --format json PATH` in this process: analyze, then write."""
    from traceview.analysis import session
    from traceview.report import json_out

    a = session.analyze([path])
    for chunk in json_out.iter_json(a):
        sink.write(chunk)
    a.capture.close()
    return a


def _calibrate(clock: Clock) -> tuple[float, float]:
    """(ns a timed call adds to its own stage, ns it adds to the stage that calls it),
    measured on a no-op called from inside a timed stage."""
    c = Clock()
    noop = c.wrap("_child", lambda: None)
    n = 20000

    def parent() -> None:
        for _ in range(n):
            noop()

    bare = Clock()
    loop = bare.wrap("_loop", lambda: [None for _ in range(n)])
    best_child = best_parent = float("inf")
    for _ in range(5):
        c.reset()
        bare.reset()
        c.wrap("_parent", parent)()
        loop()
        best_child = min(best_child, c.incl["_child"] / n)
        best_parent = min(best_parent, max(0.0, (c.own("_parent") - bare.own("_loop")) / n))
    return best_child, best_parent


@dataclass
class Actual:
    cpu_s: float  # the instrumented run's CPU seconds
    wall_s: float
    own_ns: dict[str, float]  # own time per stage, CPU-scaled, timer cost taken off
    calls: dict[str, int]
    moved: list[str] = field(default_factory=list)  # seams that are gone


def measure_actual(path: str, repeat: int) -> Actual:
    clock = Clock()
    per_child, per_parent = _calibrate(clock)
    best: Actual | None = None
    seams = Instrumented(clock)
    with seams, open(os.devnull, "wb") as sink:
        for _ in range(repeat):
            clock.reset()
            gc.collect()
            c0, w0 = time.process_time(), time.perf_counter_ns()
            from traceview.analysis import session
            from traceview.report import json_out

            a = clock.wrap("read", session.analyze)([path])
            for chunk in json_out.iter_json(a):
                sink.write(chunk)
            a.capture.close()
            cpu = time.process_time() - c0
            wall = (time.perf_counter_ns() - w0) / 1e9
            del a
            scale = min(1.0, cpu / wall) if wall > 0 else 1.0
            # Timer cost: each call charged per_child to its own stage, per_parent to
            # the stage that called it.
            parent_of = _parents()
            own: dict[str, float] = {}
            for stage, _ in STAGES:
                ns = clock.own(stage) * scale - clock.calls.get(stage, 0) * per_child
                for ch, par in parent_of.items():
                    if par == stage:
                        ns -= clock.calls.get(ch, 0) * per_parent
                own[stage] = max(ns, 0.0)
            got = Actual(cpu, wall, own, dict(clock.calls), list(seams.moved))
            # Best of N: the run least disturbed by other processes (CPU closest to wall),
            # taken whole — minima per stage from different runs would each pick the run
            # where the global CPU/wall scale flattered that stage.
            if best is None or cpu / wall > best.cpu_s / best.wall_s:
                best = got
    assert best is not None
    return best


def _parents() -> dict[str, str]:
    """Which stage calls which (for the timer's cost charged to the caller)."""
    return {"facts": "read", "store": "pairing", "pairing": "read", "analyzer": "read",
            "finish": "read", "hosted": "finish", "objects": "hosted", "ledger": "hosted",
            "fidelity": "hosted", "rows": "writer", "explain": "rows", "redact": "writer",
            "safe": "writer", "dumps": "writer", "lists": "writer"}


def measure_plain(path: str, repeat: int) -> float:
    """The same run with no instrument: CPU seconds, best of `repeat`."""
    best = float("inf")
    with open(os.devnull, "wb") as sink:
        for _ in range(repeat):
            gc.collect()
            c0 = time.process_time()
            _report(path, sink)
            best = min(best, time.process_time() - c0)
    return best


def measure_cli(path: str, repeat: int) -> tuple[float, float, int]:
    """`traceview report --format json` as a user runs it, one process: (CPU s, CPU s of
    the interpreter starting and importing the same modules, peak RSS KB)."""
    env = {**os.environ, "TRACEVIEW_WORKERS": "1"}

    def cpu(cmd: list[str]) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(os.devnull, "wb") as out:
            subprocess.run([sys.executable, *cmd], stdout=out, stderr=subprocess.DEVNULL,
                           env=env, check=False, cwd=str(HERE.parent))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    best = min(cpu(["-m", "traceview", "report", "--format", "json", path])
               for _ in range(repeat))
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = min(cpu(["-c", "import traceview.cli, traceview.report.command"])
                for _ in range(repeat))
    return best, start, rss


def bare_costs(path: str, repeat: int) -> tuple[float, float, float]:
    """(bytes read in 4 MB blocks, `for raw in f`, + orjson.loads of each line): CPU s."""
    def read() -> None:
        with open(path, "rb") as f:
            while f.read(4 << 20):
                pass

    def lines() -> None:
        with open(path, "rb") as f:
            for _ in f:
                pass

    def loop() -> None:
        loads, err = orjson.loads, orjson.JSONDecodeError
        with open(path, "rb") as f:
            for raw in f:
                try:
                    loads(raw)
                except err:
                    pass

    return best_cpu(read, repeat), best_cpu(lines, repeat), best_cpu(loop, repeat)


def best_cpu(fn: Callable[[], object], repeat: int, gc_on: bool = False) -> float:
    """Best CPU seconds of `repeat` calls; the cyclic GC off unless `gc_on` (a replayed
    analysis stage runs with it on, as the real load does; the writer pauses it)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        if not gc_on:
            gc.disable()
        try:
            t = time.process_time()
            fn()
            best = min(best, time.process_time() - t)
        finally:
            gc.enable()
    return best


# ------------------------------------------------------------------ replayed stages
def replay(path: str, inputs: Inputs, repeat: int,
           failed: dict[str, str] | None = None) -> dict[str, float]:
    """CPU seconds of the real stage functions re-run alone, in bulk, on the same inputs
    (process_time around the whole loop: no per-call timer, no scaling, so it holds on a
    busy machine). A cross-check of the instrumented column; a stage that cannot be re-run
    alone is left out, and one whose functions moved is left out with its reason in
    `failed`. Rows are `row_dicts(explained=False)`; explanations are `row_dicts()` less
    that."""
    a = inputs.analysis
    cap = a.capture
    out: dict[str, float] = {}
    failed = {} if failed is None else failed
    state: dict[str, Any] = {}

    def attempt(stage: str, work: Callable[[], Callable[[], object] | None],
                gc_on: bool = True) -> None:
        """`work()` sets up and returns the loop to time (None: nothing to time)."""
        try:
            loop = work()
            if loop is not None:
                out[stage] = best_cpu(loop, repeat, gc_on=gc_on)
        except Exception as exc:  # noqa: BLE001 - one stage's replay, reported by name
            failed[stage] = f"{type(exc).__name__}: {exc}"

    def facts() -> Callable[[], None]:
        from traceview.capture import reader

        with open(path, "rb") as f:
            lines = f.readlines()
        state["lines"] = lines
        line_facts = reader.line_facts

        def loop() -> None:
            for raw in lines:
                line_facts(raw, raw[-1:] == b"\n", True)

        return loop

    def store() -> Callable[[], None]:
        from traceview.capture import reader
        from traceview.capture.table import TurnTable

        reqs: list[Any] = []
        ress: list[Any] = []
        for raw in state.pop("lines", None) or open(path, "rb").readlines():
            pre = reader.line_facts(raw, raw[-1:] == b"\n", False)
            if pre is not None and pre[0] == "req" and pre[8] is not None:
                reqs.append(pre[8])
            elif pre is not None and pre[0] == "res" and pre[4] is not None:
                ress.append(pre[4])

        def loop() -> None:
            t = TurnTable()
            for x in reqs:
                t.requests.add(x)
            for x in ress:
                t.responses.add(x)

        return loop

    def analyzer() -> Callable[[], None]:
        from traceview.analysis.analyzer import Analyzer

        names = cap.sources
        turns = sorted(cap.turns, key=lambda t: t.index)

        def loop() -> None:
            an = Analyzer(None, a.pricing_table)
            if hasattr(an, "add_all"):  # as the session does: its columns bound once
                an.add_all(turns, names, [].append)
                return
            for t in turns:
                an.add(t, names[t.source])

        return loop

    def objects() -> Callable[[], None]:
        from traceview.analysis import hosted_state

        storage = a.pricing_table.storage.get("vector_store") if a.pricing_table else None
        storage = storage if isinstance(storage, dict) else None
        configs_cls = getattr(hosted_state, "_Configs", None)
        configs = state["configs"] = configs_cls() if configs_cls is not None else None
        # As hosted_state._attach calls it: configurations told by table row where it can.
        by_row = {"on_row": configs.see_row} if hasattr(configs, "see_row") else {}
        if hasattr(configs, "see_rows"):  # told once, by rows, when read a column at a time
            by_row["on_rows"] = configs.see_rows

        def loop() -> None:
            if "on_rows" in by_row:
                configs.clear()  # as new each time, as each load's are
            hosted_state.inventory(a.turns, cap.exchanges, cap.read_raw, storage,
                                   on_request=configs.see if configs is not None else None,
                                   **by_row)

        return loop

    def ledger() -> Callable[[], object]:
        from traceview.analysis import hosted_state

        configs = state.get("configs")
        bills = {c.key: c.cost_usd for c in a.conversations}
        return lambda: hosted_state.build_ledger(
            a.turns, a.pricing_table, configs.get if configs is not None else None, bills)

    def fidelity() -> Callable[[], object]:
        from traceview.analysis import hosted_state

        return lambda: hosted_state.assess(a, objects=a.objects, label="capture only")

    def rows() -> Callable[[], object]:
        from traceview.analysis.turn_report import row_dicts

        return lambda: list(row_dicts(a.turns, explained=False))

    def explain() -> None:
        from traceview.analysis.turn_report import row_dicts

        whole = best_cpu(lambda: list(row_dicts(a.turns)), repeat)
        if "rows" in out:
            out["explain"] = max(whole - out["rows"], 0.0)

    def redact() -> Callable[[], object]:
        from traceview.report import json_out

        return lambda: [json_out.redact_json(c) for c in inputs.redact_in]

    def safe() -> Callable[[], object]:
        from traceview.report import json_out

        return lambda: [json_out.json_safe(c) for c in inputs.safe_in]

    def dumps() -> Callable[[], object]:
        return lambda: [orjson.dumps(*x, **k) for x, k in inputs.dumps_in]

    def lists() -> Callable[[], None]:
        def loop() -> None:
            for c in a.conversations:
                c.to_dict()
            if a.objects is not None:
                for _ in _object_dicts(a.objects.objects):
                    pass
            if a.fidelity is not None:
                for v in a.fidelity.verdicts:
                    v.to_dict()

        return loop

    for stage, work in (("facts", facts), ("store", store), ("analyzer", analyzer),
                        ("objects", objects), ("ledger", ledger), ("fidelity", fidelity)):
        attempt(stage, work)
    for stage, work in (("rows", rows), ("explain", explain), ("redact", redact),
                        ("safe", safe), ("dumps", dumps), ("lists", lists)):
        attempt(stage, work, gc_on=False)  # the writer pauses the cyclic GC
    return out


# --------------------------------------------------------------------------- the floors
@dataclass
class Floor:
    seconds: float | None
    check: str  # "verified" / "UNVERIFIED (…)" / what it was checked against
    does: str  # what the floor's loop does, one line
    ok: bool = True  # False: a verification failed


@dataclass
class Inputs:
    """What the floors loop over, taken from one un-timed run of the real pipeline."""

    analysis: Any
    rows: list[dict[str, Any]] = field(default_factory=list)
    redact_in: list[bytes] = field(default_factory=list)
    redact_out: list[bytes] = field(default_factory=list)
    safe_in: list[bytes] = field(default_factory=list)
    dumps_in: list[tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)
    # Each verdict whose rebuilt input is hashed when read (fidelity.Verdict._rebuild):
    # (the records its rebuild reads, in the order read; the digest).
    deferred: list[tuple[list[Any], str | None]] = field(default_factory=list)


def collect(path: str) -> Inputs:
    """Run the pipeline once, keeping the inputs of the writer's byte passes and, for each
    verdict whose hash is deferred to its reader, the records its rebuild reads (the
    floors run over exactly those)."""
    from traceview.analysis import session
    from traceview.capture.capture import Capture
    from traceview.report import json_out

    got = Inputs(analysis=None)
    real_redact, real_safe, real_orjson = json_out.redact_json, json_out.json_safe, json_out.orjson
    real_read = Capture.read

    def redact(chunk: bytes) -> bytes:
        out = real_redact(chunk)
        got.redact_in.append(chunk)
        got.redact_out.append(out)
        return out

    def safe(chunk: bytes) -> bytes:
        got.safe_in.append(chunk)
        return real_safe(chunk)

    def dumps(*a: Any, **k: Any) -> bytes:
        got.dumps_in.append((a, k))
        return orjson.dumps(*a, **k)

    json_out.redact_json, json_out.json_safe = redact, safe  # type: ignore[assignment]
    json_out.orjson = _OrjsonProxy(dumps)  # type: ignore[assignment]
    try:
        a = session.analyze([path])
        for _ in json_out.iter_json(a):
            pass
    finally:
        json_out.redact_json, json_out.json_safe = real_redact, real_safe  # type: ignore[assignment]
        json_out.orjson = real_orjson  # type: ignore[assignment]
    # The verdicts whose hash is made when read: the records each one's rebuild reads.
    refs: list[Any] = []

    def read(self: Any, ref: Any) -> Any:
        refs.append(ref)
        return real_read(self, ref)

    Capture.read = read  # type: ignore[method-assign]
    try:
        for v in a.fidelity.verdicts if a.fidelity is not None else ():
            if getattr(v, "_rebuild", None) is not None:
                refs.clear()
                digest = v.rebuilt_sha256
                got.deferred.append(([r for r in refs if r is not None], digest))
    finally:
        Capture.read = real_read  # type: ignore[method-assign]
    got.analysis = a
    got.rows = [t.to_dict() for t in a.turns]
    return got


# ---- 1. decode + facts
REQ_FIELDS = ("dir", "id", "endpoint", "recorded", "bytes", "origin", "body.model",
              "body.conversation", "body.previous_response_id", "body.include",
              "body.truncation", "body.tools", "body.stream", "body.background", "body.store",
              "body.instructions", "body.context_management", "body.messages", "body.input "
              "(each item's type and role)")
RES_FIELDS = ("dir", "id", "elapsed_ms", "status_code", "status", "ts", "headers", "events",
              "error", "origin", "body.object", "body.id", "body.model", "body.status",
              "body.conversation", "body.usage.input_tokens/prompt_tokens",
              "body.usage.output_tokens/completion_tokens", "….input_tokens_details."
              "cached_tokens", "….output_tokens_details.reasoning_tokens", "body.output "
              "(each item's type)", "body.prompt_cache_diagnostics", "body.incomplete_details",
              "body.error", "body.tool_usage", "body.input_transformations", "body.store",
              "body.service_tier", "body.system_fingerprint", "body.created_at")
SCAN = ("quoted vector store / file ids in the whole request and in the response's head "
        "(whole with hosted calls), the response head's created_at")


def _slots(name: str, default: int) -> int:
    try:
        from traceview.capture import model
        return len(getattr(model, name).__slots__)
    except (ImportError, AttributeError, TypeError):
        return default


# line_facts returns a pre tuple (12 / 8) holding a RequestFacts / ResponseFacts (their
# slots): the floor builds one flat tuple of as many values (at least its own).
REQ_TUPLE = max(12 + _slots("RequestFacts", 27), 23)
RES_TUPLE = max(8 + _slots("ResponseFacts", 35), 36)
REQ_LINE, RES_LINE = 20, 29  # where the floor's tuples keep the line number
REQ_IDS, RES_IDS, RES_CREATED = 22, 31, 32  # the scan's findings


def _scan_patterns() -> tuple[Any, Any, int, frozenset[str]]:
    """(IDS, CREATED, HEAD_BYTES, hosted output types) as the facts' scan uses them
    (capture/scan.py), or stand-ins when that module has moved."""
    try:
        from traceview.capture import scan
        ids, created, head = scan.IDS, scan.CREATED, scan.HEAD_BYTES
    except (ImportError, AttributeError):
        ids = re.compile(rb'"(vs_[A-Za-z0-9_\-]+|file-[A-Za-z0-9_\-]+|file_[0-9a-f]{16,})"')
        created = re.compile(rb'"created_at"\s*:\s*([0-9]+(?:\.[0-9]+)?)(?=\s*[,}\]])')
        head = 2048
    try:
        from traceview.wire import HOSTED_CALL_TYPES as HOSTED_TYPES
        hosted = frozenset(HOSTED_TYPES)
    except ImportError:
        hosted = frozenset({"file_search_call", "web_search_call", "code_interpreter_call"})
    return ids, created, head, hosted


def facts_floor_loop(path: str, out: list[tuple[Any, ...]] | None = None) -> None:
    """orjson.loads of each line, the field reads line_facts needs, the objects' scan of
    the line's bytes, one tuple per line.

    The scan (capture/scan.py: what the objects inventory reads, found while the line is
    read) is floored as one C pass of the id pattern over the bytes the real scan reads
    (the whole request; the response's first HEAD_BYTES, whole with hosted calls) and, for
    `created_at`, a substring search for its key and the number matched there. Every byte
    must be read once, and the pattern's pass costs what plain substring searches for the
    three literals an id begins with cost (on a busy machine: 7.7–8.4 against 7.0–7.9
    µs/turn on /tmp/h50.jsonl; a find-then-match loop 16–20: `"file_search"` is on every
    line).
    """
    loads, err = orjson.loads, orjson.JSONDecodeError
    ids_re, created_re, head, hosted_types = _scan_patterns()
    findall, match = ids_re.findall, created_re.match
    is_disjoint = hosted_types.isdisjoint
    pad_req = (None,) * (REQ_TUPLE - 23)
    pad_res = (None,) * (RES_TUPLE - 36)
    keep = out.append if out is not None else None
    line = 0
    with open(path, "rb") as f:
        for raw in f:
            line += 1
            try:
                o = loads(raw)
            except err:
                continue
            if type(o) is not dict:
                continue
            g = o.get
            d = g("dir")
            b = g("body")
            if type(b) is not dict:
                b = {}
            bg = b.get
            if d == "req":
                inp = bg("input")
                kinds = ([(i.get("type"), i.get("role")) for i in inp if type(i) is dict]
                         if type(inp) is list else inp)
                ids = tuple(dict.fromkeys(findall(raw, 0, len(raw))))
                t = (d, g("id"), g("endpoint"), g("recorded"), g("bytes"), g("origin"),
                     bg("model"), bg("conversation"), bg("previous_response_id"),
                     bg("include"), bg("truncation"), bg("tools"), bg("stream"),
                     bg("background"), bg("store"), bg("instructions"),
                     bg("context_management"), bg("messages"), inp, kinds, line, len(raw),
                     ids, *pad_req)
            else:
                u = bg("usage")
                ug = u.get if type(u) is dict else {}.get
                output = bg("output")
                kinds = ([i.get("type") for i in output if type(i) is dict]
                         if type(output) is list else None)
                inp_t = ug("input_tokens")
                out_t = ug("output_tokens")
                if inp_t is None and out_t is None:  # Chat Completions names
                    inp_t, out_t = ug("prompt_tokens"), ug("completion_tokens")
                    det, odet = ug("prompt_tokens_details"), ug("completion_tokens_details")
                else:
                    det, odet = ug("input_tokens_details"), ug("output_tokens_details")
                n = len(raw) if kinds and not is_disjoint(kinds) else min(len(raw), head)
                ids = tuple(dict.fromkeys(findall(raw, 0, n)))
                at = raw.find(b'"created_at"', 0, n)
                m = match(raw, at, n) if at >= 0 else None
                t = (d, g("id"), g("elapsed_ms"), g("status_code"), g("status"), g("ts"),
                     g("headers"), g("events"), g("error"), g("origin"), bg("object"),
                     bg("id"), bg("model"), bg("status"), bg("conversation"), inp_t, out_t,
                     det.get("cached_tokens") if type(det) is dict else None,
                     odet.get("reasoning_tokens") if type(odet) is dict else None, kinds,
                     bg("prompt_cache_diagnostics"), bg("incomplete_details"), bg("error"),
                     bg("tool_usage"), bg("input_transformations"), bg("store"),
                     bg("service_tier"), bg("system_fingerprint"), bg("created_at"), line,
                     len(raw), ids, m.group(1) if m is not None else None, None, None,
                     None, *pad_res)
            if keep is not None:
                keep(t)


def _conv(v: Any) -> Any:
    if isinstance(v, dict):
        v = v.get("id")
    return v if isinstance(v, str) and v else None


def _created(v: Any) -> float | None:
    if v is None:
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _int(v: Any) -> Any:
    return v if type(v) is int else None


def floor_facts(path: str, inputs: Inputs, lines_s: float, repeat: int) -> Floor:
    """Checked: the fields the floor read hold the values the real facts hold, line by line
    (request: model, conversation, previous_response_id; response: id, status, model,
    usage's four numbers)."""
    seen: list[tuple[Any, ...]] = []
    facts_floor_loop(path, seen)
    by_line = {t[REQ_LINE] if t[0] == "req" else t[RES_LINE]: t for t in seen}
    bad = checked = 0
    for t in inputs.analysis.capture.turns:
        req, res = t.req, t.res
        if req is not None and t.request is not None:
            f = by_line.get(t.request.line)
            checked += 1
            if f is None or (f[6], _conv(f[7]), f[8] or None) != (
                    req.model, req.conversation_id, req.previous_response_id) or (
                    getattr(req, "scanned", False)
                    and tuple(f[REQ_IDS]) != tuple(req.quoted_ids)):
                bad += 1
        if res is not None and t.response is not None and not res.stream_events:
            f = by_line.get(t.response.line)
            checked += 1
            status = f[13] if f is not None and isinstance(f[13], str) else None
            if f is None or (f[11], f[12], _int(f[15]), _int(f[16]), _int(f[17]),
                             _int(f[18])) != (
                    res.response_id, res.model, res.input_tokens, res.output_tokens,
                    res.cached_tokens, res.reasoning_tokens) or (
                    status is not None and status != res.status and res.http_status is None):
                bad += 1
            elif getattr(res, "scanned", False) and (
                    tuple(f[RES_IDS]) != tuple(res.quoted_ids)
                    or _created(f[RES_CREATED]) != _created(res.raw_created_at)):
                bad += 1
    secs = max(best_cpu(lambda: facts_floor_loop(path), repeat) - lines_s, 0.0)
    check = (f"verified ({checked:,} records)" if not bad
             else f"UNVERIFIED ({bad:,} of {checked:,} records differ)")
    return Floor(secs, check, "orjson.loads + the field reads the facts need (listed below) "
                 "+ the objects' scan (the id pattern's one pass, created_at's key found) + "
                 "one flat tuple per line, less the bare line loop", ok=not bad)


# ---- 2. store in table
def floor_store(inputs: Inputs, repeat: int) -> Floor:
    """The same values appended to fresh arrays/lists, row by row; checked equal to the
    real table's columns."""

    table = inputs.analysis.capture.table
    sides = []
    for side in (table.requests, table.responses):
        names = [n for n, _ in side.COUNTS] + list(side.POOLED)
        extra = [n for n in side.cols if n not in names and n not in side.TEXTS]
        cols = [side.cols[n] for n in (*names, *extra)]
        texts = [side.cols[n] for n in side.TEXTS]
        rows = [(tuple(c[r] for c in cols), tuple(x.get(r) for x in texts), side.flags[r])
                for r in range(side.rows)]
        sides.append((cols, texts, side.flags, rows))

    def run(keep: list[Any] | None = None) -> None:
        for cols, texts, _flags, rows in sides:
            arrays = [bytearray() if type(c) is bytearray else array(c.typecode) for c in cols]
            lists: list[list[Any]] = [[] for _ in texts]
            flags = array("H")
            appends = [x.append for x in arrays]
            tappends = [x.append for x in lists]
            fappend = flags.append
            for nums, strs, bits in rows:
                for ap, v in zip(appends, nums):  # noqa: B905 - same length by construction
                    ap(v)
                for ap, v in zip(tappends, strs):  # noqa: B905
                    ap(v)
                fappend(bits)
            if keep is not None:
                keep.append((arrays, lists, flags))

    made: list[Any] = []
    run(made)
    ok = all(
        all(a == c for a, c in zip(arrays, cols, strict=True)) and flags == real_flags
        and all(lst == [x.get(r) for r in range(len(lst))] for lst, x in zip(lists, texts,
                                                                               strict=True))
        for (arrays, lists, flags), (cols, texts, real_flags, _) in zip(made, sides,
                                                                       strict=True))
    n = sum(len(s[3]) for s in sides)
    secs = best_cpu(run, repeat)
    width = sum(len(s[0]) + len(s[1]) + 1 for s in sides)
    return Floor(secs, f"verified ({n:,} rows, every column)" if ok else "UNVERIFIED (columns "
                 "differ)", f"append each row's {width} values (both sides) to arrays/lists",
                 ok=ok)


# ---- 3. pairing
def floor_pairing(path: str, inputs: Inputs, repeat: int) -> Floor:
    """A dict keyed by link id (None: file order), one insert and one pop per turn."""
    seen: list[tuple[Any, ...]] = []
    facts_floor_loop(path, seen)
    recs = [(t[0] == "req", t[1] if isinstance(t[1], str) else None,
             t[REQ_LINE] if t[0] == "req" else t[RES_LINE])
            for t in seen if t[0] in ("req", "res")]

    def run(keep: list[Any] | None = None) -> None:
        pending: dict[Any, int] = {}
        pop = pending.pop
        pairs = []
        add = pairs.append
        for is_req, link, line in recs:
            if is_req:
                pending[link] = line
            else:
                add((pop(link, None), line))
        if keep is not None:
            keep.extend(pairs)

    pairs: list[tuple[Any, int]] = []
    run(pairs)
    real = sorted((t.request.line if t.request else None, t.response.line)
                  for t in inputs.analysis.capture.turns if t.response is not None)
    mine = sorted((p for p in pairs if p[0] is not None or True), key=lambda p: p[1])
    real_by_res = {r[1]: r[0] for r in real}
    bad = sum(1 for req, res in mine if res in real_by_res and real_by_res[res] != req)
    missing = len(real_by_res) - sum(1 for _, res in mine if res in real_by_res)
    ok = not bad and not missing
    secs = best_cpu(run, repeat)
    return Floor(secs, f"verified ({len(real):,} pairs equal)" if ok
                 else f"UNVERIFIED ({bad + missing:,} pairs differ)",
                 "dict keyed by link id (file order: one key): insert per request, pop per "
                 "response (the real stage also makes each turn's row of record positions and "
                 "its RecordRefs)", ok=ok)


# ---- 4. analyzer
def analyzer_inputs(inputs: Inputs) -> list[tuple[Any, ...]]:
    a = inputs.analysis
    pricing = a.pricing_table
    prices: dict[Any, Any] = {}
    out = []
    for r in a.turns:
        t = r.turn
        req, res = t.req, t.res
        model = (res.model if res is not None else None) or (req.model if req else None)
        if model not in prices:
            p = pricing.model_prices(model) if model else None
            prices[model] = (None if not p else (p["input"], p.get("cached_input", p["input"]),
                                                 p["output"]))
        rx = req.extra if req is not None else None
        media_unknown = bool(rx and any(m["tokens"] is None for m in rx.get("media", ())))
        out.append((
            r.conversation_key, req is not None,
            req is not None and (req.conversation_id is not None
                                 or req.previous_response_id is not None),
            req.request_bytes if req else None, req.new_input_tokens if req else 0,
            req.input_bytes if req else 0, res is not None,
            res.input_tokens if res else None, res.cached_tokens if res else None,
            res.output_tokens if res else None, res.reasoning_tokens if res else None,
            res.output_bytes if res else 0, prices[model], r.cost_hosted_usd, r.model_passes,
            media_unknown))
    return out


def analyzer_floor_loop(rows: list[tuple[Any, ...]], dmin: int, ratio: float,
                        keep: list[Any] | None = None) -> tuple[int, int]:
    """The per-turn arithmetic: owned-state bytes, expected input, cumulative input,
    the deposit rule, token cost, and the conversation's and capture's running sums."""
    states: dict[str, list[Any]] = {}
    conv_sums: dict[str, list[Any]] = {}
    tot_in = tot_out = 0
    tot_cost = 0.0
    add = keep.append if keep is not None else None
    for (key, has_req, chained, rb, nt, ib, has_res, inp, cached, out, reas, ob, pr, hosted,
         passes, media_unknown) in rows:
        st = states.get(key)
        if st is None:
            st = states[key] = [None, 0, 0, 0]  # last input, last visible, history, cumul.
            conv_sums[key] = [0, 0, 0, 0.0]
        prev = st[0]
        owned = expected = None
        if has_req:
            if rb is not None:
                owned = rb + st[2] if chained else rb
            if prev is not None and not media_unknown:
                expected = prev + st[1] + nt
        if inp is not None:
            cum = st[3] + inp
        else:
            cum = st[3] or None
        deposit = (inp is not None and expected is not None
                   and inp - expected * passes >= max(dmin, ratio * expected))
        cost = None
        if inp is not None and out is not None and pr is not None:
            c = cached or 0
            usd = (max(inp - c, 0) * pr[0] + c * pr[1] + out * pr[2]) / 1_000_000
            cost = usd + hosted
            tot_cost += cost
        cs = conv_sums[key]
        if has_res:
            if inp is not None:
                st[3] += inp
                tot_in += inp
                cs[0] += inp
                cs[1] += cached or 0
                cs[2] += out or 0
                if out is not None:
                    st[0] = inp
                    st[1] = out - (reas or 0)
            tot_out += out or 0
            st[2] += ob
        if has_req:
            st[2] += ib
        if cost is not None:
            cs[3] += cost
        if add is not None:
            add((owned, expected, cum, None if cost is None else round(cost, 6), deposit))
    return tot_in, tot_out


def floor_analyzer(inputs: Inputs, repeat: int) -> Floor:
    from traceview.analysis.options import Options

    rows = analyzer_inputs(inputs)
    o = Options()
    got: list[Any] = []
    tot_in, tot_out = analyzer_floor_loop(rows, o.deposit_min_tokens, o.deposit_ratio, got)
    a = inputs.analysis
    bad = 0
    for r, (owned, expected, cum, cost, deposit) in zip(a.turns, got, strict=True):
        if (owned, expected, cum, cost, deposit) != (
                r.owned_state_bytes, r.expected_input, r.cumulative_input_tokens, r.cost_usd,
                "deposit" in r.markers):
            bad += 1
    totals_ok = (a.totals.get("input_tokens"), a.totals.get("output_tokens")) == (tot_in,
                                                                                  tot_out)
    ok = not bad and totals_ok
    secs = best_cpu(lambda: analyzer_floor_loop(rows, o.deposit_min_tokens, o.deposit_ratio),
                    repeat)
    check = (f"verified ({len(got):,} turns: owned, expected, cumulative, cost, deposit; "
             "totals)" if ok else f"UNVERIFIED ({bad:,} turns differ"
             f"{'' if totals_ok else ', totals differ'})")
    return Floor(secs, check, "plain loop over pre-extracted lists: owned/expected/cumulative, "
                 "deposit rule, token cost, running sums (conversation key and hosted fee "
                 "given)", ok=ok)


# ---- 5. hosted-state passes
def floor_objects(inputs: Inputs, repeat: int) -> Floor:
    """The inventory as the column pass must make it (analysis/object_columns.py), with
    only the work its output requires, on columns handed over in report order:

    - stored responses: the turns' index and created_at columns copied (a C memcpy), the
      store flag by distinct pair of the sides' flags (`set` of each flag column, one
      bytes repeat or one C `map`), and the ids' distinctness as one C compare of each id
      with the next (one bytes slice of the id buffer each: they ascend here; a set
      would cost more);
    - the ledger's tool configuration of every turn (taken in the same pass): the
      distinct (tools offered, quoted ids) pool numbers (`set` of each column), one
      number a turn (an array repeat, or a C `map`);
    - one object per conversation and per quoted id: the runs of equal keys in the key
      column (one C `compress(map(ne))` pass), then per object its uses, first lines, turn
      list (a slice copy) and last use (`max` of a slice) — a tuple, not a ProviderObject.

    Not floored: the checks that the capture suits the column pass (rows in turn order,
    every record scanned, no id named elsewhere); they pick the fast path, not the output.
    Checked: the rows' three columns and every conversation's (uses, turns, lines, last use,
    created) equal the real inventory's."""
    from itertools import compress as _compress
    from operator import lt
    from operator import ne as _ne

    a = inputs.analysis
    try:
        from traceview.analysis import object_columns as oc
    except ImportError:
        return Floor(None, "not floored: analysis/object_columns.py is gone",
                     "—", ok=True)
    table = oc.table_of(a.turns)
    rows_real = getattr(a.objects, "_rows", None)
    if table is None or rows_real is None:
        return Floor(None, "not floored: this capture takes the general loop", "—")
    c = oc.TurnColumns(table, a.turns.rows())
    if not c.q_same or not c.s_same:
        return Floor(None, "not floored: the sides' rows are not in turn order", "—")
    n = c.n
    req, res = table.requests, table.responses
    values = table.pool.values
    index = c.index
    created = c.s(res.cols["raw_created_at"], -1)
    line = c.line
    qflags, sflags = c.q(req.flags, 0), c.s(res.flags, 0)
    ids = res.cols["response_id"]
    size = ids.lens[0] if n else 0
    first = ids.starts[0] if n else 0
    buf = bytes(ids.buf)
    conv = c.q(req.cols["conversation_id"], 0)
    qids, sids = c.q(req.cols["quoted_ids"], 0), c.s(res.cols["quoted_ids"], 0)
    tools = c.q(req.cols["tools_offered"], 0)
    store_of = getattr(oc, "_store", None)
    if store_of is None or len(set(ids.lens[:n])) != 1:
        return Floor(None, "not floored: response ids of several lengths", "—")
    max_lines = getattr(oc, "MAX_LINES", 20)
    starts = range(first, first + size * n, size)

    def grouped(keys: Any, named: Any) -> dict[int, Any]:
        """Each named key's positions: a few keys by one C pass each (an array), many
        by the runs of equal keys (one C pass for the edges; a list of ranges)."""
        wanted = [k for k in set(keys) if named(k)]
        if len(wanted) <= 16:
            return {k: array("I", _compress(range(n), map(k.__eq__, keys))) for k in wanted}
        edges = [0, *_compress(range(1, n), map(_ne, keys[1:], keys)), n]
        runs: dict[int, list[range]] = {}
        for start, stop in zip(edges, edges[1:], strict=False):
            k = keys[start]
            if named(k):
                runs.setdefault(k, []).append(range(start, stop))
        return runs

    def one(kind: str, oid: Any, pos: Any) -> tuple[Any, ...]:
        if type(pos) is list and len(pos) == 1:
            r = pos[0]
            turns = index[r.start:r.stop]
            lines = line[r.start:min(r.stop, r.start + max_lines)]
            times = created[r.start:r.stop]
            uses = len(r)
        else:
            if type(pos) is list:
                pos = array("I", [p for r in pos for p in r])
            turns = array("I", map(index.__getitem__, pos))
            lines = array("q", map(line.__getitem__, pos[:max_lines]))
            times = array(created.typecode, map(created.__getitem__, pos))
            uses = len(pos)
        last = max(times)
        return (kind, oid, uses, array("q", dict.fromkeys(lines)), array("I", turns),
                None if last == -1 else float(last),
                next((float(x) for x in times if x != -1), None))

    def run(keep: list[Any] | None = None) -> None:
        # The stored responses' rows.
        made_index = array("I", index)
        made_created = array("I", map(0xFFFFFFFF.__and__, created))
        kq, ks = set(qflags), set(sflags)
        if len(kq) == 1 and len(ks) == 1:
            store = bytearray([store_of(*kq, *ks)]) * n
        else:
            value = {(q, s): store_of(q, s) for q in kq for s in ks}
            store = bytearray(map(value.__getitem__, zip(qflags, sflags, strict=True)))
        each = [buf[i:i + size] for i in starts]  # (a C map of slices cost 2.5× this)
        ascending = all(map(lt, each, each[1:]))
        # The tool configurations, one number a turn.
        kt, ki = set(tools), set(qids)
        if len(kt) == 1 and len(ki) == 1:
            numbers = array("H", [1]) * n
        else:
            number = {k: i for i, k in enumerate(zip(tools, qids, strict=True))}
            numbers = array("I", map(number.__getitem__, zip(tools, qids, strict=True)))
        # Conversations and quoted ids.
        objs = [one("conversation", values[k], r)
                for k, r in grouped(conv, values.__getitem__).items()]
        for keys in (qids, sids):
            for k, r in grouped(keys, values.__getitem__).items():
                for oid in values[k]:
                    objs.append(one("quoted", oid, r))
        if keep is not None:
            keep.extend((made_index, made_created, store, ascending, numbers, objs))

    got: list[Any] = []
    run(got)
    made_index, made_created, store, ascending, _numbers, objs = got
    bad = []
    if (made_index, made_created, store) != (rows_real.index, rows_real.created,
                                             rows_real.store):
        bad.append("stored responses' rows")
    if not ascending:
        bad.append("ids not ascending")
    real = {o.id: o for o in a.objects._full if o.kind == "conversation"}
    mine = {o[1]: o for o in objs if o[0] == "conversation"}
    if set(real) != set(mine):
        bad.append(f"{len(set(real) ^ set(mine))} conversations differ")
    else:
        for k, o in real.items():
            m = mine[k]
            if (m[2], list(m[3]), list(m[4]), m[5], m[6]) != (
                    o.uses, list(o.used_lines), list(o.turns), o.last_used_at, o.created_at):
                bad.append(f"conversation {k}")
                break
    secs = best_cpu(run, repeat)
    quoted = sum(1 for o in objs if o[0] == "quoted")
    return Floor(secs, f"verified ({n:,} stored responses' rows, {len(real):,} "
                 f"conversations; {quoted} quoted-id groups made)" if not bad
                 else f"UNVERIFIED ({'; '.join(bad)})",
                 "the output's columns copied, store flags and tool configs by distinct "
                 "value, ids' order by one C compare each, one tuple per object from the "
                 "runs of its key (no fast-path guards)", ok=not bad)


def floor_ledger(inputs: Inputs, repeat: int) -> Floor:
    """Group turns by conversation; per conversation, the hosted calls its deposits account
    for, then one pass that opens a source at a deposit (or at the turn after captured
    hosted results no deposit accounts for) and appends a charge (turn, rate) to every
    later turn with usage while a source is active; compaction ends them."""
    from traceview.analysis.ledger import ENDS

    a = inputs.analysis
    pricing = a.pricing_table
    rows = []
    for r in a.turns:
        res = r.turn.res
        calls = res.hosted_calls if res is not None else ()
        inp = r.input_tokens
        rate = None
        if inp:
            p = pricing.model_prices(r.model)
            if p is not None and "input" in p:
                share = min(max((r.cached_tokens or 0) / inp, 0.0), 1.0)
                rate = (share * p.get("cached_input", p["input"]) + (1 - share) * p["input"]) / 1e6
        m = r.markers
        deposit = "deposit" in m
        absorbs = tuple((r.attribution or {}).get("hosted_calls") or ()) if deposit else ()
        rows.append((r.conversation_key, r.index, inp, deposit, any(e in m for e in ENDS),
                     r.unexplained_tokens, absorbs,
                     tuple(c.id for c in calls if c.evidence == "captured"), rate))

    def run(keep: dict[str, list[int]] | None = None) -> None:
        by_conv: dict[str, list[tuple[Any, ...]]] = {}
        for row in rows:
            by_conv.setdefault(row[0], []).append(row)
        for key, turns in by_conv.items():
            absorbed = {c for t in turns if t[3] for c in t[6] if c}
            active = 0
            pending = False
            charged: list[int] = []
            rates: list[float] = []
            for _, index, inp, deposit, end, unexplained, _, captured, rate in turns:
                if end:
                    active = 0
                    pending = False
                if deposit and unexplained and unexplained > 0:
                    active += 1
                if pending and inp is not None:
                    if unexplained and unexplained > 0 and not deposit:
                        active += 1
                    pending = False
                if inp is not None and active:
                    charged.append(index)
                    rates.append(0.0 if rate is None else rate)
                if captured and any(c not in absorbed for c in captured):
                    pending = True
            if keep is not None:
                keep[key] = charged

    mine: dict[str, list[int]] = {}
    run(mine)
    ledger = a.ledger
    bad = 0
    if ledger is not None:
        for key, conv in ledger.conversations.items():
            if [c.turn for c in conv.carries()] != mine.get(key, []):
                bad += 1
    ok = ledger is not None and not bad
    secs = best_cpu(run, repeat)
    n = len(ledger.conversations) if ledger is not None else 0
    return Floor(secs, f"verified ({n:,} conversations' charged turns)" if ok
                 else f"UNVERIFIED ({bad:,} conversations differ)",
                 "group by conversation; per turn open/close sources, append a charge while "
                 "one is active (no growth, no tool configs)", ok=ok)


def floor_fidelity(inputs: Inputs, repeat: int) -> Floor:
    """One verdict per conversation, settled from the columns as the pass settles a
    capture without provider copies (analysis/fidelity.py: no body is read; the rebuilt
    input's hash is deferred to whoever reads it — the writer: see the lists' floor).
    Per conversation, over its turns' table rows (handed over): the final turn (the last
    with a request), then the first reason the capture alone settles — a compaction marker,
    an earlier response with a hosted call whose evidence is missing (one byte a response
    row, found with one C `find` per missing shape: fidelity._missing_rows), a deposit no
    hosted call explains, a chain that starts outside the capture — each an `isdisjoint` /
    `in` over the rows' columns (C); else "no provider copy". One tuple a verdict.
    Checked: every verdict's (conversation, final turn, reason) equals the real one's."""
    from itertools import compress

    from traceview.analysis import fidelity as fid

    a = inputs.analysis
    parts = getattr(a.turns, "_parts", None)
    if type(parts) is not list or len(parts) != 1:
        return Floor(None, "not floored: the turns are not one table's rows", "—")
    cols = parts[0]
    table = cols.table
    index, req_row, res_row = table.index, table.req_row, table.res_row
    req_source, api, values = table.req_source, table.api, table.pool.values
    marker_ids, marker_lists = cols.marker_ids, cols.marker_lists
    attributed = cols.attributed  # a deposit's attributed hosted turns; -1: none
    hosted = table.responses.dicts["hosted_calls"]
    missing_rows = getattr(fid, "_missing_rows", None)
    if missing_rows is None:
        return Floor(None, "not floored: fidelity._missing_rows is gone", "—")
    position = {index[r]: r for r in a.turns.rows()}
    convs = []
    for conv in a.conversations:
        rows = [position[i] for i in conv.turn_indices if i in position]
        convs.append((conv.key, rows))
    prev_lens = table.requests.cols["previous_response_id"].lens
    compact = {k for k, v in enumerate(values) if v == "compact"}
    n_res = len(table.responses.flags)

    def run(keep: list[Any] | None = None) -> None:
        missing = missing_rows(hosted, n_res)
        compaction = frozenset(k for k, m in enumerate(marker_lists)
                               if m and ("compaction" in m or "compaction_likely" in m))
        deposit = frozenset(k for k, m in enumerate(marker_lists) if m and "deposit" in m)
        out = []
        put = out.append
        for key, rows in convs:
            final = -1
            for k in range(len(rows) - 1, -1, -1):
                r = rows[k]
                if req_source[r] >= 0 and api[r] not in compact:
                    final = k
                    break
            if final < 0:
                continue
            earlier = rows[:final]
            last = index[rows[final]]
            if not compaction.isdisjoint(map(marker_ids.__getitem__, rows[:final + 1])):
                put((key, last, "compaction"))
                continue
            at = bytes(map(missing.__getitem__, map(res_row.__getitem__, earlier))).find(1)
            if at >= 0:
                put((key, last, "evidence_missing", index[earlier[at]]))
                continue
            qi = req_row[rows[0]]
            if qi >= 0 and prev_lens[qi] > 0:
                put((key, last, None))  # a chain: the real pass decides (not reached here)
                continue
            upto = rows[:final + 1]
            if not deposit.isdisjoint(map(marker_ids.__getitem__, upto)) and -1 in map(
                    attributed.__getitem__, compress(upto, map(deposit.__contains__, map(
                        marker_ids.__getitem__, upto)))):
                put((key, last, "outside_capture"))  # a deposit no hosted call explains
                continue
            put((key, last, "no_provider_copy"))
        if keep is not None:
            keep.extend(out)

    got: list[Any] = []
    run(got)
    real = {v.conversation: v for v in a.fidelity.verdicts}
    bad = undecided = 0
    for v in got:
        r = real.get(v[0])
        if v[2] is None:
            undecided += 1
            continue
        if r is None or (r.final_turn, r.reason) != (v[1], v[2]):
            bad += 1
        elif v[2] == "evidence_missing" and isinstance(r._detail, tuple) and \
                r._detail[0] != v[3]:
            bad += 1
    if len(got) != len(real):
        bad += abs(len(got) - len(real))
    secs = best_cpu(run, repeat)
    return Floor(secs, (f"verified ({len(got):,} verdicts: final turn, reason"
                        + (f"; {undecided} left to the real pass's rarer checks" if undecided
                           else "") + ")") if not bad
                 else f"UNVERIFIED ({bad:,} of {len(got):,} verdicts differ)",
                 "per conversation over its rows' columns: final turn, then compaction / "
                 "missing evidence / deposit / chain by C membership tests; one tuple a "
                 "verdict; no body read (the deferred hash is floored under lists)",
                 ok=not bad)


# ---- 6. the writer
_SPECIAL = {"cost", "hosted_calls"}
_COPIED = {"tools_offered", "notes", "media_input", "finish_reasons", "provider_counters",
           "attempts"}


def _row_values(d: dict[str, Any]) -> tuple[Any, ...]:
    out = []
    for k, v in d.items():
        if k == "cost" and isinstance(v, dict):
            out.append((v.get("tokens_usd"), v.get("hosted_usd"), v.get("reason")))
        elif k == "hosted_calls" and isinstance(v, list):
            out.append(tuple(tuple(c.values()) for c in v))
        else:
            out.append(v)
    return tuple(out)


def _row_builder(keys: list[str], sample: dict[str, Any]) -> Callable[[tuple[Any, ...]],
                                                                        dict[str, Any]]:
    """A function building a row dict from its values with one dict display."""
    parts = []
    for i, k in enumerate(keys):
        v = sample[k]
        if k == "cost" and isinstance(v, dict):
            parts.append(f"{k!r}: {{'tokens_usd': v[{i}][0], 'hosted_usd': v[{i}][1], "
                         f"'reason': v[{i}][2]}}")
        elif k == "hosted_calls":
            parts.append(f"{k!r}: [dict(zip(H, c)) for c in v[{i}]] if v[{i}] else []")
        elif k in _COPIED:
            parts.append(f"{k!r}: list(v[{i}])")
        else:
            parts.append(f"{k!r}: v[{i}]")
    ns: dict[str, Any] = {"H": ("type", "id", "status", "evidence", "include", "queries",
                                "detail")}
    exec("def build(v):\n    return {" + ", ".join(parts) + "}", ns)  # noqa: S102
    return ns["build"]  # type: ignore[no-any-return]


def floor_rows(inputs: Inputs, repeat: int) -> Floor:
    rows = inputs.rows
    if not rows:
        return Floor(0.0, "no turns", "—")
    keys = list(rows[0])
    # Hosted calls' dicts keep their keys' order; the builder assumes the facts' order.
    values = [_row_values(d) for d in rows]
    build = _row_builder(keys, rows[0])

    def run() -> list[dict[str, Any]]:
        return [build(v) for v in values]

    bad = sum(1 for d, v in zip(rows, values, strict=True)
              if list(d) != keys or orjson.dumps(build(v)) != orjson.dumps(d))
    secs = best_cpu(run, repeat)
    return Floor(secs, f"verified ({len(rows):,} rows: dumps equal)" if not bad
                 else f"UNVERIFIED ({bad:,} rows differ)",
                 "one dict display per row from its pre-extracted values; cost and hosted "
                 "call dicts rebuilt, lists copied, other nested values pre-built",
                 ok=not bad)


def _object_dicts(listing: Any) -> Iterator[dict[str, Any]]:
    """The objects' dicts as the writer makes them (`dicts()` where the listing has it)."""
    if hasattr(listing, "dicts"):
        return iter(listing.dicts())
    return (o.to_dict() for o in listing)


def _dict_builder(keys: tuple[str, ...]) -> Callable[[tuple[Any, ...]], dict[str, Any]]:
    ns: dict[str, Any] = {}
    exec("def build(v):\n    return {" + ", ".join(f"{k!r}: v[{i}]" for i, k in enumerate(keys))
         + "}", ns)  # noqa: S102
    return ns["build"]  # type: ignore[no-any-return]


def _hash_floor(inputs: Inputs) -> tuple[Callable[[], list[str]], int, int]:
    """The deferred hashes' floor: for each verdict the writer settles, pread + orjson.loads
    of each record its rebuild reads, its stored items (transcript.request_items /
    response_items: the request's `input` in stored shape, the response's `output`), the
    canonical bytes (fidelity.canonical: one walk dropping empty values and presentation
    fields, one orjson.dumps with sorted keys) and one sha256. The canonical walk is the
    real function, at its real cost — the digest needs it (the items as captured hash
    differently: the easy-form input, `"phase": null`, …) and it is already one walk;
    what the floor leaves out is the rebuild's bookkeeping (views, CaptureItems, the
    records' sort, the Conversations API writes). Returns (the loop, verdicts, records)."""
    try:
        from _sha256 import sha256  # as fidelity.py: CPython's builtin
    except ImportError:  # pragma: no cover
        from hashlib import sha256
    from traceview.analysis.fidelity import canonical
    from traceview.analysis.transcript import request_items, response_items

    cap = inputs.analysis.capture
    files = cap._files
    work = [([(r.source, r.offset, r.length) for r in refs], digest)
            for refs, digest in inputs.deferred]
    sources = {src for refs, _ in work for src, _, _ in refs}

    def run() -> list[str]:
        fds = {i: os.open(files[i].path, os.O_RDONLY) for i in sources}
        pread, loads = os.pread, orjson.loads
        out = []
        try:
            for refs, _ in work:
                items: list[Any] = []
                for src, off, n in refs:
                    rec = loads(pread(fds[src], n, off))
                    body = rec.get("body")
                    items += (request_items(body) if rec.get("dir") == "req"
                              else response_items(body))
                out.append(sha256(canonical(items)).hexdigest())
        finally:
            for fd in fds.values():
                os.close(fd)
        return out

    return run, len(work), sum(len(r) for r, _ in work)


def floor_lists(inputs: Inputs, repeat: int) -> Floor:
    """The conversations', provider objects' and verdicts' dicts, each one dict display from
    its pre-extracted values; checked: dumps equal. Plus the verdicts' deferred hashes
    (_hash_floor): the writer reads `rebuilt_sha256`, so it pays the rebuild."""
    a = inputs.analysis
    dicts = [c.to_dict() for c in a.conversations]
    if a.objects is not None:
        dicts += list(_object_dicts(a.objects.objects))
    if a.fidelity is not None:
        dicts += [v.to_dict() for v in a.fidelity.verdicts]
    builders: dict[tuple[str, ...], Callable[[tuple[Any, ...]], dict[str, Any]]] = {}
    items = []
    for d in dicts:
        keys = tuple(d)
        build = builders.get(keys) or builders.setdefault(keys, _dict_builder(keys))
        items.append((build, tuple(d.values())))

    def displays() -> None:
        for build, values in items:
            build(values)

    bad = sum(1 for d, (build, v) in zip(dicts, items, strict=True)
              if orjson.dumps(build(v)) != orjson.dumps(d))
    hashes, verdicts, records = _hash_floor(inputs)
    same = sum(1 for h, (_, digest) in zip(hashes(), inputs.deferred, strict=True)
               if h == digest)
    secs = best_cpu(displays, repeat)
    hash_secs = best_cpu(hashes, repeat)
    n = max(len(a.turns), 1)
    check = (f"verified ({len(dicts):,} dicts: dumps equal)" if not bad
             else f"UNVERIFIED ({bad:,} dicts differ)")
    if verdicts:
        check += (f"; hashes {hash_secs / n * 1e6:.1f} of it: {verdicts:,} verdicts, "
                  f"{records:,} records, "
                  + ("digests equal" if same == verdicts
                     else f"UNVERIFIED ({verdicts - same:,} digests differ)"))
    return Floor(secs + hash_secs, check,
                 "one dict display per conversation / object / verdict from its values "
                 "(nested values pre-built) + each deferred hash: pread, loads, stored items, "
                 "canonical bytes (the real walk), sha256", ok=not bad and same == verdicts)


def _bytes_text(v: int) -> str:
    """explain.bytes_text's output for the sizes a turn has, by comparisons."""
    if v < 1000:
        return f"{v} B"
    for unit, div in (("kB", 1e3), ("MB", 1e6), ("GB", 1e9)):
        s = f"{v / div:.1f}"
        if float(s) < 1000:
            return f"{s} {unit}"
    return f"{v / 1e12:.1f} TB"


def _dollars(v: float) -> str:
    if 0 < v < 0.00005:
        return "<$0.0001"
    return f"${v:.4f}" if v < 1 else f"${v:,.2f}"


# Sentence kinds the floor formats from numbers; any other sentence is copied as made.
_TEMPLATES = (("Sent ", "sent"), ("Billed ", "billed"), ("Had the application", "owned"),
              ("Expected ≈", "expected"), ("The output shows ", "passes"),
              ("Carries ≈ ", "carries"), ("Cost ≈ ", "cost"))


def explain_inputs(inputs: Inputs) -> tuple[list[tuple[Any, ...]], int, int]:
    """Per turn: (numbers, plan) where plan lists each sentence as a template name or the
    sentence itself (rare kinds: copied). Also counts of formatted and copied sentences."""
    from traceview.capture.estimate import METHOD

    del METHOD
    out = []
    formatted = copied = 0
    for r, d in zip(inputs.analysis.turns, inputs.rows, strict=True):
        plan: list[Any] = []
        for s in d.get("explanation") or ():
            kind = next((k for p, k in _TEMPLATES if s.startswith(p)), None)
            plan.append(kind if kind is not None else (s,))
            formatted += kind is not None
            copied += kind is None
        carry = None
        if r.carried is not None:
            earlier = [(s, c) for s, c in r.carried.charges if s.arrived_turn != r.index]
            if earlier:
                cost = None if any(c.cost_usd is None for _, c in earlier) else sum(
                    c.cost_usd or 0.0 for _, c in earlier)
                carry = (sum(c.tokens for _, c in earlier), cost,
                         [s.arrived_turn for s, _ in earlier])
        nums = (d.get("request_bytes"), d.get("user_words"), d.get("input_tokens"),
                d.get("cached_tokens"), d.get("output_tokens"), d.get("reasoning_tokens"),
                d.get("owned_state_bytes"), d.get("expected_input"),
                d.get("new_input_estimate"), d.get("model_passes"), d.get("cost_usd"),
                (d.get("cost") or {}).get("hosted_usd"), carry)
        out.append((nums, tuple(plan), d.get("findings") or []))
    return out, formatted, copied


def explain_floor_loop(items: list[tuple[Any, ...]], keep: list[Any] | None = None) -> None:
    from traceview.capture.estimate import METHOD

    add = keep.append if keep is not None else None
    for nums, plan, findings in items:
        (rb, words, inp, cached, out, reasoning, owned, expected, new, passes, cost, hosted,
         carry) = nums
        sentences = []
        put = sentences.append
        for kind in plan:
            if kind == "sent":
                w = f" ({words} words)" if words is not None else ""
                put(f"Sent {_bytes_text(rb)}{w}.")
            elif kind == "billed":
                c = f", {cached:,} of them cached" if cached else ""
                rs = f" ({reasoning:,} reasoning)" if reasoning else ""
                o = "unknown" if out is None else f"{out:,}"
                put(f"Billed {inp:,} input tokens{c}; {o} output tokens{rs}.")
            elif kind == "owned":
                put("Had the application kept the transcript itself, this request would have "
                    f"resent ≈ {_bytes_text(owned)}.")
            elif kind == "expected":
                put(f"Expected ≈ {expected:,} input tokens: the previous turn's billed input "
                    f"and visible output plus ≈ {new:,} for this request's new input (an "
                    f"estimate: {METHOD}).")
            elif kind == "passes":
                put(f"The output shows {passes} model passes (a hosted tool loop): billed "
                    "input counts the context once per pass, so a deposit is claimed only "
                    f"beyond {passes} × the expected input.")
            elif kind == "carries":
                tokens, usd, froms = carry
                money = "cost unknown" if usd is None else f"≈ {_dollars(usd)}"
                turns = ", ".join(f"turn {t}" for t in froms)
                put(f"Carries ≈ {tokens:,} tokens of context that arrived without a request "
                    f"({turns}): {money} of this turn's cost (apportioned).")
            elif kind == "cost":
                x = f", of which {_dollars(hosted)} hosted tool fees" if hosted else ""
                put(f"Cost ≈ {_dollars(cost)}{x}.")
            else:
                put(kind[0])
        found = list(findings)
        if add is not None:
            add((sentences, found))


def floor_explain(inputs: Inputs, repeat: int) -> Floor:
    items, formatted, copied = explain_inputs(inputs)
    got: list[Any] = []
    explain_floor_loop(items, got)
    bad = sum(1 for d, (s, f) in zip(inputs.rows, got, strict=True)
              if s != (d.get("explanation") or []) or f != (d.get("findings") or []))
    secs = best_cpu(lambda: explain_floor_loop(items), repeat)
    share = formatted / max(formatted + copied, 1)
    return Floor(secs, f"verified ({len(items):,} turns: strings equal)" if not bad
                 else f"UNVERIFIED ({bad:,} turns differ)",
                 f"f-strings of the common sentences from the numbers ({share:.0%} of "
                 f"{formatted + copied:,} sentences); the rarer ones and findings copied",
                 ok=not bad)


def _hint_regex() -> re.Pattern[bytes]:
    from traceview.safety import redact

    lits = sorted({*getattr(redact, "_LITERALS_B", ()), b'key":', b"="}, key=len, reverse=True)
    return re.compile(b"|".join(re.escape(x) for x in lits))


def floor_redact(inputs: Inputs, repeat: int) -> Floor:
    """The floor is one C pass over every byte (`bytes.lower()`: a case-insensitive search
    reads each byte at least once). Two plain searches for the hint literals are measured
    beside it, for scale: neither is a floor, the real folded scan (one translate, two
    regex scans) beats both."""
    pattern = _hint_regex()
    lits = sorted(set(pattern.pattern.replace(b"\\", b"").split(b"|")))
    chunks = inputs.redact_in

    def lower() -> None:
        for c in chunks:
            c.lower()

    def alternation() -> None:
        finditer = pattern.finditer
        for c in chunks:
            for _ in finditer(c.lower()):
                pass

    def per_literal() -> None:
        for c in chunks:
            low = c.lower()
            for lit in lits:
                lit in low  # noqa: B015 - the search is the point

    # A search that finds nothing where the real pass masked something would be no check.
    missed = sum(1 for c, out in zip(chunks, inputs.redact_out, strict=True)
                 if out != c and pattern.search(c.lower()) is None)
    n = max(len(inputs.analysis.turns), 1)
    alt_us = best_cpu(alternation, 1) / n * 1e6
    lit_us = best_cpu(per_literal, 1) / n * 1e6
    secs = best_cpu(lower, repeat)
    return Floor(secs, (f"checked: the alternation hits every chunk it masks "
                        f"({len(chunks):,} chunks)") if not missed
                 else f"UNVERIFIED ({missed} masked chunks without a hit)",
                 f"bytes.lower() of the same chunks, one C pass (for scale: one regex "
                 f"alternation of the {len(lits)} hint literals {alt_us:.1f} µs/turn, an `in` "
                 f"per literal {lit_us:.1f})", ok=not missed)


def floor_safe(inputs: Inputs, repeat: int) -> Floor:
    """One C pass over every byte (`bytes.isascii()`): the least any check can do."""
    chunks = inputs.safe_in
    from traceview.safety.sanitise import json_safe

    ascii_changed = sum(1 for c in chunks if c.isascii() and json_safe(c) != c)

    def run() -> None:
        for c in chunks:
            c.isascii()

    secs = best_cpu(run, repeat)
    return Floor(secs, f"checked: no all-ASCII chunk is changed ({len(chunks):,} chunks)"
                 if not ascii_changed else f"UNVERIFIED ({ascii_changed} ASCII chunks changed)",
                 "bytes.isascii() of the same chunks: one C pass, the least any check of "
                 "every byte costs", ok=not ascii_changed)


def floor_dumps(inputs: Inputs, repeat: int) -> Floor:
    calls = inputs.dumps_in

    def run() -> None:
        dumps = orjson.dumps
        for a, k in calls:
            dumps(*a, **k)

    secs = best_cpu(run, repeat)
    return Floor(secs, f"the same {len(calls):,} calls", "orjson.dumps of the same objects, "
                 "same options (the stage is its own floor)")


# ---------------------------------------------------------------------------- profiles
def _seam_keys() -> tuple[dict[tuple[str, int, str], str], str]:
    """Each seam's function as cProfile names it ((file, first line, name) of its code) ->
    its stage; and the file whose direct calls of orjson.dumps are the "dumps" stage."""
    keys: dict[tuple[str, int, str], str] = {}
    for stage, m, p, kind in [*SEAMS, ("read", "traceview.analysis.session", "analyze",
                                       "call")]:
        if kind == "proxy":
            continue
        try:
            _, _, value = _resolve(m, p)
        except SeamMoved:
            continue
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is not None:
            keys[(code.co_filename, code.co_firstlineno, code.co_name)] = stage
    try:
        writer_file = importlib.import_module("traceview.report.json_out").__file__ or ""
    except ImportError:
        writer_file = ""
    return keys, writer_file


def stage_profiles(stats: dict[Any, Any]) -> dict[str, list[tuple[float, int, Any]]]:
    """Each stage's functions by own time, from one cProfile of the whole report
    (pstats' raw table): a seam's own time is its stage's; any other function's own time
    is split between the stages of its callers in proportion to the time it spent under
    each (cProfile records that per caller), followed up to a seam — as gprof splits a
    shared function. So each function's time lands where the instrumented column puts it
    (the innermost seam around it). Returns stage -> [(seconds, calls, key)]."""
    seams, writer_file = _seam_keys()
    dumps_key = next((k for k in stats if k[0] == "~" and "orjson.dumps" in k[2]), None)
    memo: dict[Any, dict[str, float]] = {}

    def share(key: Any) -> dict[str, float]:
        got = memo.get(key)
        if got is not None:
            return got
        if key in seams:
            memo[key] = {seams[key]: 1.0}
            return memo[key]
        memo[key] = {}  # a cycle reads nothing from itself
        callers = stats[key][4] if key in stats else {}
        total = sum(v[2] for v in callers.values()) or sum(v[1] for v in callers.values())
        out: dict[str, float] = {}
        for caller, v in callers.items():
            w = (v[2] if sum(x[2] for x in callers.values()) else v[1]) / total
            if key == dumps_key and caller[0] == writer_file:
                out["dumps"] = out.get("dumps", 0.0) + w
                continue
            for stage, f in share(caller).items():
                out[stage] = out.get(stage, 0.0) + w * f
        if not callers:
            out = {"(outside the report)": 1.0}
        memo[key] = out
        return out

    by_stage: dict[str, list[tuple[float, int, Any]]] = {}
    for key, (_cc, nc, tt, _ct, _callers) in stats.items():
        for stage, f in share(key).items():
            if tt * f > 0:  # calls split as the time is (exact for a one-stage function)
                by_stage.setdefault(stage, []).append((tt * f, round(nc * f), key))
    for rows in by_stage.values():
        rows.sort(key=lambda r: r[0], reverse=True)
    return by_stage


def _where(key: Any) -> str:
    file, line, name = key
    if file == "~":
        return name
    root = str(HERE.parent) + os.sep
    file = file[len(root):] if file.startswith(root) else os.path.basename(file)
    return f"{file}:{line}({name})"


def profile_stages(path: str, repeat: int) -> tuple[dict[str, list[tuple[float, int, Any]]],
                                                   float]:
    """`repeat` cProfile runs of the whole report: each stage's functions by own time (the
    least of the runs, function by function: cProfile's clock is wall time, and on a
    shared machine a run's preemptions land in whatever function was running), and the
    total. Run before the floors' inputs are collected: a cyclic GC pass is charged to
    whatever function allocated last, and with those inputs alive it is long."""
    runs = []
    for _ in range(repeat):
        prof = cProfile.Profile()
        with open(os.devnull, "wb") as sink:
            gc.collect()
            prof.enable()
            _report(path, sink)
            prof.disable()
        runs.append(stage_profiles(pstats.Stats(prof).stats))  # type: ignore[attr-defined]
    by_stage: dict[str, list[tuple[float, int, Any]]] = {}
    for stage in {st for run in runs for st in run}:
        each = [{key: (t, calls) for t, calls, key in run.get(stage, ())} for run in runs]
        keys = set().union(*each)
        rows = [(min(e.get(k, (0.0, 0))[0] for e in each),
                 max(e.get(k, (0.0, 0))[1] for e in each), k) for k in keys]
        by_stage[stage] = sorted((r for r in rows if r[0] > 0), key=lambda r: r[0],
                                 reverse=True)
    return by_stage, sum(t for rows in by_stage.values() for t, _, _ in rows)


def say_profiles(by_stage: dict[str, list[tuple[float, int, Any]]], total: float, n: int,
                 top: int, say: Callable[..., None]) -> None:
    say("")
    say(f"profile by stage (cProfile of the whole report, least of --repeat runs a function: "
        f"{total / n * 1e6:.1f} µs/turn under the profiler, which inflates small Python "
        "calls — read the shares, not the µs; own time, a function shared by stages split "
        f"(time and calls) by the time it spent under each caller; top {top} a stage):")
    labels = dict(STAGES)
    order = [st for st, _ in STAGES] + sorted(set(by_stage) - set(labels))
    for stage in order:
        rows = by_stage.get(stage)
        if not rows:
            continue
        sub = sum(t for t, _, _ in rows)
        say(f"  {labels.get(stage, stage).strip()}: {sub / n * 1e6:.1f} µs/turn "
            f"({sub / total:.0%})")
        for t, calls, key in rows[:top]:
            say(f"    {t / n * 1e6:7.2f} µs/turn {calls:>9,} calls  {_where(key)}")


# ------------------------------------------------------------------------------ output
def _fmt(v: float | None, spec: str = "8.1f") -> str:
    return format(v, spec) if v is not None else format("—", ">" + spec.split(".")[0])


def _floor(stage: str, make: Callable[..., Floor], *args: Any) -> Floor:
    """A stage's floor, or a row saying why it could not be made (a moved internal): the
    other stages are still measured."""
    try:
        return make(*args)
    except Exception as exc:  # noqa: BLE001 - one stage's floor, reported on its row
        return Floor(None, f"FLOOR FAILED ({type(exc).__name__}: {exc}); update "
                     f"floor_{stage} in bench/floors.py", "—", ok=False)


def report(path: str, repeat: int, cli: bool, profile: bool, out: Any = None,
           cores: int = 2, top: int = 8) -> dict[str, Any]:
    """Measure and print; returns the table's figures (for tests)."""
    out = out or sys.stdout

    def say(*parts: Any) -> None:
        print(*parts, file=out)

    importlib.import_module("traceview.report.json_out")  # imports are not the report's
    importlib.import_module("traceview.analysis.session")
    read_s, lines_s, loop_s = bare_costs(path, repeat)
    profiled = profile_stages(path, repeat) if profile else None
    plain = measure_plain(path, repeat)
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    actual = measure_actual(path, repeat)
    for msg in actual.moved:
        print(f"floors.py: a seam it times has moved — {msg}; update SEAMS in "
              "bench/floors.py (its stage reads 0 below)", file=sys.stderr)
    cli_cpu, cli_start, cli_rss = measure_cli(path, repeat) if cli else (None, 0.0, 0)
    inputs = collect(path)
    if not inputs.analysis.turns:
        say(f"{path}: no turns, nothing to measure")
        return {"turns": 0, "rows": {}, "loop_us": 0.0, "total_actual": 0.0,
                "sum_floor": 0.0, "moved": actual.moved}
    n = len(inputs.analysis.turns)
    floors: dict[str, Floor] = {
        "read": Floor(lines_s, "the bare line loop", "`for raw in f` over the file"),
        "facts": _floor("facts", floor_facts, path, inputs, lines_s, repeat),
        "store": _floor("store", floor_store, inputs, repeat),
        "pairing": _floor("pairing", floor_pairing, path, inputs, repeat),
        "analyzer": _floor("analyzer", floor_analyzer, inputs, repeat),
        "finish": Floor(None, "—", "not floored (sorting, conversations, percentiles)"),
        "objects": _floor("objects", floor_objects, inputs, repeat),
        "ledger": _floor("ledger", floor_ledger, inputs, repeat),
        "fidelity": _floor("fidelity", floor_fidelity, inputs, repeat),
        "hosted": Floor(None, "—", "not floored (finder, attaching the three results)"),
        "rows": _floor("rows", floor_rows, inputs, repeat),
        "explain": _floor("explain", floor_explain, inputs, repeat),
        "redact": _floor("redact", floor_redact, inputs, repeat),
        "safe": _floor("safe", floor_safe, inputs, repeat),
        "dumps": _floor("dumps", floor_dumps, inputs, repeat),
        "lists": _floor("lists", floor_lists, inputs, repeat),
        "writer": Floor(None, "—", "not floored (slicing, indenting, the document's rest)"),
    }
    replay_failed: dict[str, str] = {}
    replayed = replay(path, inputs, repeat, replay_failed)
    loop_us = loop_s / n * 1e6
    total_actual = sum(actual.own_ns.values()) / 1e3 / n
    say(f"{path}: {n:,} turns, {os.path.getsize(path) / 1e6:.1f} MB; one process; "
        f"best of {repeat}")
    say(f"bare read {read_s / n * 1e6:.1f} µs/turn; line loop {lines_s / n * 1e6:.1f}; "
        f"orjson loop {loop_us:.1f} µs/turn ({loop_s:.2f} s)")
    head = (f"{'stage':<44} {'actual':>8} {'replay':>8} {'floor':>8} {'act/flr':>8} "
            f"{'flr×loop':>8} {'share':>6}  floor check")
    say(head)
    say("-" * len(head))
    rows: dict[str, dict[str, Any]] = {}
    for stage, label in STAGES:
        act = actual.own_ns.get(stage, 0.0) / 1e3 / n
        f = floors[stage]
        flr = None if f.seconds is None else f.seconds / n * 1e6
        ratio = act / flr if flr else None
        calls = actual.calls.get(stage, 1 if stage == "read" else 0)
        note = f.check if calls else "SEAM NOT HIT (moved?): " + f.check
        if stage in replay_failed:
            note += f"; REPLAY FAILED ({replay_failed[stage]})"
        rep = replayed[stage] / n * 1e6 if stage in replayed else None
        say(f"{label:<44} {_fmt(act)} {_fmt(rep)} {_fmt(flr)} {_fmt(ratio, '7.1f')}× "
            f"{_fmt(None if flr is None else flr / loop_us, '7.2f')}× "
            f"{act / total_actual if total_actual else 0.0:6.1%}  {note}")
        rows[stage] = {"label": label, "actual": act, "replay": rep, "floor": flr,
                       "check": f.check, "ok": f.ok, "hit": bool(calls)}
    say("-" * len(head))
    sums = _sums(rows, cores)
    r = sums["report one"]
    floored = sum(x["floor"] for x in rows.values() if x["floor"] is not None)
    unfloored = r["floor"] - floored
    say(f"{'total (sum of stages)':<44} {_fmt(total_actual)} {'':>8} {_fmt(r['floor'])} "
        f"{_fmt(total_actual / r['floor'] if r['floor'] else None, '7.1f')}× "
        f"{_fmt(r['floor'] / loop_us, '7.2f')}×  floors {floored:.1f} µs/turn "
        f"({floored / loop_us:.2f}× loop) + the unfloored stages at their actual "
        f"{unfloored:.1f} ({unfloored / loop_us:.2f}×)")
    say(f"instrumented run: {actual.cpu_s / n * 1e6:.1f} µs/turn CPU "
        f"(stages scaled by CPU/wall {min(1.0, actual.cpu_s / actual.wall_s):.2f}); "
        f"uninstrumented in-process: {plain / n * 1e6:.1f} µs/turn"
        + (f"; `traceview report --format json` subprocess: {cli_cpu / n * 1e6:.1f} µs/turn "
           f"CPU ({(cli_cpu - cli_start) / n * 1e6:.1f} without the {cli_start:.2f} s of "
           f"starting and imports), peak RSS {cli_rss / 1024:.0f} MB"
           if cli_cpu is not None else ""))
    say(f"peak RSS of this process after the timed runs: {rss_self / 1024:.0f} MB "
        f"(file {os.path.getsize(path) / 1e6:.0f} MB)")
    _say_targets(say, sums, loop_us, cores)
    say("")
    say("what each floor does (each runs with the cyclic GC off, best of N):")
    for stage, label in STAGES:
        say(f"  {label.strip():<44} {floors[stage].does}")
    say(f"  decode+facts reads — request: {', '.join(REQ_FIELDS)}")
    say(f"                       response: {', '.join(RES_FIELDS)}")
    say(f"                       scan: {SCAN}")
    say("  not in the facts floor: request/output byte counts (orjson.dumps of the input and "
        "output), the token estimate, the user text's clip and redaction, the first-message "
        "signature (blake2b), hosted call evidence, interning")
    if profiled is not None:
        say_profiles(*profiled, n, top, say)
    return {"turns": n, "rows": rows, "loop_us": loop_us, "total_actual": total_actual,
            "sum_floor": r["floor"], "sums": sums, "moved": actual.moved}


# Stages that run on every core with TRACEVIEW_WORKERS > 1: facts and the per-row store
# in worker processes (capture/parallel.py: `extract` stores each chunk's facts in its
# own columns, the main process appends them), the turn rows written by forked children
# (report/forked.py; from MIN_ROWS rows: the 200 MB hosted capture, not a 50 MB one).
PARALLEL_REPORT = {"facts", "store", "rows", "explain", "redact", "safe", "dumps"}
PARALLEL_LOAD = {"facts", "store"}
# The inspector's full load: everything before the writer.
LOAD = {"read", "facts", "store", "pairing", "analyzer", "finish", "objects", "ledger",
        "fidelity", "hosted"}
TARGET_LOAD = 4.0  # × the orjson loop, inspector full load (issue #11)


def _sums(rows: dict[str, dict[str, Any]], cores: int) -> dict[str, dict[str, float]]:
    """Actual and floor sums (µs/turn) of the report and of the inspector's load, in one
    process and on `cores` cores as the critical path (serial stages + parallel stages /
    cores: ideal scaling, no transfer cost). An unfloored stage counts at its actual."""
    def total(stages: set[str], parallel: set[str], key: str) -> tuple[float, float]:
        ser = par = 0.0
        for st in stages:
            r = rows.get(st)
            if r is None:
                continue
            v = r[key] if r[key] is not None else r["actual"]
            if st in parallel:
                par += v
            else:
                ser += v
        return ser, par

    out: dict[str, dict[str, float]] = {}
    for name, stages, parallel in (("report", set(rows), PARALLEL_REPORT),
                                   ("load", LOAD, PARALLEL_LOAD)):
        a_ser, a_par = total(stages, parallel, "actual")
        f_ser, f_par = total(stages, parallel, "floor")
        out[f"{name} one"] = {"actual": a_ser + a_par, "floor": f_ser + f_par}
        out[f"{name} cores"] = {"actual": a_ser + a_par / cores, "floor": f_ser + f_par / cores,
                                "serial_actual": a_ser, "serial_floor": f_ser,
                                "parallel_actual": a_par, "parallel_floor": f_par}
    return out


def _say_targets(say: Callable[..., None], sums: dict[str, dict[str, float]],
                 loop_us: float, cores: int) -> None:
    say("")
    say(f"sums, µs/turn (× the orjson loop, {loop_us:.1f} µs/turn); an unfloored stage counts "
        f"at its actual in the floor column; {cores} cores = serial stages + parallel "
        f"stages / {cores} (ideal: no transfer cost):")
    say(f"  {'':<40} {'actual':>16} {'floor':>16}  target")
    lines = (("report json, one process", "report one", TARGET_ONE),
             (f"report json, {cores}-core critical path", "report cores", TARGET_ALL),
             ("inspector full load, one process", "load one", None),
             (f"inspector full load, {cores}-core critical path", "load cores", TARGET_LOAD))
    for label, key, target in lines:
        x = sums[key]
        mark = ""
        if target is not None:
            mark = (f"≤ {target:g}×: " + ("the floors leave "
                    f"{target / (x['floor'] / loop_us):.2f}× of room (every stage must come "
                    "that close to its floor, on average)" if x["floor"] / loop_us <= target
                    else "OUT OF REACH even at every floor"))
        say(f"  {label:<40} {x['actual']:7.1f} ({x['actual'] / loop_us:5.1f}×) "
            f"{x['floor']:7.1f} ({x['floor'] / loop_us:5.2f}×)  {mark}")
        if "serial_floor" in x:
            say(f"  {'':<40} serial {x['serial_actual']:.1f} actual / {x['serial_floor']:.1f} "
                f"floor ({x['serial_floor'] / loop_us:.2f}×) + parallel "
                f"{x['parallel_actual']:.1f} / {x['parallel_floor']:.1f} over {cores}")
    say(f"  parallel: the report's {', '.join(sorted(PARALLEL_REPORT))}; the load's "
        f"{', '.join(sorted(PARALLEL_LOAD))}; everything else runs in the main process "
        "(the read loop there consumes the workers' lines). The inspector's target is for "
        "the 1 GB capture, where the load runs with workers.")


def _generated(shape: str, mb: float, tmp: str) -> str:
    path = os.path.join(tmp, f"floors-{shape}-{mb:g}mb.jsonl")
    gen = "gen_hosted.py" if shape == "hosted" else "gen_capture.py"
    mb_arg = f"{mb:g}" if shape == "hosted" else str(max(1, round(mb)))
    subprocess.run([sys.executable, str(HERE / gen), path, "--mb", mb_arg], check=True,
                   stdout=subprocess.DEVNULL)
    return path


def main(argv: list[str] | None = None, out: Any = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--path", type=capture_file, help="a capture (JSONL)")
    src.add_argument("--shape", choices=("hosted", "bench"), help="generate one of this shape")
    ap.add_argument("--mb", type=float, default=50, help="size to generate (with --shape)")
    ap.add_argument("--repeat", type=int, default=3, help="best of N")
    ap.add_argument("--profile", action="store_true",
                    help="add each stage's top functions by own time (one cProfile run)")
    ap.add_argument("--top", type=int, default=8, help="functions a stage with --profile")
    ap.add_argument("--cores", type=int, default=2,
                    help="cores of the critical path (issue #11's machine: 2)")
    ap.add_argument("--no-cli", action="store_true",
                    help="skip the `traceview report` subprocess cross-check")
    ns = ap.parse_args(argv)
    saved = os.environ.get("TRACEVIEW_WORKERS")
    os.environ["TRACEVIEW_WORKERS"] = "1"  # one process: read where the pipeline reads it
    try:
        return _main(ns, out)
    finally:
        if saved is None:
            del os.environ["TRACEVIEW_WORKERS"]
        else:
            os.environ["TRACEVIEW_WORKERS"] = saved


def _main(ns: argparse.Namespace, out: Any) -> int:
    with tempfile.TemporaryDirectory(prefix="floors-") as tmp:
        path = ns.path or _generated(ns.shape, ns.mb, tmp)
        try:
            got = report(path, max(1, ns.repeat), not ns.no_cli, ns.profile, out,
                         max(1, ns.cores), max(1, ns.top))
        except SeamMoved as exc:
            print(f"floors.py: a seam it times has moved — {exc}; update SEAMS in "
                  "bench/floors.py", file=sys.stderr)
            return 2
    if got.get("moved"):
        return 2
    if not got["turns"]:
        return 1
    return 0 if all(r["ok"] and r["hit"] for r in got["rows"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
