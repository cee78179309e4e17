"""The ledger built while a capture loads (analysis/ahead.py) gives the report the full
pass gives, byte for byte: on every fixture, real capture, sample and slices of both bench
shapes, fed in slices of 1, 5 and 4,096 rows from batches of 1, 5 and 4,096 lines; and
where it cannot be shown to be the full pass's (conversations interleaved, a chain
continued later in the file, several files, turns finished out of order) the end falls
back to the full pass — the test checks which way each load went."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from traceview.analysis import ahead as ahead_mod
from traceview.analysis.session import Session
from traceview.report.json_out import iter_json

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import gen_capture  # noqa: E402
import gen_hosted  # noqa: E402

# (lines per step, rows per slice ahead, turns analysed per run)
FEEDS = [(1, 1, 1), (5, 5, 5), (4096, 4096, 256)]


def captures() -> list[Path]:
    return [*sorted((ROOT / "tests/fixtures/real").glob("*.jsonl")),
            *sorted((ROOT / "sample_traces").glob("*.jsonl")),
            *sorted((ROOT / "tests/fixtures").glob("*.jsonl"))]


@pytest.fixture(scope="module")
def slices(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    where = tmp_path_factory.mktemp("ahead")
    out = {"hosted": where / "hosted.jsonl", "bench": where / "bench.jsonl"}
    gen_hosted.generate(out["hosted"], 10**12, lines=2400)
    gen_capture.generate(out["bench"], 10**12, lines=600)
    return out


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each load's end took the ledger built ahead (one entry per load that built
    some of it)."""
    got: list[bool] = []
    real = ahead_mod.LedgerAhead.finish

    def finish(self: Any, *args: Any) -> Any:
        led = real(self, *args)
        if self.done:
            got.append(led is not None)
        return led

    monkeypatch.setattr(ahead_mod.LedgerAhead, "finish", finish)
    return got


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each load's end took the fidelity verdicts made ahead (one entry per load
    whose ledger built ahead was taken)."""
    got: list[bool] = []
    real = ahead_mod.LedgerAhead.verdicts

    def verdicts(self: Any, *args: Any) -> Any:
        made = real(self, *args)
        if self.valid:
            got.append(made is not None)
        return made

    monkeypatch.setattr(ahead_mod.LedgerAhead, "verdicts", verdicts)
    return got


def report(paths: Any, monkeypatch: pytest.MonkeyPatch, feed: tuple[int, int, int],
           ahead: bool = True) -> bytes:
    step, batch, run = feed
    with monkeypatch.context() as m:
        m.setattr(ahead_mod.LedgerAhead, "batch", batch)
        m.setattr(Session, "analyze_run", run)
        if not ahead:
            m.setattr(ahead_mod.LedgerAhead, "feed", lambda self: None)
        s = Session([str(p) for p in paths], step_lines=step)
        a = s.run_to_end()
        try:
            return b"".join(iter_json(a))
        finally:
            a.capture.close()


def same(paths: Any, monkeypatch: pytest.MonkeyPatch, feed: tuple[int, int, int]) -> None:
    general = report(paths, monkeypatch, feed, ahead=False)
    assert report(paths, monkeypatch, feed) == general, (paths, feed)


@pytest.fixture(autouse=True)
def one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")


@pytest.mark.parametrize("feed", FEEDS)
def test_every_capture_reads_the_same_with_the_ledger_built_ahead(
        feed: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch, taken: list[bool],
        judged: list[bool], slices: dict[str, Path]) -> None:
    for path in [*captures(), *slices.values()]:
        same([path], monkeypatch, feed)
    if feed[1] < 4096:  # the hosted slice's verdicts were made ahead
        assert judged[-1], judged
    if feed[1] < 4096:  # the fast path ran on the captures of several conversations
        # The hosted slice's conversations follow each other; the other bench shape's are
        # interleaved (a service's day): built ahead in part, then given up.
        assert taken[-2:] == [True, False], taken
        assert taken.count(True) >= (5 if feed[1] == 1 else 3), taken


def test_the_hosted_slice_with_workers(monkeypatch: pytest.MonkeyPatch, taken: list[bool],
                                       judged: list[bool], slices: dict[str, Path]) -> None:
    """Rows from worker processes' chunks (cut every few kB) arrive in bursts."""
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    monkeypatch.setenv("TRACEVIEW_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setenv("TRACEVIEW_CHUNK_BYTES", "5000")
    for feed in ((16, 64, 32), (4096, 300, 256)):
        same([slices["hosted"]], monkeypatch, feed)
    assert taken == [True, True] and judged == [True, True]


def _turns(path: Path) -> list[list[bytes]]:
    """A capture of two-line pairs, as its turns' lines."""
    lines = path.read_bytes().splitlines(keepends=True)
    return [lines[i:i + 2] for i in range(0, len(lines), 2)]


def test_compactions_and_deposits_from_nowhere(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              taken: list[bool], judged: list[bool],
                                              slices: dict[str, Path]) -> None:
    """The hosted slice with billed input falling on a later turn of some conversations
    (compaction: fidelity's early reason) and jumping on others with no hosted call
    before it (a deposit from outside the capture: a late reason)."""
    lines = []
    for k, (req, res) in enumerate(_turns(slices["hosted"])):
        conv, turn = divmod(k, 12)
        rec = orjson.loads(res)
        usage = rec["body"]["usage"]
        if conv % 3 == 1 and turn >= 8:
            usage["input_tokens"] //= 6
        elif conv % 3 == 2 and turn == 5:
            usage["input_tokens"] += 40_000
            rec["body"]["output"] = [o for o in rec["body"]["output"]
                                     if o["type"] == "message"]
        lines += [req, orjson.dumps(rec) + b"\n"]
    path = tmp_path / "reasons.jsonl"
    path.write_bytes(b"".join(lines))
    for feed in FEEDS:
        same([path], monkeypatch, feed)
    assert taken == [True, True] and judged == [True, True]


def test_interleaved_conversations_fall_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             taken: list[bool],
                                             slices: dict[str, Path]) -> None:
    """Turns of three conversations at a time, alternating: a conversation that looked
    finished gets a turn later."""
    turns = _turns(slices["hosted"])
    out = []
    for g in range(0, len(turns), 36):  # 12 turns a conversation, three at a time
        group = turns[g:g + 36]
        for k in range(12):
            for c in range(0, len(group), 12):
                if c + k < len(group):
                    out.extend(group[c + k])
    path = tmp_path / "interleaved.jsonl"
    path.write_bytes(b"".join(out))
    for feed in FEEDS[:2]:
        same([path], monkeypatch, feed)
    assert taken and not any(taken)


