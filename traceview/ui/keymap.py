"""Users remap keys by binding id, in a small TOML file.

Every binding of the inspector has an id (`app.quit`, `main.next_marked`, …; `?` lists
them). A file of id → key overrides the defaults:

    # ~/.config/traceview/keymap.toml   (or the file named by $TRACEVIEW_KEYMAP)
    [keys]
    "app.quit" = "ctrl+q"
    "turns.next_marked" = "n,m"

An unknown id, a value that is not a key a terminal can send (``"ctrl+"``, ``","``, an
unknown key name), or anything outside the ``[keys]`` table is refused with the file's
name, so a typo never silently does nothing — nor leaves quit unpressable.
"""

from __future__ import annotations

import os
import stat
import tomllib
from functools import lru_cache
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


MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")


@lru_cache(1)
def _named_keys() -> frozenset[str]:
    """The key names Textual gives a key press (``escape``, ``f2``, ``pageup``, …): its
    ``Keys`` table, without modifiers and placeholders such as ``<any>``."""
    from textual.keys import Keys

    return frozenset(k.value.rpartition("+")[2] for k in Keys
                     if not k.value.startswith("<"))


def _key_name_fault(name: str, modified: bool) -> str | None:
    """Why ``name`` (the part after any modifiers) names no key Textual can report, or None."""
    from textual.keys import REPLACED_KEYS, _character_to_key, key_to_character

    if len(name) == 1:
        if not name.isprintable() or name.isspace():
            return "is not a printable character"
        if modified and not name.isalnum():
            # Textual reports ctrl+, as ctrl+comma: "ctrl+," would never match a press.
            return f"must be written by name after a modifier ({_character_to_key(name)})"
        return None
    if name in _named_keys():
        return None
    # A character's name as Textual spells it (comma, slash, question_mark, …): one that
    # turns into a printable character and back into the same name.
    char = key_to_character(REPLACED_KEYS.get(name, name))
    if char is not None and char.isprintable() and _character_to_key(char) == name:
        return None
    return "is not a key name Textual knows (e.g. q, comma, escape, f2, pageup, space)"


def key_fault(value: object) -> str | None:
    """Why ``value`` is not a key string a terminal can send, or None.

    Each comma-separated alternative must be modifiers (ctrl, shift, alt, meta, super,
    hyper) joined by ``+`` to one key: a printable character or a key name Textual knows.
    ``"ctrl+"`` or ``","`` would be accepted by Textual and bind nothing anyone can press.
    """
    if not isinstance(value, str):
        return f"must be a key string, not {type(value).__name__}"
    if not value.strip():
        return "is empty; give a key"
    if visible(value) != value:
        # It reaches the footer, the help screen and the terminal: a control or format
        # character (OSC 0 sets the window title) is no key.
        return f"{visible(repr(value))} holds a control or format character, which no key is"
    shown = visible(repr(value))
    hint = ("; a comma separates alternatives, so the comma key is named comma (ctrl+comma)"
            if "," in value else
            "; + joins a modifier, so the + key is named plus (ctrl+plus)"
            if "++" in value else "")
    for alternative in value.split(","):
        key = alternative.strip()
        if not key:
            return f"{shown} has an empty key between or beside its commas{hint}"
        part = shown if key == value.strip() else f"{shown}: {visible(repr(key))}"
        *modifiers, name = key.split("+")
        bad = [m for m in modifiers if m not in MODIFIERS]
        if bad:
            return (f"{shown}: {bad[0]!r} is not a modifier "
                    f"(one of {', '.join(MODIFIERS)})" if bad[0] else
                    f"{part} has an empty part between its + signs{hint}")
        if not name:
            return f"{part} has no key after {key[:-1].rpartition('+')[2]}+{hint}"
        fault = _key_name_fault(name, bool(modifiers))
        if fault is not None:
            return f"{shown}: {name!r} {fault}"
    return None


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
    faults = [f"{k}: {fault}" for k, v in sorted(keys.items())
              if (fault := key_fault(v)) is not None]
    if faults:
        raise KeymapError(f"{file}: {'; '.join(faults)} "
                          '(a key is e.g. "ctrl+q", "f2" or "n,m" for either n or m)')
    return {k: v.strip() for k, v in keys.items()}
