"""The exact keys this process knows, masked wherever they appear whatever their shape:
the ones in use from the environment, and those a command registers (`add_secret`, the
key it calls the provider with). One registry for the process, read by the redactor
(redact.py) on every text it masks; `registered` scopes additions to a block (a test)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

MIN_SECRET_LENGTH = 8  # shorter values would mangle ordinary text
ENV_KEYS = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "OPENAI_ADMIN_KEY")
# Longest first: a key inside a longer one goes second. Rebound, never changed in place:
# the redactor reads `known_keys.held` on every text.
held: tuple[str, ...] = ()
_lock = threading.Lock()


def _key_of(value: str | None) -> str | None:
    """The key a header value or a setting holds ("Bearer " dropped), if long enough."""
    if not value:
        return None
    value = value.strip()
    if value.lower().startswith("bearer "):
        value = value[7:].strip()
    return value if len(value) >= MIN_SECRET_LENGTH else None


def _set_registered(keys: Iterable[str]) -> None:
    global held
    with _lock:
        held = tuple(sorted(set(keys), key=len, reverse=True))


def add_secret(value: str | None) -> None:
    """Mask this exact value wherever it appears from now on (the key a command uses)."""
    key = _key_of(value)
    if key is not None and key not in held:
        _set_registered((*held, key))


def registered_keys() -> tuple[str, ...]:
    """The keys masked whatever their shape, longest first."""
    return held


def reset_registered(keys: Iterable[str] = ()) -> None:
    """Forget every registered key, then register `keys` (an embedder, a test)."""
    _set_registered(k for k in map(_key_of, keys) if k is not None)


@contextmanager
def registered(*values: str) -> Iterator[None]:
    """The keys registered now, plus `values`, for the block; afterwards exactly those
    registered before it, whatever the block registered."""
    before = held
    for value in values:
        add_secret(value)
    try:
        yield
    finally:
        _set_registered(before)


reset_registered(os.environ.get(name) or "" for name in ENV_KEYS)  # the keys in use
