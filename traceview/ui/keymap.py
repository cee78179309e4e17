"""Users remap keys by binding id, in a small TOML file.

Every binding of the inspector has an id (`app.quit`, `main.next_marked`, …; `?` lists
them). A file of id → key overrides the defaults:

    # ~/.config/traceview/keymap.toml   (or the file named by $TRACEVIEW_KEYMAP)
    [keys]
    "app.quit" = "ctrl+q"
    "turns.next_marked" = "n,m"

An unknown id, a value that is not a key string, or anything outside the ``[keys]`` table
is refused with the file's name, so a typo never silently does nothing.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

from traceview.safety.sanitise import visible

ENV = "TRACEVIEW_KEYMAP"


MAX_BYTES = 64 << 10  # a keymap is a few lines; /dev/zero or a FIFO is refused unread


def _read_bounded(file: Path) -> bytes:
    """The file's bytes when it is a regular file of at most MAX_BYTES; OSError else (a
    FIFO would block, a device never end)."""
    with open(os.open(file, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(f"not a regular file: {file}")
        raw = handle.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise OSError(f"larger than {MAX_BYTES >> 10} KiB, which no keymap needs")
    return raw


class KeymapError(Exception):
    """A keymap file that cannot be used; the message names the file and the fault."""


def default_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "traceview" / "keymap.toml"


def binding_ids() -> set[str]:
    from traceview.ui.screens.help import binding_groups

    return {b.id for _, bindings in binding_groups() for b in bindings if b.id}


def load_keymap(path: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """The user's keymap: from `path`, else $TRACEVIEW_KEYMAP, else the default file.

    No file at the default place is no keymap; a file named explicitly must exist.
    """
    explicit = path or os.environ.get(ENV)
    file = Path(explicit) if explicit else default_path()
    if not file.exists():
        if explicit:
            raise KeymapError(f"{file}: keymap file not found")
        return {}
    try:
        doc = tomllib.loads(_read_bounded(file).decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise KeymapError(f"{file}: cannot read keymap ({exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise KeymapError(f"{file}: not valid TOML ({exc})") from exc
    outside = sorted(f"{k}.{sub}" if isinstance(v, dict) else k
                     for k, v in doc.items() if k != "keys"
                     for sub in (v if isinstance(v, dict) and v else [None]))
    if outside:  # `"app.quit" = "ctrl+q"` above any table: read as nothing, silently
        raise KeymapError(f"{file}: {', '.join(visible(n) for n in outside)} "
                          f"{'is' if len(outside) == 1 else 'are'} outside the [keys] table, "
                          'where bindings go: a line [keys], then "binding.id" = "key" lines')
    keys = doc.get("keys", {})
    if not isinstance(keys, dict):
        raise KeymapError(f'{file}: expected a [keys] table of "binding.id" = "key"')
    known = binding_ids()
    unknown = sorted(k for k in keys if k not in known)
    if unknown:
        raise KeymapError(f"{file}: unknown binding id(s) {', '.join(unknown)}; "
                          f"known ids: {', '.join(sorted(known))}")
    bad = sorted(k for k, v in keys.items() if not isinstance(v, str) or not v.strip())
    # A key string reaches the footer, the help screen and the terminal: one holding a
    # control or format character (OSC 0 sets the window title) is no key, and refused.
    bad += sorted(k for k, v in keys.items()
                  if isinstance(v, str) and v.strip() and visible(v) != v)
    if bad:
        raise KeymapError(f"{file}: keys for {', '.join(bad)} must be non-empty strings "
                          '(e.g. "ctrl+q" or "n,m")')
    return {k: v.strip() for k, v in keys.items()}
