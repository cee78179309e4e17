"""Numeric and URL flags checked by argparse: a value out of range is a usage
error (exit 2, nothing run) naming the flag, never a threshold or a count that silently
means something else (`--deposit-ratio -5` marked every rise a deposit)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def integer(low: int, high: int | None = None) -> Callable[[str], int]:
    """An int in [low, high]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if value < low or (high is not None and value > high):
            span = f"at least {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(f"must be {span}, not {value}")
        return value

    return parse


def number(low: float, *, above: bool = False) -> Callable[[str], float]:
    """A finite float ≥ low (> low with ``above``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid float value: {text!r}") from None
        if not math.isfinite(value) or value < low or (above and value == low):
            raise argparse.ArgumentTypeError(
                f"must be a number {'above' if above else 'at least'} {low:g}, not {text}")
        return value

    return parse


COUNT = integer(0)  # retries, token thresholds
POSITIVE = integer(1)  # turns, pages, samples, runs, jobs
PORT = integer(0, 65535)
# Conversations a month (`--per-month`): past a trillion the amounts are float noise.
MONTHLY = integer(1, 10**12)
SECONDS = number(0, above=True)


def base_url(text: str) -> str:
    """An http(s) URL with a host (`--base-url`): a malformed one is refused before any
    request, not retried as if the network had failed (provider/urls.py: the one check,
    also of `$OPENAI_BASE_URL` when a client is made)."""
    from traceview.provider.urls import base_url_fault

    fault = base_url_fault(text)
    if fault:
        raise argparse.ArgumentTypeError(fault)
    return text
