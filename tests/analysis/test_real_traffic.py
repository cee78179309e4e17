"""What the analysis reads *between* records on real traffic (issue #10): conversations
through compaction, retries as attempts, non-text input, hosted loops, items that need
the application, provider counters, run-level facts, totals of unknowns, prices.

Captures are built with the openai SDK's own types (tests/sdk_captures.py) where no
real capture holds the shape.
"""

from __future__ import annotations

import glob
import json
from pathlib import Path
from typing import Any

import pytest

from tests import sdk_captures as sdk
from tests.builders import file_search, message, req, res, write
from tests.fixtures_shared import run_cli
from traceview.analysis import analyze
from traceview.analysis.pricing import Pricing
from traceview.capture.media import data_url_size, image_tokens

ROOT = Path(__file__).resolve().parents[2]


def _turn(body: dict[str, Any], reply: dict[str, Any], elapsed: int = 1000,
          **res_extra: Any) -> list[dict[str, Any]]:
    return [req(body), res(reply, elapsed, **res_extra)]


# ---- conversations and attempts ------------------------------------------------------

def _compacting_chain(tmp_path: Path) -> Path:
    """8 turns: previous_response_id chain; turns 3, 5, 7 compact (server-side) and the
    next turn continues statelessly from the compaction item, then chains again."""
    recs: list[dict[str, Any]] = []
    prev = None
    window: list[dict[str, Any]] = []
    inputs = {1: 1200, 2: 1335, 3: 1470, 4: 400, 5: 535, 6: 420, 7: 555, 8: 430}
    for n in range(1, 9):
        text = f"question {n} about the long report"
        body: dict[str, Any] = {"model": "gpt-4.1", "input": text,
                                "context_management": [{"type": "compaction",
                                                        "compact_threshold": 1000}]}
        if n in (4, 6, 8):  # stateless: resend the window that starts at the compaction
            body["input"] = [*window, {"role": "user", "content": text}]
        elif prev:
            body["previous_response_id"] = prev
        output = [message(f"answer {n}", f"msg_{n}")]
        if n in (3, 5, 7):
            cmp = sdk.compaction(f"cmp_{n}", f"opaque-summary-{n}" * 20)
            output = [cmp, *output]
            window = [{"type": "compaction", "id": cmp["id"],
                       "encrypted_content": cmp["encrypted_content"]}]
        recs += _turn(body, sdk.body(f"resp_{n}", inputs[n], 120, output))
        prev = f"resp_{n}"
    return write(tmp_path / "compacting_chain.jsonl", recs)


def test_chain_through_compaction_is_one_conversation(tmp_path: Path) -> None:
    a = analyze(str(_compacting_chain(tmp_path)))
    assert len(a.turns) == 8
    assert len(a.conversations) == 1 and a.conversations[0].turns == list(range(1, 9))
    assert a.conversations[0].kind == "chain"
    # turns 4, 6, 8 resend a compaction item: visible input, but the item's encrypted
    # summary has no size in the capture, so their expected input is unknown, and says so
    for t in (a.turns[3], a.turns[5], a.turns[7]):
        assert t.expected_input is None and "compaction" in t.expected_input_unknown


def test_compaction_counted_where_it_happened(tmp_path: Path) -> None:
    a = analyze(str(_compacting_chain(tmp_path)))
    compacted = [t.index for t in a.turns if "compaction" in t.markers]
    assert compacted == [3, 5, 7]
    assert a.totals["markers"]["compaction"] == 3
    assert not any("compaction_likely" in t.markers for t in a.turns)
    assert not any("deposit" in t.markers for t in a.turns)
    t4 = a.turns[3]
    assert t4.analysis_context["compaction_resent"] == 3
    assert any("resends the compaction item first seen on turn 3" in s for s in t4.explanation)
    assert not any(s.startswith("Compaction happened") for s in t4.explanation)


