"""Every `traceview` command the README shows is run here, on the shipped files, and does
what the README says: a copied line that fails is a broken promise.

`trace.jsonl` in the README is the claims sample (copied: a capture is never written);
`captures/` a directory of samples. Lines that open the inspector, listen forever or need
the provider that stored a conversation are named with where they are tested instead. The
guard test fails when the README shows a command this table does not know.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.fixtures_shared import run_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_traces"
FORMATS = ROOT / "tests" / "fixtures" / "formats"
COMMAND = re.compile(r"(?:^\$ |^|`)(traceview [^`#\n]*?)\s*(?:#.*)?(?:`|$)")

INSPECTOR = "opens the inspector: tests/ui (Pilot, snapshots) and tests/ui/test_tmux.py"
FOREVER = "serves until stopped: tests/record (proxy) and tests/sim"
PROVIDER = "needs the provider that stored the conversation: tests/provider run it on the sim"
PROSE = "a phrase in the README's prose, not a command line"

# README line -> (argv after `traceview`, exit status, text the output must hold), or a
# reason it is run elsewhere.
RUN: dict[str, tuple[list[str], int, str] | str] = {
    "traceview sample": INSPECTOR,
    "traceview demo": INSPECTOR,
    "traceview sample_traces/claims.jsonl": INSPECTOR,
    "traceview --follow trace.jsonl": INSPECTOR,
    "traceview trace.jsonl": INSPECTOR,
    "traceview session.har": INSPECTOR,
    "traceview demo --ab": "records and opens the comparison: tests/experiment",
    "traceview proxy --rotate": FOREVER,
    "traceview proxy -o trace.jsonl": FOREVER,
    "traceview proxy --port 8080 -o trace.jsonl": FOREVER,
    "traceview sim": FOREVER,
    "traceview diff trace.jsonl --live": PROVIDER,
    "traceview fetch trace.jsonl -o snapshot.json": PROVIDER,
    "traceview hydrate ids.txt -o capture.jsonl": PROVIDER,
    "traceview hydrate agent_trace.json -o capture.jsonl": PROVIDER,
    "traceview ab prod.jsonl -o results/ …": PROVIDER,
    "traceview ab prod.jsonl --sample 40 --runs 3 --model gpt-4.1-2025-04-14 --docs policy/ "
    "-o results/": PROVIDER,
    "traceview COMMAND --help": (["report", "--help"], 0, "usage: traceview report"),
    "traceview ab": PROSE, "traceview compare": PROSE, "traceview report --format json": PROSE,
    "traceview prints — screens, notifications, text/markdown/JSON reports, diffs, "
    "screenshots,": PROSE,
    "traceview fidelity CAPTURE [--live] [--items SNAPSHOT]":
        (["fidelity", "trace.jsonl"], 1, "0 of 1"),
    "traceview objects CAPTURE --case ID":
        (["objects", "trace.jsonl", "--case", "CS-88213"], 1, "CS-88213"),
    "traceview report trace.jsonl": (["report", "trace.jsonl"], 0, "6,110"),
    "traceview screenshot trace.jsonl -o t3.svg --view detail --turn 3":
        (["screenshot", "trace.jsonl", "-o", "t3.svg", "--view", "detail", "--turn", "3"],
         0, ""),
    "traceview fidelity trace.jsonl": (["fidelity", "trace.jsonl"], 1, "0 of 1"),
    "traceview context trace.jsonl --turn 3":
        (["context", "trace.jsonl", "--turn", "3"], 0, "unexplained +4,001"),
    "traceview fidelity sample_traces/claims.jsonl --items sample_traces/claims.snapshot.json":
        (["fidelity", "trace.jsonl", "--items", "claims.snapshot.json"], 1,
         "received sha256"),
    "traceview export captures/ --to parquet -o fleet/":
        (["export", "captures/", "--to", "parquet", "-o", "fleet/"], 0, ""),
    "traceview sql \"SELECT model, count(*) FROM turns GROUP BY model\" captures/":
        (["sql", "SELECT model, count(*) FROM turns GROUP BY model", "captures/"], 0,
         "gpt-4.1"),
    # without --project the bill is every project's: beyond tolerance, exit 1 (README)
    "traceview reconcile trace.jsonl --costs costs.json":
        (["reconcile", "service_day.jsonl", "--costs", "costs.json"], 1, "reconciliation"),
    "traceview reconcile sample_traces/service_day.jsonl --costs":
        (["reconcile", "service_day.jsonl", "--costs", "costs.json", "--project",
          "proj_service"], 0, ""),
    "traceview objects trace.jsonl --case CS-88213":
        (["objects", "trace.jsonl", "--case", "CS-88213"], 1, "CS-88213"),
    "traceview diff sample_traces/claims.jsonl --items sample_traces/claims.snapshot.json":
        (["diff", "trace.jsonl", "--items", "claims.snapshot.json"], 1, ""),
    "traceview report batch_input.jsonl batch_output.jsonl":
        (["report", "batch_input.jsonl", "batch_output.jsonl"], 0, "turns"),
    "traceview report --format json spans.json":
        (["report", "--format", "json", "spans.json"], 0, '"turns"'),
    "traceview report sample_traces/tenants.jsonl":
        (["report", "tenants.jsonl"], 0, "acme"),
    "traceview report sample_traces/tenants.jsonl --per-month 30000":
        (["report", "tenants.jsonl", "--per-month", "30000"], 0, "30,000"),
    "traceview compare results/": (["compare", "ab/"], 0, ""),
    "traceview compare results/ --open": "tests/ui/test_compare_screen.py (the screen, Pilot)",
}


def shown() -> list[str]:
    lines: list[str] = []
    for line in (ROOT / "README.md").read_text().splitlines():
        lines += [m.group(1).strip() for m in COMMAND.finditer(line)]
    return list(dict.fromkeys(lines))


def test_every_command_the_readme_shows_is_known_here():
    assert [c for c in shown() if c not in RUN] == []


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's file names, made from the shipped samples (copies: never the originals)."""
    where = tmp_path_factory.mktemp("readme")
    shutil.copyfile(SAMPLES / "claims.jsonl", where / "trace.jsonl")
    shutil.copyfile(SAMPLES / "claims.snapshot.json", where / "claims.snapshot.json")
    for name in ("service_day.jsonl", "tenants.jsonl"):
        shutil.copyfile(SAMPLES / name, where / name)
    shutil.copyfile(ROOT / "tests/fixtures/reconcile/service_day.costs.json",
                    where / "costs.json")
    for name in ("batch_input.jsonl", "batch_output.jsonl"):
        shutil.copyfile(FORMATS / name, where / name)
    shutil.copyfile(FORMATS / "otlp_genai.json", where / "spans.json")
    (where / "captures").mkdir()
    for name in ("claims.jsonl", "service_day.jsonl", "long_conversation.jsonl"):
        shutil.copyfile(SAMPLES / name, where / "captures" / name)
    shutil.copytree(SAMPLES / "ab", where / "ab")
    return where


