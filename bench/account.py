"""The input account against billed input on real captures.

For every turn whose input is fully visible (no hosted state, no unknown component), print
billed input, the account's sum (expected), the error and the components, then the
calibration: median and p90 of |billed - expected| / billed. Targets: median <= 1.5 %,
p90 <= 5 %. With no arguments it reads the shared real captures.

    python bench/account.py [CAPTURE.jsonl | DIR ...] [--all] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from traceview.analysis.account import InputAccount, account

DEFAULT = Path("/work/shared/real-captures")


def captures(paths: list[str]) -> list[Path]:
    roots = [Path(p) for p in paths] or [DEFAULT]
    found: list[Path] = []
    for root in roots:
        found.extend(sorted(root.glob("*.jsonl")) if root.is_dir() else [root])
    return found


def turns(path: Path) -> Iterator[tuple[int, dict[str, Any], dict[str, Any], str]]:
    """(turn number, request body, response body, endpoint) for each req/res pair."""
    request: dict[str, Any] | None = None
    number = 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("dir") == "req":
            request = record
            continue
        if record.get("dir") == "res" and request is not None:
            number += 1
            body = record.get("body")
            if isinstance(request.get("body"), dict) and isinstance(body, dict):
                endpoint = request.get("endpoint") or "POST /v1/responses"
                if str(endpoint).startswith("POST"):
                    yield number, request["body"], body, str(endpoint)
            request = None


def billed(response: dict[str, Any]) -> int | None:
    usage = response.get("usage")
    if not isinstance(usage, dict):
        return None
    value = usage.get("input_tokens", usage.get("prompt_tokens"))
    return value if isinstance(value, int) and value > 0 else None


def reasoning_by_id(response: dict[str, Any], turn: int) -> dict[str, tuple[int, int | None]]:
    """A response's single reasoning item carries the turn's reasoning tokens."""
    usage = response.get("usage") or {}
    details = usage.get("output_tokens_details") or {}
    tokens = details.get("reasoning_tokens")
    items = [o for o in response.get("output") or []
             if isinstance(o, dict) and o.get("type") == "reasoning" and o.get("id")]
    if len(items) != 1 or not isinstance(tokens, int):
        return {}
    return {str(items[0]["id"]): (tokens, turn)}


def rows(path: Path) -> Iterator[tuple[int, int | None, InputAccount]]:
    produced: dict[str, tuple[int, int | None]] = {}
    for number, request, response, endpoint in turns(path):
        acc = account(request, None, endpoint, response_body=response, item_tokens=produced)
        produced.update(reasoning_by_id(response, number))
        yield number, billed(response), acc


def summary(acc: InputAccount) -> str:
    by_kind: dict[str, int] = {}
    for c in acc.components:
        if c.tokens is not None:
            by_kind[c.component] = by_kind.get(c.component, 0) + c.tokens
    unknown = [f"{c.component}:{c.name}" for c in acc.unknown]
    text = " ".join(f"{k}={v}" for k, v in by_kind.items())
    return text + (f" | unknown: {', '.join(unknown)}" if unknown else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--all", action="store_true", help="also list turns not fully visible")
    args = parser.parse_args(argv)
    errors: list[float] = []
    total = visible = 0
    print(f"{'capture':44} {'turn':>4} {'model':14} {'billed':>7} {'expected':>8} {'error':>7}"
          "  components")
    for path in captures(args.paths):
        for number, tokens, acc in rows(path):
            total += tokens is not None
            expected = acc.expected
            if tokens is None or expected is None:
                if args.all:
                    print(f"{path.name[:44]:44} {number:>4} {(acc.model or '?')[:14]:14} "
                          f"{tokens or '-':>7} {'-':>8} "
                          f"{'':>7}  {summary(acc)}")
                continue
            visible += 1
            error = (expected - tokens) / tokens
            errors.append(abs(error))
            print(f"{path.name[:44]:44} {number:>4} {(acc.model or '?')[:14]:14} "
                  f"{tokens:>7} {expected:>8} "
                  f"{error:>+7.1%}  {summary(acc)}")
    report(errors, total, visible)
    return 0


def report(errors: list[float], total: int, visible: int) -> None:
    print()
    print(f"billed turns {total}; fully visible {visible}")
    if not errors:
        return
    ordered = sorted(errors)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    print(f"|error| median {statistics.median(ordered):.2%}  p90 {p90:.2%}  "
          f"max {ordered[-1]:.2%}  (targets: median <= 1.50 %, p90 <= 5.00 %)")


if __name__ == "__main__":
    sys.exit(main())
