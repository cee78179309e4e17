"""A conversation's growth: cumulative billed input, the owned-state equivalent at its
last turn, and a labelled projection of the next turns' input.

The projection is a straight line fitted to billed input since the last compaction (a
compaction resets what the provider bills), extended over the next few turns. It is a
projection, never a measurement, and its label says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import fsum
from typing import Any, NamedTuple

PROJECTION = ("projection: a straight line fitted (least squares) to billed input per turn "
              "since the last compaction, extended over the next turns; not a measurement")
PROJECT_TURNS = 3


class Fit(NamedTuple):
    """The fitted line, and what the projection runs on from."""

    slope: float
    intercept: float
    fitted: int  # turns the line was fitted to
    last: int  # the conversation's turns: the projection starts after them
    running: int  # cumulative input at the last turn


class Growth(NamedTuple):
    """What a conversation's growth dict is made from (the dict is made when written)."""

    cumulative: int | None
    last_owned: int | None
    fit: Fit | None


def growth_of(inputs: Sequence[int | None], ends: Sequence[str | None],
              last_owned: int | None) -> Growth:
    """Sum billed input and fit a line to it since the last compaction: `ends[j]` is the
    marker that ends carried context on turn j (a compaction), or None."""
    cumulative = 0
    fit_x: list[int] = []
    fit_y: list[int] = []
    for n, (inp, end) in enumerate(zip(inputs, ends, strict=True), 1):
        if end is not None:
            fit_x, fit_y = [], []
        if inp is not None:
            cumulative += inp
            fit_x.append(n)
            fit_y.append(inp)
    fit = None
    if len(fit_x) >= 2:
        slope, intercept = line(fit_x, fit_y)
        fit = Fit(slope, intercept, len(fit_x), len(inputs), cumulative)
    return Growth(cumulative if fit_x or cumulative else None, last_owned, fit)


def line(x: list[int], y: list[int]) -> tuple[float, float]:
    """(slope, intercept) of the least-squares line through (x, y), with the sums of
    `statistics.linear_regression` in its order (so the same floats). `x` holds at least
    two distinct values."""
    n = len(x)
    xbar = fsum(x) / n
    ybar = fsum(y) / n
    sxy = fsum([(xi - xbar) * (yi - ybar) for xi, yi in zip(x, y, strict=True)])
    sxx = fsum([(xi - xbar) * (xi - xbar) for xi in x])
    slope = sxy / sxx
    return slope, ybar - slope * xbar


def growth_dict(g: Growth, project: int = PROJECT_TURNS) -> dict[str, Any]:
    """The report's growth dict, with the next `project` turns projected."""
    projection: dict[str, Any] | None = None
    if g.fit is not None:
        slope, intercept, fitted, last, running = g.fit
        nxt = []
        for k in range(1, project + 1):
            value = max(0, round(intercept + slope * (last + k)))
            running += value
            nxt.append({"turn_offset": k, "input_tokens": value,
                        "cumulative_input_tokens": running})
        projection = {"label": PROJECTION, "tokens_per_turn_growth": round(slope, 1),
                      "fitted_turns": fitted, "next": nxt}
    return {"cumulative_input_tokens": g.cumulative, "owned_state_bytes": g.last_owned,
            "projection": projection}
