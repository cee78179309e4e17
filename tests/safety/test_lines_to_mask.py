"""`lines_to_mask` judges each line of a chunk alone, as `nothing_to_mask` judges a text:
an export serialises a json column's values one a line and masks only the lines named."""

from __future__ import annotations

from traceview.safety.known_keys import registered
from traceview.safety.redact import lines_to_mask, nothing_to_mask

LINES = [
    b'{"a":"plain words, nothing to mask"}',     # 0: clean
    b'{"q":"my key sk-LEAKLEAKLEAK12345678"}',    # 1: a key's prefix
    b'{"a":"a line\\nbreak"}',                    # 2: a backslash (an escape hides text)
    b'{"prompt_cache_key":"abc"}',                # 3: the wire's own field, not a hint
    b'{"api_key":"x"}',                           # 4: a secret-named field
    b'{"conversation_key":"c1"}',                 # 5: traceview's own field
    b'{"url":"https://u:p@example.com/x"}',       # 6: a URL
]


def _starts(names: list[int]) -> set[int]:
    starts, at = [], 0
    for line in LINES:
        starts.append(at)
        at += len(line) + 1
    return {starts[i] for i in names}


def test_each_line_with_something_to_mask_is_named_by_its_start() -> None:
    assert lines_to_mask(b"\n".join(LINES)) == _starts([1, 2, 4, 6])


def test_a_line_is_named_exactly_when_it_alone_holds_something_to_mask() -> None:
    alone = [i for i, line in enumerate(LINES) if not nothing_to_mask(line)]
    assert alone == [1, 2, 4, 6]


def test_every_line_is_named_while_a_key_is_registered() -> None:
    with registered("Zq9Wx8Ec7Rv6Tb5Yn4"):
        assert lines_to_mask(b"\n".join(LINES)) == _starts(list(range(len(LINES))))
        assert not nothing_to_mask(LINES[0])


def test_a_text_with_a_line_feed_is_never_judged_clean() -> None:
    assert nothing_to_mask(LINES[0])
    assert not nothing_to_mask(LINES[0] + b"\n" + LINES[0])
