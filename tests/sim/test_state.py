"""The simulator keeps and bills state the way the hosted provider does."""

from __future__ import annotations

import openai
import pytest

from tests.sim.conftest import FS_TOOL
from traceview.sim import SimServer, scenario


def test_claims_scenario_bills_the_sample_numbers(sim, client):
    conv = scenario.run_claims(client)
    items = list(client.conversations.items.list(conv, order="asc"))
    roles = [i.role for i in items if i.type == "message"]
    assert roles == ["developer", *["user", "assistant"] * 3, "developer", "user", "assistant"]
    assert [i.type for i in items].count("file_search_call") == 2
    usage = [record.body["usage"] for record in sim.state.responses.values()]
    assert [u["input_tokens"] for u in usage] == [1210, 1690, 6110, 6580]
    assert [u["output_tokens"] for u in usage] == [380, 402, 290, 510]


def test_previous_response_id_chain_is_billed_in_full(client):
    first = client.responses.create(model="gpt-4.1", input="Hello there, this is turn one.")
    second = client.responses.create(model="gpt-4.1", previous_response_id=first.id,
                                     input="And turn two.")
    assert second.usage.input_tokens > first.usage.input_tokens + first.usage.output_tokens
    listed = list(client.responses.input_items.list(second.id, order="asc"))
    assert [i.role for i in listed if i.type == "message"] == ["user", "assistant", "user"]


def test_file_search_results_are_shown_only_when_included(client):
    conv = client.conversations.create()
    resp = client.responses.create(model="gpt-4.1", conversation=conv.id, tools=FS_TOOL,
                                   input="Is accidental damage covered?")
    assert resp.output[0].type == "file_search_call" and resp.output[0].results is None
    plain = client.conversations.items.list(conv.id).data
    full = client.conversations.items.list(conv.id, include=["file_search_call.results"]).data
    call = next(i for i in plain if i.type == "file_search_call")
    assert call.results is None
    call = next(i for i in full if i.type == "file_search_call")
    assert len(call.results) == 5 and all(r.text for r in call.results)
    again = client.responses.retrieve(resp.id, include=["file_search_call.results"])
    assert again.output[0].results


@pytest.mark.parametrize(
    ("choice", "message", "searched"),
    [
        ("none", "Is accidental damage covered?", False),
        ("auto", "Is accidental damage covered?", True),
        ("auto", "Thanks, that helps.", False),
        ("required", "Thanks, that helps.", True),
        ({"type": "file_search"}, "Thanks, that helps.", True),
    ],
)
def test_tool_choice_is_honoured(client, choice, message, searched):
    resp = client.responses.create(model="gpt-4.1", tools=FS_TOOL, tool_choice=choice,
                                   input=message)
    assert (resp.output[0].type == "file_search_call") is searched


def test_auto_does_not_search_again_for_terms_already_deposited(client):
    conv = client.conversations.create()
    kw = dict(model="gpt-4.1", conversation=conv.id, tools=FS_TOOL)
    assert client.responses.create(**kw, input="Is accidental damage covered?").output[0].type \
        == "file_search_call"
    assert client.responses.create(**kw, input="What's the excess?").output[0].type == "message"


def test_compaction_shrinks_later_turns(client):
    conv = client.conversations.create()
    cm = [{"type": "compaction", "compact_threshold": 4000}]
    kw = dict(model="gpt-4.1", conversation=conv.id, tools=FS_TOOL, context_management=cm)
    first = client.responses.create(**kw, input="Is accidental damage covered?")
    second = client.responses.create(**kw, input="Thanks. And what else?")
    assert second.output[0].type == "compaction"
    third = client.responses.create(**kw, input="One more question.")
    assert third.usage.input_tokens < second.usage.input_tokens
    assert first.usage.input_tokens < second.usage.input_tokens
    kinds = [i.type for i in client.conversations.items.list(conv.id, order="asc")]
    assert kinds[0] == "compaction" and "file_search_call" not in kinds


def test_truncation_auto_drops_silently_and_disabled_refuses():
    with SimServer(context_window=300) as sim:
        client = openai.OpenAI(base_url=sim.base_url, api_key="sk-x-00000000000", max_retries=0)
        conv = client.conversations.create()
        sizes = []
        for n in range(6):
            resp = client.responses.create(model="gpt-4.1", conversation=conv.id,
                                           truncation="auto", input=f"turn {n} " + "word " * 30)
            sizes.append(resp.usage.input_tokens)
            assert all(o.type == "message" for o in resp.output)
        assert max(sizes) <= 300
        assert len(list(client.conversations.items.list(conv.id))) == 12  # nothing deleted
        with pytest.raises(openai.BadRequestError) as err:
            client.responses.create(model="gpt-4.1", conversation=conv.id, input="more")
        assert err.value.code == "context_length_exceeded"


def test_pagination_follows_the_provider(client):
    conv = client.conversations.create(items=[
        {"type": "message", "role": "user", "content": f"item {n}"} for n in range(20)])
    client.conversations.items.create(conv.id, items=[
        {"type": "message", "role": "user", "content": f"item {n}"} for n in range(20, 25)])
    first = client.conversations.items.list(conv.id)
    assert len(first.data) == 20 and first.has_more  # default limit 20, newest first
    assert first.data[0].content[0].text == "item 24"
    page = client.conversations.items.list(conv.id, limit=3, order="asc", after=first.data[-1].id)
    assert [i.content[0].text for i in page.data] == ["item 6", "item 7", "item 8"]
    every = [i.content[0].text for i in client.conversations.items.list(conv.id, limit=7,
                                                                        order="asc")]
    assert every == [f"item {n}" for n in range(25)]
    for bad in (0, 101):
        with pytest.raises(openai.BadRequestError):
            client.conversations.items.list(conv.id, limit=bad)


def test_errors_like_the_provider(sim, client):
    with pytest.raises(openai.NotFoundError):
        client.conversations.retrieve("conv_missing")
    with pytest.raises(openai.BadRequestError) as err:
        client.responses.create(model="gpt-4.1", previous_response_id="resp_missing", input="x")
    assert err.value.param == "previous_response_id"
    unstored = client.responses.create(model="gpt-4.1", input="x", store=False)
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(unstored.id)
    sim.inject(status=429)
    with pytest.raises(openai.RateLimitError) as err:
        client.responses.create(model="gpt-4.1", input="x")
    assert err.value.code == "rate_limit_exceeded"
    assert client.responses.create(model="gpt-4.1", input="x").status == "completed"


def test_seeded_runs_are_identical():
    def run() -> list[dict]:
        with SimServer(seed="s") as sim:
            c = openai.OpenAI(base_url=sim.base_url, api_key="sk-x-00000000000", max_retries=0)
            scenario.run_claims(c, include=True)
            return [r.body for r in sim.state.responses.values()]

    assert run() == run()
