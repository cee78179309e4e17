"""Each test leaves the redactor's registered keys as it found them.

`add_secret` registers a key for the rest of the process (a command's key in use), and a
registered key is masked wherever it appears. A test that registered one, directly or
through the provider client, would change what every later test sees: the result would
then depend on the order the tests ran in.
"""

from __future__ import annotations

import compileall
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from traceview.safety import known_keys


@pytest.fixture(autouse=True)
def _restore_registered_keys() -> Iterator[None]:
    with known_keys.registered():
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


# The longest tests (each several seconds on a quiet 2-core machine), by node id prefix.
# They are started first: a long test drawn last by the shuffle would leave one core idle
# while it runs alone at the end. Under xdist they head one worker's queue together (the
# other steals from its tail), so tests sharing a cached figure run in one process and
# make it once (the cassette figures: both tests of test_cassettes.py below).
LONG_FIRST = (
    "tests/report/test_golden_report.py::test_bench_slice_report_is_byte_identical",
    "tests/hostile/test_bounded.py::test_many_tiny_lines_stream",
    "tests/hostile/test_widening_views.py::",
    "tests/ui/test_habits.py::test_export_writes_the_visible_rows",
    "tests/hostile/test_report_isolation.py::test_reports_in_one_process_equal_fresh",
    "tests/safety/test_redact_json.py::test_the_json_redactor_masks_what_the_masker_finds",
    "tests/hostile/test_bounded.py::test_previous_response_id_cycles_terminate",
    "tests/hostile/test_new_commands.py::test_importers_survive_a_wrong_type",
    "tests/experiment/test_compare.py::test_the_decomposition_sums_exactly",
    "tests/analysis/account/test_cassettes.py::test_account_error_on_the_cassettes",
    "tests/analysis/account/test_cassettes.py::test_no_deposit_or_likely_compaction",
    "tests/hostile/test_fuzz_structure.py::",
    "tests/ui/test_live_views_widening.py::",
    "tests/hostile/test_headless.py::test_report_into_a_closed_pipe_is_quiet",
    "tests/test_packaging.py::",
)


def pytest_configure(config: pytest.Config) -> None:
    """Compile traceview's modules once, before the workers start: where bytecode is not
    written (PYTHONDONTWRITEBYTECODE, as on CI), every `python -m traceview` a test starts
    would compile the package again (0.07 s of CPU each, 0.2-0.3 s when nothing is cached).
    Likewise each process of the run (each xdist worker) keeps the test modules as pytest
    rewrites their asserts in __pycache__, to be read by the next run's workers instead of
    rewriting every module again (most of a worker's collection).
    Under xdist (`-n`), an idle worker takes queued tests from a busy one (`worksteal`)
    unless `--dist` was given."""
    sys.dont_write_bytecode = False  # this process's imports; subprocesses keep the env's
    if not hasattr(config, "workerinput"):  # the xdist controller, or a run without xdist
        compileall.compile_dir(Path(__file__).resolve().parents[1] / "traceview", quiet=1)
        given = config.invocation_params.args
        if (getattr(config.option, "dist", "no") == "load"
                and not any(str(a).startswith(("--dist", "-d")) for a in given)):
            config.option.dist = "worksteal"


@pytest.hookimpl(trylast=True)  # after pytest-randomly's shuffle, which it keeps otherwise
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests in LONG_FIRST run first, in the shuffled order among themselves."""
    items.sort(key=lambda item: not item.nodeid.startswith(LONG_FIRST))
