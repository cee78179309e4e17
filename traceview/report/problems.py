"""How a capture's damaged lines are named: one rendering for the text report and for the
commands whose stdout carries other data (``sql``, ``export``), which name the lines on
stderr instead, so every command says which line was skipped and why in the same words."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from traceview.analysis.seams import ProblemRow
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible

NAMED_ON_STDERR = 20  # beyond this, a count: the full list is in the output's problems table


def problem_line(p: ProblemRow) -> str:
    """``file:line kind: message``, the form an editor or a terminal can jump to."""
    return f"{p.source}:{p.line} {p.kind}: {p.message}"


def read_summary(n: int) -> str:
    return (f"{n:,} problem{'' if n == 1 else 's'} while reading; "
            "everything readable is shown")


def say_problems(name: str, problems: Sequence[ProblemRow], total: int, *,
                 listed_in: str = "the problems table") -> None:
    """On stderr: each of ``problems`` (the first of ``total``) as ``problem_line``, then
    the summary the report ends with. ``listed_in`` says where the rest can be read."""
    for p in problems[:NAMED_ON_STDERR]:
        print(f"{name}: {visible(redact_text(problem_line(p)))}", file=sys.stderr)
    rest = total - min(len(problems), NAMED_ON_STDERR)
    if rest > 0:
        print(f"{name}: … and {rest:,} more, listed in {listed_in}", file=sys.stderr)
    print(f"{name}: {read_summary(total)}", file=sys.stderr)


# The problems that reject a file whole, before any of its lines is read. Another
# provider's traffic is a capture of the wrong API: a problem, exit 1 (report-contract.md).
WHOLE_FILE = frozenset({"unsupported_format", "not_a_capture"})


def not_captures(problems: Sequence[ProblemRow], read_anything: bool) -> list[str]:
    """When nothing given was a capture (a package.json, a JSON array, a text file): one
    line per file, naming it and why; else empty. Such a run is unusable input, said in
    a line each, rather than an empty report with a problem in it."""
    if read_anything or not problems or any(p.kind not in WHOLE_FILE for p in problems):
        return []
    lines = []
    for p in problems:
        name = p.source.replace("\\", "/").rsplit("/", 1)[-1]
        # The format sniffer names the file too, by its name or as it was given.
        why = p.message.removeprefix(f"{p.source}: ").removeprefix(f"{name}: ")
        lines.append(f"{p.source}: {why}")
    return lines


def refused(name: str, analysis: Any) -> bool:
    """True, each file said on stderr as `name: …` and the capture closed, when no file
    given was a capture (`not_captures`): the command could not do what was asked."""
    lines = not_captures(analysis.problems,
                         bool(analysis.turns or analysis.capture.exchanges))
    if lines:
        analysis.capture.close()
        for line in lines:
            print(f"{name}: {visible(redact_text(line))}", file=sys.stderr)
    return bool(lines)
