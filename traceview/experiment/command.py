"""``traceview ab FROM_CAPTURE -o results/``: plan, (dry-run or) run, resume.

The provider is chosen like any openai SDK program: ``--base-url`` or
``OPENAI_BASE_URL``, and ``OPENAI_API_KEY``. Nothing is sent before the plan has been
checked (the model is pinned, the source has conversations, the folder is free or a
resumable run) and, with ``--dry-run``, nothing is sent at all.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
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


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", nargs="*", metavar="FROM_CAPTURE",
                   help="capture(s) whose conversations are replayed (not needed with --resume)")
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="results folder")
    p.add_argument("--model", help="a pinned model snapshot, e.g. gpt-4.1-2025-04-14")
    p.add_argument("--allow-alias", action="store_true",
                   help="accept a model alias such as gpt-4.1 (it may change mid-experiment)")
    p.add_argument("--sample", type=int, default=40, metavar="N",
                   help="conversations to sample, stratified by turn count (default 40)")
    p.add_argument("--runs", type=int, default=3, metavar="N",
                   help="times each conversation is played on each arm (default 3)")
    p.add_argument("--seed", type=int, default=0, help="sampling and run-order seed")
    p.add_argument("--docs", metavar="DIR", help="documents for retrieval: B uploads them to a "
                   "vector store for file_search, A searches them client-side")
    p.add_argument("--keep", action="store_true",
                   help="keep the vector store and uploaded files afterwards")
    p.add_argument("--base-url", help="provider base URL (default: the SDK's, or "
                   "$OPENAI_BASE_URL)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan and an estimated cost; send nothing")
    p.add_argument("--resume", action="store_true", help="continue a partial run in --out")
    p.add_argument("--max-retries", type=int, default=2, help="SDK retries per call")


def _err(msg: str) -> int:
    print(f"traceview ab: {visible(redact_text(msg))}", file=sys.stderr)
    return 2


def _docs(path: str | None) -> list[Path]:
    if not path:
        return []
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"--docs {path}: not a directory")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in DOC_SUFFIXES)
    if not files:
        raise ValueError(f"--docs {path}: no {', '.join(DOC_SUFFIXES)} files in it")
    return files


def plan_manifest(ns: argparse.Namespace, out: TextIO) -> dict[str, Any] | int:
    """Checks and plans; returns the new manifest, or an exit code (dry run / refusal)."""
    from traceview.analysis.pricing import Pricing
    from traceview.experiment.source import extract

    problem = model_problem(ns.model or "", ns.allow_alias)
    if problem:
        return _err(problem)
    if ns.sample < 1 or ns.runs < 1:
        return _err("--sample and --runs must be at least 1")
    if not ns.source:
        return _err("name the capture whose conversations are replayed (or --resume)")
    missing = [p for p in ns.source if p != "-" and not os.path.exists(p)]
    if missing:
        return _err(f"no such file or directory: {missing[0]}")
    try:
        docs = _docs(ns.docs)
        conversations, skipped = extract(list(ns.source))
    except (ValueError, OSError, SourceError) as exc:
        return _err(str(exc))
    if not conversations:
        return _err(f"{', '.join(ns.source)}: no conversation with a user message to replay")
    sample = stratified_sample(conversations, ns.sample, ns.seed)
    order = run_order([c.key for c in sample], ns.runs, ns.seed)
    estimate = estimate_usd(sample, ns.runs, ns.model, Pricing.load())
    from collections import Counter

    dist_src = Counter(c.turns for c in conversations)
    dist = Counter(c.turns for c in sample)
    print(f"plan: {len(sample)} of {len(conversations)} conversations "
          f"(turns→count, source {dict(sorted(dist_src.items()))}, "
          f"sample {dict(sorted(dist.items()))}), {ns.runs} runs per arm, "
          f"{len(order)} units ({sum(c.turns for c in sample) * ns.runs * 2} calls), "
          f"model {visible(redact_text(ns.model))}, seed {ns.seed}", file=out)
    if skipped:
        print(f"  skipped {len(skipped)} conversation(s) without a user message", file=out)
    est = "unknown (model not in the price table)" if estimate is None else f"${estimate:.4f}"
    print(f"  estimated cost {est} — the source's billed tokens replayed on both arms, "
          "hosted tool fees not included", file=out)
    if ns.dry_run:
        print("  dry run: nothing was sent", file=out)
        return 0
    return {
        "schema": mf.SCHEMA, "status": "planned", "seed": ns.seed, "model": ns.model,
        "allow_alias": ns.allow_alias, "runs": ns.runs, "source": list(ns.source),
        "options": {"sample": ns.sample, "docs": [p.name for p in docs], "keep": ns.keep,
                    "base_url": ns.base_url or os.environ.get("OPENAI_BASE_URL")},
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


def run(ns: argparse.Namespace) -> int:
    folder = Path(ns.out)
    if ns.resume:
        try:
            m = mf.read(folder)
        except mf.ManifestError as exc:
            return _err(str(exc))
        if m.get("status") == "complete":
            print(f"traceview ab: {visible(folder)} is already complete", file=sys.stderr)
            return 0
        docs_dir = ns.docs
        if m["options"].get("docs") and not docs_dir:
            return _err("this run used --docs; pass the same --docs DIR to resume it")
        if ns.model and ns.model != m["model"]:
            return _err(f"--model {ns.model} differs from the run's {m['model']}")
    else:
        if (folder / mf.NAME).exists():
            return _err(f"{folder} already holds a run; use --resume or another --out")
        planned = plan_manifest(ns, sys.stdout)
        if isinstance(planned, int):
            return planned
        m = planned
        docs_dir = ns.docs
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return _err(f"-o {folder}: cannot create the results folder "
                        f"({exc.strerror or exc})")
    try:
        docs = _docs(docs_dir)
    except ValueError as exc:
        return _err(str(exc))
    clients = make_clients(folder, ns.base_url or m["options"].get("base_url"), ns.max_retries)
    try:
        execute(folder, m, docs, clients)
    except Aborted as exc:
        mf.write(folder, m)
        return _err(f"stopped: {exc}; the results so far are in {folder} (--resume continues)")
    finally:
        for c in clients.values():
            c.close()
    done = len(m["completed"])
    where = visible(folder)
    print(f"traceview ab: {m['status']} — {done} of {len(m['order'])} units done "
          f"({len(m['failed'])} failed) in {where}")
    if m["status"] != "complete":
        print(f"  continue with: traceview ab --resume -o {where}")
        return 1
    print(f"  read it with: traceview compare {where}")
    return 0
