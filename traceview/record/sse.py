"""Server-sent events: the parser lives in the pure core (importers read streams too)."""

from traceview.capture.sse import TERMINAL_EVENTS, parse_events, terminal_response

__all__ = ["TERMINAL_EVENTS", "parse_events", "terminal_response"]
