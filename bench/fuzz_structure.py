"""Long run of the structure fuzz (tests/hostile/structure_fuzz.py) outside CI's budget.

    .venv/bin/python bench/fuzz_structure.py [EXAMPLES] [SEED]

Prints the cases run, the failures found (first few with their traceback) and the rate.
CI runs the same property with a fixed small budget (tests/hostile/test_fuzz_structure.py).
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.hostile.structure_fuzz import captures, check  # noqa: E402


def main() -> int:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.randrange(1 << 30)
    failures: list[str] = []
    cases = 0

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(captures())
    def run(records: list) -> None:
        nonlocal cases
        cases += 1
        try:
            check(records)
        except Exception:
            failures.append(traceback.format_exc(limit=-4))

    start = time.perf_counter()
    from hypothesis import seed as hseed

    hseed(seed)(run)()
    took = time.perf_counter() - start
    distinct = sorted(set(f.strip().splitlines()[-1] for f in failures))
    print(f"seed {seed}: {cases:,} cases in {took:.1f} s ({cases / took:.0f}/s), "
          f"{len(failures)} failures, {len(distinct)} distinct")
    for d in distinct[:10]:
        print("  ", d)
    if failures:
        print(failures[0])
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
