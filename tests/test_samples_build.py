"""The sample captures hold the numbers the docs and the issue quote, and match their generators.

``claims.jsonl`` and ``claims_included.jsonl`` come from ``regenerate.py`` (the simulator
recorded through the recorder); the rest from ``make_samples.py``. Read with plain orjson
(no traceview code), so a reader bug cannot hide a sample bug.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import orjson
import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces"


def _records(name: str) -> list[dict]:
    return [orjson.loads(line) for line in (SAMPLES / name).read_bytes().splitlines()]


def _is_model_call(rec: dict) -> bool:
    """A Responses/Chat request: unlabelled (hand-built) or recorded to /responses."""
    endpoint = rec.get("endpoint")
    return endpoint is None or endpoint.rstrip("/").endswith(("/v1/responses",
                                                               "/chat/completions"))


def _turns(records: list[dict]) -> list[tuple[dict, dict | None]]:
    """Model-call pairs (skipping recorded non-turn endpoints), in file order.

    Recorder lines pair by ``id``; hand-built lines by order.
    """
    out: list[tuple[dict, dict | None]] = []
    by_link: dict[str, int] = {}
    for rec in records:
        if rec["dir"] == "req":
            if _is_model_call(rec):
                if "id" in rec:
                    by_link[rec["id"]] = len(out)
                out.append((rec, None))
        elif "id" in rec:
            if rec["id"] in by_link:
                n = by_link.pop(rec["id"])
                out[n] = (out[n][0], rec)
        elif out and out[-1][1] is None and (
                rec["body"] is None or rec["body"].get("object") != "conversation"):
            out[-1] = (out[-1][0], rec)
    return out


def _strings(value: object) -> list[str]:
    """Every string (keys and values) inside parsed JSON."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.fixture(scope="module")
def make_samples():
    sys.path.insert(0, str(SAMPLES))
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.path.remove(str(SAMPLES))


def test_committed_samples_are_exactly_what_the_generator_writes(make_samples):
    built = make_samples.build()
    assert built == make_samples.build()  # deterministic
    for name, data in built.items():
        assert (SAMPLES / name).read_bytes() == data, f"{name} is stale: rerun make_samples.py"
    assert make_samples.verify(built) == []


