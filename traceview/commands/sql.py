"""``traceview sql QUERY SOURCE...``: a DuckDB query over the turns of captures (cached) or
of an export; exit 0, 1 when a capture read had damaged lines (named on stderr, as
`report` does; the rest is queried), 2 when the sources or the query cannot be used."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from traceview.capture.model import Problem
from traceview.capture.sources import SourceError, expand_paths
from traceview.commands import EXIT_PROBLEMS
from traceview.commands.export import failure, no_capture, say
from traceview.commands.options import UsageError, add_analysis_options, options_from
from traceview.commands.outputs import PathRefused, regular_input
from traceview.export import MissingExtra, need, present
from traceview.export.targets import engine_errors, use_system_pool
from traceview.report.problems import NAMED_ON_STDERR


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", metavar="SQL", help="one DuckDB query over the tables turns, "
                   "conversations, problems, hosted_calls (an empty query, or more than one "
                   "statement, is refused: exit 2)")
    p.add_argument("paths", nargs="+", metavar="SOURCE",
                   help="captures or directories of captures (cached), an export directory, "
                        "or a .duckdb file")
    p.add_argument("--format", choices=["table", "csv", "json", "markdown"], default="table")
    p.add_argument("--unsafe", action="store_true", help="let the query read and write "
                   "files, attach databases and load extensions (DuckDB's own defaults); "
                   "off by default: a query is handed only the three tables")
    p.add_argument("--cache", metavar="DIR", help="where captures' tables are cached "
                   "(default $XDG_CACHE_HOME/traceview)")
    add_analysis_options(p)


def run(ns: argparse.Namespace) -> int:
    from traceview.export.cache import default_cache_dir
    from traceview.export.sinks import ExportError

    use_system_pool()  # before pyarrow loads: the cache is written through Arrow
    try:
        options = options_from(ns)
        from traceview.export import sql

        present("duckdb", "fleet")  # loaded for the query, once the rows are written
        for path in ns.paths:
            if os.path.exists(path) and not os.path.isdir(path):
                regular_input(path, "source")
        if sql.source_kind(ns.paths) == "captures":  # none a capture: no cache made
            foreign = no_capture(expand_paths(ns.paths), options.from_format)
            if foreign:
                for line in foreign:
                    say("sql", line)
                return 2
        con, origin = sql.connect(ns.paths, Path(ns.cache) if ns.cache else default_cache_dir(),
                                  options, unsafe=ns.unsafe)
    except Exception as exc:  # an engine's errors are known once it is loaded
        if not isinstance(exc, (UsageError, SourceError, MissingExtra, PathRefused,
                                ExportError, OSError, *engine_errors())):
            raise
        say("sql", failure(exc))
        return 2
    try:  # closed whatever happens: an open connection holds the cache's lock
        named, total = _problems(con.con) if sql.source_kind(ns.paths) == "captures" else ([], 0)
        cols, rows = sql.query(con, ns.query)
    except (ExportError, need("duckdb", "fleet").Error) as exc:
        say("sql", str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return 2
    finally:
        con.close()
    sys.stdout.write(sql.render(cols, rows, ns.format))
    sys.stdout.flush()
    say("sql", origin)
    if total:
        from traceview.report.problems import say_problems

        say_problems("traceview sql", named, total, listed_in="SELECT * FROM problems")
        return EXIT_PROBLEMS
    return 0


def _problems(con: Any) -> tuple[list[Problem], int]:
    """The first damaged lines of the captures and how many there are: a query over a
    damaged capture still runs on everything readable, and exits as `report` does. (An
    export's or a database's problems were said when it was made: there they are data.)"""
    total = con.execute("SELECT count(*) FROM problems").fetchone()[0]
    rows = con.execute("SELECT source, line, kind, message FROM problems ORDER BY source, "
                       f"line LIMIT {NAMED_ON_STDERR}").fetchall() if total else []
    return [Problem(*row) for row in rows], int(total)
