"""The results folder's manifest: what was planned, what ran, when, and whether it ended.

``manifest.json`` is written whole (temporary file + rename) when a run starts and when
it stops. In between, every finished unit appends one line to ``progress.jsonl`` (one
``write``, like a capture record) with the byte length each output file had at that
moment — rewriting the whole manifest per unit cost more than the 2 ms per call the
runner may spend. A run that is stopped — Ctrl-C, a crash, a lost connection — thus
leaves a record of exactly the units that are complete and where their records end;
``--resume`` folds the journal into the manifest, cuts anything after those lengths
(the records of a unit that did not finish) and carries on.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from traceview.capture.redact import redact_text

SCHEMA = "traceview.ab/1"
NAME = "manifest.json"
OUTPUTS = ("A.jsonl", "B.jsonl", "ledger.jsonl")
JOURNAL = "progress.jsonl"


def now_iso(t: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if t is None else t))


def write(folder: Path, manifest: dict[str, Any]) -> None:
    path = folder / NAME
    tmp = folder / (NAME + ".tmp")
    text = redact_text(json.dumps(manifest, indent=1, ensure_ascii=False))
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, path)


class ManifestError(Exception):
    """A results folder that cannot be resumed or read; the message says why."""


def read(folder: Path) -> dict[str, Any]:
    path = folder / NAME
    try:
        data = json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ManifestError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ManifestError(f"{path}: not a traceview ab manifest (schema {SCHEMA})")
    return data


def offsets(folder: Path) -> dict[str, int]:
    return {name: (folder / name).stat().st_size if (folder / name).exists() else 0
            for name in OUTPUTS}


def cut_to(folder: Path, lengths: dict[str, int]) -> int:
    """Truncate each output to its recorded length; returns the bytes removed."""
    removed = 0
    for name in OUTPUTS:
        path = folder / name
        keep = int(lengths.get(name, 0))
        if path.exists() and path.stat().st_size > keep:
            removed += path.stat().st_size - keep
            with open(path, "r+b") as handle:
                handle.truncate(keep)
    return removed


def fold_journal(folder: Path, manifest: dict[str, Any]) -> None:
    """Bring ``completed``/``failed``/``offsets`` up to date with ``progress.jsonl``."""
    path = folder / JOURNAL
    if not path.exists():
        return
    done = set(manifest["completed"]) | {f["unit"] for f in manifest["failed"]}
    for raw in path.read_bytes().splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # a torn last line: its unit is not done
        if not isinstance(line, dict) or not isinstance(line.get("unit"), str):
            continue
        if line["unit"] not in done:
            done.add(line["unit"])
            if line.get("error") is None:
                manifest["completed"].append(line["unit"])
            else:
                manifest["failed"].append({"unit": line["unit"], "error": line["error"]})
        if isinstance(line.get("offsets"), dict):
            manifest["offsets"] = line["offsets"]
