"""The analysis thresholds from the config file (issue 32): the documented file sets them,
a flag overrides the file, a bad value is a usage error naming file and key, and the
report's `options` says which were used and where they came from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from traceview.cli import main
from traceview.config import load_settings, save_setting, save_theme

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = str(ROOT / "sample_traces" / "claims.jsonl")


@pytest.fixture
def config(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("TRACEVIEW_CONFIG", str(path))
    return path


def _report(capsys, *flags: str) -> dict:
    main(["report", CLAIMS, "--format", "json", *flags])
    return json.loads(capsys.readouterr().out)


def test_without_a_config_file_the_defaults_are_reported(capsys):
    # No $TRACEVIEW_CONFIG, an empty config home (tests/conftest.py): no file, no error.
    doc = _report(capsys)
    assert doc["options"] == {"deposit_min_tokens": 500, "deposit_ratio": 0.25,
                              "compaction_min_drop": 0, "pricing": None, "from_format": None,
                              "config": None, "from_config": []}
    assert "deposit" in doc["turns"][2]["markers"]  # +4,001 on turn 3


def test_the_config_file_sets_thresholds_and_a_flag_overrides_it(config, capsys):
    config.write_text('theme = "nord"\ndeposit_min_tokens = 5000\ndeposit_ratio = 1\n')
    doc = _report(capsys)
    assert doc["options"]["deposit_min_tokens"] == 5000
    assert doc["options"]["deposit_ratio"] == 1
    assert doc["options"]["config"] == str(config)
    assert doc["options"]["from_config"] == ["deposit_min_tokens", "deposit_ratio"]
    assert "deposit" not in doc["turns"][2]["markers"]  # 4,001 < 5,000
    doc = _report(capsys, "--deposit-min-tokens", "500")
    assert doc["options"]["deposit_min_tokens"] == 500
    assert doc["options"]["from_config"] == ["deposit_ratio"]
    assert "deposit" in doc["turns"][2]["markers"]  # 4,001 ≥ 500 and ≥ 1 × 2,109


@pytest.mark.parametrize(("line", "said"), [
    ("deposit_ratio = -5", "deposit_ratio must be a number at least 0"),
    ('deposit_min_tokens = "lots"', "deposit_min_tokens must be a number, not 'lots'"),
    ("compaction_min_drop = 1.5", "compaction_min_drop invalid int value"),
    ("deposit_ratio = [", "not TOML"),
])
def test_a_bad_threshold_in_the_config_is_a_usage_error(config, capsys, line, said):
    config.write_text(line + "\n")
    assert main(["report", CLAIMS, "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"config file {config}" in err and said in err


def test_the_inspector_keeps_the_thresholds_when_it_saves_the_theme(config):
    config.write_text("deposit_min_tokens = 800\ndeposit_ratio = 0.3\n")
    assert save_theme("nord") == config
    settings = load_settings(config)
    assert settings == {"theme": "nord", "deposit_min_tokens": 800, "deposit_ratio": 0.3}


@pytest.mark.parametrize(("line", "said"), [
    ("deposit_min_token = 99999", "unknown key 'deposit_min_token' (did you mean "
                                  "'deposit_min_tokens'?)"),
    ("colour = 1", "unknown key 'colour' (the keys are compaction_min_drop, "
                   "deposit_min_tokens, deposit_ratio, pricing, theme, turns_hidden, "
                   "turns_sort)"),
])
def test_an_unknown_key_in_the_config_is_a_usage_error(config, capsys, line, said):
    """A misspelt threshold silently ignored would leave the default in force unsaid."""
    config.write_text(line + "\n")
    assert main(["report", CLAIMS, "--format", "json"]) == 2
    assert capsys.readouterr() == ("", f"traceview: config file {config}: {said}\n")


def test_a_config_file_named_by_the_environment_must_exist(config, capsys):
    assert not config.exists()
    assert main(["report", CLAIMS, "--format", "json"]) == 2
    assert capsys.readouterr() == (
        "", f"traceview: config file {config} (named by $TRACEVIEW_CONFIG): no such file\n")


def _doubled_prices_beside(config):
    """A pricing file beside the config file, every model's prices doubled, named by it."""
    table = json.loads((ROOT / "traceview" / "analysis" / "pricing.json").read_text())
    for prices in table["models"].values():
        for name in ("input", "cached_input", "output"):
            if isinstance(prices.get(name), (int, float)):
                prices[name] *= 2
    (config.parent / "prices.json").write_text(json.dumps(table))
    config.write_text('pricing = "prices.json"\n')


