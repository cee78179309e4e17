"""Say what an unimportable JSON file looks like, in one sentence a person can act on."""

from __future__ import annotations

from typing import Any

# (keys that give a tool away, its name): first match wins.
_TOOLS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"observations"}), "a Langfuse export"),
    (frozenset({"projectId", "traceId"}), "a Langfuse export"),
    (frozenset({"run_type", "trace_id"}), "a LangSmith run export"),
    (frozenset({"child_runs"}), "a LangSmith run export"),
    (frozenset({"run_type"}), "a LangSmith run export"),
    (frozenset({"spans", "trace_id"}), "an OpenAI Agents SDK trace export (its spans carry "
     "response ids: rebuild a capture with `traceview hydrate FILE -o capture.jsonl`)"),
    (frozenset({"span_data"}), "an OpenAI Agents SDK trace export (rebuild a capture from its "
     "response ids with `traceview hydrate FILE -o capture.jsonl`)"),
    (frozenset({"resource_spans"}), "an OpenTelemetry export in protobuf-JSON snake_case, "
     "which is not supported (export OTLP JSON: resourceSpans)"),
    (frozenset({"schema", "turns", "totals"}), "a traceview report, not a capture"),
    (frozenset({"schema", "items"}), "a traceview snapshot (a provider copy): open the capture "
     "with `--items` pointing at it"),
    (frozenset({"object", "data", "has_more"}), "a provider listing page (object: list)"),
)


def _keys(obj: Any) -> frozenset[str]:
    return frozenset(obj) if isinstance(obj, dict) else frozenset()


def looks_like(doc: Any) -> str:
    """'this looks like a Langfuse export, which is not supported', or the file's shape."""
    sample = doc[0] if isinstance(doc, list) and doc else doc
    keys = _keys(sample) | (_keys(doc) if isinstance(doc, dict) else frozenset())
    if isinstance(doc, dict):
        for key in ("data", "traces", "runs", "items"):
            inner = doc.get(key)
            if isinstance(inner, list) and inner and isinstance(inner[0], dict):
                keys |= _keys(inner[0])
    for needed, name in _TOOLS:
        if needed <= keys:
            supported = "" if "traceview" in name or "hydrate" in name else \
                ", which is not supported"
            return f"this looks like {name}{supported}; nothing read"
    if isinstance(doc, list):
        return (f"this is a JSON array of {len(doc):,} "
                + (f"objects (keys: {', '.join(sorted(_keys(sample))[:6])})" if keys else
                   "values") + ", not a capture; nothing read (traceview reads JSONL records, "
                "HAR, OpenAI Batch and OTLP JSON files)")
    shown = ", ".join(sorted(keys)[:6]) or "none"
    return ("this is a JSON document (keys: " + shown + "), not a capture; nothing read "
            "(traceview reads JSONL records, HAR, OpenAI Batch and OTLP JSON files)")
