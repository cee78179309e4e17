"""The attack corpus: hostile captures built by small generators, and the key-shape table.

Each generator writes a small capture (or device path) that once crashed, hung, leaked a
key or reached the terminal as control. The tests run the real CLI on them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

from tests.fixtures_shared import ROOT, run_cli

# ---------------------------------------------------------------------------- escapes
ESCAPES: dict[str, str] = {
    "osc52_clipboard": "\x1b]52;c;cHduZWQ=\x07",
    "osc2_title": "\x1b]2;pwned-title\x1b\\",
    "osc8_link": "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "csi_clear": "\x1b[2J\x1b[H",
    "csi_sgr": "\x1b[31mred\x1b[0m",
    "dcs": "\x1bP1$r0m\x1b\\",
    "c1_csi": "\x9b31m",
    "c1_osc": "\x9d0;c1-title\x9c",
    "bel_bs_cr_nul": "a\x07b\x08c\rd\x00e\x7f",
    "bidi_override": "\u202eevil\u202c",
    "bidi_isolate": "\u2066x\u2069\u061c",
    "zero_width": "a\u200bb\u200dc\u2060d\u2064e\ufeff\u180e",
    "line_separators": "a\u2028b\u2029c",
    "tag_chars": "hi\U000e0041\U000e007f",
    "rich_markup": "[bold red]pwned[/] [link=https://evil.example]click[/link]",
}

_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c")
_INVISIBLE = set("\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u180e")
FORBIDDEN = (
    {chr(c) for c in range(0x20) if c != 0x0A}
    | {chr(c) for c in range(0x7F, 0xA0)}
    | _BIDI | _INVISIBLE | {"\u2028", "\u2029"}
    | {chr(c) for c in range(0xE0000, 0xE0080)}
)


def forbidden_in(text: str | bytes) -> list[str]:
    """The control/format characters in ``text`` (bytes are decoded as UTF-8)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return sorted({repr(c) for c in text if c in FORBIDDEN})


def escape_capture(payload: str) -> list[dict[str, Any]]:
    """Records carrying ``payload`` in every string field a view, report or message shows."""
    p = payload
    return [
        {"dir": "req", "endpoint": f"POST /v1/responses?x={p}", "id": f"L1{p}",
         "body": {"model": f"gpt-4o{p}", "input": f"hello {p}", "previous_response_id":
                  f"resp_prev{p}", "tools": [{"type": f"function{p}", "name": f"tool{p}"}],
                  "include": [f"inc{p}"], "truncation": f"auto{p}",
                  "metadata": {f"k{p}": f"v{p}"}}},
        {"dir": "res", "id": f"L1{p}", "status_code": 200, "elapsed_ms": 5,
         "body": {"object": "response", "id": f"resp_1{p}", "status": f"incomplete{p}",
                  "model": f"gpt-4o{p}", "error": {"code": f"e{p}", "message": f"boom {p}"},
                  "incomplete_details": {"reason": f"why{p}"},
                  "prompt_cache_diagnostics": {"reason": f"miss{p}"},
                  "output": [{"type": "message", "id": f"msg{p}", "role": "assistant",
                              "content": [{"type": "output_text", "text": f"out {p}"}]},
                             {"type": f"web_search_call{p}", "id": f"ws{p}",
                              "status": f"done{p}"}],
                  "usage": {"input_tokens": 10, "output_tokens": 5}}},
        {"dir": "req", "body": {"model": f"m{p}", "conversation": f"conv_{p}",
                                "input": [{"role": f"user{p}", "content": f"x {p}"}]}},
        {"dir": "res", "body": {"object": "response", "id": f"resp_2{p}",
                                "status": "completed", "conversation": {"id": f"conv_{p}"},
                                "output": [], "usage": {"input_tokens": 9,
                                                        "output_tokens": 1}}},
        {"dir": "req", "endpoint": f"GET /v1/conversations/conv_{p}/items?after={p}"},
        {"dir": "res", "status_code": 404,
         "body": {"error": {"message": f"not found {p}", "type": f"t{p}"}}},
        {"dir": "req", "body": {"model": f"gpt{p}", "messages": [
            {"role": "user", "content": f"chat {p}"}]}},
        {"dir": "res", "body": {"object": "chat.completion", "id": f"chat{p}", "choices": [
            {"finish_reason": f"stop{p}", "message": {"role": "assistant",
                                                      "content": f"c {p}"}}]}},
        {"weird": f"{p}", f"key{p}": 1},
    ]


