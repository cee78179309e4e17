"""What the model was shown on one turn: the input account as a stack, headless.

The lines are the report's `input_account` for the turn (the same numbers as
`report --format json`), with the billed input beside their sum; text, markdown or JSON,
every byte through the output boundary (safety/).
"""

from __future__ import annotations

from typing import Any

import orjson

from traceview.analysis.account import account
from traceview.analysis.session import Analysis
from traceview.capture.items import response_body
from traceview.report.context_origin import origin_totals, with_origins
from traceview.report.fmt import num
from traceview.safety.redact import redact_json
from traceview.safety.sanitise import json_safe, plain, visible

SCHEMA = "traceview.context/1"
_BASIS = {"known": "known", "estimated": "≈ estimated", "unknown": "? unknown"}


def context_doc(analysis: Analysis, index: int) -> dict[str, Any] | None:
    """The turn's stack: its lines, their sum, the billed and expected input; None when
    the capture has no turn `index`."""
    turn = analysis.turn(index)
    return None if turn is None else turn_context(turn)


def turn_context(turn: Any) -> dict[str, Any]:
    """One turn's stack (a TurnReport, or any row with the same members: the inspector's
    context view shows this document)."""
    index = turn.index
    lines = None if turn.input_account is None else with_origins(turn.input_account)
    known = sum(c["tokens"] for c in lines or () if c["tokens"] is not None)
    return {
        "schema": SCHEMA, "turn": index, "conversation": turn.conversation,
        "model": turn.model, "api": turn.api,
        "input_tokens": turn.input_tokens, "cached_tokens": turn.cached_tokens,
        "expected_input": turn.expected_input, "unexplained_tokens": turn.unexplained_tokens,
        "expected_input_unknown": turn.expected_input_unknown,
        "known_tokens": known if lines is not None else None,
        "unknown_lines": sum(1 for c in lines or () if c["tokens"] is None),
        "markers": list(turn.markers), "input_account": lines,
        "origins": origin_totals(lines or ()),
    }


def fill_from_provider(doc: dict[str, Any], analysis: Analysis,
                       listings: dict[str, list[dict[str, Any]]]) -> None:
    """Size the carried line from the provider's `input_items` listing of the turn's
    response (`--items`): the listing is everything the model received, so what precedes
    the turn's own input items is what the conversation carried, counted line by line in
    `provider_items` (added to the document; the other keys keep their meaning)."""
    turn = analysis.turn(doc["turn"])
    lines = doc["input_account"]
    carried = next((c for c in lines or () if c["component"] == "carried"), None)
    if turn is None or carried is None:
        return
    listing = listings.get(turn.response_id or "")
    req = turn.turn.req
    if listing is None or req is None or req.input_count > len(listing):
        return
    held = listing[: len(listing) - req.input_count]
    acc = account({"model": turn.model, "input": held}, turn.model)
    parts = [c for c in acc.components if c.component != "request"]
    items = [c.to_dict() for c in parts]
    counted = [c.tokens for c in parts]
    total = None if None in counted else sum(t for t in counted if t is not None)
    basis = "unknown" if total is None else (
        "estimated" if any(c.basis != "known" for c in parts) else "known")
    carried.update(tokens=total, basis=basis,
                   reason=f"{len(held)} items the provider listed before this turn's own"
                          f" input (input_items of {turn.response_id})")
    doc["provider_items"] = items
    doc["known_tokens"] = sum(c["tokens"] for c in lines if c["tokens"] is not None)
    doc["unknown_lines"] = sum(1 for c in lines if c["tokens"] is None)
    doc["origins"] = origin_totals(lines)


def turn_listing(analysis: Analysis, index: int,
                 conversation: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """What turn `index` received, cut from a provider listing of its whole conversation
    (a `traceview fetch` snapshot): every item before the turn's first output item, keyed
    by its response id as an `input_items` listing would be; empty when the listing does
    not hold the turn's output (another conversation, or the turn was not stored)."""
    turn = analysis.turn(index)
    if turn is None or not turn.response_id:
        return {}
    body = response_body(analysis.capture.read(turn.turn.response))
    outputs = {it.get("id") for it in (body or {}).get("output") or ()
               if isinstance(it, dict) and isinstance(it.get("id"), str)}
    first = next((n for n, it in enumerate(conversation) if it.get("id") in outputs), None)
    return {} if first is None else {turn.response_id: conversation[:first]}


def render_json(doc: dict[str, Any]) -> bytes:
    return json_safe(redact_json(orjson.dumps(doc, option=orjson.OPT_INDENT_2))) + b"\n"


def render_text(doc: dict[str, Any], markdown: bool = False) -> str:
    """The stack, one line per component, the sum and the billed input below."""
    rows = [(c["component"], c["name"], num(c["tokens"]) if c["tokens"] is not None else "?",
             "" if c["source_turn"] is None else str(c["source_turn"]), _BASIS[c["basis"]],
             c["reason"]) for c in doc["input_account"] or ()]
    head = (f"turn {doc['turn']} · {doc['model'] or '?'} · {doc['api']} · billed "
            f"{num(doc['input_tokens'])} input tokens (cached {num(doc['cached_tokens'])})")
    sums = (f"expected {num(doc['expected_input'])} · unexplained "
            f"{num(doc['unexplained_tokens'])} · counted {num(doc['known_tokens'])}"
            f" + {doc['unknown_lines']} unknown line(s)")
    if doc["input_account"] is None:
        body = ["the request body could not be read again: no account"]
    elif markdown:
        body = ["| component | name | tokens | from turn | basis | reason |",
                "|---|---|---:|---:|---|---|",
                *("| " + " | ".join(_cell(x) for x in row) + " |" for row in rows)]
    else:
        widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(_HEADS[:5])]
        body = ["  ".join(h.ljust(w) for h, w in zip(_HEADS[:5], widths, strict=True))]
        body += ["  ".join(x.rjust(w) if i in (2, 3) else x.ljust(w)
                           for i, (x, w) in enumerate(zip(r[:5], widths, strict=True)))
                 for r in rows]
        notes = [f"{r[0]} {r[1]}: {r[5]}" for r in rows if r[2] == "?" or r[3]]
        body += ["", *notes] if notes else []
    why = doc["expected_input_unknown"]
    lines = [("# " if markdown else "") + head, "", *body, "", sums, *([why] if why else [])]
    text = "\n".join(line.rstrip() for line in lines) + "\n"
    return visible(text, multiline=True)


_HEADS = ("component", "name", "tokens", "from turn", "basis")


def _cell(s: str) -> str:
    return plain(s).replace("|", "\\|").replace("\n", " ")
