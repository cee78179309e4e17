"""How a command that prints something else than the report says what reading its capture
found, in the report's words: nothing given was a capture (exit 2, a line per file), or
the capture was read with problems (each damaged line named on stderr, exit 1)."""

from __future__ import annotations

import sys
from typing import Any

from traceview.commands import EXIT_OK, EXIT_PROBLEMS
from traceview.report.problems import not_captures, say_problems
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible


def refused(name: str, analysis: Any) -> bool:
    """True, each file said on stderr and the capture closed, when no file given was a
    capture: the command could not do what was asked."""
    lines = not_captures(analysis.problems,
                         bool(analysis.turns or analysis.capture.exchanges))
    if lines:
        analysis.capture.close()
        for line in lines:
            print(f"{name}: {visible(redact_text(line))}", file=sys.stderr)
    return bool(lines)


def told(name: str, analysis: Any) -> int:
    """The exit status of output printed from `analysis`: EXIT_PROBLEMS, each damaged
    line named on stderr, when the capture was read with problems; else EXIT_OK."""
    problems = analysis.problems
    if not problems:
        return EXIT_OK
    say_problems(name, problems, len(problems),
                 listed_in="`traceview report`'s problems")
    return EXIT_PROBLEMS
