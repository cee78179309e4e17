"""The inspector's remembered settings (today: the theme), in a small TOML file.

    # ~/.config/traceview/config.toml   (or $XDG_CONFIG_HOME/traceview/config.toml)
    theme = "nord"

Read at start-up, written when the user picks a theme (palette: "Change theme").
A file that cannot be read or parsed is ignored with a warning: settings are a
convenience, never a reason not to open a capture.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "traceview" / "config.toml"


def load_settings(path: Path | None = None) -> dict[str, str]:
    path = path or config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    theme = data.get("theme")
    return {"theme": theme} if isinstance(theme, str) else {}


def save_theme(name: str, path: Path | None = None) -> Path | None:
    """Remember ``name``; None if the file cannot be written (said by the caller)."""
    path = path or config_path()
    settings = load_settings(path)
    settings["theme"] = name
    body = "".join(f'{k} = "{v}"\n' for k, v in sorted(settings.items())
                   if v.replace("-", "").replace("_", "").isalnum())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    except OSError:
        return None
    return path