LINES = [k for k, v in RUN.items() if not isinstance(v, str)]


def _in_a_fresh_process() -> set[tuple[str, ...]]:
    """The first README run of each command (its --help aside) is run as a user runs it,
    in a fresh process; the command's other runs go through its main() in this process
    (what they write is the subject). Two lines with the same argv share one run."""
    chosen: dict[str, tuple[str, ...]] = {}
    for line in LINES:
        argv = tuple(RUN[line][0])  # type: ignore[index]
        if "--help" not in argv:
            chosen.setdefault(argv[0], argv)
    return set(chosen.values())


FRESH = _in_a_fresh_process()


@cache
def _run(argv: tuple[str, ...], workdir: Path) -> subprocess.CompletedProcess[str]:
    if argv not in FRESH:
        done = run_cli(*argv, cwd=workdir)
        return subprocess.CompletedProcess(done.args, done.returncode,
                                           done.stdout.decode(), done.stderr.decode())
    return subprocess.run([sys.executable, "-m", "traceview", *argv], cwd=workdir,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("line", LINES)
def test_readme_command_runs(line: str, workdir: Path):
    argv, status, expect = RUN[line]  # type: ignore[misc]
    if argv[0] in ("export", "sql"):
        pytest.importorskip("pyarrow")
        pytest.importorskip("duckdb")
    before = (SAMPLES / "claims.jsonl").read_bytes()
    done = _run(tuple(argv), workdir)
    assert done.returncode == status, (done.stdout[-1500:], done.stderr[-1500:])
    assert "Traceback" not in done.stderr
    assert expect in done.stdout
    assert (workdir / "trace.jsonl").read_bytes() == before  # a capture is never written
