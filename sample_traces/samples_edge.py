"""hostile.jsonl (text that attacks a terminal) and damaged.jsonl (a crashed writer's file)."""

from __future__ import annotations

import orjson
from capture_writer import CaptureLines
from sdk_build import (
    MODEL_ALIAS,
    dump,
    function_call,
    function_tool,
    hex_id,
    message,
    response,
    usage,
)

T_EDGE = 1756137600  # 2025-08-25 16:00:00 UTC

# Everything below is fake and harmless, but must be shown literally and secrets masked.
FAKE_KEY = "sk-proj-FAKEKEY1234567890abcdef"
FAKE_BEARER = "Bearer sk-FAKE0000aaaa1111bbbb2222cccc"
MARKUP = "[bold red]pwned[/] [link=https://evil.example]click[/link]"
ANSI = "\x1b[31mred\x1b[0m \x1b]8;;http://x\x1b\\osc-link\x1b]8;;\x1b\\ \x1b[2J\x1b[H"
CONTROLS = "bell\x07 back\x08space cr\rreturn nul\x00 del\x7f rtl\u202eoverride\u202c tab\t"
HOSTILE_USER = f"Look up order 42 {MARKUP} {ANSI} {CONTROLS}"
HOSTILE_FN = "lookup_order[bold]\x1b[2J"
HOSTILE_META = {
    "x-api-key": FAKE_KEY,
    "headers": f'{{"Authorization": "{FAKE_BEARER}"}}',
    "note": f"{MARKUP} \x1b[5mblink\x1b[0m\x07",
}
HOSTILE_ANSWER = (
    f"Order 42 shipped. {MARKUP}\n{ANSI}\n{CONTROLS}\n"
    f'Debug: curl -H "Authorization: {FAKE_BEARER}" -H "api-key: {FAKE_KEY}" '
    "https://api.example.invalid/orders/42"
)
FN_PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"],
             "additionalProperties": False}


def hostile() -> bytes:
    """A valid two-turn function-calling chain whose strings are all hostile."""
    out = CaptureLines()
    tool_req = {"type": "function", "name": HOSTILE_FN, "description": f"Find an order {MARKUP}",
                "parameters": FN_PARAMS, "strict": True}
    tools = [function_tool(HOSTILE_FN, f"Find an order {MARKUP}", FN_PARAMS)]
    r1 = hex_id("resp", "hostile/1", T_EDGE)
    call_id = "call_" + hex_id("", "hostile/call", T_EDGE, width=24, sep="")
    out.req({"model": MODEL_ALIAS, "input": HOSTILE_USER, "tools": [tool_req],
             "metadata": HOSTILE_META, "store": True})
    out.res(dump(response(
        resp_id=r1, created_at=T_EDGE, tools=tools, metadata=HOSTILE_META,
        usage_=usage(212, 31),
        output=[function_call(hex_id("fc", "hostile/fc", T_EDGE), call_id, HOSTILE_FN,
                              orjson.dumps({"q": f"42 {MARKUP} \x1b[2J"}).decode())])), 1204)
    t2 = T_EDGE + 3
    out.req({"model": MODEL_ALIAS, "previous_response_id": r1, "tools": [tool_req],
             "metadata": HOSTILE_META, "store": True,
             "input": [{"type": "function_call_output", "call_id": call_id,
                        "output": f"status=shipped {ANSI} Authorization: {FAKE_BEARER}"}]})
    out.res(dump(response(
        resp_id=hex_id("resp", "hostile/2", t2), created_at=t2, tools=tools,
        previous_response_id=r1, metadata=HOSTILE_META, usage_=usage(301, 96),
        output=[message(hex_id("msg", "hostile/msg", t2), HOSTILE_ANSWER)])), 1630)
    return out.to_bytes()


def _turn_lines(out: CaptureLines, label: str, created: int, text: str, answer: str,
                tokens: tuple[int, int]) -> None:
    """A good, complete request/response pair."""
    out.req({"model": MODEL_ALIAS, "input": text, "store": True})
    out.res(dump(response(resp_id=hex_id("resp", f"damaged/{label}", created), created_at=created,
                          usage_=usage(*tokens),
                          output=[message(hex_id("msg", f"damaged/{label}", created), answer)])),
            900 + tokens[1] * 10)


def damaged() -> bytes:
    """Line-by-line defects; the README lists each line number and what is wrong with it."""
    out = CaptureLines()
    t = T_EDGE + 600
    # lines 1-2: a good turn
    _turn_lines(out, "1", t, "Hello, are you there?", "Yes, I'm here. How can I help?",
                (14, 10))
    # line 3: malformed JSON (the writer died between two fields and restarted the line)
    out.raw(b'{"dir":"req","body":{"model":"gpt-4o-mini","input":"status?",,"store":true}')
    # line 4: invalid UTF-8 (a Latin-1 byte and a stray 0xff/0xfe from a bad encoder)
    out.raw(b'{"dir":"req","body":{"model":"gpt-4o-mini","input":"caf\xe9 cr\xff\xfeme"}}')
    # line 5: valid JSON of an unknown shape
    out.raw(b'{"hello": "world"}')
    # line 6: a request whose response was never written
    out.req({"model": MODEL_ALIAS, "input": "This request never got a response recorded.",
             "store": True})
    # lines 7-8: another good turn
    _turn_lines(out, "2", t + 120, "What is 2 + 2?", "2 + 2 = 4.", (13, 8))
    # line 9: a response with no request before it
    orphan = response(resp_id=hex_id("resp", "damaged/orphan", t + 180), created_at=t + 180,
                      usage_=usage(40, 12),
                      output=[message(hex_id("msg", "damaged/orphan", t + 180),
                                      "This response's request was lost.")])
    out.res(dump(orphan), 1020)
    # line 10: the crash itself, a request cut mid-JSON, no trailing newline
    cut = orjson.dumps({"dir": "req", "body": {"model": MODEL_ALIAS,
                                               "input": "Write me a long story about a"}})
    out.raw(cut[:58])
    return out.to_bytes(trailing_newline=False)
