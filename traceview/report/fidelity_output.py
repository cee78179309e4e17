"""Render replay-fidelity scores as text, markdown, or the ``traceview.fidelity/1`` JSON.

Ids, details and reasons name things from captures and provider replies: untrusted, so
every string passes `safe.visible` (text) or is escaped for markdown cells.
"""

from __future__ import annotations

import json
from typing import Any

from traceview.analysis.hosted.verdicts import REASONS, Fidelity
from traceview.safety.redact import redact, redact_text
from traceview.safety.sanitise import json_shown, plain

SCHEMA = "traceview.fidelity/1"


def to_json(scores: list[Fidelity], sources: list[str]) -> str:
    doc: dict[str, Any] = {"schema": SCHEMA, "sources": sources,
                           "scores": [f.to_dict() for f in scores]}
    # Each value redacted on its own (an escaped control before a key would hide its word
    # boundary), then through the JSON sanitiser: every string decodes to its safe text.
    text = json.dumps(redact(doc), indent=2, ensure_ascii=True).encode()
    return json_shown(text).decode() + "\n"


def _score(f: Fidelity) -> str:
    n = len(f.verdicts)
    replay = sum(v.replays for v in f.verdicts)
    pct = "n/a" if f.score is None else f"{f.score:g} %"
    return f"{pct} of conversations replay ({replay} of {n})"


def to_text(scores: list[Fidelity], sources: list[str]) -> str:
    out = [f"replay fidelity: {plain(', '.join(sources))}"]
    for f in scores:
        out.append("")
        out.append(f"[{plain(f.label)}] {_score(f)}")
        for v in f.verdicts:
            name = plain(v.id or v.conversation)
            out.append(f"  {name} ({v.mode}, final turn {v.final_turn}): {v.status.upper()}"
                       + (f" — {REASONS.get(v.reason or '', v.reason)}" if v.reason else ""))
            out.append(f"      {plain(v.detail)}")
            if v.rebuilt_sha256 or v.received_sha256:
                out.append(f"      rebuilt  sha256 {v.rebuilt_sha256 or '—'}")
                out.append(f"      received sha256 {v.received_sha256 or '—'}"
                           + (f"  ({plain(v.received_from)})" if v.received_from else ""))
    out.append("")
    out.append("method: sha256 of the canonical JSON of the final turn's input rebuilt from "
               "the capture, against the input the model received (own request, or the "
               "provider's input_items)")
    return "\n".join(out) + "\n"


def _cell(s: object) -> str:
    return plain(str(s)).replace("|", "\\|")


def to_markdown(scores: list[Fidelity], sources: list[str]) -> str:
    out = [f"# Replay fidelity: {_cell(', '.join(sources))}", ""]
    for f in scores:
        out += [f"## {_cell(f.label)}: {_score(f)}", "",
                "| conversation | mode | final turn | verdict | reason | detail |",
                "|---|---|---:|---|---|---|"]
        for v in f.verdicts:
            out.append(f"| `{_cell(v.id or v.conversation)}` | {v.mode} | {v.final_turn} "
                       f"| {v.status} | {_cell(REASONS.get(v.reason or '', '') or '—')} "
                       f"| {_cell(v.detail)} |")
        out.append("")
    return "\n".join(out)


def render(scores: list[Fidelity], sources: list[str], fmt: str) -> str:
    """The scores in `fmt`, with anything key-shaped masked."""
    if fmt == "json":
        text = to_json(scores, sources)
    elif fmt == "markdown":
        text = to_markdown(scores, sources)
    else:
        text = to_text(scores, sources)
    return redact_text(text)
