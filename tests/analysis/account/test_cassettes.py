"""The input account on public projects' recorded cassettes (tests/fixtures/cassettes).

Each test is built from a real capture converted by tests/fixtures/cassettes/convert.py:
the bugs this traffic showed, and the issue's targets on the whole set.
"""

from __future__ import annotations

import json
import re
import statistics
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from traceview.analysis.options import Options
from traceview.analysis.session import analyze
from traceview.report.json_out import render_json

CASSETTES = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes"
# A turn with one of these is not expected to match its account (bench/account.py).
MARKED = frozenset({"deposit", "compaction", "compaction_likely", "unknown_item", "failed",
                    "incomplete", "cancelled", "stream_cut", "request_only", "response_only"})


# The five projects first converted; the seven after them were added whole on 2026-12-07.
FIRST = ("pai__", "olm__", "chatlas__", "ellmer__", "llm__")


def analysed(name: str) -> dict[str, Any]:
    analysis = analyze([str(CASSETTES / name)], Options())
    try:
        return json.loads(render_json(analysis))  # type: ignore[no-any-return]
    finally:
        analysis.capture.close()


report = cache(analysed)


def turn(name: str, index: int) -> dict[str, Any]:
    return next(t for t in report(name)["turns"] if t["index"] == index)


def test_a_stateless_turn_is_never_compaction_likely() -> None:
    """pydantic-ai: a stateless gpt-5.6 request (store default, no truncation) billed 142
    after one billed 392 (a tool_search definition the account cannot size): the request
    is billed for what it sends, so the fall is not a compaction."""
    t = turn("pai__test_openai_tool_availability_delta__"
             "test_openai_live_delta_preserves_the_warmed_cache_prefix.jsonl.gz", 2)
    assert (t["input_tokens"], t["expected_input"]) == (142, None)
    assert "compaction_likely" not in t["markers"]


def test_gpt4_vision_images_take_the_tile_rule() -> None:
    """openllmetry: gpt-4-1106-vision-preview bills 1,118 for 13 of text and an image the
    tile rule sizes at 1,105 (85 + 6 x 170)."""
    t = turn("olm__test_vision__test_vision_base64.jsonl.gz", 1)
    image = next(c for c in t["input_account"] if c["component"] == "image")
    assert (t["input_tokens"], t["expected_input"], image["tokens"]) == (1118, 1118, 1105)


@pytest.mark.parametrize(("name", "billed", "expected"), [
    # 597 x 566 JPEG (342 patches) returned by a tool, chat and Responses
    ("pai__test_multimodal_tool_returns__test_multimodal_tool_return_matrix_"
     "tool_return_content-binary-image-openai_chat_.jsonl.gz", 572, 570),
    ("pai__test_multimodal_tool_returns__test_multimodal_tool_return_matrix_"
     "direct-binary-image-openai_chat_.jsonl.gz", 585, 583),
    # 400 x 301 (130 patches)
    ("pai__test_multimodal_tool_returns__test_multimodal_tool_return_matrix_"
     "tool_return_content-url_force_download-image-openai_chat_.jsonl.gz", 317, 315),
])
def test_gpt5_mini_images_take_the_measured_multiplier(name: str, billed: int,
                                                        expected: int) -> None:
    """The published 1.62 gave 555 and 211 for these images (+25 %); billed says 1.2."""
    t = turn(name, 2)
    assert (t["input_tokens"], t["expected_input"]) == (billed, expected)


Figures = tuple[int, int, list[float], list[tuple[str, int, list[str]]]]


@cache
def capture_figures(name: str) -> Figures:
    """billed turns, turns with expected input, |error| of the unmarked ones, and the
    turns marked deposit or compaction_likely, of one capture (each analysed once). Read
    off the analysed turns, the values the JSON report writes (writing and parsing each
    document was a quarter of the time; the writer is the golden test's subject)."""
    billed = known = 0
    errors: list[float] = []
    surprising: list[tuple[str, int, list[str]]] = []
    analysis = analyze([str(CASSETTES / name)], Options())
    try:
        for t in analysis.turns:
            marks = list(t.markers)
            if {"deposit", "compaction_likely"} & set(marks):
                surprising.append((name, t.index, marks))
            if not t.input_tokens:
                continue
            billed += 1
            if t.expected_input is None:
                continue
            known += 1
            if not MARKED & set(marks):
                errors.append(abs(t.expected_input - t.input_tokens) / t.input_tokens)
    finally:
        analysis.capture.close()
    return billed, known, errors, surprising


