"""The facts' fast paths give what the general reading gives, on every fixture and sample
and on the same records with values swapped for other types at their paths.

Each fast path (capture/facts.py, capture/items.py) is compared with the general code it
stands in for, written out here as it read before the fast path existed:

- item kinds cached by the tuple of the items' types (`_kinds`) = the kinds read item by
  item (interned types, the role of a typeless item, hosted / plain tests);
- a plain output's refusal found by walking its content = `_output_extras` over it, and no
  other extra (unknown items, actions, compaction keys) is passed over;
- the last user message's text read directly (`_user_side`) = `message_text` over the
  item, after skipping compaction triggers;
- a short string input split once = `_clip` plus a second split;
- text bytes of string leaves measured inline (`text_bytes`) = the recursive measure;
- tool types keyed in C (`_tools`) = the list of each tool's type.
"""

from __future__ import annotations

import random
from pathlib import Path
from sys import intern
from typing import Any

import orjson
import pytest

from tests.hostile.structure_fuzz import _paths
from traceview.capture import facts as F
from traceview.capture.items import (
    describe_item,
    is_message,
    message_text,
    text_bytes,
)
from traceview.capture.model import ResponseFacts
from traceview.capture.plain_text import holds_no_secret
from traceview.safety import redact
from traceview.safety.redact import redact_text
from traceview.wire import ACTION_TYPES, KNOWN_OUTPUT_TYPES
from traceview.wire import HOSTED_CALL_TYPES as HOSTED_TYPES

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("tests/fixtures/real/*.jsonl"), *ROOT.glob("sample_traces/*.jsonl"),
                *ROOT.glob("tests/**/fixtures/*.jsonl")])
SWAPS: list[Any] = [
    None, True, 0, -1, 2**64 - 1, 1.5, "", "x", "refusal", "message", "user", "compaction",
    "compaction_trigger", "file_search_call", "function_call", "mystery_item", [], {}, [{}],
    [None], ["x"], {"type": "refusal", "refusal": "no"}, {"type": [1]}, {"role": "user"},
    [{"type": "refusal", "refusal": "no"}], [{"type": "output_text", "text": "t"}], "w " * 200,
]


def _bodies() -> list[dict[str, Any]]:
    """Every record body of the fixtures, and copies with one value swapped for another
    type at a sample of its paths (fixed seed)."""
    rnd = random.Random(11)
    found: list[dict[str, Any]] = []
    for p in FILES:
        for line in p.read_bytes().splitlines():
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            body = rec.get("body") if isinstance(rec, dict) else None
            if not isinstance(body, dict):
                continue
            found.append(body)
            paths = _paths(body)
            for path in rnd.sample(paths, min(len(paths), 25)):
                copy = orjson.loads(orjson.dumps(body))
                node = copy
                for k in path[:-1]:
                    node = node[k]
                node[path[-1]] = rnd.choice(SWAPS)
                found.append(copy)
    return found


_REFUSAL = {"type": "refusal", "refusal": "I can't help with that."}
_TEXT = {"type": "output_text", "text": "t"}
# Refusals where a plain output holds them, and where it does not (the corpus has few).
SHAPES: list[dict[str, Any]] = [
    {"object": "response", "output": [{"type": "message", "content": [_REFUSAL]}]},
    {"object": "response", "output": [{"type": "message", "content": [_TEXT, _REFUSAL]}]},
    {"object": "response", "output": [{"type": "reasoning", "content": [_REFUSAL]},
                                      {"type": "message", "content": [_TEXT]}]},
    {"object": "response", "output": [{"type": "file_search_call", "content": [_REFUSAL]},
                                      {"type": "message", "content": "refusal"}]},
    {"object": "response", "output": [{"type": "reasoning", "content": [_REFUSAL]}]},
    {"object": "response", "output": [{"role": "assistant", "content": [_REFUSAL]}]},
    {"object": "response", "output": [{"type": "message", "content": [_REFUSAL]},
                                      {"type": "function_call", "call_id": "c", "name": "f"}]},
    {"object": "response", "output": [{"type": "message", "content": ["refusal", _TEXT]}]},
]
BODIES = _bodies() + SHAPES