def _retry(tmp_path: Path, second_more: bool = False) -> Path:
    body = {"model": "gpt-4.1", "input": [{"role": "user", "content": "Summarise the claim"}],
            "tools": [{"type": "function", "name": "lookup", "parameters": {}}]}
    retry = json.loads(json.dumps(body))
    if second_more:
        retry["input"].append({"role": "user", "content": "(and be brief)"})
    err = {"error": {"message": "Invalid value for 'temperature'", "type":
                     "invalid_request_error", "param": "temperature", "code": "invalid_value"}}
    recs = [req(body), {"dir": "res", "elapsed_ms": 180, "status": 400, "body": err},
            *_turn(retry, sdk.body("resp_ok", 900, 80, [message("done")]), 2100),
            *_turn({"model": "gpt-4.1", "input": "thanks", "previous_response_id": "resp_ok"},
                   sdk.body("resp_2", 1010, 20, [message("welcome")]), 700)]
    return write(tmp_path / "retry.jsonl", recs)


@pytest.mark.parametrize("second_more", [False, True])
def test_retry_is_an_attempt_of_the_same_turn(tmp_path: Path, second_more: bool) -> None:
    a = analyze(str(_retry(tmp_path, second_more)))
    assert [t.index for t in a.turns] == [1, 2]
    assert len(a.conversations) == 1 and a.conversations[0].turns == [1, 2]
    t1 = a.turns[0]
    assert t1.status == "completed" and t1.markers == ["retried"]
    assert [(x["line"], x["status"], x["http_status"], x["error_code"]) for x in t1.attempts] \
        == [(1, "failed", 400, "invalid_value"), (3, "completed", None, None)]
    assert t1.elapsed_ms == 2100 and t1.caller_elapsed_ms == 2280
    assert a.totals["attempts"] == 1
    assert a.totals["latency_ms"]["p50"] == pytest.approx((2280 + 700) / 2)
    assert any("2 attempts" in s and "includes the failed attempts" in s
               for s in t1.explanation)


def test_failure_not_retried_stays_its_own_turn(tmp_path: Path) -> None:
    err = {"error": {"message": "boom", "type": "server_error", "code": "server_error"}}
    recs = [req({"model": "gpt-4.1", "input": "a"}), res(err, 50, status=500),
            *_turn({"model": "gpt-4.1", "input": "something else"},
                   sdk.body("resp_b", 100, 5, [message("b")]))]
    a = analyze(str(write(tmp_path / "f.jsonl", recs)))
    assert len(a.turns) == 2 and a.turns[0].status == "failed" and not a.turns[1].attempts
    assert (a.turns[0].http_status, a.turns[0].error_code) == (500, "server_error")
    assert any("[HTTP 500]" in s and "server_error" in s for s in a.turns[0].explanation)


# ---- non-text input ------------------------------------------------------------------

def test_image_header_sizes_and_published_rule() -> None:
    assert data_url_size(sdk.data_url(sdk.png(1024, 768))) == (1024, 768)
    assert image_tokens(1024, 768, "high", "gpt-4o") == 85 + 170 * 4
    assert image_tokens(2048, 4096, "high", "gpt-4o") == 1105  # the guide's own example
    assert image_tokens(1024, 768, None, "computer-use-preview") == 65 + 129 * 4
    assert image_tokens(None, None, "low", "gpt-4o") == 85  # low needs no size
    assert image_tokens(None, None, "high", "gpt-4o") is None
    assert image_tokens(1024, 1024, "high", "gpt-4.1-mini") == int(1024 * 1.62)


def _screenshot_capture(tmp_path: Path, image: dict[str, Any]) -> Path:
    first = {"model": "computer-use-preview", "input": "open the settings page",
             "tools": [{"type": "computer_use_preview", "display_width": 1024,
                        "display_height": 768, "environment": "browser"}],
             "truncation": "auto"}
    second = {"model": "computer-use-preview", "previous_response_id": "resp_1",
              "truncation": "auto", "tools": first["tools"],
              "input": [{"type": "computer_call_output", "call_id": "call_1",
                         "output": image}]}
    recs = [*_turn(first, sdk.body("resp_1", 600, 40, [sdk.computer_call("call_1")],
                                   model="computer-use-preview")),
            *_turn(second, sdk.body("resp_2", 600 + 40 + 4 + 581 + 3, 30, [message("done")],
                                    model="computer-use-preview"))]
    return write(tmp_path / "screens.jsonl", recs)