# ------------------------------------------------------------------------- key shapes
# (name, text that holds the secret, the secret part that must never be written).
# All fake; shapes as providers issue them.
KEY_SHAPES: list[tuple[str, str, str]] = [
    ("sk_legacy", "key sk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3i end",
     "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"),
    ("sk_proj", "sk-proj-Qw3rTy6uIo9pAs2dFg5hJk8lZx1cVb4nM7qW0eR3tY6u_Io9pAs2dF-g5hJk",
     "Qw3rTy6uIo9pAs2dFg5hJk8lZx1cVb4n"),
    ("sk_svcacct", "use sk-svcacct-Zx9cVb8nM7aS6dF5gH4jK3lQ2wE1rT0yU9iO8pZ7x please",
     "Zx9cVb8nM7aS6dF5gH4jK3lQ2wE1rT0y"),
    ("sk_admin", "sk-admin-Mn4bVc7xZa0sDf3gHj6kLq9wEr2tYu5iOp8", "Mn4bVc7xZa0sDf3gHj6kLq9w"),
    ("sk_ant", "sk-ant-api03-Pq8rSt1uVw4xYz7aBc0dEf3gHi6jKl9mNo2pQr5s-AA",
     "Pq8rSt1uVw4xYz7aBc0dEf3gHi6jKl9m"),
    ("sess", "session sess-Hy7uJi8kLo9pQa1wSe2dRf3tGy4hUj5k ok", "Hy7uJi8kLo9pQa1wSe2dRf3t"),
    ("bearer_opaque", "Authorization: Bearer opaque.Token~value+with/chars_9Xy",
     "opaque.Token~value+with/chars_9Xy"),
    ("bearer_lower", "header was bearer Zq1Wx2Ec3Rv4Tb5Yn6Um7 (lower)", "Zq1Wx2Ec3Rv4Tb5Yn6Um7"),
    ("jwt", "token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9P"),
    ("azure_api_key_header", "api-key: 0123456789abcdef0123456789abcdef",
     "0123456789abcdef0123456789abcdef"),
    ("azure_api_key_json", '{"api-key": "fedcba9876543210fedcba9876543210"}',
     "fedcba9876543210fedcba9876543210"),
    ("ocp_apim", "Ocp-Apim-Subscription-Key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
     "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("azure_env", "AZURE_OPENAI_API_KEY=a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
     "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"),
    ("openai_env", "export OPENAI_API_KEY=plainvalue-NotAnSkKey-77aa88bb",
     "plainvalue-NotAnSkKey-77aa88bb"),
    ("google_aiza", "https://x.googleapis.com/v1?alt=json AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
     "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("query_access_token", "GET /cb?access_token=ya29.A0ARrdaM-secretvalue123&x=1",
     "ya29.A0ARrdaM-secretvalue123"),
    ("query_api_key", "https://api.example.com/v1/models?api_key=qk_live_55aa66bb77cc",
     "qk_live_55aa66bb77cc"),
    ("query_key", "https://maps.example.com/geo?q=1&key=Kz9Yx8Wv7Ut6Sr5Qp4",
     "Kz9Yx8Wv7Ut6Sr5Qp4"),
    ("query_api_key_dash", "/openai/deployments/x?api-version=2024&api-key=dash0key1value2",
     "dash0key1value2"),
    ("after_underscore", "prefix_sk-proj-Lm3Nb6Vc9Xz2As5Df8Gh1Jk4Lq7We0Rt3Yu",
     "Lm3Nb6Vc9Xz2As5Df8Gh1Jk4Lq7We0Rt"),
    ("inside_word", "thekeyissk-Ui8Oy7Tr6Ee5Ww4Qq3Aa2Ss1Dd0Ff9Gg8Hh7Jj7wordcontinues",
     "Ui8Oy7Tr6Ee5Ww4Qq3Aa2Ss1Dd0Ff9Gg"),
    ("x_api_key", "x-api-key: xk-Pp0Oo9Ii8Uu7Yy6Tt5Rr4Ee", "Pp0Oo9Ii8Uu7Yy6Tt5Rr4Ee"),
    ("json_api_key", '{"api_key": "zz-Mm1Nn2Bb3Vv4Cc5Xx6"}', "Mm1Nn2Bb3Vv4Cc5Xx6"),
    ("client_secret", "client_secret=Cs-9Ab8Cd7Ef6Gh5Ij4Kl3", "9Ab8Cd7Ef6Gh5Ij4Kl3"),
    ("password_query", "https://svc.example/login?user=a&password=Hunter2Hunter2xyz",
     "Hunter2Hunter2xyz"),
    ("basic_auth", "Authorization: Basic dXNlcjpwYXNzd29yZDEyMzQ1Ng==",
     "dXNlcjpwYXNzd29yZDEyMzQ1Ng"),
    ("url_userinfo", "proxy https://bob:s3cr3tPassw0rd@proxy.example:8080/ used",
     "s3cr3tPassw0rd"),
    ("github_pat", "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2", "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0"),
    ("aws_access_key", "AKIAIOSFODNN7EXAMPL3 region", "AKIAIOSFODNN7EXAMPL3"),
    ("default_query_key", '{"default_query": {"api-key": "dq9Value8Secret7X"}}',
     "dq9Value8Secret7X"),
    ("token_field", '{"refresh_token": "rt-Ab12Cd34Ef56Gh78"}', "Ab12Cd34Ef56Gh78"),
]


