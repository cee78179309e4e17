"""The account sentence's rates (analysis/cost/price.py `rates_text`): each priced line
worded with its quantity, its unit and its own rate, whatever lines were worded before."""

from __future__ import annotations

from traceview.analysis.cost.price import rates_text
from traceview.analysis.pricing import Part


def test_each_line_is_worded_with_its_own_rate() -> None:
    flex = [Part("gpt-x, input", 0.1, 1_000_000, 0.075, "1M tokens")]
    default = [Part("gpt-x, input", 0.1, 1_850, 0.15, "1M tokens"),
               Part("web search", 0.05, 2, 0.025, "call"),
               Part("container", 0.03, 1, 0.03, "container")]
    assert rates_text(flex, "flex") == "1,000,000 input tokens × $0.075/1M (flex tier)"
    assert rates_text(default, "default") == (
        "1,850 input tokens × $0.15/1M + 2 web search × $25.00/1k + "
        "1 container × $0.03/container (default tier)")
    # The same line at the other rate, after it: worded with its own rate still.
    assert rates_text(flex, "flex") == "1,000,000 input tokens × $0.075/1M (flex tier)"
