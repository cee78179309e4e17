"""Write a directory of many small captures: a service's per-conversation files.

Each file is one conversation of 2-6 hosted-state turns spread over several days and two
models, file search on some turns (evidence missing on half of them), a deposit now and
then. Deterministic for a given count and seed. Used by bench/export.py and the cluster
job's test.  usage: python -m tests.shapes.fleet DIR COUNT
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import orjson

DAY = 86_400
START = 1_767_225_600  # 2026-01-01T00:00:00Z
MODELS = ("gpt-4.1-2025-04-14", "gpt-4o-mini-2024-07-18")


def _turn(rng: random.Random, conv: str, n: int, t: int, inp: int, model: str,
          search: bool, found: bool) -> tuple[list[bytes], int]:
    req = {"model": model, "conversation": conv, "input": f"question {n} about claim {conv[-6:]}",
           "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}] if search else []}
    if search and found:
        req["include"] = ["file_search_call.results"]
    out = rng.randint(80, 400)
    output = []
    if search:
        output.append({"type": "file_search_call", "id": f"fs_{conv[5:]}_{n}",
                       "status": "completed", "queries": ["cover"],
                       "results": [{"file_id": "f1", "text": "x"}] if found else None})
    output.append({"type": "message", "role": "assistant", "id": f"msg_{conv[5:]}_{n}",
                   "content": [{"type": "output_text", "text": "answer " * (out // 8)}]})
    res = {"id": f"resp_{conv[5:]}_{n}", "object": "response", "created_at": t,
           "status": "completed", "model": model, "conversation": {"id": conv},
           "output": output,
           "usage": {"input_tokens": inp, "input_tokens_details": {"cached_tokens": inp // 2},
                     "output_tokens": out, "output_tokens_details": {"reasoning_tokens": 0}}}
    lines = [orjson.dumps({"dir": "req", "body": req}),
             orjson.dumps({"dir": "res", "elapsed_ms": rng.randint(300, 9000), "body": res})]
    return lines, out


def write_fleet(root: Path, count: int, seed: int = 11) -> list[Path]:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        conv, model = f"conv_{i:024x}", MODELS[i % 2]
        t = START + (i % 3) * DAY + rng.randint(0, DAY - 3600)
        inp = rng.randint(500, 1500)
        lines: list[bytes] = []
        deposit = 0
        for n in range(1, rng.randint(2, 6) + 1):
            search = rng.random() < 0.4
            part, out = _turn(rng, conv, n, t, inp + deposit, model, search, rng.random() < 0.5)
            lines += part
            deposit = 3000 if search and rng.random() < 0.5 else 0
            inp = inp + deposit + out + 20
            t += rng.randint(5, 60)
        path = root / f"case-{i:05d}.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        paths.append(path)
    return paths


if __name__ == "__main__":
    files = write_fleet(Path(sys.argv[1]), int(sys.argv[2]))
    print(f"wrote {len(files)} captures to {sys.argv[1]}")
