"""`traceview compare`: the comparison as text, markdown or JSON (``traceview.compare/1``).

Every number printed here is in the JSON document too; these functions only lay it
out. Labels and model names come from captures and go through ``visible`` and the
redactor like every other output path.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from traceview.safety.redact import redact, redact_text
from traceview.safety.sanitise import json_shown, visible

if TYPE_CHECKING:  # the analysis is loaded when a comparison is built, not to render one
    from traceview.analysis.options import Options

COMPONENT_NAMES = {"fresh_input": "fresh input", "cached_input": "cached input",
                   "output": "output"}


def safe(text: Any) -> str:
    return visible(redact_text(str(text)))


def component_name(key: str) -> str:
    if key.startswith("fee:"):
        return f"{key[4:]} fees"
    return COMPONENT_NAMES.get(key, key)


def _n(v: Any, fmt: str = "{:,}") -> str:
    return "—" if v is None else fmt.format(v)


def _ms(block: dict[str, Any]) -> str:
    if not block.get("n"):
        return "— (n=0)"
    f = "{:,.1f}" if (block.get("p95") or 0) < 10 else "{:,.0f}"
    return f"p50 {_n(block['p50'], f)} · p95 {_n(block['p95'], f)} ms (n={block['n']})"


def _usd(v: Any, sign: bool = False) -> str:
    if v is None:
        return "—"
    return f"{'+' if sign and v > 0 else '-' if v < 0 else ''}${abs(v):,.6f}"


def window(first: str | None, last: str | None) -> str:
    """``2026-11-30 17:59–18:03`` when both ends share a date, else both in full."""
    if not first or not last:
        return "—"
    if first[:10] == last[:10]:
        return f"{first[:10]} {first[11:16]}–{last[11:16]}"
    return f"{first[:16].replace('T', ' ')} → {last[:16].replace('T', ' ')}"


def rows(doc: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(what, A, B, B − A) rows shared by the text and markdown layouts."""
    A, B, D = doc["arms"]["A"], doc["arms"]["B"], doc["difference"]
    out: list[tuple[str, str, str, str]] = []

    def add(label: str, get: Any, diff: str = "") -> None:
        out.append((label, get(A), get(B), diff))

    add("conversations played", lambda a: _n(a["sample"]["conversations"]))
    add("turns", lambda a: _n(a["sample"]["turns"]))
    add("runs per conversation", lambda a: _n(a["sample"]["runs_per_conversation"]))
    add("time window (UTC)", lambda a: window(a["sample"]["first_ts"], a["sample"]["last_ts"]))
    add("hours of day (UTC)", lambda a: ", ".join(map(str, a["sample"]["hours_utc"])) or "—")
    add("models", lambda a: safe(", ".join(a["sample"]["models"]) or "—"))
    lat = D["latency_median_ms"]
    add("latency, all turns", lambda a: _ms(a["latency_ms"]["all"]),
        "—" if lat["ms"] is None else f"median {lat['ms']:+,.0f} ms")
    add("  turns with hosted calls", lambda a: _ms(a["latency_ms"]["with_hosted"]))
    add("  turns without", lambda a: _ms(a["latency_ms"]["without"]))
    add("  of which own state work", lambda a: _ms(a["latency_ms"]["state_ms"]))
    add("time to first token", lambda a: _ms(a["ttft_ms"]["all"]))
    add("  TTFT, turns with hosted calls", lambda a: _ms(a["ttft_ms"]["with_hosted"]))
    add("  TTFT, turns without", lambda a: _ms(a["ttft_ms"]["without"]))
    add("input tokens", lambda a: _n(a["tokens"]["input"]), f"{D['input_tokens']:+,}")
    add("  per conversation", lambda a: _n(a["tokens"]["input_per_conversation"]))
    add("cached share", lambda a: _n(a["tokens"]["cached_share"], "{:.1%}"))
    add("fresh-token equivalents", lambda a: _n(a["tokens"]["fresh_equivalent"], "{:,.0f}"))
    add("output tokens", lambda a: _n(a["tokens"]["output"]), f"{D['output_tokens']:+,}")
    add("hosted calls per conversation",
        lambda a: _n(a["tokens"]["hosted_calls_per_conversation"]))
    add("cost per conversation", lambda a: _usd(a["cost"]["per_conversation_usd"]),
        _usd(D["cost"]["per_conversation_usd"], sign=True))
    add("cost, total", lambda a: _usd(a["cost"]["total_usd"]),
        _usd(D["cost"]["net_usd"], sign=True))
    add("replay fidelity", lambda a: safe(a["fidelity"].get("status", "not measured")))
    return out


