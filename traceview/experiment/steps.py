"""The experiment's steps: plan it, make the arms' clients, set retrieval up, run, tear down.

Nothing is sent before the plan has been checked (the model is pinned, the source has
conversations) and, with a dry run, nothing is sent at all. ``traceview ab`` and
``traceview demo --ab`` drive these.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from traceview.capture.sources import SourceError
from traceview.experiment import manifest as mf
from traceview.experiment.plan import estimate_usd, model_problem, run_order, stratified_sample
from traceview.experiment.retriever import Retriever
from traceview.experiment.runner import Aborted, Runner, dumps_sample
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible

DOC_SUFFIXES = (".txt", ".md", ".markdown", ".text")


class PlanError(Exception):
    """The experiment cannot be planned as asked; the message says why."""


@dataclass(frozen=True)
class PlanRequest:
    """What ``traceview ab`` was asked to plan (the flags, as plain values)."""

    model: str | None
    source: list[str]
    sample: int = 40
    runs: int = 3
    seed: int = 0
    allow_alias: bool = False
    docs: str | None = None
    keep: bool = False
    base_url: str | None = None
    dry_run: bool = False


def doc_files(path: str | None) -> list[Path]:
    """The retrieval documents in folder ``path`` (none without one)."""
    if not path:
        return []
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"--docs {path}: not a directory")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in DOC_SUFFIXES)
    if not files:
        raise ValueError(f"--docs {path}: no {', '.join(DOC_SUFFIXES)} files in it")
    return files


def _read_source(req: PlanRequest) -> tuple[list[Path], list[Any], list[Any]]:
    """(documents, conversations, skipped) once the request is checked; PlanError if not."""
    from traceview.experiment.source import extract

    problem = model_problem(req.model or "", req.allow_alias)
    if problem:
        raise PlanError(problem)
    if req.sample < 1 or req.runs < 1:
        raise PlanError("--sample and --runs must be at least 1")
    if not req.source:
        raise PlanError("name the capture whose conversations are replayed (or --resume)")
    missing = [p for p in req.source if p != "-" and not os.path.exists(p)]
    if missing:
        raise PlanError(f"{missing[0]}: no such file or directory")
    try:
        docs = doc_files(req.docs)
        conversations, skipped = extract(list(req.source))
    except (ValueError, OSError, SourceError) as exc:
        raise PlanError(str(exc)) from None
    if not conversations:
        raise PlanError(f"{', '.join(req.source)}: no conversation with a user message to "
                        "replay")
    return docs, conversations, skipped


def plan_manifest(req: PlanRequest, out: TextIO) -> dict[str, Any] | None:
    """Check and plan, printing the plan to ``out``: the new manifest, or None for a dry
    run. Raises PlanError when the request cannot be played."""
    from collections import Counter

    from traceview.analysis.pricing import Pricing

    docs, conversations, skipped = _read_source(req)
    sample = stratified_sample(conversations, req.sample, req.seed)
    order = run_order([c.key for c in sample], req.runs, req.seed)
    estimate = estimate_usd(sample, req.runs, req.model or "", Pricing.load())
    dist_src = Counter(c.turns for c in conversations)
    dist = Counter(c.turns for c in sample)
    print(f"plan: {len(sample)} of {len(conversations)} conversations "
          f"(turns→count, source {dict(sorted(dist_src.items()))}, "
          f"sample {dict(sorted(dist.items()))}), {req.runs} runs per arm, "
          f"{len(order)} units ({sum(c.turns for c in sample) * req.runs * 2} calls), "
          f"model {visible(redact_text(req.model or ''))}, seed {req.seed}", file=out)
    if skipped:
        print(f"  skipped {len(skipped)} conversation(s) without a user message", file=out)
    est = "unknown (model not in the price table)" if estimate is None else f"${estimate:.4f}"
    print(f"  estimated cost {est} — the source's billed tokens replayed on both arms, "
          "hosted tool fees not included", file=out)
    if req.dry_run:
        print("  dry run: nothing was sent", file=out)
        return None
    return {
        "schema": mf.SCHEMA, "status": "planned", "seed": req.seed, "model": req.model,
        "allow_alias": req.allow_alias, "runs": req.runs, "source": list(req.source),
        "options": {"sample": req.sample, "docs": [p.name for p in docs], "keep": req.keep,
                    "base_url": req.base_url or os.environ.get("OPENAI_BASE_URL")},
        "sample": dumps_sample(sample), "order": [u.tag for u in order],
        "completed": [], "failed": [], "offsets": {}, "started_at": mf.now_iso(),
        "ended_at": None, "sessions": [], "latency": "measured", "vector_store": None,
        "files": [], "estimate_usd": estimate, "notes": [],
    }


def make_clients(folder: Path, base_url: str | None, max_retries: int,
                 api_key: str | None = None, clock: Any = None) -> dict[str, Any]:
    import traceview.record
    from traceview.record import Recorder

    kw: dict[str, Any] = {"max_retries": max_retries}
    if base_url:
        kw["base_url"] = base_url
    if api_key:
        kw["api_key"] = api_key
    return {arm: traceview.record.client(Recorder(folder / f"{arm}.jsonl", clock=clock), **kw)
            for arm in ("A", "B")}


def setup_retrieval(m: dict[str, Any], client: Any, docs: list[Path]) -> None:
    """B's vector store over the documents (once; a resumed run reuses it)."""
    if not docs or m.get("vector_store"):
        return
    ids = []
    for path in docs:
        with open(path, "rb") as handle:
            ids.append(client.files.create(file=(path.name, handle.read()),
                                           purpose="assistants").id)
    m["files"] = ids
    m["vector_store"] = client.vector_stores.create(name="traceview-ab", file_ids=ids).id


def teardown_retrieval(m: dict[str, Any], client: Any) -> None:
    if m["options"].get("keep") or not m.get("vector_store") or m.get("status") != "complete":
        return
    client.vector_stores.delete(m["vector_store"])
    for fid in m.get("files") or []:
        client.files.delete(fid)
    m["deleted"] = True


def execute(folder: Path, m: dict[str, Any], docs: list[Path], clients: dict[str, Any], *,
            stop: threading.Event | None = None, progress: TextIO | None | str = "stderr",
            after_call: Any = None) -> Runner:
    """Set up retrieval, run the units, tear down: the testable core of the command."""
    import openai

    retriever = Retriever.from_paths(docs) if docs else None
    try:
        setup_retrieval(m, clients["B"], docs)
    except openai.APIError as exc:
        raise Aborted(f"creating the vector store failed: {exc}") from None
    runner = Runner(folder, m, clients, retriever=retriever, stop=stop, progress=progress,
                    after_call=after_call)
    runner.run()
    try:
        teardown_retrieval(m, clients["B"])
    except openai.APIError as exc:
        m["notes"].append(f"deleting the vector store failed: {exc}")
    mf.write(folder, m)
    return runner
