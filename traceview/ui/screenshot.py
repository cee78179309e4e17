"""`traceview screenshot`: the inspector rendered headless to SVG (or PNG) for scripts/CI."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from pathlib import Path
from typing import Any

VIEWS = ("turns", "detail", "conversations", "problems", "help", "diff", "compare", "ledger",
         "objects")
MONO_FAMILY = "DejaVu Sans Mono"  # used when fontconfig cannot be asked
PREFERRED_MONO = ("DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono", "Ubuntu Mono",
                  "Menlo", "Consolas", "Courier New")
PNG_HINT = "PNG output needs cairosvg: pip install 'traceview[png]' (or write .svg)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of the `screenshot` subcommand (the CLI owns the parser)."""
    parser.add_argument("capture", nargs="+", help="capture file(s) or directory")
    parser.add_argument("-o", "--output", required=True, help="file to write: .svg or .png")
    parser.add_argument("--view", choices=VIEWS, default="turns", help="which screen to show")
    parser.add_argument("--turn", type=int, default=None, help="select turn N (1-based index)")
    parser.add_argument("--size", default="160x48", help="terminal size WIDTHxHEIGHT")
    parser.add_argument("--items", metavar="FILE", default=None,
                        help="with --view diff: a snapshot to diff against offline (without it "
                             "the provider copy is fetched with $OPENAI_API_KEY/$OPENAI_BASE_URL)")


def parse_size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match:
        raise ValueError(f"--size must look like 160x48, not {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (20 <= width <= 1000 and 5 <= height <= 500):
        raise ValueError(f"--size {text} is out of range (20..1000 x 5..500)")
    return width, height


async def render_svg(
    paths: list[str],
    view: str = "turns",
    turn: int | None = None,
    size: tuple[int, int] = (160, 48),
    options: Any = None,
    session_factory: Any = None,
    items: str | None = None,
) -> tuple[str, str | None]:
    """The SVG of ``view`` once the whole capture is loaded, and a warning if any.

    ``items``: the snapshot the diff view compares with (offline); see ``--items``.
    """
    from traceview.ui.app import make_app

    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    app = make_app(paths, options, session_factory=session_factory)
    app.items_path = items
    warning = None
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not await app.go_to(view, turn):
            warning = f"turn {turn} is not in the capture; showing the first turn"
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        svg = app.export_screenshot(title=f"traceview · {view}")
        failure = _failure(app, view, turn)
    if failure:  # a picture of a failure is not the picture that was asked for
        raise ScreenshotRefused(failure)
    return svg, warning


class ScreenshotRefused(Exception):
    """The view asked for cannot be shown truthfully (load failed, no such turn, no diff)."""


def _failure(app: Any, view: str, turn: int | None) -> str | None:
    error = getattr(app.state, "error", None)
    if error:
        return f"the capture could not be loaded: {error}"
    if turn is not None and turn not in app.state.by_index:
        return f"turn {turn} is not in the capture ({len(app.state.by_index)} turns)"
    if view == "diff":
        outcome = getattr(app.screen, "outcome", None)
        if outcome is None or outcome.result is None:
            reason = getattr(outcome, "error", None) or "no diff could be made"
            return f"no diff to show: {reason}"
    return None


def local_mono() -> str:
    """A monospace family installed here (fontconfig's list), so columns stay aligned
    when the SVG's web font (Fira Code) is not available to the rasteriser."""
    import shutil
    import subprocess

    if shutil.which("fc-list") is None:
        return MONO_FAMILY
    try:
        listed = subprocess.run(["fc-list", ":spacing=mono", "family"], capture_output=True,
                                text=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return MONO_FAMILY
    families = {f.strip() for line in listed.splitlines() for f in line.split(",") if f.strip()}
    for family in PREFERRED_MONO:
        if family in families:
            return family
    return sorted(families)[0] if families else MONO_FAMILY


def svg_to_png(svg: str, output: Path) -> None:
    """Convert with cairosvg, swapping the web font for an installed monospace family."""
    import cairosvg  # type: ignore[import-untyped]  # optional extra: traceview[png]

    mono = local_mono()
    svg = svg.replace('"Fira Code"', f'"{mono}"').replace("Fira Code", mono)
    cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(output))


def run(ns: argparse.Namespace) -> int:
    """Entry point for `traceview screenshot`; returns the exit code."""
    output = Path(ns.output)
    try:
        size = parse_size(ns.size)
    except ValueError as exc:
        print(f"traceview screenshot: {exc}", file=sys.stderr)
        return 2
    missing = [p for p in ns.capture if p != "-" and not os.path.exists(p)]
    if missing:
        print(f"traceview screenshot: no such file or directory: {missing[0]}", file=sys.stderr)
        return 2
    png = output.suffix.lower() == ".png"
    if png:
        try:
            import cairosvg  # noqa: F401
        except ImportError:
            print(f"traceview screenshot: {PNG_HINT}", file=sys.stderr)
            return 2
    items = getattr(ns, "items", None)
    if items is not None and not os.path.exists(items):
        print(f"traceview screenshot: no such file or directory: {items}", file=sys.stderr)
        return 2
    from traceview.capture.sources import SourceError

    try:
        if ns.view == "compare":  # arms: an `ab` results folder, or two captures (A then B)
            from traceview.ui.compare_app import render_compare_svg

            svg, warning = asyncio.run(render_compare_svg(list(ns.capture), size))
        else:
            svg, warning = asyncio.run(
                render_svg(list(ns.capture), ns.view, ns.turn, size, items=items)
            )
    except (ScreenshotRefused, SourceError) as exc:
        print(f"traceview screenshot: {exc}; nothing written", file=sys.stderr)
        return 2
    if warning:
        print(f"traceview screenshot: {warning}", file=sys.stderr)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        if png:
            svg_to_png(svg, output)
        else:
            output.write_text(svg, encoding="utf-8")
    except OSError as exc:
        print(f"traceview screenshot: cannot write {output}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    print(f"wrote {output}")
    return 0
