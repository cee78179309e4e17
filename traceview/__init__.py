"""traceview: see what really happened between a service and the model provider."""

__version__ = "0.1.0"