@pytest.fixture(scope="module")
def regenerate():
    spec = importlib.util.spec_from_file_location("regenerate", SAMPLES / "regenerate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_regenerate_is_deterministic_and_matches_the_committed_claims(regenerate, tmp_path):
    runs = []
    for name in ("a", "b"):
        out_dir = tmp_path / name
        out_dir.mkdir()
        assert regenerate.main(["--out-dir", str(out_dir)]) == 0
        runs.append({p.name: p.read_bytes() for p in sorted(out_dir.glob("*.jsonl"))})
    assert sorted(runs[0]) == ["claims.jsonl", "claims_included.jsonl"]
    assert runs[0] == runs[1]
    for name, data in runs[0].items():
        assert (SAMPLES / name).read_bytes() == data, f"{name} is stale: rerun regenerate.py"
    assert regenerate.main(["--check", "--out-dir", str(tmp_path / "a")]) == 0


def test_make_samples_no_longer_writes_the_simulated_claims(make_samples):
    assert not {"claims.jsonl", "claims_included.jsonl"} & set(make_samples.BUILDERS)
    assert not list(SAMPLES.glob("claims_sim*.jsonl"))


@pytest.mark.parametrize("name", ["claims.jsonl", "claims_included.jsonl"])
def test_claims_numbers_match_the_issue(name):
    records = _records(name)
    included = name == "claims_included.jsonl"
    create = records[0]
    assert create["endpoint"] == "POST /v1/conversations"
    assert create["body"]["items"][0]["role"] == "developer"  # the prompt, sent once
    turns = _turns(records)
    assert len(turns) == 4
    usage = [res["body"]["usage"] for _, res in turns]
    assert [(u["input_tokens"], u["output_tokens"]) for u in usage] == [
        (1210, 380), (1690, 402), (6110, 290), (6580, 510)]
    assert sum(u["input_tokens"] for u in usage) == 15590
    assert all(u["output_tokens_details"]["reasoning_tokens"] == 0 for u in usage)
    assert len({req["body"]["conversation"] for req, _ in turns}) == 1
    assert all(req["body"]["tools"][0]["type"] == "file_search" for req, _ in turns)
    assert all("instructions" not in req["body"] for req, _ in turns)
    question = turns[2][0]["body"]["input"][0]["content"]
    assert question == "What's the excess I would pay on this claim?"
    assert len(question.split()) == 9
    turn4 = len(orjson.dumps(turns[3][0]["body"]))
    assert turn4 < 1000 and turns[3][0]["bytes"] == turn4
    assert usage[3]["input_tokens"] > 6000
    for n, (req, res) in enumerate(turns):
        calls = [i for i in res["body"]["output"] if i["type"] == "file_search_call"]
        assert len(calls) == (1 if n in (1, 3) else 0)
        assert all(c["queries"] and c["status"] == "completed" for c in calls)
        if included:
            assert req["body"]["include"] == ["file_search_call.results"]
            assert all(c["results"] and all(r["text"] for r in c["results"]) for c in calls)
        else:
            assert "include" not in req["body"]
            assert all(c["results"] is None for c in calls)


def test_claims_turn_3_is_billed_for_the_chunks_stored_on_turn_2():
    """The deposit is exactly the evidence claims_included.jsonl captured."""
    plain = _turns(_records("claims.jsonl"))
    full = _turns(_records("claims_included.jsonl"))
    [call] = [i for i in full[1][1]["body"]["output"] if i["type"] == "file_search_call"]
    chunk_tokens = sum(4 + -(-len(r["text"].encode()) // 4) for r in call["results"])
    before = plain[1][1]["body"]["usage"]
    grew = plain[2][1]["body"]["usage"]["input_tokens"] - before["input_tokens"]
    assert chunk_tokens > 3000 and grew > chunk_tokens + before["output_tokens"]
    assert [t[1]["body"]["usage"] for t in plain] == [t[1]["body"]["usage"] for t in full]


def test_long_conversation_chains_and_shrinks_silently():
    turns = _turns(_records("long_conversation.jsonl"))
    assert len(turns) == 8
    inputs = [res["body"]["usage"]["input_tokens"] for _, res in turns]
    assert inputs[-4:] == [6110, 6530, 6980, 4120]
    assert inputs[:-1] == sorted(inputs[:-1])
    assert turns[-1][1]["body"]["usage"]["input_tokens_details"]["cached_tokens"] == 0
    for (req, _), (_, prev_res) in zip(turns[1:], turns[:-1], strict=True):
        assert req["body"]["previous_response_id"] == prev_res["body"]["id"]
    assert not any(i["type"] == "compaction" for _, res in turns for i in res["body"]["output"])


def test_owned_state_resends_the_transcript_and_shows_the_policy():
    turns = _turns(_records("claims_owned_state.jsonl"))
    sizes = [len(orjson.dumps(req["body"])) for req, _ in turns]
    assert sizes == sorted(sizes) and sizes[-1] > 4 * sizes[0]
    assert [res["body"]["usage"]["completion_tokens"] for _, res in turns] == [380, 402, 290, 510]
    assert all(res["body"]["object"] == "chat.completion" for _, res in turns)
    assert "Escape of water" in orjson.dumps(turns[1][0]["body"]).decode()


def test_damaged_lines_fail_exactly_where_the_readme_says():
    data = (SAMPLES / "damaged.jsonl").read_bytes()
    assert not data.endswith(b"\n")
    bad = []
    for n, line in enumerate(data.split(b"\n"), 1):
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError:
            bad.append(n)
    assert bad == [3, 4, 10]
    assert orjson.loads(data.split(b"\n")[4]) == {"hello": "world"}


def test_service_day_covers_every_turn_shape():
    turns = _turns(_records("service_day.jsonl"))
    assert len(turns) == 12
    bodies = [res["body"] for _, res in turns]
    assert [b["status"] if b else None for b in bodies].count("failed") == 1
    assert any(b and b["status"] == "incomplete" for b in bodies)
    cut = [res for _, res in turns if res["body"] is None]
    assert len(cut) == 1 and cut[0]["events"][-1]["type"] == "response.output_text.delta"
    streamed = [res for _, res in turns if res.get("events") and res["body"]]
    assert streamed[0]["events"][-1]["type"] == "response.completed"
    assert any(i["type"] == "compaction" for b in bodies if b for i in b["output"])
    ws = [i for b in bodies if b for i in b["output"] if i["type"] == "web_search_call"]
    assert ws and ws[0]["action"]["sources"]


def test_hostile_text_is_valid_json_full_of_escapes_and_fake_keys():
    text = (SAMPLES / "hostile.jsonl").read_text()
    records = _records("hostile.jsonl")
    assert len(_turns(records)) == 2
    blob = "\n".join(_strings(records))
    for needle in ("[bold red]pwned[/]", "\x1b[31m", "\x1b]8;;http://x\x1b\\", "\x1b[2J", "\x07",
                   "sk-proj-FAKEKEY1234567890abcdef", "Bearer sk-FAKE"):
        assert needle in blob
    assert "\x1b" not in text  # escaped on disk, live only once parsed