def secret_capture(text: str) -> list[dict[str, Any]]:
    """Records quoting ``text`` in bodies, endpoint queries, errors and status fields."""
    return [
        {"dir": "req", "endpoint": f"POST /v1/responses?note={text}", "id": "a",
         "body": {"model": "gpt-4o", "input": f"please use {text}", "metadata": {"n": text}}},
        {"dir": "res", "id": "a", "status_code": 200,
         "body": {"object": "response", "id": "resp_s1", "status": f"failed {text}",
                  "error": {"code": "x", "message": f"echo {text}"},
                  "output": [{"type": "message", "role": "assistant", "id": "m1",
                              "content": [{"type": "output_text", "text": f"said {text}"}]}],
                  "usage": {"input_tokens": 3, "output_tokens": 2}}},
        {"dir": "req", "endpoint": f"GET /v1/models?{text}"},
        {"dir": "res", "status_code": 401, "body": {"error": {"message": f"bad key {text}"}}},
    ]


# --------------------------------------------------------------------------- helpers
def write_jsonl(path: Path, records: list[Any]) -> Path:
    with open(path, "wb") as f:
        for r in records:
            f.write(r if isinstance(r, bytes) else orjson.dumps(r))
            f.write(b"\n")
    return path


# Commands that read and write files only: run through main() in this process (a
# screenshot renders the inspector without a terminal: 0.4 s here, 1.6 s of CPU in a fresh
# interpreter that imports Textual again).
HEADLESS = frozenset({"report", "export", "fetch", "diff", "reconcile", "context", "compare",
                      "fidelity", "objects", "sql", "screenshot"})


def traceview(*args: str, timeout: float | None = None, stdin: Any = None,
              env: dict[str, str] | None = None, cwd: Path | None = None,
              process: bool = False) -> subprocess.CompletedProcess[bytes]:
    """Run the real CLI. A headless command runs in this process (what it writes is the
    subject); a fresh process when the test asks for one (`process`), guards a hang (gives
    `timeout`: the hang then fails the test, not the suite) or feeds standard input, and for
    the inspector and the servers."""
    full_env = {"TEXTUAL_ANIMATIONS": "none", "COLUMNS": "160", **(env or {})}
    if not process and timeout is None and stdin is None and args and args[0] in HEADLESS:
        return run_cli(*args, env=full_env, cwd=cwd)
    return subprocess.run([sys.executable, "-m", "traceview", *args], capture_output=True,
                          timeout=timeout or 60, stdin=stdin if stdin is not None else
                          subprocess.DEVNULL, env={**os.environ, **full_env}, cwd=cwd or ROOT,
                          check=False)


def finishes(code: str, guard: float = 120) -> None:
    """Run `code` in a fresh interpreter and require it to print "done": a search that went
    quadratic on hostile input hangs there and fails the test at `guard` seconds, without
    hanging the suite (a hang guard, not a timing assertion)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=guard, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "done"


def assert_no_traceback(out: subprocess.CompletedProcess[bytes]) -> None:
    assert b"Traceback" not in out.stderr, out.stderr.decode(errors="replace")[-2000:]
    assert b"Traceback" not in out.stdout, out.stdout.decode(errors="replace")[-2000:]
