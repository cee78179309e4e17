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

#: (output stem, capture, view, turn)
SHOTS = [
    ("claims-turns", "claims", "turns", 3),
    ("claims-detail-turn3", "claims", "detail", 3),
    ("service_day-conversations", "service_day", "conversations", None),
]


def main() -> int:
    for stem, capture, view, turn in SHOTS:
        path = str(SAMPLES / f"{capture}.jsonl")
        svg, warning = asyncio.run(render_svg([path], view, turn, SIZE))
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
