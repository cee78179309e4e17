"""Fleet-scale output: the turn table as Parquet, DuckDB, CSV or OTLP spans; SQL; a cluster job.

pyarrow/duckdb (`[fleet]`) and dask (`[cluster]`) are optional extras: the base install
stays small, and a command that needs one says which in a single line.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType


class MissingExtra(Exception):
    """An optional dependency is not installed; the message names the extra to install."""


def need(module: str, extra: str) -> ModuleType:
    """Import `module`, or raise MissingExtra naming the pip extra that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"{module} is not installed: pip install 'traceview[{extra}]' (in a "
                           f"clone: .venv/bin/pip install -e '.[{extra}]')") from None


def present(module: str, extra: str) -> None:
    """MissingExtra unless `module` could be imported, without importing it: a process
    that hands the work to others checks the extra up front but never loads it."""
    try:
        found = sys.modules.get(module, True) is not None and importlib.util.find_spec(module)
    except (ImportError, ValueError):
        found = False
    if not found:
        need(module, extra)  # raises, naming the extra (or imports after all: harmless)
