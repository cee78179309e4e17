"""Every stage of `traceview report --format json`, against the measured floor of its work.

Issue #11 is done when its targets hold "or the closing note shows the measured floor of
each remaining stage with a profile". This prints that table, for one capture, in one
process (TRACEVIEW_WORKERS=1):

    stage | actual µs/turn | floor µs/turn | actual/floor | floor × orjson loop | share

*Actual*: the real pipeline (session.analyze, then json_out.iter_json written to
/dev/null) with a timer around each stage's public seam (reader.line_facts, the table's
`add`, CaptureBuilder.feed, Analyzer.add, the three hosted-state passes, the rows
(turn_report.row_dicts), explain, redact_json, json_safe, the writer's orjson.dumps).
Time in a stage is its own (what it calls that is another stage is that stage's). The
per-call timer is
perf_counter (process_time is a system call of ~3 µs here: more than some stages); each
stage is scaled by the run's CPU / wall ratio and the timer's own cost (calibrated) is
taken off. The instrumented total is printed beside an uninstrumented run's CPU and a
plain `traceview report --format json` subprocess's CPU, so the scaling can be judged.

*Floor*: the bare CPython cost of the same irreducible work, on the same data, in a plain
loop over pre-extracted Python values (what each floor does is printed under the table).
Each floor is checked against the real stage's output (equal dicts, strings, numbers):
"verified" when every turn agrees, "UNVERIFIED (n differ)" otherwise; a floor that cannot
be compared says what it was checked against.

Best of --repeat for every figure. `--profile` adds a cProfile top-25 (own time) of the
whole report. A script, not a test: tests/bench/test_floors_runs.py only checks that it
runs and that its floors verify.

    python bench/floors.py --path /tmp/h50.jsonl --repeat 3
    python bench/floors.py --shape bench --mb 50 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import importlib
import io
import os
import pstats
import re
import resource
import subprocess
import sys
import tempfile
import time
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
    ("lists", "traceview.analysis.fidelity", "Verdict.to_dict", "call"),
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
# Stages that run on every core today (TRACEVIEW_WORKERS > 1): facts in worker processes
# (capture/parallel.py), the turn rows written by forked children (report/forked.py).
PARALLEL = {"facts", "rows", "explain", "redact", "safe", "dumps"}
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
        for stage, m, p, kind in SEAMS:
            try:
                self.targets.append((stage, *_resolve(m, p), kind.rstrip("?")))
            except SeamMoved:
                if not kind.endswith("?"):  # an optional seam may go: its time moves up
                    raise

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


def measure_actual(path: str, repeat: int) -> Actual:
    clock = Clock()
    per_child, per_parent = _calibrate(clock)
    best: Actual | None = None
    with Instrumented(clock), open(os.devnull, "wb") as sink:
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
            got = Actual(cpu, wall, own, dict(clock.calls))
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
def replay(path: str, inputs: Inputs, repeat: int) -> dict[str, float]:
    """CPU seconds of the real stage functions re-run alone, in bulk, on the same inputs
    (process_time around the whole loop: no per-call timer, no scaling, so it holds on a
    busy machine). A cross-check of the instrumented column; a stage that cannot be re-run
    alone is left out. Rows are `row_dicts(explained=False)`; explanations are
    `row_dicts()` less that."""
    from traceview.analysis import hosted_state
    from traceview.analysis.analyzer import Analyzer
    from traceview.analysis.turn_report import row_dicts
    from traceview.capture import reader
    from traceview.capture.table import TurnTable
    from traceview.report import json_out

    a = inputs.analysis
    cap = a.capture
    out: dict[str, float] = {}
    with open(path, "rb") as f:
        lines = f.readlines()
    line_facts = reader.line_facts

    def facts() -> None:
        for raw in lines:
            line_facts(raw, raw[-1:] == b"\n", True)

    out["facts"] = best_cpu(facts, repeat, gc_on=True)
    reqs: list[Any] = []
    ress: list[Any] = []
    for raw in lines:
        pre = line_facts(raw, raw[-1:] == b"\n", False)
        if pre is not None and pre[0] == "req" and pre[8] is not None:
            reqs.append(pre[8])
        elif pre is not None and pre[0] == "res" and pre[4] is not None:
            ress.append(pre[4])
    lines.clear()

    def store() -> None:
        t = TurnTable()
        for x in reqs:
            t.requests.add(x)
        for x in ress:
            t.responses.add(x)

    out["store"] = best_cpu(store, repeat, gc_on=True)
    reqs.clear()
    ress.clear()
    names = cap.sources
    turns = sorted(cap.turns, key=lambda t: t.index)

    def analyzer() -> None:
        an = Analyzer(None, a.pricing_table)
        if hasattr(an, "add_all"):  # as the session does: its columns bound once
            an.add_all(turns, names, [].append)
            return
        for t in turns:
            an.add(t, names[t.source])

    out["analyzer"] = best_cpu(analyzer, repeat, gc_on=True)
    storage = a.pricing_table.storage.get("vector_store") if a.pricing_table else None
    storage = storage if isinstance(storage, dict) else None
    configs_cls = getattr(hosted_state, "_Configs", None)
    configs = configs_cls() if configs_cls is not None else None

    # As hosted_state._attach calls it: configurations told by table row where it can.
    by_row = {"on_row": configs.see_row} if hasattr(configs, "see_row") else {}
    if hasattr(configs, "see_rows"):  # told once, by rows, when read a column at a time
        by_row["on_rows"] = configs.see_rows

    def objects() -> None:
        if "on_rows" in by_row:
            configs.clear()  # as new each time, as each load's are
        hosted_state.inventory(a.turns, cap.exchanges, cap.read_raw, storage,
                               on_request=configs.see if configs is not None else None,
                               **by_row)

    out["objects"] = best_cpu(objects, repeat, gc_on=True)
    bills = {c.key: c.cost_usd for c in a.conversations}
    out["ledger"] = best_cpu(lambda: hosted_state.build_ledger(
        a.turns, a.pricing_table, configs.get if configs is not None else None, bills), repeat,
        gc_on=True)
    out["fidelity"] = best_cpu(lambda: hosted_state.assess(a, objects=a.objects,
                                                          label="capture only"), repeat,
                               gc_on=True)
    reports = a.turns
    bare = best_cpu(lambda: list(row_dicts(reports, explained=False)), repeat)
    whole = best_cpu(lambda: list(row_dicts(reports)), repeat)
    out["rows"], out["explain"] = bare, max(whole - bare, 0.0)
    out["redact"] = best_cpu(lambda: [json_out.redact_json(c) for c in inputs.redact_in],
                             repeat)
    out["safe"] = best_cpu(lambda: [json_out.json_safe(c) for c in inputs.safe_in], repeat)
    out["dumps"] = best_cpu(lambda: [orjson.dumps(*x, **k) for x, k in inputs.dumps_in],
                            repeat)
    def to_dicts() -> None:
        for c in a.conversations:
            c.to_dict()
        if a.objects is not None:
            for _ in _object_dicts(a.objects.objects):
                pass
        if a.fidelity is not None:
            for v in a.fidelity.verdicts:
                v.to_dict()

    out["lists"] = best_cpu(to_dicts, repeat)
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
    fidelity_refs: list[Any] = field(default_factory=list)


def collect(path: str) -> Inputs:
    """Run the pipeline once, keeping the inputs of the writer's byte passes and the
    records the fidelity pass reads (the floors run over exactly those)."""
    from traceview.analysis import hosted_state, session
    from traceview.capture.capture import Capture
    from traceview.report import json_out

    got = Inputs(analysis=None)
    real_redact, real_safe, real_orjson = json_out.redact_json, json_out.json_safe, json_out.orjson
    real_assess, real_read = hosted_state.assess, Capture.read

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

    def read(self: Any, ref: Any) -> Any:
        got.fidelity_refs.append(ref)
        return real_read(self, ref)

    def assess(*a: Any, **k: Any) -> Any:
        Capture.read = read  # type: ignore[method-assign]
        try:
            return real_assess(*a, **k)
        finally:
            Capture.read = real_read  # type: ignore[method-assign]

    json_out.redact_json, json_out.json_safe = redact, safe  # type: ignore[assignment]
    json_out.orjson = _OrjsonProxy(dumps)  # type: ignore[assignment]
    hosted_state.assess = assess  # type: ignore[assignment]
    try:
        a = session.analyze([path])
        for _ in json_out.iter_json(a):
            pass
    finally:
        json_out.redact_json, json_out.json_safe = real_redact, real_safe  # type: ignore[assignment]
        json_out.orjson = real_orjson  # type: ignore[assignment]
        hosted_state.assess = real_assess  # type: ignore[assignment]
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
# line_facts returns a pre tuple (12 / 8) holding a RequestFacts (23 slots) / ResponseFacts
# (31 slots): the floor builds one flat tuple of as many values.
REQ_TUPLE, RES_TUPLE = 12 + 23, 8 + 31
REQ_LINE, RES_LINE = 20, 29  # where the floor's tuples keep the line number


def facts_floor_loop(path: str, out: list[tuple[Any, ...]] | None = None) -> None:
    """orjson.loads of each line, the field reads line_facts needs, one tuple per line."""
    loads, err = orjson.loads, orjson.JSONDecodeError
    pad_req = (None,) * (REQ_TUPLE - 22)
    pad_res = (None,) * (RES_TUPLE - 34)
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
                t = (d, g("id"), g("endpoint"), g("recorded"), g("bytes"), g("origin"),
                     bg("model"), bg("conversation"), bg("previous_response_id"),
                     bg("include"), bg("truncation"), bg("tools"), bg("stream"),
                     bg("background"), bg("store"), bg("instructions"),
                     bg("context_management"), bg("messages"), inp, kinds, line, len(raw),
                     *pad_req)
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
                t = (d, g("id"), g("elapsed_ms"), g("status_code"), g("status"), g("ts"),
                     g("headers"), g("events"), g("error"), g("origin"), bg("object"),
                     bg("id"), bg("model"), bg("status"), bg("conversation"), inp_t, out_t,
                     det.get("cached_tokens") if type(det) is dict else None,
                     odet.get("reasoning_tokens") if type(odet) is dict else None, kinds,
                     bg("prompt_cache_diagnostics"), bg("incomplete_details"), bg("error"),
                     bg("tool_usage"), bg("input_transformations"), bg("store"),
                     bg("service_tier"), bg("system_fingerprint"), bg("created_at"), line,
                     len(raw), None, None, None, *pad_res)
            if keep is not None:
                keep(t)


def _conv(v: Any) -> Any:
    if isinstance(v, dict):
        v = v.get("id")
    return v if isinstance(v, str) and v else None


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
                    req.model, req.conversation_id, req.previous_response_id):
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
    secs = max(best_cpu(lambda: facts_floor_loop(path), repeat) - lines_s, 0.0)
    check = (f"verified ({checked:,} records)" if not bad
             else f"UNVERIFIED ({bad:,} of {checked:,} records differ)")
    return Floor(secs, check, "orjson.loads + the field reads the facts need (listed below) "
                 "+ one flat tuple per line, less the bare line loop", ok=not bad)


# ---- 2. store in table
def floor_store(inputs: Inputs, repeat: int) -> Floor:
    """The same values appended to fresh arrays/lists, row by row; checked equal to the
    real table's columns."""
    from array import array

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
    """One pread of each turn's request (and its response's head), the id regex over
    both, one dict entry per response id."""
    from traceview.analysis import objects as objects_mod

    a = inputs.analysis
    cap = a.capture
    head = getattr(objects_mod, "HEAD_BYTES", 2048)
    ids_re = getattr(objects_mod, "_IDS", re.compile(rb'"(vs_[A-Za-z0-9_\-]+)"'))
    spans = []
    for r in a.turns:
        t = r.turn
        q, s = t.request, t.response
        rid = t.res.response_id if t.res is not None and t.api == "responses" else None
        limit = None if t.res is not None and t.res.hosted_calls else head
        if q is not None and s is not None and q.source == s.source and 0 <= s.offset - (
                q.offset + q.length) <= 64:
            end = s.offset + (s.length if limit is None else min(limit, s.length))
            spans.append((q.source, q.offset, end - q.offset, q.length, rid))
        else:
            ref = q or s
            if ref is not None:
                spans.append((ref.source, ref.offset, ref.length, ref.length, rid))
    fds = {i: os.open(cap._files[i].path, os.O_RDONLY) for i in {s[0] for s in spans}}
    try:
        def run(keep: dict[str, int] | None = None) -> None:
            pread, findall = os.pread, ids_re.findall
            found: dict[str, int] = {} if keep is None else keep
            for src, off, n, split, rid in spans:
                data = pread(fds[src], n, off)
                findall(data, 0, split)
                findall(data, split)
                if rid:
                    found[rid] = off

        mine: dict[str, int] = {}
        run(mine)
        secs = best_cpu(run, repeat)
    finally:
        for fd in fds.values():
            os.close(fd)
    real = a.objects.counts().get("response") if a.objects is not None else None
    ok = real == len(mine)
    return Floor(secs, f"checked: {len(mine):,} response objects = the inventory's" if ok
                 else f"UNVERIFIED ({len(mine):,} response ids vs {real})",
                 "pread of each turn's request + response head, id regex over both, a dict "
                 "entry per response id (the real pass also gathers the ledger's tool "
                 "configurations)", ok=ok)


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
    """Re-read (pread + orjson.loads) the same records the pass reads: nothing hashed."""
    cap = inputs.analysis.capture
    refs = [r for r in inputs.fidelity_refs if r is not None]
    fds = {i: os.open(cap._files[i].path, os.O_RDONLY) for i in {r.source for r in refs}}
    try:
        def run() -> None:
            pread, loads = os.pread, orjson.loads
            for r in refs:
                loads(pread(fds[r.source], r.length, r.offset))

        secs = best_cpu(run, repeat)
    finally:
        for fd in fds.values():
            os.close(fd)
    return Floor(secs, f"same {len(refs):,} records read (a floor of its reads only)",
                 "pread + orjson.loads of each record the pass reads; no canonical form, "
                 "no hash", ok=True)


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