def test_the_config_file_sets_the_pricing_file_beside_it(config, capsys):
    """`pricing` is --pricing's key, its path relative to the config file's folder."""
    _doubled_prices_beside(config)
    bundled = _report(capsys, "--pricing", str(ROOT / "traceview/analysis/pricing.json"))
    doc = _report(capsys)
    assert doc["options"]["pricing"] == str(config.parent / "prices.json")
    assert doc["options"]["config"] == str(config)
    assert doc["options"]["from_config"] == ["pricing"]
    assert doc["totals"]["cost_usd"] > bundled["totals"]["cost_usd"]  # its token prices doubled
    assert bundled["options"]["config"] is None and bundled["options"]["from_config"] == []


@pytest.mark.parametrize(("line", "said"), [
    ('pricing = "nope.json"', "pricing {dir}/nope.json: cannot read pricing file (No such file "
                              "or directory)"),
    ("pricing = 5", "pricing must be a file's path, not 5"),
])
def test_a_bad_pricing_in_the_config_is_a_usage_error(config, capsys, line, said):
    config.write_text(line + "\n")
    assert main(["report", CLAIMS, "--format", "json"]) == 2
    said = said.format(dir=config.parent)
    assert capsys.readouterr() == ("", f"traceview: config file {config}: {said}\n")


def test_the_inspector_keeps_the_pricing_when_it_saves_a_setting(config):
    config.write_text('pricing = "prices.json"\n')
    assert save_theme("nord") == config
    assert load_settings(config) == {"theme": "nord", "pricing": "prices.json"}