def test_screenshot_rise_is_not_a_deposit(tmp_path: Path) -> None:
    shot = {"type": "computer_screenshot", "image_url": sdk.data_url(sdk.png(1024, 768))}
    a = analyze(str(_screenshot_capture(tmp_path, shot)))
    t1, t2 = a.turns
    assert "computer_action" in t1.markers and "unanswered_call" not in t1.markers
    assert t2.media_input[0]["tokens"] == 581 and t2.media_input[0]["width"] == 1024
    assert "deposit" not in t2.markers
    assert abs(t2.unexplained_tokens) < 20
    assert any("computer_screenshot 1024×768" in s and "≈ 581 tokens" in s
               for s in t2.explanation)


def test_input_that_cannot_be_estimated_says_so(tmp_path: Path) -> None:
    pdf = {"type": "computer_screenshot", "file_id": "file-abc"}  # no bytes, no size
    a = analyze(str(_screenshot_capture(tmp_path, pdf)))
    t2 = a.turns[1]
    assert t2.expected_input is None and "deposit" not in t2.markers
    assert t2.expected_input_unknown.startswith(
        "expected input unknown: image computer_call_output #0 computer_screenshot: image size")
    body = {"model": "gpt-4.1", "previous_response_id": "resp_1",
            "input": [{"role": "user", "content": [
                {"type": "input_file", "filename": "policy.pdf", "file_data": "data:..."},
                {"type": "input_text", "text": "what does it cover?"}]}]}
    recs = [*_turn({"model": "gpt-4.1", "input": "hi"},
                   sdk.body("resp_1", 100, 10, [message("ok")])),
            *_turn(body, sdk.body("resp_2", 9000, 10, [message("ok")]))]
    b = analyze(str(write(tmp_path / "pdf.jsonl", recs)))
    assert b.turns[1].expected_input is None and "deposit" not in b.turns[1].markers
    assert "input_file" in b.turns[1].expected_input_unknown
    assert b.turns[1].media_input[0]["filename"] == "policy.pdf"


# ---- hosted loops, include advice --------------------------------------------------

def test_no_compaction_likely_after_a_multi_pass_hosted_turn(tmp_path: Path) -> None:
    loop = [sdk.code_interpreter("ci_1"), sdk.code_interpreter("ci_2"),
            sdk.code_interpreter("ci_3"), message("plotted")]
    tools = [{"type": "code_interpreter", "container": {"type": "auto"}}]
    recs = [*_turn({"model": "gpt-4.1", "input": "hello", "tools": tools},
                   sdk.body("resp_1", 1000, 50, [message("ok")])),
            *_turn({"model": "gpt-4.1", "input": "plot it", "tools": tools,
                    "previous_response_id": "resp_1"},
                   sdk.body("resp_2", 4 * 1070, 300, loop)),
            *_turn({"model": "gpt-4.1", "input": "thanks", "previous_response_id": "resp_2",
                    "tools": tools},
                   sdk.body("resp_3", 1500, 20, [message("ok")]))]
    a = analyze(str(write(tmp_path / "loop.jsonl", recs)))
    t2, t3 = a.turns[1], a.turns[2]
    assert t2.model_passes == 4 and "deposit" not in t2.markers
    assert "compaction_likely" not in t3.markers
    assert t3.analysis_context["after_passes"] == {"turn": 2, "passes": 4}
    assert any("4 model passes" in s and "not a sign of compaction" in s for s in t3.explanation)


def test_advice_fits_a_request_that_sent_the_flag(tmp_path: Path) -> None:
    body = {"model": "gpt-4.1", "input": "find the excess", "include":
            ["file_search_call.results"], "tools": [{"type": "file_search",
                                                     "vector_store_ids": ["vs_1"]}]}
    recs = _turn(body, sdk.body("resp_1", 900, 40, [file_search("fs_1", None), message("ok")]))
    t = analyze(str(write(tmp_path / "inc.jsonl", recs))).turns[0]
    text = " ".join(t.explanation)
    assert "although the request sent" in text and "add include" not in text


# ---- nothing silently dropped ------------------------------------------------------

