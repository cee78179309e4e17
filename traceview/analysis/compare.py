"""The hosted-vs-owned comparison: two arms' turns in, one document out (pure).

An *arm* is a list of :class:`ArmTurn` (built from analysed captures by
``compare_arms``). :func:`compare` returns the ``traceview.compare/1`` document that
the text/markdown/JSON outputs and the compare screen all render:

* **sample** — conversations, turns, runs, the time window and hours of day, models
  (a mismatch between arms, or an alias, is a warning at the top);
* **latency at the caller** — p50/p95 over turns, split into turns with and without
  hosted calls, each with its n; the difference of medians (B − A) with a seeded
  percentile-bootstrap interval; the claim names a direction only when the interval
  excludes 0;
* **tokens** — input (total, per conversation), cached share, fresh-token equivalents
  (cached weighted by its price ratio to fresh input), output, hosted calls;
* **cost** — per conversation and total, and the change B − A decomposed into fresh
  input, cached input, output and each hosted fee. Components are computed with exact
  fractions, so they sum to the net difference exactly; for display they are rounded
  to micro-dollars by largest remainders, so the rounded parts sum to the rounded net.
"""

from __future__ import annotations

import random
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from traceview.analysis.pricing import Pricing
from traceview.analysis.stats import percentiles

SCHEMA = "traceview.compare/1"
MICRO = 1_000_000
TOKEN_PARTS = ("fresh_input", "cached_input", "output")
BINS = 24
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def is_pinned(model: str) -> bool:
    """True for a dated snapshot name such as ``gpt-4.1-2025-04-14`` (not an alias)."""
    return bool(_SNAPSHOT.search(model))


@dataclass(frozen=True)
class ArmTurn:
    conversation: str  # one played conversation (an ab run's conversation#run)
    latency_ms: float | None
    input_tokens: int | None
    cached_tokens: int | None
    output_tokens: int | None
    hosted: tuple[tuple[str, int], ...] = ()  # (call type, count)
    model: str | None = None
    ts: float | None = None
    state_ms: float | None = None
    status: str = "completed"
    ttft_ms: float | None = None  # time to first token (streams with arrival times)

    @property
    def hosted_count(self) -> int:
        return sum(n for _, n in self.hosted)


@dataclass
class Arm:
    name: str  # A | B
    label: str  # where it came from
    turns: list[ArmTurn]
    runs: int | None = None  # runs per conversation (an ab folder knows)
    source_conversations: int | None = None
    fidelity: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    problems: int = 0  # problems met reading the arm's capture (a damaged or hostile file)


def _f(x: Fraction) -> float:
    return round(float(x), 6)


def turn_components(t: ArmTurn, pricing: Pricing) -> dict[str, Fraction] | None:
    """A turn's cost by component, exactly; None when it cannot be priced."""
    prices = pricing.model_prices(t.model)
    if prices is None or t.input_tokens is None or t.output_tokens is None:
        return None
    try:
        p_in = Fraction(str(prices["input"]))
        p_cached = Fraction(str(prices.get("cached_input", prices["input"])))
        p_out = Fraction(str(prices["output"]))
    except (KeyError, ValueError, TypeError):
        return None
    cached = t.cached_tokens or 0
    parts = {
        "fresh_input": max(t.input_tokens - cached, 0) * p_in / MICRO,
        "cached_input": cached * p_cached / MICRO,
        "output": t.output_tokens * p_out / MICRO,
    }
    for kind, n in t.hosted:
        fee = pricing.hosted.get(kind)
        if not isinstance(fee, dict) or n <= 0:
            continue
        if "per_container" in fee:
            amount = Fraction(str(fee["per_container"]))
        elif "per_call" in fee:
            amount = Fraction(str(fee["per_call"])) * n
        else:
            continue
        parts[f"fee:{kind}"] = parts.get(f"fee:{kind}", Fraction(0)) + amount
    return parts


