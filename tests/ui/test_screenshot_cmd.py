"""`traceview screenshot`: headless SVG/PNG of a chosen view and turn."""

from __future__ import annotations

import argparse
import builtins
import html
import re

import pytest

from traceview.commands import screenshot as command
from traceview.ui import screenshot

from .conftest import sample


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return parser.parse_args(list(argv))


def svg_text(svg: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def test_detail_of_turn_3_as_svg(tmp_path, capsys):
    out = tmp_path / "turn3.svg"
    assert command.run(parse(sample("claims"), "-o", str(out), "--view", "detail",
                                "--turn", "3", "--size", "140x40")) == 0
    text = svg_text(out.read_text())
    assert "turn 3" in text and "6,110" in text and "tokens arrived without a request" in text
    assert "file_search_call.results" in text
    assert str(out) in capsys.readouterr().out


def test_png_swaps_the_web_font(tmp_path, monkeypatch):
    seen = {}
    import cairosvg

    def fake_svg2png(bytestring, write_to):
        seen["svg"] = bytestring.decode()
        open(write_to, "wb").write(b"\x89PNG")

    monkeypatch.setattr(cairosvg, "svg2png", fake_svg2png)
    out = tmp_path / "turns.png"
    assert command.run(parse(sample("claims"), "-o", str(out), "--size", "100x30")) == 0
    assert out.read_bytes().startswith(b"\x89PNG")
    assert "Fira Code" not in seen["svg"] and screenshot.MONO_FAMILY in seen["svg"]


def test_png_without_cairosvg_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    real_import = builtins.__import__

    def no_cairo(name, *args, **kwargs):
        if name == "cairosvg":
            raise ImportError("no cairosvg")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cairo)
    assert command.run(parse(sample("claims"), "-o", str(tmp_path / "x.png"))) == 2
    err = capsys.readouterr().err
    assert "pip install 'traceview[png]'" in err
    assert "(in a clone: .venv/bin/pip install -e '.[png]')" in err  # no PyPI release yet


@pytest.mark.parametrize("size", ["big", "10x3", "160x"])
def test_bad_size_is_a_clear_error(size, capsys, tmp_path):
    assert command.run(parse(sample("claims"), "-o", str(tmp_path / "x.svg"),
                                "--size", size)) == 2
    assert "--size" in capsys.readouterr().err


def test_missing_capture_is_a_clear_error(tmp_path, capsys):
    assert command.run(parse(str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "x.svg"))) == 2
    assert "nope.jsonl" in capsys.readouterr().err


def test_png_rasterises_with_an_installed_monospace_family(monkeypatch, tmp_path):
    import shutil
    import subprocess

    from traceview.ui import screenshot

    if shutil.which("fc-list") is None:
        pytest.skip("fontconfig is not installed")
    family = screenshot.local_mono()
    listed = subprocess.run(["fc-list", ":spacing=mono", "family"], capture_output=True,
                            text=True, check=True).stdout
    assert family in listed
    seen = {}

    class FakeCairo:
        @staticmethod
        def svg2png(bytestring, write_to):
            seen["svg"] = bytestring.decode("utf-8")

    monkeypatch.setitem(__import__("sys").modules, "cairosvg", FakeCairo)
    screenshot.svg_to_png('<svg><style>font-family: "Fira Code", monospace;</style></svg>',
                          tmp_path / "x.png")
    assert "Fira Code" not in seen["svg"] and f'"{family}"' in seen["svg"]


def test_every_inspector_view_can_be_screenshot(tmp_path):
    """A screen the inspector has (`t` latency included) is one `screenshot --view` offers,
    and its picture holds the screen's own numbers."""
    from traceview.ui.screenshot import VIEWS as SHOTS
    from traceview.ui.views import VIEWS as SCREENS

    assert set(SCREENS) <= set(SHOTS)
    from traceview.cli import main

    out = tmp_path / "latency.svg"
    assert main(["screenshot", sample("claims"), "-o", str(out), "--view", "latency",
                 "--size", "80x24"]) == 0
    svg = html.unescape(out.read_text()).replace("\xa0", " ")
    assert "p50" in svg and "p95" in svg


@pytest.mark.parametrize(("content", "said"), [
    ("[1,2,3]\n", "this is a JSON array of 3 values, not a capture; nothing read (traceview "
                  "reads JSONL records, HAR, OpenAI Batch and OTLP JSON files)"),
    ("hello\nworld\n", "not a capture: none of its first 2 lines is a JSON object (line 1: "
                       "'hello'); expected one JSON record per line"),
], ids=["json-array", "text"])
def test_a_file_report_refuses_as_not_a_capture_is_refused_alike(tmp_path, capsys, content,
                                                                  said):
    """Not "wrote …" and exit 0 over a picture of an empty inspector: `report`'s message
    and exit status, nothing written."""
    from traceview.cli import main

    path, out = tmp_path / "input.json", tmp_path / "shot.svg"
    path.write_text(content)
    assert main(["report", str(path)]) == 2
    assert capsys.readouterr() == ("", f"traceview: {path}: {said}\n")
    assert main(["screenshot", str(path), "-o", str(out), "--view", "detail",
                 "--turn", "1"]) == 2
    assert capsys.readouterr() == ("", f"traceview screenshot: {path}: {said}\n")
    assert not out.exists()


def test_the_screenshot_shows_the_users_keymap(tmp_path, monkeypatch):
    """It rendered the default keys whatever the keymap said, and never read the file."""
    keymap = tmp_path / "k.toml"
    keymap.write_text('[keys]\n"app.help" = "f2"\n')
    monkeypatch.setenv("TRACEVIEW_KEYMAP", str(keymap))
    out = tmp_path / "help.svg"
    assert command.run(parse(sample("claims"), "-o", str(out), "--view", "help")) == 0
    text = svg_text(out.read_text())
    assert re.search(r"\bf2\b", text) and not re.search(r"^\s*\?\s+Help", text, re.M), text


def test_a_bad_keymap_refuses_the_screenshot_as_the_inspector_does(tmp_path, monkeypatch,
                                                                   capsys):
    keymap = tmp_path / "k.toml"
    keymap.write_text("[keys]\nkeys = 5\n")
    monkeypatch.setenv("TRACEVIEW_KEYMAP", str(keymap))
    out = tmp_path / "x.svg"
    assert command.run(parse(sample("claims"), "-o", str(out))) == 2
    err = capsys.readouterr().err
    assert "k.toml: unknown binding id(s) keys" in err and "nothing written" in err
    assert not out.exists()


def test_a_compare_of_an_arm_read_with_problems_exits_as_compare_does(tmp_path, capsys):
    """`screenshot --view compare` exited 0 where `compare` on the same arms exits 1 (an
    arm's capture read with problems): the picture is written, and the exit and the line
    on stderr say what `report` would."""
    from tests.fixtures_shared import SAMPLES
    from traceview.cli import main

    arm_a = tmp_path / "A.jsonl"
    arm_a.write_bytes((SAMPLES / "ab" / "A.jsonl").read_bytes() + b"{bad json\n")
    out = tmp_path / "cmp.svg"
    assert main(["screenshot", "--view", "compare", str(arm_a), str(SAMPLES / "ab" / "B.jsonl"),
                 "-o", str(out)]) == 1
    assert out.read_text().startswith("<svg")
    assert capsys.readouterr().err == (
        "traceview screenshot: 1 problem while reading; everything readable is shown\n")
