"""`traceview proxy` and `traceview sim` on a port another process holds: one line naming
the address and why, exit 2 (could not do what was asked), and no capture file made."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from traceview.cli import main


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_the_proxy_on_a_busy_port_says_so_and_makes_no_capture(
        busy_port: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.jsonl"
    assert main(["proxy", "--port", str(busy_port), "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"traceview proxy: cannot listen on 127.0.0.1:{busy_port}: Address already in use\n")
    assert not out.exists()


def test_the_simulator_on_a_busy_port_exits_2(busy_port: int,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--port", str(busy_port)]) == 2
    assert capsys.readouterr().err == (
        f"traceview sim: cannot listen on 127.0.0.1:{busy_port}: Address already in use\n")


def test_an_ipv6_address_is_said_in_brackets(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    """`::1:8080` reads as neither address nor port; `[::1]:8080` is how URLs say it."""
    with socket.socket(socket.AF_INET6) as s:
        s.bind(("::1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["proxy", "--host", "::1", "--port", str(port),
                     "-o", str(tmp_path / "t.jsonl")]) == 2
        assert f"cannot listen on [::1]:{port}: " in capsys.readouterr().err
        assert main(["sim", "--host", "::1", "--port", str(port)]) == 2
        assert f"cannot listen on [::1]:{port}: " in capsys.readouterr().err
