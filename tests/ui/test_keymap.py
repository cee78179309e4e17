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
    ('[keys]\n"app.quit" = 3\n', "must be non-empty strings"),
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