def decomposition_lines(doc: dict[str, Any]) -> list[str]:
    c = doc["difference"]["cost"]
    lines = [f"  {component_name(s['component']):<24} {s['usd']:+,.6f}  ({s['sign']})"
             for s in c["decomposition"]]
    lines.append(f"  {'net difference (B − A)':<24} {c['net_usd']:+,.6f}"
                 + ("  = the sum of the lines above" if c["sums_to_net"] else ""))
    return lines


def header_lines(doc: dict[str, Any]) -> list[str]:
    out = [f"traceview compare · A (owned) {safe(doc['arms']['A']['label'])} · "
           f"B (hosted) {safe(doc['arms']['B']['label'])}"]
    if doc["latency_source"] == "simulated":
        out.append("latencies are SIMULATED (the simulator's latency model), not measured")
    out.extend(f"warning: {safe(w)}" for w in doc["warnings"])
    return out


NOT_SETTLED = (
    "Not settled here: the invoice is not the usage fields (credits, tiers, minimums and "
    "rounding are the provider's); the attributed components reconcile to the net figure "
    "computed from usage and the price table, reductions at their own sign."
)


def render_text(doc: dict[str, Any], width: int = 120) -> str:
    table = rows(doc)
    w0 = max(len(r[0]) for r in table)
    w1 = max(len(r[1]) for r in table)
    w2 = max(len(r[2]) for r in table)
    lines = header_lines(doc) + [""]
    lines.append(f"{'':<{w0}}  {'A (owned)':<{w1}}  {'B (hosted)':<{w2}}  B − A")
    lines += [f"{r[0]:<{w0}}  {r[1]:<{w1}}  {r[2]:<{w2}}  {r[3]}".rstrip() for r in table]
    lines += ["", safe(doc["difference"]["latency_median_ms"]["claim"]), "",
              "cost change decomposed (USD, B − A):", *decomposition_lines(doc), "",
              NOT_SETTLED]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(doc: dict[str, Any]) -> str:
    lines = [f"# {_md(header_lines(doc)[0])}", ""]
    lines += [f"> {_md(x)}" for x in header_lines(doc)[1:]]
    lines += ["", "| | A (owned) | B (hosted) | B − A |", "|---|---|---|---|"]
    lines += [f"| {' | '.join(_md(c.strip()) for c in r)} |" for r in rows(doc)]
    lines += ["", f"**Latency:** {_md(safe(doc['difference']['latency_median_ms']['claim']))}",
              "", "## Cost change, decomposed (USD, B − A)", "", "| component | USD | sign |",
              "|---|---:|---|"]
    c = doc["difference"]["cost"]
    lines += [f"| {component_name(s['component'])} | {s['usd']:+.6f} | {s['sign']} |"
              for s in c["decomposition"]]
    lines += [f"| **net** | **{c['net_usd']:+.6f}** | |", "", NOT_SETTLED, ""]
    return "\n".join(lines)


def render_json(doc: dict[str, Any]) -> str:
    # Each value redacted on its own, then through the JSON sanitiser, as the report's JSON:
    # every string decodes to the sanitiser's text (controls, bidi, zero-width as escapes).
    text = json.dumps(redact(doc), indent=1, ensure_ascii=True).encode()
    return json_shown(text).decode() + "\n"


def build(paths: list[str], *, seed: int = 0, resamples: int = 2000,
          pricing_path: str | None = None, options: Options | None = None) -> dict[str, Any]:
    """The comparison of the arms at `paths`, analysed with `options` (the command's: flags
    and config file), else with the defaults and `pricing_path`."""
    from traceview.analysis.compare import compare
    from traceview.analysis.compare_arms import load_arms
    from traceview.analysis.options import Options
    from traceview.analysis.pricing import Pricing

    options = options or Options(pricing_path=pricing_path)
    a, b, meta = load_arms(paths, options)
    return compare(a, b, Pricing.load(options.pricing_path), seed=seed, resamples=resamples,
                   latency=meta["latency"])
