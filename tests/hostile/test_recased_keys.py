"""Keys whose case was changed are still keys: "SK-PROJ-…", "Sk-…", "sK-proj-…", and
"BEARER"/"BeArEr" Authorization values, through every path a capture's text leaves by.

A model may echo a key upper-cased, a log may upper-case a header, and the text the
provider stored quotes it so: the key's letters are all there, only their case differs,
so the redactor must mask it like the key as issued. A differential check found these
shapes passing through unmasked (the prefixes were matched lower-case only) into
reports, exports, screenshots and stderr. The mask left visible is the one ordinary keys
get: the prefix as written, then "[redacted]".
"""

from __future__ import annotations

import csv
import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from traceview.provider.errors import scrub
from traceview.record.scrub import Scrubber
from traceview.safety import redact as redact_module
from traceview.safety.mask import mask
from traceview.safety.redact import MASK, redact, redact_json, redact_text
from traceview.ui.app import make_app

from .corpus import assert_no_traceback, finishes, traceview, write_jsonl

BODY = "Qw3rTy6uIo9pAs2dFg5hJk8lZx1cVb4nM7qW0eR3tY6u"  # fake; long, mixed like a real key
# (name, the prefix as the provider issues it): the OpenAI family of key prefixes.
PREFIXES = [("sk", "sk-"), ("sk_proj", "sk-proj-"), ("sk_svcacct", "sk-svcacct-"),
            ("sk_admin", "sk-admin-"), ("sk_ant", "sk-ant-api03-"), ("sess", "sess-"),
            ("rk", "rk-")]


def _mixed(key: str) -> str:
    """"sK-proj-…": the prefix's second letter upper-cased, the rest as issued."""
    return key[0] + key[1].upper() + key[2:]


def _upper_prefix(key: str) -> str:
    """"SK-PROJ-Qw3r…": the prefix upper-cased, the body as issued."""
    cut = key.rindex("-") + 1
    return key[:cut].upper() + key[cut:]


CASINGS: dict[str, Callable[[str], str]] = {
    "issued": lambda k: k,  # the control: masked before this fix too
    "upper": str.upper,
    "title": lambda k: k[0].upper() + k[1:],
    "mixed": _mixed,
    "upper_prefix": _upper_prefix,
    "swapcase": str.swapcase,
}
# (key, what must never be written: a long piece of its body, as cased, the prefix it
# keeps visible). Every prefix in every casing.
KEYS = [(CASINGS[c](p + BODY), CASINGS[c](p + BODY)[len(p):][:24],
         CASINGS[c](p + BODY)[:CASINGS[c](p + BODY).index("-") + 1])
        for _, p in PREFIXES for c in CASINGS]
KEY_IDS = [f"{n}-{c}" for n, _ in PREFIXES for c in CASINGS]
SCHEMES = ["Bearer", "bearer", "BEARER", "BeArEr", "bEARER"]
OPAQUE = "gw-PlainGatewayKey-0a0b0c0d0e"  # a gateway's key: no key shape, only its place
TOKENS = [OPAQUE, OPAQUE.upper(), "SK-PROJ-" + BODY.upper()]
BEARERS = [(s, t) for s in SCHEMES for t in TOKENS]
BEARER_IDS = [f"{s}-{i}" for s in SCHEMES for i in range(len(TOKENS))]


def _texts(key: str) -> list[str]:
    """Places a key is quoted: prose, a config line, JSON in a string, a header line."""
    return [key, f"my key is {key} ok", f'OPENAI_KEY="{key}"', f"({key})",
            f'{{"note": "{key}"}}', f"Authorization: Bearer {key}", f"BEARER {key}",
            f"quote: {key}\nend"]


