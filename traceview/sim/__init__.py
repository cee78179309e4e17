"""A stateful stand-in for the provider on loopback (demo, samples, tests).

See ``engine.py`` for the documented rules (token counting, tool choice, compaction,
truncation) and ``server.py`` for in-process use with fault injection.
"""

from traceview.sim.server import SimServer

__all__ = ["SimServer"]
