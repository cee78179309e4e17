"""The traceview.report/1 document, as bytes."""

from __future__ import annotations

import orjson

from traceview.analysis.session import Analysis


def render_json(analysis: Analysis) -> bytes:
    return orjson.dumps(analysis.to_report(), option=orjson.OPT_INDENT_2) + b"\n"
