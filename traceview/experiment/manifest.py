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

from traceview.safety.redact import redact_text

SCHEMA = "traceview.ab/1"
NAME = "manifest.json"
OUTPUTS = ("A.jsonl", "B.jsonl", "ledger.jsonl")
JOURNAL = "progress.jsonl"
STORE = "A-store.sqlite"


def now_iso(t: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if t is None else t))


def write(folder: Path, manifest: dict[str, Any]) -> None:
    path = folder / NAME
    tmp = folder / (NAME + ".tmp")
    text = redact_text(json.dumps(manifest, indent=1, ensure_ascii=True))
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()  # a leftover (or a planted link) is replaced, never written through
    # 0o600 like the arms' captures and store beside it: it names the conversations sampled.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
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
    fault = shape_fault(data)
    if fault:
        raise ManifestError(f"{path}: {fault}; the run cannot be resumed from it")
    return data


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _unit_ok(tag: Any) -> bool:
    """``ARM:CONVERSATION:RUN`` as the runner writes it."""
    if not isinstance(tag, str) or tag.count(":") < 2:
        return False
    arm, rest = tag.split(":", 1)
    return arm in ("A", "B") and rest.rsplit(":", 1)[1].isdigit()


def shape_fault(m: dict[str, Any]) -> str | None:
    """What is wrong with a manifest's shape (the first fault), or None.

    ``--resume`` acts on the manifest: it truncates the outputs to ``offsets`` and replays
    ``sample`` in ``order``. A manifest edited by hand or by another program is checked
    field by field first, so a wrong type is a one-line refusal naming the field, never a
    traceback halfway through a run, and no output is cut to a length it did not record.
    """
    if not isinstance(m.get("model"), str) or not m["model"]:
        return "'model' is not a model name"
    if not _is_int(m.get("runs")) or m["runs"] < 1:
        return "'runs' is not a positive whole number"
    if not isinstance(m.get("options"), dict):
        return "'options' is not an object"
    sample = m.get("sample")
    if not isinstance(sample, list):
        return "'sample' is not a list"
    for i, c in enumerate(sample):
        if not (isinstance(c, dict) and isinstance(c.get("key"), str)
                and isinstance(c.get("user_messages"), list)
                and all(isinstance(u, str) for u in c["user_messages"])
                and all(c.get(k) is None or _is_int(c[k]) for k in
                        ("input_tokens", "cached_tokens", "output_tokens"))
                and all(c.get(k) is None or isinstance(c[k], str)
                        for k in ("instructions", "model"))):
            return f"'sample'[{i}] is not a conversation (key, user_messages, tokens)"
    for key in ("order", "completed"):
        seq = m.get(key)
        if not isinstance(seq, list) or not all(_unit_ok(t) for t in seq):
            return f"'{key}' is not a list of units (ARM:CONVERSATION:RUN)"
    failed = m.get("failed")
    if not isinstance(failed, list) or not all(
            isinstance(f, dict) and _unit_ok(f.get("unit")) for f in failed):
        return "'failed' is not a list of {unit, error}"
    offsets = m.get("offsets")
    if not isinstance(offsets, dict) or not all(
            k in OUTPUTS and _is_int(v) and v >= 0 for k, v in offsets.items()):
        return f"'offsets' is not a byte length per output file ({', '.join(OUTPUTS)})"
    for key in ("notes", "sessions", "files"):
        if not isinstance(m.get(key, []), list):
            return f"'{key}' is not a list"
    if m.get("vector_store") is not None and not isinstance(m["vector_store"], str):
        return "'vector_store' is not an id"
    return None


def offsets(folder: Path) -> dict[str, int]:
    return {name: (folder / name).stat().st_size if (folder / name).exists() else 0
            for name in OUTPUTS}


def owned_outputs(folder: Path) -> None:
    """ManifestError unless every output the manifest lists is a regular file inside
    ``folder`` (or absent): ``--resume`` cuts them, and must never cut a file elsewhere
    through a symlink or a capture that is not this run's. A hard link is another name of
    a file elsewhere (a file the run wrote has one), so it is refused as a symlink is."""
    for name in (*OUTPUTS, JOURNAL, NAME, STORE):
        path = folder / name
        if path.is_symlink():
            raise ManifestError(f"{path}: is a symlink; --resume only touches the run's own "
                                "files inside its folder")
        if path.exists() and not path.is_file():
            raise ManifestError(f"{path}: is not a regular file")
        if path.exists() and path.stat().st_nlink > 1:
            raise ManifestError(f"{path}: has another name (a hard link to a file elsewhere); "
                                "--resume only touches the run's own files")


def cut_to(folder: Path, lengths: dict[str, int]) -> int:
    """Truncate each output to its recorded length; returns the bytes removed."""
    owned_outputs(folder)
    removed = 0
    for name in OUTPUTS:
        path = folder / name
        keep = int(lengths.get(name, 0))
        if path.exists() and path.stat().st_size > keep:
            removed += path.stat().st_size - keep
            # O_NOFOLLOW: a symlink planted since the check above is not followed.
            fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
            try:
                os.ftruncate(fd, keep)
            finally:
                os.close(fd)
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
            if not _unit_ok(line["unit"]):
                continue  # not a unit this runner wrote
            if line.get("error") is None:
                manifest["completed"].append(line["unit"])
            else:
                manifest["failed"].append({"unit": line["unit"], "error": line["error"]})
        offs = line.get("offsets")
        if isinstance(offs, dict) and all(k in OUTPUTS and isinstance(v, int)
                                          and not isinstance(v, bool) and v >= 0
                                          for k, v in offs.items()):
            manifest["offsets"] = offs
