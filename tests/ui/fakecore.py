"""A tiny stand-in for the core's Session, implementing the Protocols the inspector is
typed against (traceview/analysis/seams.py; mypy checks it at the end of this file).

Lets the UI be driven with fixed reports (and hostile text) without the filesystem.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any


@dataclass
class FakeTurn:
    index: int
    line: int
    user_text: str | None
    request_bytes: int | None
    input_tokens: int | None
    cumulative_input_tokens: int | None
    conversation: str | None = "conv_68a1f2"
    conversation_key: str = "conv_68a1f2"
    api: str = "responses"
    status: str = "completed"
    source: str = "claims.jsonl"
    owned_state_bytes: int | None = 34120
    cached_tokens: int | None = 0
    output_tokens: int | None = 290
    reasoning_tokens: int | None = 0
    elapsed_ms: int | None = 2230
    expected_input: int | None = None
    unexplained_tokens: int | None = None
    tools_offered: list[str] = field(default_factory=list)
    hosted_calls: list[dict[str, Any]] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)
    cost_usd: float | None = 0.0123
    user_words: int | None = 4
    model: str | None = "gpt-x"
    attribution: dict[str, Any] | None = None
    explanation: list[str] = field(default_factory=list)


@dataclass
class FakeRef:
    index: int
    dir: str


@dataclass
class FakeCaptureTurn:
    index: int
    request: FakeRef | None
    response: FakeRef | None


@dataclass
class FakeProblem:
    source: str
    line: int
    kind: str
    message: str


@dataclass
class FakeProgress:
    bytes_read: int
    total_bytes: int | None
    lines: int
    done: bool


@dataclass
class FakeBatch:
    turns: list[Any]
    problems: list[Any]
    progress: FakeProgress


@dataclass
class FakeConversation:
    key: str
    id: str | None
    kind: str
    turns: list[int]
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    markers: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FakeAnalysis:
    turns: list[Any]
    conversations: list[Any]
    totals: dict[str, Any]
    problems: list[Any]


class FakeCapture:
    def __init__(self, turns: list[FakeTurn], bodies: dict[int, tuple[Any, Any]]) -> None:
        self.sources = ["sample_traces/claims.jsonl"]
        self.turns = [
            FakeCaptureTurn(t.index, FakeRef(t.index, "req"), FakeRef(t.index, "res"))
            for t in turns
        ]
        self._bodies = bodies

    def read(self, ref: FakeRef) -> Any:
        req, res = self._bodies.get(ref.index, (None, None))
        return req if ref.dir == "req" else res


class FakeSession:
    def __init__(self, turns: list[FakeTurn], conversations: list[FakeConversation],
                 problems: Any = (), bodies: dict[int, tuple[Any, Any]] | None = None,
                 batch_size: int = 2, sources: list[str] | None = None) -> None:
        self.turns = turns
        self.conversations = conversations
        self.problems = list(problems)
        self.capture = FakeCapture(turns, bodies or {})
        if sources:
            self.capture.sources = sources
        self.batch_size = batch_size
        self.analysis: FakeAnalysis | None = None

    def run(self) -> Iterator[FakeBatch]:
        total = len(self.turns) * 1000
        for start in range(0, len(self.turns), self.batch_size):
            chunk = self.turns[start : start + self.batch_size]
            problems = self.problems if start == 0 else []
            done = start + self.batch_size >= len(self.turns)
            yield FakeBatch(chunk, problems, FakeProgress((start + len(chunk)) * 1000, total,
                                                          start + len(chunk), done))
        self.analysis = FakeAnalysis(
            self.turns,
            self.conversations,
            {"turns": len(self.turns), "input_tokens": sum(t.input_tokens or 0 for t in self.turns),
             "cost_usd": 0.05},
            self.problems,
        )


EXPLANATION_3 = [
    "Sent 301 B (≈ 9 words); billed 6,110 input tokens.",
    "≈ 3,970 tokens arrived without a request — consistent with the file_search results "
    "deposited on turn 2, which were not captured (the request lacked "
    'include=["file_search_call.results"]).',
]


def claims_session(**kw) -> FakeSession:
    fs = {"type": "file_search_call", "id": "fs_01", "status": "completed", "evidence": "missing",
          "include": "file_search_call.results", "queries": ["accidental damage cover"]}
    turns = [
        FakeTurn(1, 1, "My washing machine flooded the kitchen", 412, 1210, 1210,
                 output_tokens=380, elapsed_ms=2104),
        FakeTurn(2, 3, "Is accidental damage covered?", 398, 1690, 2900, unexplained_tokens=60,
                 hosted_calls=[fs], markers=["evidence_missing"], elapsed_ms=5812,
                 expected_input=1630),
        FakeTurn(3, 5, "What's the excess on my policy for this?", 301, 6110, 9010,
                 cached_tokens=1024, unexplained_tokens=3970, expected_input=2140,
                 markers=["deposit"], explanation=EXPLANATION_3,
                 attribution={"turn": 2, "hosted_calls": ["fs_01"]}),
        FakeTurn(4, 7, "Summarise the claim", 312, 6580, 15590, cached_tokens=6016,
                 unexplained_tokens=40, output_tokens=510, hosted_calls=[fs],
                 markers=["evidence_missing"], elapsed_ms=6903, expected_input=6540),
    ]
    conv = FakeConversation("conv_68a1f2", "conv_68a1f2", "conversation", [1, 2, 3, 4],
                            15590, 1470, 0.05, {"deposit": 1, "evidence_missing": 2})
    bodies = {
        3: (
            {"dir": "req", "body": {"model": "gpt-x", "conversation": "conv_68a1f2",
                                    "input": "What's the excess on my policy for this?"}},
            {"dir": "res", "elapsed_ms": 2230,
             "body": {"id": "resp_3", "object": "response", "status": "completed",
                      "output": [{"type": "message", "content": [
                          {"type": "output_text", "text": "The excess is £100. " * 3}]}],
                      "image": "A" * 3_000_000,
                      "usage": {"input_tokens": 6110, "output_tokens": 290}}},
        )
    }
    return FakeSession(turns, [conv], bodies=bodies, **kw)


if TYPE_CHECKING:
    from traceview.analysis.seams import (
        AnalysisView,
        BatchView,
        ConversationRow,
        ProblemRow,
        SessionView,
        TurnRow,
    )

    def _implements_the_seams(
        session: FakeSession, turn: FakeTurn, conversation: FakeConversation,
        analysis: FakeAnalysis, batch: FakeBatch, problem: FakeProblem,
    ) -> tuple[SessionView, TurnRow, ConversationRow, AnalysisView, BatchView, ProblemRow]:
        """mypy fails here if the fake core drifts from the Protocols the UI reads."""
        return session, turn, conversation, analysis, batch, problem
