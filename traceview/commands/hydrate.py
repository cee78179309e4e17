"""``traceview hydrate IDS_OR_FILE... -o CAPTURE``: a capture rebuilt from response ids.

Exit 0 every response rebuilt; 1 some missing or incomplete; 2 nothing rebuilt, or unusable
arguments. Every message is masked and made visible: ids, URLs and provider replies are
untrusted.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from traceview.commands.numbers import base_url
from traceview.commands.outputs import PathRefused, refuse_output, regular_input, replacing
from traceview.commands.provider_flags import (
    add_connection_arguments,
    add_limit_arguments,
    provider_config,
)
from traceview.provider.client import make_client
from traceview.provider.errors import ProviderError
from traceview.provider.hydrate import RESPONSE_ID, IdsError, hydrate, response_ids
from traceview.wire import HOSTED_EVIDENCE_INCLUDE


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("sources", nargs="+", metavar="IDS_OR_FILE",
                   help="response ids (resp_…), or files holding them (a trace export, logs; "
                        "- for stdin)")
    p.add_argument("-o", "--output", required=True, metavar="CAPTURE",
                   help="capture file to write (marked as rebuilt from the provider)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing file (never an ids file read)")
    g = p.add_argument_group("provider")
    add_connection_arguments(g, checked=False)
    add_limit_arguments(g, checked=False)
    g.add_argument("--max-pages", type=int, default=1000, metavar="N",
                   help="stop an input_items listing after N pages (default 1000)")
    g.add_argument("--include", action="append", metavar="FLAG",
                   help="include flag to retrieve with (repeatable; default: "
                        + ", ".join(HOSTED_EVIDENCE_INCLUDE) + ")")


def say(text: str) -> None:
    from traceview.safety.redact import redact_text
    from traceview.safety.sanitise import visible

    print(visible(redact_text(text), multiline=True), file=sys.stderr)


def _client(ns: argparse.Namespace) -> Any:
    """The SDK client the flags describe, or None (said why)."""
    try:
        return make_client(provider_config(ns), offline=None)
    except ProviderError as err:
        say(f"traceview hydrate: {err}")
    except Exception as exc:  # noqa: BLE001 - the SDK/httpx refuse a URL with their own types
        say(f"traceview hydrate: --base-url {ns.base_url or '$OPENAI_BASE_URL'}: not a usable "
            f"URL ({type(exc).__name__}: {exc})")
    return None


def _advice(err: ProviderError, host: str) -> str:
    """The provider's error in hydrate's terms: a missing response cannot be rebuilt from
    a snapshot (the advice `diff` gives), only found again or recorded next time."""
    if err.kind != "not_found":
        return str(err)
    return (f"not found at {host} (HTTP 404): it was deleted, its retention ended (stored "
            "responses are kept 30 days), it was made with store: false, or it belongs to "
            "another project (check --api-key-env and --base-url). It cannot be rebuilt; "
            "record the next run with `traceview proxy` or traceview.record")


def run(ns: argparse.Namespace) -> int:
    from traceview.record.writer import CaptureWriter

    if not ns.timeout > 0 or ns.max_pages < 1 or ns.max_retries < 0:
        say("traceview hydrate: --timeout must be above 0, --max-pages at least 1 and "
            "--max-retries at least 0")
        return 2
    try:
        if ns.base_url is not None:
            base_url(ns.base_url)
    except argparse.ArgumentTypeError as exc:
        say(f"traceview hydrate: --base-url: {exc}; nothing fetched")
        return 2
    malformed = [s for s in ns.sources
                 if s != "-" and not os.path.exists(s) and not RESPONSE_ID.fullmatch(s)]
    if malformed:
        say(f"traceview hydrate: {malformed[0]}: neither a response id nor a file. A response "
            "id is resp_ followed by at least 8 letters or digits (copy it whole from the "
            "log or the response's `id`); nothing fetched")
        return 2
    try:
        refuse_output(ns.output, [s for s in ns.sources if os.path.exists(s)], force=ns.force)
        for source in ns.sources:
            if os.path.exists(source):
                regular_input(source, "ids file")
        ids = response_ids(ns.sources)
    except (IdsError, PathRefused) as exc:
        say(f"traceview hydrate: {exc}")
        return 2
    if not ids:
        say("traceview hydrate: no response ids (resp_…) in " + " ".join(ns.sources))
        return 2
    client = _client(ns)
    if client is None:
        return 2
    try:
        with replacing(ns.output) as tmp:
            with CaptureWriter(str(tmp)) as writer:
                result = hydrate(client, ids, writer, include=ns.include,
                                 config=provider_config(ns), max_pages=ns.max_pages)
            if not result.written:  # nothing rebuilt: nothing written (no empty capture)
                tmp.unlink(missing_ok=True)
    except OSError as exc:
        say(f"traceview hydrate: -o {ns.output}: cannot write ({exc.strerror or exc})")
        return 2
    for rid, err in result.failed:
        say(f"traceview hydrate: {rid}: {_advice(err, provider_config(ns).host)}")
    if result.stopped:
        say(f"traceview hydrate: stopped after the key was refused; {len(result.stopped)} "
            "more id(s) not tried")
    for rid in result.partial:
        say(f"traceview hydrate: {rid}: input items incomplete (listing stopped early)")
    if not result.written:
        say(f"traceview hydrate: 0 of {len(ids)} responses rebuilt; nothing written")
        return 2
    say(f"traceview hydrate: {len(result.written)} of {len(ids)} responses rebuilt into "
        f"{ns.output} (from the provider, not a wire capture)")
    return 0 if not result.failed and not result.partial and not result.stopped else 1
