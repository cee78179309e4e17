"""The inventory's listing (analysis/hosted/objects.py `_Listing`): whole objects and the
stored responses kept as rows, in one order (kind, first line, id), and any range of it
made alone, as the report's forked writers each make one part."""

from __future__ import annotations

from types import SimpleNamespace

from traceview.analysis.hosted.objects import Objects, ProviderObject, ResponseRows, order
from traceview.capture.model import Turn
from traceview.capture.sides import ResponseFacts
from traceview.capture.table import TurnTable


def _turn(table: TurnTable, index: int, line: int) -> SimpleNamespace:
    """A report's view of a turn as the rows read it: its index and its `Turn` (a row of
    the turn table with a response, no response record: the row's line is the turn's)."""
    turn = Turn(table, table.append_turn(index, 0, line, "responses"))
    turn.res = ResponseFacts(response_id=f"resp_{line:03d}")
    return SimpleNamespace(index=index, line=line, turn=turn)


def _listing() -> tuple[list[ProviderObject], Objects]:
    table = TurnTable()  # response rows at lines 10..60
    turns = [_turn(table, i + 1, 10 * (i + 1)) for i in range(6)]
    rows = ResponseRows(turns)
    for t in turns:
        rows.add(t.index, 1764480000.0 + t.line, True)
    whole = ProviderObject("response", "resp_035", created_line=35)  # between rows 3 and 4
    tie = ProviderObject("response", "resp_050", created_line=50)  # the same place as row 5
    full = [ProviderObject("conversation", "conv_1", created_line=5), whole, tie,
            ProviderObject("file", "file_1", created_line=1)]
    return full, Objects(full, rows=rows)


def test_whole_objects_sit_among_the_rows_in_listing_order() -> None:
    full, objects = _listing()
    listed = list(objects.objects)
    assert [o.id for o in listed] == [
        "conv_1", "resp_010", "resp_020", "resp_030", "resp_035", "resp_040", "resp_050",
        "resp_050", "resp_060", "file_1"]
    assert listed[6] is full[2]  # a tie: the whole object before the row
    assert [order(o) for o in listed] == sorted(order(o) for o in listed)


def test_any_range_is_the_slice_of_the_whole_listing() -> None:
    _, objects = _listing()
    listing = objects.objects
    whole = [o.to_dict() for o in listing]
    for start in range(len(listing)):
        for stop in range(start, len(listing) + 1):
            assert list(listing.dicts(None, start, stop)) == whole[start:stop]
    assert listing[4].id == "resp_035" and listing[-1].id == "file_1"
