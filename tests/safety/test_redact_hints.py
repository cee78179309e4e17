"""The JSON redactor's pre-check finds every line the literal-by-literal search found.

`redact_json` decodes and searches only the lines `_hinted_lines` picks; it now finds its
literals in one scan of the chunk folded (its anchor bytes made 0), then checks each line
the scan names, instead of one full scan per literal. A line it missed would be written
unredacted, so the selection is compared, line for line, with the earlier search (kept
below as the reference) over captures, reports, every hostile key shape and payload, and
fuzz built from the pieces of every hint.
"""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from tests.hostile.corpus import ESCAPES, KEY_SHAPES
from traceview.safety import redact
from traceview.safety.redact import _LITERALS_B, _SPACED_B, _hinted_lines, redact_json

ROOT = Path(__file__).parent.parent.parent
_OWN_KEYS = (b'"key":', b'"conversation_key":')


def reference_hinted_lines(chunk: bytes) -> set[int]:
    """The selection as made before the anchors: one search per literal (no known keys)."""
    low = chunk.lower()
    starts: set[int] = set()
    for lit in (*_LITERALS_B, b'key":'):
        i = low.find(lit)
        while i >= 0:
            start = low.rfind(b"\n", 0, i) + 1
            end = low.find(b"\n", i)
            line = low[start:len(low) if end < 0 else end]
            if lit != b'key":' or line.count(b'key":') > sum(line.count(k) for k in _OWN_KEYS):
                starts.add(start)
            i = low.find(lit, i + len(lit))
    i = low.find(b"=")
    while i >= 0:
        start = low.rfind(b"\n", 0, i) + 1
        end = low.find(b"\n", i)
        end = len(low) if end < 0 else end
        line = low[start:end]
        if b"?" in line or b"&" in line or b";" in line:
            starts.add(start)
        i = low.find(b"=", end)
    for m in _SPACED_B.finditer(low):  # a name and its separator apart: "key  =", "key\\t:"
        starts.add(low.rfind(b"\n", 0, m.start()) + 1)
    return starts


def _files() -> list[Path]:
    return sorted([*(ROOT / "tests/fixtures/real").glob("*.jsonl"),
                   *(ROOT / "sample_traces").glob("*.jsonl")])


