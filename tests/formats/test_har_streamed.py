"""A HAR is read one entry at a time: any size reads fully, and a damaged one keeps what it can.

Issue 31: a HAR was loaded whole (a 300 MB HAR needed 1 GB); a damaged one gave nothing.
"""

from __future__ import annotations

import json
import pathlib
from pathlib import Path
from typing import Any

import pytest

from traceview.analysis.session import analyze
from traceview.capture import formats
from traceview.capture.formats.streamed import MAX_DEPTH, ArrayValues


def _entry(i: int) -> dict[str, Any]:
    return {"request": {"method": "POST", "url": "https://api.openai.com/v1/responses",
                        "postData": {"mimeType": "application/json", "text": json.dumps(
                            {"model": "gpt-4.1", "input": f"question {i} " + "x" * 2000})}},
            "response": {"status": 200, "content": {
                "mimeType": "application/json",
                "text": json.dumps({"object": "response", "id": f"resp_{i}",
                                    "model": "gpt-4.1", "status": "completed", "output": [],
                                    "usage": {"input_tokens": 100 + i, "output_tokens": 7}})}},
            "startedDateTime": f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z", "time": 5}


def _har(entries: list[Any], indent: int | None) -> str:
    return json.dumps({"log": {"version": "1.2", "creator": {"name": "t"}, "entries": entries}},
                      indent=indent, separators=None if indent else (",", ":"))


def _report(path: Path) -> dict[str, Any]:
    return analyze([str(path)]).to_report()


@pytest.mark.parametrize("indent", [2, None], ids=["pretty", "minified"])
def test_a_har_many_buffers_long_reads_every_entry_without_reading_it_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indent: int | None) -> None:
    path = tmp_path / "big.har"
    path.write_text(_har([_entry(i) for i in range(600)], indent))
    assert path.stat().st_size > 1_000_000  # many parser buffers, and past the sniff's head

    read_bytes = pathlib.Path.read_bytes

    def whole(self: Path) -> bytes:
        assert self != path, "the HAR was read whole"
        return read_bytes(self)

    monkeypatch.setattr(formats, "FIRST_LINE_MAX", 1 << 14)  # stands for 64 MB
    monkeypatch.setattr(pathlib.Path, "read_bytes", whole)
    report = _report(path)
    assert report["problems"] == []
    assert [t["input_tokens"] for t in report["turns"]] == [100 + i for i in range(600)]
    assert report["imports"][0]["provider_calls"] == 600


def test_the_entries_come_one_at_a_time_as_the_file_is_read(tmp_path: Path) -> None:
    """Structural bound: the first entry is built when little of the file has been read."""
    path = tmp_path / "big.har"
    path.write_text(_har([_entry(i) for i in range(600)], None))
    size = path.stat().st_size
    with open(path, "rb") as f:
        first = next(iter(ArrayValues(f, ("log", "entries"))))
        assert first["request"]["method"] == "POST"
        assert f.tell() < size // 10


def test_a_har_cut_mid_entry_keeps_the_entries_before_and_names_the_break(
        tmp_path: Path) -> None:
    text = _har([_entry(i) for i in range(5)], 2)
    path = tmp_path / "cut.har"
    path.write_text(text[: text.index('"question 3 ') + 40])  # inside entry 4's request
    report = _report(path)
    assert [t["input_tokens"] for t in report["turns"]] == [100, 101, 102]
    assert [(p["kind"], p["message"]) for p in report["problems"]] == [(
        "damaged_import", f"{path}: the HAR breaks in entry 4 (parse error: premature EOF); "
        "the 3 entries before it are read")]


def test_a_har_that_stops_being_json_keeps_what_came_before(tmp_path: Path) -> None:
    text = _har([_entry(i) for i in range(4)], None)
    path = tmp_path / "junk.har"
    cut = text.index('{"request"', text.index('"question 2 '))  # where entry 4 starts
    path.write_bytes(text[:cut].encode() + b"\x00\xff this is not JSON")
    report = _report(path)
    assert [t["input_tokens"] for t in report["turns"]] == [100, 101, 102]
    assert [p["kind"] for p in report["problems"]] == ["damaged_import"]
    assert "the HAR breaks in entry 4 (lexical error" in report["problems"][0]["message"]


def test_entries_of_the_wrong_shape_are_named_and_the_rest_read(tmp_path: Path) -> None:
    deep = "[" * (MAX_DEPTH + 50) + "]" * (MAX_DEPTH + 50)  # past the bound: never built
    entries = [_entry(0), 7, {"request": "GET /"}, "DEEP", _entry(1),
               {**_entry(2), "response": {"status": 200, "content": {"text": [1]}}}]
    path = tmp_path / "shapes.har"
    path.write_text(_har(entries, None).replace('"DEEP"', deep))
    report = _report(path)
    assert [t["input_tokens"] for t in report["turns"]] == [100, 101, None]
    assert [(p["kind"], p["message"]) for p in report["problems"]] == [(
        "damaged_import", f"{path}: entries 2, 3, 4 of the wrong shape (not an object with a "
        "request and its url, or nested past 1,024 levels) left out")]
    assert report["imports"][0]["ignored_kinds"] == {"damaged entry": 3}


def test_a_har_nested_past_the_bound_outside_its_entries_is_read(tmp_path: Path) -> None:
    path = tmp_path / "deep.har"
    depth = 100_000  # 200 kB of brackets: ijson's own item builder needed gigabytes
    path.write_text('{"log": {"pages": ' + "[" * depth + "]" * depth
                    + ', "entries": [' + json.dumps(_entry(0)) + "]}}")
    report = _report(path)
    assert [t["input_tokens"] for t in report["turns"]] == [100]
    assert report["problems"] == []
