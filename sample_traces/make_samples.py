"""Regenerate the sample captures in this directory, deterministically.

Run:  .venv/bin/python sample_traces/make_samples.py

``claims.jsonl`` and ``claims_included.jsonl`` are not built here: ``regenerate.py``
records them from the loopback simulator. This script writes the samples the simulator
cannot play (owned state over Chat Completions, the long chain's silent shrink, a day of
mixed service traffic, hostile text and a damaged file).

Every response body is built through the openai SDK's pydantic types and written with
``model_dump()``, so the samples have the exact shape an application's recorder leaves
(every declared key, nulls, float ``created_at``). Ids and timestamps are fixed; running
the script twice produces byte-identical files. After writing, the script re-reads the
files with plain orjson and checks the numbers the docs and tests quote.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # siblings are plain modules, not a package
    sys.path.insert(0, str(HERE))

import orjson  # noqa: E402
from samples_claims import (  # noqa: E402
    LONG_TURNS,
    OWNED_TURNS,
    claims_owned_state,
    long_conversation,
)
from samples_edge import damaged, hostile  # noqa: E402
from samples_service import service_day  # noqa: E402
from samples_tenants import tenants  # noqa: E402

BUILDERS: dict[str, Callable[[], bytes]] = {
    "long_conversation.jsonl": long_conversation,
    "claims_owned_state.jsonl": claims_owned_state,
    "damaged.jsonl": damaged,
    "service_day.jsonl": service_day,
    "hostile.jsonl": hostile,
    "tenants.jsonl": tenants,
}


def build() -> dict[str, bytes]:
    """Every sample file's bytes, keyed by file name (nothing is written)."""
    with warnings.catch_warnings():
        # pydantic serializer warnings, as model_dump(warnings=False) elsewhere
        warnings.simplefilter("ignore")
        return {name: make() for name, make in BUILDERS.items()}


def _records(data: bytes) -> list[dict]:
    return [orjson.loads(line) for line in data.splitlines()]


def _turn_usages(records: list[dict]) -> list[dict]:
    return [r["body"]["usage"] for r in records
            if r["dir"] == "res" and r["body"] and r["body"].get("object") != "conversation"]


def verify(files: dict[str, bytes]) -> list[str]:
    """Check the numbers the README, tests and issue quote; returns the failures."""
    errors: list[str] = []

    def check(ok: bool, what: str) -> None:
        if not ok:
            errors.append(what)

    for name, data in files.items():
        if name != "damaged.jsonl":
            check(data.endswith(b"\n"), f"{name}: no trailing newline")
            try:
                _records(data)
            except orjson.JSONDecodeError as exc:
                errors.append(f"{name}: unparsable line: {exc}")
                return errors

    long = _records(files["long_conversation.jsonl"])
    got = [u["input_tokens"] for u in _turn_usages(long)]
    check(got == [t[0] for t in LONG_TURNS], f"long usage {got}")
    check(got[-4:] == [6110, 6530, 6980, 4120], "long: last four turns")
    check(not any(i["type"] == "compaction" for r in long if r["dir"] == "res"
                  for i in r["body"]["output"]), "long: no compaction item")

    owned = _records(files["claims_owned_state.jsonl"])
    got = [(u["prompt_tokens"], u["completion_tokens"]) for u in _turn_usages(owned)]
    check(got == [t[:2] for t in OWNED_TURNS], f"owned usage {got}")
    sizes = [len(orjson.dumps(r["body"])) for r in owned if r["dir"] == "req"]
    check(sizes == sorted(sizes), f"owned: request bytes grow {sizes}")
    return errors


def main() -> int:
    """Write every sample next to this script, then verify what was written."""
    files = build()
    for name, data in files.items():
        (HERE / name).write_bytes(data)
        print(f"wrote {name:28} {len(data):>8,} bytes")
    errors = verify({name: (HERE / name).read_bytes() for name in files})
    for err in errors:
        print("CHECK FAILED:", err, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
