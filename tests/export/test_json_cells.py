"""A json column's cells (export/clean.py `json_cells`): each value redacted, serialised
and its text sanitised, whether or not anything in the batch needed masking."""

from __future__ import annotations

from traceview.export.clean import json_cells


def test_a_json_cell_is_sanitised_when_nothing_in_the_batch_is_masked() -> None:
    # The zero-width space is not printable: shown escaped, like every exported string.
    assert json_cells([{"note": "a\u200bb"}, None]) == ['{"note":"a\\u200bb"}', None]


def test_a_json_cell_is_masked_and_sanitised_when_the_batch_holds_a_key() -> None:
    cells = json_cells([{"note": "a\u200bb"}, {"q": "my key sk-LEAKLEAKLEAK12345678"}])
    assert cells == ['{"note":"a\\u200bb"}', '{"q":"my key sk-[redacted]"}']
