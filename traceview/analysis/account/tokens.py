"""Token counts in the model's own encoding, offline.

The provider bills tokens of the model's encoding (o200k_base for the gpt-4o / 4.1 / 5 and
o-series families, cl100k_base for gpt-4 and gpt-3.5). `bpe-openai` embeds both vocabularies
in its wheel, so counting needs no network. Where it is not installed, counts fall back to
the labelled estimate of 4 UTF-8 bytes a token, and say so through `Counter.exact`.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import math
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Protocol

O200K = "o200k_base"
CL100K = "cl100k_base"
FALLBACK = "bytes/4"

# Longest prefix first: "gpt-4o" and "gpt-4.1" must win over "gpt-4".
_FAMILIES: tuple[tuple[str, str], ...] = (
    ("gpt-4o", O200K), ("chatgpt-4o", O200K), ("gpt-4.1", O200K), ("gpt-4.5", O200K),
    ("gpt-5", O200K), ("gpt-oss", O200K), ("o1", O200K), ("o3", O200K), ("o4", O200K),
    ("codex", O200K), ("computer-use", O200K),
    ("gpt-4", CL100K), ("gpt-3.5", CL100K), ("text-embedding-3", CL100K),
    ("text-embedding-ada", CL100K),
)


def encoding_name(model: str | None) -> tuple[str, bool]:
    """The encoding a model bills in, and whether the model's family is known.

    An unknown model is counted in o200k_base (every current family uses it) and the
    caller labels the count estimated.
    """
    name = (model or "").lower().rsplit("/", 1)[-1]
    for prefix, encoding in _FAMILIES:
        if name.startswith(prefix):
            return encoding, True
    return O200K, False


class _Backend(Protocol):
    def count(self, text: str) -> int: ...


@lru_cache(maxsize=4)
def _backend(encoding: str) -> _Backend | None:
    """Load an encoding once per process: its vocabulary is large and slow to load."""
    bindings = _bindings()
    if bindings is None:
        return None
    try:
        tokenizer: _Backend = bindings.tokenizer_for_encoding(encoding)
    except (ValueError, RuntimeError, OSError):
        return None
    return tokenizer


@lru_cache(maxsize=1)
def _bindings() -> ModuleType | None:
    """bpe-openai's compiled tokenizer, loaded without running the package's __init__.

    Importing `bpe_openai` decodes all three of its vocabularies into Python dicts for its
    tiktoken-compatible layer (seconds and memory more); the counts come from the compiled
    module alone, which carries its vocabularies inside.
    """
    spec = importlib.util.find_spec("bpe_openai")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder) / f"_bindings{suffix}"
            if path.is_file():
                return _load(path)
    return None


def _load(path: Path) -> ModuleType | None:
    spec = importlib.util.spec_from_file_location("bpe_openai._bindings", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError:
        return None
    return module


# Counts remembered by (encoding, text): a resent history, a tool set or instructions sent
# on every turn are counted once. Oldest forgotten first past this many.
MEMO_SIZE = 1 << 13
Key = tuple[str, str]  # (encoding, text)


class _Memo:
    """The counts made or looked up here; the counts other processes made, by a digest of
    (encoding, text) (a worker sends those of the texts its chunk read, so this process
    need not load a vocabulary at all); and, in a worker, the texts read since `fresh()`."""

    def __init__(self) -> None:
        self.counts: OrderedDict[Key, int] = OrderedDict()
        self.received: OrderedDict[bytes, int] = OrderedDict()
        self.seen: dict[Key, int] | None = None


_MEMO = _Memo()


def _digests(keys: Iterable[Key]) -> list[bytes]:
    """The digests another process knows counts by: computed only where counts cross a
    process boundary, so a one-process report never loads hashlib's OpenSSL; a chunk's
    together (one import statement, one lookup of the hash for them all)."""
    import hashlib

    blake2b = hashlib.blake2b
    return [blake2b(f"{encoding}\n{text}".encode("utf-8", "surrogatepass"),
                    digest_size=16).digest() for encoding, text in keys]


@dataclass(frozen=True, slots=True)
class Counter:
    """Counts text in one encoding; `exact` is False on the 4-bytes fallback."""

    encoding: str
    exact: bool

    def count(self, text: str) -> int:
        if not self.exact:
            return estimate(text)
        key = (self.encoding, text)
        memo = _MEMO
        counts = memo.counts
        n = counts.get(key)
        if n is None:
            n = memo.received.get(_digests((key,))[0]) if memo.received else None
            if n is None:
                backend = _backend(self.encoding)
                n = estimate(text) if backend is None else backend.count(text)
            counts[key] = n
            if len(counts) > MEMO_SIZE:  # the oldest forgotten first
                counts.popitem(last=False)
        if memo.seen is not None:
            memo.seen[key] = n
        return n


def remember(counts: dict[bytes, int]) -> None:
    """Counts another process made (`shared`), remembered here."""
    received = _MEMO.received
    received.update(counts)
    while len(received) > MEMO_SIZE:
        received.popitem(last=False)


def forget_received() -> None:
    """Drop the counts other processes sent: they serve the turns of the capture being
    read, and once every turn is in they would only hold memory (a later read's workers
    send their own)."""
    _MEMO.received = OrderedDict()


def fresh() -> dict[Key, int]:
    """Start recording the counts read from now on; returns the record (filled in place)."""
    _MEMO.seen = {}
    return _MEMO.seen


def shared(seen: dict[Key, int]) -> dict[bytes, int]:
    """A record of `fresh` as another process takes it (`remember`): each distinct text's
    count by its digest."""
    return dict(zip(_digests(seen), seen.values(), strict=True))


@lru_cache(maxsize=256)
def counter_for(model: str | None) -> Counter:
    """The counter for a model: exact when the tokeniser package is installed. Its
    vocabulary is loaded on the first count that is not remembered, not here: a process
    handed its counts (`remember`) never loads one."""
    encoding, _known = encoding_name(model)
    if _bindings() is None:
        return Counter(FALLBACK, exact=False)
    return Counter(encoding, exact=True)


def estimate(text: str) -> int:
    """The labelled fallback: ceil(UTF-8 bytes / 4)."""
    return math.ceil(len(text.encode("utf-8")) / 4)
