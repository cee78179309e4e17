"""The text and markdown reports' account of a provider copy (`report --items/--live`):
which hosted turns' carried line it counted, from where, and which it could not — the
JSON report's top-level `provider_copy`, in words (one source for both formats)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from traceview.report.fmt import num


def _origin(copy: dict[str, Any]) -> str:
    where = copy["path"] if copy["source"] == "items" else f"read live from {copy['host'] or '?'}"
    when = f", taken {copy['fetched_at']}" if copy["fetched_at"] else ""
    return f"{where}{when}"


def _counted(f: dict[str, Any]) -> str:
    mark = {"known": "", "estimated": "≈ ", "unknown": "? "}[f["basis"]]
    diff = ("the capture alone could not size it" if f["by_difference"] is None
            else f"by difference: {num(f['by_difference'])}")
    items = f"{f['items']} item{'' if f['items'] == 1 else 's'}"
    return (f"{mark}{num(f['tokens']) if f['tokens'] is not None else '?'} tokens from"
            f" {items} ({f['listing']}; {diff})")


def copy_text(copy: dict[str, Any] | None) -> list[str]:
    """The text report's lines: a heading, one line per turn filled or left unknown."""
    if copy is None:
        return []
    n = len(copy["turns_filled"])
    out = ["", f"carried context from the provider copy ({_origin(copy)}): {n} hosted"
           f" turn{'' if n == 1 else 's'} counted item by item, {len(copy['missing'])} not"]
    out += [f"  turn {f['turn']}: {_counted(f)}" for f in copy["turns"]]
    out += [f"  turn {m['turn']}: unknown — {m['reason']}" for m in copy["missing"]]
    out.append("  expected input, unexplained tokens and markers are the capture's own "
               "(the copy sizes the account's carried line only)")
    return out


def copy_markdown(copy: dict[str, Any] | None, cell: Callable[[str], str]) -> list[str]:
    """The markdown report's section: the same, as a table."""
    if copy is None:
        return []
    out = ["", "## Carried context from the provider copy", "",
           cell(f"From {_origin(copy)}. Expected input, unexplained tokens and markers are the"
                " capture's own: the copy sizes each hosted turn's carried line only."), "",
           "| turn | carried tokens | items | listing | basis | by difference |",
           "|---:|---:|---:|---|---|---:|"]
    out += [f"| {f['turn']} | {num(f['tokens'])} | {f['items']} | {f['listing']} "
            f"| {f['basis']} | {num(f['by_difference'])} |" for f in copy["turns"]]
    out += [f"| {m['turn']} | ? | | | unknown: {cell(m['reason'])} | |" for m in copy["missing"]]
    return out
