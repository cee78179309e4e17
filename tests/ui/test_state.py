"""The app's load state files every turn under its conversation, by index and by number.

`LoadState.add_turns` runs on the event loop for every turn of a capture, so it is a
tight loop over arrays; this pins it against the plain dict-and-list model it replaced.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

from traceview.ui.state import ALL, LoadState


def _model(batches: list[list[SimpleNamespace]]) -> tuple[dict, dict, dict, list]:
    by_index, by_key, positions, touched = {}, {}, {}, []
    for batch in batches:
        grew = set()
        for turn in batch:
            key = (str(turn.conversation_key) if turn.conversation_key is not None
                   else f"file:{turn.source}")
            by_index[turn.index] = turn
            by_key.setdefault(key, []).append(turn)
            positions[turn.index] = len(by_key[key])
            grew.add(key)
        touched.append(grew)
    return by_index, by_key, positions, touched


def test_add_turns_matches_the_plain_model() -> None:
    rng = random.Random(11)
    indices = list(range(1, 3001))
    rng.shuffle(indices)  # turns finish out of index order
    turns = [SimpleNamespace(index=i, conversation_key=rng.choice(["a", "b", None, 7]),
                             source="s.jsonl") for i in indices]
    batches, at = [], 0
    while at < len(turns):
        n = rng.choice([1, 2, 50, 700])
        batches.append(turns[at:at + n])
        at += n
    state = LoadState()
    touched = [state.add_turns(batch) for batch in batches]
    by_index, by_key, positions, grew = _model(batches)
    assert touched == grew
    assert state.turns == turns
    assert state.by_key == by_key
    assert len(state.by_index) == len(by_index) == 3000
    for index, turn in by_index.items():
        assert state.by_index.get(index) is turn and index in state.by_index
        assert state.position(turn) == positions[index]
    assert sorted(state.by_index) == sorted(by_index)
    for missing in (0, 3001, 10**6, -1, "1"):
        assert state.by_index.get(missing) is None and missing not in state.by_index
    assert state.rows_for(ALL) is state.turns
    assert state.add_turns([]) == set()
