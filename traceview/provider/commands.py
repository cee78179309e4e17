"""``traceview fetch`` and ``traceview diff``: argument parsing and running, no tracebacks.

Exit status: 0 no differences (complete copy); 1 differences, or a partial provider copy;
2 bad arguments, an unreadable file, or a provider error with nothing read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from traceview.analysis.diff import DiffResult, diff
from traceview.analysis.hosted.inventory import deletions
from traceview.analysis.transcript import CaptureItem, Target, capture_side, pick_target
from traceview.capture import SourceError, load
from traceview.provider.client import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    ProviderConfig,
    make_client,
)
from traceview.provider.errors import ProviderError
from traceview.provider.fetch import (
    DEFAULT_MAX_PAGES,
    HOSTED_EVIDENCE_INCLUDE,
    ProviderCopy,
    fetch_chain_items,
    fetch_conversation_items,
    fetch_input_items,
)
from traceview.provider.snapshot import SnapshotError, load_items, save_snapshot
from traceview.report.diff_output import render
from traceview.safety.redact import redact

EXIT_SAME, EXIT_DIFFERENT, EXIT_ERROR = 0, 1, 2


class _Fail(Exception):
    """A message for the user and exit status 2."""


def add_provider_arguments(p: argparse.ArgumentParser) -> None:
    """Flags that say how to reach the provider, named as the SDK's settings are."""
    g = p.add_argument_group("provider")
    g.add_argument("--conversation", metavar="ID",
                   help="conversation (conv_…) or chain response id (resp_…) to use; "
                        "needed when the capture holds several")
    g.add_argument("--base-url", metavar="URL",
                   help="provider base URL (default: $OPENAI_BASE_URL, else api.openai.com)")
    g.add_argument("--api-key-env", metavar="NAME", default="OPENAI_API_KEY",
                   help="environment variable that holds the API key (default: OPENAI_API_KEY)")
    g.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"per-request timeout (default {DEFAULT_TIMEOUT:g})")
    g.add_argument("--max-retries", type=int, default=DEFAULT_MAX_RETRIES, metavar="N",
                   help=f"retries on timeouts, 429 and 5xx (default {DEFAULT_MAX_RETRIES})")
    g.add_argument("--max-pages", type=int, default=DEFAULT_MAX_PAGES, metavar="N",
                   help=f"stop a listing that never ends after N pages (default "
                        f"{DEFAULT_MAX_PAGES})")
    g.add_argument("--include", action="append", metavar="FLAG",
                   help="include flag to list with (repeatable; default: "
                        + ", ".join(HOSTED_EVIDENCE_INCLUDE) + ")")


def add_fetch_arguments(p: argparse.ArgumentParser) -> None:
    """``traceview fetch CAPTURE [--conversation ID] -o snapshot.json``."""
    p.add_argument("capture", metavar="CAPTURE", help="capture naming the conversation")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="snapshot file to write (JSON; holds no key)")
    add_provider_arguments(p)


def add_diff_arguments(p: argparse.ArgumentParser) -> None:
    """``traceview diff CAPTURE [--conversation ID] [--items FILE | --live] [--format …]``."""
    p.add_argument("capture", metavar="CAPTURE", help="the capture to compare")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--items", metavar="FILE",
                     help="compare with a snapshot, or a capture that recorded a GET …/items "
                          "listing, instead of fetching")
    src.add_argument("--live", action="store_true",
                     help="fetch the provider copy now (the default without --items)")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    add_provider_arguments(p)


def _config(ns: argparse.Namespace) -> ProviderConfig:
    if ns.timeout <= 0 or ns.max_retries < 0 or ns.max_pages < 1:
        raise _Fail("--timeout must be > 0, --max-retries ≥ 0 and --max-pages ≥ 1")
    return ProviderConfig(base_url=ns.base_url, api_key_env=ns.api_key_env,
                          timeout=ns.timeout, max_retries=ns.max_retries)


def _target(ns: argparse.Namespace, *, allow_unlisted: bool) -> tuple[Any, Target]:
    try:
        cap = load([ns.capture])
    except (SourceError, OSError) as exc:
        raise _Fail(f"{ns.capture}: {exc}") from None
    try:
        return cap, pick_target(cap, ns.conversation)
    except ValueError as exc:
        wanted = ns.conversation or ""
        if allow_unlisted and wanted.startswith(("conv_", "resp_")):
            kind = "conversation" if wanted.startswith("conv_") else "chain"
            return cap, Target(kind, wanted)
        raise _Fail(f"{ns.capture}: {exc}") from None


def _fetch(ns: argparse.Namespace, target: Target) -> tuple[ProviderCopy | None, str | None]:
    """(copy, error message). A partial copy comes back with the error that stopped it."""
    config = _config(ns)
    include = ns.include if ns.include is not None else list(HOSTED_EVIDENCE_INCLUDE)
    try:
        client = make_client(config)
        fetch = fetch_conversation_items if target.kind == "conversation" else fetch_chain_items
        return fetch(client, target.id, include=include, max_pages=ns.max_pages,
                     config=config), None
    except ProviderError as err:
        partial = err.partial if err.partial and err.partial.pages else None
        return partial, err.message


