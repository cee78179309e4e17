"""The redactor of this checkout beside another's, in one process (as bench/facts_ab.py).

Both versions run in the same process, in rounds whose order is shuffled, on the same
inputs held in memory; each keeps its best CPU time (time.process_time) over the rounds,
so the load of a shared machine disturbs both alike. Inputs, from the capture's lines:
  redact_text  — every string value of the decoded lines (user text, outputs, ids …): the
                 pre-check and, where it passes, the masker
  json capture — the capture's lines as chunks of ~0.4 MB through redact_json: its hint
                 scans name most lines here ("prompt_cache_key":), so this is the masker
                 over whole lines
  json report  — with --report, the first --report-mb of a `report --format json` output
                 in the same chunks, as the JSON report writer redacts its output
Printed: CPU ms per pass for each side, this/other, and each as × the bare orjson.loads
loop over the same lines (a control, the same in both).

    traceview report /tmp/h50.jsonl --format json > /tmp/h50-report.json
    python bench/redact_ab.py /tmp/h50.jsonl --against /work/main --report /tmp/h50-report.json
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import orjson  # noqa: E402
from capture_arg import capture_file  # noqa: E402
from facts_ab import (  # noqa: E402
    OTHER,
    ab_args,
    ab_parser,
    first_lines,
    import_other,
    shuffled_best,
)

CHUNK = 400_000  # bytes per redact_json call, about the report writer's batch


def strings(value: Any, out: list[str]) -> None:
    """Every string (keys too) in a decoded JSON value, depth first."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            out.extend(k for k in v if isinstance(k, str))
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def chunks(lines: list[bytes]) -> list[bytes]:
    out, cur, size = [], [], 0
    for raw in lines:
        cur.append(raw)
        size += len(raw)
        if size >= CHUNK:
            out.append(b"".join(cur))
            cur, size = [], 0
    if cur:
        out.append(b"".join(cur))
    return out


def runners(redact: Any, texts: list[str], blobs: list[bytes],
            report: list[bytes]) -> dict[str, Callable[[], None]]:
    redact_text, redact_json = redact.redact_text, redact.redact_json

    def text() -> None:
        for t in texts:
            redact_text(t)

    def json_of(chunks: list[bytes]) -> Callable[[], None]:
        def run() -> None:
            for b in chunks:
                redact_json(b)
        return run

    cases = {"redact_text": text, "json capture": json_of(blobs)}
    if report:
        cases["json report"] = json_of(report)
    return cases


def main(argv: list[str] | None = None) -> None:
    ap = ab_parser(__doc__, rounds=15, lines=2000)
    ap.add_argument("--report", type=capture_file, help="a `report --format json` output")
    ap.add_argument("--report-mb", type=float, default=8.0, help="MB of it used")
    args = ab_args(ap, argv)
    from traceview.safety import redact

    lines = first_lines(args.path, args.lines)
    texts: list[str] = []
    for raw in lines:
        strings(orjson.loads(raw), texts)
    hinted = sum(len(t) >= redact.MIN_SECRET_LENGTH and bool(redact._hinted_lines(t.encode()))
                 for t in texts)
    blobs = chunks(lines)
    report: list[bytes] = []
    if args.report:
        with open(args.report, "rb") as f:
            report = chunks(f.read(int(args.report_mb * 1e6)).splitlines(keepends=True))
    with tempfile.TemporaryDirectory(prefix="redact-ab-") as tmp:
        import_other(args.against, Path(tmp))
        other = importlib.import_module(f"{OTHER}.capture.redact")
        cases: dict[str, Callable[[], None]] = {}
        for side, mod in (("this", redact), ("other", other)):
            for name, fn in runners(mod, texts, blobs, report).items():
                cases[f"{name} {side}"] = fn

        best = shuffled_best(cases, lines, args.rounds)
    loop = best["orjson (control)"]
    print(f"{args.path}: {len(lines):,} lines, {len(texts):,} strings ({hinted:,} past "
          f"the pre-check), {len(blobs)} chunks; report: {len(report)} chunks; best of "
          f"{args.rounds} shuffled rounds, CPU; other = {args.against}")
    for name in ("redact_text", "json capture", "json report"):
        if f"{name} this" not in best:
            continue
        mine, theirs = best[f"{name} this"], best[f"{name} other"]
        print(f"  {name:<12} this {mine * 1e3:8.2f} ms ({mine / loop:5.3f}× loop)   other "
              f"{theirs * 1e3:8.2f} ms ({theirs / loop:5.3f}× loop)   this/other "
              f"{mine / theirs:5.3f}")
    print(f"  orjson loop  {loop * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
