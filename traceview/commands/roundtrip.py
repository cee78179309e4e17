"""``python -m traceview.commands.roundtrip [--keep DIR]``: the end-to-end check on a fresh
clone (simulator, recorder, real SDK, ``traceview report``); see sim/roundtrip.py."""

from __future__ import annotations

from traceview.commands.parser import Parser
from traceview.sim.roundtrip import __doc__ as ABOUT
from traceview.sim.roundtrip import roundtrip


def main(argv: list[str] | None = None) -> int:
    parser = Parser(description=(ABOUT or "").splitlines()[0])
    parser.add_argument("--keep", metavar="DIR", help="write the captures here and keep them")
    return roundtrip(parser.parse_args(argv).keep)


if __name__ == "__main__":
    raise SystemExit(main())
