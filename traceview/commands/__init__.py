"""The command layer: one module per CLI command, and the only place argparse is imported.

Each module has ``add_arguments(parser)`` and ``run(namespace) -> exit status``: it turns
flags into plain typed arguments, calls the package that does the work, and says what
happened. ``inspect`` is the inspector's own top-level arguments. The table below is read
by ``cli.py`` to dispatch, so importing it costs nothing.
"""

COMMANDS = {
    "report": "print the analysis of a capture (text, markdown or JSON)",
    "screenshot": "write an SVG/PNG screenshot of an inspector view, headless",
    "fetch": "save the provider's copy of a conversation to a snapshot file",
    "diff": "diff a capture against the provider's copy (live or a snapshot)",
    "reconcile": "compare a capture's cost with the provider's bill (Costs/Usage APIs)",
    "fidelity": "score replay fidelity: can each conversation's last input be rebuilt locally",
    "sim": "run the loopback provider simulator",
    "demo": "record a simulated claims conversation and open it",
    "proxy": "run a local proxy that records any client's OpenAI traffic into a capture",
    "hydrate": "rebuild a capture from response ids (fetches each response and its input)",
    "ab": "run the hosted-vs-owned experiment: both arms through the SDK, one capture each",
    "compare": "compare two arms (an `ab` results folder, or two captures)",
    "export": "write every turn of captures as Parquet, DuckDB, CSV or OTLP spans",
    "sql": "run a SQL query over the turns of captures (or of an export)",
    "context": "show what the model was shown on one turn: its input account as a stack",
    "sample": "open the claims sample that ships with traceview (no source tree needed)",
    "objects": "a case's deletion checklist: every provider object holding its data, "
               "the call that deletes each, and (--verify --live) whether it is gone",
}

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
