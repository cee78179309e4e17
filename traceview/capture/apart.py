"""One piece of work in a child forked for it, so its memory leaves with the child.

A large capture's analysis is most of a command's memory, and a Python process keeps what
it freed (its arenas, a tokenizer's tables): work that comes after it in the same process
(DuckDB loading an export's files) would be paid on top. Forked once, the child makes the
analysis and what the command needs of it; the command goes on as small as it began.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from traceview.capture.pool import fork_safe


def apart(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` in one child forked for it, its answer (or its exception) handed back:
    what `fn` allocates is the child's, all returned to the system when it exits, so this
    process is as small after the call as before it. Where no child can fork, run here.
    A Ctrl-C reaches the child too (one process group), which stops as this process would
    have; the child is always waited for."""
    if not fork_safe():
        return fn(*args)
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    stdin = sys.stdin
    child = context.Process(target=_answer_into, args=(send, fn, args, stdin))
    # A child of multiprocessing closes the stdin it inherits; one it does not see it
    # keeps, so `fn` reads a capture given as `-` (it read nothing: an empty export).
    sys.stdin = None
    try:
        child.start()
    finally:
        sys.stdin = stdin
    send.close()
    try:
        ok, answer = receive.recv()
    except EOFError:  # the child died without an answer (killed, out of memory)
        ok, answer = False, OSError(f"the worker process ended ({child.exitcode})")
    finally:
        receive.close()
        child.join()
    if not ok:
        raise answer
    return answer


def _answer_into(send: Any, fn: Callable[..., Any], args: tuple[Any, ...],
                 stdin: Any) -> None:
    """`apart`'s child: (True, answer) or (False, the exception) sent back."""
    sys.stdin = stdin
    try:
        answer = (True, fn(*args))
    except BaseException as exc:  # noqa: BLE001 - raised again in the parent
        answer = (False, exc)
    try:
        send.send(answer)
    except OSError:  # the parent stopped listening (a Ctrl-C): nobody to tell
        pass
    except Exception:  # noqa: BLE001 - an unpicklable exception: its text
        send.send((False, RuntimeError(str(answer[1]))))
