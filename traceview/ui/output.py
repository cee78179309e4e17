"""Where the inspector writes files: one rule for `E`, `s`, `w` and the palette's exports.

Everything goes to the output directory — ``--screenshot-dir`` when given, else the
directory traceview was started in — under ``<capture>-<what>-<UTC timestamp>.<ext>``,
with a counter if that name is taken: nothing is ever overwritten, and nothing lands in
a checkout's own ``screenshots/`` folder unless the user asked for it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path


def file_part(text: str) -> str:
    """``text`` made safe as a part of a file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)[:80] or "capture"


def capture_stem(sources: list[str]) -> str:
    """The first capture's name without its extensions (``claims`` for claims.jsonl.gz)."""
    stem = Path(sources[0]).name if sources else "capture"
    for suffix in (".gz", ".jsonl", ".json"):
        stem = stem.removesuffix(suffix)
    return file_part(stem)


def unique_path(directory: Path, stem: str, suffix: str) -> Path:
    """``<stem>-<UTC timestamp>.<suffix>``, with a counter if that name exists already."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = directory / f"{stem}-{stamp}.{suffix}"
    n = 2
    while path.exists():
        path = directory / f"{stem}-{stamp}-{n}.{suffix}"
        n += 1
    return path


def output_path(directory: Path, sources: list[str], what: str, suffix: str) -> Path:
    """The default path for a file showing ``what`` of the capture (the rule above)."""
    return unique_path(directory, f"{capture_stem(sources)}-{what}", suffix)


def typed_path(typed: str, default: Path) -> Path:
    """A path the user typed: ``~`` expanded; a directory (existing, or ending in ``/``)
    gets the default's file name."""
    text = typed.strip()
    if not text:
        return default
    path = Path(text).expanduser()
    if text.endswith(("/", "\\")) or path.is_dir():
        return path / default.name
    return path
