"""The deletion checklist (`traceview objects`) as text, markdown or JSON, every byte
through the output boundary (safety/)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from traceview.safety.outputs import refuse_output, replacing
from traceview.safety.redact import redact_json
from traceview.safety.sanitise import json_shown, plain, visible

_HEADS = ("kind", "id", "state", "expires", "delete with")
_LIVE = {"present": "STILL PRESENT", "gone": "gone (404)", "error": "not checked"}


def render_json(doc: dict[str, Any]) -> bytes:
    return json_shown(redact_json(orjson.dumps(doc, option=orjson.OPT_INDENT_2))) + b"\n"


def sidecar_path(capture: Path, now: datetime) -> Path:
    """Where a live check of ``capture`` made at ``now`` is written: beside it, dated to
    the second, never the capture itself."""
    return capture.with_name(f"{capture.name}.objects-verify-{now.strftime('%Y%m%dT%H%M%SZ')}"
                             ".json")


def write_sidecar(doc: dict[str, Any], verify: dict[str, Any], sidecar: Path,
                  capture: Path) -> dict[str, Any]:
    """The checklist with what the provider said, written whole to ``sidecar`` through the
    safe writer (raises PathRefused when it exists or is the capture); the written doc."""
    refuse_output(sidecar, [capture])
    out = {**doc, "verify": verify, "sidecar": str(sidecar)}
    with replacing(sidecar) as tmp:
        tmp.write_bytes(render_json(out))
    return out


def _rows(doc: dict[str, Any]) -> list[tuple[str, ...]]:
    live = {(s["kind"], s["id"]): s for s in (doc.get("verify") or {}).get("objects", ())}
    out: list[tuple[str, ...]] = []
    for r in doc["objects"]:
        state = r["state"].replace("_", " ")
        seen = live.get((r["kind"], r["id"]))
        if seen is not None:
            state += f" · live: {_LIVE[seen['live']]}"
        out.append((r["kind"].replace("_", " "), r["id"], state,
                    r["expires_around"] or r["retention"],
                    r["delete"]["http"] if r["delete"] else "—"))
    return out


def render_text(doc: dict[str, Any], markdown: bool = False) -> str:
    """One line per object, in the order to delete them, and what is left."""
    # Every field on a line of its own through `plain` (a newline in a case id or an
    # error shown as \n): the whole text is made visible below with its line feeds kept.
    who = (f"case {plain(doc['case'])}" if doc["case"] else
           f"conversation {plain(doc['conversation'])}" if doc["conversation"] else
           "the capture")
    turns = doc["turns"]
    head = (f"deletion checklist · {who} · {len(turns)} turn(s) · {len(doc['objects'])} "
            f"provider object(s), {doc['remaining']} not deleted in the capture")
    rows = [tuple(map(plain, r)) for r in _rows(doc)]
    if not rows:
        body = ["no provider object holds this case's data in the capture"]
    elif markdown:
        body = ["| " + " | ".join(_HEADS) + " |", "|---|---|---|---|---|",
                *("| " + " | ".join(x.replace("|", "\\|") for x in r) + " |"
                  for r in rows)]
    else:
        widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(_HEADS)]
        body = ["  ".join(h.ljust(w) for h, w in zip(_HEADS, widths, strict=True))]
        body += ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)) for r in rows]
    tail = []
    ver = doc.get("verify")
    if ver is not None:
        c = ver["counts"]
        tail = ["", f"checked live at {plain(ver['checked_at'])} ({plain(ver['host'])}): "
                f"{c['gone']} gone, {c['present']} present, {c['error']} not answered — "
                f"{ver['verdict']}"
                + (f"; written to {plain(doc['sidecar'])}" if doc.get("sidecar") else "")]
        tail += [f"  {plain(s['kind'])} {plain(s['id'])}: {plain(s['error'])}"
                 for s in ver["objects"] if s["error"]]
    lines = [("# " if markdown else "") + head, "", *body, *tail]
    return visible("\n".join(line.rstrip() for line in lines) + "\n", multiline=True)
