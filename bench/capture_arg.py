"""The capture argument of the bench scripts: a readable file, or argparse's own message.

A bench run is often the first thing a newcomer tries with a path typed by hand; a wrong
path should read "no such capture: …" and exit 2, not end in a traceback from deep inside
the script.
"""

from __future__ import annotations

import argparse
import os


def capture_file(text: str) -> str:
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"no such capture: {text!r} (give a .jsonl file)")
    if not os.access(text, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {text!r} (permission denied)")
    return text
