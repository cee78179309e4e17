"""A damaged capture reads the same through every command: `sql` and `export` use what
is readable, name each damaged line (file:line and cause) on stderr, and exit as `report`
does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main

DAMAGED = str(SAMPLES / "damaged.jsonl")
NAMED = ["damaged.jsonl:3 malformed_json: not valid JSON",
         "damaged.jsonl:4 invalid_utf8: byte 0xe9",
         "damaged.jsonl:5 unknown_record: not a capture record",
         "damaged.jsonl:10 truncated_line: last line ends mid-record"]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_report_exits_1_and_names_the_lines(capsys):
    rc, out, err = _run(capsys, "report", DAMAGED, "--width", "300")
    assert rc == 1
    assert all(n in out for n in NAMED)
    assert "4 problems while reading; everything readable is shown" in err


def test_sql_over_a_damaged_capture_queries_the_rest_and_names_the_lines(tmp_path, capsys):
    rc, out, err = _run(capsys, "sql", "SELECT count(*) AS n FROM turns", DAMAGED,
                        "--format", "csv", "--cache", str(tmp_path / "cache"))
    assert rc == 1  # as report
    assert out == "n\n4\n"  # the four readable turns are still queried
    for n in NAMED:
        assert f"traceview sql: {DAMAGED[:-len('damaged.jsonl')]}{n}" in err
    assert "traceview sql: 4 problems while reading" in err
    # from the cache the second time: the same lines, the same exit
    rc2, out2, err2 = _run(capsys, "sql", "SELECT count(*) AS n FROM turns", DAMAGED,
                           "--format", "csv", "--cache", str(tmp_path / "cache"))
    assert (rc2, out2) == (1, out) and all(n in err2 for n in NAMED)


def test_sql_over_a_clean_capture_exits_0_and_names_nothing(tmp_path, capsys):
    rc, _, err = _run(capsys, "sql", "SELECT count(*) FROM turns", str(SAMPLES / "claims.jsonl"),
                      "--cache", str(tmp_path / "cache"))
    assert rc == 0 and "problem" not in err


@pytest.mark.parametrize("kind", ["csv", "otlp"])
def test_export_names_the_damaged_lines(tmp_path, capsys, kind):
    rc, _, err = _run(capsys, "export", DAMAGED, "--to", kind, str(tmp_path / "out"))
    assert rc == 1
    assert all(f"traceview export: {DAMAGED[:-len('damaged.jsonl')]}{n}" in err for n in NAMED)
    assert "traceview export: 4 problems while reading" in err


def test_many_damaged_lines_name_the_first_twenty_and_count_the_rest(tmp_path, capsys):
    cap = tmp_path / "many.jsonl"
    shutil.copy(SAMPLES / "claims.jsonl", cap)
    with cap.open("a") as f:
        f.writelines(f"not json {i}\n" for i in range(25))
    first_bad = sum(1 for _ in (SAMPLES / "claims.jsonl").open()) + 1
    rc, _, err = _run(capsys, "sql", "SELECT 1", str(cap), "--cache", str(tmp_path / "c"))
    assert rc == 1
    lines = [x for x in err.splitlines() if "malformed_json" in x]
    assert len(lines) == 20 and f"many.jsonl:{first_bad} malformed_json" in lines[0]
    assert "traceview sql: … and 5 more, listed in SELECT * FROM problems" in err
    assert "25 problems while reading" in err
    assert Path(cap).exists()


def test_sql_over_an_export_queries_its_problems_as_data_and_exits_0(tmp_path, capsys):
    assert _run(capsys, "export", DAMAGED, "--to", "parquet", "-o", str(tmp_path / "e"))[0] == 1
    rc, out, err = _run(capsys, "sql", "SELECT count(*) AS n FROM problems",
                        str(tmp_path / "e"), "--format", "csv")
    assert (rc, out) == (0, "n\n4\n")  # said when the export was made
    assert "malformed_json" not in err


@pytest.mark.parametrize("argv", [["context", "--turn", "1"], ["objects"]])
def test_context_and_objects_name_the_damaged_lines_and_exit_1(capsys, argv):
    """Done with problems, as README's exit rule says: the output is printed, every
    damaged line named on stderr, exit 1 (context exited 0 and said nothing)."""
    rc, out, err = _run(capsys, *argv, DAMAGED)
    assert rc == 1 and out
    assert all(n in err for n in NAMED)
    assert f"traceview {argv[0]}: 4 problems while reading; everything readable is shown" \
        in err


def test_diff_of_a_damaged_capture_exits_1_even_when_nothing_differs(tmp_path, capsys):
    """A copy that matches the readable part is not a clean diff: a damaged line may hold
    an item that differs (exit 1, as report; the note says how many problems)."""
    listing = Path(__file__).parents[1] / "provider" / "fixtures" / \
        "dotnet_conversation_item_endpoints.jsonl"
    cap = tmp_path / "cap.jsonl"
    cap.write_bytes(listing.read_bytes() + b'{"broken\n')
    rc, out, _ = _run(capsys, "diff", str(cap), "--items", str(listing))
    assert rc == 1
    assert "the capture had 1 problem(s) while loading" in out
    assert _run(capsys, "diff", str(listing), "--items", str(listing))[0] == 0
