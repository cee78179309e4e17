"""`redact_json` skips no secret that the masker finds on any line of a JSON chunk.

The pre-check finds its hints in the chunk folded by one `bytes.translate` (anchor bytes
made 0) and masks only the lines it names. A line it failed to name would be written
unredacted, so here every generated chunk is redacted twice: through the pre-check, and
line by line through the masker with no pre-check at all (the ground truth). The
chunks put real key shapes where the fold could go wrong: in every case, quoted and
escaped once and twice, unicode-escaped, split by a line feed at every offset, at the
very start and end of a chunk, beside bytes that fold like an anchor ("s--" reads as
"sk-"), beside a raw NUL (what anchors fold to), and inside report-shaped JSON cut at
every offset around the key.
"""

from __future__ import annotations

import json

import orjson
import pytest

from tests.hostile.corpus import KEY_SHAPES
from traceview.safety import redact
from traceview.safety.mask import mask
from traceview.safety.redact import redact_json

# Shapes the hostile corpus lacks: spaced and escaped separators, upper-case names, the
# case-sensitive AWS prefixes, names that end in an anchor byte (passw, sess-, eyj …).
EXTRA: list[tuple[str, str | None]] = [
    ("Api_Key  =  Zx12Cv34Bn56", "Zx12Cv34Bn56"),
    ("REFRESH_TOKEN\t:\tQw12Er34Ty56", "Qw12Er34Ty56"),
    ("api_key\\u0020=Rt45Yu67Io89", "Rt45Yu67Io89"),
    ("access_token\\\\t: Lk98Jh76Gf54", "Lk98Jh76Gf54"),
    ("SECRET: Mn12Bv34Cx56", "Mn12Bv34Cx56"),
    ("PASSWORD=Hunter2Hunter2", "Hunter2Hunter2"),
    ("Cookie: sid=Pl0Ok9Ij8Uh7", "Pl0Ok9Ij8Uh7"),
    ("X-Goog-Api-Key: AbCdEfGh12345678", "AbCdEfGh12345678"),
    ("ASIAIOSFODNN7EXAMPL3 temp", "ASIAIOSFODNN7EXAMPL3"),
    ("sess-Hy7uJi8kLo9pQa1wSe2dRf3tGy4hUj5kLo9pQa1w", "Hy7uJi8kLo9pQa1wSe2dRf3t"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM", "SflKxwRJSMeK"),
    ("github_pat_11AAAAAAA0aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"),
    # Hints without a secret (names that are not secret names, prefixes in the other case):
    # selected as the literals select them, masked by nothing.
    ("Key  =  Zx12Cv34Bn56", None),
    ("TOKEN\t:\tQw12Er34Ty56", None),
    ("SESS-Hy7uJi8kLo9pQa1wSe2dRf3tGy4hUj5k SK-Ab3dEf6hIj9kLm2n EYJhbGciOiJIUzI1", None),
    ("AUTHORIZATION:\u00a0Bearer Op9Iu8Yt7Re6Wq5", "Op9Iu8Yt7Re6Wq5"),
    ('{"client_secret": "Cs-9Ab8Cd7Ef6Gh5Ij4Kl3"}', "9Ab8Cd7Ef6Gh5Ij4Kl3"),
    ("https://x.example/cb?sig=Zz99Yy88Xx77", "Zz99Yy88Xx77"),
]
SHAPES: list[tuple[str, str | None]] = [(t, v) for _, t, v in KEY_SHAPES] + EXTRA

# Bytes that fold to 0 like an anchor, or are 0: put beside a key, they must not hide it.
NEIGHBOURS = [b"", b"s--", b"k", b"-", b"\x00", b"\\", b"=", b"tokens ", b"key-b", b"J", b"Z"]


def _forms(text: str) -> list[bytes]:
    """The text as a capture or a report may carry it: raw, in every case, quoted in JSON
    once and twice, and with every non-ASCII character written as a \\u escape."""
    out = []
    for cased in (text, text.upper(), text.lower(), text.swapcase()):
        out.append(cased.encode())
        out.append(orjson.dumps(cased))
        out.append(orjson.dumps(orjson.dumps(cased).decode()))
        out.append(json.dumps(cased, ensure_ascii=True).encode())
    return out


def _chunks(form: bytes) -> list[bytes]:
    chunks = [form, b"\n" + form, form + b"\n", b"x\n" + form + b"\ny"]
    chunks += [left + form + right for left in NEIGHBOURS for right in NEIGHBOURS[:4]]
    chunks += [form[:i] + b"\n" + form[i:] for i in _boundaries(form)]  # cut at each offset
    return chunks


def _boundaries(data: bytes, offsets: range | None = None) -> list[int]:
    """The offsets (of ``offsets``, or all inside ``data``) not in the middle of a UTF-8
    character: the writer's chunks are whole JSON text, cut only between characters."""
    return [i for i in (offsets or range(1, len(data)))
            if i < len(data) and not 0x80 <= data[i] < 0xC0]


def _report_chunks(text: str) -> list[bytes]:
    """Report-shaped JSON (as the writer dumps a batch of rows) holding the key, cut at
    every offset around it: the key at a chunk's start and end, and cut off by either."""
    doc = orjson.dumps([{"id": "t1", "user_text": text, "prompt_cache_key": "c1",
                         "notes": ["tokens per turn"], "conversation_key": "c1", "key": "c1"}],
                       option=orjson.OPT_INDENT_2)
    at = doc.find(orjson.dumps(text)[1:8])
    cuts = _boundaries(doc, range(max(at - 3, 1), min(at + len(text) + 6, len(doc))))
    return [doc] + [doc[i:] for i in cuts] + [doc[:i] for i in cuts]


def _whole(chunk: bytes) -> bytes:
    """Every line through the masker, with no hint looked for: what must come out."""
    return b"\n".join(mask(line.decode("utf-8", "surrogatepass"))
                      .encode("utf-8", "surrogatepass") for line in chunk.split(b"\n"))


def _corpus() -> list[tuple[bytes, str | None]]:
    """Each chunk once: a text with no letter to re-case, or whose quoted forms match,
    gives the same chunk several times (27 % of them)."""
    out = []
    for text, value in SHAPES:
        for form in _forms(text):
            out += [(chunk, value) for chunk in _chunks(form)]
        out += [(chunk, value) for chunk in _report_chunks(text)]
    return list(dict.fromkeys(out))


CORPUS = _corpus()


def test_the_corpus_is_large_and_masks_something() -> None:
    assert len(CORPUS) > 20_000
    masked = sum(1 for chunk, _ in CORPUS[::50] if _whole(chunk) != chunk)
    assert masked > len(CORPUS[::50]) // 2


def test_the_json_redactor_masks_what_the_masker_finds_on_every_line() -> None:
    for chunk, _ in CORPUS:
        assert redact_json(chunk) == _whole(chunk), chunk[:200]


def test_a_key_whole_on_its_line_never_comes_out() -> None:
    """The user-visible promise, checked directly on the chunks that keep the key whole
    on one line, as written (the patterns read "sk-" and "AKIA" in one case only), beside
    every neighbour."""
    seen = 0
    for text, value in SHAPES:
        if value is None:
            continue
        form = text.encode()
        # Apart from its neighbours by a space: glued to letters, a key is a word's end.
        for chunk in [left + b" " + form + b" " + right for left in NEIGHBOURS
                      for right in NEIGHBOURS] + _chunks(form)[:4]:
            out = redact_json(chunk)
            assert value.encode() in chunk
            assert value.encode() not in out, (chunk[:200], value)
            seen += 1
    assert seen > 1000


def test_the_check_fails_when_the_fold_loses_an_anchor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fold "j" as a plain letter but keep the scans built for it folded to 0: "eyJ…" keys
    then go unnamed and the comparison with every line notices."""
    table = bytearray(redact._FOLD)
    table[ord("j")] = table[ord("J")] = ord("j")
    monkeypatch.setattr(redact, "_FOLD", bytes(table))
    chunk = b'{\n  "note": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeK"\n}'
    assert redact_json(chunk) != _whole(chunk)