def _hostile_chunks() -> list[bytes]:
    texts = [text for _, text, _ in KEY_SHAPES] + list(ESCAPES.values())
    out = []
    for text in texts:
        doc = {"user_text": text, "notes": [text, text.upper(), f"x {text} y"],
               "key": text, "conversation_key": text, text: text}
        out.append(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        out.append(text.encode("utf-8", "surrogatepass"))
    return out


# Pieces of every hint and of near misses, so fuzz puts them side by side, cut by line
# feeds, at chunk starts and ends, in both cases.
_PIECES = [b"sk", b"rk", b"se", b"ss", b"-", b"eyj", b"ey", b"j", b"ai", b"za", b"z", b"ak",
           b"as", b"ia", b"gh", b"p", b"o", b"u", b"s", b"r", b"_", b"github", b"_pat", b":",
           b"/", b"//", b"bear", b"er", b"secr", b"et", b"pass", b"w", b"author", b"iz",
           b"cook", b"ie", b"key", b"token", b"tokens", b"=", b" ", b'"', b"'", b"\\", b"?",
           b"&", b";", b"\n", b'"conversation_', b'"conversation_key":', b'"key":', b"x",
           b"KEY", b"Token", b"SK-", b"\xe2\x89\x88", b"0"]


def _fuzz(n: int, seed: int = 11) -> list[bytes]:
    rnd = random.Random(seed)
    return [b"".join(rnd.choice(_PIECES) for _ in range(rnd.randint(1, 60))) for _ in range(n)]


def _check(chunk: bytes) -> None:
    assert _hinted_lines(chunk) == reference_hinted_lines(chunk), chunk[:200]


def test_every_literal_is_found_through_an_anchor() -> None:
    for lit in _LITERALS_B:
        for cased in (lit, lit.upper()):
            for chunk in (cased, b"a\n" + cased + b"\nb", b"x" + cased + b"x\n"):
                _check(chunk)
                assert _hinted_lines(chunk), chunk


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_captures_select_the_same_lines(path: Path) -> None:
    data = path.read_bytes()
    _check(data)
    for size in (97, 4096):  # cut anywhere, mid-line and mid-literal
        for i in range(0, len(data), size):
            _check(data[i:i + size])


def test_reports_select_the_same_lines() -> None:
    from traceview.analysis.session import analyze

    for path in _files():
        analysis = analyze([str(path)])
        for turn in analysis.turns:
            _check(orjson.dumps(turn.to_dict(), option=orjson.OPT_INDENT_2))
        _check(orjson.dumps(analysis.to_report(turns=[], objects=[]),
                            option=orjson.OPT_INDENT_2))


def test_hostile_payloads_select_the_same_lines() -> None:
    for chunk in _hostile_chunks():
        _check(chunk)
        _check(chunk.lower())
        _check(chunk.upper())


def test_fuzz_selects_the_same_lines() -> None:
    for chunk in _fuzz(4000):
        _check(chunk)


def test_the_comparison_fails_when_a_hint_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Break the scans (lose a literal with no anchor byte, found by a scan of its own):
    the comparison above must notice."""
    literals = tuple(lit for lit in _LITERALS_B if lit != b"secret")
    monkeypatch.setattr(redact, "_SCANS", redact._scans(literals))
    with pytest.raises(AssertionError):
        _check(b'{\n  "note": "my secret"\n}')


def test_masked_output_is_unchanged_on_hostile_payloads() -> None:
    """What the selection serves: the same masked bytes as a search of every line."""
    for chunk in _hostile_chunks():
        whole = b"\n".join(redact.redact_text(line.decode("utf-8", "surrogatepass"))
                           .encode("utf-8", "surrogatepass") for line in chunk.split(b"\n"))
        assert redact_json(chunk) == whole


def test_the_comparison_fails_when_a_rare_byte_anchor_is_dropped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for a literal found through the scan led by 0 (eyJ…, at its "j")."""
    literals = tuple(lit for lit in _LITERALS_B if lit != b"eyj")
    monkeypatch.setattr(redact, "_SCANS", redact._scans(literals))
    with pytest.raises(AssertionError):
        _check(b'{\n  "note": "eyJhbGciOi"\n}')


def test_the_comparison_fails_when_a_line_check_is_skipped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines the folded scan names are checked literal by literal: "s--" folds like "sk-"
    and is named, but holds no literal. Take every named line: the comparison notices."""
    monkeypatch.setattr(redact, "_line_hinted", lambda *_: True)
    with pytest.raises(AssertionError):
        _check(b'{\n  "note": "s--x"\n}')


def test_rare_byte_anchors_at_chunk_edges_and_in_runs() -> None:
    """A rare byte at offset 0 (its literal cut off before the chunk), at the end, and
    repeated on one line and on the next: each literal still found, nothing extra."""
    for lit in (b"eyj", b"aiza", b"authoriz", b"://", b"key'", b"token'", b'key\\"',
                b'token\\"'):
        for chunk in (lit[-1:] + b"\n" + lit, lit + lit[-1:] * 3 + b"\n" + lit,
                      b"x\n" + lit[1:] + b"\n" + lit[:-1], lit[-1:] * 5 + b"\n" + lit[-1:]):
            _check(chunk)
            _check(chunk.upper())


def reference_maybe_secret(text: str) -> bool:
    """`_maybe_secret` as it was before its literals were grouped: one test per literal."""
    low = text.lower()
    if any(lit in low for lit in redact._LITERALS):
        return True
    if ("key" in low or "token" in low) and redact._SPACED.search(low):
        return True
    return "=" in low and redact._QUERY.search(low) is not None


def _texts() -> list[str]:
    texts = [text for _, text, _ in KEY_SHAPES] + list(ESCAPES.values())
    texts += [c.decode("utf-8", "replace") for c in _fuzz(4000, seed=5)]
    texts += [lit for lit in redact._LITERALS] + [lit.upper() for lit in redact._LITERALS]
    return texts + [t.upper() for t in texts] + [f"x {t} y" for t in texts]


def test_grouped_pre_check_says_what_the_literal_by_literal_one_said() -> None:
    hits = 0
    for text in _texts():
        want = reference_maybe_secret(text)
        assert redact._maybe_secret(text) == want, text
        hits += want
    assert hits > 1000  # both answers were seen


def test_the_pre_check_comparison_fails_when_a_group_is_dropped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    kept = tuple(g for g in redact._LITERAL_GROUPS if g[0] != "j")
    monkeypatch.setattr(redact, "_LITERAL_GROUPS", kept)
    assert not redact._maybe_secret("an eyJhbGciOi token")
    assert reference_maybe_secret("an eyJhbGciOi token")
