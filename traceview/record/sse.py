"""Server-sent events: the parser lives in the pure core (importers read streams too)."""

from traceview.capture.sse import located_events, parse_events, terminal_response
from traceview.wire import TERMINAL_EVENTS

__all__ = ["TERMINAL_EVENTS", "located_events", "parse_events", "terminal_response"]
