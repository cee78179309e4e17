"""`traceview report` on a large HAR, pretty-printed and minified, against reading it.

Turns a hosted-shape capture (tests/shapes/hosted.py, or `--source`) into HAR entries as
browser devtools write them until the file reaches `--mb`, pretty-printed and on one line,
and runs `report --format json` on each. Prints wall and CPU seconds and peak RSS as a share
of the file: the importer streams entries, so a HAR's size must not set its memory.

    python bench/har.py --other /work/main                   # 300 MB HARs
    python bench/har.py --source /work/bench-data/hosted200.jsonl --mb 300 --repeat 1
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from side import best_of, capture_file, checkouts, cost_rows, generated, pairs, parser, table

HEADERS = [{"name": k, "value": v} for k, v in (
    ("content-type", "application/json"), ("user-agent", "OpenAI/Python 1.99.0"),
    ("accept", "application/json"), ("x-stainless-lang", "python"),
    ("x-stainless-runtime", "CPython"), ("authorization", "Bearer ***"))]


def _entry(n: int, req: dict, res: dict) -> dict:
    sent, got = json.dumps(req["body"]), json.dumps(res["body"])
    ms = res.get("elapsed_ms") or 1
    return {"startedDateTime": datetime.fromtimestamp(1764480000 + n, UTC).isoformat(),
            "time": ms, "cache": {}, "timings": {"send": 0, "wait": ms, "receive": 0},
            "request": {"method": "POST", "url": "https://api.openai.com/v1/responses",
                        "httpVersion": "HTTP/1.1", "headers": HEADERS, "cookies": [],
                        "queryString": [], "headersSize": -1, "bodySize": len(sent),
                        "postData": {"mimeType": "application/json", "text": sent}},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                         "headers": HEADERS[:1], "cookies": [], "redirectURL": "",
                         "headersSize": -1, "bodySize": len(got), "content": {
                             "size": len(got), "mimeType": "application/json", "text": got}}}


def write_har(source: Path, path: Path, size: int, indent: int | None) -> int:
    """Write a HAR of about `size` bytes to `path`, one entry at a time; return its entries."""
    sep, n = ((",", ": ") if indent else (",", ":")), 0
    with open(path, "w") as out:
        out.write('{\n  "log": {\n  "version": "1.2",\n  "entries": [\n' if indent
                  else '{"log":{"version":"1.2","entries":[')
        for req, res in pairs(source):
            out.write(("," if n else "") + json.dumps(_entry(n, req, res), indent=indent,
                                                      separators=sep))
            n += 1
            if out.tell() >= size:
                break
        out.write("\n]}}\n" if indent else "]}}")
    return n


def main() -> int:
    ap = parser(__doc__, repeat=1)
    ap.add_argument("--source", type=capture_file, help="hosted-shape capture to convert")
    ap.add_argument("--mb", type=int, default=300, help="size of each HAR")
    ns = ap.parse_args()
    source = ns.source or generated("hosted", ns.mb)
    hars = {}
    for form, indent in (("pretty", 2), ("minified", None)):
        path = Path(tempfile.gettempdir()) / f"traceview-{ns.mb}mb-{form}.har"
        if not path.exists():
            print(f"writing {path}: {write_har(source, path, ns.mb * 1_000_000, indent):,} "
                  "entries", flush=True)
        hars[form] = path
    trees = checkouts(ns.other)
    got = best_of(trees, [(form, ["report", "--format", "json", str(path)], {})
                          for form, path in hars.items()], ns.repeat)
    labels = [t.label for t in trees]
    rows = []
    for form, path in hars.items():
        size = path.stat().st_size
        rows += cost_rows(f"{form} ({size / 1e6:,.0f} MB)", [got[(x, form)] for x in labels], size)
    table(f"report --format json of a HAR, best of {ns.repeat}", rows, labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
