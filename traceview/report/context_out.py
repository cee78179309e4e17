"""What the model was shown on one turn: the input account as a stack, headless.

The lines are the report's `input_account` for the turn (the same numbers as
`report --format json`), with the billed input beside their sum; text, markdown or JSON,
every byte through the output boundary (safety/). A carried line a provider copy counted
(analysis/account/carried.py) lists the copy's items as `provider_items`.
"""

from __future__ import annotations

from typing import Any

import orjson

from traceview.analysis.session import Analysis
from traceview.report.context_origin import origin_totals, with_origins
from traceview.report.fmt import num, signed
from traceview.safety.redact import redact_json
from traceview.safety.sanitise import json_shown, plain, visible

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
        # The carried line counted from a provider copy (`--items`/`--live`): its items.
        **({"provider_items": list(copy.lines)}
           if (copy := getattr(turn, "carried_copy", None)) is not None else {}),
    }


def render_json(doc: dict[str, Any]) -> bytes:
    return json_shown(redact_json(orjson.dumps(doc, option=orjson.OPT_INDENT_2))) + b"\n"


def render_text(doc: dict[str, Any], markdown: bool = False) -> str:
    """The stack, one line per component, the sum and the billed input below."""
    rows = [(c["component"], c["name"], num(c["tokens"]) if c["tokens"] is not None else "?",
             "" if c["source_turn"] is None else str(c["source_turn"]), _BASIS[c["basis"]],
             c["reason"]) for c in doc["input_account"] or ()]
    head = (f"turn {doc['turn']} · {doc['model'] or '?'} · {doc['api']} · billed "
            f"{num(doc['input_tokens'])} input tokens (cached {num(doc['cached_tokens'])})")
    sums = (f"expected {num(doc['expected_input'])} · unexplained "
            f"{signed(doc['unexplained_tokens'])} · counted {num(doc['known_tokens'])}"
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
