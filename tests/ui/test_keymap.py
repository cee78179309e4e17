"""Users remap keys by binding id."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.ui.app import make_app
from traceview.ui.keymap import KeymapError, binding_ids, load_keymap

from .conftest import sample


def test_every_binding_has_an_id() -> None:
    from traceview.ui.screens.help import binding_groups

    missing = [b.key for _, bs in binding_groups() for b in bs if not b.id]
    assert missing == []
    assert {"app.quit", "app.help"} <= binding_ids()


async def test_remapped_key_runs_the_action(tmp_path: Path, monkeypatch) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[keys]\n"app.help" = "x"\n')
    monkeypatch.setenv("TRACEVIEW_KEYMAP", str(keymap))
    app = make_app([sample("claims")])
    app.keymap = load_keymap()
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("x")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"


@pytest.mark.parametrize("text,needle", [
    ('[keys]\n"app.qiut" = "x"\n', "unknown binding id(s) app.qiut"),
    ('[keys]\n"app.quit" = 3\n', "app.quit: must be a key string, not int"),
    # Keys no terminal can send were accepted: "ctrl+" left quit only in the palette.
    ('[keys]\n"app.quit" = "ctrl+"\n', "app.quit: 'ctrl+' has no key after ctrl+"),
    ('[keys]\n"app.quit" = ","\n', "app.quit: ',' has an empty key between or beside its "
                                   "commas; a comma separates alternatives, so the comma "
                                   "key is named comma (ctrl+comma)"),
    ('[keys]\n"app.quit" = "q,"\n', "app.quit: 'q,' has an empty key"),
    ('[keys]\n"app.quit" = "ctrl+,"\n',
     "app.quit: 'ctrl+,': 'ctrl+' has no key after ctrl+; a comma"),
    ('[keys]\n"app.quit" = "ctrl++"\n', "the + key is named plus (ctrl+plus)"),
    ('[keys]\n"app.quit" = "ctlr+q"\n',
     "app.quit: 'ctlr+q': 'ctlr' is not a modifier (one of ctrl, shift, alt, meta, super, "
     "hyper)"),
    ('[keys]\n"app.quit" = "ctrl+qq"\n',
     "app.quit: 'ctrl+qq': 'qq' is not a key name Textual knows"),
    ('[keys]\n"app.quit" = "ctrl+?"\n',
     "'?' must be written by name after a modifier (question_mark)"),
    ('[keys]\n"app.quit" = ""\n', "app.quit: is empty; give a key"),
    # Refused, but as "must be non-empty strings", which it is.
    ('[keys]\n"app.quit" = "\\u202e"\n',
     "app.quit: '\\u202e' holds a control or format character, which no key is"),
    ('[keys]\n"app.quit" = "\\u001b]0;pwned\\u0007"\n', "holds a control or format"),
    ("[keys\n", "not valid TOML"),
    # Bindings above any table were read as no keymap at all, silently.
    ('"app.quit" = "ctrl+q"\n', "app.quit is outside the [keys] table, where bindings go: "
                               'a line [keys], then "binding.id" = "key" lines'),
    ('app.quit = "ctrl+q"\n"app.help" = "x"\n[keys]\n"app.quit" = "q"\n',
     "app.help, app.quit are outside the [keys] table"),
    ('[key]\n"app.quit" = "ctrl+q"\n', "key.app.quit is outside the [keys] table"),
])
def test_bad_keymap_is_refused_with_the_file_named(tmp_path: Path, text: str,
                                                   needle: str) -> None:
    keymap = tmp_path / "k.toml"
    keymap.write_text(text)
    with pytest.raises(KeymapError, match="k.toml") as err:
        load_keymap(keymap)
    assert needle in str(err.value)


def test_no_default_file_means_no_keymap(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("TRACEVIEW_KEYMAP", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert load_keymap() == {}


@pytest.mark.parametrize("key", ["q", "ctrl+q", "n,m", "?", "comma", "f2", "pageup",
                                 "escape", "space", "shift+tab", "ctrl+comma", "slash",
                                 "question_mark", "alt+shift+x", "ctrl+shift+up", "enter"])
def test_keys_a_terminal_can_send_are_accepted(tmp_path: Path, key: str) -> None:
    keymap = tmp_path / "k.toml"
    keymap.write_text(f'[keys]\n"app.quit" = "{key}"\n')
    assert load_keymap(keymap) == {"app.quit": key}


async def test_ctrl_c_names_the_remapped_quit_key(tmp_path: Path) -> None:
    keymap = tmp_path / "k.toml"
    keymap.write_text('[keys]\n"app.quit" = "ctrl+q"\n')
    app = make_app([sample("claims")])
    app.keymap = load_keymap(keymap)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+c")
        await pilot.pause()
        [note] = [n for n in app._notifications if "quit" in n.message]
        assert note.message.startswith("press ctrl+q to quit"), note.message
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0
