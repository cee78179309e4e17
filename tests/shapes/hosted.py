"""Write a large capture shaped like hosted-state traffic: many small turns.

Conversations of 12 turns, a conversation handle plus one short message per request,
response bodies shaped like `resp.model_dump()` (every declared key, most null), file
search on ~40 % of turns (half with results captured). About 4 kB a turn: the cost of
loading it is per turn, not per byte, which the bigger-turn shape (big_turns.py) hides.
Deterministic (seeded); `lines` stops after that many lines (a slice of the same file).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

NULLS = ("access_programs background completed_at error image incomplete_details "
         "input_transformations instructions max_output_tokens max_tool_calls metadata moderation "
         "previous_response_id prompt prompt_cache_diagnostics prompt_cache_key "
         "prompt_cache_options prompt_cache_retention reasoning safety_identifier service_tier "
         "temperature text tool_usage top_logprobs top_p truncation user").split()
WORDS = ("policy excess claim water damage cover appliance accidental kitchen flood schedule "
         "premium").split()


def generate(path: Path, size: int, lines: int | None = None, seed: int = 7) -> int:
    """Write about `size` bytes (or the first `lines` lines) to `path`; return the turns."""
    rnd = random.Random(seed)

    def text(n: int) -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(n))

    written, conv_n, seq, n_lines = 0, 0, 0, 0
    with open(path, "w") as fh:
        while written < size and (lines is None or n_lines < lines):
            conv_n += 1
            conv = f"conv_{conv_n:016x}"
            inp = rnd.randint(800, 1500)
            for _turn in range(1, 13):
                seq += 1
                search = rnd.random() < 0.4
                captured = search and rnd.random() < 0.5
                req: dict = {"model": "gpt-5.2-2026-01-15", "conversation": conv, "store": True,
                             "input": [{"role": "user", "content": text(rnd.randint(5, 40))}],
                             "tools": [{"type": "file_search", "vector_store_ids": ["vs_case"]}]}
                if captured:
                    req["include"] = ["file_search_call.results"]
                output: list = []
                if search:
                    results = [{"file_id": "file_abc", "filename": "policy.pdf", "score": 0.8,
                                "text": text(120), "attributes": {}}
                               for _ in range(4)] if captured else None
                    output.append({"id": f"fs_{seq:020x}", "type": "file_search_call",
                                   "status": "completed", "queries": [text(4)],
                                   "results": results})
                out_tok = rnd.randint(100, 600)
                output.append({"id": f"msg_{seq:020x}", "type": "message", "role": "assistant",
                               "status": "completed", "phase": None,
                               "content": [{"type": "output_text", "text": text(out_tok // 2),
                                            "annotations": [], "logprobs": None}]})
                body: dict = {k: None for k in NULLS}
                body.update({
                    "id": f"resp_{seq:020x}", "object": "response",
                    "created_at": 1764480000.0 + seq, "model": "gpt-5.2-2026-01-15",
                    "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
                    "status": "completed", "conversation": {"id": conv},
                    "tools": [{"type": "file_search", "vector_store_ids": ["vs_case"],
                               "filters": None, "max_num_results": None, "ranking_options": None}],
                    "usage": {"input_tokens": inp, "input_tokens_details": {
                        "cached_tokens": inp // 2, "cache_write_tokens": None,
                        "cache_write_tokens_details": None},
                              "output_tokens": out_tok,
                              "output_tokens_details": {"reasoning_tokens": 0},
                              "total_tokens": inp + out_tok}})
                for line in (json.dumps({"dir": "req", "body": req}) + "\n",
                             json.dumps({"dir": "res", "elapsed_ms": rnd.randint(1500, 7000),
                                         "body": body}) + "\n"):
                    if lines is not None and n_lines >= lines:
                        return seq
                    fh.write(line)
                    written += len(line)
                    n_lines += 1
                inp += out_tok + 30 + (2000 if search else 0)
    return seq


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path")
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--lines", type=int, default=None)
    ns = ap.parse_args()
    print(generate(Path(ns.path), int(ns.mb * 1_000_000), ns.lines), "turns")
