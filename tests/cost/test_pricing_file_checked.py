"""A `--pricing` file is checked entry by entry before anything is priced: found by an
attack pass, a tier factor of "abc" raised a ValueError (a traceback) and prices of 1e308
made every cost infinite (`cost $inf` in the text report, null without a reason in JSON)."""

from __future__ import annotations

import os
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
    # Found by a second attack pass: fields the check did not reach were read with bare
    # float(), `in` and startswith() (tracebacks) or priced as given (300-digit, infinite
    # and negative costs).
    ({"hosted_tools__code_interpreter_call__by_memory__1g": "abc"},
     """hosted_tools["code_interpreter_call"]["by_memory"]["1g"] must be a number from 0 """
     """to 1,000,000, not 'abc'"""),
    ({"hosted_tools__code_interpreter_call__by_memory__1g": 1e308},
     """hosted_tools["code_interpreter_call"]["by_memory"]["1g"] must be a number from 0 """
     """to 1,000,000, not 1e+308"""),
    ({"hosted_tools__code_interpreter_call__per_minute__block_minutes": 0},
     """hosted_tools["code_interpreter_call"]["per_minute"]["block_minutes"] must be a """
     """whole number of minutes from 1 to 1,000,000, not 0"""),
    ({"hosted_tools__code_interpreter_call__per_minute__since": 5},
     """hosted_tools["code_interpreter_call"]["per_minute"]["since"] must be a date as """
     """YYYY-MM-DD, not 5"""),
    ({"hosted_tools__web_search_call__preview__non_reasoning": "abc"},
     """hosted_tools["web_search_call"]["preview"]["non_reasoning"] must be a number from """
     """0 to 1,000,000, not 'abc'"""),
    ({"hosted_tools__web_search_call__preview__non_reasoning": -5},
     """hosted_tools["web_search_call"]["preview"]["non_reasoning"] must be a number from """
     """0 to 1,000,000, not -5"""),
    ({"hosted_tools__image_generation_call__by_size_quality__1024x1024__low": 1e308},
     """hosted_tools["image_generation_call"]["by_size_quality"]["1024x1024"]["low"] must """
     """be a number from 0 to 1,000,000, not 1e+308"""),
    ({"storage__vector_store__per_gb_day": "x"},
     """storage["vector_store"]["per_gb_day"] must be a number from 0 to 1,000,000, """
     """not 'x'"""),
    ({"storage__vector_store__per_gb_day": -1},
     """storage["vector_store"]["per_gb_day"] must be a number from 0 to 1,000,000, """
     """not -1"""),
    ({"storage__vector_store": 0.1},
     """storage["vector_store"] must be an object, not float"""),
    ({"storage": [1]}, """"storage" must be an object, not list"""),
    ({"exchanges__embeddings__text-embedding-3-small": 1e308},
     """exchanges["embeddings"]["text-embedding-3-small"] must be a number from 0 to """
     """1,000,000, not 1e+308"""),
    ({"reasoning_models__prefixes": 5},
     """reasoning_models["prefixes"] must be a list of model-name prefixes (strings), """
     """not 5"""),
    ({"reasoning_models__prefixes": [5]},
     """reasoning_models["prefixes"] must be a list of model-name prefixes (strings), """
     """not [5]"""),
    ({"reasoning_models__except": "gpt-5-chat"},
     """reasoning_models["except"] must be a list of model-name prefixes (strings), """
     """not 'gpt-5-chat'"""),
    ({"tiers__flex": {"same_as": [1]}},
     """tiers["flex"]["same_as"] must name another tier of the table (or "default"), """
     """not [1]"""),
    ({"tiers__flex": {"same_as": "nowhere"}},
     """tiers["flex"]["same_as"] must name another tier of the table (or "default"), """
     """not 'nowhere'"""),
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


def _bad_table(tmp_path: Path) -> Path:
    pricing = tmp_path / "p.json"
    pricing.write_bytes(orjson.dumps(_table(tiers__flex={"same_as": [1]})))
    return pricing


_SAID = """tiers["flex"]["same_as"] must name another tier of the table (or "default"), not [1]"""


def test_a_bad_table_named_by_the_config_file_is_refused(tmp_path: Path) -> None:
    _bad_table(tmp_path)
    config = tmp_path / "config.toml"
    config.write_text('pricing = "p.json"\n')
    cap = write(tmp_path / "c.jsonl", [req({"model": "gpt-4o-mini", "input": "hi"}),
                                       res(response("r", 50, 1))])
    env = {**os.environ, "TRACEVIEW_CONFIG": str(config)}
    for command, prefix in (["report", str(cap)], "traceview"), \
            (["export", str(cap), "--to", "csv", str(tmp_path / "o.csv")], "traceview export"):
        out = subprocess.run([sys.executable, "-m", "traceview", *command],
                             capture_output=True, check=False, env=env)
        assert (out.returncode, out.stdout) == (2, b"")
        assert out.stderr.decode() == (f"{prefix}: config file {config}: pricing "
                                       f"{tmp_path / 'p.json'}: {_SAID}\n")


def test_export_names_the_pricing_file_it_refuses(tmp_path: Path) -> None:
    """`export --to csv` said only "could not convert string to float: 'abc'"."""
    pricing = tmp_path / "p.json"
    pricing.write_bytes(orjson.dumps(
        _table(hosted_tools__code_interpreter_call__by_memory__1g="abc")))
    cap = write(tmp_path / "c.jsonl", [req({"model": "gpt-4o-mini", "input": "hi"}),
                                       res(response("r", 50, 1))])
    out = subprocess.run([sys.executable, "-m", "traceview", "export", str(cap), "--to", "csv",
                          str(tmp_path / "o.csv"), "--pricing", str(pricing)],
                         capture_output=True, check=False)
    assert (out.returncode, out.stdout) == (2, b"")
    assert out.stderr.decode() == (
        f"traceview export: {pricing}: hosted_tools[\"code_interpreter_call\"][\"by_memory\"]"
        f"[\"1g\"] must be a number from 0 to 1,000,000, not 'abc'\n")


def test_a_pricing_path_that_is_a_directory_is_said_so(tmp_path: Path) -> None:
    from traceview.analysis.pricing import Pricing, PricingError

    with pytest.raises(PricingError) as got:
        Pricing.load(str(tmp_path))
    assert str(got.value) == f"{tmp_path}: cannot read pricing file (is a directory)"
