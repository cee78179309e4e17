"""Token counts in the model's own encoding, offline.

The provider bills tokens of the model's encoding (o200k_base for the gpt-4o / 4.1 / 5 and
o-series families, cl100k_base for gpt-4 and gpt-3.5). `bpe-openai` embeds both vocabularies
in its wheel, so counting needs no network. Where it is not installed, counts fall back to
the labelled estimate of 4 UTF-8 bytes a token, and say so through `Counter.exact`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
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
    """Load an encoding once per process (o200k takes about two seconds)."""
    try:
        from bpe_openai import _bindings  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    try:
        tokenizer: _Backend = _bindings.tokenizer_for_encoding(encoding)
    except (ValueError, RuntimeError, OSError):
        return None
    return tokenizer


@dataclass(frozen=True, slots=True)
class Counter:
    """Counts text in one encoding; `exact` is False on the 4-bytes fallback."""

    encoding: str
    exact: bool

    def count(self, text: str) -> int:
        backend = _backend(self.encoding) if self.exact else None
        if backend is None:
            return estimate(text)
        return backend.count(text)


def counter_for(model: str | None) -> Counter:
    """The counter for a model: exact when the tokeniser package is installed."""
    encoding, _known = encoding_name(model)
    if _backend(encoding) is None:
        return Counter(FALLBACK, exact=False)
    return Counter(encoding, exact=True)


def estimate(text: str) -> int:
    """The labelled fallback: ceil(UTF-8 bytes / 4)."""
    return math.ceil(len(text.encode("utf-8")) / 4)