def test_unknown_output_item_is_shown_not_dropped(tmp_path: Path) -> None:
    reply = sdk.body("resp_1", 900, 40, [message("ok")])
    reply["output"].insert(0, {"id": "qs_1", "type": "quantum_search_call",
                               "status": "completed"})
    recs = _turn({"model": "gpt-4.1", "input": "q", "tools": [{"type": "web_search"}]}, reply)
    a = analyze(str(write(tmp_path / "unk.jsonl", recs)))
    t = a.turns[0]
    assert "unknown_item" in t.markers and "tool_offered_unused" not in t.markers
    assert t.unknown_items == [{"index": 0, "type": "quantum_search_call"}]
    assert [(p.line, p.kind) for p in a.problems] == [(2, "unknown_item")]
    assert "quantum_search_call" in a.problems[0].message
    assert any("unknown item type 'quantum_search_call'" in s for s in t.explanation)


def test_items_that_need_the_application(tmp_path: Path) -> None:
    tools = [{"type": "function", "name": "lookup", "parameters": {}},
             {"type": "mcp", "server_label": "gitmcp", "server_url": "https://x"}]
    recs = [*_turn({"model": "gpt-4.1", "input": "go", "tools": tools},
                   sdk.body("resp_1", 500, 20, [sdk.function_call("call_a", "lookup")])),
            # the next turn answers nothing: the function call is left unanswered
            *_turn({"model": "gpt-4.1", "input": "never mind", "tools": tools,
                    "previous_response_id": "resp_1"},
                   sdk.body("resp_2", 600, 20, [sdk.approval_request("mcpr_1")])),
            *_turn({"model": "gpt-4.1", "input": "delete it", "tools": tools,
                    "previous_response_id": "resp_2"},
                   sdk.body("resp_3", 700, 20, [sdk.function_call("call_b", "drop_table")])),
            *_turn({"model": "gpt-4.1", "tools": tools, "previous_response_id": "resp_3",
                    "input": [{"type": "function_call_output", "call_id": "call_b",
                               "output": "no"}]},
                   sdk.body("resp_4", 800, 20, [sdk.refusal_message()]))]
    a = analyze(str(write(tmp_path / "act.jsonl", recs)))
    t1, t2, t3, t4 = a.turns
    assert "unanswered_call" in t1.markers
    assert t1.analysis_context["unanswered"][0]["call_id"] == "call_a"
    assert "approval_request" in t2.markers
    assert any("waiting for approval" in s for s in t2.explanation)
    assert "unoffered_function" in t3.markers and "unanswered_call" not in t3.markers
    assert t3.analysis_context["unoffered"] == ["drop_table"]
    assert "refusal" in t4.markers and any("refused" in s for s in t4.explanation)
    assert a.totals["markers"]["unanswered_call"] == 1


def test_chat_n_choices_any_length_is_incomplete(tmp_path: Path) -> None:
    body = {"model": "gpt-4o-mini", "n": 3, "messages": [{"role": "user", "content": "hi"}]}
    recs = _turn(body, sdk.chat("chatcmpl-1", ["length", "stop", "stop"], 20, 90))
    t = analyze(str(write(tmp_path / "n.jsonl", recs))).turns[0]
    assert t.status == "incomplete" and "incomplete" in t.markers
    assert t.finish_reasons == ["length", "stop", "stop"]
    assert t.incomplete_reason == "max_output_tokens (1 of 3 choices)"


def test_provider_counter_cross_checked_and_billed(tmp_path: Path) -> None:
    reply = sdk.body("resp_1", 900, 40, [sdk.web_search("ws_1"), sdk.web_search("ws_2"),
                                         message("ok")],
                     tool_usage={"web_search": {"num_requests": 3}, "image_gen": {
                         "input_tokens": 0, "output_tokens": 0, "total_tokens": 0,
                         "input_tokens_details": {"image_tokens": 0, "text_tokens": 0}}})
    recs = _turn({"model": "gpt-4.1", "input": "weather?", "tools": [{"type": "web_search"}]},
                 reply)
    t = analyze(str(write(tmp_path / "ctr.jsonl", recs))).turns[0]
    assert "counter_mismatch" in t.markers
    assert t.provider_counters == [{"counter": "web_search_requests", "provider": 3,
                                    "items": 2, "item": "web_search_call"}]
    assert t.cost["hosted_usd"] == pytest.approx(0.03)  # 3 billed searches, not 2


