"""Headless output of an analysis: text tables, markdown, JSON."""
