"""Arms for the comparison, from captures or from an ``ab`` results folder.

* ``traceview compare RESULTS/`` — the folder ``traceview ab`` wrote: ``A.jsonl`` and
  ``B.jsonl`` analysed as captures, joined by response id with ``ledger.jsonl``, which
  holds the latency at the caller (including arm A's store work) and which played
  conversation and run each turn belongs to; ``manifest.json`` gives runs and status.
* ``traceview compare A B`` — any two captures (files or directories): conversations as
  the analysis groups them, latency = the turn's caller latency (first attempt sent ->
  final response received, backoff between retries included; a retried turn without the
  recorder's ``ts`` falls back to its attempts' ``elapsed_ms`` summed, and the arm says
  so), time from each response record's ``ts`` when the recorder wrote one.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from traceview.analysis.compare import Arm, ArmTurn
from traceview.analysis.options import Options
from traceview.analysis.pricing import counters_for
from traceview.analysis.session import analyze
from traceview.analysis.timing import BASIS_NO_TS

_TS = re.compile(rb'"ts":\s*([0-9]+(?:\.[0-9]+)?)')


class ArmsError(Exception):
    """Arms that cannot be read; the message names the path and the fault."""


# A results folder is a file like any other: its manifest and ledger are checked field by
# field where they are read, so a value of the wrong type is dropped (unknown), never a
# crash deep in the statistics (hostile input, issue #9).
_TS_MAX = 253402300799.0  # 9999-12-31: the last second a calendar can print


def _number(v: Any, lo: float = 0.0, hi: float = 1e15) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if lo <= v <= hi else None


def _count(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 1 << 31 else None


def _ledger_line(line: dict[str, Any]) -> dict[str, Any] | None:
    rid = line.get("response_id")
    if not isinstance(rid, str) or not rid:
        return None
    conv, run = line.get("conversation"), line.get("run")
    return {"response_id": rid,
            "conversation": conv if isinstance(conv, str) else None,
            "run": run if isinstance(run, int) and not isinstance(run, bool) else None,
            "latency_ms": _number(line.get("latency_ms")),
            "ts": _number(line.get("ts"), 0.0, _TS_MAX),
            "state_ms": _number(line.get("state_ms"))}


def is_results_folder(path: str) -> bool:
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, "manifest.json"))


def _hosted(turn: Any) -> tuple[tuple[str, int], ...]:
    """Hosted calls by type: the provider's own counters where it reports them (it bills
    what it counted), else the output items counted."""
    res = turn.turn.res
    if res is None:
        return ()
    counts: dict[str, int] = {}
    for call in res.hosted_calls or ():
        counts[call.type] = counts.get(call.type, 0) + 1
    counts.update(counters_for(res) or {})
    return tuple(sorted((k, n) for k, n in counts.items() if n))


def _ts(analysis: Any, turn: Any) -> float | None:
    """The recorder's ``ts`` near the start of the response (else request) record."""
    for ref in (turn.response_ref, turn.request_ref):
        raw = analysis.capture.read_raw(ref, limit=160)
        m = _TS.search(raw or b"")
        if m:
            return float(m.group(1))
    return None


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    out = []
    try:
        with open(path, "rb") as handle:
            for line in handle:
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if isinstance(obj, dict):
                    out.append(obj)
    except OSError as exc:
        raise ArmsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return out