def _lists(key: str) -> list[list[Any]]:
    return [b[key] for b in BODIES if isinstance(b.get(key), list)]


def test_the_corpus_holds_the_shapes_the_fast_paths_take() -> None:
    outputs, inputs = _lists("output"), _lists("input") + _lists("messages")
    assert len(BODIES) > 3000 and len(outputs) > 1000 and len(inputs) > 1000
    assert any(F._kinds_of(o)[1] for o in outputs)  # hosted calls
    assert any(not F._kinds_of(o)[2] for o in outputs)  # outputs that are not plain
    assert any(isinstance(b.get("input"), str) and len(b["input"]) > 320 for b in BODIES)


def _kinds_general(output: list[Any]) -> tuple[tuple[str, ...], bool, bool]:
    kinds = []
    for i in output:
        if type(i) is dict:
            t = i.get("type")
            kinds.append(intern(t) if type(t) is str and t else
                         intern(str(t or ("message" if "role" in i else "?"))))
    types = tuple(kinds)
    plain = (KNOWN_OUTPUT_TYPES.issuperset(types) and ACTION_TYPES.isdisjoint(types)
             and "compaction" not in types)
    return types, not HOSTED_TYPES.isdisjoint(types), plain


def test_item_kinds_cached_by_their_types_equal_the_kinds_read_item_by_item() -> None:
    for output in _lists("output"):
        want = _kinds_general(output)
        assert F._kinds(output) == want, output
        assert F._kinds(output) == want, output  # again: now from the cache


def test_a_plain_output_passes_over_no_extra_and_finds_every_refusal() -> None:
    checked = refusals = 0
    for body in BODIES:
        output = body.get("output")
        if body.get("object") != "response" or "choices" in body or type(output) is not list:
            continue
        f = F.response_facts({"body": body})
        types = _kinds_general(output)[0] if output else ()
        general = ResponseFacts()
        if types:
            F._output_extras(general, output, types)
        assert f.refusal == general.refusal, output
        for key in ("unknown_items", "actions", "compaction_keys"):
            assert (f.extra or {}).get(key) == (general.extra or {}).get(key), output
        checked += 1
        refusals += f.refusal
    assert checked > 1000 and refusals >= 6


def _user_side_general(items: list[Any], want_sig: bool
                       ) -> tuple[str | None, int | None, int | None]:
    first_sig = first = first_text = None
    if want_sig:
        for item in items:
            if is_message(item) and item.get("role") == "user":
                first, first_text = item, message_text(item) or ""
                first_sig = F.signature(first_text)
                break
    if not items:
        return None, None, first_sig
    last = items[-1]
    for item in reversed(items):
        if not (isinstance(item, dict) and item.get("type") in ("compaction_trigger",)):
            last = item
            break
    if is_message(last) and last.get("role") == "user":
        text = first_text if last is first else message_text(last) or ""
        return F._clip(text, F.USER_TEXT_MAX), len(text.split()), first_sig
    return describe_item(last), None, first_sig


def test_the_last_user_text_read_directly_equals_message_text() -> None:
    lists = _lists("input") + _lists("messages")
    for items in lists:
        for want_sig in (True, False):
            assert F._user_side(items, want_sig) == _user_side_general(items, want_sig), items
    triggers = [[{"role": "user", "content": "a b"}, {"type": "compaction_trigger"}],
                [{"type": "compaction_trigger"}], [{"type": "compaction_trigger"}, "s"]]
    for items in triggers:
        assert F._user_side(items, True) == _user_side_general(items, True), items


