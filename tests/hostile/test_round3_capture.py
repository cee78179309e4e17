"""Round 3's capture findings: a NUL byte in one line rejected the whole capture; a short
damaged first line made the sniffer read the whole file; a minified HAR longer than the
sniff was not recognised; many HAR files took quadratic time to spool."""

from __future__ import annotations

import json
import os
import pathlib
from pathlib import Path

import pytest

import traceview.capture.formats as formats
from tests.hostile.corpus import traceview

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "sample_traces" / "claims.jsonl"


def _report(path: Path) -> dict:
    out = traceview("report", str(path), "--format", "json")
    assert b"Traceback" not in out.stderr
    return json.loads(out.stdout)


def test_a_nul_byte_in_one_line_costs_that_line_only(tmp_path: Path) -> None:
    lines = CLAIMS.read_bytes().split(b"\n")
    cut = lines[2].find(b'"', len(lines[2]) // 2) + 3
    lines[2] = lines[2][:cut] + b"\x00" + lines[2][cut:]
    cap = tmp_path / "nul.jsonl"
    cap.write_bytes(b"\n".join(lines))
    report = _report(cap)
    assert len(report["turns"]) == 4  # every other line read
    assert [(p["line"], p["kind"]) for p in report["problems"]] == [(3, "binary_data")]
    assert f"column {cut + 1}" in report["problems"][0]["message"]


def test_a_file_opening_with_nuls_is_still_refused_as_binary(tmp_path: Path) -> None:
    cap = tmp_path / "zeros.jsonl"
    cap.write_bytes(b"\x00" * 4096 + CLAIMS.read_bytes())
    out = traceview("report", str(cap), "--format", "json")
    assert out.returncode == 2 and out.stdout == b""  # nothing given was a capture
    assert out.stderr.decode() == (f"traceview: {cap}: not a capture: binary data (NUL bytes) "
                                   "in its first bytes; expected JSON lines\n")


def test_a_short_damaged_first_line_is_not_read_as_a_whole_document(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cap = tmp_path / "damaged-first.jsonl"
    cap.write_bytes(b'{"dir": "req", "bo\n' + CLAIMS.read_bytes())

    def whole(self: Path) -> bytes:
        raise AssertionError(f"{self} read whole")

    monkeypatch.setattr(pathlib.Path, "read_bytes", whole)
    assert formats.sniff(str(cap)) == ("capture", None)


def _har(n: int) -> dict:
    entry = {"request": {"method": "POST", "url": "https://api.openai.com/v1/responses",
                         "postData": {"mimeType": "application/json",
                                      "text": json.dumps({"model": "m", "input": "hi " * 50})}},
             "response": {"status": 200, "content": {
                 "mimeType": "application/json",
                 "text": json.dumps({"object": "response", "id": "resp_1",
                                     "status": "completed", "output": []})}},
             "startedDateTime": "2026-01-01T00:00:00Z", "time": 5}
    return {"log": {"version": "1.2", "entries": [entry] * n}}


def test_a_minified_har_longer_than_the_sniff_is_recognised(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(formats, "FIRST_LINE_MAX", 1 << 14)  # stands for 64 MB
    path = tmp_path / "big.har"
    path.write_text(json.dumps(_har(200), separators=(",", ":")))
    assert path.stat().st_size > formats.HEAD + (1 << 14)
    assert formats.sniff(str(path)) == ("har", None)
    spool = tmp_path / "spool"
    spool.mkdir()
    adopted = formats.adopt("big.har", str(path), lambda: spool)
    assert adopted.fmt == "har" and adopted.summary and not adopted.findings


def test_spooling_many_imports_lists_the_spool_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    listed = []
    iterdir = pathlib.Path.iterdir

    def counted(self: Path):  # type: ignore[no-untyped-def]
        listed.append(self)
        return iterdir(self)

    monkeypatch.setattr(pathlib.Path, "iterdir", counted)
    names = []
    for i in range(30):
        har = tmp_path / f"{i}.har"
        har.write_text(json.dumps(_har(1)))
        names.append(Path(formats.adopt(har.name, str(har), lambda: spool).path).name)
    assert len(listed) == 1
    assert len(set(names)) == 30 and names[0].startswith("0-") and names[29].startswith("29-")


def test_a_huge_snapshot_beside_the_capture_is_refused_unread(tmp_path: Path) -> None:
    """`d` reads `<stem>.snapshot.json`: a sparse 6 GB file there was read whole."""
    from traceview.provider.snapshot import SNAPSHOT_MAX_BYTES, SnapshotError, load_items

    snap = tmp_path / "c.snapshot.json"
    with open(snap, "wb") as f:
        f.truncate(6 << 30)  # sparse: no disk used
    with pytest.raises(SnapshotError, match="larger than"):
        load_items(snap)
    fifo = tmp_path / "f.snapshot.json"
    os.mkfifo(fifo)
    with pytest.raises(SnapshotError, match="not a regular file"):
        load_items(fifo)
    assert SNAPSHOT_MAX_BYTES <= 256 << 20


def _follow(path: Path):  # type: ignore[no-untyped-def]
    from traceview.analysis.follow import FollowSession

    session = FollowSession([str(path)])
    for _ in session.run():
        pass
    return session


def test_a_followed_line_without_newline_is_counted_not_held(tmp_path: Path) -> None:
    lines = CLAIMS.read_bytes().splitlines(keepends=True)
    cap = tmp_path / "grow.jsonl"
    cap.write_bytes(b"".join(lines[:4]))
    session = _follow(cap)
    turns = len(session.analysis.turns)
    with open(cap, "ab") as f:
        for at in range(0, 150, 50):  # the writer is slow: one line grows across polls
            f.write(lines[4][at:at + 50])
            f.flush()
            session.poll()
            assert session._tail == at + 50 and not session.replaced
        f.write(lines[4][150:] + b"".join(lines[5:]))
    session.poll()
    assert session._tail == 0 and session.offset == len(CLAIMS.read_bytes())
    assert len(session.analysis.turns) > turns


def test_a_follower_notices_a_truncate_and_rewrite(tmp_path: Path) -> None:
    lines = CLAIMS.read_bytes().splitlines(keepends=True)
    cap = tmp_path / "rewrite.jsonl"
    cap.write_bytes(b"".join(lines[:4]))
    session = _follow(cap)
    other = CLAIMS.read_bytes().replace(b"rec_0000", b"rec_9999")
    with open(cap, "r+b") as f:  # same inode, written again past the old end
        f.truncate(0)
        f.write(other)
    assert session.poll() is None and session.replaced
