"""How a capture's damaged lines are named: one rendering for the text report and for the
commands whose stdout carries other data (``sql``, ``export``), which name the lines on
stderr instead, so every command says which line was skipped and why in the same words."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from traceview.capture.model import Problem
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible

NAMED_ON_STDERR = 20  # beyond this, a count: the full list is in the output's problems table


def problem_line(p: Problem) -> str:
    """``file:line kind: message``, the form an editor or a terminal can jump to."""
    return f"{p.source}:{p.line} {p.kind}: {p.message}"


def read_summary(n: int) -> str:
    return (f"{n:,} problem{'' if n == 1 else 's'} while reading; "
            "everything readable is shown")


def say_problems(name: str, problems: Sequence[Problem], total: int, *,
                 listed_in: str = "the problems table") -> None:
    """On stderr: each of ``problems`` (the first of ``total``) as ``problem_line``, then
    the summary the report ends with. ``listed_in`` says where the rest can be read."""
    for p in problems[:NAMED_ON_STDERR]:
        print(f"{name}: {visible(redact_text(problem_line(p)))}", file=sys.stderr)
    rest = total - min(len(problems), NAMED_ON_STDERR)
    if rest > 0:
        print(f"{name}: … and {rest:,} more, listed in {listed_in}", file=sys.stderr)
    print(f"{name}: {read_summary(total)}", file=sys.stderr)
