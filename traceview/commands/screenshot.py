"""``traceview screenshot CAPTURE -o FILE``: a view of the inspector, headless, as SVG or PNG.

Exit 2 when nothing was written (a bad flag, a missing file, no capture among the files, a
view that cannot be shown); 1 when the picture was written but reading had problems (a
file beside the capture that is not one, damaged lines), as `report` exits.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from pathlib import Path
from typing import Any

from traceview.commands import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE
from traceview.commands.numbers import POSITIVE
from traceview.commands.options import UsageError, add_analysis_options, options_from
from traceview.commands.outputs import PathRefused, refuse_output, regular_input, replacing
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible
from traceview.ui.screenshot import (
    PNG_HINT,
    VIEWS,
    NotACapture,
    ScreenshotRefused,
    render_svg,
    svg_to_png,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("capture", nargs="+", help="capture file(s) or directory")
    parser.add_argument("-o", "--output", required=True, help="file to write: .svg or .png")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing file (never one of the captures read)")
    parser.add_argument("--view", choices=VIEWS, default="turns", help="which screen to show")
    parser.add_argument("--turn", type=POSITIVE, default=None, help="select turn N (1-based index)")
    parser.add_argument("--size", default="160x48", help="terminal size WIDTHxHEIGHT")
    parser.add_argument("--items", metavar="FILE", default=None,
                        help="with --view diff: a snapshot to diff against offline (without it "
                             "the provider copy is fetched with $OPENAI_API_KEY/$OPENAI_BASE_URL)")
    # The inspector's and report's thresholds and prices (flags or the config file), so
    # the picture shows the numbers they show.
    add_analysis_options(parser)


def parse_size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match:
        raise ValueError(f"--size must look like 160x48, not {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (20 <= width <= 1000 and 5 <= height <= 500):
        raise ValueError(f"--size {text} is out of range (20..1000 x 5..500)")
    return width, height


def _say(message: str) -> int:
    print(f"traceview screenshot: {message}", file=sys.stderr)
    return EXIT_USAGE


def _refusal(ns: argparse.Namespace, png: bool) -> str | None:
    """Why the arguments cannot make a picture, checked before anything is loaded."""
    missing = [p for p in ns.capture if p != "-" and not os.path.exists(p)]
    if missing:
        return f"no such file or directory: {missing[0]}"
    if png:
        try:
            import cairosvg  # noqa: F401
        except ImportError:
            return PNG_HINT
    items = getattr(ns, "items", None)
    if items is not None and not os.path.exists(items):
        return f"no such file or directory: {items}"
    try:
        if items is not None:
            regular_input(items, "--items")
        refuse_output(ns.output, [*ns.capture, *([items] if items else [])], force=ns.force)
    except PathRefused as exc:
        return f"{exc}; nothing written"
    from traceview.ui.keymap import KeymapError, load_keymap

    try:  # the inspector's keymap, so the footer and help show the keys it would
        ns.keymap = load_keymap()
    except KeymapError as exc:
        return f"{exc}; nothing written"
    return None


def _render(ns: argparse.Namespace, size: tuple[int, int]) -> tuple[str, str | None, int]:
    """The picture, a warning if any, and how many problems reading the capture had (the
    session's, which `report` counts: the picture is of what was read, exit 1 as there)."""
    if ns.view == "compare":  # arms: an `ab` results folder, or two captures (A then B)
        from traceview.ui.compare_app import render_compare_svg

        return asyncio.run(render_compare_svg(list(ns.capture), size))
    from traceview.ui.app_load import default_session

    sessions: list[Any] = []

    def session(paths: list[str], options: Any) -> Any:
        sessions.append(default_session(paths, options))
        return sessions[-1]

    svg, warning = asyncio.run(render_svg(list(ns.capture), ns.view, ns.turn, size,
                                          options=getattr(ns, "options", None),
                                          items=getattr(ns, "items", None),
                                          keymap=getattr(ns, "keymap", None),
                                          session_factory=session))
    return svg, warning, len(sessions[-1].analysis.problems) if sessions else 0


def run(ns: argparse.Namespace) -> int:
    output = Path(ns.output)
    try:
        size = parse_size(ns.size)
    except ValueError as exc:
        return _say(str(exc))
    suffix = output.suffix.lower()
    if suffix not in (".svg", ".png"):
        return _say(f"-o {ns.output}: the picture is written as .svg or .png (cairosvg), "
                    f"not {suffix or 'a file without a suffix'}; nothing written")
    png = suffix == ".png"
    refusal = _refusal(ns, png)
    if refusal:
        return _say(refusal)
    try:
        ns.options = options_from(ns)
    except UsageError as exc:
        return _say(f"{exc}; nothing written")
    from traceview.capture.sources import SourceError

    try:
        svg, warning, problems = _render(ns, size)
    except NotACapture as exc:  # as `report` says it, a line per file
        for line in exc.lines:
            _say(visible(redact_text(line)))
        return EXIT_USAGE
    except (ScreenshotRefused, SourceError) as exc:
        return _say(f"{exc}; nothing written")
    if warning:
        print(f"traceview screenshot: {warning}", file=sys.stderr)
    try:
        with replacing(output) as tmp:
            if png:
                svg_to_png(svg, tmp)
            else:
                tmp.write_text(svg, encoding="utf-8")
    except OSError as exc:
        return _say(f"cannot write {output}: {exc.strerror or exc}")
    print(f"wrote {output}")
    if problems:
        from traceview.report.problems import read_summary

        print(f"traceview screenshot: {read_summary(problems)}", file=sys.stderr)
        return EXIT_PROBLEMS
    return EXIT_OK
