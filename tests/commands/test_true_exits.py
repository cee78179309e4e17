"""Exits that are true (issue 32): a command that could not do what was asked exits
non-zero, says why in one place, and writes nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from traceview.cli import main
from traceview.experiment.plan import Unit
from traceview.experiment.runner import Progress
from traceview.safety.sanitise import SafeStream

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = str(ROOT / "sample_traces" / "claims.jsonl")


def test_screenshot_of_compare_on_a_plain_capture_fails_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "c.svg"
    assert main(["screenshot", CLAIMS, "--view", "compare", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "cannot compare" in err and "nothing written" in err
    assert not out.exists()


@pytest.mark.parametrize("name", ["x.jpg", "x.jpeg", "x.gif", "x"])
def test_screenshot_refuses_a_suffix_it_cannot_write(tmp_path, capsys, name):
    out = tmp_path / name
    assert main(["screenshot", CLAIMS, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "written as .svg or .png" in err and "nothing written" in err
    assert not out.exists()


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _progress_output(raw: io.StringIO) -> str:
    progress = Progress(SafeStream(raw), 2, 0)
    progress.unit(Unit("A", "conv_one", 1))
    progress.unit(Unit("B", "conv_one", 1))
    progress.finish()
    return raw.getvalue()


def test_progress_on_a_terminal_is_rich_in_place_never_escapes_shown_as_text():
    text = _progress_output(Tty())
    assert "\\x1b" not in text and "\\r" not in text  # control shown as text
    assert "\x1b[" in text  # Rich's own cursor control, sent to the terminal
    assert "2/2" in text and "B conv_one run 1" in text


def test_progress_when_piped_is_plain_lines():
    text = _progress_output(io.StringIO())
    lines = text.splitlines()
    assert len(lines) == 2 and "\x1b" not in text and "\r" not in text and "\\x1b" not in text
    assert lines[0].startswith("[1/2] A conv_one run 1 · 0:0")
    assert lines[1].endswith("spend $0.0000 (from usage)")


@pytest.mark.parametrize("command", [["diff", CLAIMS], ["fetch", CLAIMS], ["fidelity", CLAIMS],
                                     ["ab", CLAIMS, "-o", "{tmp}/ab"]])
def test_a_malformed_base_url_is_a_usage_error_before_any_request(command, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in command]
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--base-url", "notaurl"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --base-url: not a URL: 'notaurl'" in err
    assert list(tmp_path.iterdir()) == []


def test_hydrate_says_a_malformed_base_url_in_one_line(tmp_path, capsys):
    out = tmp_path / "h.jsonl"
    assert main(["hydrate", "resp_0123456789abcdef", "-o", str(out),
                 "--base-url", "notaurl"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("traceview hydrate: --base-url: not a URL: 'notaurl'")
    assert err.count("\n") == 1 and not out.exists()


PROVIDER_COMMANDS = [  # every command that reads the provider, as it is asked to
    ["fetch", CLAIMS, "-o", "{tmp}/snap.json"],
    ["diff", CLAIMS, "--live"],
    ["fidelity", CLAIMS, "--live"],
    ["context", CLAIMS, "--turn", "1", "--live"],
    ["report", CLAIMS, "--live"],
    ["objects", "{tmp}/claims.jsonl", "--verify", "--live"],
    ["reconcile", CLAIMS, "--live"],
    ["hydrate", "resp_0123456789abcdef", "-o", "{tmp}/h.jsonl"],
]


def _provider_argv(command, tmp_path, monkeypatch, url):
    """``command`` to run with ``$OPENAI_BASE_URL`` set to ``url`` (the keys set, so the
    URL is what decides; a copy of the capture for objects --verify to write beside)."""
    import shutil

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    monkeypatch.setenv("OPENAI_ADMIN_KEY", "sk-admin-dummy")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    shutil.copy(CLAIMS, tmp_path / "claims.jsonl")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in command]
    return [*argv, "--timeout", "1", "--max-retries", "0"]


@pytest.mark.parametrize("command", PROVIDER_COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("url", ["http://[bad/v1", "http://127.0.0.1:99999/v1", "not a url",
                                 "http://user:pw-SECRET-1@[bad/v1"])
def test_a_malformed_openai_base_url_is_refused_before_any_request(command, url, tmp_path,
                                                                   monkeypatch, capsys):
    """$OPENAI_BASE_URL is checked by the check --base-url gets (it was a ValueError
    traceback from host_of, or "cannot reach :" after a request to nowhere)."""
    assert main(_provider_argv(command, tmp_path, monkeypatch, url)) == 2
    out, err = capsys.readouterr()
    shown = url.replace("user:pw-SECRET-1", "[redacted]")  # the user name too
    said = (f"$OPENAI_BASE_URL: not a URL: {shown!r}; give the provider's base URL, e.g. "
            "https://api.openai.com/v1 or http://127.0.0.1:8080/v1.")
    if command[0] == "objects":
        assert err == f"traceview: {said} Nothing was written.\n"
    else:
        assert err == f"traceview {command[0]}: {said}\n"
    assert out == "" and "SECRET" not in err
    assert [p.name for p in tmp_path.iterdir()] == ["claims.jsonl"]  # nothing written


@pytest.mark.parametrize("command", PROVIDER_COMMANDS, ids=lambda c: c[0])
def test_a_closed_port_in_openai_base_url_is_the_connection_error(command, tmp_path,
                                                                  monkeypatch, capsys):
    """A well-formed URL nothing listens on: the provider could not be reached, said as
    such (fidelity says it in its verdict), no traceback."""
    code = main(_provider_argv(command, tmp_path, monkeypatch, "http://127.0.0.1:9/v1"))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if command[0] == "fidelity":  # a score of what could be read: the verdict says why
        assert code == 1
        return
    assert code == 2 and "cannot reach 127.0.0.1:9" in err
    assert [p.name for p in tmp_path.iterdir()] == ["claims.jsonl"]


@pytest.mark.parametrize(("argv", "said"), [
    (["report", CLAIMS, "--deposit-ratio", "-5"], "--deposit-ratio: must be a number at least 0"),
    (["report", CLAIMS, "--deposit-ratio", "nan"], "--deposit-ratio: must be a number"),
    (["report", CLAIMS, "--deposit-min-tokens", "-1"], "--deposit-min-tokens: must be at least 0"),
    (["report", CLAIMS, "--compaction-min-drop", "-3"], "--compaction-min-drop: must be at least"),
    (["context", CLAIMS, "--turn", "0"], "--turn: must be at least 1"),
    (["screenshot", CLAIMS, "-o", "x.svg", "--turn", "-2"], "--turn: must be at least 1"),
    (["diff", CLAIMS, "--timeout", "0"], "--timeout: must be a number above 0"),
    (["diff", CLAIMS, "--max-pages", "0"], "--max-pages: must be at least 1"),
    (["diff", CLAIMS, "--max-retries", "-1"], "--max-retries: must be at least 0"),
    (["compare", CLAIMS, "--resamples", "0"], "--resamples: must be at least 1"),
    (["ab", CLAIMS, "-o", "x", "--runs", "0"], "--runs: must be at least 1"),
    (["ab", CLAIMS, "-o", "x", "--sample", "-1"], "--sample: must be at least 1"),
    (["export", CLAIMS, "--to", "csv", "--jobs", "0"], "--jobs: must be at least 1"),
    (["sim", "--port", "70000"], "--port: must be from 0 to 65535"),
])
def test_numbers_out_of_range_are_argparse_errors(argv, said, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert f"error: argument {said}" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["resp_abc", "resp_12345678!", "rsp_0123456789", "0123456789"])
def test_hydrate_refuses_a_malformed_id_instead_of_dropping_it(bad, tmp_path, capsys):
    out = tmp_path / "h.jsonl"
    assert main(["hydrate", "resp_0123456789abcdef", bad, "-o", str(out),
                 "--base-url", "http://127.0.0.1:9/v1"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: neither a response id nor a file" in err
    assert "resp_ followed by at least 8 letters or digits" in err
    assert not out.exists()


def test_hydrate_404_says_what_hydrate_can_do_not_diffs_advice(tmp_path, capsys, monkeypatch):
    from traceview.sim import SimServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-hydrate-404")
    out = tmp_path / "h.jsonl"
    with SimServer(seed="hydrate-404") as sim:
        code = main(["hydrate", "resp_0123456789abcdef", "-o", str(out),
                     "--base-url", sim.base_url, "--max-retries", "0"])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "resp_0123456789abcdef: not found at 127.0.0.1" in err
    assert "store: false" in err and "cannot be rebuilt" in err
    assert "--items" not in err and "diff against" not in err


def test_an_otlp_export_read_back_keeps_its_hosted_calls(tmp_path, capsys):
    spans = tmp_path / "spans.json"
    assert main(["export", CLAIMS, "--to", "otlp", "-o", str(spans)]) == 0
    capsys.readouterr()

    def report(path: str) -> dict:
        main(["report", path, "--format", "json"])
        return json.loads(capsys.readouterr().out)

    before, after = report(CLAIMS), report(str(spans))
    calls = [[(c["type"], c["id"], c["status"], c["evidence"], c["include"], c["queries"])
              for c in t["hosted_calls"]] for t in before["turns"]]
    assert [len(c) for c in calls] == [0, 1, 0, 1]
    assert [[(c["type"], c["id"], c["status"], c["evidence"], c["include"], c["queries"])
             for c in t["hosted_calls"]] for t in after["turns"]] == calls
    assert [t["markers"] for t in after["turns"]][1] == ["evidence_missing"]


@pytest.mark.parametrize("argv", [
    ["report", "--bogus", "sample_traces/claims.jsonl"],
    ["sql", "select 1", "sample_traces/claims.jsonl", "--bogus"],
    ["export", "sample_traces/claims.jsonl", "--to", "csv", "-o", "out", "--bogus"]])
def test_a_flag_the_command_does_not_take_is_said_by_the_command(argv, capsys):
    """`traceview report --bogus` answered with the top parser's usage, `traceview [-h]
    {report} ...`, which names no flag of the command and reads as if `report` were the
    only command; the command's own parser says it, with its usage."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.startswith(f"usage: traceview {argv[0]} [-h]")
    assert err.endswith(f"traceview {argv[0]}: error: unrecognized arguments: --bogus\n")