def test_run_level_facts(tmp_path: Path) -> None:
    recs = [*_turn({"model": "gpt-4.1", "input": "a", "instructions": "Be terse.",
                    "store": True},
                   sdk.body("resp_1", 100, 5, [message("ok")], service_tier="default")),
            *_turn({"model": "gpt-4.1", "input": "b", "previous_response_id": "resp_1",
                    "store": False},
                   sdk.body("resp_2", 120, 5, [message("ok")], service_tier="flex"),
                   headers={"x-request-id": "req_123", "openai-processing-ms": "845"})]
    a = analyze(str(write(tmp_path / "run.jsonl", recs)))
    t1, t2 = a.turns
    assert (t1.store, t2.store) == (True, False)
    assert {"unstored_chain", "fingerprint_changed", "instructions_dropped"} <= set(t2.markers)
    assert t2.analysis_context["changed"] == [{"field": "service_tier", "from": "default",
                                               "to": "flex"}]
    assert (t2.request_id, t2.processing_ms) == ("req_123", 845)


def test_chat_fingerprint_change(tmp_path: Path) -> None:
    m1 = [{"role": "user", "content": "hi"}]
    m2 = [*m1, {"role": "assistant", "content": "answer 0"}, {"role": "user", "content": "more"}]
    recs = [*_turn({"model": "gpt-4o-mini", "messages": m1},
                   sdk.chat("c1", ["stop"], 10, 5, fingerprint="fp_a")),
            *_turn({"model": "gpt-4o-mini", "messages": m2},
                   sdk.chat("c2", ["stop"], 30, 5, fingerprint="fp_b"))]
    a = analyze(str(write(tmp_path / "fp.jsonl", recs)))
    assert len(a.conversations) == 1
    assert a.turns[1].markers == ["fingerprint_changed"]
    assert a.turns[1].system_fingerprint == "fp_b"


def test_totals_of_unknowns_are_unknown(tmp_path: Path) -> None:
    err = {"error": {"message": "rate limited", "type": "rate_limit_exceeded",
                     "code": "rate_limit_exceeded"}}
    a = analyze(str(write(tmp_path / "only_failed.jsonl",
                          [req({"model": "gpt-4.1", "input": "x"}), res(err, 10, status=429)])))
    tot = a.totals
    assert tot["input_tokens"] is None and tot["output_tokens"] is None
    assert tot["usage_turns"] == 0 and tot["cost_usd"] is None
    b = analyze(str(_retry(tmp_path)))
    assert b.totals["input_tokens"] == 1910 and b.totals["usage_turns"] == 2


# ---- prices --------------------------------------------------------------------------

def test_every_model_in_samples_and_real_fixtures_is_priced() -> None:
    files = glob.glob(str(ROOT / "tests/fixtures/real/*.jsonl")) + glob.glob(
        str(ROOT / "sample_traces/*.jsonl"))
    unpriced = {t.model for f in files for t in analyze(f).turns
                if t.model and t.cost_reason and "not in the pricing table" in t.cost_reason}
    assert unpriced == set()
    p = Pricing.load()
    assert p.taken == "2026-11-30"
    assert p.model_prices("computer-use-preview") is not None
    assert p.model_prices("gpt-5.4-nano-2026-03-17") == {"input": 0.20, "cached_input": 0.02,
                                                         "output": 1.25}
    assert p.storage["vector_store"]["per_gb_day"] == 0.10
    missing = p.cost("gpt-9-imaginary", 10, 0, 10, ())
    assert missing.tokens_usd is None and "not in the pricing table" in missing.reason


def _report(*args: str) -> str:
    """`traceview report ARGS` (main(), in this process), which must exit 0."""
    out = run_cli("report", *args)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode()


def test_report_json_carries_the_new_fields(tmp_path: Path) -> None:
    path = _retry(tmp_path)
    doc = json.loads(_report(str(path), "--format", "json"))
    t1 = doc["turns"][0]
    for key in ("attempts", "caller_elapsed_ms", "store", "http_status", "error_code",
                "media_input", "action_items", "unknown_items", "provider_counters",
                "finish_reasons", "model_passes", "request_id", "processing_ms"):
        assert key in t1
    assert len(t1["attempts"]) == 2 and t1["markers"] == ["retried"]
    assert doc["totals"]["usage_turns"] == 2 and doc["totals"]["attempts"] == 1
    assert "basis" in doc["totals"]["latency_ms"]