def test_a_string_input_split_once_equals_clip_and_a_second_split() -> None:
    texts = [b["input"] for b in BODIES if isinstance(b.get("input"), str)]
    texts += ["", " ", "a\tb\n c ", "x" * 320, "y " * 160, "z " * 161, "sk-" + "a1" * 20]
    for text in texts:
        f = F.request_facts("responses", {"input": text}, None)
        assert (f.user_text, f.user_words) == (F._clip(text, F.USER_TEXT_MAX),
                                               len(text.split())), text
    assert redact_text("key sk-" + "a1" * 20) != "key sk-" + "a1" * 20


def _text_bytes_general(obj: Any) -> int:
    if isinstance(obj, str):
        return len(obj.encode("utf-8", "surrogatepass"))
    if isinstance(obj, dict):
        return sum(_text_bytes_general(v) for k, v in obj.items()
                   if k not in ("type", "id", "role", "status", "call_id", "encrypted_content",
                                "image_url", "file_data", "file_id", "result",
                                "approval_request_id", "container_id", "phase"))
    if isinstance(obj, list):
        return sum(_text_bytes_general(v) for v in obj)
    return 0


def test_text_bytes_with_leaves_inline_equal_the_recursive_measure() -> None:
    for items in _lists("input") + _lists("messages") + _lists("output"):
        assert text_bytes(items) == _text_bytes_general(items)
    assert text_bytes([{"content": "é", "x": None, "n": 3}]) == 2


@pytest.mark.parametrize("tools", [
    [{"type": "web_search"}, {"type": "function", "name": "f"}, {"type": "web_search"}],
    [{"type": "file_search"}, "not a tool", {"name": "no type"}],
    [{"type": ["unhashable"]}, {"type": "function"}], [], [None],
])
def test_tool_types_keyed_in_c_equal_the_types_listed(tools: list[Any]) -> None:
    want = tuple(dict.fromkeys(t["type"] for t in tools
                               if isinstance(t, dict) and type(t.get("type")) is str))
    assert F._tools(tools) == want
    assert F._tools(tools) == want  # again: now from the cache


def test_every_tools_list_of_the_fixtures_reads_as_listed() -> None:
    for tools in _lists("tools"):
        want = tuple(dict.fromkeys(t["type"] for t in tools
                                   if isinstance(t, dict) and type(t.get("type")) is str))
        assert F._tools(tools) == want


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


def test_hosted_calls_pair_outputs_by_call_id_only_when_a_call_reads_them() -> None:
    from traceview.capture import items

    def general(output: list[Any]) -> tuple[Any, ...]:
        by_call_id = {i["call_id"]: i for i in output if isinstance(i, dict)
                      and isinstance(i.get("call_id"), str) and i.get("type") in
                      ("shell_call_output", "tool_search_output", "program_output")}
        return tuple(c for i in output if isinstance(i, dict) and type(i.get("type")) is str
                     and i["type"] in HOSTED_TYPES
                     and (c := items._hosted_call(i["type"], i, by_call_id)) is not None)

    outputs = _lists("output") + HOSTED_SHAPES
    for output in outputs:
        assert items.hosted_calls(output) == general(output), output
    found = items.hosted_calls(HOSTED_SHAPES[0]) + items.hosted_calls(HOSTED_SHAPES[2])
    assert [c.evidence for c in found if c.type in ("shell_call", "tool_search_call",
                                                     "program")] == ["captured"] * 3
    assert [c.detail for c in found if c.type == "web_search_call"] == ["3 sources captured"]
    assert items.hosted_calls(HOSTED_SHAPES[1]) == ()


def _absurd_general(body: Any) -> list[tuple[str, int]] | tuple[()]:
    """reader._absurd_counts as it read before its fast path: every key, one by one."""
    from traceview.capture.reader import _absurd

    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return ()
    found: list[tuple[str, int]] | tuple[()] = ()
    for key, value in usage.items():
        if isinstance(value, dict):
            for k, v in value.items():
                if _absurd(v):
                    found = [*found, (f"{key}.{k}", v)]
        elif _absurd(value):
            found = [*found, (str(key), value)]
    return found


