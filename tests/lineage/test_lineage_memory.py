"""A capture that retrieves the same files on every turn keeps one copy of those facts,
and sharing never changes what a turn reports (1 stays 1, 1.0 stays 1.0)."""

from __future__ import annotations

from typing import Any

from traceview.capture.lineage import VECTOR_STORES, response_lineage

TOOLS = [{"type": "file_search", "vector_store_ids": ["vs_case"]}]


def _search(score: Any) -> list[Any]:
    return [{"type": "file_search_call", "id": "fs_1", "status": "completed",
             "queries": ["refund policy"],
             "results": [{"file_id": "file_abc", "filename": "policy.pdf", "score": score}]}]


def test_equal_retrievals_share_one_copy() -> None:
    first = response_lineage(_search(0.8), TOOLS)
    second = response_lineage(_search(0.8), TOOLS)
    assert first is not None and second is not None
    assert first["retrieval"] == ((0, (("file_abc", "policy.pdf", 0.8, None),), None, None),)
    assert first["retrieval"] is second["retrieval"]
    assert first[VECTOR_STORES] == ("vs_case",)
    assert first[VECTOR_STORES] is second[VECTOR_STORES]


def test_sharing_keeps_a_scores_type() -> None:
    as_float = response_lineage(_search(1.0), TOOLS)
    as_int = response_lineage(_search(1), TOOLS)
    assert as_float is not None and as_int is not None
    score_f = as_float["retrieval"][0][1][0][2]
    score_i = as_int["retrieval"][0][1][0][2]
    assert (type(score_f), type(score_i)) == (float, int)


def test_sharing_keeps_a_zero_scores_sign() -> None:
    plus = response_lineage(_search(0.0), TOOLS)
    minus = response_lineage(_search(-0.0), TOOLS)
    assert plus is not None and minus is not None
    assert repr(plus["retrieval"]) != repr(minus["retrieval"])
    assert repr(minus["retrieval"][0][1][0][2]) == "-0.0"


def test_unequal_retrievals_stay_apart() -> None:
    first = response_lineage(_search(0.8), TOOLS)
    other = response_lineage(_search(0.7), TOOLS)
    assert first is not None and other is not None
    assert other["retrieval"][0][1][0][2] == 0.7
    assert first["retrieval"] is not other["retrieval"]


def test_a_result_read_before_a_key_is_registered_is_masked_after() -> None:
    """Results are read once by their values, under the registered keys: a key registered
    later masks the next read of the same result."""
    from traceview.safety.known_keys import registered

    secret = "file_abc_secret_value_123"
    search = [{"type": "file_search_call", "id": "fs_1", "status": "completed",
               "results": [{"file_id": secret, "filename": "policy.pdf", "score": 0.5}]}]
    before = response_lineage(search, TOOLS)
    assert before is not None and before["retrieval"][0][1][0][0] == secret
    with registered(secret):
        after = response_lineage(search, TOOLS)
    assert after is not None and secret not in repr(after["retrieval"])


def test_results_of_other_values_or_kinds_are_read_each() -> None:
    """A score that is a bool, a string or a list, and ids of other kinds, give what the
    result says, whatever was read before."""
    def one(result: dict[str, Any]) -> Any:
        lin = response_lineage([{"type": "file_search_call", "results": [result]}], None)
        assert lin is not None
        return lin["retrieval"][0][1][0]

    assert one({"file_id": "file_a", "score": 1}) == ("file_a", None, 1, None)
    assert one({"file_id": "file_a", "score": True}) == ("file_a", None, None, None)
    assert one({"file_id": "file_a", "score": [1]}) == ("file_a", None, None, None)
    assert one({"file_id": ["file_a"], "score": 1}) == (None, None, 1, None)
    assert one({"file_id": "file_a", "score": 1, "attributes": {"vector_store_id": "vs_1"}}) \
        == ("file_a", None, 1, "vs_1")
    assert one({"file_id": "file_a", "score": 1, "vector_store_id": "vs_2",
                "attributes": {"vector_store_id": "vs_1"}}) == ("file_a", None, 1, "vs_2")
