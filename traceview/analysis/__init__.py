"""Numbers and markers over turns. Pure: no UI, no network."""

from traceview.analysis.markers import MARKER_LEGEND, MARKER_SYMBOLS
from traceview.analysis.options import Options
from traceview.analysis.session import Analysis, Batch, Session, analyze
from traceview.analysis.turn_report import ConversationReport, TurnReport

__all__ = [
    "MARKER_LEGEND", "MARKER_SYMBOLS", "Analysis", "Batch", "ConversationReport", "Options",
    "Session", "TurnReport", "analyze",
]
