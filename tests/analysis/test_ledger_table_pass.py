"""The ledger's pass over the turn table's columns (ledger_table.from_table: batches of whole
conversations, charges priced per batch, sources and notes from the columns) gives what
the general pass over the turns' views gives (a plain list of TurnReports takes it), on
every fixture, sample and a slice of the hosted bench shape — also with tiny batches, with
the turns in an order the analysis does not give (conversations interleaved, a
conversation's turns out of index order), with hosted calls set again out of order, with
turns whose configuration is not told, and with the call ids joined in small chunks."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from traceview.analysis import analyze, ledger_table
from traceview.analysis import ledger as ledger_mod
from traceview.analysis.hosted_state import _Configs
from traceview.analysis.ledger import build_ledger
from traceview.analysis.objects import inventory
from traceview.analysis.reports import Reports

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


@pytest.fixture(scope="module")
def analyses(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Any, Any]]:
    """(name, analysis, tool configurations) of each fixture that has hosted state."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import gen_hosted

    hosted = tmp_path_factory.mktemp("hosted") / "hosted.jsonl"
    gen_hosted.generate(hosted, 10**12, lines=2400)
    out = []
    for path in [*sorted(SAMPLES.glob("*.jsonl")), *sorted(REAL.glob("*.jsonl")), hosted]:
        a = analyze(str(path))
        if a.ledger is None:
            continue
        configs = _Configs()
        inventory(a.turns, a.capture.exchanges, a.capture.read_raw, on_request=configs.see,
                  on_row=configs.see_row)
        out.append((path.name, a, configs))
    return out


def _everything(led: Any) -> Any:
    """All a reader can see of a ledger: each conversation's and carrying turn's dict, each
    turn's account (the explanation's), each source's views."""
    convs = {k: c.to_dict() for k, c in led.conversations.items()}
    turns = {i: c.to_dict() for i, c in led.turns.items()}
    accounts = {i: c.account() for i, c in led.turns.items()}
    sources = [(s.id, s.kind, s.conversation, s.origin_turns, s.hosted_calls, s.types,
                s.include, s.config, s.ended_by, [c.to_dict() for c in s.charges])
               for conv in led.conversations.values() for s in conv.sources]
    return convs, turns, accounts, sources


def _general(a: Any, turns: Any, configs: Any) -> Any:
    bills = {c.key: c.cost_usd for c in a.conversations}
    return _everything(build_ledger(list(turns), a.pricing_table, configs.get, bills))


def _fast(a: Any, turns: Any, configs: Any) -> Any:
    bills = {c.key: c.cost_usd for c in a.conversations}
    assert not len(turns) or ledger_mod._one_table(turns) is not None  # the table pass
    return _everything(build_ledger(turns, a.pricing_table, configs.get, bills))


def test_the_table_pass_gives_the_general_pass_on_every_fixture(
        analyses: list[tuple[str, Any, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    carried = 0
    for name, a, configs in analyses:
        general = _general(a, a.turns, configs)
        for batch in (ledger_table._BATCH, 5, 1):  # one batch; several; one conversation each
            monkeypatch.setattr(ledger_table, "_BATCH", batch)
            assert _fast(a, a.turns, configs) == general, (name, batch)
        monkeypatch.setattr(ledger_mod, "_CHUNK", 2)  # call ids joined every other source
        assert _fast(a, a.turns, configs) == general == _general(a, a.turns, configs), name
        monkeypatch.undo()
        untold = _Untold(configs)
        assert _fast(a, a.turns, untold) == _general(a, a.turns, untold), name
        carried += len(general[1])
    assert carried > 400  # the hosted slice carried context


class _Untold:
    """Tool configurations told for every other turn only (the rest: the tools the
    request offered, read by the ledger itself)."""

    def __init__(self, configs: Any) -> None:
        self._configs = configs

    def get(self, index: int) -> Any:
        return self._configs.get(index) if index % 2 else None


def _reordered(turns: Any, order: list[int]) -> Reports:
    cols, rows = turns._parts[0], turns.rows()
    out = Reports()
    for pos in order:
        out.append(cols, rows[pos])
    return out


def test_turns_in_any_order_give_the_general_pass(analyses: list[tuple[str, Any, Any]],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Conversations interleaved (grouped again, in the order first seen), a conversation's
    turns out of index order (sorted again), rows picked one by one (no contiguous range)."""
    rng = random.Random(11)
    monkeypatch.setattr(ledger_table, "_BATCH", 40)
    checked = 0
    for name, a, configs in analyses:
        n = len(a.turns)
        if n < 2 or len(a.turns._parts) != 1:
            continue
        for order in (list(range(n - 1, -1, -1)), rng.sample(range(n), n),
                      [*range(0, n, 2), *range(1, n, 2)]):
            turns = _reordered(a.turns, order)
            assert _fast(a, turns, configs) == _general(a, turns, configs), name
            checked += 1
    assert checked >= 9


def test_hosted_calls_set_again_out_of_order_are_read(tmp_path: Path) -> None:
    """A response's calls set again (a later retrieve) are kept apart from the columns
    (capture/calls.py `changed`); the pass reads them there."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import gen_hosted

    path = tmp_path / "hosted.jsonl"
    gen_hosted.generate(path, 10**12, lines=1200)
    a = analyze(str(path))
    configs = _Configs()
    inventory(a.turns, a.capture.exchanges, a.capture.read_raw, on_request=configs.see,
              on_row=configs.see_row)
    before = _fast(a, a.turns, configs)
    calls = a.turns._parts[0].table.responses.dicts["hosted_calls"]
    rows = calls.keys()
    assert len(rows) > 100 and not calls.changed
    for row in rows[::3]:
        calls[row] = calls[row]  # the same calls, now out of order
    assert calls.changed
    assert _fast(a, a.turns, configs) == before == _general(a, a.turns, configs)
    for row in rows[1::7]:
        calls[row] = ()  # removed
    after = _fast(a, a.turns, configs)
    assert after != before and after == _general(a, a.turns, configs)


def test_the_growth_lines_mapped_over_conversations_are_lines_fitted_one_by_one() -> None:
    """`_fits` (every conversation's line in C) gives `_line`'s floats for turns 1..m."""
    rng = random.Random(5)
    sizes = [rng.choice((1, 2, 3, 12, rng.randint(1, 90))) for _ in range(400)]
    inputs = [[rng.choice((rng.randint(0, 10**6), rng.randint(0, 10**12))) for _ in range(m)]
              for m in sizes]
    slope, intercept, fitted, last = ledger_table._fits(sizes, inputs)
    for t, (m, y) in enumerate(zip(sizes, inputs, strict=True)):
        want = ledger_mod._line(list(range(1, m + 1)), y) if m >= 2 else (0.0, 0.0)
        assert (slope[t], intercept[t]) == want
        assert fitted[t] == last[t] == (m if m >= 2 else 0)
