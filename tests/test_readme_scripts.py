"""Every script the READMEs name runs on a fresh clone, and says what the README says it does.

A user copies these lines; a script that dies with a traceback (as `hosted_state_table.py`
once did, "claims.jsonl is stale", while `regenerate.py --check` passed) is a broken promise.
The guard test fails when a README names a script this file does not say where it is run.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READMES = [ROOT / "README.md", ROOT / "sample_traces" / "README.md"]
SCRIPT = re.compile(r"python3? (-m [\w.]+|[\w/]+\.py)")

# where each named script is run (each once: the test there reads what it says)
RUNS: dict[str, str] = {
    "-m traceview.commands.roundtrip": "tests/sim/test_cli.py",
    "sample_traces/regenerate.py": "tests/sim/test_cli.py (--check)",
    "sample_traces/hosted_state_table.py": "test_claims_included_replays_against_the_...",
    "-m pytest": "the README's own test command: this suite",
    "-m venv": "the README's set-up line, run by .ci/run",
    "-m build": "the wheel: tests/test_packaging.py builds and runs it",
}


def named() -> set[str]:
    found = set()
    for readme in READMES:
        for m in SCRIPT.finditer(readme.read_text()):
            name = m.group(1)
            found.add(name if name.startswith("-m") or "/" in name
                      else f"{readme.parent.relative_to(ROOT)}/{name}".lstrip("./"))
    return found


def test_every_script_a_readme_names_is_run_here():
    assert named() - set(RUNS) == set()
    assert {"sample_traces/hosted_state_table.py", "-m traceview.commands.roundtrip"} <= named()


def test_claims_included_replays_against_the_providers_copy():
    """The README: claims_included is unverified from the capture alone and replays live."""
    done = subprocess.run([sys.executable, "sample_traces/hosted_state_table.py"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    row = next(line for line in done.stdout.splitlines()
               if line.startswith("| sample_traces/claims_included.jsonl |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3].startswith("unverified")
    assert cells[4] == "replays"
    claims = next(line for line in done.stdout.splitlines()
                  if line.startswith("| sample_traces/claims.jsonl |"))
    assert claims.strip("|").split("|")[4].strip().startswith("fails: hosted results")
