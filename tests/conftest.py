"""Each test leaves the redactor's registered keys as it found them.

`add_secret` registers a key for the rest of the process (a command's key in use), and a
registered key is masked wherever it appears. A test that registered one, directly or
through the provider client, would change what every later test sees: the result would
then depend on the order the tests ran in.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from traceview.safety import redact


@pytest.fixture(autouse=True)
def _restore_registered_keys() -> Iterator[None]:
    with redact.registered():
        yield


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch,
                    tmp_path_factory: pytest.TempPathFactory) -> None:
    """The developer's own ~/.config/traceview (thresholds, theme, keys) never reaches a
    test: an empty config home for every test and the subprocesses it starts."""
    monkeypatch.delenv("TRACEVIEW_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.getbasetemp() / "no-config"))


# The shared fixtures (`sim`) and paths (ROOT, SAMPLES, REAL) live in one module.
pytest_plugins = ["tests.fixtures_shared"]