def figures(prefixes: tuple[str, ...] = ("",)) -> Figures:
    """capture_figures summed over the captures named with a prefix."""
    parts = [capture_figures(path.name) for path in sorted(CASSETTES.glob("*.jsonl.gz"))
             if path.name.startswith(prefixes)]
    return (sum(p[0] for p in parts), sum(p[1] for p in parts),
            [e for p in parts for e in p[2]], [s for p in parts for s in p[3]])


def test_no_deposit_or_likely_compaction_on_any_cassette() -> None:
    """Every compaction in this traffic is explicit (a /responses/compact call or a
    compaction item): none is only likely, and no context arrives without a request."""
    assert figures()[3] == []


@pytest.mark.parametrize(("prefixes", "pinned"), [
    (FIRST, (1132, 976, 967)),  # the five projects first converted: known on 86 %
    (("",), (2984, 2796, 2772)),  # all twelve: known on 94 %
])
def test_account_error_on_the_cassettes(prefixes: tuple[str, ...],
                                        pinned: tuple[int, int, int]) -> None:
    """The issue's error targets on the converted captures: median <= 1.5 %, p90 <= 5 %.
    On the first five projects expected input is known on 86 % of billed turns, not 90 %
    (docs/input-account.md says what the rest lack); with the seven projects added whole
    after them (1,852 billed turns, 98 % known) it is 94 % on all 1,559 captures."""
    billed, known, errors, _ = figures(prefixes)
    ordered = sorted(errors)
    p90 = ordered[int(round(0.9 * (len(ordered) - 1)))]
    assert (billed, known, len(errors)) == pinned
    assert statistics.median(ordered) <= 0.015
    assert p90 <= 0.05


def test_tools_added_mid_conversation_are_not_guessed() -> None:
    """pydantic-ai: an `additional_tools` item (gpt-5.6) billed 160 in all where its JSON
    estimate made the account 110 (-31 %), and rendered as a request's tools 81: the
    provider adds a preamble that varies by model, so the item is unknown, with why."""
    t = turn("pai__test_openai_tool_availability_delta__"
             "test_supported_model_calls_additional_tool.jsonl.gz", 1)
    added = next(c for c in t["input_account"] if c["component"] == "additional_tools")
    assert (t["input_tokens"], t["expected_input"], added["tokens"]) == (160, None, None)
    assert "preamble" in added["reason"]


@pytest.mark.parametrize(("name", "billed", "before", "after"), [
    # gpt-5-mini reported 0 reasoning tokens for a reasoning item it then billed on resend
    ("pai__test_tool_choice_matrix__test_tool_choice_matrix_auto-openai_responses_.jsonl.gz",
     149, 88, 120),
    # gpt-5 reported 128; the resend billed 54 more
    ("pai__test_openai_responses__test_openai_responses_requires_function_call_status_"
     "none.jsonl.gz", 257, 203, 235),
])
def test_reasoning_reported_in_steps_is_counted_at_the_middle(
        name: str, billed: int, before: int, after: int) -> None:
    """gpt-5 (2025-08) and the o-series floor reasoning tokens to 64-token steps: on eight
    real resends the item billed 12-61 more than reported. It is counted at reported + 32
    (estimated) instead of the floor (`before`)."""
    t = turn(name, 2)
    reasoning = next(c for c in t["input_account"] if c["component"] == "reasoning")
    assert (t["input_tokens"], t["expected_input"]) == (billed, after)
    assert reasoning["basis"] == "estimated" and "64-token steps" in reasoning["reason"]
    assert after - before == 32


def test_sources_lists_every_converted_capture_once() -> None:
    """Each capture is named by its cassette's path (more of it where a file name repeats
    in sibling folders, as mirascope's and openinference's do), listed once with its
    repository, commit and licence, and its licence text is shipped."""
    rows = re.findall(r"^\| `([^`]+\.jsonl\.gz)` \| ([^|]+) \|", (CASSETTES / "SOURCES.md")
                      .read_text(encoding="utf-8"), re.MULTILINE)
    names = [name for name, _ in rows]
    assert len(names) == len(set(names)) == 1559
    assert sorted(names) == sorted(p.name for p in CASSETTES.glob("*.jsonl.gz"))
    licences = {p.name.split("-LICENSE")[0] for p in (CASSETTES / "licenses").iterdir()}
    assert {repo.strip().split("/")[1] for _, repo in rows} <= licences
