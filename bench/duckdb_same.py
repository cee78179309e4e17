"""Whether two DuckDB exports hold the same tables, column types and rows, in the order
DuckDB stored them (`SELECT *`, no ORDER BY): exit 0 when they do.

    python bench/duckdb_same.py before.duckdb after.duckdb
"""

from __future__ import annotations

import sys
from typing import Any

import duckdb


def dump(path: str) -> dict[str, tuple[list[Any], list[Any]]]:
    con = duckdb.connect(path, read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables ORDER BY table_name").fetchall()]
        return {t: (con.execute(f"DESCRIBE {t}").fetchall(),
                    con.execute(f"SELECT * FROM {t}").fetchall()) for t in names}
    finally:
        con.close()


def main() -> int:
    a, b = dump(sys.argv[1]), dump(sys.argv[2])
    same = list(a) == list(b)
    if not same:
        print(f"tables: {list(a)} != {list(b)}")
    for table in (t for t in a if t in b):
        (types_a, rows_a), (types_b, rows_b) = a[table], b[table]
        if types_a != types_b:
            same = False
            print(f"{table}: column types differ")
        if rows_a != rows_b:
            same = False
            pairs = enumerate(zip(rows_a, rows_b, strict=False))
            first = next((i for i, (x, y) in pairs if x != y), min(len(rows_a), len(rows_b)))
            print(f"{table}: rows differ ({len(rows_a):,} vs {len(rows_b):,}; first at {first})")
        elif types_a == types_b:
            print(f"{table}: {len(rows_a):,} rows, {len(types_a)} columns: same")
    print("same" if same else "different")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
