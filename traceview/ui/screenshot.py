"""The inspector rendered headless to SVG (or PNG) for scripts and CI (`traceview screenshot`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

VIEWS = ("turns", "detail", "conversations", "problems", "help", "diff", "compare", "ledger",
         "objects", "context", "latency")
MONO_FAMILY = "DejaVu Sans Mono"  # used when fontconfig cannot be asked
PREFERRED_MONO = ("DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono", "Ubuntu Mono",
                  "Menlo", "Consolas", "Courier New")
PNG_HINT = ("PNG output needs cairosvg: pip install 'traceview[png]' (in a clone: "
            ".venv/bin/pip install -e '.[png]'), or write .svg")


async def render_svg(
    paths: list[str],
    view: str = "turns",
    turn: int | None = None,
    size: tuple[int, int] = (160, 48),
    options: Any = None,
    session_factory: Any = None,
    items: str | None = None,
    keymap: dict[str, str] | None = None,
) -> tuple[str, str | None]:
    """The SVG of ``view`` once the whole capture is loaded, and a warning if any.

    ``items``: the snapshot the diff view compares with (offline); see ``--items``.
    ``keymap``: the user's remapped keys (ui/keymap.py), so footer and help show them.
    """
    from traceview.ui.app import make_app

    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    app = make_app(paths, options, session_factory=session_factory)
    app.items_path = items
    app.keymap = keymap or {}
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
        foreign = _not_captures(app)
        failure = None if foreign else _failure(app, view, turn)
    if foreign:
        raise NotACapture(foreign)
    if failure:  # a picture of a failure is not the picture that was asked for
        raise ScreenshotRefused(failure)
    return svg, warning


class ScreenshotRefused(Exception):
    """The view asked for cannot be shown truthfully (load failed, no such turn, no diff)."""


class NotACapture(ScreenshotRefused):
    """No file given was a capture (a text file, a JSON array): `lines` says why, a line per
    file, in the words `report` refuses them with — a picture of an empty inspector is not
    a screenshot of a capture."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines[0])
        self.lines = lines


def _not_captures(app: Any) -> list[str]:
    """`report`'s verdict (`not_captures`) on what the app loaded: the same problems, and
    anything read when there are turns or exchanges (a moderation) in it."""
    from traceview.report.problems import not_captures

    if getattr(app.state, "error", None):
        return []  # said by _failure: the load itself failed
    exchanges = getattr(getattr(app.session, "capture", None), "exchanges", None)
    return not_captures(app.state.problems, bool(app.state.turns or exchanges))


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
    import cairosvg  # optional extra: traceview[png]

    mono = local_mono()
    svg = svg.replace('"Fira Code"', f'"{mono}"').replace("Fira Code", mono)
    cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(output))
