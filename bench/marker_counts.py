"""Per-marker counts over the real captures and the bundled samples.

Not a timing: a census of what the analysis says about real traffic, so a change to a
marker rule can be judged by how many turns it moves (run before and after, compare).

    python bench/marker_counts.py                 # tests/fixtures/real + sample_traces
    python bench/marker_counts.py --per-file      # one line per capture as well
    python bench/marker_counts.py PATH ...        # other captures or directories

marker_counts.before.txt / .after.txt beside this script: the same census at acfcaf2
(before issue #10) and after it, over the real fixtures + samples and over the captures
tests/core/test_real_traffic.py builds with the SDK's types (collected with
`pytest tests/core/test_real_traffic.py --basetemp=DIR`, then this script on DIR's files).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_DIRS = (ROOT / "tests" / "fixtures" / "real", ROOT / "sample_traces")


def _files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in (Path(x) for x in paths) if paths else DEFAULT_DIRS:
        out.extend(sorted(p.glob("*.jsonl")) if p.is_dir() else [p])
    return out


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from traceview.analysis.session import analyze
    from traceview.safety.sanitise import visible

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--per-file", action="store_true")
    args = ap.parse_args(argv)
    files = _files(args.paths)
    markers: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    turns = convs = problems = 0
    for path in files:
        a = analyze(str(path))
        per: Counter[str] = Counter()
        for t in a.turns:
            per.update(t.markers)
        markers.update(per)
        turns += len(a.turns)
        convs += len(a.conversations)
        problems += len(a.problems)
        kinds.update(p.kind for p in a.problems)
        if args.per_file:
            m = " ".join(f"{k}={v}" for k, v in sorted(per.items())) or "-"
            print(visible(f"{path.name}: turns={len(a.turns)} "
                          f"conversations={len(a.conversations)} {m}"))
    print(f"captures {len(files)}  turns {turns}  conversations {convs}  problems {problems}")
    for k, v in sorted(markers.items()):
        print(f"  {k:<22}{v:>6}")
    for k, v in sorted(kinds.items()):
        print(f"  problem:{k:<14}{v:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