def test_a_chain_continued_later_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            taken: list[bool],
                                            slices: dict[str, Path]) -> None:
    """A previous_response_id chain's last turn after a hosted capture's turns: the chain
    was built ahead before its last turn came."""
    for name in ("llmplugin_previd_chain.jsonl", "pai_previd_chain_function_tools_4turns.jsonl"):
        chain = _turns(ROOT / "tests/fixtures/real" / name)
        assert len(chain) >= 2 and all(len(t) == 2 for t in chain)
        path = tmp_path / f"later-{name}"
        path.write_bytes(b"".join(b"".join(t) for t in
                                  [*chain[:-1], *_turns(slices["hosted"])[:60], chain[-1]]))
        for feed in FEEDS[:2]:
            same([path], monkeypatch, feed)
    assert taken and not any(taken)


def test_several_files_fall_back(monkeypatch: pytest.MonkeyPatch, taken: list[bool],
                                 slices: dict[str, Path]) -> None:
    paths = [slices["hosted"], ROOT / "tests/fixtures/real/llmplugin_previd_chain.jsonl",
             slices["bench"]]
    for feed in FEEDS[:2]:
        same(paths, monkeypatch, feed)
    assert not any(taken)


def test_turns_finished_out_of_order_fall_back(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              taken: list[bool],
                                              slices: dict[str, Path]) -> None:
    """A background turn whose outcome a retrieve gives ten turns later: it finishes after
    the turns that follow it (and its conversation's next turns come before it)."""
    turns = _turns(slices["hosted"])[:60]
    req, res = turns[30]
    rec = orjson.loads(res)
    done = dict(rec["body"])
    rec["body"] = {**done, "status": "in_progress", "background": True, "output": [],
                   "usage": None}
    poll = [orjson.dumps({"dir": "req", "endpoint": f"GET /v1/responses/{done['id']}",
                          "body": None}) + b"\n",
            orjson.dumps({"dir": "res", "elapsed_ms": 5, "body": done}) + b"\n"]
    lines = [line for t in turns[:30] for line in t] + [req, orjson.dumps(rec) + b"\n"] + \
        [line for t in turns[31:41] for line in t] + poll + \
        [line for t in turns[41:] for line in t]
    path = tmp_path / "late.jsonl"
    path.write_bytes(b"".join(lines))
    for feed in FEEDS[:2]:
        same([path], monkeypatch, feed)
    assert taken and not any(taken)


