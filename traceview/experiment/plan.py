"""The experiment's plan: which conversations, in what order, on which model.

* **Stratified sample.** The sample keeps the source's distribution of turn counts
  (not the interesting conversations): each turn count gets a share of the sample in
  proportion to its share of the source (largest remainders, ties to the more common
  count), and conversations are drawn within it with the seed.
* **Interleaved order.** Each run visits the sampled conversations in a seeded shuffled
  order and plays every one on arm A and then on arm B (A1 B1 A2 B2 …), so a slow
  stretch on the provider's side lands on both arms, not on one.
* **Pinned model.** An alias (``gpt-4.1``) can move to a new snapshot mid-experiment;
  only a dated snapshot (``gpt-4.1-2025-04-14``) is accepted unless ``allow_alias``.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from traceview.analysis.compare import is_pinned
from traceview.analysis.pricing import Pricing
from traceview.experiment.source import SourceConversation

ARMS = ("A", "B")


def model_problem(model: str, allow_alias: bool) -> str | None:
    """Why ``model`` cannot be used for the experiment, or None."""
    if not model.strip():
        return "--model is empty"
    if is_pinned(model) or allow_alias:
        return None
    return (f"--model {model!r} is an alias: the provider may move it to a new snapshot "
            "between runs. Pass a dated snapshot (e.g. gpt-4.1-2025-04-14) or --allow-alias.")


def allocate(counts: Counter[int], n: int) -> dict[int, int]:
    """Seats per stratum for a sample of ``n``, proportional to ``counts``."""
    total = sum(counts.values())
    n = min(n, total)
    if total == 0 or n <= 0:
        return {k: 0 for k in counts}
    quotas = {k: Fraction(c * n, total) for k, c in counts.items()}
    seats = {k: min(int(q), counts[k]) for k, q in quotas.items()}
    order = sorted(counts, key=lambda k: (-(quotas[k] - int(quotas[k])), -counts[k], k))
    left = n - sum(seats.values())
    while left > 0:
        for k in order:
            if left and seats[k] < counts[k]:
                seats[k] += 1
                left -= 1
    return seats


def stratified_sample(conversations: list[SourceConversation], n: int,
                      seed: int) -> list[SourceConversation]:
    """``n`` conversations whose turn counts follow the source's distribution."""
    rng = random.Random(seed)
    strata: dict[int, list[SourceConversation]] = {}
    for c in conversations:
        strata.setdefault(c.turns, []).append(c)
    seats = allocate(Counter({k: len(v) for k, v in strata.items()}), n)
    picked: list[SourceConversation] = []
    for k in sorted(strata):
        picked.extend(rng.sample(strata[k], seats[k]))
    index = {c.key: i for i, c in enumerate(conversations)}
    return sorted(picked, key=lambda c: index[c.key])


@dataclass(frozen=True)
class Unit:
    """One conversation played once on one arm: the unit of progress and of resume."""

    arm: str
    conversation: str
    run: int

    @property
    def tag(self) -> str:
        return f"{self.arm}:{self.conversation}:{self.run}"


def run_order(conversation_keys: list[str], runs: int, seed: int) -> list[Unit]:
    """A1 B1 A2 B2 … for every run, conversations shuffled afresh (seeded) each run."""
    rng = random.Random(f"order:{seed}")
    units: list[Unit] = []
    for run in range(1, runs + 1):
        order = list(conversation_keys)
        rng.shuffle(order)
        for key in order:
            units.extend(Unit(arm, key, run) for arm in ARMS)
    return units


def estimate_usd(sample: list[SourceConversation], runs: int, model: str,
                 pricing: Pricing) -> float | None:
    """Both arms' cost if each replays what the source was billed (hosted fees aside)."""
    prices = pricing.model_prices(model)
    if prices is None:
        return None
    one = sum(
        (c.input_tokens - c.cached_tokens) * prices["input"]
        + c.cached_tokens * prices.get("cached_input", prices["input"])
        + c.output_tokens * prices["output"]
        for c in sample
    ) / 1_000_000
    return round(2 * runs * one, 6)
