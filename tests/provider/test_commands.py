"""``fetch`` and ``diff`` end to end: capture file → real SDK → loopback fake → output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from traceview.cli import main
from traceview.provider.snapshot import load_items

from .fakeserver import FakeProvider, Store
from .test_diff import RESULTS, answer, fs_call, listed_user

KEY = "sk-test-SECRET-0123456789"
FIXTURES = Path(__file__).parent / "fixtures"


def write_capture(path: Path, conversation: str = "conv_1") -> Path:
    lines = [
        {"dir": "req", "body": {"model": "gpt-x", "conversation": conversation,
                                "input": "My washing machine broke"}},
        {"dir": "res", "elapsed_ms": 900, "body": {
            "id": "resp_1", "object": "response", "status": "completed",
            "conversation": {"id": conversation}, "output": [answer(1, "Sorry to hear that.")],
            "usage": {"input_tokens": 20, "output_tokens": 5}}},
        {"dir": "req", "body": {"model": "gpt-x", "conversation": conversation,
                                "tools": [{"type": "file_search"}],
                                "input": [{"role": "user", "content": "Is it covered?"}]}},
        {"dir": "res", "elapsed_ms": 1500, "body": {
            "id": "resp_2", "object": "response", "status": "completed",
            "conversation": {"id": conversation},
            "output": [fs_call(None), answer(2, "Yes, up to £500.")],
            "usage": {"input_tokens": 60, "output_tokens": 9}}},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def stored_items() -> list[dict[str, Any]]:
    return [listed_user(1, "My washing machine broke"), answer(1, "Sorry to hear that."),
            listed_user(2, "Is it covered?"), fs_call(RESULTS), answer(2, "Yes, up to £500.")]


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TV_TEST_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def live_args(url: str) -> list[str]:
    return ["--base-url", url, "--api-key-env", "TV_TEST_KEY", "--max-retries", "0"]


def test_live_diff_reports_hosted_results_the_capture_missed(
    env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = write_capture(tmp_path / "c.jsonl")
    store = Store(conversations={"conv_1": stored_items()}, key=KEY)
    with FakeProvider(store.route) as fp:
        code = main(["diff", str(cap), "--live", "--format", "json", *live_args(fp.base_url)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert doc["schema"] == "traceview.diff/1" and doc["conversation"] == "conv_1"
    assert doc["complete"] is True and doc["pages"] == 1
    assert doc["counts"] == {"same": 4, "changed": 1, "provider_only": 0, "capture_only": 0}
    assert "file-search results that this capture never recorded" in doc["verdict"]


def test_fetch_saves_a_keyless_snapshot_that_diffs_like_live(
    env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = write_capture(tmp_path / "c.jsonl")
    snap = tmp_path / "snap.json"
    store = Store(conversations={"conv_1": stored_items()}, key=KEY)
    with FakeProvider(store.route) as fp:
        assert main(["fetch", str(cap), "-o", str(snap), *live_args(fp.base_url)]) == 0
        host = fp.base_url.split("//")[1].split("/")[0]
    assert "5 items, 1 page, complete" in capsys.readouterr().out
    text = snap.read_text()
    assert KEY not in text and "Bearer" not in text
    doc = json.loads(text)
    assert doc["schema"] == "traceview.snapshot/1" and doc["host"] == host
    assert doc["conversation"] == "conv_1" and doc["complete"] is True and doc["pages"] == 1
    assert doc["item_count"] == 5 and doc["fetched_at"].endswith("Z")
    assert "file_search_call.results" in doc["include"]
    code = main(["diff", str(cap), "--items", str(snap), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["counts"]["changed"] == 1 and out["origin"] == "snapshot"


def test_deleted_conversation_says_to_use_a_snapshot(
    env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = write_capture(tmp_path / "c.jsonl")
    with FakeProvider(Store(key=KEY).route) as fp:
        code = main(["diff", str(cap), *live_args(fp.base_url)])
    err = capsys.readouterr().err
    assert code == 2 and "conv_1" in err and "diff against a saved snapshot" in err
    assert "Traceback" not in err and KEY not in err


def test_wrong_key_is_reported_without_echoing_it(
    env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = write_capture(tmp_path / "c.jsonl")
    with FakeProvider(Store(conversations={"conv_1": []}, key="other").route) as fp:
        code = main(["diff", str(cap), *live_args(fp.base_url)])
    err = capsys.readouterr().err
    assert code == 2 and "$TV_TEST_KEY" in err and KEY not in err and "sk-te" not in err


def test_partial_copy_exits_1_and_says_partial(
    env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = write_capture(tmp_path / "c.jsonl")
    items = stored_items() + [listed_user(i, f"later {i}") for i in range(10, 260)]
    with FakeProvider(Store(conversations={"conv_1": items}, key=KEY).route) as fp:
        code = main(["diff", str(cap), "--format", "json", "--max-pages", "2",
                     *live_args(fp.base_url)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["complete"] is False and doc["pages"] == 2
    assert doc["stopped"]["kind"] == "cursor_runaway" and "PARTIAL" in doc["verdict"]


@pytest.mark.parametrize("args", [["diff", "/nonexistent/c.jsonl", "--items", "x"],
                                  ["diff"], ["fetch", "c.jsonl"]])
def test_bad_arguments_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(args)
    except SystemExit as exc:  # argparse refuses a missing argument by exiting
        status = exc.code
    assert status == 2
    assert "Traceback" not in capsys.readouterr().err


NO_KEY = ("no API key: $TV_NO_KEY is not set. Set it, or name the variable that holds the "
          "key with --api-key-env NAME")


@pytest.mark.parametrize("command, offline", [
    # fetch has no --items: it is how a snapshot is made, so it offers nothing without a key
    ("fetch", "."),
    ("diff", " — or use a saved snapshot with --items FILE, which needs no key."),
    ("fidelity", " — or use a saved snapshot with --items FILE, which needs no key."),
])
def test_no_key_says_what_this_command_can_do(command: str, offline: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("TV_NO_KEY", raising=False)
    cap = write_capture(tmp_path / "c.jsonl")
    out = ["-o", str(tmp_path / "snap.json")] if command == "fetch" else []
    live = ["--live"] if command == "fidelity" else []
    assert main([command, str(cap), *out, *live, "--api-key-env", "TV_NO_KEY",
                 "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert capsys.readouterr().err == f"traceview {command}: {NO_KEY}{offline}\n"
    assert not (tmp_path / "snap.json").exists()


@pytest.mark.parametrize(("flag", "env", "named"), [
    ("http://[bad/v1", None, "--base-url"),
    (None, "http://[bad/v1", "$OPENAI_BASE_URL"),
    ("http://[bad/v1", "http://[bad/v1", "$OPENAI_BASE_URL"),  # the inspector passes it on
    ("http://[bad/v1", "http://127.0.0.1:9/v1", "--base-url"),
])
def test_a_client_is_not_made_for_a_malformed_base_url(flag: str | None, env: str | None,
                                                       named: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The one base-URL check (provider/urls.py), before any request, naming where the URL
    came from; a ProviderError, never the HTTP client's ValueError."""
    from traceview.provider.client import ProviderConfig, make_client
    from traceview.provider.errors import ProviderError

    monkeypatch.setenv("TV_TEST_KEY", KEY)
    if env is None:
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", env)
    with pytest.raises(ProviderError) as exc:
        make_client(ProviderConfig(base_url=flag, api_key_env="TV_TEST_KEY"))
    assert str(exc.value) == (f"{named}: not a URL: 'http://[bad/v1'; give the provider's "
                              "base URL, e.g. https://api.openai.com/v1 or "
                              "http://127.0.0.1:8080/v1.")