USAGES: list[Any] = [
    {"input_tokens": -1}, {"input_tokens": 2**64 - 1}, {"input_tokens": 1.5},
    {"input_tokens": 3.0}, {"input_tokens": 1e300}, {"input_tokens": True},
    {"input_tokens_details": {"cached_tokens": -5, "x": None}}, {"x": "12"},
    {"input_tokens": 1, "output_tokens_details": {"reasoning_tokens": 2**41}},
    {"a": [1, -1]}, {"a": None, "b": {"c": None, "d": 0}}, {}, None, [], "usage",
]


def test_a_usage_of_plain_counts_passed_over_in_one_loop_finds_what_each_key_finds() -> None:
    from traceview.capture.reader import _absurd_counts

    bodies = BODIES + [{"usage": u} for u in USAGES]
    found = 0
    for body in bodies:
        got = _absurd_counts(body)
        assert got == _absurd_general(body), body.get("usage")
        found += bool(got)
    assert found >= 8  # the swapped numbers and the shapes above are found


def _items_general(items: list[Any], chained: bool, model: str | None,
                   raw_items: bytes) -> tuple[Any, ...]:
    """request_facts' reading of input items as it was before the chained turn's one loop:
    new input, its estimate, the kinds loop, the media walk; and whether an item is
    reasoning held by id only (replay fidelity's UNHELD_ITEMS)."""
    from traceview.capture.estimate import estimate_tokens
    from traceview.capture.media import media_parts

    new = F._new_items(items, chained)
    compaction_input = compaction_trigger = False
    keys: list[str] = []
    answered: list[str] = []
    for item in items:
        if isinstance(item, dict):
            t = item.get("type")
            if t == "compaction":
                compaction_input = True
                keys.extend(F.compaction_keys(item))
            elif t == "compaction_trigger":
                compaction_trigger = True
            elif isinstance(t, str) and t in F.ANSWER_KEYS:
                cid = item.get(F.ANSWER_KEYS[t])
                if isinstance(cid, str):
                    answered.append(cid)
    bare = any(isinstance(i, dict) and i.get("type") == "reasoning"
               and not i.get("encrypted_content") for i in items)
    return (estimate_tokens(new), compaction_input, compaction_trigger, keys, answered,
            media_parts(new, model), bare)


MEDIA_ITEMS: list[list[Any]] = [
    [{"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64,"
                                   + "A" * 400}]}],
    [{"type": "input_file", "file_id": "file-x"}, {"role": "user", "content": "hi"}],
    [{"type": "computer_call_output", "call_id": "c", "output": {
        "type": "computer_screenshot", "image_url": "https://x/y.png"}}],
    [{"type": "function_call_output", "call_id": "c", "output": [
        {"type": "input_image", "file_id": "file-y"}]}],
    [["nested", {"type": "input_image"}], {"type": "input_audio", "input_audio": {}}],
    [{"type": "compaction", "id": "cmp_1", "encrypted_content": "e"},
     {"type": "compaction_trigger"}, {"type": "mcp_approval_response",
                                      "approval_request_id": "a"}],
    [{"type": "reasoning", "id": "rs_1", "summary": []}, {"role": "user", "content": "hi"}],
    [{"type": "reasoning", "id": "rs_2", "encrypted_content": "e"}],
]


def test_a_chained_turn_s_items_read_in_one_loop_equal_the_general_reading() -> None:
    """facts._chained_items (the new input is every item) and facts._items (stateless)
    give the general reading's estimate, kinds, keys, answers and media."""
    lists = _lists("input") + _lists("messages") + MEDIA_ITEMS
    media = 0
    for items in lists:
        raw = orjson.dumps(items)
        for chained, fast in ((True, F._chained_items), (False, F._items)):
            want = _items_general(items, chained, "gpt-4o", raw)
            assert fast(items, "gpt-4o", raw) == want, items
            media += bool(want[5]) and chained
    assert media >= 5


