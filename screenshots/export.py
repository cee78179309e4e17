"""Export the README screenshots from the sample captures (SVG, plus PNG with cairosvg).

    python screenshots/export.py            # writes into screenshots/
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from traceview.ui.screenshot import render_svg, svg_to_png

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent / "sample_traces"
SIZE = (140, 40)

FIXTURES = HERE.parent / "tests" / "ui" / "fixtures"

#: (output stem, capture path, view, turn, provider snapshot for the diff view)
SHOTS = [
    ("claims-turns", SAMPLES / "claims.jsonl", "turns", 3, None),
    ("claims-detail-turn3", SAMPLES / "claims.jsonl", "detail", 3, None),
    ("service_day-conversations", SAMPLES / "service_day.jsonl", "conversations", None, None),
    ("claims-ledger", SAMPLES / "claims.jsonl", "ledger", 3, None),
    ("claims-objects", SAMPLES / "claims.jsonl", "objects", None, None),
    ("long_conversation-fidelity", SAMPLES / "long_conversation.jsonl", "conversations", 1,
     None),
    # A claims conversation recorded from the simulator, and the provider's copy of it.
    ("claims-diff", FIXTURES / "diff_capture.jsonl", "diff", None,
     FIXTURES / "diff_snapshot.json"),
]


def main() -> int:
    for stem, capture, view, turn, items in SHOTS:
        svg, warning = asyncio.run(render_svg([str(capture)], view, turn, SIZE,
                                              items=str(items) if items else None))
        if warning:
            print(f"{stem}: {warning}", file=sys.stderr)
        (HERE / f"{stem}.svg").write_text(svg, encoding="utf-8")
        try:
            svg_to_png(svg, HERE / f"{stem}.png")
        except ImportError:
            print("cairosvg missing: wrote SVG only (pip install 'traceview[png]')")
        print(f"wrote screenshots/{stem}.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
