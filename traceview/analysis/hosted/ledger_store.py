"""The carried-context ledger's columns: every conversation's sources and charges.

A capture of many short conversations made a few Python objects per conversation and per
source, most of the ledger's memory; so the ledger is columns. Per conversation (by its
number, in the order first seen): its key, bill and growth, and where its sources and
charges start. Per source: its figures, its origin turns and hosted calls in flat
columns. Per charge: its turn, per-token rate and whether it was priced. The views that
read them (analysis/hosted/carry.py) are made when read.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import Any

from traceview.analysis.hosted.growth import PROJECT_TURNS, Fit, Growth, growth_dict
from traceview.analysis.hosted.tools import ToolConfig
from traceview.analysis.shared import shared

KINDS = ("deposit", "hosted_result")
HOSTED, MISSING = 1, 2  # a source's flags: its kind (0 deposit), evidence_missing
_NONE = -(1 << 63)  # None in a column of ints
_NAN = float("nan")
_CHUNK = 4096  # call ids joined into one string (`_seal`) at least this often
# Turn indices are held in 4-byte unsigned columns ("I"): traceview numbers a capture's
# turns 1..n, and no capture holds 2**32 turns (TURN_INDEX in the comments).

Meta = tuple[ToolConfig | None, tuple[str, ...], tuple[str, ...]]  # config, types, include


def cost_sum(costs: Iterable[float | None]) -> float | None:
    """0.0 plus each cost in turn; None once any is unknown (the additions run in the
    charges' order, so the float is the same however the costs are held)."""
    total = 0.0
    for c in costs:
        if c is None:
            return None
        total += c
    return total


def rounded(v: float | None) -> float | None:
    """A cost as the report writes it (6 decimals), None kept."""
    return None if v is None else round(v, 6)


class LedgerColumns:
    """The ledger's columns, and the primitives that append to and read them."""

    def __init__(self, project: int = PROJECT_TURNS) -> None:
        self.project = project
        # By conversation number.
        self._keys: list[str] = []
        self._num: dict[str, int] = {}
        self._bill = array("d")  # NaN: no bill
        self._cum = array("q")  # _NONE: None
        self._owned = array("q")  # _NONE: None
        self._fitted = array("q")  # 0: no fitted line (it needs two turns)
        self._last = array("q")  # the conversation's turns
        self._slope = array("d")
        self._intercept = array("d")
        self._s_off = array("q", [0])  # conversation n's sources: [_s_off[n], _s_off[n + 1])
        self._c_off = array("q", [0])  # and its charges
        # By source.
        self._s_flags = bytearray()  # HOSTED | MISSING
        self._s_arrived = array("I")  # a turn index (TURN_INDEX)
        self._s_tokens = array("q")
        self._s_start = array("q")  # its charges: [start, stop)
        self._s_stop = array("q")
        self._s_meta = array("q")  # index in _pool of its Meta
        self._o_off = array("q", [0])  # source i's origin turns: [_o_off[i], _o_off[i + 1])
        self._origin = array("I")  # turn indices
        self._h_off = array("q", [0])  # its hosted call ids: [_h_off[i], _h_off[i + 1])
        # The call ids, joined into one string per chunk (a str per id was most of the
        # ledger's memory on a hosted capture): chunk c holds ids from _call_first[c] on,
        # id j ends at character _call_end[j] of its chunk. A source's ids are in one
        # chunk: ids added since the last chunk (`_loose`) are joined between sources.
        self._call_text: list[str] = []
        self._call_first = array("q")
        self._call_end = array("q")
        self._loose: list[str] = []
        self._n_calls = 0
        self._ended: dict[int, tuple[int, str]] = {}  # (turn, marker) that ended a carry
        # By charge.
        self._c_turn = array("I")  # a turn index
        self._c_rate = array("d")
        self._c_priced = bytearray()
        self._outlived: dict[int, list[dict[str, Any]]] = {}  # by charge, where any
        # Shared Meta triples by index (a handful in a capture).
        self._pool: list[Meta] = []
        self._pooled: dict[Meta, int] = {}

    # ---- reading
    def _source_range(self, n: int) -> range:
        return range(self._s_off[n], self._s_off[n + 1])

    def _source_id(self, i: int) -> str:
        """deposit@<the turn it arrived on>, hosted@<the last turn of its calls>."""
        if not self._s_flags[i] & HOSTED:
            return f"deposit@{self._s_arrived[i]}"
        return f"hosted@{self._origin[self._o_off[i + 1] - 1]}"

    def _meta_of(self, i: int) -> Meta:
        return self._pool[self._s_meta[i]]

    def _origin_of(self, i: int) -> list[int]:
        return self._origin[self._o_off[i]:self._o_off[i + 1]].tolist()

    def _calls_of(self, i: int) -> list[str]:
        a, b = self._h_off[i], self._h_off[i + 1]
        if a == b:
            return []
        self._seal()
        c = bisect_right(self._call_first, a) - 1
        text, ends = self._call_text[c], self._call_end
        at = ends[a - 1] if a > self._call_first[c] else 0
        out = []
        for j in range(a, b):
            out.append(text[at:ends[j]])
            at = ends[j]
        return out

    def _growth_of(self, n: int) -> dict[str, Any]:
        cum, owned, fitted = self._cum[n], self._owned[n], self._fitted[n]
        fit = None if not fitted else Fit(self._slope[n], self._intercept[n], fitted,
                                          self._last[n], cum)
        return growth_dict(Growth(None if cum == _NONE else cum,
                                  None if owned == _NONE else owned, fit), self.project)

    def _bill_of(self, n: int) -> float | None:
        bill = self._bill[n]
        return None if bill != bill else bill  # NaN: no bill

    # ---- building
    def _open(self, key: str, bill: float | None, growth: Growth) -> int:
        """Start conversation `key`; its sources and charges are appended until `_close`."""
        n = len(self._keys)
        self._keys.append(key)
        self._num[key] = n
        self._bill.append(_NAN if bill is None else bill)
        self._cum.append(_NONE if growth.cumulative is None else growth.cumulative)
        self._owned.append(_NONE if growth.last_owned is None else growth.last_owned)
        fit = growth.fit if growth.fit is not None else Fit(0.0, 0.0, 0, 0, 0)
        self._fitted.append(fit.fitted)
        self._last.append(fit.last)
        self._slope.append(fit.slope)
        self._intercept.append(fit.intercept)
        return n

    def _close(self) -> None:
        self._s_off.append(len(self._s_flags))
        self._c_off.append(len(self._c_turn))

    def _add_source(self, kind: int, arrived: int, tokens: int, origin: Sequence[int],
                    calls: Sequence[str], meta: Meta, missing: bool) -> int:
        """Append source `i`'s columns; its charges start at the next charge."""
        i = len(self._s_flags)
        self._s_flags.append(kind | (MISSING if missing else 0))
        self._s_arrived.append(arrived)
        self._s_tokens.append(tokens)
        self._s_start.append(len(self._c_turn))
        self._s_stop.append(len(self._c_turn))
        self._s_meta.append(self._share(meta))
        self._origin.extend(origin)
        self._o_off.append(len(self._origin))
        if calls:
            self._loose.extend(calls)
            self._n_calls += len(calls)
            if len(self._loose) >= _CHUNK:
                self._seal()
        self._h_off.append(self._n_calls)
        return i

    def _add_charge(self, turn: int, rate: float | None) -> int:
        """Append a charge on `turn` at `rate` per token (None: not priced)."""
        self._c_turn.append(turn)
        self._c_rate.append(0.0 if rate is None else rate)
        self._c_priced.append(rate is not None)
        return len(self._c_turn) - 1

    def _share(self, meta: Meta) -> int:
        """The pool index of `meta`; past a cap (a hostile capture's distinct values) each
        new one gets its own index."""
        got = self._pooled.get(meta)
        if got is None:
            got = len(self._pool)
            config, types, include = meta
            self._pool.append((config, shared(types), shared(include)))
            if len(self._pooled) < 4096:
                self._pooled[meta] = got
        return got

    def _seal(self) -> None:
        """Join the ids added since the last chunk into one string."""
        loose = self._loose
        if not loose:
            return
        self._call_end.extend(accumulate(map(len, loose)))
        self._call_first.append(self._n_calls - len(loose))
        self._call_text.append("".join(loose))
        self._loose = []
