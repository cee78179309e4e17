"""A json column's cells (export/clean.py `json_cells`): each value redacted, serialised
and its text sanitised, whether or not anything in the batch needed masking."""

from __future__ import annotations

from traceview.export.clean import json_cells
from traceview.safety.known_keys import registered


def test_a_json_cell_is_sanitised_when_nothing_in_the_batch_is_masked() -> None:
    # The zero-width space is not printable: shown escaped, like every exported string.
    assert json_cells([{"note": "a\u200bb"}, None]) == ['{"note":"a\\u200bb"}', None]


def test_a_json_cell_is_masked_and_sanitised_when_the_batch_holds_a_key() -> None:
    cells = json_cells([{"note": "a\u200bb"}, {"q": "my key sk-LEAKLEAKLEAK12345678"}])
    assert cells == ['{"note":"a\\u200bb"}', '{"q":"my key sk-[redacted]"}']


def test_each_cell_is_what_it_is_alone_whatever_else_the_batch_holds() -> None:
    # The batch's texts are judged a line each: only the value holding a key is masked,
    # its neighbours (a backslash, a non-printable character) are only sanitised.
    batch = [{"a": "plain"}, None, {"q": "my key sk-LEAKLEAKLEAK12345678"},
             {"a": "line\nbreak"}, {"note": "a\u200bb"}, ["sk-LEAKLEAKLEAK87654321"]]
    cells = json_cells(batch)
    assert cells == ['{"a":"plain"}', None, '{"q":"my key sk-[redacted]"}',
                     '{"a":"line\\nbreak"}', '{"note":"a\\u200bb"}', '["sk-[redacted]"]']
    assert cells == [json_cells([v])[0] for v in batch]


def test_a_registered_key_is_masked_in_every_cell() -> None:
    with registered("Zq9Wx8Ec7Rv6Tb5Yn4"):
        assert json_cells([{"a": "x Zq9Wx8Ec7Rv6Tb5Yn4"}, {"b": "Zq9Wx8Ec7Rv6Tb5Yn4"}]) == [
            '{"a":"x [redacted]"}', '{"b":"[redacted]"}']


def test_a_delete_character_is_shown_escaped_in_an_ascii_batch() -> None:
    # orjson writes DEL raw: a batch of ASCII text is printable only without it.
    assert json_cells([{"a": "x\x7fy"}, {"b": "ok"}]) == ['{"a":"x\\x7fy"}', '{"b":"ok"}']
