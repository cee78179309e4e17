"""Fixtures: a simulator per test and the real SDK pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from traceview.sim import SimServer

FS_TOOL = [{"type": "file_search", "vector_store_ids": ["vs_test"]}]


@pytest.fixture
def client(sim: SimServer) -> Iterator[openai.OpenAI]:
    c = openai.OpenAI(base_url=sim.base_url, api_key="sk-sim-test-000000000000", max_retries=0)
    yield c
    c.close()