def _redacted_everywhere(text: str, secret: str) -> None:
    """`text` masked by redact_text, by redact on objects and by redact_json on bytes."""
    assert secret not in redact_text(text), text
    doc = {"input": text, "output": [{"content": [{"type": "output_text", "text": text}]}]}
    assert secret not in orjson.dumps(redact(doc)).decode(), text
    out = redact_json(orjson.dumps(doc) + b"\n" + orjson.dumps({"q": text}))
    assert secret.encode() not in out, text
    for line in out.splitlines():
        orjson.loads(line)  # still JSON


@pytest.mark.parametrize(("key", "secret", "kept"), KEYS, ids=KEY_IDS)
def test_a_recased_key_is_masked(key: str, secret: str, kept: str) -> None:
    for text in _texts(key):
        _redacted_everywhere(text, secret)


@pytest.mark.parametrize("prefix", ["sess-", "rk-"])
def test_a_key_after_a_line_feed_in_json_text(prefix: str) -> None:
    """Raw JSON writes a line feed or tab before a quoted key as \\n or \\t: the escape's
    letter is not a word the key is glued to (sess- and rk- have no in-word rule)."""
    key = prefix + BODY
    for gap in ("\n", "\t"):
        assert BODY[:24].encode() not in redact_json(orjson.dumps({"q": f"quote:{gap}{key}"}))


@pytest.mark.parametrize(("key", "secret", "kept"), KEYS, ids=KEY_IDS)
def test_the_mask_is_the_ordinary_keys_mask(key: str, secret: str, kept: str) -> None:
    """The prefix as written stays, the rest is the mask, as for "sk-proj-…" today; the
    mask of a mask is the mask."""
    masked = redact_text(f"key {key} end")
    assert masked == f"key {kept}{MASK} end"
    assert redact_text(masked) == masked
    assert redact_text(f"prefix_{key}") == f"prefix_{kept}{MASK}"


@pytest.mark.parametrize("casing", list(CASINGS))
def test_a_recased_key_glued_to_a_word_is_masked(casing: str) -> None:
    """Inside a word: the "sk-" rule (long and mixed) and the "sess-" rule (40 characters)."""
    case = CASINGS[casing]
    key = case("sk-proj-" + BODY)
    assert redact_text(f"mykey{key}") == f"mykey{key[:3]}{MASK}"
    sess = case("sess-" + "Hy7uJi8kLo9pQa1wSe2dRf3tGy4hUj5kAa0bB1c2")
    assert redact_text(f"work{sess} x") == f"work{MASK} x"
    for text in (f"mykey{key}", f"work{sess}"):
        _redacted_everywhere(text, text[8:30])


@pytest.mark.parametrize(("scheme", "token"), BEARERS, ids=BEARER_IDS)
def test_a_bearer_value_in_any_case_is_masked(scheme: str, token: str) -> None:
    secret = token[-20:]
    assert redact_text(f"Authorization: {scheme} {token}") == f"Authorization: {scheme} {MASK}"
    assert redact_text(f"header was {scheme} {token} (x)") == f"header was {scheme} {MASK} (x)"
    for text in (f"Authorization: {scheme} {token}", f"sent {scheme}\t{token}",
                 f'"authorization": "{scheme} {token}"'):
        _redacted_everywhere(text, secret)
    doc = {"headers": {"Authorization": f"{scheme} {token}"}}
    assert redact(doc) == {"headers": {"Authorization": MASK}}


@pytest.mark.parametrize(("scheme", "token"), BEARERS, ids=BEARER_IDS)
def test_the_recorder_learns_the_key_behind_any_scheme_case(scheme: str, token: str) -> None:
    """The recorder registers the Authorization header's value: "BEARER <key>" is the key
    after the scheme (schemes are case-insensitive, RFC 9110), so a body quoting the bare
    key (no key shape to find) is masked too."""
    scrubber = Scrubber()
    scrubber.add_secret(f"{scheme} {token}")
    line = scrubber.scrub_bytes(orjson.dumps({"input": f"the key {token} again"}))
    assert token.encode() not in line and token[-20:].encode() not in line
    orjson.loads(line)


