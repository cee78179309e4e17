"""Every kind of body the simulator returns is one the openai SDK's types accept."""

from __future__ import annotations

import json

import pydantic
from openai.types.chat import ChatCompletion
from openai.types.conversations import (
    Conversation,
    ConversationDeletedResource,
    ConversationItemList,
)
from openai.types.conversations.conversation_item import ConversationItem
from openai.types.responses import (
    Response,
    ResponseCompactionItem,
    ResponseStreamEvent,
    ResponseUsage,
)
from openai.types.responses.response_item_list import ResponseItemList

from tests.sim.conftest import FS_TOOL

EVENTS = pydantic.TypeAdapter(ResponseStreamEvent)
ITEM = pydantic.TypeAdapter(ConversationItem)


def raw(call) -> dict:
    return json.loads(call.text)


def test_response_bodies_validate(client):
    conv = Conversation.model_validate(raw(client.conversations.with_raw_response.create()))
    create = client.responses.with_raw_response.create
    plain = raw(create(model="gpt-4.1", conversation=conv.id, input="Hello"))
    searched = raw(create(model="gpt-4.1", conversation=conv.id, tools=FS_TOOL,
                          input="Is accidental damage covered?"))
    included = raw(create(model="gpt-4.1", tools=FS_TOOL, include=["file_search_call.results"],
                          input="Are receipts needed?"))
    web = raw(create(model="gpt-4.1", tools=[{"type": "web_search"}], input="latest news?",
                     include=["web_search_call.action.sources"]))
    compacting = raw(create(model="gpt-4.1", input="hi", context_management=[
        {"type": "compaction", "compact_threshold": 1000}], instructions="x" * 5000))
    function = raw(create(model="gpt-4.1", tool_choice="required", input="go", tools=[
        {"type": "function", "name": "lookup", "parameters": {"type": "object"}}]))
    for body in (plain, searched, included, web, compacting, function):
        Response.model_validate(body)
    assert searched["output"][0]["results"] is None
    assert included["output"][0]["results"][0]["text"]
    assert web["output"][0]["action"]["sources"]
    assert compacting["output"][0]["type"] == "compaction"
    assert function["output"][0]["type"] == "function_call"
    fetched = raw(client.responses.with_raw_response.retrieve(searched["id"]))
    Response.model_validate(fetched)


def test_listings_and_deletes_validate(client):
    conv = client.conversations.create()
    resp = client.responses.create(model="gpt-4.1", conversation=conv.id, tools=FS_TOOL,
                                   input="Is accidental damage covered?")
    items = raw(client.conversations.items.with_raw_response.list(
        conv.id, include=["file_search_call.results"]))
    ConversationItemList.model_validate(items)
    ResponseItemList.model_validate(raw(client.responses.input_items.with_raw_response.list(
        resp.id)))
    ITEM.validate_python(raw(client.conversations.items.with_raw_response.retrieve(
        items["data"][0]["id"], conversation_id=conv.id)))
    added = raw(client.conversations.items.with_raw_response.create(
        conv.id, items=[{"type": "message", "role": "user", "content": "more"}]))
    ConversationItemList.model_validate(added)
    Conversation.model_validate(raw(client.conversations.items.with_raw_response.delete(
        added["data"][0]["id"], conversation_id=conv.id)))
    Conversation.model_validate(raw(client.conversations.with_raw_response.update(
        conv.id, metadata={"k": "v"})))
    ConversationDeletedResource.model_validate(
        raw(client.conversations.with_raw_response.delete(conv.id)))


def test_response_delete_body(client):
    resp = client.responses.create(model="gpt-4.1", input="hi")
    http = client._client  # the SDK returns None for this call; check the raw body
    body = http.delete(f"{client.base_url}responses/{resp.id}",
                       headers={"Authorization": "Bearer sk-x-000000000"}).json()
    assert body == {"id": resp.id, "object": "response.deleted", "deleted": True}


def test_stream_events_validate(client):
    stream = client.responses.with_raw_response.create(
        model="gpt-4.1", stream=True, tools=FS_TOOL, input="Is accidental damage covered?",
        context_management=[{"type": "compaction", "compact_threshold": 1000}])
    stream.http_response.read()
    events = [json.loads(line[6:]) for line in stream.text.splitlines()
              if line.startswith("data: ")]
    kinds = [EVENTS.validate_python(e).type for e in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.file_search_call.searching" in kinds
    assert "response.compaction.compacting" in kinds
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    Response.model_validate(events[-1]["response"])


def test_compact_and_chat_bodies_validate(client):
    first = client.responses.create(model="gpt-4.1", input="Hello")
    body = raw(client.responses.with_raw_response.compact(model="gpt-4.1",
                                                           previous_response_id=first.id))
    # CompactedResponse types user messages as output messages (an SDK quirk, see
    # docs/openai-wire.md §4), so check its parts against their own types.
    assert body["object"] == "response.compaction" and isinstance(body["created_at"], int)
    ResponseCompactionItem.model_validate(body["output"][-1])
    ResponseUsage.model_validate(body["usage"])
    assert [i["role"] for i in body["output"][:-1]] == ["user"]
    chat = raw(client.chat.completions.with_raw_response.create(
        model="gpt-4o", messages=[{"role": "user", "content": "hi"}]))
    ChatCompletion.model_validate(chat)


def test_error_bodies_have_the_provider_shape(client):
    import openai
    import pytest

    with pytest.raises(openai.NotFoundError) as err:
        client.responses.retrieve("resp_missing")
    assert err.value.body == {"message": "Response with id 'resp_missing' not found.",
                              "type": "invalid_request_error", "param": None, "code": None}