def run_fetch(ns: argparse.Namespace) -> int:
    """Fetch the provider copy and save it as a snapshot (a partial one is saved, labelled)."""
    try:
        cap, target = _target(ns, allow_unlisted=True)
        copy, error = _fetch(ns, target)
    except _Fail as exc:
        print(f"traceview fetch: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if error:
        print(f"traceview fetch: {error}", file=sys.stderr)
    if copy is None:
        return EXIT_ERROR
    inputs = _fetch_final_input(ns, cap, target) if copy.complete else None
    try:
        save_snapshot(copy, ns.output, inputs)
    except OSError as exc:
        print(f"traceview fetch: cannot write {ns.output}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_ERROR
    state = "complete" if copy.complete else "PARTIAL (not the whole conversation)"
    print(f"saved {copy.kind} {copy.conversation}: {copy.item_count:,} items, {copy.pages} "
          f"page{'s' if copy.pages != 1 else ''}, {state}, from {copy.host} → {ns.output}")
    for warning in copy.warnings:
        print(f"note: {warning}", file=sys.stderr)
    return EXIT_SAME if copy.complete else EXIT_DIFFERENT


def final_response_id(cap: Any, target: Target) -> str | None:
    """The id of the target's last response in the capture (its final turn)."""
    if target.kind == "chain" and target.response_ids:
        return target.response_ids[-1]
    by_index = {t.index: t for t in cap.turns}
    for index in reversed(target.turns):
        t = by_index.get(index)
        if t is not None and t.response_id:
            return t.response_id
    return target.id if target.id.startswith("resp_") else None


def _fetch_final_input(ns: argparse.Namespace, cap: Any,
                       target: Target) -> ProviderCopy | dict[str, Any] | None:
    """The final response's input items, for replay fidelity later (never fails the fetch)."""
    rid = final_response_id(cap, target)
    if rid is None:
        return None
    include = ns.include if ns.include is not None else list(HOSTED_EVIDENCE_INCLUDE)
    config = _config(ns)
    try:
        return fetch_input_items(make_client(config), rid, include=include,
                                 max_pages=ns.max_pages, config=config)
    except ProviderError as err:
        print(f"note: the input items of {rid} were not saved: {err.message}", file=sys.stderr)
        return {"response": rid, "status": "not_found" if err.kind == "not_found" else "error",
                "error": err.message}


def build_diff(ns: argparse.Namespace) -> tuple[DiffResult | None, str | None]:
    """The diff the arguments ask for, or (None, message) when it cannot be made.

    Exposed for the UI: the same work as ``run_diff`` without printing.
    """
    try:
        cap, target = _target(ns, allow_unlisted=False)
        if ns.items:
            try:
                copy: ProviderCopy | None = load_items(ns.items, conversation=target.id)
            except SnapshotError as exc:
                raise _Fail(str(exc)) from None
            error = None
        else:
            copy, error = _fetch(ns, target)
    except _Fail as exc:
        return None, str(exc)
    if copy is None:
        line = deletions(cap.exchanges).get(target.id)
        if line is not None:
            return None, (f"provider copy deleted (line {line}): the capture itself deleted "
                          f"{target.id}, so there is nothing live to compare; the local record "
                          "is whole (`traceview report`), and a snapshot taken before the "
                          "deletion still diffs with --items FILE")
        return None, error
    return compare(cap, target, copy, error), None


def compare(cap: Any, target: Any, copy: ProviderCopy, error: str | None = None) -> DiffResult:
    """Diff a provider copy against the capture's side of `target` (CLI and inspector).

    `error` is the reason a partial copy stopped; it leads the warnings.
    """
    warnings = list(copy.warnings)
    if error:
        warnings.insert(0, error)
    if cap.problems:
        warnings.append(f"the capture had {len(cap.problems)} problem(s) while loading; "
                        "see `traceview report`")
    # Both sides redacted before comparing: every output of the diff (text, markdown, json,
    # the inspector) then holds no key, and a masked key cannot show up as a difference.
    items = [CaptureItem(ci.turn, ci.side, redact(ci.item), ci.line)
             for ci in capture_side(cap, target)]
    copy.items = redact(copy.items)
    if not copy.covers_output and target.turns:
        last = target.turns[-1]
        items = [ci for ci in items if not (ci.turn == last and ci.side == "output")]
    return diff(
        items, copy.items, conversation=target.id,
        complete=copy.complete, pages=copy.pages, include=copy.include, kind=copy.kind,
        origin=copy.origin, host=copy.host, fetched_at=copy.fetched_at, stopped=copy.stopped,
        warnings=warnings,
    )


def run_diff(ns: argparse.Namespace) -> int:
    """Print the diff; exit 0 same, 1 different or partial, 2 when it could not be made."""
    result, error = build_diff(ns)
    if result is None:
        print(f"traceview diff: {error}", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(render(result, ns.format))
    return EXIT_DIFFERENT if result.differs or not result.complete else EXIT_SAME


def main(argv: list[str] | None = None) -> int:
    """``python -m traceview.provider.commands fetch|diff …`` until cli.py dispatches here."""
    parser = argparse.ArgumentParser(prog="traceview")
    sub = parser.add_subparsers(dest="command", required=True)
    add_fetch_arguments(sub.add_parser("fetch", help="save the provider copy as a snapshot"))
    add_diff_arguments(sub.add_parser("diff", help="compare a capture with the provider copy"))
    try:
        ns = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and EXIT_ERROR
    return run_fetch(ns) if ns.command == "fetch" else run_diff(ns)


if __name__ == "__main__":
    raise SystemExit(main())
