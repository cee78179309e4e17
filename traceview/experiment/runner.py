"""Drives a planned experiment: units in order, progress, a clean stop, resume.

The loop plays one unit (one conversation on one arm) at a time. Between units it
rewrites the manifest with the units done and the output lengths, so the results
folder is always consistent. A first Ctrl-C (or ``stop`` set by a caller) lets the
current unit finish and stops; an interrupt that lands inside a unit (a second Ctrl-C)
cuts the outputs back to the last finished unit. Either way the captures hold whole
conversations only and the manifest says ``partial``; ``--resume`` continues.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from traceview.analysis.pricing import Pricing
from traceview.experiment import manifest as mf
from traceview.experiment.arms import ArmPlayer, Call, CallFailed
from traceview.experiment.plan import Unit
from traceview.experiment.retriever import Retriever
from traceview.experiment.source import SourceConversation
from traceview.experiment.store import TranscriptStore
from traceview.record.writer import CaptureWriter


class Aborted(Exception):
    """The provider cannot be used at all (bad key, unreachable); nothing more will run."""


class Progress:
    """``[12/80] B conv… run 2 · 0:41 elapsed · spend $0.0123``: a Rich progress bar kept
    in place on a terminal, one plain line per unit when piped (no control characters)."""

    def __init__(self, out: TextIO | None, total: int, done: int) -> None:
        self.out, self.total, self.done = out, total, done
        self.started = time.monotonic()
        self.spend = 0.0
        self.tty = bool(out is not None and getattr(out, "isatty", lambda: False)())
        self.bar: Any = None
        if self.tty and out is not None:
            self.bar = _rich_bar(out, total, done)

    def unit(self, unit: Unit) -> None:
        self.done += 1
        if self.out is None:
            return
        from traceview.safety.sanitise import visible

        what = f"{unit.arm} {visible(unit.conversation)[:28]} run {unit.run}"
        spend = f"spend ${self.spend:.4f} (from usage)"
        if self.bar is not None:
            self.bar.update(self.bar.task_ids[0], completed=self.done, description=what,
                            spend=spend)
            return
        secs = int(time.monotonic() - self.started)
        print(f"[{self.done}/{self.total}] {what} · {secs // 60}:{secs % 60:02d} elapsed · "
              f"{spend}", file=self.out, flush=True)

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _rich_bar(out: TextIO, total: int, done: int) -> Any:
    """A started Rich progress on the terminal under ``out`` (a SafeStream would show
    Rich's cursor control as text; the bar's own text is made visible before it is set)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as RichProgress

    from traceview.safety.sanitise import SafeStream

    raw = out.terminal() if isinstance(out, SafeStream) else out
    bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), TextColumn("{task.fields[spend]}"),
                       console=Console(file=raw), refresh_per_second=4)
    bar.add_task("starting", total=total, completed=done, spend="")
    bar.start()
    return bar


