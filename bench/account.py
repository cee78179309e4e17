"""The input account against billed input on real captures.

For every turn whose input is fully visible (no hosted state, no unknown component), print
billed input, the account's sum (expected), the error and the components, then the
calibration: median and p90 of |billed - expected| / billed (targets: median <= 1.5 %,
p90 <= 5 %). With no arguments it reads the shared real captures (tests/fixtures/real) and
public projects' recorded cassettes (tests/fixtures/cassettes, made by its convert.py).

    python bench/account.py [CAPTURE.jsonl | DIR ...] [--all] [--fit] [--fallback]
    python bench/account.py --analyse [CAPTURE.jsonl | DIR ...] [--all]

--analyse analyses each capture as `traceview report --format json` does (in this process)
and prints its figures per folder and in all: on how many billed turns expected input is
known, and |billed - expected| on turns without a deposit, compaction, unknown item or
failure marker; --all lists the unknown turns' reasons, then counts them by the lines they
lack.

--fit re-runs the calibration: per model family and API, the integer framing constants
(-15..120) minimising the mean |error| (each capped at 30 %) over the distinct fully visible
turns, by coordinate descent from the current values. Paste its output into
traceview/analysis/account/framing.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from side import ROOT, pairs

from traceview.analysis.account import InputAccount, account
from traceview.analysis.account import framing as framing_module
from traceview.analysis.account import tokens as tokens_module
from traceview.analysis.account.tools import NAMESPACE

# Component kinds and the framing constant each one carries.
FRAMED = {"request": "request", "message": "message", "instructions": "message",
          "tools": "tool", "function_call": "call", "custom_tool_call": "call",
          "function_call_output": "call_output", "custom_tool_call_output": "call_output",
          "response_format": "response_format"}
CONSTANTS = ("request", "message", "tools_block", "tool", "call", "call_output", "response_format")

DEFAULT = (ROOT / "tests/fixtures/real", ROOT / "tests/fixtures/cassettes")


def captures(paths: list[str]) -> list[Path]:
    roots = [Path(p) for p in paths] or [d for d in DEFAULT if d.is_dir()]
    return [p for root in roots for p in (sorted([*root.glob("*.jsonl"), *root.glob(
        "*.jsonl.gz")]) if root.is_dir() else [root])]


def turns(path: Path) -> Iterator[tuple[int, dict[str, Any], dict[str, Any], str]]:
    """(turn number, request body, response body, endpoint) for each POST req/res pair."""
    for number, (request, response) in enumerate(pairs(path), 1):
        endpoint = str(request.get("endpoint") or "POST /v1/responses")
        body = response.get("body")
        if isinstance(request.get("body"), dict) and isinstance(body, dict) \
                and endpoint.startswith("POST"):
            yield number, request["body"], body, endpoint


def billed(response: dict[str, Any]) -> int | None:
    usage = response.get("usage")
    value = usage.get("input_tokens", usage.get("prompt_tokens")) \
        if isinstance(usage, dict) else None
    return value if isinstance(value, int) and value > 0 else None


def reasoning_by_id(response: dict[str, Any], turn: int) -> dict[str, tuple[int, int | None]]:
    """A response's single reasoning item carries the turn's reasoning tokens."""
    tokens = ((response.get("usage") or {}).get("output_tokens_details") or {}).get(
        "reasoning_tokens")
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
    by_kind: Counter[str] = Counter()
    for c in acc.components:
        if c.tokens is not None:
            by_kind[c.component] += c.tokens
    unknown = [f"{c.component}:{c.name}" for c in acc.unknown]
    text = " ".join(f"{k}={v}" for k, v in by_kind.items())
    return text + (f" | unknown: {', '.join(unknown)}" if unknown else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--all", action="store_true", help="also list turns not fully visible")
    parser.add_argument("--fit", action="store_true", help="re-fit the framing constants")
    parser.add_argument("--analyse", action="store_true",
                        help="run the analysis on each capture and print its figures")
    parser.add_argument("--by-source", action="store_true",
                        help="with --analyse: group by the project a cassette came from")
    parser.add_argument("--fallback", action="store_true",
                        help="count with the labelled 4-bytes estimate instead (comparison)")
    args = parser.parse_args(argv)
    if args.fallback:
        tokens_module._backend = lambda _encoding: None  # type: ignore[assignment]
        tokens_module.counter_for.cache_clear()
    if args.fit:
        fit(captures(args.paths))
        return 0
    if args.analyse:
        analyse(captures(args.paths), args.all, args.by_source)
        return 0
    errors: list[float] = []  # one per fully visible turn
    total = 0
    print(f"{'capture':44} {'turn':>4} {'model':14} {'billed':>7} {'expected':>8} {'error':>7}"
          "  components")
    for path in captures(args.paths):
        for number, tokens, acc in rows(path):
            total += tokens is not None
            known = tokens is not None and acc.expected is not None
            if known:
                errors.append(abs(error := (acc.expected - tokens) / tokens))
            if known or args.all:
                print(f"{path.name[:44]:44} {number:>4} {(acc.model or '?')[:14]:14} "
                      f"{tokens or '-':>7} {acc.expected if known else '-':>8} "
                      f"{format(error, '>+7.1%') if known else '':>7}  {summary(acc)}")
    print(f"\nbilled turns {total}; fully visible {len(errors)}")
    if errors:
        print(calibration(errors) + "  (targets: median <= 1.50 %, p90 <= 5.00 %)")
    return 0


# The markers a wrong account would raise falsely (each one found is read by hand).
STATE_MARKERS = ("deposit", "compaction_likely", "compaction")
# Markers that leave a turn out of the error: its billed input is not expected to match.
MARKED = frozenset({"deposit", "compaction", "compaction_likely", "unknown_item", "failed",
                    "incomplete", "cancelled", "stream_cut", "request_only", "response_only"})


# The projects whose cassettes were converted first; the others were added after them.
FIRST = ("pai", "olm", "chatlas", "ellmer", "llm")


def source(path: Path) -> str:
    """The group a capture is counted in: its folder, or with --by-source the project
    its cassette came from (the converted name's prefix)."""
    name = path.name
    return name.split("__", 1)[0] if "__" in name else path.parent.name


def analyse(paths: list[Path], listed: bool, by_source: bool = False) -> None:
    """--analyse (see above), in this process: there are hundreds of captures."""
    from traceview.analysis.options import Options
    from traceview.analysis.session import analyze
    from traceview.report.json_out import render_json

    by_folder: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for path in paths:
        try:
            analysis = analyze([str(path)], Options())
            try:
                doc = json.loads(render_json(analysis))
            finally:
                analysis.capture.close()
        except Exception as exc:  # a crash on real traffic is a finding, not the end
            print(f"{path.name}: report crashed: {type(exc).__name__}: {exc}")
            continue
        if analysis.problems:
            print(f"{path.name}: {len(analysis.problems)} problem(s) while reading")
        stem = path.name.removesuffix(".gz").removesuffix(".jsonl")
        group = source(path) if by_source else path.parent.name
        by_folder.setdefault(group, []).append((stem, doc))
    everything = []
    for folder, docs in by_folder.items():
        if len(by_folder) > 1:
            print(f"== {folder} ({len(docs)} captures)")
        figures(docs, listed)
        everything.extend(docs)
    if by_source:
        for label, first in (("the shared captures and the first five projects", True),
                             ("the projects added after them", False)):
            docs = [d for g, ds in by_folder.items() if (g in FIRST or "__" not in ds[0][0])
                    == first for d in ds]
            print(f"== {label} ({len(docs)} captures)")
            figures(docs, False)
    if len(by_folder) > 1:
        print(f"== all ({len(everything)} captures)")
        figures(everything, False)


def figures(docs: list[tuple[str, dict[str, Any]]], listed: bool) -> None:
    """Known on how many billed turns; |error| on the known, unmarked ones; why unknown."""
    errors: list[float] = []
    billed_turns = known = 0
    lacking: Counter[str] = Counter()
    marked: Counter[str] = Counter()
    for stem, doc in docs:
        for turn in doc.get("turns", []):
            marked.update(m for m in turn.get("markers") or () if m in STATE_MARKERS)
            tokens, expected = turn.get("input_tokens"), turn.get("expected_input")
            if not tokens:
                continue
            billed_turns += 1
            if expected is None:
                lacking[_lacks(turn)] += 1
                if listed:
                    why = str(turn.get("expected_input_unknown") or "")
                    print(f"{stem[:44]:44} {turn['index']:>4} {tokens:>7} {'-':>8}"
                          f"          {why[:110]}")
                continue
            known += 1
            if MARKED.intersection(turn.get("markers") or ()):
                continue
            error = (expected - tokens) / tokens
            errors.append(abs(error))
            if listed:
                print(f"{stem[:44]:44} {turn['index']:>4} {tokens:>7} {expected:>8}"
                      f" {error:>+7.1%}")
    print(f"billed turns {billed_turns}; expected known {known}"
          f" ({known / max(billed_turns, 1):.1%}); unmarked with expected {len(errors)}")
    print("markers: " + (", ".join(f"{m} {marked[m]}" for m in STATE_MARKERS) or "none"))
    if errors:
        print(calibration(errors))
    if listed:
        print("unknown turns by the lines they lack:")
        for lacks, count in lacking.most_common():
            print(f"{count:6}  {lacks}")


def _lacks(turn: dict[str, Any]) -> str:
    """What an unknown turn lacks: its unknown lines' kinds (a tool or hosted pass by
    name), or the reason when no line is unknown (the previous turn's bill, say)."""
    kinds = sorted({c["component"] + (f":{c['name']}" if c["component"] in (
        "tools", "hosted_pass") else "") for c in turn.get("input_account") or ()
        if c.get("tokens") is None and c["component"] != "carried"})
    return ", ".join(kinds) or str(turn.get("expected_input_unknown") or "?")[:80]


def calibration(errors: list[float]) -> str:
    ordered = sorted(errors)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return (f"|error| median {statistics.median(ordered):.2%}  p90 {p90:.2%}  "
            f"max {ordered[-1]:.2%}")


Sample = tuple[int, int, dict[str, int]]  # billed, account sum without framing, counts


def samples(paths: list[Path]) -> dict[tuple[str, str], list[Sample]]:
    """Distinct fully visible turns by (family, API), with framing set to zero."""
    zero, saved = dict.fromkeys(CONSTANTS, 0), dict(framing_module.FAMILIES)
    framing_module.FAMILIES.update(
        {key: replace(value, **zero) for key, value in saved.items()})  # type: ignore[arg-type]
    framing_module.framing_for.cache_clear()  # it hands out the table's values by model
    groups: dict[tuple[str, str], list[Sample]] = {}
    seen: set[str] = set()
    try:
        for path in paths:
            for _number, request, response, endpoint in turns(path):
                tokens = billed(response)
                acc = account(request, None, endpoint, response_body=response)
                key = json.dumps(request, sort_keys=True) + str(tokens)
                if tokens is None or acc.expected is None or key in seen:
                    continue
                seen.add(key)
                api = "chat" if "chat/completions" in endpoint or "messages" in request \
                    else "responses"
                counts = dict.fromkeys(CONSTANTS, 0)
                for c in acc.components:
                    if c.component in FRAMED and c.basis != "estimated":
                        kind = FRAMED[c.component]
                        counts["tools_block" if c.name == NAMESPACE else kind] += 1
                groups.setdefault((acc.family, api), []).append((tokens, acc.expected, counts))
    finally:
        framing_module.FAMILIES.update(saved)
        framing_module.framing_for.cache_clear()
    return groups


def _errors(rows: list[Sample], constants: dict[str, int]) -> list[float]:
    """Each turn's |error| with these framing constants."""
    return [abs(raw + sum(constants[k] * n for k, n in counts.items()) - tokens) / tokens
            for tokens, raw, counts in rows]


def _loss(rows: list[Sample], constants: dict[str, int]) -> float:
    """Mean |error| over the turns, each capped at 30 %."""
    return sum(min(e, 0.3) for e in _errors(rows, constants)) / len(rows)


def fit(paths: list[Path]) -> None:
    for (family, api), rows in sorted(samples(paths).items()):
        if family == "unknown":
            continue  # no constants of its own: it borrows the newest family's
        current = framing_module.FAMILIES.get((family, api))
        constants = {k: getattr(current, k) if current else 0 for k in CONSTANTS}
        for _round in range(30):
            before = dict(constants)
            for k in CONSTANTS:
                # ties go to the value nearest the current one
                constants[k] = min(range(-15, 121), key=lambda v, k=k: (
                    _loss(rows, {**constants, k: v}), abs(v - constants[k])))
            if constants == before:
                break
        print(f"{family:8} {api:9} turns {len(rows):4}  {constants}")
        print(" " * 24 + calibration(_errors(rows, constants)))


if __name__ == "__main__":
    sys.exit(main())
