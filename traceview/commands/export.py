"""``traceview export CAPTURE... --to KIND [TARGET]``: exit 0, 1 problems while reading,
2 unusable arguments or output. Damaged lines are named on stderr, as ``sql`` does."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from traceview.capture.model import Problem
from traceview.capture.sources import (
    CAPTURE_SUFFIXES,
    GZIP_MAGIC,
    SourceError,
    expand_paths,
    refuse_device,
)
from traceview.commands import EXIT_PROBLEMS
from traceview.commands.numbers import POSITIVE
from traceview.commands.options import UsageError, add_analysis_options, options_from
from traceview.commands.outputs import (
    PathRefused,
    refuse_output,
    replacing,
    replacing_entries,
)
from traceview.export import MissingExtra
from traceview.export.targets import TARGETS, engine_errors, export
from traceview.report.problems import NAMED_ON_STDERR, WHOLE_FILE, not_captures
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible

if TYPE_CHECKING:
    from traceview.analysis.options import Options




def say(command: str, message: str) -> None:
    print(f"traceview {command}: {visible(redact_text(str(message)))}", file=sys.stderr)


def failure(exc: BaseException) -> str:
    """The one line a failure is said in: a system error names its path and the system's
    reason, as a refused path does, not Python's "[Errno 20] …" form."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: cannot be used ({exc.strerror})"
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def add_arguments(p: argparse.ArgumentParser) -> None:
    # "*", not "+": `--to KIND [TARGET]` takes every word after it, so captures written
    # after it arrive there (run() sorts them out) rather than as a missing CAPTURE.
    p.add_argument("paths", nargs="*", metavar="CAPTURE",
                   help="capture files or directories of captures")
    p.add_argument("--to", nargs="+", required=True, metavar=("KIND", "TARGET"),
                   help="parquet | duckdb | csv | otlp, optionally followed by the output "
                        "(same as -o): --to duckdb fleet.duckdb, --to otlp spans.json")
    p.add_argument("-o", "--output", metavar="PATH", help="output directory (parquet, csv) "
                   "or file (duckdb, otlp)")
    p.add_argument("--force", action="store_true", help="replace an existing output file "
                   "(never one of the captures read)")
    p.add_argument("--partition-by", default="date", metavar="KEYS",
                   help="parquet partitions: date, or date,model (default date)")
    p.add_argument("--otlp-endpoint", metavar="URL", help="also post the spans to this "
                   "OTLP/HTTP traces endpoint (e.g. http://localhost:4318/v1/traces)")
    p.add_argument("--jobs", type=POSITIVE, default=1, metavar="N", help="parquet: export a "
                   "directory in N local worker processes (default 1)")
    p.add_argument("--dask", metavar="ADDRESS", help="run the parquet export on a Dask "
                   "cluster: a scheduler address, or local:N for N local workers")
    add_analysis_options(p)


def _target(ns: argparse.Namespace) -> tuple[str, str | None]:
    kind, *rest = ns.to
    if kind not in TARGETS:
        raise ValueError(f"--to {kind}: choose one of {', '.join(TARGETS)}")
    if len(rest) > 1 or (rest and ns.output):
        raise ValueError("give the output once: --to KIND TARGET or -o TARGET")
    out = rest[0] if rest else ns.output
    if out is None and not (kind == "otlp" and ns.otlp_endpoint):
        raise ValueError(f"--to {kind} needs an output: -o PATH")
    if ns.dask and kind != "parquet":
        raise ValueError("--dask runs the parquet export only")
    if ns.otlp_endpoint and kind != "otlp":
        raise ValueError("--otlp-endpoint goes with --to otlp")
    return kind, out


def _captures_after_to(ns: argparse.Namespace) -> None:
    """`export --to parquet trace.jsonl -o out/`: argparse gives the capture to --to (it
    takes every word after it); with the output given by -o, those words are the
    captures. UsageError when no capture is given at all."""
    if ns.paths:
        return
    kind, *rest = ns.to
    if rest and ns.output:
        ns.paths, ns.to = rest, [kind]
        return
    raise UsageError("no capture given: name the capture(s) first, as in "
                     "`traceview export trace.jsonl --to parquet -o out/`")


