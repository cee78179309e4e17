"""The traceview.report/1 document, written a turn at a time.

A capture of a hundred thousand turns would need every turn's dict in memory at once to
serialise in one call; streaming keeps the report's peak at the analysis's own.
"""

from __future__ import annotations

from collections.abc import Iterator

import orjson

from traceview.analysis.session import Analysis
from traceview.capture.redact import redact_json
from traceview.report.safe import json_safe

_PLACEHOLDER = "\u0000turns\u0000"
_OBJECTS = "\u0000objects\u0000"  # the provider objects' list: one per stored response


def iter_json(analysis: Analysis) -> Iterator[bytes]:
    """The document as chunks of bytes, indented like orjson's OPT_INDENT_2.

    Every value is redacted and every chunk made terminal-safe here, at the boundary, so
    no field (endpoint query, status, error, id) can carry a key or a control out.
    """
    head = json_safe(redact_json(orjson.dumps(
        analysis.to_report(turns=_PLACEHOLDER, objects=_OBJECTS), option=orjson.OPT_INDENT_2)))
    before, after = head.split(orjson.dumps(_PLACEHOLDER), 1)
    yield before + b"["
    sep = b"\n    "
    for i, turn in enumerate(analysis.turns):
        body = json_safe(redact_json(orjson.dumps(turn.to_dict(), option=orjson.OPT_INDENT_2))
                         ).replace(b"\n", sep)
        yield (b"," if i else b"") + sep + body
    yield b"\n  ]" if analysis.turns else b"]"
    marker = orjson.dumps(_OBJECTS)
    if marker not in after:
        yield after + b"\n"
        return
    middle, tail = after.split(marker, 1)
    yield middle + b"["
    sep = b"\n      "
    objects = analysis.objects.objects
    for i, obj in enumerate(objects):
        body = json_safe(redact_json(orjson.dumps(obj.to_dict(), option=orjson.OPT_INDENT_2))
                         ).replace(b"\n", sep)
        yield (b"," if i else b"") + sep + body
    yield (b"\n    ]" if objects else b"]") + tail + b"\n"


def render_json(analysis: Analysis) -> bytes:
    return b"".join(iter_json(analysis))
