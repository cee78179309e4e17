"""Rewrite the fleet tables and query outputs in docs/fleet.md:
`python -m traceview.export.readme_tables`.

docs/fleet.md documents the schema with types and shows the five queries' output on the
samples; generating that text from the one schema definition and the one list of queries
keeps them from drifting (tests/export/test_tables.py fails when they differ).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from traceview.export.queries import QUERIES
from traceview.export.run import export_files
from traceview.export.schema import TABLES, markdown_table
from traceview.export.sinks import ParquetSink, write_manifest
from traceview.export.sql import connect, query, render

TABLES_AT, QUERIES_AT, AFTER = ("### The tables\n", "### Five fleet questions\n",
                                "### The same job on a cluster")
INTRO = ("Output on the samples (`traceview sql \"…\" sample_traces/*.jsonl`). The tests run "
         "all five on\nthe samples and on the real captures in `tests/fixtures/real/`, and "
         "check them against the report.\n")


def query_outputs(samples: str = "sample_traces") -> str:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "export"
        files = sorted(str(p) for p in Path(samples).glob("*.jsonl"))
        export_files(files, ParquetSink(out))
        write_manifest(out, ("date",), len(files))
        con, _ = connect([str(out)], Path(tmp))
        parts = [INTRO]
        for title, sql in QUERIES.values():
            cols, rows = query(con, sql)
            parts.append(f"**{title}**\n\n```sql\n{sql}\n```\n\n```\n"
                         f"{render(cols, rows, 'table').rstrip()}\n```\n")
        con.close()
    return "\n".join(parts)


def rewrite(readme: str) -> str:
    head, rest = readme.split(TABLES_AT, 1)
    _, rest = rest.split(QUERIES_AT, 1)
    _, tail = rest.split(AFTER, 1)
    tables = "\n\n".join(markdown_table(t) for t in TABLES)
    return f"{head}{TABLES_AT}\n{tables}\n\n{QUERIES_AT}\n{query_outputs()}\n{AFTER}{tail}"


def main(path: str = "docs/fleet.md") -> None:
    p = Path(path)
    p.write_text(rewrite(p.read_text()))


if __name__ == "__main__":
    main(*sys.argv[1:])