# --- sixth pass: one user message read as its string, plain text past the redactor's
# pre-check. (The refusal walk ran only when the output's JSON named one; it now runs on
# every output with a message — a third of that search's time — and the test below still
# holds the walk and the facts to each other.)

def _slots(f: Any) -> dict[str, Any]:
    return {k: getattr(f, k, None) for k in type(f).__slots__}


_WORDS = ["flood policy", "Hello World 42", "x" * 400, "a  b\tc\n d", "naïve café", "",
          "Bearer abcdefghijkl", "my key sk-abcdefghijklmnop1234", "AKIAABCDEFGHIJKLMNOP",
          "see AIza" + "b" * 32, "  spaced   out  ", "api_key: hunter22hunter22"]
ONE_MESSAGE = [
    {**head, "input": [item]}
    for head in ({}, {"conversation": "conv_1"}, {"previous_response_id": "resp_1"},
                 {"model": "m", "tools": [{"type": "file_search"}], "store": True})
    for item in ([{"role": "user", "content": w} for w in _WORDS]
                 + [{"content": "hi there", "role": "user"}, {"role": "system", "content": "s"},
                    {"role": "user", "content": ["x"]}, {"role": "user", "content": None},
                    {"type": "message", "role": "user", "content": "typed"},
                    {"role": "user", "content": "x", "id": "msg_1"}])
]


def test_one_user_message_reads_as_the_string_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every request body of the corpus (and the shapes above): its facts with the fast path
    equal those of the walk over its items (the fast path switched off)."""
    bodies = [b for b in [*BODIES, *ONE_MESSAGE] if isinstance(b.get("input"), list)]
    taken = [b for b in bodies if len(b["input"]) == 1
             and F._one_user_message(b["input"][0]) is not None]
    assert len(taken) > 200  # the corpus holds the shape
    fast = [_slots(F.request_facts("responses", b, None)) for b in bodies]
    monkeypatch.setattr(F, "_one_user_message", lambda item: None)
    general = [_slots(F.request_facts("responses", b, None)) for b in bodies]
    for body, a, b in zip(bodies, fast, general, strict=True):
        assert a == b, body


def _strings(obj: Any, out: list[str]) -> list[str]:
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.append(k)
            _strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, out)
    return out


# Keys of ASCII letters and digits only, in each shape the redactor masks, inside words too.
_ALNUM_KEYS = ["Bearer abcdefghijkl", "bearer abcdefghijkl", "BEARER Xy12Xy12Xy12",
               "AKIAABCDEFGHIJKLMNOP", "ASIAABCDEFGHIJKLMNOP", "xAKIAABCDEFGHIJKLMNOP",
               "AIza" + "Q" * 35, "key AIza" + "1" * 30 + " there"]


def test_plain_text_passed_over_is_what_the_redactor_returns(monkeypatch: Any) -> None:
    # No key registered by an earlier test (a registered key sends every text back to the
    # redactor, which the next test covers): this one is about the shapes alone.
    monkeypatch.setattr(redact, "_registered", ())
    texts = [*_strings(BODIES, []), *_WORDS, *_ALNUM_KEYS,
             *(" ".join(w) for w in (["x"] * 9, ["asia", "minor"], ["Aiza123"]))]
    passed = [t for t in texts if holds_no_secret(t)]
    assert len(passed) > 1000
    for t in passed:
        assert redact_text(t) == t, t
    for key in _ALNUM_KEYS:  # each shape a plain text can hold is sent to the redactor
        assert redact_text(key) != key and not holds_no_secret(key), key
        assert F._excerpt(key.split()) == redact_text(key)


def test_a_registered_key_of_plain_words_is_always_masked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from traceview.safety import redact

    assert holds_no_secret("plain words only")
    monkeypatch.setattr(redact, "_registered", ("words",))
    assert not holds_no_secret("plain words only")
    assert "words" not in F._excerpt(["plain", "words", "only"])
    body = {"conversation": "c", "input": [{"role": "user", "content": "plain words"}]}
    assert "words" not in (F.request_facts("responses", body, None).user_text or "")


def test_an_output_whose_json_names_no_refusal_holds_none() -> None:
    outputs = [*_lists("output"), *(s["output"] for s in SHAPES)]
    found = 0
    for out in outputs:
        if F._refusal(out):
            found += 1
            assert b'"type":"refusal"' in orjson.dumps(out)
    assert found >= 5
    # And the facts agree with the walk, refusal included.
    for body in BODIES:
        if isinstance(body.get("output"), list) and "choices" not in body:
            f = F._from_body(body, None, None)
            kinds = F._kinds(body["output"])
            if body["output"] and kinds[2] and "message" in kinds[0]:
                assert f.refusal == F._refusal(body["output"]), body


def test_a_response_s_fields_fetched_in_one_call_equal_those_read_one_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every body of the corpus, and each real response with one of the fields gone: its
    facts equal those of the reading field by field (the one-call fetch switched off)."""
    bodies = [b for b in BODIES if "output" in b or "choices" in b or "object" in b]
    full = [b for b in bodies if all(k in b for k in F._RESPONSE_KEYS)]
    assert len(full) > 100  # real responses, every field present
    bodies += [{k: v for k, v in b.items() if k != gone} for b in full[:20]
               for gone in F._RESPONSE_KEYS]
    fast = [_slots(F._from_body(b, 5, 200)) for b in bodies]

    def missing(body: Any) -> Any:
        raise KeyError("off")

    monkeypatch.setattr(F, "_RESPONSE_FIELDS", missing)
    general = [_slots(F._from_body(b, 5, 200)) for b in bodies]
    for body, a, b in zip(bodies, fast, general, strict=True):
        assert a == b, body


