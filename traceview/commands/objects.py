"""``traceview objects CAPTURE [--case ID|--conversation ID]``: a case's deletion checklist.

Every provider object that holds the case's data, its retention, the call that deletes it
and its state in the capture; ``--verify --live`` asks the provider about each (404 =
gone) and writes what it saw to a dated sidecar file beside the capture — never to the
capture. Exit 0 when every listed object is gone (or, without --verify, nothing is left
in the capture), 1 when something is left, unverified, or the capture had problems,
2 unusable input or no turn of the case or conversation in the capture.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from traceview.commands import EXIT_PROBLEMS, EXIT_USAGE
from traceview.commands.options import UsageError, add_analysis_options, options_from
from traceview.commands.problems import refused, told
from traceview.commands.provider_flags import add_connection_arguments, add_limit_arguments


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="CAPTURE",
                   help="capture files, directories of captures, .gz, or - for stdin")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--case", metavar="ID",
                     help="the case: a metadata value (case_id…), user or safety_identifier "
                          "its requests or conversation carry")
    who.add_argument("--conversation", metavar="ID", help="one conversation (conv_… or a "
                     "chain's resp_…)")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    p.add_argument("--verify", action="store_true",
                   help="check each object against the provider (needs --live)")
    p.add_argument("--live", action="store_true",
                   help="allow network calls to the provider (with --verify)")
    g = p.add_argument_group("provider")
    add_connection_arguments(g)
    add_limit_arguments(g)
    add_analysis_options(p)


def run(ns: argparse.Namespace) -> int:
    from traceview.analysis.hosted.checklist import checklist, conversation_metadata
    from traceview.analysis.pricing import PricingError
    from traceview.analysis.session import analyze
    from traceview.capture.sources import SourceError
    from traceview.report.objects_out import render_json, render_text

    if ns.case == "" or ns.conversation == "":  # matched no turn, then read as "no case"
        print("traceview: --case and --conversation need an ID", file=sys.stderr)
        return EXIT_USAGE
    if ns.verify != ns.live:
        print("traceview: --verify and --live go together: --verify --live asks the "
              "provider about each object", file=sys.stderr)
        return EXIT_USAGE
    if ns.verify and (len(ns.paths) != 1 or ns.paths[0] == "-"
                      or not Path(ns.paths[0]).is_file()):
        print("traceview: --verify writes its sidecar beside one capture file: give one "
              "file (not stdin or a directory)", file=sys.stderr)
        return EXIT_USAGE
    try:
        analysis = analyze(ns.paths, options_from(ns))
    except (UsageError, SourceError, PricingError) as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if refused("traceview objects", analysis):
        return EXIT_USAGE
    try:
        created = conversation_metadata(analysis.capture.exchanges, analysis.capture.read)
        doc = checklist(list(analysis.turns), analysis.objects, ns.case, ns.conversation,
                        created)
    finally:
        analysis.capture.close()
    if (ns.case or ns.conversation) and not doc["turns"]:  # nothing to list: not done
        print(f"traceview: no turn of {'case ' + ns.case if ns.case else ns.conversation} "
              "in the capture", file=sys.stderr)
        return EXIT_USAGE
    if ns.verify:
        status = _verify(ns, doc)
        if status is not None:
            return status
    if ns.format == "json":
        sys.stdout.buffer.write(render_json(doc))
    else:
        sys.stdout.write(render_text(doc, markdown=ns.format == "markdown"))
    left = doc["verify"]["verdict"] != "verified" if ns.verify else doc["remaining"] > 0
    return EXIT_PROBLEMS if told("traceview objects", analysis) or left else 0


def _verify(ns: argparse.Namespace, doc: dict[str, object]) -> int | None:
    """Ask the provider, then write the sidecar (None: go on and print)."""
    from datetime import UTC, datetime

    from traceview.provider.client import ProviderConfig
    from traceview.provider.errors import ProviderError
    from traceview.provider.objects_check import check_objects
    from traceview.report.objects_out import sidecar_path, write_sidecar
    from traceview.safety.outputs import PathRefused, refuse_output

    config = ProviderConfig(base_url=ns.base_url, api_key_env=ns.api_key_env,
                            timeout=ns.timeout, max_retries=ns.max_retries)
    now = datetime.now(UTC)
    capture = Path(ns.paths[0])
    sidecar = sidecar_path(capture, now)
    try:
        refuse_output(sidecar, ns.paths)  # before anything is sent
        seen = check_objects(config, doc["objects"], now)  # type: ignore[arg-type]
        doc.update(write_sidecar(doc, seen, sidecar, capture))
    except PathRefused as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ProviderError as exc:
        print(f"traceview: {exc} Nothing was written.", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a read-only or full folder: the check's answers are not kept
        print(f"traceview: cannot write {sidecar}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    return None