@pytest.mark.parametrize("key", ["SK-PROJ-****ABCD", "Sk-proj-****abcd", "RK-****WXYZ"])
def test_a_provider_error_echoing_a_recased_masked_key_is_stripped(key: str) -> None:
    """The provider's 401 echoes the key's last characters; they go whatever the case."""
    assert key[-4:] not in scrub(f"Incorrect API key provided: {key}. See docs")


@pytest.mark.parametrize(("key", "secret", "kept"), KEYS, ids=KEY_IDS)
def test_no_fast_path_passes_a_recased_key_over(key: str, secret: str, kept: str) -> None:
    """Each pre-check that decides a text cannot hold a secret must say "may" here, or its
    fast path would skip exactly these keys; and the redactor behind each gives what the
    masker run without a pre-check gives."""
    for text in _texts(key) + [f"mykey{key}"]:
        assert redact_module._hinted_lines(text.encode()), text
        doc = orjson.dumps({"a": text})
        assert redact_module._hinted_lines(doc) == [0], text
        assert redact({"a": text}) == {"a": mask(text)}, text
        assert redact_text(text) == mask(text), text


# Run in a child, as tests/hostile/test_redact_runs.py does: a rule gone quadratic on runs
# of re-cased prefixes ("SK-SK-…" with no digit, "SESSSESS…") fails here, not the suite.
_CHILD = """
from traceview.safety.redact import redact_text, redact_json
n = 64 * 1024
for unit in ("SK-", "Sk-", "sK-a", "ASK-", "RK-", "SESS", "Sess-", "S", "K-", "sKsK"):
    run = unit * (n // len(unit))
    for word in ("", " ", "x", "SK-", "secret=", "BEARER "):
        redact_text(word + run)
        redact_text(run + word + "1")
        redact_json((word + run).encode())
print("done")
"""


def test_runs_of_recased_prefixes_are_searched_in_linear_time() -> None:
    finishes(_CHILD)


# ------------------------------------------------------------- through the commands
def _capture(path: Path, keys: list[str], tokens: list[str]) -> Path:
    """One turn per key, quoting it in the user's input, in the model's output, in a
    header and in an error, in the shapes a capture records them; then a turn per bearer
    token (no key shape: masked for its place after the scheme)."""
    records: list[dict[str, Any]] = []
    for i, key in enumerate(keys + tokens):
        scheme = SCHEMES[i % len(SCHEMES)]
        quoted, said = key, key.upper()
        if i >= len(keys):  # no key shape: only its place after the scheme tells it
            quoted, said = f"{scheme} {key}", f"Authorization: {scheme.upper()} {key}"
        records += [
            {"dir": "req", "id": f"r{i}", "ts": f"2026-01-01T00:00:{i % 60:02d}Z",
             "headers": {"Authorization": f"{scheme} {key}"},
             "body": {"model": "gpt-4o", "input": f"{quoted} is my key; {scheme} {key}"}},
            {"dir": "res", "id": f"r{i}", "status_code": 200, "elapsed_ms": 5,
             "body": {"object": "response", "id": f"resp_{i}", "status": "completed",
                      "model": "gpt-4o", "error": {"code": "x", "message": f"echo {quoted}"},
                      "output": [{"type": "message", "role": "assistant", "id": f"m{i}",
                                  "content": [{"type": "output_text",
                                               "text": f"Your key {said} is set"}]}],
                      "usage": {"input_tokens": 3, "output_tokens": 2}}},
        ]
    return write_jsonl(path, records)


ALL_KEYS = [k for k, _, _ in KEYS]
SECRETS = ([s for _, s, _ in KEYS] + [s.upper() for _, s, _ in KEYS]
           + [OPAQUE[-20:], OPAQUE.upper()[-20:]])


