"""A request's lineage and billing facts are looked for only in bodies that hold one of
their keys (capture/lineage.py _REQUEST_KEYS, capture/facts.py _BILLING_KEYS): every key
they read must still be found when it is the body's only one."""

from __future__ import annotations

from typing import Any

import pytest

from traceview.capture.facts import request_facts

BASE: dict[str, Any] = {"model": "gpt-4o", "input": "hello there"}

# (the one key set, where its fact lands in `extra`, what it holds)
CASES: list[tuple[dict[str, Any], tuple[str, ...], Any]] = [
    ({"tool_choice": "required"}, ("lineage", "tool_choice"), "required"),
    ({"temperature": 0.5}, ("lineage", "temperature"), 0.5),
    ({"top_p": 1}, ("lineage", "top_p"), 1),
    ({"seed": 7}, ("lineage", "seed"), 7),
    ({"reasoning": {"effort": "low"}}, ("lineage", "effort"), "low"),
    ({"reasoning_effort": "high"}, ("lineage", "effort"), "high"),
    ({"metadata": {"case": "c-1"}}, ("lineage", "metadata"), {"case": "c-1"}),
    ({"metadata": {"case": "c-1"}}, ("metadata",), {"case": "c-1"}),
    ({"user": "u-9"}, ("lineage", "user"), "u-9"),
    ({"user": "u-9"}, ("user",), "u-9"),
    ({"safety_identifier": "s-3"}, ("lineage", "safety_identifier"), "s-3"),
    ({"safety_identifier": "s-3"}, ("safety_identifier",), "s-3"),
    ({"service_tier": "flex"}, ("service_tier",), "flex"),
]


@pytest.mark.parametrize(("extra_key", "path", "want"), CASES)
def test_each_key_read_is_found_as_the_body_s_only_one(
        extra_key: dict[str, Any], path: tuple[str, ...], want: Any) -> None:
    f = request_facts("responses", {**BASE, **extra_key}, None)
    got: Any = f.extra
    for step in path:
        assert isinstance(got, dict) and step in got, (extra_key, f.extra)
        got = got[step]
    assert got == want


def test_a_body_without_them_has_neither() -> None:
    f = request_facts("responses", dict(BASE), None)
    assert f.extra is None


def test_acknowledged_checks_are_read_without_any_of_the_keys() -> None:
    items = [{"type": "computer_call_output", "call_id": "c1", "output": {},
              "acknowledged_safety_checks": [{"id": "sc_1"}]}]
    f = request_facts("responses", {"model": "gpt-4o", "input": items}, None)
    assert f.extra is not None and f.extra["lineage"]["acknowledged"] == ("sc_1",)


def test_a_container_s_memory_is_read_without_any_of_the_keys() -> None:
    tools = [{"type": "code_interpreter", "container": {"type": "auto", "memory_limit": "4g"}}]
    f = request_facts("responses", {**BASE, "tools": tools}, None)
    assert f.extra is not None and f.extra["container_memory"] == "4g"
