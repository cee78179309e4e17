"""How to reach the provider, as flags named after the SDK's own settings (fetch, diff,
fidelity, hydrate)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from traceview.commands.numbers import COUNT, POSITIVE, SECONDS, base_url
from traceview.provider.limits import DEFAULT_MAX_PAGES, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT
from traceview.wire import HOSTED_EVIDENCE_INCLUDE

if TYPE_CHECKING:  # the SDK is loaded only when a command reads the provider
    from traceview.provider.client import ProviderConfig
    from traceview.provider.diffing import FetchSettings


def add_connection_arguments(g: argparse._ArgumentGroup, *, checked: bool = True) -> None:
    """``checked=False``: the command checks --base-url itself (hydrate says it in one line)."""
    g.add_argument("--base-url", metavar="URL", type=base_url if checked else str,
                   help="provider base URL (default: $OPENAI_BASE_URL, else api.openai.com)")
    g.add_argument("--api-key-env", metavar="NAME", default="OPENAI_API_KEY",
                   help="environment variable that holds the API key (default: OPENAI_API_KEY)")


def add_limit_arguments(g: argparse._ArgumentGroup, *, checked: bool = True) -> None:
    """``--timeout`` and ``--max-retries`` of every command that reads the provider;
    ``checked=False``: the command checks their range itself (hydrate says it in one line)."""
    g.add_argument("--timeout", type=SECONDS if checked else float, default=DEFAULT_TIMEOUT,
                   metavar="SECONDS", help=f"per-request timeout (default {DEFAULT_TIMEOUT:g})")
    g.add_argument("--max-retries", type=COUNT if checked else int,
                   default=DEFAULT_MAX_RETRIES, metavar="N",
                   help=f"retries on timeouts, 429 and 5xx (default {DEFAULT_MAX_RETRIES})")


def add_provider_arguments(p: argparse.ArgumentParser, *, conversation: bool = True) -> None:
    """The ``provider`` group of fetch, diff, fidelity and context (which names a turn, not
    a conversation: ``conversation=False``)."""
    g = p.add_argument_group("provider")
    if conversation:
        g.add_argument("--conversation", metavar="ID",
                       help="conversation (conv_…) or chain response id (resp_…) to use; "
                            "needed when the capture holds several")
    add_connection_arguments(g)
    add_limit_arguments(g)
    g.add_argument("--max-pages", type=POSITIVE, default=DEFAULT_MAX_PAGES, metavar="N",
                   help=f"stop a listing that never ends after N pages (default "
                        f"{DEFAULT_MAX_PAGES})")
    g.add_argument("--include", action="append", metavar="FLAG",
                   help="include flag to list with (repeatable; default: "
                        + ", ".join(HOSTED_EVIDENCE_INCLUDE) + ")")


def add_copy_arguments(p: argparse.ArgumentParser) -> None:
    """`--items FILE | --live` of context and report: where the provider copy that sizes a
    hosted turn's carried conversation comes from (then the ``provider`` group)."""
    src = p.add_mutually_exclusive_group()
    src.add_argument("--items", metavar="FILE",
                     help="a snapshot (or a capture) holding the provider's input_items of"
                          " a hosted turn's response, or its conversation: sizes the carried"
                          " conversation item by item")
    src.add_argument("--live", action="store_true",
                     help="read a hosted turn's input_items from the provider now (the provider"
                          " flags below) and size the carried conversation from them")


def provider_config(ns: argparse.Namespace) -> ProviderConfig:
    from traceview.provider.client import ProviderConfig

    return ProviderConfig(base_url=ns.base_url, api_key_env=ns.api_key_env,
                          timeout=ns.timeout, max_retries=ns.max_retries)


def fetch_settings(ns: argparse.Namespace) -> FetchSettings:
    """The settings the provider flags ask for (checked when a fetch is about to start)."""
    from traceview.provider.diffing import FetchSettings

    return FetchSettings(provider_config(ns), ns.include, ns.max_pages)