def _assert_no_secret(blob: bytes | str, where: str) -> None:
    data = blob.encode() if isinstance(blob, str) else blob
    leaked = [s for s in SECRETS if s.encode() in data]
    assert not leaked, (where, leaked[:5])


def test_reports_never_write_a_recased_key(tmp_path: Path) -> None:
    cap = _capture(tmp_path / "c.jsonl", ALL_KEYS, TOKENS)
    for fmt in ("text", "markdown", "json"):
        out = traceview("report", str(cap), "--format", fmt, "--width", "400")
        assert_no_traceback(out)
        assert out.returncode == 0, out.stderr[-2000:]
        _assert_no_secret(out.stdout + out.stderr, fmt)
        assert b"SK-[redacted]" in out.stdout or fmt != "json", fmt  # the text arrived
    out = traceview("report", str(tmp_path / "missing" / ("SK-PROJ-" + BODY.upper())))
    _assert_no_secret(out.stdout + out.stderr, "stderr")


def test_exports_never_write_a_recased_key(tmp_path: Path) -> None:
    cap = _capture(tmp_path / "c.jsonl", ALL_KEYS, TOKENS)
    for kind in ("csv", "otlp", "parquet"):
        dest = tmp_path / (f"{kind}.json" if kind == "otlp" else kind)
        out = traceview("export", str(cap), "--to", kind, "-o", str(dest))
        assert_no_traceback(out)
        assert out.returncode == 0, out.stderr[-2000:]
        _assert_no_secret(out.stdout + out.stderr, kind)
        if kind == "parquet":
            import pyarrow.dataset as ds

            text = json.dumps([ds.dataset(d, format="parquet").to_table().to_pylist()
                               for d in sorted(dest.iterdir()) if d.is_dir()], default=str)
        else:
            files = [dest] if dest.is_file() else sorted(dest.rglob("*.*"))
            text = "".join(p.read_text() for p in files)
        assert text, kind
        _assert_no_secret(text, kind)
        if kind == "csv":
            rows = list(csv.DictReader(open(dest / "turns.csv", newline="")))
            assert any("SK-[redacted]" in r["user_text"] for r in rows)


def test_a_screenshot_never_shows_a_recased_key(tmp_path: Path) -> None:
    cap = _capture(tmp_path / "c.jsonl", ALL_KEYS[1::3], TOKENS)
    for view in ("turns", "detail"):
        svg = tmp_path / f"{view}.svg"
        out = traceview("screenshot", str(cap), "-o", str(svg), "--view", view,
                        "--turn", "2", "--size", "200x60")
        assert_no_traceback(out)
        assert out.returncode == 0, out.stderr[-2000:]
        _assert_no_secret(_svg_text(svg.read_text()), view)
        _assert_no_secret(svg.read_bytes(), view)


def _svg_text(svg: str) -> str:
    body = re.sub(r"<style.*?</style>", "", svg, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\xa0", " ")


@pytest.mark.parametrize("casing", [c for c in CASINGS if c != "issued"])
async def test_the_inspector_never_shows_a_recased_key(tmp_path: Path, casing: str) -> None:
    """A turn quoting the key (input, output, header) rendered in the turns table, its
    detail and its raw bodies: the mask is on screen, the key nowhere."""
    key = CASINGS[casing]("sk-proj-" + BODY)
    cap = _capture(tmp_path / "c.jsonl", [key], [OPAQUE])
    app = make_app([str(cap)])
    secrets = [key[8:32], key[8:32].upper(), OPAQUE[-20:]]
    async with app.run_test(size=(200, 60)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = ""
        for keys in ([], ["enter"], ["r"]):
            for k in keys:
                await pilot.press(k)
                await app.workers.wait_for_complete()
                await pilot.pause()
            screen = _svg_text(app.export_screenshot())
            assert not [s for s in secrets if s in screen], (keys, screen[:400])
            shown += screen
        assert "SK-[redacted]" in shown or f"{key[:3]}[redacted]" in shown
