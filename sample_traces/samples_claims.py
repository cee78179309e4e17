"""The owned-state claims sample and the long previous_response_id chain.

The hosted claims sample (``claims.jsonl``) is no longer hand-built: ``regenerate.py``
records it from the simulator.
"""

from __future__ import annotations

from typing import Any

import claims_text as ct
import planning_text as pt
from capture_writer import CaptureLines
from sdk_build import (
    MODEL_ALIAS,
    alnum_id,
    chat_completion,
    dump,
    hex_id,
    message,
    response,
    usage,
)

T_CLAIMS = 1755868800  # 2025-08-22 13:20:00 UTC (ids start 68a8…, as real ones of that day)

# (input, output, cached, elapsed_ms, seconds after T_CLAIMS) of the hosted claim as the issue
# quotes it; the owned-state capture borrows its timing.
CLAIMS_TURNS = [
    (1210, 380, 0, 2104, 60),
    (1690, 402, 0, 5812, 240),
    (6110, 290, 1024, 2230, 420),
    (6580, 510, 6016, 6903, 600),
]
# Owned state bills the retrieved policy on turn 2, where it is visibly sent.
OWNED_TURNS = [(1210, 380, 0), (5690, 402, 1152), (6110, 290, 5632), (6580, 510, 6016)]
LONG_TURNS = [  # (input, output, cached, elapsed_ms)
    (900, 360, 0, 3104), (2300, 410, 896, 4218), (3700, 380, 2176, 3907),
    (5200, 420, 3584, 4633), (6110, 380, 5120, 4102), (6530, 400, 6016, 3825),
    (6980, 390, 6528, 4011), (4120, 330, 0, 3297),
]


def claims_owned_state() -> bytes:
    """The same claim over Chat Completions: the app resends everything and pastes policy."""
    out = CaptureLines()
    messages: list[dict[str, str]] = [{"role": "system", "content": ct.SYSTEM_PROMPT}]
    pasted = {1: ct.policy_excerpt(43), 3: ct.SHORT_POLICY}
    for n, (prompt, completion, cached) in enumerate(OWNED_TURNS):
        if n in pasted:
            messages.append({"role": "system", "content": "Policy text retrieved by the app "
                             f"for case {ct.CASE}:\n{pasted[n]}"})
        messages.append({"role": "user", "content": ct.USER_TEXTS[n]})
        out.req({"model": MODEL_ALIAS, "messages": list(messages)})
        created = T_CLAIMS + 3600 + CLAIMS_TURNS[n][4]
        answer = ct.ANSWERS[n]
        body = chat_completion(cmpl_id=alnum_id("chatcmpl", f"owned/{n}", 29),
                               created=created, content=answer, prompt_tokens=prompt,
                               completion_tokens=completion, cached=cached)
        out.res(dump(body), CLAIMS_TURNS[n][3] - 400)
        messages.append({"role": "assistant", "content": answer})
    return out.to_bytes()


def long_conversation() -> bytes:
    """An 8-turn previous_response_id chain that shrinks silently on its last turn."""
    out = CaptureLines()
    user_texts = [pt.BRIEF, pt.interview_notes(), pt.competitor_notes(), pt.estimates(),
                  pt.CONSTRAINTS, *pt.SHORT_QUESTIONS]
    t0 = T_CLAIMS + 86400
    previous: str | None = None
    for n, (inp, outp, cached, elapsed) in enumerate(LONG_TURNS):
        created = t0 + n * 420
        body_req: dict[str, Any] = {"model": MODEL_ALIAS, "input": user_texts[n]}
        if previous:
            body_req["previous_response_id"] = previous
        body_req["store"] = True
        out.req(body_req)
        resp_id = hex_id("resp", f"long/resp/{n}", created)
        text = pt.answer(n, outp * 4 - 200)
        body = response(resp_id=resp_id, created_at=created,
                        output=[message(hex_id("msg", f"long/msg/{n}", created), text)],
                        usage_=usage(inp, outp, cached), previous_response_id=previous,
                        elapsed_s=max(1, elapsed // 1000))
        out.res(dump(body), elapsed)
        previous = resp_id
    return out.to_bytes()