def arm_from_capture(name: str, paths: list[str], options: Options | None = None,
                     ledger: dict[str, dict[str, Any]] | None = None) -> Arm:
    for p in paths:
        if not os.path.exists(p):
            raise ArmsError(f"{p}: no such file or directory")
    analysis = analyze(paths, options)
    turns: list[ArmTurn] = []
    no_ts = 0  # retried turns whose latency leaves the backoff out (no recorder ts)
    for t in analysis.turns:
        if t.api == "compact":
            continue
        timing = t.timing  # made when read: once per turn
        line = (ledger or {}).get(t.response_id or "")
        if line is not None:
            conv = f"{line.get('conversation')}#{line.get('run')}"
            latency, ts, state = line.get("latency_ms"), line.get("ts"), line.get("state_ms")
        else:
            conv, latency = t.conversation_key, timing["caller_latency_ms"]
            ts, state = _ts(analysis, t), None
            no_ts += timing["caller_latency_basis"] == BASIS_NO_TS
        turns.append(ArmTurn(conv, latency, t.input_tokens, t.cached_tokens, t.output_tokens,
                             _hosted(t), t.model, ts, state, t.status, timing["ttft_ms"]))
    analysis.capture.close()
    arm = Arm(name, ", ".join(paths), turns, fidelity=arm_fidelity(analysis),
              problems=len(analysis.problems))
    if no_ts:
        arm.notes.append(f"{no_ts} retried turn(s) without the recorder's ts: their latency "
                         "is the attempts' elapsed_ms summed, the backoff between them left out")
    if analysis.problems:  # said at the top, never a silent arm of fewer turns
        first = analysis.problems[0]
        arm.notes.append(f"{len(analysis.problems)} problem(s) reading the capture; first: "
                         f"{first.source} line {first.line}: {first.message}")
    return arm


def arm_fidelity(analysis: Any) -> dict[str, Any] | None:
    """Replay fidelity of an arm's conversations from its capture alone (issue #13): the
    score, counts by reason, and a one-line status for the table."""
    fid = getattr(analysis, "fidelity", None)
    if fid is None:
        return None
    doc: dict[str, Any] = fid.to_dict()
    doc.pop("verdicts", None)
    n, ok = doc["conversations"], doc["replay"]
    pct = "n/a" if doc["score_pct"] is None else f"{doc['score_pct']:g} %"
    doc["status"] = f"{pct} replay ({ok}/{n}, capture only)"  # reasons: by_reason
    return doc


def load_arms(paths: list[str], options: Options | None = None
              ) -> tuple[Arm, Arm, dict[str, Any]]:
    """(A, B, meta) from one results folder or two captures."""
    if len(paths) == 1 and is_results_folder(paths[0]):
        return _from_folder(Path(paths[0]), options)
    if len(paths) != 2:
        raise ArmsError("give an `ab` results folder, or two captures: A (owned) then B (hosted)")
    a = arm_from_capture("A", [paths[0]], options)
    b = arm_from_capture("B", [paths[1]], options)
    return a, b, {"latency": "measured (caller latency: first attempt sent -> final "
                                 "response received, backoff included)", "status": None}


def _from_folder(folder: Path, options: Options | None) -> tuple[Arm, Arm, dict[str, Any]]:
    try:
        manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ArmsError(f"{folder / 'manifest.json'}: cannot read ({exc})") from None
    if not isinstance(manifest, dict):
        raise ArmsError(f"{folder / 'manifest.json'}: not a manifest")
    ledger = {line["response_id"]: line for line in map(_ledger_line,
                                                         _read_jsonl(folder / "ledger.jsonl"))
              if line is not None}
    arms = []
    for name in ("A", "B"):
        path = folder / f"{name}.jsonl"
        if not path.exists():
            raise ArmsError(f"{path}: missing from the results folder")
        arm = arm_from_capture(name, [str(path)], options, ledger)
        arm.runs = _count(manifest.get("runs"))
        sample, completed, order = (manifest.get(k) for k in ("sample", "completed", "order"))
        arm.source_conversations = len(sample) if isinstance(sample, list) and sample else None
        if manifest.get("status") != "complete":
            arm.notes.append(f"the run is {manifest.get('status')}: "
                             f"{len(completed) if isinstance(completed, list) else 0} of "
                             f"{len(order) if isinstance(order, list) else 0} units done")
        arms.append(arm)
    latency = "simulated" if manifest.get("latency") == "simulated" else "measured"
    return arms[0], arms[1], {"latency": latency, "status": manifest.get("status"),
                              "model": manifest.get("model"), "seed": manifest.get("seed")}
