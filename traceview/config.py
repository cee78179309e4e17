"""traceview's settings file: the inspector's remembered choices and the analysis
thresholds, in one small TOML file. Read by the commands and the inspector alike, so it
sits below both and imports nothing of traceview's (a headless `report` loads no UI).

    # ~/.config/traceview/config.toml   (or $XDG_CONFIG_HOME/traceview/config.toml,
    # or the file $TRACEVIEW_CONFIG names)
    theme = "nord"
    turns_hidden = ["reasoning", "ms"]
    turns_sort = "billed in"
    deposit_min_tokens = 800     # the analysis thresholds (commands/options.py reads
    deposit_ratio = 0.3          # them; a command-line flag overrides each)
    compaction_min_drop = 100
    pricing = "prices.json"      # as --pricing; relative to this file's folder

Read at start-up, written when the user picks a theme (palette: "Change theme"), hides
or shows a turns column, or sorts the turns (S). Here a file that cannot be read or parsed
is ignored; the commands refuse it first (commands/options.py: an unknown key, a bad
threshold, a file $TRACEVIEW_CONFIG names that is not there), since a setting silently
dropped would change the numbers without saying so.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from traceview.safety.outputs import read_bounded

# The largest settings file read: a few lines; a FIFO, a device or a huge file is refused.
CONFIG_MAX_BYTES = 1 << 20

#: Each remembered key and the type its value must have (anything else is ignored).
KEYS: dict[str, type | tuple[type, ...]] = {
    "theme": str, "turns_hidden": list, "turns_sort": str,
    # Kept when the inspector rewrites the file; checked where they are used.
    "deposit_min_tokens": int, "deposit_ratio": (int, float), "compaction_min_drop": int,
    "pricing": str}


def named_config() -> str | None:
    """The config file the user named ($TRACEVIEW_CONFIG), which must exist; None when
    the default place is used, where no file means no settings."""
    return os.environ.get("TRACEVIEW_CONFIG") or None


def config_path() -> Path:
    named = named_config()
    if named:
        return Path(named)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "traceview" / "config.toml"


def load_settings(path: Path | None = None) -> dict[str, Any]:
    path = path or config_path()
    try:
        data = tomllib.loads(read_bounded(path, CONFIG_MAX_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    out: dict[str, Any] = {}
    for key, kind in KEYS.items():
        value = data.get(key)
        if isinstance(value, kind) and (not isinstance(value, list)
                                        or all(isinstance(v, str) for v in value)):
            out[key] = value
    return out


def save_setting(key: str, value: Any, path: Path | None = None) -> Path | None:
    """Remember ``key = value`` beside the others; None if the file cannot be written
    (said by the caller). Strings are written as JSON strings, which TOML reads alike."""
    path = path or config_path()
    settings = load_settings(path)
    settings[key] = value
    lines = []
    for name, item in sorted(settings.items()):
        if isinstance(item, list):
            lines.append(f"{name} = [{', '.join(json.dumps(v) for v in item)}]\n")
        else:
            lines.append(f"{name} = {json.dumps(item)}\n")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(lines), encoding="utf-8")
    except OSError:
        return None
    return path


def save_theme(name: str, path: Path | None = None) -> Path | None:
    return save_setting("theme", name, path)
