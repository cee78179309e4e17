"""Reading captures: line index, parsing, pairing into turns. Pure: no UI, no network."""

from traceview.capture.capture import Capture, CaptureLoader, Progress, load
from traceview.capture.model import Exchange, HostedCall, Problem, RecordRef, Turn
from traceview.capture.sources import SourceError

__all__ = [
    "Capture", "CaptureLoader", "Exchange", "HostedCall", "Problem", "Progress",
    "RecordRef", "SourceError", "Turn", "load",
]
