"""The carried-context ledger and replay fidelity's verdicts made while a capture loads,
a slice of conversations at a time, so that the end of the load only finishes them.

At the end of a load the hosted-state passes (analysis/hosted_state.py) ran serially while
the worker processes sat idle: 1.8 s of CPU on a 1 GB hosted capture, the ledger 0.8 s and
fidelity 0.5 s of it (bench/hosted_passes.py). The ledger's table pass
(analysis/ledger_table.py `from_table`) already works in batches of whole conversations,
one after another, appending to the ledger's columns:
a batch's result does not depend on where the batches are cut. So while turns arrive, the
loader thread runs it over the conversations that look finished — every conversation
before the last one seen, in the turns' table rows 0, 1, 2, … — a slice of about
`LedgerAhead.batch` rows at a time (~13 ms of CPU, in bytecode that lets the inspector's
event loop take the GIL every switch interval), and at the end only the rest runs.

Looking finished is a guess: a conversation may get a turn later in the file. So the end
(`finish`) takes the ledger built ahead only when it can show it is the one the full pass
would build: the analysis is one table's rows 0 … n-1 in index order; every conversation
done ahead has no row after the ones done (conversations are numbered as first seen, so
each slice's numbers rise and every later row's number is above them); the markers of the
rows done are still the ones read (a later turn may mark an earlier one); no hosted call
was set again out of order; and each turn's tool configuration read ahead is the one the
objects pass reads at the end (the same numbers, the same configurations). Anything else —
interleaved conversations, a chain continued later, turns out of order, several files,
follow mode — returns None, and the full pass runs as before. The conversations' bills
(their cost, final only at the end) are written over at the end.

Replay fidelity's verdicts of the same conversations are made with each slice when the
columns settle them (fidelity.settled: the two exits of `assess` that read no body), and
taken by `assess` when the ledger was, every one of them was made (none needed a body),
and the capture received, recorded, wrote and deleted nothing (what `assess` reads of
the exchanges, known only at the end).
tests/core/test_ledger_ahead.py compares the reports, byte for byte.
"""

from __future__ import annotations

from array import array
from itertools import compress, islice
from math import nan
from operator import le, ne
from typing import TYPE_CHECKING, Any

from traceview.analysis.columns import Columns
from traceview.analysis.ledger import PROJECT_TURNS, Ledger, _one_table, _Rates
from traceview.analysis.ledger_table import from_table
from traceview.capture.calls import Calls

if TYPE_CHECKING:
    from traceview.analysis.analyzer import Analyzer
    from traceview.analysis.hosted_state import _Configs


_LABEL = "capture only"  # hosted_state's fidelity label: the capture alone