def arm_costs(arm: Arm, pricing: Pricing) -> tuple[dict[str, Fraction], int]:
    """Σ of each component over the arm's priced turns, and the count of unpriced turns."""
    total: dict[str, Fraction] = {k: Fraction(0) for k in TOKEN_PARTS}
    unpriced = 0
    for t in arm.turns:
        parts = turn_components(t, pricing)
        if parts is None:
            unpriced += int(t.input_tokens is not None)
            continue
        for k, v in parts.items():
            total[k] = total.get(k, Fraction(0)) + v
    return total, unpriced


def apportion(parts: list[Fraction], unit: int = MICRO) -> tuple[list[int], int]:
    """Round ``parts`` to 1/unit so the rounded parts sum to the rounded total."""
    total = round(sum(parts, Fraction(0)) * unit)
    floors = [(p * unit).__floor__() for p in parts]
    short = total - sum(floors)
    order = sorted(range(len(parts)), key=lambda i: (-(parts[i] * unit - floors[i]), i))
    for i in order[:short]:
        floors[i] += 1
    return floors, total


def bootstrap_median_diff(a: list[float], b: list[float], *, seed: int = 0,
                          resamples: int = 2000, level: float = 0.95
                          ) -> dict[str, Any]:
    """median(b) − median(a) with a percentile-bootstrap interval (seeded, reproducible)."""
    if not a or not b:
        return {"ms": None, "low": None, "high": None, "level": level,
                "resamples": resamples, "seed": seed}
    rng = random.Random(seed)
    med = statistics.median
    diffs = sorted(med(rng.choices(b, k=len(b))) - med(rng.choices(a, k=len(a)))
                   for _ in range(resamples))
    lo = diffs[int((1 - level) / 2 * (resamples - 1))]
    hi = diffs[int((1 + level) / 2 * (resamples - 1))]
    return {"ms": round(med(b) - med(a), 1), "low": round(lo, 1), "high": round(hi, 1),
            "level": level, "resamples": resamples, "seed": seed}


def claim(diff: dict[str, Any]) -> str:
    if diff["ms"] is None:
        return "no latency in one of the arms: nothing to compare"
    pct = f"{round(diff['level'] * 100)}%"
    span = f"{diff['low']:+,.0f} to {diff['high']:+,.0f} ms"
    if diff["low"] > 0:
        return f"B's median latency is higher than A's by {diff['ms']:,.0f} ms ({pct} interval " \
               f"{span})"
    if diff["high"] < 0:
        return f"B's median latency is lower than A's by {-diff['ms']:,.0f} ms ({pct} interval " \
               f"{span})"
    return f"no direction: the {pct} interval of B − A, {span}, includes 0"


def _by_hosted(values: list[tuple[float, int]]) -> dict[str, Any]:
    """p50/p95 and n of (value, hosted calls) pairs: all, with hosted calls, without."""
    def block(vs: list[float]) -> dict[str, Any]:
        return {**percentiles(vs), "n": len(vs)}  # type: ignore[arg-type]

    return {"all": block([v for v, _ in values]),
            "with_hosted": block([v for v, hosted in values if hosted]),
            "without": block([v for v, hosted in values if not hosted])}


def _latency(turns: list[ArmTurn]) -> dict[str, Any]:
    timed = [t for t in turns if t.latency_ms is not None]
    state = [t.state_ms for t in timed if t.state_ms is not None]
    return {**_by_hosted([(t.latency_ms, t.hosted_count) for t in timed]),  # type: ignore[misc]
            "state_ms": {**percentiles(state), "n": len(state)}}  # type: ignore[arg-type]


def _ttft(turns: list[ArmTurn]) -> dict[str, Any]:
    """Time to first token, p50/p95, all turns and split by hosted calls (null without
    recorded stream arrival times)."""
    return _by_hosted([(t.ttft_ms, t.hosted_count) for t in turns
                       if t.ttft_ms is not None])