def test_text_report_shows_attempts_and_coverage(tmp_path: Path) -> None:
    out = _report(str(_retry(tmp_path)))
    assert "2,280×2" in out and "↻retried" in out
    err = {"error": {"message": "x", "type": "server_error", "code": "server_error"}}
    only = write(tmp_path / "one_failed.jsonl",
                 [req({"model": "gpt-4.1", "input": "x"}), res(err, 10, status=500)])
    out = _report(str(only))
    assert "billed in — (over 0 of 1 turns with usage)" in out


def test_failed_attempt_input_is_not_on_the_capture_side_of_the_diff(tmp_path: Path) -> None:
    from traceview.analysis.transcript import capture_side, pick_target
    from traceview.capture.capture import load

    body = {"model": "gpt-4.1", "conversation": "conv_1",
            "input": [{"role": "user", "content": "Summarise the claim"}]}
    err = {"error": {"message": "overloaded", "type": "server_error", "code": "server_error"}}
    recs = [req(body), res(err, 90, status=503),
            *_turn(body, sdk.body("resp_ok", 900, 80, [message("done", "msg_ok")],
                                  conv="conv_1"))]
    cap = load(str(write(tmp_path / "conv_retry.jsonl", recs)))
    items = capture_side(cap, pick_target(cap, None))
    assert [(i.side, i.turn) for i in items] == [("input", 1), ("output", 1)]


def test_standalone_compact_call_keeps_a_stateless_conversation_whole(tmp_path: Path) -> None:
    u1 = {"role": "user", "content": "Read the policy and remember it."}
    a1 = message("Noted.", "msg_a1")
    u2 = {"role": "user", "content": "What is excluded?"}
    a2 = message("Floods.", "msg_a2")
    cmp = sdk.compaction("cmp_9", "opaque" * 40)
    compacted = {"id": "resp_c", "object": "response.compaction", "created_at": 1,
                 "output": [u1 | {"type": "message"}, u2 | {"type": "message"}, cmp],
                 "usage": {"input_tokens": 5200, "output_tokens": 300, "total_tokens": 5500,
                           "input_tokens_details": {"cached_tokens": 0},
                           "output_tokens_details": {"reasoning_tokens": 0}}}
    window = [u1, u2, {"type": "compaction", "encrypted_content": cmp["encrypted_content"]}]
    recs = [*_turn({"model": "gpt-4.1", "input": [u1]},
                   sdk.body("resp_1", 5000, 10, [a1])),
            *_turn({"model": "gpt-4.1", "input": [u1, a1, u2]},
                   sdk.body("resp_2", 5030, 10, [a2])),
            req({"model": "gpt-4.1", "input": [u1, a1, u2, a2]},
                endpoint="POST /v1/responses/compact"), res(compacted, 900),
            *_turn({"model": "gpt-4.1", "input": [*window, {"role": "user", "content": "And?"}]},
                   sdk.body("resp_4", 420, 10, [message("That's all.")]))]
    a = analyze(str(write(tmp_path / "compact_call.jsonl", recs)))
    assert [t.api for t in a.turns] == ["responses", "responses", "compact", "responses"]
    assert len(a.conversations) == 1
    assert [t.index for t in a.turns if "compaction" in t.markers] == [3]
    assert "compaction_likely" not in a.turns[3].markers
    assert a.turns[3].analysis_context["compaction_resent"] == 3


def test_vector_store_storage_fee_is_shown_when_a_capture_creates_stores(
        tmp_path: Path) -> None:
    recs = [req({"name": "claims"}, endpoint="POST /v1/vector_stores"),
            res({"id": "vs_1", "object": "vector_store", "status": "completed"}, 100),
            *_turn({"model": "gpt-4.1", "input": "hi"}, sdk.body("resp_1", 10, 2, [message("ok")]))]
    a = analyze(str(write(tmp_path / "vs.jsonl", recs)))
    vs = a.totals["vector_stores"]
    assert vs["created"] == 1 and vs["storage_fee"]["per_gb_day"] == 0.10
    b = analyze(str(_retry(tmp_path)))
    assert b.totals["vector_stores"] == {"created": 0, "storage_fee": None}


