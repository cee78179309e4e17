"""Export the README screenshots from the sample captures (SVG, plus PNG with cairosvg).

    python screenshots/export.py            # writes into screenshots/
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from traceview.ui.screenshot import render_svg, svg_to_png

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAMPLES = ROOT / "sample_traces"
SIZE = (140, 40)

FIXTURES = ROOT / "tests" / "ui" / "fixtures"

#: (output stem, capture path, view, turn, provider snapshot for the diff view, size)
SHOTS = [
    ("claims-turns", SAMPLES / "claims.jsonl", "turns", 3, None, SIZE),
    ("claims-detail-turn3", SAMPLES / "claims.jsonl", "detail", 3, None, SIZE),
    ("service_day-conversations", SAMPLES / "service_day.jsonl", "conversations", None, None,
     SIZE),
    ("claims-ledger", SAMPLES / "claims.jsonl", "ledger", 3, None, SIZE),
    ("claims-objects", SAMPLES / "claims.jsonl", "objects", None, None, SIZE),
    ("long_conversation-fidelity", SAMPLES / "long_conversation.jsonl", "conversations", 1,
     None, SIZE),
    # A claims conversation recorded from the simulator, and the provider's copy of it.
    ("claims-diff", FIXTURES / "diff_capture.jsonl", "diff", None,
     FIXTURES / "diff_snapshot.json", SIZE),
    # The same capture at the size terminals open at, and on a wide screen.
    ("claims-80x24", SAMPLES / "claims.jsonl", "turns", 3, None, (80, 24)),
    ("claims-200x55", SAMPLES / "claims.jsonl", "turns", 3, None, (200, 55)),
    ("chart-after-long_conversation-200x55", SAMPLES / "long_conversation.jsonl", "turns", 8,
     None, (200, 55)),
]


async def follow_svg(size: tuple[int, int] = (120, 30)) -> str:
    """The inspector following a capture: two turns on disk, then two more appended."""
    from traceview.ui.app import make_app
    from traceview.ui.messages import TurnsLoaded

    lines = (SAMPLES / "claims.jsonl").read_bytes().splitlines(keepends=True)
    with tempfile.TemporaryDirectory() as tmp:
        live = Path(tmp) / "claims-live.jsonl"
        live.write_bytes(b"".join(lines[:6]))
        grew = asyncio.Event()

        def hook(message: object) -> None:
            if isinstance(message, TurnsLoaded):
                grew.set()

        app = make_app([str(live)], follow=True)
        async with app.run_test(size=size, message_hook=hook) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("end")
            grew.clear()
            with live.open("ab") as out:
                out.write(b"".join(lines[6:]))
            await asyncio.wait_for(grew.wait(), 10)
            while len(app.main.rows) < 4:
                await pilot.pause()
            await pilot.pause()
            return app.export_screenshot(title="traceview --follow")


def write(stem: str, svg: str) -> None:
    (HERE / f"{stem}.svg").write_text(svg, encoding="utf-8")
    try:
        svg_to_png(svg, HERE / f"{stem}.png")
    except ImportError:
        print("cairosvg missing: wrote SVG only (pip install 'traceview[png]')")
    print(f"wrote screenshots/{stem}.svg")


def main() -> int:
    os.chdir(ROOT)  # captures are named relative to the checkout on screen
    for stem, capture, view, turn, items, size in SHOTS:
        svg, warning = asyncio.run(render_svg([os.path.relpath(capture, ROOT)], view, turn, size,
                                              items=str(items) if items else None))
        if warning:
            print(f"{stem}: {warning}", file=sys.stderr)
        write(stem, svg)
    write("follow", asyncio.run(follow_svg()))
    before = HERE / "chart-before-long_conversation-200x55.svg"
    if before.exists():  # made once from the commit before the chart changed
        svg_to_png(before.read_text(encoding="utf-8"), before.with_suffix(".png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
