"""Fetching a provider copy through the real openai SDK against a loopback fake."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from traceview.provider.client import ProviderConfig, make_client
from traceview.provider.errors import ProviderError
from traceview.provider.fetch import (
    HOSTED_EVIDENCE_INCLUDE,
    fetch_chain_items,
    fetch_conversation_items,
)

from .fakeserver import FakeProvider, Seen, Store, closed_port_url


def user_msg(n: int) -> dict[str, Any]:
    return {"id": f"msg_{n:04d}", "type": "message", "role": "user", "status": "completed",
            "content": [{"type": "input_text", "text": f"question {n}"}]}


def client_for(url: str, **kw: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=url, api_key="test", max_retries=0, **kw)


def test_every_page_is_read_in_ascending_order_with_the_sdk_query() -> None:
    items = [user_msg(i) for i in range(250)]
    items.insert(3, {"id": "fs_1", "type": "file_search_call", "status": "completed",
                     "queries": ["excess"], "results": [{"file_id": "f1", "text": "£95"}]})
    store = Store(conversations={"conv_a": items})
    with FakeProvider(store.route) as fp:
        copy = fetch_conversation_items(client_for(fp.base_url), "conv_a")
    assert copy.complete and copy.pages == 3
    assert [i["id"] for i in copy.items] == [i["id"] for i in items]
    assert copy.items[3]["results"] == [{"file_id": "f1", "text": "£95"}]  # include was honoured
    incl = "&".join(f"include%5B%5D={f}" for f in HOSTED_EVIDENCE_INCLUDE)
    assert fp.queries()[0] == f"{incl}&limit=100&order=asc"
    first = fp.seen[0].params
    assert first["include[]"] == list(HOSTED_EVIDENCE_INCLUDE)
    # Later pages repeat every original parameter and add the cursor from ``last_id``.
    assert [s.params for s in fp.seen[1:]] == [
        {**first, "after": ["msg_0098"]},
        {**first, "after": ["msg_0198"]},
    ]
    assert copy.host == fp.base_url.split("//")[1].split("/")[0]
    assert copy.include == list(HOSTED_EVIDENCE_INCLUDE)


def test_chain_reads_input_items_by_last_data_id_then_the_output() -> None:
    inputs = [user_msg(i) for i in range(205)]
    output = [{"id": "msg_out", "type": "message", "role": "assistant",
               "content": [{"type": "output_text", "text": "done"}]}]
    store = Store(responses={"resp_9": {"input": inputs, "output": output}})
    with FakeProvider(store.route) as fp:
        copy = fetch_chain_items(client_for(fp.base_url), "resp_9", include=[])
    assert copy.complete and copy.kind == "chain" and copy.pages == 3
    assert [i["id"] for i in copy.items][-2:] == ["msg_0204", "msg_out"]
    assert fp.seen[1].params["after"] == ["msg_0099"]  # not the page's last_id field
    assert fp.seen[-1].path == "/v1/responses/resp_9"


def _raises(route: Any, **client_kw: Any) -> ProviderError:
    with FakeProvider(route) as fp, pytest.raises(ProviderError) as info:
        fetch_conversation_items(client_for(fp.base_url, **client_kw), "conv_x")
    return info.value


@pytest.mark.parametrize(
    ("status", "kind", "words"),
    [
        (401, "auth", "--api-key-env"),
        (403, "auth", "refused the API key"),
        (404, "not_found", "diff against a saved snapshot"),
        (429, "rate_limited", "try again"),
        (500, "server_error", "provider's side"),
        (503, "server_error", "HTTP 503"),
        (400, "bad_request", "HTTP 400"),
    ],
)
def test_http_failures_become_actionable_errors(status: int, kind: str, words: str) -> None:
    err = _raises(lambda s: (status, {"error": {"message": "Incorrect API key: sk-abcd1234"}}))
    assert err.kind == kind and words in err.message
    assert "sk-abcd1234" not in err.message  # key-shaped text never reaches the user
    assert err.partial is not None and err.partial.pages == 0 and not err.partial.complete


def test_deleted_conversation_is_not_found_naming_it() -> None:
    store = Store(conversations={"conv_other": []})
    with FakeProvider(store.route) as fp, pytest.raises(ProviderError) as info:
        fetch_conversation_items(client_for(fp.base_url), "conv_gone")
    assert info.value.kind == "not_found"
    assert "conv_gone" in info.value.message and "provider copy unavailable" in (
        info.value.message.lower()
    )


def test_timeout_when_the_server_holds_the_request() -> None:
    fp_box: list[FakeProvider] = []

    def hold(seen: Seen) -> tuple[int, Any]:
        fp_box[0].release.wait()  # held until the test ends, far past the client's timeout
        return 200, {"object": "list", "data": []}

    with FakeProvider(hold) as fp, pytest.raises(ProviderError) as info:
        fp_box.append(fp)
        fetch_conversation_items(client_for(fp.base_url, timeout=0.2), "conv_x")
    assert info.value.kind == "timeout" and "--timeout" in info.value.message


def test_network_down_is_reported_as_network() -> None:
    url = closed_port_url()
    with pytest.raises(ProviderError) as info:
        fetch_conversation_items(client_for(url), "conv_x")
    assert info.value.kind == "network" and "cannot reach 127.0.0.1" in info.value.message


@pytest.mark.parametrize(
    "body",
    [b"<html>gateway</html>", {"object": "list"}, {"data": ["x"]}, {"data": [], "has_more": "y"}],
)
def test_malformed_page(body: Any) -> None:
    err = _raises(lambda s: (200, body))
    assert err.kind == "malformed" and "page 1" in err.message


def test_has_more_without_cursor_is_malformed_and_partial() -> None:
    err = _raises(lambda s: (200, {"data": [user_msg(1)], "has_more": True, "last_id": None}))
    assert err.kind == "malformed" and "no cursor" in err.message
    assert err.partial is not None and err.partial.item_count == 1 and not err.partial.complete


def test_a_cursor_that_repeats_is_stopped() -> None:
    page = {"object": "list", "data": [user_msg(1)], "has_more": True, "last_id": "msg_0001"}
    err = _raises(lambda s: (200, page))
    assert err.kind == "cursor_runaway" and "loops" in err.message
    assert err.partial is not None and err.partial.pages == 2


def test_a_cursor_that_never_ends_is_bounded() -> None:
    counter = iter(range(10**6))

    def endless(seen: Seen) -> tuple[int, Any]:
        n = next(counter)
        return 200, {"data": [user_msg(n)], "has_more": True, "last_id": f"msg_{n:04d}"}

    with FakeProvider(endless) as fp, pytest.raises(ProviderError) as info:
        fetch_conversation_items(client_for(fp.base_url), "conv_x", max_pages=7)
    err = info.value
    assert err.kind == "cursor_runaway" and "after 7 pages" in err.message
    assert len(fp.seen) == 7
    assert err.partial is not None and err.partial.pages == 7 and not err.partial.complete
    assert err.partial.stopped and err.partial.stopped["kind"] == "cursor_runaway"


def test_failure_mid_way_keeps_the_pages_read_as_partial() -> None:
    store = Store(conversations={"conv_x": [user_msg(i) for i in range(150)]})

    def flaky(seen: Seen) -> tuple[int, Any]:
        return (500, {"error": {"message": "boom"}}) if "after" in seen.params else store.route(
            seen)

    err = _raises(flaky)
    assert err.kind == "server_error"
    assert err.partial is not None and err.partial.pages == 1 and err.partial.item_count == 100
    assert not err.partial.complete


def test_items_changed_between_pages_are_kept_once_and_flagged() -> None:
    items = [user_msg(i) for i in range(150)]
    store = Store(conversations={"conv_x": items})

    def insert_before_cursor(key: str, served: int) -> None:
        if served == 1:  # another client wrote an item that lands before the cursor
            items.insert(50, user_msg(9000))
            items.insert(99, items.pop(100))  # and an item moves across the page boundary

    store.after_page = insert_before_cursor
    with FakeProvider(store.route) as fp:
        copy = fetch_conversation_items(client_for(fp.base_url), "conv_x")
    ids = [i["id"] for i in copy.items]
    assert len(ids) == len(set(ids))
    assert copy.complete
    assert any("changed while it was being read" in w for w in copy.warnings)


def test_missing_key_is_an_auth_error_without_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TV_KEY", raising=False)
    with pytest.raises(ProviderError) as info:
        make_client(ProviderConfig(base_url=closed_port_url(), api_key_env="TV_KEY"))
    assert info.value.kind == "auth" and "$TV_KEY" in info.value.message


def test_client_takes_key_env_base_url_timeout_and_retries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TV_KEY", "test")
    store = Store(conversations={"conv_a": [user_msg(1)]})
    with FakeProvider(store.route) as fp:
        cfg = ProviderConfig(base_url=fp.base_url, api_key_env="TV_KEY", timeout=5, max_retries=1)
        client = make_client(cfg)
        assert client.max_retries == 1 and client.timeout == 5
        copy = fetch_conversation_items(client, "conv_a", config=cfg)
    assert copy.complete and fp.seen[0].authorization == "Bearer test"


def test_retries_follow_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TV_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://unused.invalid/v1")
    with FakeProvider(lambda s: (500, {"error": {"message": "down"}})) as fp:
        cfg = ProviderConfig(base_url=fp.base_url, api_key_env="TV_KEY", max_retries=1)
        with pytest.raises(ProviderError) as info:
            fetch_conversation_items(make_client(cfg), "conv_a", config=cfg)
    assert len(fp.seen) == 2 and "after 1 retry" in info.value.message
