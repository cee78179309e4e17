"""``traceview ab FROM_CAPTURE -o results/``: plan, (dry-run or) run, resume.

The provider is chosen like any openai SDK program: ``--base-url`` or ``OPENAI_BASE_URL``,
and ``OPENAI_API_KEY``. Exit 0 complete (or a dry run), 1 stopped part-way (``--resume``
continues), 2 refused before anything was sent.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from traceview.commands.numbers import COUNT, POSITIVE, base_url
from traceview.experiment import manifest as mf
from traceview.experiment.runner import Aborted
from traceview.experiment.steps import (
    PlanError,
    PlanRequest,
    doc_files,
    execute,
    make_clients,
    plan_manifest,
)
from traceview.provider.urls import base_url_fault
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", nargs="*", metavar="FROM_CAPTURE",
                   help="capture(s) whose conversations are replayed (not needed with --resume)")
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="results folder")
    p.add_argument("--model", help="a pinned model snapshot, e.g. gpt-4.1-2025-04-14")
    p.add_argument("--allow-alias", action="store_true",
                   help="accept a model alias such as gpt-4.1 (it may change mid-experiment)")
    p.add_argument("--sample", type=POSITIVE, default=40, metavar="N",
                   help="conversations to sample, stratified by turn count (default 40)")
    p.add_argument("--runs", type=POSITIVE, default=3, metavar="N",
                   help="times each conversation is played on each arm (default 3)")
    p.add_argument("--seed", type=int, default=0, help="sampling and run-order seed")
    p.add_argument("--docs", metavar="DIR", help="documents for retrieval: B uploads them to a "
                   "vector store for file_search, A searches them client-side")
    p.add_argument("--keep", action="store_true",
                   help="keep the vector store and uploaded files afterwards")
    p.add_argument("--base-url", type=base_url, help="provider base URL (default: the SDK's, or "
                   "$OPENAI_BASE_URL)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan and an estimated cost; send nothing")
    p.add_argument("--resume", action="store_true", help="continue a partial run in --out")
    p.add_argument("--max-retries", type=COUNT, default=2, help="SDK retries per call")


def _err(msg: str) -> int:
    print(f"traceview ab: {visible(redact_text(msg))}", file=sys.stderr)
    return 2


def _resumed(ns: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """The manifest of the run to continue; PlanError when it cannot be continued as asked."""
    try:
        m = mf.read(folder)
        mf.owned_outputs(folder)
    except mf.ManifestError as exc:
        raise PlanError(str(exc)) from None
    if m.get("status") == "complete":
        return m
    if m["options"].get("docs") and not ns.docs:
        raise PlanError("this run used --docs; pass the same --docs DIR to resume it")
    if ns.model and ns.model != m["model"]:
        raise PlanError(f"--model {ns.model} differs from the run's {m['model']}")
    _check_url(ns.base_url or m["options"].get("base_url"))
    return m


def _check_url(base_url: str | None) -> None:
    """PlanError when the URL the run will send to (`--base-url`, the run's own, else
    $OPENAI_BASE_URL) is none: said before the results folder is made or written, not as
    a connection error after it."""
    env = os.environ.get("OPENAI_BASE_URL")
    if base_url is None and env and (fault := base_url_fault(env)):
        raise PlanError(f"$OPENAI_BASE_URL: {fault}")


def _check_folder(folder: Path) -> None:
    """PlanError unless `folder` is, or can be made, a folder to write the run in: checked
    before the plan, so a dry run does not pass where the real run would stop."""
    if folder.exists() and not folder.is_dir():
        raise PlanError(f"-o {folder}: cannot create the results folder (a file is there)")
    there = folder
    while not there.exists():
        there = there.parent
    if not there.is_dir() or not os.access(there, os.W_OK | os.X_OK):
        raise PlanError(f"-o {folder}: cannot create the results folder ({there} is not a "
                        "folder this user can write in)")


def _planned(ns: argparse.Namespace, folder: Path) -> dict[str, Any] | None:
    """A new run's manifest (None for a dry run), its folder made."""
    if (folder / mf.NAME).exists():
        raise PlanError(f"{folder} already holds a run; use --resume or another --out")
    _check_folder(folder)
    if not ns.dry_run:
        _check_url(ns.base_url)
    request = PlanRequest(model=ns.model, source=list(ns.source), sample=ns.sample,
                          runs=ns.runs, seed=ns.seed, allow_alias=ns.allow_alias,
                          docs=ns.docs, keep=ns.keep, base_url=ns.base_url,
                          dry_run=ns.dry_run)
    m = plan_manifest(request, sys.stdout)
    if m is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlanError(f"-o {folder}: cannot create the results folder "
                        f"({exc.strerror or exc})") from None
    return m


def _keep_manifest(folder: Path, m: dict[str, Any]) -> None:
    """The manifest as it stood, written if the disk still lets it."""
    try:
        mf.write(folder, m)
    except OSError:
        pass


def run(ns: argparse.Namespace) -> int:
    folder = Path(ns.out)
    try:
        m = _resumed(ns, folder) if ns.resume else _planned(ns, folder)
        if m is None:
            return 0
        if m.get("status") == "complete":
            print(f"traceview ab: {visible(folder)} is already complete", file=sys.stderr)
            return 0
        docs = doc_files(ns.docs)
    except (PlanError, ValueError) as exc:
        return _err(str(exc))
    clients = make_clients(folder, ns.base_url or m["options"].get("base_url"), ns.max_retries)
    try:
        execute(folder, m, docs, clients)
    except Aborted as exc:
        _keep_manifest(folder, m)
        return _err(f"stopped: {exc}; the results so far are in {folder} (--resume continues)")
    except (OSError, sqlite3.Error) as exc:  # a full disk: arm A's store is SQLite
        _keep_manifest(folder, m)
        why = getattr(exc, "strerror", None) or exc
        _err(f"cannot write {folder}: {why}; the results so far are in {folder} "
             "(--resume continues)")
        return 1
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
