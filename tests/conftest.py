"""Each test leaves the redactor's registered keys as it found them.

`add_secret` registers a key for the rest of the process (a command's key in use), and a
registered key is masked wherever it appears. A test that registered one, directly or
through the provider client, would change what every later test sees: the result would
then depend on the order the tests ran in.
"""

from __future__ import annotations

import compileall
from collections.abc import Iterator
from pathlib import Path

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


def pytest_configure(config: pytest.Config) -> None:
    """Compile traceview's modules once, before the workers start: where bytecode is not
    written (PYTHONDONTWRITEBYTECODE, as on CI), every `python -m traceview` a test starts
    would compile the package again (0.07 s of CPU each, 0.2-0.3 s when nothing is cached)."""
    if not hasattr(config, "workerinput"):  # the xdist controller, or a run without xdist
        compileall.compile_dir(Path(__file__).resolve().parents[1] / "traceview", quiet=1)
