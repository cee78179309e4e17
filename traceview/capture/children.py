"""Extraction workers as plain child processes: forked in a process with one thread (the
CLI), started as new interpreters in one with threads (the inspector loads from one).

A worker pool from multiprocessing costs the main process its imports (multiprocessing and
concurrent.futures: about 0.9 MB of RSS), a manager thread and a queue feeder thread, and
a forkserver: a new interpreter that imports the reader again before any worker starts.
A process with one thread can simply fork: each child already has the reader imported,
shares the parent's pages copy-on-write, and reads the chunks it is sent.

One task pipe (main -> child: start, end and path) and one result pipe (child -> main: an
8-byte length, then the pickled chunk, or the OSError its reading met) per child. A child
answers its tasks in the order it was sent them and the main process takes results in
task order, so the next message on a child's result pipe is always its oldest task's. The
pipes are the only bound on a child running ahead: a child whose answer the main process
has not taken yet waits to write it (no result piles up in the main process).

A child that dies, or sends something that cannot be read, is dropped (killed and reaped)
and its tasks are read by the main process: a load never fails for want of workers.
A child's output goes to /dev/null (nothing lands on the terminal) and Ctrl-C ends it at
once, silently; the main process's KeyboardInterrupt then closes the pipes and reaps it.

A process with threads (the inspector loads from one) must not fork: a fork copies only
the forking thread, and any lock another thread held stays held in the child forever. There
each child is a new interpreter started by subprocess (fork and exec in C, nothing of this
process runs in the child), which imports the work function by name and serves the same
pipes. That costs each child its imports (~0.1 s of CPU, while the main process reads the
first chunk) but nothing a chunk: a ProcessPoolExecutor, used before, cost the main process
a manager thread and a feeder thread waking for every chunk, and ~2 µs a turn of its CPU
for receiving the results (bench/extractor.py).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

_LENGTH = 8  # bytes of a result's length header
_TASK = 20  # bytes of a task's header: start, end (8 each), length of the path (4)
_PIPE_BYTES = 1 << 20  # a result pipe's capacity, where the system allows it


def fork_safe() -> bool:
    """Whether plain forked children may be used: a POSIX `fork` and one thread alive
    (the rule report/forked.py follows)."""
    return (hasattr(os, "fork") and sys.platform != "win32"
            and threading.active_count() == 1)


class Child:
    """One child: its process id, the main process's ends of its pipes, how many of the
    tasks sent to it are not answered yet (pid -1: dropped), and its Popen when spawned."""

    __slots__ = ("pid", "tasks", "results", "pending", "proc")

    def __init__(self, pid: int, tasks: int, results: int, proc: Any = None) -> None:
        self.pid = pid
        self.tasks = tasks
        self.results = results
        self.pending = 0
        self.proc = proc


class Children:
    """Up to `n` children, each running `work(path, start, end)` on the tasks sent to it:
    forked, or with `spawn` ("module:function", naming `work`) new interpreters (see the
    module's docstring)."""

    def __init__(self, n: int, work: Callable[[str, int, int], Any],
                 spawn: str | None = None) -> None:
        self.live: list[Child] = []
        if spawn is not None:
            try:
                for _ in range(n):
                    child = _spawn(spawn)
                    if child is None:
                        break
                    self.live.append(child)
            except BaseException:  # Ctrl-C among the starts: none of them is left behind
                self.close()
                raise
            return
        _flush()
        # The children's collector leaves the parent's objects (and their pages) alone;
        # objects frozen before (a load freezes its summaries) stay so in the parent.
        frozen = gc.get_freeze_count()
        gc.freeze()
        try:
            for _ in range(n):
                child = _fork(work, self.live)
                if child is None:
                    break
                self.live.append(child)
        except BaseException:  # Ctrl-C among the forks: none of them is left behind
            self.close()
            raise
        finally:
            if not frozen:
                gc.unfreeze()

    def send(self, path: str, start: int, end: int) -> Child | None:
        """Send a task to the child with the fewest unanswered; None if no child is left
        (the caller reads it itself)."""
        name = os.fsencode(path)
        task = (start.to_bytes(8, "little") + end.to_bytes(8, "little")
                + len(name).to_bytes(4, "little") + name)
        while self.live:
            child = min(self.live, key=_pending)
            try:
                _write(child.tasks, task)
            except OSError:  # it died: the tasks it holds are read by the caller
                self.drop(child)
                continue
            child.pending += 1
            return child
        return None

    def receive(self, child: Child) -> tuple[bool, Any]:
        """The answer to `child`'s oldest task: (True, result), or (False, None) when the
        child is gone (dropped now or before) and the caller must read that task itself."""
        if child.pid < 0:
            return False, None
        import pickle  # only where children run: not in a one-process load's baseline

        try:
            size = int.from_bytes(_read(child.results, _LENGTH), "little")
            result = pickle.loads(_read(child.results, size))
        except Exception:  # noqa: BLE001 - it died, was cut mid-answer, or sent nonsense
            self.drop(child)
            return False, None
        child.pending -= 1
        return True, result

    def drop(self, child: Child) -> None:
        """Stop a child that cannot be trusted any more, reap it, close its pipes."""
        if child.pid < 0:
            return
        with contextlib.suppress(OSError):
            os.kill(child.pid, _sigkill())
        _end(child)
        self.live.remove(child)

    def close(self) -> None:
        """End every child and reap it. An idle child sees its task pipe close and exits;
        one with unanswered tasks (an abandoned load, Ctrl-C) is killed."""
        for child in self.live:
            with contextlib.suppress(OSError):
                os.close(child.tasks)
            child.tasks = -1
            if child.pending:
                with contextlib.suppress(OSError):
                    os.kill(child.pid, _sigkill())
        for child in self.live:
            _end(child)
        self.live = []


def _pending(child: Child) -> int:
    return child.pending


def _end(child: Child) -> None:
    for fd in (child.tasks, child.results):
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
    child.tasks = child.results = -1
    if child.proc is not None:  # spawned: reaped through its Popen, which then knows it
        with contextlib.suppress(Exception):
            child.proc.wait()
    else:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(child.pid, 0)
    child.pid = -1


def _sigkill() -> int:
    import signal

    return signal.SIGKILL


def _flush() -> None:
    """Nothing buffered for the terminal may be written twice (once by a child)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(Exception):
                stream.flush()


def _pipes() -> tuple[int, int, int, int] | None:
    """A child's task pipe and result pipe (task_r, task_w, result_r, result_w), the result
    pipe enlarged where the system allows, so a child writes its answer and goes on; None
    if the process is out of descriptors."""
    try:
        task_r, task_w = os.pipe()
    except OSError:
        return None
    try:
        result_r, result_w = os.pipe()
    except OSError:
        os.close(task_r)
        os.close(task_w)
        return None
    with contextlib.suppress(Exception):
        import fcntl

        fcntl.fcntl(result_w, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    return task_r, task_w, result_r, result_w


def _fork(work: Callable[[str, int, int], Any], others: list[Child]) -> Child | None:
    pipes = _pipes()
    if pipes is None:
        return None
    task_r, task_w, result_r, result_w = pipes
    try:
        pid = os.fork()
    except OSError:
        for fd in (task_r, task_w, result_r, result_w):
            os.close(fd)
        return None
    if pid == 0:
        _child(task_r, result_w, [task_w, result_r]
               + [fd for c in others for fd in (c.tasks, c.results)], work)
    os.close(task_r)
    os.close(result_w)
    return Child(pid, task_w, result_r)


# What a spawned child runs: this process's import path first (a checkout run from its
# directory, a bench's), then `_spawned`.
_SPAWNED = ("import json, sys; sys.path[:] = json.loads(sys.argv[4]); "
            "from traceview.capture.children import _spawned; "
            "_spawned(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))")


def _spawn(target: str) -> Child | None:
    """A new interpreter serving `target` ("module:function") on a new pair of pipes, or
    None if it cannot be started. Only its ends of the pipes are passed to it (every fd
    here is made non-inheritable), and its output goes to /dev/null."""
    import json
    import subprocess

    if not sys.executable or os.name != "posix":  # fds passed by number: POSIX only
        return None
    pipes = _pipes()
    if pipes is None:
        return None
    task_r, task_w, result_r, result_w = pipes
    try:
        flags = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a private helper (multiprocessing's spawn uses it)
        flags = []
    try:
        proc = subprocess.Popen(
            [sys.executable, *flags, "-c", _SPAWNED, target, str(task_r), str(result_w),
             json.dumps(sys.path)],
            pass_fds=(task_r, result_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, ValueError, subprocess.SubprocessError):
        for fd in (task_r, task_w, result_r, result_w):
            os.close(fd)
        return None
    os.close(task_r)
    os.close(result_w)
    return Child(proc.pid, task_w, result_r, proc)


def _spawned(target: str, tasks: int, results: int) -> None:
    """A spawned child's whole life: import the work function, answer tasks until the task
    pipe closes, leave (an import that fails ends it: the main process reads its tasks)."""
    code = 1
    try:
        import importlib
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: gone at once, no traceback
        module, name = target.split(":")
        work = getattr(importlib.import_module(module), name)
        _serve(tasks, results, work)
        code = 0
    finally:
        os._exit(code)


def _child(tasks: int, results: int, theirs: list[int],
           work: Callable[[str, int, int], Any]) -> None:
    """A child's whole life: answer tasks until the task pipe closes, then leave without
    running the parent's exit hooks or flushing its buffers."""
    code = 1
    try:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: gone at once, no traceback
        for fd in theirs:  # the parent's ends, and other children's: their EOFs are theirs
            os.close(fd)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # nothing a child prints reaches the terminal
            os.dup2(null, fd)
        os.close(null)
        _serve(tasks, results, work)
        code = 0
    finally:
        os._exit(code)


def _serve(tasks: int, results: int, work: Callable[[str, int, int], Any]) -> None:
    import pickle

    while True:
        try:
            head = _read(tasks, _TASK)
        except EOFError:  # the main process is done (or gone)
            return
        path = os.fsdecode(bytes(_read(tasks, int.from_bytes(head[16:], "little"))))
        try:
            result: Any = work(path, int.from_bytes(head[:8], "little"),
                               int.from_bytes(head[8:16], "little"))
        except OSError as exc:  # the file itself: the error a single process would meet
            result = exc
        data = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
        _write(results, len(data).to_bytes(_LENGTH, "little"))
        _write(results, data)


def _read(fd: int, n: int) -> bytearray:
    """Exactly `n` bytes from `fd`; EOFError if it ends first."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = os.readv(fd, [view[got:]])
        if not k:
            raise EOFError(f"pipe closed after {got} of {n} bytes")
        got += k
    return buf


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