def _sample(arm: Arm) -> dict[str, Any]:
    stamps = [t.ts for t in arm.turns if t.ts is not None]
    models = sorted({t.model for t in arm.turns if t.model})
    import time as _time

    hours = sorted({_time.gmtime(s).tm_hour for s in stamps})

    def iso(s: float) -> str:
        return _time.strftime("%Y-%m-%dT%H:%M:%SZ", _time.gmtime(s))

    return {
        "conversations": len({t.conversation for t in arm.turns}),
        "source_conversations": arm.source_conversations,
        "turns": len(arm.turns),
        "runs_per_conversation": arm.runs,
        "first_ts": iso(min(stamps)) if stamps else None,
        "last_ts": iso(max(stamps)) if stamps else None,
        "hours_utc": hours,
        "models": models,
    }


def _tokens(arm: Arm, pricing: Pricing, conversations: int) -> dict[str, Any]:
    used = [t for t in arm.turns if t.input_tokens is not None]
    inp = sum(t.input_tokens or 0 for t in used)
    cached = sum(t.cached_tokens or 0 for t in used)
    out = sum(t.output_tokens or 0 for t in used)
    hosted = sum(t.hosted_count for t in arm.turns)
    equiv: Fraction | None = Fraction(0)
    for t in used:
        prices = pricing.model_prices(t.model)
        if prices is None or not prices.get("input"):
            equiv = None
            break
        try:  # a price that is not a number is unknown here, as in turn_components
            ratio = Fraction(str(prices.get("cached_input", prices["input"]))) / Fraction(
                str(prices["input"]))
        except (ValueError, TypeError, ZeroDivisionError):
            equiv = None
            break
        assert equiv is not None  # set to None only on the way out of the loop
        equiv += (t.input_tokens or 0) - (t.cached_tokens or 0) + (t.cached_tokens or 0) * ratio
    per = (lambda v: round(v / conversations, 1)) if conversations else (lambda v: None)
    return {
        "input": inp, "input_per_conversation": per(inp), "cached": cached,
        "cached_share": round(cached / inp, 4) if inp else None,
        "fresh_equivalent": None if equiv is None else round(float(equiv), 1),
        "output": out, "output_per_conversation": per(out),
        "hosted_calls": hosted, "hosted_calls_per_conversation": per(hosted),
    }


def _histogram(a: list[ArmTurn], b: list[ArmTurn]) -> dict[str, Any]:
    values = [t.latency_ms for t in a + b if t.latency_ms is not None]
    if not values:
        return {"edges_ms": [], "A": {}, "B": {}}
    width = max(max(values), 1.0) / BINS
    edges = [round(i * width, 1) for i in range(BINS + 1)]  # 0 … the slowest turn

    def counts(turns: list[ArmTurn], hosted: bool) -> list[int]:
        c = [0] * BINS
        for t in turns:
            if t.latency_ms is not None and bool(t.hosted_count) == hosted:
                c[min(int(t.latency_ms / width), BINS - 1)] += 1
        return c

    return {"edges_ms": edges,
            "A": {"with_hosted": counts(a, True), "without": counts(a, False)},
            "B": {"with_hosted": counts(b, True), "without": counts(b, False)}}


