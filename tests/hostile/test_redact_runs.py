"""The redactor is linear on long runs of name characters: "a_a_a_…" beside "secret".

A name rule ("[a-z0-9_\\-]*" then a secret's name, then ":" or "=") that could start after
every "_" or "-" scanned to the run's end from each of them: 4 kB took 0.7 s, 16 kB 11 s,
64 kB minutes — a capture line, a provider reply or a file name could stall the recorder,
a report or the inspector. A name now starts where its run starts (a match from inside
the run is a match from its start); tests/safety/test_redact_shapes.py states what it masks
where a search begins inside a run.
"""

from __future__ import annotations

from tests.hostile.corpus import finishes
from traceview.safety.redact import redact_json, redact_text

# Run in a child, so that a pattern gone quadratic fails this test instead of hanging the
# suite; the bound is generous (each input takes milliseconds), not a timing check.
_CHILD = """
from traceview.safety.redact import redact_text, redact_json
n = 16 * 1024  # quadratic, one call took 11 s at this size
for unit in ("a_", "a-", "_", "-", "x_y-", "a\\u017f", "a\\u212a", "Z9_",
             "AKIAIOSFODNN7EXAMPLEx_"):
    run = unit * (n // len(unit))
    for word in ("secret ", "key ", "token ", "bearer ", "authorization ", "password ",
                 "sk- ", "secret=", "api_key=\\\\t", "Bearer ", "?token="):
        redact_text(word + run)
        redact_text(run + " " + word)
        redact_json((word + run).encode())
print("done")
"""


def test_long_runs_of_name_characters_are_searched_in_linear_time() -> None:
    finishes(_CHILD)


def test_a_name_at_the_end_of_a_long_run_is_still_found() -> None:
    """Starting only at a run's start, the rule still reads the whole run: the name at its
    end, and the value after it, are found as before."""
    run = "a_" * 5000
    assert redact_text(run + "secret: hunter2222") == run + "secret: [redacted]"
    assert redact_text("x " + run + "-API_KEY=Zx12Cv34Bn56Qw") == (
        "x " + run + "-API_KEY=[redacted]")
    masked = redact_json(('{"note": "' + run + 'password: hunter2222"}').encode())
    assert b"hunter2222" not in masked
