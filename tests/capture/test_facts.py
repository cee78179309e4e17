"""What a record's facts say, as a user reads them: hosted calls paired with their outputs,
and user text with a registered key masked."""

from __future__ import annotations

from typing import Any

from traceview.capture import items
from traceview.capture.facts import request_facts
from traceview.safety import known_keys

HOSTED_SHAPES: list[list[Any]] = [
    [{"type": "shell_call", "id": "sh_1", "call_id": "c1", "status": "completed",
      "environment": {"type": "container_auto"}},
     {"type": "shell_call_output", "call_id": "c1", "output": []}],
    [{"type": "shell_call", "id": "sh_2", "call_id": "c2", "environment": {"type": "local"}}],
    [{"type": "tool_search_output", "call_id": "c3"},
     {"type": "tool_search_call", "id": "ts", "call_id": "c3", "execution": "server"},
     {"type": "program", "id": "p", "call_id": "c4"}, {"type": "program_output", "call_id": "c4"},
     {"type": "web_search_call", "id": "ws", "action": {"type": "search", "query": "q",
                                                        "sources": [{"url": "u"}] * 3}},
     {"type": "file_search_call", "id": "fs", "queries": ["a", 3], "results": [{}]},
     {"type": "mcp_list_tools", "tools": [{}]}, "not an item"],
]


def test_hosted_calls_read_their_outputs_by_call_id() -> None:
    """A shell, tool search or program call is `captured` when its output (same call_id)
    is in the response, wherever it sits; a web search counts the sources it captured; a
    local shell is not a hosted call."""
    found = items.hosted_calls(HOSTED_SHAPES[0]) + items.hosted_calls(HOSTED_SHAPES[2])
    assert [c.evidence for c in found if c.type in ("shell_call", "tool_search_call",
                                                     "program")] == ["captured"] * 3
    assert [c.detail for c in found if c.type == "web_search_call"] == ["3 sources captured"]
    assert items.hosted_calls(HOSTED_SHAPES[1]) == ()


def test_a_registered_key_of_plain_words_is_masked_in_the_user_text() -> None:
    body = {"conversation": "c", "input": [{"role": "user", "content": "plain wordsmith"}]}
    assert request_facts("responses", body, None).user_text == "plain wordsmith"
    known_keys.add_secret("wordsmith")  # the root conftest forgets it after the test
    assert "wordsmith" not in (request_facts("responses", body, None).user_text or "")
    assert "wordsmith" not in (request_facts("responses", {"input": "plain wordsmith"},
                                             None).user_text or "")


def test_a_one_message_list_and_a_string_input_say_the_same() -> None:
    """`input: "text"` is one user message: the same bytes, count, words and estimate as
    the list that spells it out."""
    text = "My washing machine leaks — is that covered?"
    as_list = request_facts("responses", {"input": [{"role": "user", "content": text}]}, 10)
    as_str = request_facts("responses", {"input": text}, 10)
    names = ("input_bytes", "input_count", "new_input_tokens", "user_text", "user_words",
             "first_user_sig")
    assert [getattr(as_list, n) for n in names] == [getattr(as_str, n) for n in names]


# Keys made only of letters, digits and spaces: the shapes a plain user message can hold.
ALNUM_KEYS = ["Bearer abcdefghijkl", "bearer abcdefghijkl", "BEARER Xy12Xy12Xy12",
              "AKIAABCDEFGHIJKLMNOP", "ASIAABCDEFGHIJKLMNOP", "xAKIAABCDEFGHIJKLMNOP",
              "AIza" + "Q" * 35, "key AIza" + "1" * 30 + " there"]


def test_a_key_in_a_plain_user_message_is_masked_in_its_text() -> None:
    from traceview.safety.redact import redact_text

    for key in ALNUM_KEYS:
        for body in ({"input": key}, {"input": [{"role": "user", "content": key}]}):
            text = request_facts("responses", body, None).user_text
            assert text == redact_text(key) != key, (key, text)


def test_a_file_name_seen_before_is_masked_once_a_key_is_registered() -> None:
    """A file search's file names and queries repeat on many turns and are masked once
    each: a key registered after the name was first read is still masked in it (the
    names masked under the old keys are not reused)."""
    from traceview.capture.response_facts import response_facts

    output = [{"type": "file_search_call", "id": "fs_1", "status": "completed",
               "queries": ["notes of quillfeather"],
               "results": [{"file_id": "file-1", "filename": "quillfeather.pdf",
                            "score": 0.5}]}]
    record = {"dir": "res", "body": {"object": "response", "status": "completed",
                                     "output": output}}

    def seen() -> tuple[Any, Any]:
        f = response_facts(record)
        results = f.extra["lineage"]["retrieval"][0][1]
        return results[0][1], f.hosted_calls[0].queries[0]

    assert seen() == ("quillfeather.pdf", "notes of quillfeather")
    known_keys.add_secret("quillfeather")  # the root conftest forgets it after the test
    name, query = seen()
    assert "quillfeather" not in name and "quillfeather" not in query
    assert name.endswith(".pdf") and query.startswith("notes of ")
