"""Facts on every core (issue #11): chunks, workers that cannot start, stable signatures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from traceview.analysis.session import analyze
from traceview.capture import load, parallel
from traceview.capture.facts import signature
from traceview.report.json_out import render_json

ROOT = Path(__file__).parent.parent.parent
SAMPLE = str(ROOT / "sample_traces" / "service_day.jsonl")


def test_chunks_cover_the_file_and_end_at_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 50 + b'{"cut": ')  # last line without a newline
    size = path.stat().st_size
    ranges = parallel.split(str(path), size, 20)
    assert ranges[0][0] == 0 and ranges[-1][1] == size
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:], strict=False))
    data = path.read_bytes()
    assert all(data[end - 1:end] == b"\n" for _, end in ranges[:-1])
    lines = [x for s, e in ranges for x in parallel.extract(str(path), s, e)[0]]
    assert len(lines) == 51 and lines[-1][1] is False  # the cut line arrives as cut
    assert lines[-1][2][:2] == ("problem", "truncated_line")


def _report(monkeypatch: pytest.MonkeyPatch, workers: str) -> bytes:
    monkeypatch.setenv("TRACEVIEW_WORKERS", workers)
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "3000")
    return render_json(analyze(SAMPLE))


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker pool, as a load from a thread (the inspector's) uses, not forked children
    (capture/children.py, tests/core/test_forked_workers.py)."""
    monkeypatch.setattr(parallel, "fork_safe", lambda: False)
    # A small sample is read in-process before a pool is up: wait for it here.
    monkeypatch.setattr(parallel.Extractor, "read_while_starting", False)


@pytest.mark.usefixtures("pool")
def test_a_load_without_workers_reads_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where worker processes cannot start, every chunk is read in-process: same report."""
    want = _report(monkeypatch, "1")

    class NoPool:
        def __init__(self, *_: object, **__: object) -> None:
            raise OSError("no processes here")

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", NoPool)
    assert _report(monkeypatch, "2") == want


@pytest.mark.usefixtures("pool")
def test_a_pool_that_breaks_mid_load_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    want = _report(monkeypatch, "1")
    real = parallel.ProcessPoolExecutor
    calls = {"n": 0}

    class Breaking(real):  # type: ignore[misc, valid-type]
        def submit(self, *a: object, **k: object):  # type: ignore[no-untyped-def, override]
            calls["n"] += 1
            if calls["n"] > 3:
                raise RuntimeError("cannot schedule new futures after shutdown")
            return super().submit(*a, **k)

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", Breaking)
    assert _report(monkeypatch, "2") == want
    assert calls["n"] > 3


def test_a_worker_sends_its_facts_as_columns() -> None:
    """A chunk's facts come back as arrays (one pickled buffer per column), each line
    naming its row; the main table appends them and the turns read the same numbers."""
    import pickle
    from array import array

    size = Path(SAMPLE).stat().st_size
    lines, facts = parallel.extract(SAMPLE, 0, size)
    rows = [pre[8] for _, _, pre in lines if pre and pre[0] == "req" and pre[8] is not None]
    assert rows == list(range(facts.requests.rows)) and len(rows) > 10
    assert isinstance(facts.responses.cols["input_tokens"], array)
    back = pickle.loads(pickle.dumps(facts))
    one = load(SAMPLE)
    first = next(t for t in one.turns if t.res is not None)
    got = back.responses.cols["input_tokens"][0]
    assert got == first.res.input_tokens and got > 0


def test_signatures_agree_across_processes() -> None:
    """hash() of a str differs per process; a signature made in a worker must match."""
    code = "from traceview.capture.facts import signature; print(signature('water damage'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": "random"}).stdout.strip()
    assert int(other) == signature("water damage")


@pytest.mark.usefixtures("pool")
def test_chunks_read_a_bom_and_an_over_long_line_as_one_process_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from traceview.capture import capture

    sample = (ROOT / "sample_traces" / "service_day.jsonl").read_bytes().splitlines(True)
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"".join(sample[:6]) + b'{"x": "' + b"a" * 5000
                     + b'"}\n' + b"".join(sample[6:]))
    monkeypatch.setattr(capture, "MAX_LINE_BYTES", 4096)

    def report(workers: str) -> bytes:
        monkeypatch.setenv("TRACEVIEW_WORKERS", workers)
        monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
        monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "2000")
        return render_json(analyze(str(path)))

    want = report("1")
    assert b"line_too_long" in want

    class NoPool:  # every chunk read in this process, where the patched limit applies
        def __init__(self, *_: object, **__: object) -> None:
            raise OSError("no processes here")

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", NoPool)
    assert report("2") == want


OTHER_FIXTURES = sorted(
    [str(p) for p in (ROOT / "tests/fixtures/formats").iterdir() if p.suffix != ".md"]
    + [str(p) for p in (ROOT / "tests/provider/fixtures").glob("*.jsonl")]
    + [str(p) for p in (ROOT / "tests/ui/fixtures").glob("*.jsonl")])


@pytest.mark.parametrize("path", OTHER_FIXTURES, ids=lambda p: Path(p).name)
def test_every_other_fixture_reads_the_same_with_workers(
        path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The golden test pins the real fixtures and samples in both modes; the importers'
    inputs (HAR, Batch, OTLP, …) and the other fixtures are compared between the modes."""
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    one = render_json(analyze(path))
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "700")
    assert render_json(analyze(path)) == one
    assert b'"turns"' in one


def test_a_load_from_a_thread_uses_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inspector loads from a thread, where forking is unsafe: its workers are the
    pool's (forkserver), and the report is the same."""
    import threading

    want = _report(monkeypatch, "1")
    real = parallel.ProcessPoolExecutor
    calls = {"n": 0}

    class Counting(real):  # type: ignore[misc, valid-type]
        def submit(self, *a: object, **k: object):  # type: ignore[no-untyped-def, override]
            calls["n"] += 1
            return super().submit(*a, **k)

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", Counting)
    monkeypatch.setattr(parallel.Extractor, "read_while_starting", False)
    got: list[bytes] = []
    thread = threading.Thread(target=lambda: got.append(_report(monkeypatch, "2")))
    thread.start()
    thread.join()
    assert got == [want]
    assert calls["n"] > 3


def test_the_load_reads_on_while_the_pool_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A load from a thread never waits for the pool's start-up (a forkserver and its
    imports, 0.3-0.7 s): until the workers answer, the load thread reads the chunks
    itself. Here the pool is up only once every chunk is read: all are read in-process,
    and the report is the same."""
    import threading

    want = _report(monkeypatch, "1")
    monkeypatch.setattr(parallel, "fork_safe", lambda: False)
    chunks = len(parallel.split(SAMPLE, Path(SAMPLE).stat().st_size, 3000))
    assert chunks > 5
    every_chunk_read = threading.Event()
    here = parallel._here
    read: list[object] = []

    def counting_here(task: parallel.Task) -> object:
        read.append(task)
        if len(read) == chunks:
            every_chunk_read.set()
        return here(task)

    def slow_warm(self: parallel.Extractor) -> None:
        every_chunk_read.wait()

    monkeypatch.setattr(parallel, "_here", counting_here)
    monkeypatch.setattr(parallel.Extractor, "_warm", slow_warm)
    got: list[bytes] = []
    thread = threading.Thread(target=lambda: got.append(_report(monkeypatch, "2")))
    thread.start()
    thread.join()
    assert got == [want]
    assert len(read) == chunks
