"""The Parquet export as a Dask distributed job: captures map to rows on many workers.

Reading a capture is independent per file, so the job splits the file list into chunks
and each worker runs `export_parquet_chunk` — the very function `traceview export` runs
on one machine — writing its own files (`part-NNNNN.parquet`) into the shared layout.
Dask rather than Spark: it installs with pip (no JVM), runs the same Python functions
unchanged, and scales from a laptop's LocalCluster to a cluster with `dask-scheduler`.
The output directory must be reachable by every worker (a shared filesystem).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traceview.analysis.options import Options
from traceview.export import need
from traceview.export.run import chunks, export_parquet_chunk
from traceview.export.schema import TABLES
from traceview.export.sinks import prepare_dir, write_manifest


def export_on_cluster(client: Any, files: list[str], out: Path | str, *,
                      partition_by: tuple[str, ...] = ("date",),
                      options: Options | None = None,
                      tasks_per_worker: int = 4) -> dict[str, int]:
    """Write the Parquet layout of `files` into `out` using the workers of `client`."""
    need("distributed", "cluster")
    out = Path(out)
    prepare_dir(out)
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    parts = chunks(files, workers * tasks_per_worker)
    futures = client.map(export_parquet_chunk, parts, [str(out)] * len(parts),
                         [f"part-{i:05d}" for i in range(len(parts))],
                         [partition_by] * len(parts), [options] * len(parts), pure=False)
    totals = {t: 0 for t in TABLES}
    for counts in client.gather(futures):
        for t, n in counts.items():
            totals[t] += n
    write_manifest(out, partition_by, len(files))
    return totals


def connect(address: str) -> Any:
    """A client for `address`: a scheduler (`tcp://host:8786`) or `local:N` (N workers)."""
    distributed = need("distributed", "cluster")
    if address.startswith("local:"):
        n = address.split(":", 1)[1] or "2"
        if not n.isdigit() or int(n) < 1:
            raise ValueError(f"--dask {address}: local:N needs a number of workers")
        cluster = distributed.LocalCluster(n_workers=int(n), threads_per_worker=1,
                                           processes=True, dashboard_address=None)
        return distributed.Client(cluster)
    return distributed.Client(address)
