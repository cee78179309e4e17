"""A turn's start time (`ts` in the report): the provider's created_at, else the recorder's."""

from __future__ import annotations

from traceview.capture.response_facts import response_facts


def test_created_at_wins() -> None:
    f = response_facts({"ts": 1767225700.5, "elapsed_ms": 2000,
                        "body": {"id": "r", "created_at": 1767225600, "status": "completed"}})
    assert f.started_at == 1767225600


def test_chat_created() -> None:
    f = response_facts({"body": {"object": "chat.completion", "created": 1741965105,
                                 "choices": [{"finish_reason": "stop"}]}})
    assert f.started_at == 1741965105


def test_recorder_ts_less_elapsed() -> None:
    assert response_facts({"ts": 1767225700.5, "elapsed_ms": 2000,
                           "body": {"id": "r"}}).started_at == 1767225698
    assert response_facts({"ts": "2026-01-01T00:00:10Z", "elapsed_ms": 4000,
                           "body": {"id": "r"}}).started_at == 1767225606


def test_unknown_or_damaged_is_none() -> None:
    for rec in ({"body": {"id": "r"}}, {"ts": "yesterday", "body": {}},
                {"ts": -5, "body": {"created_at": "soon"}}, {"ts": True}):
        assert response_facts(rec).started_at is None, rec