def _compare(capsys, *flags: str) -> dict:
    assert main(["compare", CLAIMS, CLAIMS, "--format", "json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_compare_reads_the_config_file_as_report_does(config, capsys):
    """`compare` ignored the config file: its pricing was not used, and a $TRACEVIEW_CONFIG
    naming no file exited 0 where every other command refuses it."""
    _doubled_prices_beside(config)
    doc = _compare(capsys)
    bundled = _compare(capsys, "--pricing", str(ROOT / "traceview/analysis/pricing.json"))
    tokens = ("fresh_input", "cached_input", "output")
    for arm in ("A", "B"):
        got, base = (d["arms"][arm]["cost"]["components_usd"] for d in (doc, bundled))
        assert [got[k] for k in tokens] == pytest.approx([2 * base[k] for k in tokens])


def test_compare_refuses_a_missing_or_bad_config_file(config, capsys):
    assert main(["compare", CLAIMS, CLAIMS, "--format", "json"]) == 2
    assert capsys.readouterr() == (
        "", f"traceview compare: config file {config} (named by $TRACEVIEW_CONFIG): no such "
            "file\n")
    config.write_text("deposit_ratio = -1\n")  # the thresholds move its arms' markers
    assert main(["compare", CLAIMS, CLAIMS, "--format", "json"]) == 2
    assert capsys.readouterr() == (  # no --deposit-ratio to override it with: compare has none
        "", f"traceview compare: config file {config}: deposit_ratio must be a number at "
            "least 0, not -1; fix it\n")


def test_a_config_file_that_is_a_directory_is_said_so(tmp_path, monkeypatch, capsys):
    """It said `cannot read ([Errno 21] Is a directory: 3)`: a descriptor's number for the
    file's name."""
    monkeypatch.setenv("TRACEVIEW_CONFIG", str(tmp_path))
    assert main(["report", CLAIMS, "--format", "json"]) == 2
    assert capsys.readouterr() == (
        "", f"traceview: config file {tmp_path} (named by $TRACEVIEW_CONFIG): is a directory, "
            "not a config file\n")


def test_a_config_file_that_is_no_regular_file_is_said_plainly(tmp_path, monkeypatch, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("TRACEVIEW_CONFIG", str(fifo))
    assert main(["report", CLAIMS, "--format", "json"]) == 2
    assert capsys.readouterr() == (  # was "cannot read ([Errno None] not a regular file)"
        "", f"traceview: config file {fifo} (named by $TRACEVIEW_CONFIG): cannot read (not a "
            "regular file)\n")


@pytest.mark.parametrize(("line", "said"), [
    ("theme = 7", "theme must be a string, not 7"),
    ('turns_hidden = "ms"', "turns_hidden must be a list of column names, not 'ms'"),
    ("turns_hidden = [1]", "turns_hidden must be a list of column names, not [1]"),
    ("turns_sort = true", "turns_sort must be a string, not True"),
])
def test_a_wrong_typed_inspector_setting_is_a_usage_error(config, capsys, line, said):
    """Ignored, it would leave the user wondering why the theme never changes (and the
    inspector's next save would drop it)."""
    config.write_text(line + "\n")
    assert main(["report", CLAIMS, "--format", "json"]) == 2
    assert capsys.readouterr() == ("", f"traceview: config file {config}: {said}\n")


def test_saving_a_setting_keeps_the_users_comments_and_layout(config):
    text = ("# my traceview settings\n"
            "deposit_min_tokens = 800   # big deposits only\n"
            "\n"
            'theme = "nord"  # dark\n'
            "deposit_ratio = 0.3\n")
    config.write_text(text)
    assert save_theme("gruvbox") == config
    assert config.read_text() == text.replace('theme = "nord"  # dark', 'theme = "gruvbox"')
    assert save_setting("turns_hidden", ["ms", "reasoning"]) == config
    assert config.read_text().endswith('deposit_ratio = 0.3\nturns_hidden = ["ms", '
                                       '"reasoning"]\n')
    assert load_settings(config) == {"theme": "gruvbox", "deposit_min_tokens": 800,
                                     "deposit_ratio": 0.3, "turns_hidden": ["ms", "reasoning"]}


def test_a_setting_spread_over_lines_is_saved_whole(config):
    """A list written over several lines is replaced whole, its lines and no others: the
    user's comments around it stay."""
    config.write_text('# columns I never read\nturns_hidden = [\n  "ms",\n]\n'
                      'deposit_ratio = 0.3  # fewer deposits\n')
    assert save_setting("turns_hidden", ["reasoning"]) == config
    assert config.read_text() == ('# columns I never read\nturns_hidden = ["reasoning"]\n'
                                  'deposit_ratio = 0.3  # fewer deposits\n')
    assert load_settings(config) == {"turns_hidden": ["reasoning"], "deposit_ratio": 0.3}


def test_a_key_written_inside_another_settings_string_is_not_the_one_replaced(config):
    text = '# prices\npricing = """\ntheme = "x"\n"""\ntheme = "nord"\n'
    config.write_text(text)
    assert save_theme("gruvbox") == config
    assert config.read_text() == text.replace('"nord"', '"gruvbox"')


def test_saving_a_setting_writes_through_a_symlinked_config(tmp_path, monkeypatch):
    """Dotfiles kept in a repository are often symlinked into place: the link stays, the
    file it points to gets the setting, its mode kept."""
    real = tmp_path / "dotfiles" / "traceview.toml"
    real.parent.mkdir()
    real.write_text("deposit_ratio = 0.3\n")
    real.chmod(0o600)
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    monkeypatch.setenv("TRACEVIEW_CONFIG", str(link))
    assert save_theme("nord") == link
    assert link.is_symlink() and real.read_text() == 'deposit_ratio = 0.3\ntheme = "nord"\n'
    assert real.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in real.parent.iterdir()) == ["traceview.toml"]


@pytest.mark.parametrize("raw", [b'# half-edited\ntheme = "nord\n',
                                 b"# caf\xe9 settings\ntheme = 'nord'\n",
                                 b'\xef\xbb\xbftheme = "nord"\n'])
def test_a_config_that_does_not_read_is_not_overwritten(config, raw):
    """A file the user is half-way through editing (or saved in another encoding) is not
    replaced by the one setting: the save fails (the inspector says so), the file kept."""
    config.write_bytes(raw)
    assert save_theme("gruvbox") is None
    assert config.read_bytes() == raw


def test_a_read_only_config_is_not_replaced(config, monkeypatch):
    """A file its owner made read-only is theirs to change: the save says it failed
    (renaming over it would have worked, the directory being writable)."""
    import os

    config.write_text('theme = "nord"\n')
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if str(p) == str(config)
                        and mode == os.W_OK else real_access(p, mode, **kw))
    assert save_theme("gruvbox") is None
    assert config.read_text() == 'theme = "nord"\n'


def test_a_crlf_config_keeps_its_line_endings(config):
    config.write_bytes(b"# mine\r\ndeposit_ratio = 0.3\r\ntheme = \"nord\"\r\n")
    assert save_theme("gruvbox") == config
    assert config.read_bytes() == b"# mine\r\ndeposit_ratio = 0.3\r\ntheme = \"gruvbox\"\r\n"
    assert save_setting("turns_sort", "ms") == config
    assert config.read_bytes().endswith(b"theme = \"gruvbox\"\r\nturns_sort = \"ms\"\r\n")


def test_a_quoted_key_is_replaced_in_place(config):
    config.write_text('# mine\n"theme" = "nord"  # dark\ndeposit_ratio = 0.3\n')
    assert save_theme("gruvbox") == config
    assert config.read_text() == '# mine\ntheme = "gruvbox"\ndeposit_ratio = 0.3\n'
