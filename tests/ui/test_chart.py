"""The chart tells the story at a glance: the deposit jump, the compaction fall, the
cumulative bill, marker glyphs, the selected turn labelled, and more room when wider."""

from __future__ import annotations

from traceview.ui.app import make_app
from traceview.ui.widgets.chart import TurnChart

from .conftest import sample


def chart_lines(app) -> dict[str, str]:
    chart = app.main.query_one(TurnChart)
    lines = str(chart.render()).splitlines()
    out = {line[: chart.LABEL].strip(): line[chart.LABEL :] for line in lines}
    out["label"] = lines[-1]
    return out


def per_turn(bars: str, cell: int, n: int) -> list[str]:
    return [bars[i * cell] for i in range(n)]


async def test_claims_deposit_is_a_jump_in_billed_not_in_bytes_and_turn_3_is_labelled():
    app = make_app([sample("claims")])
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("j", "j")
        await pilot.pause()
        chart = app.main.query_one(TurnChart)
        _, _, cell = chart.window()
        lines = chart_lines(app)
        billed = per_turn(lines["billed in"], cell, 4)
        sent = per_turn(lines["bytes sent"], cell, 4)
        assert billed[1] < billed[2] == "█"  # 1,690 → 6,110 tokens: the jump
        assert sent[2] < sent[1]  # while the request got smaller (578 B → 255 B)
        assert per_turn(lines["markers"], cell, 4)[2] == "⊕"
        assert "6,110 tok" in lines["billed in"] and "9,010 total" in lines["cumulative"]
        assert "▲ turn 3" in lines["label"] and "linear scale" in lines["label"]
        label_at = lines["label"].index("▲")
        assert label_at == chart.LABEL + 2 * cell  # under turn 3's column
        await pilot.press("L")
        await pilot.pause()
        assert "log scale" in chart_lines(app)["label"]


async def test_compaction_is_a_fall_and_the_chart_widens_with_the_terminal():
    widths = {}
    for width in (80, 200):
        app = make_app([sample("long_conversation")])
        async with app.run_test(size=(width, 40)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("end")
            await pilot.pause()
            chart = app.main.query_one(TurnChart)
            _, span, cell = chart.window()
            assert span >= 8
            lines = chart_lines(app)
            billed = per_turn(lines["billed in"], cell, 8)
            assert billed[7] < billed[6] == "█"  # 6,980 → 4,120: the fall
            assert per_turn(lines["markers"], cell, 8)[7] == "↘"
            widths[width] = cell * 8
    assert widths[200] > widths[80]


async def test_the_label_of_the_last_turn_is_never_cut() -> None:
    """On the last turn the label sits at the right: the scale note shortens or goes,
    and never ends in a cut-off parenthesis (`linear scale (L:`)."""
    from rich.cells import cell_len

    from .conftest import opened

    for size in ((80, 24), (100, 30), (120, 40)):
        async with opened(sample("claims"), size, "G") as (app, pilot):
            chart = app.main.query_one(TurnChart)
            label = chart_lines(app)["label"].rstrip()
            assert "▲ turn 4" in label
            assert cell_len(label) <= chart.size.width, (size, label)
            assert label.count("(") == label.count(")"), (size, label)
            assert "linear" in label, (size, label)  # the scale is always named
        async with opened(sample("long_conversation"), size, "G", "L") as (app, pilot):
            chart = app.main.query_one(TurnChart)
            label = chart_lines(app)["label"].rstrip()
            assert cell_len(label) <= chart.size.width, (size, label)
            assert label.count("(") == label.count(")"), (size, label)
            assert "log" in label, (size, label)
