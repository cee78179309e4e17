"""Write a report's rows on every core: forked children write ranges, the parent streams them.

Once a capture is analysed, writing its rows (building each, explaining it, dumping,
redacting) is a third of a report's time, all of it in one process. A forked child shares
the finished analysis copy-on-write, at no cost of shipping it: each child writes a range of
rows to a private temporary file while the parent writes the first range, then the parent
streams the children's files in order. The bytes are the single-process writer's, range by
range (tests/core/test_golden_report.py pins them with the split forced on).

Forking is used only where it is safe and pays: on a POSIX system with `fork`, with one
thread alive (no worker-pool thread, no UI), more than one worker allowed
($TRACEVIEW_WORKERS, capture/parallel.py) and at least $TRACEVIEW_FORK_MIN_ROWS rows. A child
that fails is not trusted: its range is written again by the parent.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator

from traceview.capture.parallel import workers

MIN_ROWS = 20_000  # below this, a fork and a file cost more than half the rows save
# Bytes per chunk streamed from a child's file (cuts anywhere, mid-character). The parent
# holds a chunk, its decoded text and the output buffer's copy at once: 256 kB chunks put a
# megabyte on the parent's peak, the report's whole peak on the hosted shape (bench/load.py).
READ = 1 << 16


def _min_rows() -> int:
    env = os.environ.get("TRACEVIEW_FORK_MIN_ROWS", "").strip()
    return int(env) if env.isdigit() else MIN_ROWS


def ranges(n: int, rows: int | None = None) -> list[tuple[int, int]]:
    """How `n` items are split: one range (no fork) unless forking is safe and pays for
    the `rows` they hold (default: one row an item; the text report splits conversations,
    which hold their turns' rows)."""
    rows = n if rows is None else rows
    k = min(workers(), n, max(1, rows // max(1, _min_rows() // 2))) if rows >= _min_rows() else 1
    if (k <= 1 or not hasattr(os, "fork") or sys.platform == "win32"
            or threading.active_count() != 1):
        return [(0, n)]
    step = -(-n // k)
    return [(i, min(i + step, n)) for i in range(0, n, step)]


def write_ranges(parts: list[tuple[int, int]],
                 write: Callable[[int, int], Iterator[bytes]]) -> Iterator[bytes]:
    """The chunks `write(start, end)` gives for each range, in order; every range but the
    first written by a forked child into a temporary file."""
    children: list[tuple[int, str | None, tuple[int, int]]] = []
    tmp = None
    if len(parts) > 1:
        with contextlib.suppress(OSError):  # no writable temporary directory: no children
            tmp = _tempdir()
    try:
        for n, part in enumerate(parts[1:], 1):
            children.append(_fork(part, write, os.path.join(tmp, f"{n}"), n) if tmp
                            else (-1, None, part))
        yield from write(*parts[0])
        for n, (pid, path, part) in enumerate(children):
            children[n] = (-1, path, part)  # reaped below, whatever happens next
            if _ok(pid) and path is not None:
                with open(path, "rb") as fh:
                    while chunk := fh.read(READ):
                        yield chunk
            else:  # the child failed (or never started): the parent writes its range
                yield from write(*part)
    finally:
        for pid, _, _ in children:  # an abandoned write (`report | head`): stop the rest
            if pid > 0:
                with contextlib.suppress(OSError):
                    os.kill(pid, _sigkill())
                _ok(pid)
        if tmp:
            for name in os.listdir(tmp):
                os.unlink(os.path.join(tmp, name))
            os.rmdir(tmp)


def _sigkill() -> int:
    import signal  # only to stop an abandoned child: not in every report's baseline

    return signal.SIGKILL


def _tempdir() -> str:
    """A private directory (mode 0700) for the children's files, under $TMPDIR or /tmp.
    Made by hand: `tempfile` pulls random, math and weakref (~270 kB resident, measured after
    argparse) into every forked report, whose peak is the parent's."""
    base = next((d for d in (os.environ.get(k) for k in ("TMPDIR", "TEMP", "TMP"))
                 if d and os.path.isdir(d)), "/tmp")
    while True:
        path = os.path.join(base, f"traceview-rows-{os.getpid()}-{os.urandom(6).hex()}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path


def _fork(part: tuple[int, int], write: Callable[[int, int], Iterator[bytes]], path: str,
          n: int) -> tuple[int, str | None, tuple[int, int]]:
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        return -1, None, part
    if pid:
        return pid, path, part
    code = 1
    try:  # the child: write its range, then leave without running the parent's exit hooks
        with open(path, "wb") as fh:
            for chunk in write(*part):
                fh.write(chunk)
        code = 0
    finally:
        os._exit(code)


def _ok(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:  # reaped already
        return False
    return os.waitstatus_to_exitcode(status) == 0
