"""Reports written one after another in one process read no state another report left.

The writer keeps caches between rows (a turn table's bound columns, the last turn priced,
dates by day, grouped numbers, safe hosted cells) and copies template rows: a cache keyed
too loosely, or a template value shared and mutated, would give one turn another's value,
or one capture another's. The inspector opens several captures in one process and the
tests run many; each report must be the one a fresh process writes, byte for byte.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.fixtures_shared import ROOT
from tests.hostile.corpus import (
    ESCAPES,
    KEY_SHAPES,
    escape_capture,
    secret_capture,
    traceview,
    write_jsonl,
)
from traceview.analysis.follow import FollowSession
from traceview.analysis.session import analyze
from traceview.cli import main
from traceview.report.json_out import ROWS_A_PART

# Rows written by forked workers past 2 turns (capture/handoff.py `written`).
FORK = {"TRACEVIEW_WORKERS": "2", "TRACEVIEW_PARALLEL_MIN_ROWS": "2"}


def _many(n: int, secret: str) -> list[dict[str, Any]]:
    """A chain of `n` hosted-shape turns (rows cross the writer's batches of ROWS_A_PART,
    which are also the forked ranges), the secret in user text, a model name and an error
    near the seams."""
    recs: list[dict[str, Any]] = []
    for i in range(n):
        hot = i in (0, ROWS_A_PART - 1, ROWS_A_PART, ROWS_A_PART + 1, n - 1)
        body: dict[str, Any] = {
            "object": "response", "id": f"resp_{i}", "model": f"gpt-4o {secret}" if hot
            else "gpt-4o", "created_at": 1764480000 + 37 * i, "status": "completed",
            "output": [{"type": "message", "id": f"m{i}", "role": "assistant",
                        "content": [{"type": "output_text", "text": "ok"}]},
                       {"type": "web_search_call", "id": f"ws{i}", "status": "completed"}],
            "usage": {"input_tokens": 100 + 7 * i, "output_tokens": 5 + i % 3,
                      "input_tokens_details": {"cached_tokens": (3 * i) % 90}}}
        if i % 97 == 5:
            body["error"], body["status"] = {"code": "x", "message": f"e {secret}"}, "failed"
        recs += [{"dir": "req", "id": f"r{i}", "body": {
                     "model": "gpt-4o", "store": i % 2 == 0, "input": f"q{i} {secret}" if hot
                     else f"q{i % 5}", "previous_response_id": f"resp_{i - 1}" if i else None}},
                 {"dir": "res", "id": f"r{i}", "elapsed_ms": 10 + i % 17, "body": body}]
    return recs


def _in_process(path: Path, fmt: str) -> bytes:
    out = io.BytesIO()
    real_out, real_err = sys.stdout, sys.stderr
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    sys.stderr = io.StringIO()
    try:
        main(["report", str(path), "--format", fmt, "--width", "160"])
        sys.stdout.flush()
    finally:
        wrapper, sys.stdout, sys.stderr = sys.stdout, real_out, real_err
        wrapper.detach()  # type: ignore[attr-defined]
    return out.getvalue()


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[Path, str], bytes]:
    """Each capture's report (json, text) as a fresh process writes it, once for the module:
    the reports written in this process, with or without forked workers, are held to it."""
    where = tmp_path_factory.mktemp("isolation")
    shape = KEY_SHAPES[1][1]  # an sk-proj key
    captures = [
        write_jsonl(where / "many.jsonl", _many(2 * ROWS_A_PART + 12, shape)),
        ROOT / "tests/fixtures/real/dotnet_web_search_reasoning_cached.jsonl",
        write_jsonl(where / "escapes.jsonl",
                    escape_capture(ESCAPES["osc8_link"] + KEY_SHAPES[9][1])),
        write_jsonl(where / "secret.jsonl", secret_capture(KEY_SHAPES[6][1])),
        ROOT / "tests/fixtures/real/pai_conversation_explicit_and_auto.jsonl",
    ]
    return {(p, fmt): traceview("report", str(p), "--format", fmt, "--width", "160",
                                env={"TRACEVIEW_WORKERS": "1"}, process=True).stdout
            for fmt in ("json", "text") for p in captures}


@pytest.mark.parametrize("env", [{"TRACEVIEW_WORKERS": "1"}, FORK], ids=["single", "forked"])
def test_reports_in_one_process_equal_fresh_processes(fresh: dict[tuple[Path, str], bytes],
                                                      env: dict[str, str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    captures = list(dict.fromkeys(p for p, _ in fresh))
    # Each capture twice, others in between: the second of a pair follows other reports.
    order = [*captures, *reversed(captures)]
    for fmt in ("json", "text"):
        for p in order:
            got = _in_process(p, fmt)
            assert got == fresh[p, fmt], f"{p.name} ({fmt}) differs after other reports"
            assert KEY_SHAPES[1][2].encode() not in got


def test_rows_of_two_open_captures_read_interleaved(tmp_path: Path) -> None:
    """Two analyses alive at once (the inspector with two captures open): rows asked for
    alternately, each the row its own capture gives alone."""
    a = analyze([str(write_jsonl(tmp_path / "a.jsonl", _many(40, "alpha")))])
    b = analyze([str(ROOT / "tests/fixtures/real/dotnet_web_search_reasoning_cached.jsonl")])
    alone_a = [t.to_dict() for t in a.turns]
    alone_b = [t.to_dict() for t in b.turns]
    for i in range(len(a.turns)):
        assert a.turns[i].to_dict() == alone_a[i]
        j = i % len(b.turns)
        assert b.turns[j].to_dict() == alone_b[j]
        assert b.turns[j].row(explained=False, whole=False)["model"] == alone_b[j]["model"]
    assert alone_a[7]["user_text"] == "q2" and alone_a[7]["input_tokens"] == 149


def test_rows_of_a_followed_capture_after_it_grows(tmp_path: Path) -> None:
    """A followed capture's table grows after rows were written from it (`--follow`): the
    new turns' rows, and the old ones', are those of a fresh read of the whole file."""
    recs = _many(40, "alpha")
    path = tmp_path / "f.jsonl"
    write_jsonl(path, recs[:30])
    session = FollowSession([str(path)])
    for _ in session.run():
        pass
    first = [t.to_dict() for t in session.analysis.turns]
    assert len(first) == 15
    with open(path, "ab") as fh:
        for r in recs[30:]:
            fh.write(orjson.dumps(r) + b"\n")
    assert session.poll() is not None
    grown = [t.to_dict() for t in session.analysis.turns]
    assert grown == [t.to_dict() for t in analyze([str(path)]).turns]
    assert grown[:15] == first
