"""Hosted state followed over a whole capture: the carried-context ledger, the provider
objects inventory and replay fidelity — one pass each over the analysed turns, attached
to the analysis by `attach` (analysis/hosted/attach.py)."""
