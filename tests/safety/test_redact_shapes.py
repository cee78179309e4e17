"""The masker's shapes, case by case: what each rule masks and keeps, where a search
begins inside a run of name characters, and shapes that repeat along a run.

The masker finds some rules once per run rather than from every place (runs.py,
mask.py's `_inside`), so that it stays linear on hostile text
(tests/hostile/test_redact_runs.py); these cases state what it masks there.
"""

from __future__ import annotations

import pytest

from traceview.safety import mask as masker
from traceview.safety.mask import mask

# A value ends where another secret's name begins, and a name may begin after a "_" or "-"
# inside a run that an earlier match (a glued AWS key, a cut value) ended in.
INSIDE = [
    ('api_key=\\tfoo_secret : hunter2222',
     'api_key=\\t[redacted]secret : [redacted]'),
    ('api_key=\\u0020foo-password = hunter2222 more',
     'api_key=\\u0020[redacted]password = [redacted] more'),
    ('AKIAIOSFODNN7EXAMPLEx_password: hunter2222',
     'AKIAIOSFODNN7EXAMPLEx_password: [redacted]'),
    ('AKIAIOSFODNN7EXAMPLE_secret: hunter2222',
     'AKIAIOSFODNN7EXAMPLE_secret: [redacted]'),
    ('xAKIAIOSFODNN7EXAMPLEa-b_secret=hunter2222',
     'xAKIAIOSFODNN7EXAMPLEa-b_secret=[redacted]'),
    ('AKIAIOSFODNN7EXAMPLEaAKIAIOSFODNN7EXAMPLE_x_api_key: Zx12Cv34Bn56Qw',
     'AKIAIOSFODNN7EXAMPLEaAKIAIOSFODNN7EXAMPLE_x_api_key: [redacted]'),
    ('secret: abc_x-https-secret://abcdefgh',
     'secret: [redacted]'),
    ('token: x-bearer\\tabcdefgh password: Zx12Cv34Bn56Qw',
     'token: x-bearer\\t[redacted] password: [redacted]'),
    ('api_key=\\tfooſsecret : hunter2222',
     'api_key=\\t[redacted]secret : [redacted]'),
    ('api_key=\\tfooKsecret : hunter2222',
     'api_key=\\t[redacted]secret : [redacted]'),
    ('ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-secret: hunter2222',
     'ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-secret: [redacted]'),
    ('github_pat_aaaaaaaaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-api_key=Zx12Cv34Bn56Qw',
     'github_pat_aaaaaaaaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-api_key=[redacted]'),
]

# URLs with a user and password, JWTs and "sk-" keys glued to runs and to each other.
SHAPES = [
    ('https://user:pw1234@host',
     'https://user:[redacted]@host'),
    ('a.b+c-d://u:pass@h',
     'a.b+c-d://u:[redacted]@h'),
    ('1a-http://u:pwpw@h',
     '1a-http://u:[redacted]@h'),
    ('ftp://a:b',
     'ftp://a:b'),
    ('://u:pw@h',
     '://u:pw@h'),
    ('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
     '[redacted]'),
    ('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY',
     'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY'),
    ('eyJeyJeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
     '[redacted]'),
    ('xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
     'x[redacted]'),
    ('sk-ab12ab12ab12ab12ab12ab12',
     'sk-[redacted]'),
    ('task-ab12ab12ab12ab12ab12ab12',
     'task-[redacted]'),
    ('sk-sk-abcdabcdabcdabcdabcdabcd',
     'sk-[redacted]'),
    ('ask-ask-ask-ask-ask-1a1a1a1a1a1a1a1a1a1a',
     'ask-[redacted]'),
    ('AIzax1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1',
     '[redacted]'),
    ('a.a.a.a',
     'a.a.a.a'),
    ('SK-AB12AB12AB12AB12AB12AB12',
     'SK-[redacted]'),
    ('TASK-ab12ab12ab12ab12ab12ab12',
     'TASK-[redacted]'),
    ('Sk-sK-ABCDABCDABCDABCDABCDABCD',
     'Sk-[redacted]'),
    ('ASK-ASK-ASK-ASK-ASK-1A1A1A1A1A1A1A1A1A1A',
     'ASK-[redacted]'),
    ('x1Sk-aB1aB1aB1aB1aB1aB1aB1',
     'x1Sk-[redacted]'),
]


@pytest.mark.parametrize(("text", "masked"), INSIDE + SHAPES)
def test_each_shape_masks_its_value(text: str, masked: str) -> None:
    assert mask(text) == masked


def test_a_name_inside_a_run_needs_the_rule_for_searches_begun_there(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the rule that lets a name start after a "_" or "-" inside the run where a
    search begins, the value after a glued key's name stays in clear."""
    monkeypatch.setattr(masker, "_inside", lambda text, pos, m, dead: (m, dead))
    monkeypatch.setattr(masker, "_match_at",
                        lambda text, c, pats=masker._PATTERNS: pats.match(text, c))
    assert "hunter2222" in mask("api_key=\\tfoo_secret : hunter2222")
