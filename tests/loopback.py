"""Raw loopback servers for tests that need an upstream misbehaving at the socket level."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator


def accepted(server: socket.socket, stop: threading.Event | None = None) -> Iterator[socket.socket]:
    """Each connection `server` accepts, until it is closed (or `stop` is set)."""
    while stop is None or not stop.is_set():
        try:
            conn, _ = server.accept()
        except OSError:
            return
        yield conn


def serve_each(server: socket.socket, handle: Callable[[socket.socket], None],
               stop: threading.Event | None = None) -> None:
    """`handle` run on each accepted connection in a thread of its own, in the background."""
    def loop() -> None:
        for conn in accepted(server, stop):
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
