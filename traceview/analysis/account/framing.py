"""Framing constants: the tokens the provider adds around what the request carries.

Every message, tool definition and tool call is wrapped in special tokens and a role line
before it is billed. The numbers below were fitted on real captures (docs/input-account.md
lists which, and `bench/account.py` re-runs the fit); they are per model family because
the families render the same request differently.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class Framing:
    """Tokens added per request, per message and per tool-related item.

    `tools_block` is added once when function tools are offered, on top of the rendered
    `render.TOOLS_HEADER`/`TOOLS_FOOTER`; `tool` once per function definition.
    """

    family: str
    calibrated: bool
    request: int
    message: int
    name: int
    tools_block: int
    tool: int
    call: int
    call_output: int
    response_format: int


# Families in the order a model name is matched against their prefixes.
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gpt-4o", "gpt-4o"), ("chatgpt-4o", "gpt-4o"), ("gpt-4.1", "gpt-4o"),
    ("gpt-4.5", "gpt-4o"), ("gpt-5", "gpt-5"), ("o1", "gpt-5"), ("o3", "gpt-5"),
    ("o4", "gpt-5"), ("codex", "gpt-5"), ("gpt-oss", "gpt-5"),
    ("gpt-4", "gpt-4"), ("gpt-3.5", "gpt-4"),
)

RESPONSES = "responses"
CHAT = "chat"

# (family, API) -> framing. Fitted by bench/account.py --fit; see docs/input-account.md.
FAMILIES: dict[tuple[str, str], Framing] = {
    ("gpt-4o", RESPONSES): Framing("gpt-4o", True, request=3, message=4, name=1,
                                   tools_block=-8, tool=4, call=5, call_output=10,
                                   response_format=6),
    ("gpt-4o", CHAT): Framing("gpt-4o", True, request=3, message=4, name=1,
                              tools_block=2, tool=0, call=6, call_output=10,
                              response_format=13),
    ("gpt-5", RESPONSES): Framing("gpt-5", True, request=2, message=4, name=1,
                                  tools_block=2, tool=0, call=11, call_output=10,
                                  response_format=5),
    # Chat Completions puts a long preamble before the functions on this family.
    ("gpt-5", CHAT): Framing("gpt-5", True, request=2, message=4, name=1,
                             tools_block=83, tool=0, call=12, call_output=10,
                             response_format=21),
    ("gpt-4", CHAT): Framing("gpt-4", True, request=3, message=4, name=1,
                             tools_block=3, tool=0, call=5, call_output=10,
                             response_format=13),
    # Never seen on the Responses API in a capture: the gpt-4o values, uncalibrated.
    ("gpt-4", RESPONSES): Framing("gpt-4", False, request=3, message=4, name=1,
                                  tools_block=-8, tool=4, call=5, call_output=10,
                                  response_format=6),
}
DEFAULT_FAMILY = "gpt-5"


@lru_cache(maxsize=256)
def framing_for(model: str | None, api: str = RESPONSES) -> Framing:
    """The framing of a model's family on one API; an unknown model gets the newest
    family's, marked uncalibrated so its components are labelled estimated."""
    name = (model or "").lower().rsplit("/", 1)[-1]
    api = api if api in (RESPONSES, CHAT) else RESPONSES
    for prefix, family in _PREFIXES:
        if name.startswith(prefix):
            return FAMILIES[(family, api)]
    base = FAMILIES[(DEFAULT_FAMILY, api)]
    return replace(base, family="unknown", calibrated=False)