class LedgerAhead:
    """The ledger of the conversations of table rows [0, `done`), and replay fidelity's
    verdicts of them, made while the rest loads."""

    # Rows per slice: 2,048 hosted turns take ~13 ms of the loader thread's CPU (ledger
    # and verdicts; the longest of a 1 GB capture's 119 slices 18 ms), all of it Python
    # bytecode, which lets the inspector's thread take the GIL every switch interval; no
    # C call in a slice reads more than the slice's rows or copies more than one column.
    batch = 2048

    def __init__(self, analyzer: Analyzer) -> None:
        from traceview.analysis.hosted_state import _Configs  # it imports this module

        self.analyzer = analyzer
        self.ledger = Ledger(PROJECT_TURNS)
        self.rate = _Rates(analyzer.pricing)
        self.configs: _Configs = _Configs()
        self.tc: Any = None
        self.done = 0  # rows [0, done) are in the ledger
        self.last_conv = -1  # the highest conversation number among them
        self.marks: array[int] | None = None  # their marker ids as read
        self.off = False  # something ruled the ledger built ahead out: stop
        self.valid = False  # `finish` showed it is the full pass's
        # Replay fidelity's verdicts of conversations [0, judged), made with the ledger's
        # slices (fidelity.settled), until one needs more than the columns (`fid_off`).
        self.fid: Any = None
        self.fid_off = False
        self.judged = 0
        self._rows_of: Any = None
        self._missing = bytearray(1)
        self._calls: Any = None

    def feed(self) -> None:
        """Add one slice of whole conversations that look finished, if there are enough.
        A slice that fails (a shape nothing anticipated) stops the building ahead, not the
        load: the end's full passes then run, inside their own safety net."""
        if self.off:
            return
        try:
            self._feed()
        except Exception:  # noqa: BLE001 - the full passes at the end meet it again
            self.off = self.fid_off = True
            self.fid = None

    def _feed(self) -> None:
        reports = self.analyzer.reports
        rows = reports.rows()
        n = len(rows)
        if n - self.done <= self.batch:
            return
        parts = reports._parts
        if type(rows) is not range or rows.start != 0 or len(parts) != 1 or (
                self.tc is not None and parts[0] is not self.tc):
            self.off = True
            return
        tc = self.tc = parts[0]
        if _calls_moved(tc):
            self.off = True
            return
        conv, done = tc.conv, self.done
        # The slice ends at the last change of conversation within `batch` rows (the last
        # conversation seen may still grow; a longer one is taken whole once it ends).
        cv = conv[done:min(done + self.batch + 1, n)]
        cuts = list(compress(range(1, len(cv)), map(ne, cv, islice(cv, 1, None))))
        if cuts:
            stop = done + cuts[-1]
        else:
            more = conv[done:n]
            ends = next(compress(range(1, len(more)), map(ne, more, islice(more, 1, None))),
                        None)
            if ends is None:
                return
            stop = done + ends
        cv = conv[done:stop]
        if cv[0] <= self.last_conv or not all(map(le, cv, islice(cv, 1, None))):
            self.off = True  # a conversation done ahead got a turn, or one is interleaved
            return
        self.configs.see_rows(tc.table, range(done, stop))
        from_table(self.ledger, tc, range(done, stop), self.rate, self.configs.get,
                   PROJECT_TURNS, {})
        marks = tc.marker_ids[done:stop]
        if self.marks is None:
            self.marks = marks
        else:
            if self.marks.typecode != marks.typecode:
                self.marks = array(marks.typecode, self.marks)
            self.marks.extend(marks)
        if not self.fid_off:
            self._judge(tc, done, stop, self.last_conv + 1, cv[-1])
        self.done, self.last_conv = stop, cv[-1]

    def _judge(self, tc: Any, lo: int, hi: int, first: int, last: int) -> None:
        """Replay fidelity's verdicts of conversations `first` … `last` (table rows
        [lo, hi)), as `fidelity.assess` would add them; stop at one it would read the
        bodies of."""
        from traceview.analysis.fidelity import Fidelity, _HostedCalls, _Rows, settled
        from traceview.analysis.turn_report import ConversationReport

        if self.fid is None:
            self.fid = Fidelity(label=_LABEL)
            self._rows_of = _Rows(self.analyzer.reports, tc)
            self._calls = _HostedCalls()
        rows_of, fid, calls, cc = self._rows_of, self.fid, self._calls, self.analyzer.convs
        rows_of.bind_rows(range(lo, hi), self._missing)
        rows_of._map = None  # (made from the rows so far, when indices have gaps)
        for n in range(first, last + 1):
            conv = ConversationReport(cc, n)
            got = settled(rows_of, conv, calls)
            if got is False:
                self.fid_off, self.fid = True, None
                return
            if got is not True:
                fid._add(conv, *got)
        self.judged = last + 1

    def verdicts(self, analysis: Any, label: str) -> tuple[Any, int, range] | None:
        """(the Fidelity holding the verdicts made ahead, how many conversations they
        cover, the table rows of the others) when `finish` took the ledger built ahead
        (the same checks hold for them), they were all made and the analysis's
        conversations start with them; else None."""
        fid, k = self.fid, self.judged
        self.fid = None
        if fid is None or not self.valid or self.fid_off or fid.label != label:
            return None
        convs = analysis.conversations
        order = getattr(convs, "_order", None)
        if getattr(convs, "_cols", None) is not self.analyzer.convs or order is None or \
                len(order) < k or list(order[:k]) != list(range(k)):
            return None
        return fid, k, range(self.done, len(analysis.turns))

    def finish(self, turns: Any, pricing: Any, configs: _Configs,
               bills: dict[str, float | None]) -> Ledger | None:
        """The ledger of `turns` (the analysis's, sorted) when the one built ahead can be
        finished into it (see the module's docstring), with the rest of the conversations
        and every bill; else None (the full pass runs)."""
        done = self.done
        if self.off or not done:
            return None
        tc = _one_table(turns)
        rows = turns.rows() if tc is not None else None
        if tc is None or tc is not self.tc or type(rows) is not range or \
                rows.start != 0 or rows.stop < done or pricing is not self.rate.pricing:
            return None
        if _calls_moved(tc):
            return None
        n = rows.stop
        if done < n and min(tc.conv[done:n]) <= self.last_conv:
            return None  # a conversation done ahead has a later turn
        marks, got = self.marks, tc.marker_ids[:done]
        if marks is None or array(got.typecode, marks) != got:
            return None  # a row done ahead was marked again
        if not _same_configs(self.configs, configs):
            return None
        led = self.ledger
        if done < n:
            from_table(led, tc, range(done, n), self.rate, configs.get, PROJECT_TURNS, bills)
        led._seal()
        m = len(led._keys)
        ahead = array("d", [nan if b is None else b for b in map(bills.get, led._keys[:m])])
        led._bill[:len(ahead)] = ahead
        self.ledger = Ledger(PROJECT_TURNS)  # handed over: not finished twice
        self.off = self.valid = True
        return led


def _calls_moved(tc: Any) -> bool:
    """Whether a row's hosted calls were set again out of order (or are not the calls'
    columns), or a deposit was attributed to another table's turns: cases the ledger
    built ahead does not follow."""
    calls = Columns(tc.table).s_hosted
    return type(calls) is not Calls or bool(calls.changed) or bool(tc.attribution)


def _same_configs(ahead: _Configs, final: _Configs) -> bool:
    """Whether every turn's tool configuration read ahead is the final one. Numbers are
    given in the order a call meets the configurations (which slices change), so when
    they differ each number is read as the first final number of an equal configuration,
    and the turns compared that way (two lists of C reads a turn)."""
    a, f = ahead._ids, final._ids
    if ahead._map or final._map or len(a) > len(f):
        return False
    made_a, made_f = ahead._made, final._made
    held = f[:len(a)]
    if made_f[:len(made_a)] == made_a and held == a:
        return True
    first: dict[Any, int] = {}
    for k, cf in enumerate(made_f):
        first.setdefault(cf, k)
    of_a = [first.get(cf, -1) for cf in made_a]
    of_f = [first[cf] for cf in made_f]
    return list(map(of_a.__getitem__, a)) == list(map(of_f.__getitem__, held))