def test_unusable_items_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cap = write_capture(tmp_path / "c.jsonl")
    bad = tmp_path / "bad.json"
    bad.write_text('{"dir":"req","body":{}}\nnot json\n')
    assert main(["diff", str(cap), "--items", str(bad)]) == 2
    assert f"{bad}: neither a snapshot nor a capture" in capsys.readouterr().err


def test_text_output_renders_untrusted_text_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = write_capture(tmp_path / "c.jsonl")
    evil = listed_user(7, "[bold red]hi[/]") | {"id": "msg_[red]x\x1b[31m"}
    snap = tmp_path / "s.json"
    snap.write_text(json.dumps({"schema": "traceview.snapshot/1", "conversation": "conv_1",
                                "pages": 1, "complete": True, "include": [],
                                "items": [evil, *stored_items()]}))
    code = main(["diff", str(cap), "--items", str(snap)])
    out = capsys.readouterr().out
    assert code == 1
    assert "\x1b" not in out and "msg_[red]x\\x1b[31m" in out
    assert "+P" in out and "~" in out and "=" in out
    assert "The provider holds 1 item" in out


def test_markdown_output_escapes_cells(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cap = write_capture(tmp_path / "c.jsonl")
    snap = tmp_path / "s.json"
    snap.write_text(json.dumps({"schema": "traceview.snapshot/1", "conversation": "conv_1",
                                "pages": 1, "complete": True,
                                "items": [listed_user(7, "x") | {"id": "a|b"},
                                          *stored_items()]}))
    main(["diff", str(cap), "--items", str(snap), "--format", "markdown"])
    out = capsys.readouterr().out
    assert "**Verdict:**" in out and "a\\|b" in out


def test_recorded_dotnet_listing_parses_as_a_provider_copy() -> None:
    copy = load_items(FIXTURES / "dotnet_conversation_item_endpoints.jsonl")
    assert copy.conversation == "conv_6a64d61271bc81978f6bf8089632a0790f2c9ddbc598f953"
    assert copy.origin == "capture" and copy.complete and copy.pages == 1
    assert copy.include == ["message.input_image.image_url", "web_search_call.action.sources"]
    # recorded newest-first (no order=asc); the copy is oldest-first
    assert [i["content"][0]["text"] for i in copy.items] == ["first item", "second item"]


def test_recorded_dotnet_conversation_diffs_clean_against_its_own_listing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(FIXTURES / "dotnet_conversation_item_endpoints.jsonl")
    assert main(["diff", path, "--items", path, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"] == {"same": 2, "changed": 0, "provider_only": 0, "capture_only": 0}


def test_recorded_pages_merge_following_the_cursor(tmp_path: Path) -> None:
    conv = "conv_p"
    pages = [[listed_user(i, f"q{i}") for i in range(a, a + 2)] for a in (0, 2, 4)]
    lines = []
    for n, page in enumerate(pages):
        after = f"&after={pages[n - 1][-1]['id']}" if n else ""
        lines.append({"dir": "req", "body": None,
                      "endpoint": f"GET /v1/conversations/{conv}/items?limit=2&order=asc{after}"})
        lines.append({"dir": "res", "body": {"object": "list", "data": page,
                                             "last_id": page[-1]["id"], "has_more": n < 2}})
    f = tmp_path / "rec.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines[:4]))
    partial = load_items(f)
    assert partial.pages == 2 and not partial.complete
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    copy = load_items(f)
    assert copy.pages == 3 and copy.complete and len(copy.items) == 6


def test_recorded_input_items_listing_leaves_the_last_output_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(FIXTURES / "dotnet_function_call_previd_input_items.jsonl")
    assert main(["diff", path, "--items", path, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "chain" and doc["complete"] is True
    assert doc["counts"] == {"same": 3, "changed": 0, "provider_only": 0, "capture_only": 0}
    assert [r["type"] for r in doc["rows"]] == ["message", "function_call",
                                                "function_call_output"]