def floor_lists(inputs: Inputs, repeat: int) -> Floor:
    """The conversations', provider objects' and verdicts' dicts, each one dict display from
    its pre-extracted values; checked: dumps equal."""
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

    def run() -> None:
        for build, values in items:
            build(values)

    bad = sum(1 for d, (build, v) in zip(dicts, items, strict=True)
              if orjson.dumps(build(v)) != orjson.dumps(d))
    secs = best_cpu(run, repeat)
    return Floor(secs, f"verified ({len(dicts):,} dicts: dumps equal)" if not bad
                 else f"UNVERIFIED ({bad:,} dicts differ)",
                 "one dict display per conversation / object / verdict from its values; "
                 "nested values (a conversation's ledger, turn lists) pre-built", ok=not bad)


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
    from traceview.capture import redact

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
    from traceview.report.safe import json_safe

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


# ------------------------------------------------------------------------------ output
def _fmt(v: float | None, spec: str = "8.1f") -> str:
    return format(v, spec) if v is not None else format("—", ">" + spec.split(".")[0])


def report(path: str, repeat: int, cli: bool, profile: bool, out: Any = None) -> dict[str, Any]:
    """Measure and print; returns the table's figures (for tests)."""
    out = out or sys.stdout

    def say(*parts: Any) -> None:
        print(*parts, file=out)

    importlib.import_module("traceview.report.json_out")  # imports are not the report's
    importlib.import_module("traceview.analysis.session")
    read_s, lines_s, loop_s = bare_costs(path, repeat)
    plain = measure_plain(path, repeat)
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    actual = measure_actual(path, repeat)
    cli_cpu, cli_start, cli_rss = measure_cli(path, repeat) if cli else (None, 0.0, 0)
    inputs = collect(path)
    if not inputs.analysis.turns:
        say(f"{path}: no turns, nothing to measure")
        return {"turns": 0, "rows": {}, "loop_us": 0.0, "total_actual": 0.0,
                "sum_floor": 0.0}
    n = len(inputs.analysis.turns)
    floors: dict[str, Floor] = {
        "read": Floor(lines_s, "the bare line loop", "`for raw in f` over the file"),
        "facts": floor_facts(path, inputs, lines_s, repeat),
        "store": floor_store(inputs, repeat),
        "pairing": floor_pairing(path, inputs, repeat),
        "analyzer": floor_analyzer(inputs, repeat),
        "finish": Floor(None, "—", "not floored (sorting, conversations, percentiles)"),
        "objects": floor_objects(inputs, repeat),
        "ledger": floor_ledger(inputs, repeat),
        "fidelity": floor_fidelity(inputs, repeat),
        "hosted": Floor(None, "—", "not floored (tool configs, finder, attaching)"),
        "rows": floor_rows(inputs, repeat),
        "explain": floor_explain(inputs, repeat),
        "redact": floor_redact(inputs, repeat),
        "safe": floor_safe(inputs, repeat),
        "dumps": floor_dumps(inputs, repeat),
        "lists": floor_lists(inputs, repeat),
        "writer": Floor(None, "—", "not floored (slicing, indenting, the document's rest)"),
    }
    replayed = replay(path, inputs, repeat)
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
    sum_floor = 0.0
    rows: dict[str, dict[str, Any]] = {}
    for stage, label in STAGES:
        act = actual.own_ns.get(stage, 0.0) / 1e3 / n
        f = floors[stage]
        flr = None if f.seconds is None else f.seconds / n * 1e6
        sum_floor += flr if flr is not None else act  # an unfloored stage counts as is
        ratio = act / flr if flr else None
        calls = actual.calls.get(stage, 1 if stage == "read" else 0)
        note = f.check if calls else "SEAM NOT HIT (moved?): " + f.check
        rep = replayed[stage] / n * 1e6 if stage in replayed else None
        say(f"{label:<44} {_fmt(act)} {_fmt(rep)} {_fmt(flr)} {_fmt(ratio, '7.1f')}× "
            f"{_fmt(None if flr is None else flr / loop_us, '7.2f')}× "
            f"{act / total_actual:6.1%}  {note}")
        rows[stage] = {"label": label, "actual": act, "replay": rep, "floor": flr,
                       "check": f.check,
                       "ok": f.ok, "hit": bool(calls)}
    say("-" * len(head))
    floored = sum(r["floor"] for r in rows.values() if r["floor"] is not None)
    unfloored = sum_floor - floored
    say(f"{'total (sum of stages)':<44} {_fmt(total_actual)} {'':>8} {_fmt(sum_floor)} "
        f"{_fmt(total_actual / sum_floor, '7.1f')}× {_fmt(sum_floor / loop_us, '7.2f')}×  "
        f"floors {floored:.1f} µs/turn ({floored / loop_us:.2f}× loop) + the unfloored "
        f"stages at their actual {unfloored:.1f} ({unfloored / loop_us:.2f}×)")
    say(f"instrumented run: {actual.cpu_s / n * 1e6:.1f} µs/turn CPU "
        f"(stages scaled by CPU/wall {min(1.0, actual.cpu_s / actual.wall_s):.2f}); "
        f"uninstrumented in-process: {plain / n * 1e6:.1f} µs/turn"
        + (f"; `traceview report --format json` subprocess: {cli_cpu / n * 1e6:.1f} µs/turn "
           f"CPU ({(cli_cpu - cli_start) / n * 1e6:.1f} without the {cli_start:.2f} s of "
           f"starting and imports), peak RSS {cli_rss / 1024:.0f} MB"
           if cli_cpu is not None else ""))
    say(f"peak RSS of this process after the timed runs: {rss_self / 1024:.0f} MB "
        f"(file {os.path.getsize(path) / 1e6:.0f} MB)")
    # The targets.
    cores = os.cpu_count() or 1
    par_act = sum(rows[s]["actual"] for s in PARALLEL)
    par_flr = sum((rows[s]["floor"] if rows[s]["floor"] is not None else rows[s]["actual"])
                  for s in PARALLEL)
    say("")
    say(f"targets (× the orjson loop, {loop_us:.1f} µs/turn): one process ≤ {TARGET_ONE:g}×, "
        f"all cores ≤ {TARGET_ALL:g}× (wall)")
    one_floor, one_rest = floored / loop_us, unfloored / loop_us
    say(f"  one process: actual {total_actual / loop_us:.1f}×; the floored stages' floors sum "
        f"to {one_floor:.2f}×, the unfloored stages (end of load, attach glue, the document's "
        f"rest) are {one_rest:.2f}× at their actual cost → " + _verdict(one_floor, one_rest))
    serial_act, serial_flr = total_actual - par_act, sum_floor - par_flr
    ideal_act = (serial_act + par_act / cores) / loop_us
    ideal_flr = (serial_flr + par_flr / cores) / loop_us
    say(f"  all {cores} cores (ideal: the stages that parallelise today divided by {cores}, the "
        f"rest serial, no transfer cost): actual ≥ {ideal_act:.1f}×, at every floor "
        f"≥ {ideal_flr:.1f}× (the serial stages alone, floors or unfloored actuals: "
        f"{serial_flr / loop_us:.2f}×) → "
        + (f"the {TARGET_ALL:g}× target is out of reach on {cores} cores without moving more "
           "stages off the main process" if ideal_flr > TARGET_ALL
           else f"the {TARGET_ALL:g}× target is within the floors' reach"))
    say("  parallel today: decode+facts (worker processes, capture/parallel.py) and the turn "
        "rows — row, explanation, redaction, safety, dumps — (forked children, "
        "report/forked.py; their non-turn parts are serial, counted parallel here); serial "
        "in the main process: read loop, store, pairing, analyzer, end of load, hosted-state "
        "passes, the other lists, the document's rest")
    say("")
    say("what each floor does (each runs with the cyclic GC off, best of N):")
    for stage, label in STAGES:
        say(f"  {label.strip():<44} {floors[stage].does}")
    say(f"  decode+facts reads — request: {', '.join(REQ_FIELDS)}")
    say(f"                       response: {', '.join(RES_FIELDS)}")
    say("  not in the facts floor: request/output byte counts (orjson.dumps of the input and "
        "output), the token estimate, the user text's clip and redaction, the first-message "
        "signature (blake2b), hosted call evidence, interning")
    if profile:
        say("")
        say("cProfile of the whole report (in process, own time, top 25):")
        prof = cProfile.Profile()
        with open(os.devnull, "wb") as sink:
            prof.enable()
            _report(path, sink)
            prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
        say(buf.getvalue())
    return {"turns": n, "rows": rows, "loop_us": loop_us, "total_actual": total_actual,
            "sum_floor": sum_floor}


def _verdict(floors: float, rest: float) -> str:
    """What the single-process target asks of the stages, given the floors (× the loop)
    and the unfloored stages at their actual cost."""
    if floors >= TARGET_ONE:
        return f"out of reach: the floors alone are {floors:.2f}× > {TARGET_ONE:g}×"
    if floors + rest > TARGET_ONE:
        return (f"out of reach unless the unfloored stages shrink too: at every floor the "
                f"total is {floors + rest:.2f}× > {TARGET_ONE:g}×")
    return (f"reachable only with the stages within {TARGET_ONE / (floors + rest):.2f}× of "
            "their floors on average")


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
    ap.add_argument("--profile", action="store_true", help="add a cProfile top-25")
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
            got = report(path, max(1, ns.repeat), not ns.no_cli, ns.profile, out)
        except SeamMoved as exc:
            print(f"floors.py: a seam it times has moved — {exc}; update SEAMS in "
                  "bench/floors.py", file=sys.stderr)
            return 2
    if not got["turns"]:
        return 1
    return 0 if all(r["ok"] and r["hit"] for r in got["rows"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
