"""The safe writer, where the commands import it from: it lives in ``safety/outputs.py``
so that the inspector writes through the same one."""

from traceview.safety.outputs import (
    FORCE_HINT,
    PathRefused,
    input_identities,
    refuse_output,
    regular_input,
    replacing,
    replacing_entries,
)

__all__ = ["FORCE_HINT", "PathRefused", "input_identities", "refuse_output", "regular_input",
           "replacing", "replacing_entries"]
