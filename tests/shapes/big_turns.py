"""The golden digest's big-turn slice: many interleaved hosted-state conversations.

Bodies mimic `model_dump()` (every declared key, most of them null), with file-search
turns, cached tokens, a streamed turn now and then, and conversation handles — the
shape of a support service's day. Deterministic for a given size.
"""

from __future__ import annotations

import random
from pathlib import Path

import orjson

NULL_KEYS = ["access_programs", "background", "completed_at", "error", "image",
             "incomplete_details", "input_transformations", "instructions", "max_output_tokens",
             "max_tool_calls", "metadata", "moderation", "previous_response_id", "prompt",
             "prompt_cache_key", "prompt_cache_options", "prompt_cache_retention", "reasoning",
             "safety_identifier", "service_tier", "temperature", "text", "tool_usage",
             "top_logprobs", "top_p", "truncation", "user", "prompt_cache_diagnostics"]
WORDS = ("policy claim excess water damage kitchen floor laminate cover accidental home "
         "insurance settle adjuster photo receipt appliance engineer report").split()


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


INSTRUCTIONS = ("You are the claims assistant for a home-insurance company. " * 24).strip()


def _response(rng: random.Random, rid: str, conv: str, inp: int, out: int, search: bool) -> dict:
    output = []
    if rng.random() < 0.5:  # reasoning models return encrypted reasoning by default (3.57)
        blob = rng.randbytes(rng.randint(1500, 4500)).hex()
        output.append({"id": f"rs_{rid[5:]}", "type": "reasoning", "summary": [],
                       "content": None, "encrypted_content": blob, "status": None})
    if search:
        output.append({"id": f"fs_{rid[5:]}", "type": "file_search_call", "status": "completed",
                       "queries": [_text(rng, 5)], "results": None})
    output.append({"id": f"msg_{rid[5:]}", "type": "message", "role": "assistant",
                   "status": "completed", "phase": None,
                   "content": [{"type": "output_text", "text": _text(rng, out // 2),
                                "annotations": [], "logprobs": None}]})
    body = {k: None for k in NULL_KEYS}
    body.update({
        "id": rid, "object": "response", "created_at": 1741476542.0, "status": "completed",
        "model": "gpt-4o-mini-2024-07-18", "output": output, "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"],
                                          "filters": None, "max_num_results": None,
                                          "ranking_options": None}],
        "conversation": {"id": conv}, "store": True, "instructions": INSTRUCTIONS,
        "usage": {"input_tokens": inp, "input_tokens_details": {"cached_tokens": inp // 2,
                                                                "cache_write_tokens": None},
                  "output_tokens": out, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": inp + out}})
    return body


def generate(path: Path, size: int, seed: int = 7, lines: int | None = None) -> int:
    """Write about `size` bytes (or only the first `lines` lines: a slice of the same
    capture) to `path`; return the turns begun."""
    rng = random.Random(seed)
    written = 0
    live: list[list] = []  # [conv_id, turn, input_tokens]
    n = n_lines = 0
    with open(path, "wb") as f:
        while written < size and (lines is None or n_lines < lines):
            if len(live) < 40 or rng.random() < 0.1:
                live.append([f"conv_{n:012d}", 0, 800])
            c = rng.choice(live)
            c[1] += 1
            n += 1
            search = rng.random() < 0.3
            rid = f"resp_{n:040d}"
            req = {"model": "gpt-4o-mini", "conversation": c[0], "input": _text(rng, 12),
                   "instructions": INSTRUCTIONS,
                   "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}]}
            out = rng.randint(120, 400)
            c[2] += out + 20 + (3000 if search else 0)
            res = _response(rng, rid, c[0], c[2], out, search)
            for line in (
                orjson.dumps({"dir": "req", "id": f"x{n}", "body": req}),
                orjson.dumps({"dir": "res", "id": f"x{n}", "elapsed_ms": rng.randint(800, 7000),
                              "body": res}),
            ):
                if lines is not None and n_lines >= lines:
                    return n
                f.write(line + b"\n")
                written += len(line) + 1
                n_lines += 1
            if c[1] > 30:
                live.remove(c)
    return n

