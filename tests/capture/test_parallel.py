"""Facts on every core (issue #11): chunks, workers that cannot start, stable signatures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from traceview.analysis.session import analyze
from traceview.capture import load, parallel
from traceview.capture.user_side import signature
from traceview.report.json_out import render_json

ROOT = Path(__file__).parent.parent.parent
SAMPLE = str(ROOT / "sample_traces" / "service_day.jsonl")


def test_chunks_cover_the_file_and_end_at_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 50 + b'{"cut": ')  # last line without a newline
    size = path.stat().st_size
    ranges = list(parallel.split(str(path), size, 20))
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
def threaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers as a load from a thread (the inspector's) starts them: new interpreters
    (spawned), not forked children (tests/capture/test_forked_workers.py)."""
    monkeypatch.setattr(parallel, "fork_safe", lambda: False)


def _no_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """No worker can start."""
    def refused(*_: object, **__: object) -> None:
        raise OSError("no processes here")

    monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor", refused)


def test_a_load_without_workers_reads_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where worker processes cannot start, every chunk is read in-process: same report."""
    want = _report(monkeypatch, "1")
    _no_pool(monkeypatch)
    assert _report(monkeypatch, "2") == want


@pytest.mark.usefixtures("threaded")
def test_a_worker_that_dies_mid_load_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed after a few answers breaks the pool: its tasks, and every later one,
    are read here, and the report is the same."""
    import signal

    want = _report(monkeypatch, "1")
    real = parallel._result
    calls = {"n": 0, "killed": 0}

    def result(task: parallel.Task, future: object) -> object:
        calls["n"] += 1
        if calls["n"] == 3:
            pool = extractors[-1].pool
            assert pool is not None
            victim = next(iter(pool._processes.values()))
            os.kill(victim.pid, signal.SIGKILL)
            victim.join()
            calls["killed"] += 1
        return real(task, future)  # type: ignore[arg-type]

    extractors: list[parallel.Extractor] = []
    real_init = parallel.Extractor.__init__

    def init(self: parallel.Extractor, n: int, *rest: Any) -> None:
        real_init(self, n, *rest)
        extractors.append(self)

    monkeypatch.setattr(parallel, "_result", result)
    monkeypatch.setattr(parallel.Extractor, "__init__", init)
    assert _report(monkeypatch, "2") == want
    assert calls["n"] > 3 and calls["killed"] == 1


def test_a_worker_sends_its_facts_as_columns() -> None:
    """A chunk's facts come back as arrays (one pickled buffer per column), each line
    naming its row; the main table appends them and the turns read the same numbers."""
    import pickle
    from array import array

    size = Path(SAMPLE).stat().st_size
    lines, facts, _ = parallel.extract(SAMPLE, 0, size)
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
    code = "from traceview.capture.user_side import signature; print(signature('water damage'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": "random"}).stdout.strip()
    assert int(other) == signature("water damage")


def test_chunks_read_a_bom_and_an_over_long_line_as_one_process_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sample = (ROOT / "sample_traces" / "service_day.jsonl").read_bytes().splitlines(True)
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"".join(sample[:6]) + b'{"x": "' + b"a" * 5000
                     + b'"}\n' + b"".join(sample[6:]))
    monkeypatch.setattr(parallel, "MAX_LINE_BYTES", 4096)

    def report(workers: str) -> bytes:
        monkeypatch.setenv("TRACEVIEW_WORKERS", workers)
        monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
        monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "2000")
        return render_json(analyze(str(path)))

    want = report("1")
    assert b"line_too_long" in want

    _no_pool(monkeypatch)  # every chunk read in this process, where the limit applies
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


def test_a_load_from_a_thread_uses_spawned_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inspector loads from a thread, where forking is unsafe: its workers are new
    interpreters, nothing is forked, and the report is the same."""
    import threading

    want = _report(monkeypatch, "1")

    def no_fork() -> int:
        raise AssertionError("a process with threads forked")

    got: list[bytes] = []
    thread = threading.Thread(target=lambda: got.append(_report(monkeypatch, "2")))
    monkeypatch.setattr(os, "fork", no_fork)
    thread.start()
    thread.join()
    assert got == [want]


def test_a_lines_facts_become_its_row_and_nothing_else_changes() -> None:
    """as_rows (what a worker sends for a line) is the line's tuple with only its facts
    record replaced by its row number, on every line of a sample, at the tuple's length
    today and at one longer (a field added later takes the general path)."""
    from traceview.capture.lines import Records, as_rows, line_facts

    raws = Path(SAMPLE).read_bytes().splitlines(True)
    for extra in ((), ("added later",)):
        records = Records()
        rows = {"req": 0, "res": 0}
        for raw in raws:
            pre = line_facts(raw, raw.endswith(b"\n"))
            pre = pre + extra if pre is not None and pre[0] in ("req", "res") else pre
            got = as_rows(pre, records)
            if pre is None or pre[0] not in ("req", "res"):
                assert got is pre
                continue
            at = 8 if pre[0] == "req" else 4
            want = list(pre)
            if pre[at] is not None:
                want[at] = rows[pre[0]]
                rows[pre[0]] += 1
            assert got == tuple(want)
        facts = records.facts()
        assert (facts.requests.rows, facts.responses.rows) == (rows["req"], rows["res"]) != (0, 0)


def test_the_first_chunk_may_be_smaller_and_the_rest_keep_their_size(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 50)  # 9 bytes a line
    ranges = list(parallel.split(str(path), path.stat().st_size, 45, first=18))
    # Each range ends at the end of the line its size reaches into.
    assert ranges[:3] == [(0, 27), (27, 81), (81, 135)] and ranges[-1][1] == 450


_HOSTED_STDERR = """
import sys, threading
from traceview.capture import parallel

class Captured:  # Textual's print capture while the inspector runs: no descriptor
    def write(self, text): return len(text)
    def flush(self): pass
    def fileno(self): return -1

sys.stderr = Captured()
path = sys.argv[1]
started = []

def load():
    extractor = parallel.Extractor(2, first_here=False)
    tasks = iter([(0, path, 0, 36), (0, path, 36, 72), (0, path, 72, 127)])
    chunks = [chunk for _, chunk in extractor.run(tasks)]
    started.append((len(extractor.workers), sum(len(c.lines) for c in chunks)))
    extractor.close()

thread = threading.Thread(target=load)
thread.start()
thread.join()
print(started[0])
"""


def test_the_inspectors_load_starts_its_workers_under_a_captured_stderr(
        tmp_path: Path) -> None:
    """The inspector loads from a thread while Textual has replaced sys.stderr with an
    object whose descriptor is -1: its worker pool still starts (it used to fail, and
    every chunk of a large capture was read by the load thread alone). A fresh
    interpreter: the resource tracker it starts outlives the pool."""
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 13 + b'{"b": 22}\n')  # 127 bytes: three chunks at line ends
    out = subprocess.run([sys.executable, "-c", _HOSTED_STDERR, str(path)],
                         capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["(2,", "14)"]