def test_a_key_list_swapped_in_whole_is_read_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registered keys are read from the redactor each time, not from a copy taken at
    import: a list put in its place (as tests and embedders do) is honoured."""
    from traceview.safety import redact

    monkeypatch.setattr(redact, "_registered", ("plainvalue123",))
    assert not holds_no_secret("a plainvalue123 b")
    assert "plainvalue123" not in F._excerpt(["a", "plainvalue123", "b"])


# --- eighth pass: a plain user text is its own excerpt (facts._user_excerpt).

_EDGES = ["", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a b c 1 2 3", "A" * 320,
          "a " * 159 + "a", "bearer token here", "Bearer abcdefghijkl", "x.y", "naïve",
          "ends\u00a0nbsp", "asia minor", "akia", "AIzaSy", "\u2028", "a\u3000b"]


def test_a_plain_user_text_is_its_own_excerpt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every string of the corpus (and of the hostile escapes, key shapes and edge cases
    above) no longer than the excerpt reads: the fast path's (excerpt, words) = the general
    path's (split, join, the redactor's pre-check or the redactor itself)."""
    from tests.hostile.corpus import ESCAPES, KEY_SHAPES

    monkeypatch.setattr(redact, "_registered", ())
    texts = [*_strings(BODIES, []), *_WORDS, *_ALNUM_KEYS, *ESCAPES.values(), *_EDGES,
             *(text for _, text, _ in KEY_SHAPES), *(key for _, _, key in KEY_SHAPES)]
    texts = [t for t in texts if len(t) <= F.USER_TEXT_MAX * 2]
    plain = 0
    for t in texts:
        words = t.split()
        assert F._user_excerpt(t) == (F._excerpt(words), len(words)), t
        plain += bool(t) and " ".join(words) == t and holds_no_secret(t)
    assert plain > 500  # the fast path is taken on the corpus, not only the general one
    # A registered key: every text goes to the general path, and the key is masked.
    monkeypatch.setattr(redact, "_registered", ("words",))
    for t in ["plain words only", "words", *texts[:200]]:
        words = t.split()
        assert F._user_excerpt(t) == (F._excerpt(words), len(words)), t
    assert "words" not in F._user_excerpt("plain words only")[0]
