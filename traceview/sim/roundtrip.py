"""End to end on a fresh clone: `traceview sim` + recorder + real SDK + `traceview report`.

Starts the simulator as its own process, records the claims scenario twice (without and
with include=["file_search_call.results"]), runs `traceview report --format json` on each
capture and checks what a user should see: a deposit on the turn after the file search,
evidence "missing" on the search, and "captured" when include was set. Exit 0 when all
holds; no API key and no network needed.

    python -m traceview.commands.roundtrip [--keep DIR]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def traceview_cmd() -> list[str]:
    return [sys.executable, "-c", "import sys; from traceview.cli import main; sys.exit(main())"]


def report(path: Path) -> dict[str, Any]:
    out = subprocess.run([*traceview_cmd(), "report", str(path), "--format", "json"],
                         capture_output=True, text=True, timeout=120)
    if out.returncode not in (0, 1):
        raise SystemExit(f"traceview report failed ({out.returncode}): {out.stderr}")
    doc: dict[str, Any] = json.loads(out.stdout)
    return doc


def check(doc: dict[str, Any], include: bool) -> list[str]:
    failures = []
    turns = doc["turns"]
    searched = [t for t in turns if t["hosted_calls"]]
    if [t["index"] for t in searched] != [2, 4]:
        indices = [t["index"] for t in searched]
        failures.append(f"file search expected on turns 2 and 4, got {indices}")
    want = "captured" if include else "missing"
    got = [c["evidence"] for t in searched for c in t["hosted_calls"]]
    if got != [want, want]:
        failures.append(f"evidence expected {want!r}, got {got}")
    if "deposit" not in turns[2]["markers"]:
        failures.append(f"turn 3 should carry a deposit marker, has {turns[2]['markers']}")
    return failures


def roundtrip(keep: str | None = None) -> int:
    """Exit status 0 when every check holds; ``keep``: write the captures there and keep
    them."""
    import traceview.record
    from traceview.sim.scenario import run_claims

    sim = subprocess.Popen([*traceview_cmd(), "sim", "--port", "0", "--quiet"],
                           stdout=subprocess.PIPE, text=True)
    try:
        line = sim.stdout.readline() if sim.stdout else ""
        if "listening on " not in line:
            raise SystemExit(f"traceview sim did not start: {line!r}")
        base_url = line.split("listening on ", 1)[1].strip()
        print(f"simulator: {base_url}")
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(keep or tmp)
            folder.mkdir(parents=True, exist_ok=True)
            failures = []
            for include in (False, True):
                path = folder / f"claims{'-include' if include else ''}.jsonl"
                path.unlink(missing_ok=True)
                client = traceview.record.client(path, base_url=base_url, max_retries=0,
                                                 api_key="sk-roundtrip-000000000000")
                run_claims(client, include=include)
                client.close()
                problems = check(report(path), include)
                print(f"{path.name}: {'ok' if not problems else 'FAILED'}")
                failures += problems
    finally:
        sim.terminate()
        sim.wait(10)
    for failure in failures:
        print(f"  {failure}", file=sys.stderr)
    return 1 if failures else 0

