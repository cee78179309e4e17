"""Captures shipped inside the package, so an installed traceview (pipx, uv tool, a wheel)
can open one without the source tree: ``traceview sample``.

``regenerate.py`` in the source tree writes these beside ``sample_traces/`` and its
``--check`` fails when the two differ.
"""

BUNDLED = {
    "claims": ("claims.jsonl", "claims.snapshot.json"),
}
