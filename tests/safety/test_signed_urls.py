"""A signed URL's secrets masked at every output: an image or file given by URL in a
request carries its signature (S3's X-Amz-Signature, GCS's X-Goog-Signature, Azure SAS
sig=), its credential (X-Amz-Credential) and a session token (X-Amz-Security-Token), which
reached reports, exports, the inspector and captures written in clear."""

from __future__ import annotations

import html
import re
from pathlib import Path

import openai
import orjson
import pytest

import traceview.record
from tests.hostile.corpus import write_jsonl
from tests.record.conftest import API_KEY
from traceview.cli import main
from traceview.record.proxy_server import ProxyServer
from traceview.record.writer import CaptureWriter
from traceview.safety.redact import _hinted_lines, redact_json, redact_text
from traceview.sim import SimServer
from traceview.ui.app import make_app

S3_SIG = "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
R2_KEY = "3f5a2c4b1e9d8f7a6b5c4d3e2f1a0b9c"  # an S3-compatible store's key id: no AKIA shape
SESSION = "IQoJb3JpZ2luX2VjEJr%2F%2F%2F%2FwEaCXVzLWVhc3QtMSJHMEUCIQDxyz"
GCS_SIG = "2d2a6f5055eb004b8690b9479883292ae7450cdc15f17d7f99bc49b916f9e7429106ed7a58"
SAS_SIG = "Zk3vQm8pLw0aBcDeFgHiJkLmNoPqRsTuVw%3D"
S3 = ("https://bucket.s3.amazonaws.com/cat.png?X-Amz-Algorithm=AWS4-HMAC-SHA256"
      "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261206%2Fus-east-1%2Fs3%2Faws4_request"
      f"&X-Amz-Date=20261206T000000Z&X-Amz-Expires=3600&X-Amz-Signature={S3_SIG}")
S3_SESSION = (f"https://acc.r2.cloudflarestorage.com/b/doc.pdf?X-Amz-Security-Token={SESSION}"
              f"&x-amz-credential={R2_KEY}%2F20261206%2Fauto%2Fs3%2Faws4_request"
              f"&x-amz-signature={S3_SIG}")
GCS = ("https://storage.googleapis.com/b/photo.jpg?X-Goog-Algorithm=GOOG4-RSA-SHA256"
       "&X-Goog-Date=20261206T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host"
       f"&X-Goog-Signature={GCS_SIG}")
SAS = f"https://acct.blob.core.windows.net/c/scan.png?sv=2024-05-04&sp=r&sig={SAS_SIG}"
URLS = {"s3": S3, "s3-session": S3_SESSION, "gcs": GCS, "azure-sas": SAS}
SECRETS = (S3_SIG, "AKIAIOSFODNN7EXAMPLE", R2_KEY, SESSION, GCS_SIG, SAS_SIG)


def _leaks(text: str | bytes) -> list[str]:
    raw = text if isinstance(text, str) else text.decode("utf-8", "replace")
    return [s for s in SECRETS if s in raw]


@pytest.mark.parametrize("url", URLS.values(), ids=list(URLS))
def test_the_signature_credential_and_token_are_masked_the_rest_kept(url: str) -> None:
    masked = redact_text(url)
    assert not _leaks(masked) and "[redacted]" in masked
    assert masked.split("?")[0] == url.split("?")[0]  # where the file is stays readable
    assert redact_text(masked) == masked
    assert _hinted_lines(url.lower().encode())  # the pre-check sees it, in any case
    doc = redact_json(orjson.dumps({"image_url": url}))
    assert not _leaks(doc) and orjson.loads(doc)


def test_an_ampersand_as_go_writes_it_in_json() -> None:
    doc = ('{"u": "' + S3.replace("&", "\\u0026") + '"}').encode()
    out = redact_json(doc)
    assert not _leaks(out) and orjson.loads(out)["u"].startswith("https://bucket.s3")


def test_x_amz_date_and_expiry_are_not_secrets() -> None:
    assert "X-Amz-Date=20261206T000000Z&X-Amz-Expires=3600" in redact_text(S3)


# Each secret early in a short URL: a report quotes a turn's first 160 characters.
QUOTED = [f"https://h.example/o.png?{name}={value}&X-Amz-Date=20261206T000000Z" for name, value in (
    ("X-Amz-Signature", S3_SIG), ("X-Amz-Credential", f"{R2_KEY}%2F20261206%2Fauto"),
    ("X-Amz-Security-Token", SESSION), ("X-Goog-Signature", GCS_SIG), ("sig", SAS_SIG))]


