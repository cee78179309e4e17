"""A `--pricing` file is checked entry by entry before anything is priced: found by an
attack pass, a tier factor of "abc" raised a ValueError (a traceback) and prices of 1e308
made every cost infinite (`cost $inf` in the text report, null without a reason in JSON)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders import req, res, response, write
from traceview.analysis.pricing_check import shape_error

BUNDLED = Path(__file__).parents[2] / "traceview" / "analysis" / "pricing.json"


def _table(**change: Any) -> dict[str, Any]:
    table = orjson.loads(BUNDLED.read_bytes())
    for where, value in change.items():
        node = table
        *path, last = where.split("__")
        for key in path:
            node = node[key]
        node[last] = value
    return table


def test_the_bundled_table_passes() -> None:
    assert shape_error(orjson.loads(BUNDLED.read_bytes())) is None


@pytest.mark.parametrize(("change", "said"), [
    ({"tiers__flex": {"factor": "abc"}},
     """tiers["flex"]["factor"] must be a number from 0 to 1,000,000, not 'abc'"""),
    ({"tiers__flex": {"models": {"gpt-4o-mini": {"input": "x", "output": 1}}}},
     """tiers["flex"]["models"]["gpt-4o-mini"]["input"] must be a number from 0 to """
     """1,000,000, not 'x'"""),
    ({"tiers__flex": [0.5]}, """tiers["flex"] must be an object, not list"""),
    ({"models__gpt-4o-mini": {"input": 1e308, "output": 1e308}},
     """models["gpt-4o-mini"]["input"] must be a number from 0 to 1,000,000, not 1e+308"""),
    ({"hosted_tools__web_search": {"per_call": 2e6}},
     """hosted_tools["web_search"]["per_call"] must be a number from 0 to 1,000,000, """
     """not 2000000.0"""),
])
def test_an_entry_that_is_no_price_is_refused_by_its_key(
        tmp_path: Path, change: dict[str, Any], said: str) -> None:
    pricing = tmp_path / "p.json"
    pricing.write_bytes(orjson.dumps(_table(**change)))
    cap = write(tmp_path / "c.jsonl", [
        req({"model": "gpt-4o-mini", "input": "hi", "service_tier": "flex"}),
        res(response("r", 50, 1, service_tier="flex"))])
    out = subprocess.run([sys.executable, "-m", "traceview", "report", str(cap),
                          "--pricing", str(pricing)], capture_output=True, check=False)
    assert (out.returncode, out.stdout) == (2, b"")
    assert out.stderr.decode() == f"traceview: {pricing}: {said}\n"
