"""Messages the load worker posts to the app.

The worker thread never touches a widget: it only posts these, and the app's handlers
(running on the event loop) own all UI state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from traceview.analysis.seams import AnalysisView, ProblemRow, TurnRow


class TurnsLoaded(Message):
    """A batch of newly finished TurnReports (each turn arrives exactly once)."""

    def __init__(self, turns: list[TurnRow]) -> None:
        super().__init__()
        self.turns = turns


class ProblemsFound(Message):
    """Problems found in the capture since the last batch."""

    def __init__(self, problems: list[ProblemRow]) -> None:
        super().__init__()
        self.problems = problems


class LoadProgress(Message):
    """How far the load got; only the newest one matters, so queued ones coalesce."""

    def __init__(self, bytes_read: int, total_bytes: int | None, lines: int) -> None:
        super().__init__()
        self.bytes_read = bytes_read
        self.total_bytes = total_bytes
        self.lines = lines

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LoadProgress)


class LoadFinished(Message):
    """The load ended: ``analysis`` is complete, or ``error`` says why it stopped."""

    def __init__(self, analysis: AnalysisView | None, error: str | None = None) -> None:
        super().__init__()
        self.analysis = analysis
        self.error = error


class BodiesLoaded(Message):
    """The redacted request and response records of one turn, re-read from the capture."""

    def __init__(self, turn_index: int, request: Any, response: Any, error: str | None) -> None:
        super().__init__()
        self.turn_index = turn_index
        self.request = request
        self.response = response
        self.error = error


class DiffReady(Message):
    """The diff worker finished: ``outcome`` is a ``diff_worker.DiffOutcome``."""

    def __init__(self, outcome: Any) -> None:
        super().__init__()
        self.outcome = outcome


class BodyMatches(Message):
    """The body-search worker's progress: turns (by index) whose re-read, redacted bodies
    hold ``query``, how many turns it has read, and whether it has finished."""

    def __init__(self, query: str, indices: list[int], read: int, total: int,
                 done: bool) -> None:
        super().__init__()
        self.query = query
        self.indices = indices
        self.read = read
        self.total = total
        self.done = done


class ObjectChecked(Message):
    """The objects screen's live check: the provider's answer about one object
    (`provider.objects_check.each_check`), the ``done``-th of ``total``."""

    def __init__(self, answer: dict[str, Any], done: int, total: int) -> None:
        super().__init__()
        self.answer = answer
        self.done = done
        self.total = total


class ObjectsCheckEnded(Message):
    """The live check ended: every answer, or ``error`` saying why it stopped (no key, the
    provider unreachable or refusing the key) — then nothing can be written."""

    def __init__(self, answers: list[dict[str, Any]] | None, error: str | None) -> None:
        super().__init__()
        self.answers = answers
        self.error = error