class Runner:
    def __init__(self, folder: Path, manifest: dict[str, Any], clients: dict[str, Any], *,
                 retriever: Retriever | None, pricing: Pricing | None = None,
                 stop: threading.Event | None = None, progress: TextIO | None | str = "stderr",
                 after_call: Callable[[Call], None] | None = None) -> None:
        self.folder = folder
        self.m = manifest
        self.clients = clients
        self.retriever = retriever
        self.pricing = pricing or Pricing.load()
        self.stop = stop or threading.Event()
        self.progress_out: TextIO | None = (sys.stderr if isinstance(progress, str)
                                            else progress)
        self.after_call = after_call
        self.ledger = CaptureWriter(folder / "ledger.jsonl")
        self.journal = CaptureWriter(folder / mf.JOURNAL)
        self.store = TranscriptStore(folder / mf.STORE)

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> str:
        """Plays every unit not yet done; returns the manifest status it ends with."""
        sample = {c["key"]: _conversation(c) for c in self.m["sample"]}
        mf.fold_journal(self.folder, self.m)  # a run killed outright wrote no manifest
        if self.m["offsets"]:
            mf.cut_to(self.folder, self.m["offsets"])  # what an unfinished unit left
        done = set(self.m["completed"]) | {f["unit"] for f in self.m["failed"]}
        order = [Unit(*_split(tag)) for tag in self.m["order"]]
        todo = [u for u in order if u.tag not in done]
        progress = Progress(self.progress_out, len(order), len(order) - len(todo))
        player = ArmPlayer(self.clients, self.m["model"], store=self.store,
                           retriever=self.retriever, vector_store_id=self.m.get("vector_store"),
                           on_call=lambda c: self._record(c, progress))
        session = {"started": mf.now_iso(), "ended": None}
        self.m.setdefault("sessions", []).append(session)
        self.m["status"] = "running"
        mf.write(self.folder, self.m)
        previous = _install_sigint(self.stop)
        try:
            for unit in todo:
                if self.stop.is_set():
                    break
                self._play(player, unit, sample[unit.conversation])
                progress.unit(unit)
        except KeyboardInterrupt:
            self.stop.set()
        except Exception as exc:
            self.stop.set()
            import openai

            if not isinstance(exc, openai.APIError):
                raise
            self.m.setdefault("notes", []).append(f"stopped: {type(exc).__name__}: {exc}")
            raise Aborted(f"{type(exc).__name__}: {exc}") from None
        finally:
            _restore_sigint(previous)
            progress.finish()
            self._end_session(session, len(order))
        return str(self.m["status"])

    def _play(self, player: ArmPlayer, unit: Unit, conversation: SourceConversation) -> None:
        """One unit, then its outcome and the captures' lengths in the journal (what a
        resume after a kill reads)."""
        error = None
        try:
            player.play(unit, conversation)
        except CallFailed as exc:
            error = str(exc)
            self.m["failed"].append({"unit": unit.tag, "error": error})
        else:
            self.m["completed"].append(unit.tag)
        self.m["offsets"] = mf.offsets(self.folder)
        self.journal.write({"unit": unit.tag, "error": error, "offsets": self.m["offsets"]})

    def _end_session(self, session: dict[str, Any], units: int) -> None:
        """Cut an interrupted unit back, write the final manifest, close the files."""
        removed = mf.cut_to(self.folder, self.m["offsets"])
        if removed:
            self.m.setdefault("notes", []).append(
                f"cut {removed} bytes of an interrupted unit at {mf.now_iso()}")
        finished = len(self.m["completed"]) + len(self.m["failed"]) == units
        self.m["status"] = "complete" if finished else "partial"
        session["ended"] = mf.now_iso()
        self.m["ended_at"] = session["ended"]
        self.m["offsets"] = mf.offsets(self.folder)
        mf.write(self.folder, self.m)
        self.ledger.close()
        self.journal.close()
        self.store.close()

    def _record(self, call: Call, progress: Progress) -> None:
        self.ledger.write(call.to_dict())
        if call.input_tokens is not None and call.output_tokens is not None:
            cost = self.pricing.cost(self.m["model"], call.input_tokens, call.cached_tokens,
                                     call.output_tokens, ())
            fee = (self.pricing.hosted.get("file_search_call") or {}).get("per_call", 0.0)
            progress.spend += (cost.usd or 0.0) + call.hosted_calls * float(fee)
        if self.after_call is not None:
            self.after_call(call)


def _split(tag: str) -> tuple[str, str, int]:
    arm, rest = tag.split(":", 1)
    conv, run = rest.rsplit(":", 1)
    return arm, conv, int(run)


def _conversation(d: dict[str, Any]) -> SourceConversation:
    return SourceConversation(d["key"], tuple(d["user_messages"]), d.get("instructions"),
                              d.get("model"), d.get("input_tokens", 0),
                              d.get("cached_tokens", 0), d.get("output_tokens", 0))


def _install_sigint(stop: threading.Event) -> Any:
    """First Ctrl-C: finish the unit and stop. Second: interrupt now (outputs are cut)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        print("\ntraceview ab: stopping after this conversation (Ctrl-C again to stop now)",
              file=sys.stderr, flush=True)

    return signal.signal(signal.SIGINT, handler)


def _restore_sigint(previous: Any) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)


def dumps_sample(sample: list[SourceConversation]) -> list[dict[str, Any]]:
    return [json.loads(json.dumps(c.__dict__)) for c in sample]
