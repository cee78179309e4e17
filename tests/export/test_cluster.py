"""The export as a Dask job on a local 2-worker cluster: the same rows, the same layout."""

from __future__ import annotations

from pathlib import Path

import pyarrow.dataset as ds
import pytest

from tests.shapes.fleet import write_fleet
from traceview.cli import main
from traceview.export.cluster import export_on_cluster
from traceview.export.run import chunks
from traceview.export.schema import TABLES

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded")


def _rows(root: Path, table: str) -> list[dict]:
    rows = ds.dataset(root / table, format="parquet").to_table().to_pylist()
    return sorted(rows, key=lambda r: (r["source"], r.get("capture_index") or r.get("line")
                                       or 0, r.get("key") or ""))


def _layout(root: Path) -> set[str]:
    return {str(p.parent.relative_to(root)) for p in root.rglob("*.parquet")}


def test_cluster_export_equals_single_machine(tmp_path: Path) -> None:
    caps = tmp_path / "caps"
    write_fleet(caps, 40)
    (caps / "broken.jsonl").write_text('{"dir": "req", "body": {"model": "m", "input": "x"}}\n'
                                       "{not json\n")
    single = tmp_path / "single"
    assert main(["export", str(caps), "--to", "parquet", "-o", str(single),
                 "--partition-by", "date,model"]) == 1
    files = sorted(str(p) for p in caps.iterdir())
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        counts = export_on_cluster(client, files, tmp_path / "cluster",
                                   partition_by=("date", "model"))
        workers = len(client.scheduler_info()["workers"])
    assert workers == 2
    cl = tmp_path / "cluster"
    assert counts["turns"] == len(_rows(single, "turns")) > 100
    assert counts["problems"] >= 1
    for table in TABLES:
        assert _rows(cl, table) == _rows(single, table), table
    assert _layout(cl) == _layout(single)
    assert len(list((cl / "turns").rglob("*.parquet"))) > len(
        list((single / "turns").rglob("*.parquet")))  # several workers' files side by side
    assert (cl / "_traceview.json").is_file()


def test_local_jobs_equal_one_process(tmp_path: Path) -> None:
    caps = tmp_path / "caps"
    write_fleet(caps, 30)
    one, two = tmp_path / "one", tmp_path / "two"
    assert main(["export", str(caps), "--to", "parquet", "-o", str(one)]) == 0
    assert main(["export", str(caps), "--to", "parquet", "-o", str(two), "--jobs", "2"]) == 0
    for table in TABLES:
        assert _rows(two, table) == _rows(one, table), table
    assert _layout(two) == _layout(one)
    assert len(list((two / "turns").rglob("*.parquet"))) > len(
        list((one / "turns").rglob("*.parquet")))


def test_chunks_balance_by_size(tmp_path: Path) -> None:
    sizes = [50, 40, 30, 20, 10, 10]
    files = []
    for i, n in enumerate(sizes):
        p = tmp_path / f"{i}.jsonl"
        p.write_bytes(b"x" * n)
        files.append(str(p))
    parts = chunks(files, 2)
    assert sorted(sum(Path(f).stat().st_size for f in c) for c in parts) == [80, 80]
    assert sorted(f for c in parts for f in c) == sorted(files)
    assert chunks(files[:1], 8) == [files[:1]]
