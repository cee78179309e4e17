"""Arbitrary bytes and mutated real captures never raise out of the reader."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from traceview.analysis import analyze

REAL = sorted((Path(__file__).parent.parent / "fixtures" / "real").glob("*.jsonl"))
SMALL = [p for p in REAL if p.stat().st_size < 40_000]


def _check(data: bytes) -> None:
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
        f.write(data)
        f.flush()
        a = analyze(f.name)
        a.to_report()
        assert len(data) == Path(f.name).stat().st_size  # never modified
    for p in a.problems:
        assert isinstance(p.line, int) and p.line >= 1
        assert p.message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4000))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    _check(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SMALL), st.data())
def test_mutated_real_captures_never_raise(path: Path, data: st.DataObject) -> None:
    raw = bytearray(path.read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        op = data.draw(st.sampled_from(["flip", "cut", "dup", "drop", "insert"]))
        if not raw:
            break
        i = data.draw(st.integers(0, len(raw) - 1))
        if op == "flip":
            raw[i] = data.draw(st.integers(0, 255))
        elif op == "cut":
            del raw[i:]
        elif op == "dup":
            j = data.draw(st.integers(i, min(len(raw), i + 400)))
            raw[i:i] = raw[i:j]
        elif op == "drop":
            j = data.draw(st.integers(i, min(len(raw), i + 400)))
            del raw[i:j]
        else:
            raw[i:i] = data.draw(st.sampled_from(
                [b"\n", b"null", b'{"dir":"res"}', b'"\xff"', b"[", b'{"dir":"req","body":1}']))
    _check(bytes(raw))