def run(ns: argparse.Namespace) -> int:
    from traceview.export.sinks import ExportError

    try:
        _captures_after_to(ns)
        kind, out = _target(ns)
        options = options_from(ns)
        files = expand_paths(ns.paths)
        missing = next((f for f in files if f != "-" and not os.path.exists(f)), None)
        if missing is not None:  # nothing to export from it: refused before anything is made
            raise SourceError(f"{missing}: no such file or directory")
        for f in files:  # nor from a device: said, exit 2, nothing written
            if f != "-":
                refuse_device(f)
        partition_by = tuple(k.strip() for k in ns.partition_by.split(",") if k.strip())
        if out is not None:
            _refuse(kind, out, [*ns.paths, *files], ns.force)
    except (ValueError, UsageError, SourceError, PathRefused) as exc:
        say("export", str(exc))
        return 2
    foreign = no_capture(files, options.from_format)
    if foreign:
        for line in foreign:
            say("export", line)
        return 2
    named: list[Problem] = []
    whole: list[Problem] = []  # files rejected whole: at most one problem a file

    def keep(cols: dict[str, list[Any]]) -> None:  # the first few, to name on stderr
        rows = list(zip(cols["source"], cols["line"], cols["kind"], cols["message"],
                        strict=True))
        named.extend(Problem(*row) for row in islice(rows, NAMED_ON_STDERR - len(named)))
        whole.extend(Problem(*row) for row in rows if row[2] in WHOLE_FILE)

    def accept(counts: dict[str, int]) -> None:
        """_NotCaptures when the inputs judged only once read (stdin, a pipe, a gzip file)
        held no capture either: refused like a plain file, the output left as it was."""
        if not counts["turns"] and counts["problems"] == len(whole):
            lines = not_captures(whole, read_anything=False)
            if lines:
                raise _NotCaptures(lines)

    try:
        counts = _written(files, kind, out, options, ns, partition_by, keep, accept)
    except _NotCaptures as exc:
        for line in exc.lines:
            say("export", line)
        return 2
    except Exception as exc:  # an engine's errors are known once it is loaded
        if not isinstance(exc, (MissingExtra, ExportError, OSError, ValueError,
                                *engine_errors())):
            raise
        say("export", failure(exc))
        return 2
    where = out if out else ns.otlp_endpoint
    say("export", f"{counts['turns']:,} turns, {counts['conversations']:,} conversations, "
                  f"{counts['problems']:,} problems from {len(files):,} capture(s) -> {where}")
    if counts["problems"]:
        from traceview.report.problems import say_problems

        say_problems("traceview export", named, counts["problems"],
                     listed_in="`traceview report`" if kind == "otlp"
                     else f"the problems table of {where}")
        return EXIT_PROBLEMS
    return 0


class _NotCaptures(Exception):
    """No input was a capture, found once the export had read them."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines[0])
        self.lines = lines


def no_capture(files: list[str], from_format: str | None) -> list[str]:
    """When none of ``files`` is a capture (a text file, a JSON array): a line per file
    saying why, as `report` says them; else empty. Judged before the output is made, a
    file at a time until one may hold traffic: an export of nothing was an empty output
    and exit 1. Standard input and pipes cannot be read twice, and a gzip file is judged
    only once decompressed: those are judged by the export itself (`run`'s `accept`)."""
    from traceview.capture.capture import opening_problems

    found: list[Problem] = []
    for f in files:
        problems = opening_problems(f, from_format) if _plain_file(f) else []
        if not problems:
            return []
        found.extend(problems)
    return not_captures(found, read_anything=False)


def _plain_file(path: str) -> bool:
    """A regular file that is not gzip: one whose first bytes can be read twice, cheaply."""
    if path == "-":
        return False
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # never opened: a pipe's writer would go
            return False
        with open(path, "rb") as handle:
            return handle.read(2) != GZIP_MAGIC
    except OSError:
        return True  # the read names it


def _refuse(kind: str, out: str, inputs: list[str], force: bool) -> None:
    """PathRefused when the export would write over a capture or a file it did not make.
    A Parquet folder replaces only a previous export's tables (sinks.prepare_dir)."""
    from traceview.export.sinks import CSV_FILES

    if kind == "parquet":
        refuse_output(out, inputs, directory=True)
        inside = [p for p in inputs if _under(p, out)]
        if inside:
            raise PathRefused(f"{out}: holds the input {inside[0]}; choose another output")
    elif kind == "csv":
        refuse_output(out, inputs, force=force, directory=True, produced=CSV_FILES)
    else:
        if out.endswith(("/", os.sep)):  # a directory's name, written as a file without it
            example = FILE_EXAMPLE.get(kind, "FILE")
            raise PathRefused(f"{out}: ends in a slash, so names a directory; --to {kind} "
                              f"writes one file: give its path (-o {example})")
        refuse_output(out, inputs, force=force)
        _not_read_back(out, inputs)


FILE_EXAMPLE = {"duckdb": "fleet.duckdb", "otlp": "spans.json"}


def _not_read_back(out: str, inputs: list[str]) -> None:
    """PathRefused when a file output would sit inside an input directory with a name that
    directory's next read takes as a capture: OTLP spans written into the captures' folder
    were read back as a second copy of every turn (7 turns became 14, the cost doubled)."""
    if not out.lower().endswith(CAPTURE_SUFFIXES):
        return
    folders = [p for p in inputs if os.path.isdir(p) and _under(out, p)]
    if folders:
        raise PathRefused(f"{out}: is inside {folders[0]}, a directory read as captures: the "
                          "next read of it would take these spans as captures too; choose "
                          "a path outside it")


def _under(path: str, folder: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _written(files: list[str], kind: str, out: str | None, options: Options, ns: argparse.Namespace,
             partition_by: tuple[str, ...],
             on_problems: Callable[[dict[str, list[Any]]], None],
             accept: Callable[[dict[str, int]], None]) -> dict[str, int]:
    """The export, a file output written under a temporary name and renamed when whole,
    unless `accept` raises on its counts (the output then stays as it was)."""
    def go(target: str | None) -> dict[str, int]:
        counts = export(files, kind, target, options, partition_by=partition_by,
                        jobs=ns.jobs, dask=ns.dask, otlp_endpoint=ns.otlp_endpoint,
                        on_problems=on_problems)
        accept(counts)
        return counts

    if out is None:
        return go(out)
    if kind in ("parquet", "csv"):  # made whole beside the folder, then moved into it
        if kind == "parquet":
            from traceview.export.sinks import check_dir

            check_dir(Path(out))
        with replacing_entries(out) as folder:
            return go(str(folder))
    with replacing(out) as tmp:
        return go(str(tmp))
