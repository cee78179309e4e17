"""The values of one array inside a JSON file, read one at a time with bounded memory.

A foreign file can be gigabytes (a HAR of a day's browsing): loading it whole needs more
memory than the file. ijson's C parser reads it in small buffers and gives one event at a
time; the values of the array are built here from those events, one value in memory at a
time. The values are built here, not by ijson's own ``items``, because that keeps every
level's path as a string: memory grows with the square of the nesting depth (10,000 levels,
20 kB of brackets, took 260 MB), while here a value nested past ``MAX_DEPTH`` is skipped
by counting and named, and the values after it are still read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import ijson

MAX_DEPTH = 1024  # levels from the root; orjson refuses a deeper document alike
JSONError = ijson.JSONError
_OPEN = frozenset(("start_map", "start_array"))
_CLOSE = frozenset(("end_map", "end_array"))


class TooDeep:
    """Stands for a value nested deeper than ``MAX_DEPTH``: skipped, not built."""


@dataclass
class ArrayValues:
    """The values of the array at ``path`` (the keys of maps from the root: ("log",
    "entries")). ``found`` says, once read, whether there was such an array, ``ended``
    whether it was read to its end. A parse error
    (``JSONError``) ends the values where the file breaks: the ones before it stand."""

    f: IO[bytes]
    path: tuple[str, ...]
    found: bool = False
    ended: bool = False  # the array was read to its end

    def __iter__(self) -> Iterator[Any]:
        if self.f.read(3) != b"\xef\xbb\xbf":
            self.f.seek(0)
        events = ijson.basic_parse(self.f, use_float=True)
        target = [("start_map", None)] + [("start_map", k) for k in self.path[:-1]] + [
            ("start_array", self.path[-1])]
        where: list[tuple[str, Any]] = []  # each open container: its event and its key
        key = None
        for event, value in events:
            if event == "map_key":
                key = value
            elif event in _OPEN:
                where.append((event, key))
                key = None
                if where == target:
                    self.found = True
                    yield from _values(events, len(where))
                    self.ended = True
                    where.pop()
                elif len(where) > MAX_DEPTH:
                    _skip(events, 1)
                    where.pop()
            elif event in _CLOSE:
                where.pop()
                key = None


def _values(events: Iterator[tuple[str, Any]], depth: int) -> Iterator[Any]:
    """Each value of the array whose start was the last event, until its end."""
    stack: list[Any] = []  # the containers being built, outermost first
    keys: list[Any] = []  # the key being filled in each (None in a list)
    for event, value in events:
        if event == "map_key":
            keys[-1] = value
            continue
        if event in _OPEN:
            if depth + len(stack) >= MAX_DEPTH:
                _skip(events, len(stack) + 1)  # the rest of this value, kept nowhere
                del stack[:], keys[:]
                yield TooDeep()
                continue
            stack.append({} if event == "start_map" else [])
            keys.append(None)
            continue
        if event in _CLOSE:
            if not stack:
                return  # the array's own end
            keys.pop()
            value = stack.pop()
        if not stack:
            yield value
        elif type(stack[-1]) is dict:
            stack[-1][keys[-1]] = value
        else:
            stack[-1].append(value)


def _skip(events: Iterator[tuple[str, Any]], depth: int) -> None:
    """Read past the rest of a container `depth` levels deep, keeping nothing."""
    for event, _ in events:
        if event in _OPEN:
            depth += 1
        elif event in _CLOSE:
            depth -= 1
            if depth == 0:
                return