def compare(a: Arm, b: Arm, pricing: Pricing | None = None, *, seed: int = 0,
            resamples: int = 2000, latency: str = "measured") -> dict[str, Any]:
    """The comparison document (``traceview.compare/1``)."""
    pricing = pricing or Pricing.load()
    arms: dict[str, Any] = {}
    costs: dict[str, dict[str, Fraction]] = {}
    for arm in (a, b):
        sample = _sample(arm)
        n = sample["conversations"]
        parts, unpriced = arm_costs(arm, pricing)
        costs[arm.name] = parts
        total = sum(parts.values(), Fraction(0))
        arms[arm.name] = {
            "label": arm.label, "sample": sample, "latency_ms": _latency(arm.turns),
            "tokens": _tokens(arm, pricing, n),
            "cost": {"total_usd": _f(total),
                     "per_conversation_usd": _f(total / n) if n else None,
                     "components_usd": {k: _f(v) for k, v in parts.items()},
                     "unpriced_turns": unpriced},
            "fidelity": arm.fidelity or {"status": "not measured"},
            "notes": list(arm.notes),
            "problems": arm.problems,
            "ttft_ms": _ttft(arm.turns),
        }
    keys = list(TOKEN_PARTS) + sorted({k for c in costs.values() for k in c} - set(TOKEN_PARTS))
    deltas = [costs[b.name].get(k, Fraction(0)) - costs[a.name].get(k, Fraction(0))
              for k in keys]
    net = sum(costs[b.name].values(), Fraction(0)) - sum(costs[a.name].values(), Fraction(0))
    micros, net_micro = apportion(deltas)
    total_a = sum(costs[a.name].values(), Fraction(0))
    steps, level = [], total_a
    for k, d, m in zip(keys, deltas, micros, strict=True):
        steps.append({"component": k, "usd": m / MICRO, "micro_usd": m,
                      "exact_usd": float(d), "start_usd": _f(level), "end_usd": _f(level + d),
                      "sign": "increase" if d > 0 else "reduction" if d < 0 else "none"})
        level += d
    lat = bootstrap_median_diff(
        [t.latency_ms for t in a.turns if t.latency_ms is not None],
        [t.latency_ms for t in b.turns if t.latency_ms is not None],
        seed=seed, resamples=resamples)
    n_a, n_b = arms[a.name]["sample"]["conversations"], arms[b.name]["sample"]["conversations"]
    per_conv = (_f(sum(costs[b.name].values(), Fraction(0)) / n_b - total_a / n_a)
                if n_a and n_b else None)
    return {
        "schema": SCHEMA,
        "latency_source": latency,
        "warnings": warnings(a, b, arms),
        "arms": arms,
        "difference": {
            "latency_median_ms": {**lat, "claim": claim(lat)},
            "input_tokens": arms[b.name]["tokens"]["input"] - arms[a.name]["tokens"]["input"],
            "output_tokens": arms[b.name]["tokens"]["output"] - arms[a.name]["tokens"]["output"],
            "cost": {"net_usd": net_micro / MICRO, "net_micro_usd": net_micro,
                     "net_exact_usd": float(net), "per_conversation_usd": per_conv,
                     "decomposition": steps,
                     "sums_to_net": sum(micros) == net_micro
                     and sum(deltas, Fraction(0)) == net},
        },
        "histogram": _histogram(a.turns, b.turns),
    }


def warnings(a: Arm, b: Arm, arms: dict[str, Any]) -> list[str]:
    out: list[str] = []
    ma, mb = arms[a.name]["sample"]["models"], arms[b.name]["sample"]["models"]
    if ma != mb:
        out.append(f"models differ: arm {a.name} recorded {', '.join(ma) or 'none'}, "
                   f"arm {b.name} recorded {', '.join(mb) or 'none'}")
    for arm, models in ((a, ma), (b, mb)):
        aliases = [m for m in models if not is_pinned(m)]
        if aliases:
            out.append(f"arm {arm.name} used an alias, not a pinned snapshot: "
                       f"{', '.join(aliases)}")
        unpriced = arms[arm.name]["cost"]["unpriced_turns"]
        if unpriced:
            out.append(f"arm {arm.name}: {unpriced} turn(s) could not be priced (model not in "
                       "the price table); costs leave them out")
        out.extend(f"arm {arm.name}: {n}" for n in arm.notes)
    failed = Counter(t.status for t in a.turns + b.turns if t.status != "completed")
    if failed:
        out.append("turns not completed: " + ", ".join(f"{k} {v}" for k, v in failed.items()))
    return out
