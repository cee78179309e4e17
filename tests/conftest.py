"""Each test leaves the redactor's registered keys as it found them.

`add_secret` registers a key for the rest of the process (a command's key in use), and
while any key is registered the redactor's fast paths stand aside (`holds_no_secret`,
`inert_json` and `_hinted_lines` pass nothing over). A test that registered one, directly
or through the provider client, would change what every later test measures: the result
would then depend on the order the tests ran in.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from traceview.safety import redact


@pytest.fixture(autouse=True)
def _restore_registered_keys() -> Iterator[None]:
    """Put back the registered keys after the test: the same set and list objects (other
    modules read them through the module), with the contents they held before."""
    known, known_sorted = redact._known, redact._known_sorted
    saved, saved_sorted = set(known), list(known_sorted)
    yield
    with redact._lock:
        redact._known, redact._known_sorted = known, known_sorted
        known.clear()
        known.update(saved)
        known_sorted[:] = saved_sorted


# The shared fixtures (`sim`) and paths (ROOT, SAMPLES, REAL) live in one module.
pytest_plugins = ["tests.fixtures_shared"]