def _capture(path: Path) -> Path:
    """A turn per quoted URL, each with the signed URLs as images and a file."""
    parts = [{"type": "input_image", "image_url": S3}, {"type": "input_image", "image_url": GCS},
             {"type": "input_file", "file_url": S3_SESSION},
             {"type": "input_image", "image_url": SAS}]
    records: list[dict[str, object]] = []
    for n, url in enumerate(QUOTED):
        content = [{"type": "input_text", "text": url}, *parts]
        records += [
            {"dir": "req", "id": f"r{n}", "body": {"model": "gpt-4.1", "input": [
                {"type": "message", "role": "user", "content": content}]}},
            {"dir": "res", "id": f"r{n}", "status_code": 200, "body": {
                "object": "response", "id": f"resp_{n}", "status": "completed",
                "model": "gpt-4.1", "output": [{"type": "message", "role": "assistant",
                                                "id": f"m{n}", "content": [
                    {"type": "output_text", "text": f"I fetched {url}"}]}],
                "usage": {"input_tokens": 900, "output_tokens": 20}}}]
    return write_jsonl(path, records)


@pytest.mark.parametrize("args", [["--format", "json", "--explain"], ["--format", "text"],
                                  ["--format", "markdown"]], ids=["json", "text", "markdown"])
def test_no_report_writes_them(args: list[str], tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    main(["report", str(_capture(tmp_path / "c.jsonl")), *args, "--width", "400"])
    out, err = capsys.readouterr()
    assert not _leaks(out + err)
    assert "[redacted]" in out or args[1] != "json"  # text and markdown quote no user text


@pytest.mark.parametrize("to", ["csv", "parquet"])
def test_no_export_row_holds_them(to: str, tmp_path: Path) -> None:
    assert main(["export", str(_capture(tmp_path / "c.jsonl")), "--to", to, "-o",
                 str(tmp_path / "out")]) == 0
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file())
    if to == "csv":
        assert b"[redacted]" in written
    assert not _leaks(written)


def _screen(app) -> str:  # what the SVG export shows, as plain text
    body = re.sub(r"<style.*?</style>", "", app.export_screenshot(), flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\xa0", " ")


async def test_the_inspector_detail_and_raw_views_mask_them(tmp_path: Path) -> None:
    app = make_app([str(_capture(tmp_path / "c.jsonl"))])
    async with app.run_test(size=(200, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for key in ("enter", "r"):  # the turn's detail, then its raw records
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
            shown = _screen(app)
            assert "o.png?X-Amz-Signature=[redacted]&X-Amz-Date" in shown, key
            assert not _leaks(shown), key
        assert "scan.png?sv=2024-05-04&sp=r&sig=[redacted]" in shown  # the raw request


def test_a_capture_written_by_the_writer_holds_none(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    with CaptureWriter(path) as w:
        w.write({"dir": "req", "body": {"input": [{"type": "input_image", "image_url": S3}]}})
    assert b"[redacted]" in path.read_bytes() and not _leaks(path.read_bytes())


@pytest.mark.parametrize("via", ["recorder", "proxy"])
def test_a_capture_recorded_through_the_sdk_holds_none(via: str, tmp_path: Path) -> None:
    out = tmp_path / f"{via}.jsonl"
    content = [{"type": "input_text", "text": "what is in it?"},
               {"type": "input_image", "image_url": S3}, {"type": "input_file", "file_url": GCS}]
    with SimServer(seed="signed") as sim:
        if via == "recorder":
            client = traceview.record.client(out, base_url=sim.base_url, api_key=API_KEY,
                                             max_retries=0)
            client.responses.create(model="gpt-4.1", input=[{"role": "user", "content": content}])
        else:
            with ProxyServer(out, upstream=sim.base_url) as proxy:
                openai.OpenAI(base_url=proxy.base_url, api_key=API_KEY, max_retries=0
                              ).responses.create(model="gpt-4.1",
                                                 input=[{"role": "user", "content": content}])
                proxy.flush()
    raw = out.read_bytes()
    assert b"cat.png?X-Amz-Algorithm" in raw and not _leaks(raw)
