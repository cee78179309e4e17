"""The hostile corpus runs the real CLI in a subprocess; keep Textual quiet and fast.

Each test also leaves the redactor's registered keys as it found them (see
tests/conftest.py): these tests mask text, and a key left registered by one would
turn the redactor's fast paths off for the next.
"""

from __future__ import annotations

import os

os.environ["TEXTUAL_ANIMATIONS"] = "none"
