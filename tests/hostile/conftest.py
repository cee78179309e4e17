"""The hostile corpus runs the real CLI in a subprocess; keep Textual quiet and fast.

Each test also leaves the redactor's registered keys as it found them (see
tests/core/conftest.py): these tests mask text, and a key left registered by one would
turn the redactor's fast paths off for the next.
"""

from __future__ import annotations

import os

from tests.core.conftest import _restore_registered_keys  # noqa: F401  (autouse fixture)

os.environ["TEXTUAL_ANIMATIONS"] = "none"
