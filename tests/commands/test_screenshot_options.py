"""`traceview screenshot` pictures the numbers the inspector and `report` give under the
same settings: the thresholds and the pricing file of the config file or the flags. It
took neither, so a config's deposit_min_tokens or pricing changed the report, not the
picture."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from tests.fixtures_shared import ROOT, SAMPLES
from traceview.cli import main

CLAIMS = str(SAMPLES / "claims.jsonl")


def text_of(svg: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", svg.read_text())).replace("\xa0", " ")


def test_the_config_files_threshold_is_pictured(tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text("deposit_min_tokens = 100000\n")
    monkeypatch.setenv("TRACEVIEW_CONFIG", str(config))
    out = tmp_path / "turns.svg"
    assert main(["screenshot", CLAIMS, "-o", str(out)]) == 0
    assert "⊕1" not in text_of(out)  # the report marks no deposit under it either
    monkeypatch.delenv("TRACEVIEW_CONFIG")
    assert main(["screenshot", CLAIMS, "-o", str(out), "--force"]) == 0
    assert "⊕1" in text_of(out)  # turn 3's deposit, under the default threshold


def test_a_pricing_file_prices_the_picture(tmp_path: Path, capsys) -> None:
    table = json.loads((ROOT / "traceview" / "analysis" / "pricing.json").read_text())
    table["models"]["gpt-4.1"] = {"input": 4.0, "cached_input": 1.0, "output": 16.0}
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(table))
    out = tmp_path / "turn3.svg"
    assert main(["screenshot", CLAIMS, "-o", str(out), "--view", "detail", "--turn", "3",
                 "--pricing", str(prices)]) == 0
    capsys.readouterr()
    main(["report", CLAIMS, "--format", "json", "--pricing", str(prices)])
    cost = json.loads(capsys.readouterr().out)["turns"][2]["cost_usd"]
    assert f"Cost ≈ ${cost:.4f}" in text_of(out)


def test_a_pricing_file_that_does_not_load_writes_nothing(tmp_path: Path, capsys) -> None:
    out = tmp_path / "turns.svg"
    assert main(["screenshot", CLAIMS, "-o", str(out), "--pricing",
                 str(tmp_path / "none.json")]) == 2
    assert not out.exists()
    assert "cannot read pricing file" in capsys.readouterr().err
