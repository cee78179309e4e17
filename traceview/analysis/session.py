"""Analysis of a whole capture, all at once or progressively.

`Session.run()` is a generator meant for a worker thread: it reads lines, pairs them,
analyses each finished turn, and yields a Batch about every `interval` seconds (the
first one sooner) so a screen can show rows while the rest of the file is still read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from traceview.analysis.analyzer import Analyzer
from traceview.analysis.cost.section import attach_cost
from traceview.analysis.hosted.attach import attach as attach_hosted_state
from traceview.analysis.hosted.attach import ledger_aside
from traceview.analysis.options import Options
from traceview.analysis.pricing import Pricing
from traceview.analysis.rules.account_workers import request_halves
from traceview.analysis.turn_report import ConversationReport, TurnReport
from traceview.capture.capture import Capture, CaptureLoader, Progress
from traceview.capture.estimate import METHOD
from traceview.capture.media import RULE as MEDIA_RULE
from traceview.capture.model import Problem

SCHEMA = "traceview.report/1"
# Which numbers are estimates, and how they are made: stated in every report.
ESTIMATES = {
    "expected_input": "the input account's sum where the input is visible (no conversation "
                      "handle or previous_response_id); on hosted turns, the previous turn's "
                      "billed input + its visible output (output - reasoning) + the itemised "
                      "change (new input items; instructions, tools and schema less the "
                      "previous turn's); null when a line it needs is unknown",
    "input_account": "the request's billed input itemised, in the model's own encoding "
                     "(o200k/cl100k, offline) with framing fitted on real captures "
                     "(docs/input-account.md)",
    "new_input_estimate": METHOD,
    "unexplained_tokens": "input_tokens - expected_input (inherits the estimate)",
    "media_input": MEDIA_RULE,
    "caller_elapsed_ms": "elapsed_ms of the final attempt + elapsed_ms of every failed attempt "
                         "retried before it",
}


@dataclass
class Analysis:
    capture: Capture
    # The TurnReports in index order: a list, or the analyzer's Reports (a sequence of
    # rows whose reports are made when read: analysis/reports.py).
    turns: Sequence[TurnReport] = field(default_factory=list)
    conversations: Sequence[ConversationReport] = field(default_factory=list)
    totals: dict[str, Any] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    pricing: dict[str, Any] = field(default_factory=dict)
    complete: bool = False
    # Set by analysis/hosted/attach.py once every turn is in.
    pricing_table: Any = None
    ledger: Any = None
    objects: Any = None
    fidelity: Any = None
    # The options the analysis ran with (Options.to_dict), the report's `options`.
    options: dict[str, Any] = field(default_factory=dict)
    # The cost section (analysis/cost/section.py): attribution, storage, exchanges, lines.
    cost: Any = None
    # What a provider copy filled (`report --items/--live`: analysis/account/carried.py
    # CopyFill), the report's top-level `provider_copy`; None: no copy was asked for.
    provider_copy: Any = None
    # How each turn's project was found (analysis/cost/projects.py TurnProjects).
    projects: Any = None

    def turn(self, index: int) -> TurnReport | None:
        t = self.turns[index - 1] if 0 < index <= len(self.turns) else None
        if t is not None and t.index == index:
            return t
        return next((x for x in self.turns if x.index == index), None)

    def to_report(self, *, turns: Any = None, objects: Any = None,
                  conversations: Any = None, verdicts: Any = None) -> dict[str, Any]:
        """The traceview.report/1 document; `turns`, `conversations`, `objects` (the
        provider objects' list) and `verdicts` (fidelity's) replace those lists (a
        streaming writer passes placeholders and writes them a batch at a time)."""
        doc = {
            "schema": SCHEMA,
            "sources": self.capture.sources,
            "complete": self.complete,
            "conversations": ([c.to_dict() for c in self.conversations]
                              if conversations is None else conversations),
            "turns": [t.to_dict() for t in self.turns] if turns is None else turns,
            "exchanges": [e.to_dict() for e in self.capture.exchanges],
            "totals": self.totals,
            "estimates": ESTIMATES,
            "pricing": self.pricing,
            "objects": (None if self.objects is None
                        else self.objects.to_dict(objects=objects)),
            "fidelity": (self.fidelity.to_dict(verdicts=verdicts)
                         if self.fidelity is not None else None),
            "problems": [p.to_dict() for p in self.problems],
            "imports": self.capture.imports,
            "options": self.options,
            "cost": self.cost,
        }
        if self.provider_copy is not None:
            doc["provider_copy"] = self.provider_copy.to_dict()
        return doc


@dataclass
class Batch:
    turns: list[TurnReport]
    problems: list[Problem]
    progress: Progress


class Session:
    """`pricing`: an already loaded table, shared by callers that analyse many files one by
    one (the export); `totals=False` leaves `Analysis.totals` empty for callers that never
    read it (the percentiles cost more than a small file's rows). `step_lines`: how many
    lines are fed between looks at the clock (a test makes it 1, so that even a small
    capture arrives in many batches). `first_rows`: the first chunk read in this process
    so its rows show at once (a screen); a headless read leaves every chunk to the
    workers, which also make each request's half of its input account
    (analysis/rules/account_workers.py)."""

    # Whether turns are added after the first pass (FollowSession): then the analyzer keeps
    # each conversation's running state; otherwise it is released once the capture is in.
    follows = False
    # Finished turns are analysed this many at a time (and all of them before a batch is
    # yielded): a run of turns keeps the analyzer's code and data in the CPU's caches,
    # which the reading between two steps pushes out.
    analyze_run = 256
    # Whether each batch carries its turns' reports (a screen reads them; `run_to_end`
    # does not, and no report is then made a turn).
    batch_turns = True

    def __init__(self, paths: list[str] | str, options: Options | None = None,
                 *, interval: float = 0.25, first_interval: float = 0.05,
                 pricing: Pricing | None = None, totals: bool = True,
                 step_lines: int = 16, first_rows: bool = True) -> None:
        self.options = options or Options()
        self.step_lines = step_lines
        self.interval = interval
        self.first_interval = first_interval
        self.totals = totals
        held: list[Analyzer] = []  # the loader's hand-off holds the analyzer, not the session
        self.loader = CaptureLoader([paths] if isinstance(paths, str) else list(paths),
                                    self.options.from_format,
                                    along=(request_halves, partial(_take, held)),
                                    first_here=first_rows)
        self.capture = self.loader.capture
        self.analyzer = Analyzer(self.options, pricing, self.capture.read,
                                 self.capture.exchanges, self.loader.builder.problem)
        held.append(self.analyzer)
        self.analysis = Analysis(self.capture, problems=self.capture.problems,
                                 options=self.options.to_dict())
        self.analysis.pricing = _pricing_info(self.analyzer)

    def run(self) -> Iterator[Batch]:
        """Raises SourceError up front if the only path cannot be opened."""
        self.loader.open_all()
        b = self.loader.builder
        fresh: list[TurnReport] = []
        names = self.capture.sources
        last = time.monotonic()
        wait = self.first_interval
        run = self.analyze_run
        finished = b.finished
        # The first batch goes as soon as a turn is finished: its rows then show before
        # anything slow (a large capture's worker pool starts after its first chunk).
        first = True
        for _ in self.loader.steps(self.step_lines):
            if len(finished) >= run:
                self._analyze(fresh, names)
            now = time.monotonic()
            if now - last >= wait or (first and (finished or fresh)):
                self._analyze(fresh, names)
                yield self._batch(fresh, done=False)
                fresh = []
                last = now
                wait = self.interval
                first = False
        self._analyze(fresh, names)
        self._finish()
        yield self._batch(fresh, done=True)

    def _analyze(self, fresh: list[TurnReport], names: list[str]) -> None:
        """Analyse the finished turns, in the order they finished, onto `fresh`."""
        finished = self.loader.builder.finished
        if finished:  # one run through the analyzer (its columns bound once a run)
            turns = list(finished)
            finished.clear()
            self.analyzer.add_all(turns, names, fresh.append if self.batch_turns else None)

    def _batch(self, fresh: list[TurnReport], done: bool) -> Batch:
        problems = list(self.loader.builder.new_problems)
        self.loader.builder.new_problems.clear()
        self.analysis.turns = self.analyzer.reports
        return Batch(fresh, problems, self.loader.progress(done))

    def _finish(self) -> None:
        a = self.analysis
        self.analyzer.reports.sort()  # by index, in place: no second list of every turn
        a.turns = self.analyzer.reports
        a.conversations = self.analyzer.conversations()
        a.pricing_table = self.analyzer.pricing
        # The ledger reads only the turns, conversations and prices: on a large capture
        # it is begun now in a worker, beside everything else here.
        with ledger_aside(a) as ledger_made:
            if not self.follows:
                self.analyzer.release()
            _attach_exchanges(a)
            if self.totals:
                a.totals = self.analyzer.totals.to_dict()
                a.totals["vector_stores"] = _vector_stores(a, self.analyzer)
            attach_hosted_state(a, ledger_made)
        attach_cost(a, self.options.per_month, self.options.budget, self.analyzer.bill)
        a.complete = True

    def run_to_end(self) -> Analysis:
        """The whole analysis; its batches are not read, so no report is made for them
        (the analysis's `turns` are the analyzer's reports, made when read)."""
        self.batch_turns = False
        for _ in self.run():
            pass
        return self.analysis

    def fork_workers(self, then: Callable[[], object] | None = None) -> bool:
        """Fork this read's worker processes now, while the caller has one thread (the
        inspector, before its event loop starts threads): its load runs in a thread, where
        they could only start as new interpreters, each importing traceview before its
        first chunk. `then` runs in each worker as it starts. False: none were forked (a
        small capture, or threads already)."""
        return self.loader.fork_workers(then)


def analyze(paths_or_capture: list[str] | str | Capture,
            options: Options | None = None, *, pricing: Pricing | None = None,
            totals: bool = True) -> Analysis:
    """Read and analyse a capture in one call (the headless report uses this).

    Given an already loaded Capture, its turns are analysed without reading it again.
    `pricing` and `totals` as for `Session` (paths only).
    """
    if not isinstance(paths_or_capture, Capture):
        return Session(paths_or_capture, options, pricing=pricing, totals=totals,
                       first_rows=False).run_to_end()
    cap = paths_or_capture
    analyzer = Analyzer(options or Options(), read=cap.read, exchanges=cap.exchanges,
                        problem=partial(_problem, cap))
    analyzer.add_all(cap.turns, cap.sources, None)
    a = Analysis(cap, problems=cap.problems, pricing=_pricing_info(analyzer),
                 options=(options or Options()).to_dict())
    a.turns = analyzer.reports
    a.conversations = analyzer.conversations()
    analyzer.release()
    _attach_exchanges(a)
    a.totals = analyzer.totals.to_dict()
    a.totals["vector_stores"] = _vector_stores(a, analyzer)
    a.pricing_table = analyzer.pricing
    attach_hosted_state(a)
    a.complete = True
    return a


def _take(held: list[Analyzer], source: int, made: Any) -> None:
    """A worker's halves of its chunk's accounts, kept until their turns. Handed to the
    loader with the analyzer alone: a method of the session would make the session and its
    loader a cycle, so the reader's pairing state and the analyzer's running state would
    outlive the analysis until a collection ran (the report's peak)."""
    accounts = held[0].accounts
    if accounts is not None:
        accounts.take(source, made)


def _problem(cap: Capture, source: int, line: int, kind: str, message: str) -> None:
    name = cap.sources[source] if 0 <= source < len(cap.sources) else "?"
    cap.problems.append(Problem(name, line, kind, message))


def _pricing_info(analyzer: Analyzer) -> dict[str, Any]:
    p = analyzer.pricing
    return {"origin": p.origin, "taken": p.taken, "storage": p.storage}


def _vector_stores(a: Analysis, analyzer: Analyzer) -> dict[str, Any]:
    """Vector stores the capture created: their storage is billed per GB-day while they
    exist, which the capture cannot size; the rate is shown beside the count."""
    created = sum(1 for e in a.capture.exchanges
                  if e.method == "POST" and e.path.rstrip("/") == "/v1/vector_stores")
    fee = analyzer.pricing.storage.get("vector_store")
    return {"created": created, "storage_fee": fee if created and isinstance(fee, dict) else None}


def _attach_exchanges(a: Analysis) -> None:
    by_conv = {c.id: c for c in a.conversations if c.id}
    for ex in a.capture.exchanges:
        if ex.conversation_id and ex.conversation_id in by_conv:
            by_conv[ex.conversation_id].exchanges.append(ex.index)
