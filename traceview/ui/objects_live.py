"""The objects screen's live check (`v`): the same check as `traceview objects --verify
--live` (provider/objects_check.py), one object at a time in a thread worker that posts
each answer; the screen keeps them here and shows each row's state.

Nothing here touches a widget. The check is written to the command's dated sidecar only
when the user asks (`w`) once it has finished: a cancelled or stopped check is never
written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.text import Text

from traceview.provider.client import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, ProviderConfig
from traceview.ui.safe_text import safe

LIVE_STATES = {"present": "present", "gone": "gone (404)"}


@dataclass
class LiveCheck:
    """One run of the check over one checklist (``doc``): answers by (kind, id) as they
    arrive; ``verify`` once every object answered."""

    doc: dict[str, Any]
    config: ProviderConfig
    started: datetime = field(default_factory=lambda: datetime.now(UTC))
    answers: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    running: bool = True
    verify: dict[str, Any] | None = None
    written: Path | None = None

    @property
    def total(self) -> int:
        return len(self.doc["objects"])

    def label(self, row: dict[str, Any]) -> str:
        """A row's state at the provider: present, gone (404), error NNN, asking…, not
        checked."""
        answer = self.answers.get((row["kind"], row["id"]))
        if answer is None:
            return "asking…" if self.running else "not checked"
        if answer["live"] == "error":
            return f"error {answer['http_status'] or ''}".rstrip()
        return LIVE_STATES[answer["live"]]


def live_title(live: LiveCheck | None) -> Text:
    """What the checklist's title starts with once a check began (first: a title is one
    line, and at 80 columns its end is cut): progress, the verdict, or why it stopped. The
    host asked is in the sidecar and in the toast of a failure."""
    if live is None:
        return Text()
    if live.running:
        return Text(f"asking {live.config.host}: {len(live.answers)}/{live.total} answered "
                    "(esc cancels) · ", style="italic")
    if live.verify is None:
        return Text(f"live check stopped: {len(live.answers)}/{live.total} answered, "
                    "nothing written · ", style="italic")
    c = live.verify["counts"]
    out = Text(f"live: {c['gone']} gone, {c['present']} present, {c['error']} "
               f"not answered — {live.verify['verdict']}", style="bold")
    if live.written is not None:
        out.append_text(safe(f" · written to {live.written.name}"))
    else:
        out.append(" · w writes the sidecar", style="italic")
    out.append(" · ")
    return out


def live_config(timeout: float | None, max_retries: int | None) -> ProviderConfig:
    """Configured like the CLI: ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``, the app's fetch
    settings (``--timeout`` / ``--max-retries``), else the CLI's defaults."""
    return ProviderConfig(timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
                          max_retries=max_retries if max_retries is not None
                          else DEFAULT_MAX_RETRIES)


def sidecar_capture(paths: list[str]) -> tuple[Path | None, str | None]:
    """(the capture the sidecar goes beside, None) or (None, why there is none): as the
    command, one capture file — not stdin, a directory or several."""
    if len(paths) != 1 or paths[0] == "-" or not Path(paths[0]).is_file():
        return None, ("the sidecar is written beside one capture file, and this inspector "
                      "did not read one file (stdin, a directory or several): nothing written")
    return Path(paths[0]), None