def test_real_pdf_and_image_url_input_is_listed_with_unknown_tokens() -> None:
    t = analyze(str(ROOT / "tests/fixtures/real/dotnet_input_items_multipart_pagination.jsonl")
                ).turns[0]
    assert [(m["type"], m["source"], m["tokens"]) for m in t.media_input] == [
        ("input_file", "inline", None), ("input_image", "url", None)]
    assert t.media_input[0]["filename"] == "test_favorite_foods.pdf"
    # A first turn is expected to bill its account, which a PDF leaves unknown.
    assert t.expected_input is None and t.expected_input_unknown == (
        "expected input unknown: file user #1 input_file: file content (PDF, document) is not"
        " sized by the capture")
    assert [c["basis"] for c in t.input_account if c["component"] in ("file", "image")] == [
        "unknown", "unknown"]
    assert any("input_file: tokens unknown" in s for s in t.explanation)


def test_deposit_attribution_fits_a_request_that_sent_the_flag(tmp_path: Path) -> None:
    from tests.builders import conv_turn

    flag = ["file_search_call.results"]
    recs = (conv_turn("conv_1", "My washing machine flooded", "r1", 1210, 380, tools=True)
            + conv_turn("conv_1", "Is accidental damage covered?", "r2", 1690, 402, tools=True,
                        output=[file_search("fs_1", None), message("yes")], include=flag)
            + conv_turn("conv_1", "What's the excess?", "r3", 6110, 290, tools=True))
    t3 = analyze(str(write(tmp_path / "claims_sent.jsonl", recs))).turns[2]
    assert "deposit" in t3.markers
    assert t3.attribution["include"] == [] and t3.attribution["include_sent"] == flag
    text = " ".join(t3.explanation)
    assert "although the request sent" in text and "lacked" not in text


def test_type_confused_items_never_crash_the_new_readers(tmp_path: Path) -> None:
    body = {"model": "gpt-4.1", "store": "yes", "instructions": ["odd"],
            "tools": [{"type": "function", "name": ["x"]}, "junk"],
            "input": [{"type": "compaction", "encrypted_content": 3, "id": None},
                      {"type": ["function_call_output"], "call_id": 1},
                      {"type": {"k": 1}}, {"role": "user", "content": [
                          {"type": "input_image", "image_url": {"url": 5}, "detail": 7},
                          {"type": "input_image", "image_url": "data:image/png;base64,@@@"}]}]}
    reply = sdk.body("resp_1", 10, 2, [message("ok")], service_tier="default")
    reply["output"] += [{"type": ["x"]}, {"type": "function_call", "call_id": ["c"],
                                          "name": {"n": 1}}, {"type": "computer_call"}]
    reply["tool_usage"] = {"web_search": {"num_requests": "3"}}
    reply["usage"]["server_tool_use"] = {"web_search_requests": -1}
    recs = [req(body), res(reply, 5, headers={"x-request-id": ["r"],
                                              "openai-processing-ms": "fast"})]
    a = analyze(str(write(tmp_path / "confused.jsonl", recs)))
    t = a.turns[0]
    assert t.store is None and t.request_id is None and t.processing_ms is None
    assert [m["tokens"] for m in t.media_input] == [None, None]
    assert t.to_dict()["index"] == 1 and t.explanation


def test_new_strings_from_the_capture_are_masked(tmp_path: Path) -> None:
    key = "sk-proj-" + "A1b2C3d4" * 6
    body = {"model": "gpt-4.1", "input": [{"role": "user", "content": [
        {"type": "input_file", "filename": f"{key}.pdf", "file_data": "data:x"}]}]}
    reply = sdk.body("resp_1", 10, 2, [message("ok")])
    reply["output"].append({"type": f"{key}_call"})
    recs = [req(body), res(reply, 5, headers={"x-request-id": key})]
    a = analyze(str(write(tmp_path / "secret.jsonl", recs)))
    doc = json.dumps(a.to_report())
    assert key not in doc and key not in " ".join(a.turns[0].explanation)


def test_unknown_item_is_shown_in_the_row(tmp_path: Path) -> None:
    reply = sdk.body("resp_1", 900, 40, [message("ok")])
    reply["output"].insert(0, {"id": "qs_1", "type": "quantum_search_call"})
    path = write(tmp_path / "unk_row.jsonl", _turn({"model": "gpt-4.1", "input": "q"}, reply))
    done = run_cli("report", str(path), "--format", "markdown")
    assert done.returncode == 1  # a problem was found while reading: it says so
    assert "| unknown item type quantum_search_call |" in done.stdout.decode()
