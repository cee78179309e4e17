"""How a command that prints something else than the report says what reading its capture
found, in the report's words: nothing given was a capture (exit 2, a line per file), or
the capture was read with problems (each damaged line named on stderr, exit 1)."""

from __future__ import annotations

from typing import Any

from traceview.commands import EXIT_OK, EXIT_PROBLEMS
from traceview.report.problems import refused, say_problems

__all__ = ["refused", "told"]


def told(name: str, analysis: Any) -> int:
    """The exit status of output printed from `analysis`: EXIT_PROBLEMS, each damaged
    line named on stderr, when the capture was read with problems; else EXIT_OK."""
    problems = analysis.problems
    if not problems:
        return EXIT_OK
    say_problems(name, problems, len(problems),
                 listed_in="`traceview report`'s problems")
    return EXIT_PROBLEMS