def test_tool_configurations_seen_a_slice_at_a_time(slices: dict[str, Path]) -> None:
    """`_Configs.see_rows` over slices of the rows (each one running on from the last)
    gives every turn the configuration one call over them all gives, and
    `ahead._same_configs` sees it (numbers in another order too)."""
    from traceview.analysis import analyze
    from traceview.analysis.hosted_state import _Configs

    mixed = slices["hosted"].with_name("mixed_tools.jsonl")
    lines = []
    for k, (req, res) in enumerate(_turns(slices["hosted"])[:300]):
        rec = orjson.loads(req)
        rec["body"]["tools"] = [[], [{"type": "web_search"}],
                                [{"type": "file_search", "vector_store_ids": [f"vs_{k % 4}"]}],
                                rec["body"]["tools"]][k % 4]
        lines += [orjson.dumps(rec) + b"\n", res]
    mixed.write_bytes(b"".join(lines))
    for path in [*captures(), *slices.values(), mixed]:
        a = analyze(str(path))
        parts = a.turns._parts
        if len(parts) != 1 or type(a.turns.rows()) is not range:
            continue
        table, n = parts[0].table, len(a.turns)
        whole = _Configs()
        whole.see_rows(table, range(n))
        for size in (1, 7, 100):
            part = _Configs()
            for at in range(0, n, size):
                part.see_rows(table, range(at, min(at + size, n)))
            # (numbers may be given in another order; a last turn without a request is
            # held as 0 by the one call, not at all by the slices: `get` gives None)
            assert [part.get(i) for i in range(n + 2)] == \
                [whole.get(i) for i in range(n + 2)], (path, size)
            assert ahead_mod._same_configs(part, whole), (path, size)
        if path == mixed:  # a turn given another configuration is seen
            held = part._ids[3]
            part._ids[3] = next(k for k, cf in enumerate(part._made)
                                if cf != part._made[held])
            assert not ahead_mod._same_configs(part, whole)
        a.capture.close()


def test_a_slice_that_fails_stops_only_the_building_ahead(
        monkeypatch: pytest.MonkeyPatch, taken: list[bool], slices: dict[str, Path]) -> None:
    """A slice raising (a shape nothing anticipated) half-way: the load goes on and the
    end's full passes give the report."""
    general = report([slices["hosted"]], monkeypatch, FEEDS[0], ahead=False)
    real, calls = ahead_mod.from_table, []

    def failing(*args: Any) -> None:
        calls.append(1)
        if len(calls) == 3:
            raise ValueError("a shape nothing anticipated")
        real(*args)

    monkeypatch.setattr(ahead_mod, "from_table", failing)
    assert report([slices["hosted"]], monkeypatch, FEEDS[0]) == general
    assert len(calls) == 3 and taken == [False]  # stopped: the full passes ran
