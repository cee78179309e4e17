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
import re
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
#: The inspector's own settings, as a wrong one is said (the commands refuse it).
_INSPECTOR = {"theme": "a string", "turns_sort": "a string",
              "turns_hidden": "a list of column names"}


def wrong_setting(key: str, value: Any) -> str | None:
    """What is wrong with an inspector setting's value (None: usable, or not one of them)."""
    if key not in _INSPECTOR or _usable(key, value):
        return None
    return f"{key} must be {_INSPECTOR[key]}, not {value!r}"


def _usable(key: str, value: Any) -> bool:
    return isinstance(value, KEYS[key]) and not isinstance(value, bool) and (
        not isinstance(value, list) or all(isinstance(v, str) for v in value))


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
    return _settings(data)


def _settings(data: dict[str, Any]) -> dict[str, Any]:
    """The remembered keys of a read file whose values are usable."""
    return {key: data[key] for key in KEYS if key in data and _usable(key, data[key])}


def save_setting(key: str, value: Any, path: Path | None = None) -> Path | None:
    """Remember ``key = value`` beside the others; None if the file cannot be written, or
    is there but cannot be read as TOML (said by the caller). The user's own lines and
    comments stay: only the key's lines are replaced (or added), unless the file then reads
    differently, when it is written again from its settings. Written beside and renamed,
    so a failed write leaves the old file."""
    path = path or config_path()
    try:
        old = read_bounded(path, CONFIG_MAX_BYTES).decode("utf-8")
        settings = _settings(tomllib.loads(old))
    except FileNotFoundError:
        old, settings = "", {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # a file that does not read (half edited?) is the user's: kept
    settings[key] = value
    text = _edited(old, key, value, settings)
    if text is None:
        text = "".join(_line(name, item) for name, item in sorted(settings.items()))
    target = Path(os.path.realpath(path))  # a symlinked config: the file it points to
    if target.exists() and not os.access(target, os.W_OK):
        return None  # made read-only by its owner: not renamed over
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(text, encoding="utf-8")
        if target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o7777)
        os.replace(temporary, target)
    except OSError:
        temporary.unlink(missing_ok=True)
        return None
    return path


def _line(name: str, item: Any) -> str:
    """One setting as a TOML line; strings as JSON strings, which TOML reads alike."""
    if isinstance(item, list):
        return f"{name} = [{', '.join(json.dumps(v) for v in item)}]\n"
    return f"{name} = {json.dumps(item)}\n"


def _edited(old: str, key: str, value: Any, settings: dict[str, Any]) -> str | None:
    """`old` with `key`'s value replaced by the new one (added at the end when it has
    none), or None when that would not read back as exactly `settings`. A value over
    several lines (a list) is replaced whole; a line that only looks like the key's (inside
    another setting's multi-line string) is passed over."""
    newline = "\r\n" if "\r\n" in old else "\n"  # the file's own line ends
    lines = old.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    line = _line(key, value).removesuffix("\n") + newline
    name = re.escape(key)
    at = re.compile(rf"""\s*(?:{name}|"{name}"|'{name}')\s*=""")  # bare or quoted
    tries = [lines + [line]]
    for i in (i for i, text in enumerate(lines) if at.match(text)):
        end = next((j for j in range(i + 1, len(lines) + 1) if _reads("".join(lines[i:j]))),
                   i + 1)
        tries.insert(-1, lines[:i] + [line] + lines[end:])
    for edit in tries:
        text = "".join(edit)
        try:
            read = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            continue
        if {k: v for k, v in read.items() if k in KEYS} == settings:
            return text
    return None


def _reads(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


def save_theme(name: str, path: Path | None = None) -> Path | None:
    return save_setting("theme", name, path)
