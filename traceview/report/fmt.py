"""Number formatting shared by every renderer, so the same number reads the same everywhere."""

from __future__ import annotations

import humanize


def num(v: int | float | None) -> str:
    return "—" if v is None else f"{v:,}"


def signed(v: int | None) -> str:
    return "—" if v is None else f"{v:+,}"


def size(v: int | None) -> str:
    if v is None:
        return "—"
    if v < 1000:
        return f"{v} B"
    return humanize.naturalsize(v, format="%.1f")


def usd(v: float | None) -> str:
    """Four decimals under a dollar (token prices are that small), cents above."""
    if v is None:
        return "—"
    if 0 < v < 0.00005:
        return "<$0.0001"
    return f"${v:.4f}" if v < 1 else f"${v:,.2f}"


def hosted_cell(calls: list[dict]) -> str:
    """Hosted calls with their evidence, readable without colour: ✓ captured, ∅ empty, ✗ missing."""
    sym = {"captured": "✓", "empty": "∅", "missing": "✗"}
    return " ".join(f"{c['type'].removesuffix('_call')} {sym.get(c['evidence'], '?')}"
                    for c in calls) or "—"
