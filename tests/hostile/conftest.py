"""The hostile corpus runs the real CLI in a subprocess; keep Textual quiet and fast."""

from __future__ import annotations

import os

os.environ["TEXTUAL_ANIMATIONS"] = "none"
