"""Issue 31: nothing a command read is ever written over.

Every command that writes refuses, with exit 2 and nothing touched, an output that is one of
its inputs (also through a symlink) or an existing file it did not create, unless --force;
a FIFO or device as an output is refused outright.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from traceview.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def cap(tmp_path: Path) -> Path:
    dst = tmp_path / "claims.jsonl"
    shutil.copyfile(SAMPLES / "claims.jsonl", dst)
    return dst


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main([str(a) for a in args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("kind", ["otlp", "duckdb"])
@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_export_file_never_over_its_input(capsys, cap, tmp_path, kind, how):
    before = digest(cap)
    out = cap
    if how == "symlink":
        out = tmp_path / "link.json"
        out.symlink_to(cap)
    elif how == "hardlink":
        out = tmp_path / "hard.json"
        os.link(cap, out)
    err = refused(capsys, "export", cap, "--to", kind, out)
    assert "input" in err
    assert digest(cap) == before
    # --force does not make an input an output
    refused(capsys, "export", cap, "--to", kind, out, "--force")
    assert digest(cap) == before


@pytest.mark.parametrize("kind", ["otlp", "duckdb"])
def test_export_file_refuses_an_existing_file_unless_forced(capsys, cap, tmp_path, kind):
    other = tmp_path / "notes.csv"
    other.write_text("a,b\n1,2\n")
    err = refused(capsys, "export", cap, "--to", kind, other)
    assert "--force" in err and other.read_text() == "a,b\n1,2\n"
    assert main(["export", str(cap), "--to", kind, str(other), "--force"]) == 0
    assert other.read_bytes() != b"a,b\n1,2\n"
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]


def test_export_csv_never_over_other_files_or_inputs(capsys, cap, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "turns.csv").write_text("mine\n")
    refused(capsys, "export", cap, "--to", "csv", "-o", out)
    assert (out / "turns.csv").read_text() == "mine\n"
    (out / "turns.csv").unlink()
    (out / "turns.csv").symlink_to(cap)
    before = digest(cap)
    refused(capsys, "export", cap, "--to", "csv", "-o", out, "--force")
    assert digest(cap) == before
    (out / "turns.csv").unlink()
    assert main(["export", str(cap), "--to", "csv", "-o", str(out)]) == 0
    assert (out / "turns.csv").read_text().count("\n") == 5  # header + the four turns
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_export_parquet_never_into_an_input_directory(capsys, tmp_path):
    d = tmp_path / "caps"
    d.mkdir()
    shutil.copyfile(SAMPLES / "claims.jsonl", d / "claims.jsonl")
    refused(capsys, "export", d, "--to", "parquet", "-o", d)
    assert (d / "claims.jsonl").exists()


def test_screenshot_never_over_its_capture(capsys, cap, tmp_path):
    before = digest(cap)
    refused(capsys, "screenshot", cap, "-o", cap)
    link = tmp_path / "shot.svg"
    link.symlink_to(cap)
    refused(capsys, "screenshot", cap, "-o", link)
    assert digest(cap) == before
    other = tmp_path / "exists.svg"
    other.write_text("x")
    assert "--force" in refused(capsys, "screenshot", cap, "-o", other)
    assert other.read_text() == "x"


def test_fetch_never_over_its_capture(capsys, cap):
    before = digest(cap)
    refused(capsys, "fetch", cap, "-o", cap, "--base-url", "http://127.0.0.1:9/v1")
    assert digest(cap) == before


def test_hydrate_refuses_its_ids_file_and_any_existing_file(capsys, tmp_path):
    ids = tmp_path / "ids.txt"
    ids.write_text("resp_abc12345678\n")
    refused(capsys, "hydrate", ids, "-o", ids, "--base-url", "http://127.0.0.1:9/v1")
    assert ids.read_text() == "resp_abc12345678\n"
    existing = tmp_path / "cap.jsonl"
    existing.write_text('{"dir":"req","body":{}}\n')
    err = refused(capsys, "hydrate", "resp_abc12345678", "-o", existing,
                  "--base-url", "http://127.0.0.1:9/v1")
    assert "exists" in err and existing.read_text() == '{"dir":"req","body":{}}\n'


def test_sql_cache_never_over_a_source(capsys, tmp_path):
    pytest.importorskip("duckdb")
    db = tmp_path / "c" / "fleet.duckdb"
    db.parent.mkdir()
    assert main(["export", str(SAMPLES / "claims.jsonl"), "--to", "duckdb", str(db)]) == 0
    capsys.readouterr()
    cap = tmp_path / "claims.jsonl"
    shutil.copyfile(SAMPLES / "claims.jsonl", cap)
    before = digest(cap)
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "fleet.json").symlink_to(cap)
    refused(capsys, "sql", "SELECT 1", cap, "--cache", tmp_path / "k")
    assert digest(cap) == before


def test_proxy_output_must_be_a_regular_file(capsys, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    err = refused(capsys, "proxy", "-o", fifo, "--port", "0",
                  "--upstream", "http://127.0.0.1:9/v1")
    assert "regular file" in err


def _ab_folder(tmp_path: Path, victim: Path) -> Path:
    """A stopped run whose A.jsonl is a symlink to a file outside the folder."""
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "A.jsonl").symlink_to(victim)
    m = {"schema": "traceview.ab/1", "model": "gpt-4.1-2025-04-14", "runs": 1,
         "options": {}, "sample": [], "order": [], "completed": [], "failed": [],
         "offsets": {"A.jsonl": 0}, "status": "stopped"}
    (folder / "manifest.json").write_text(json.dumps(m))
    return folder


def test_ab_resume_never_cuts_through_a_symlink(capsys, cap, tmp_path):
    before = digest(cap)
    folder = _ab_folder(tmp_path, cap)
    code = main(["ab", "--resume", "-o", str(folder), "--base-url", "http://127.0.0.1:9/v1"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "symlink" in err or "regular file" in err
    assert digest(cap) == before


def test_ab_manifest_tmp_symlink_is_not_followed(tmp_path, cap):
    from traceview.experiment import manifest as mf

    before = digest(cap)
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "manifest.json.tmp").symlink_to(cap)
    mf.write(folder, {"schema": "traceview.ab/1"})
    assert digest(cap) == before
    assert json.loads((folder / "manifest.json").read_text())["schema"] == "traceview.ab/1"
