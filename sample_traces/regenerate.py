"""Regenerate the simulator-made samples: the claims scenario, recorded for real.

Drives ``traceview.sim`` (seeded ids, frozen clock) through ``traceview.record`` and the
real openai SDK, so every byte is what the recorder writes for what the simulator
answers. Deterministic: a second run gives byte-identical files.

    .venv/bin/python sample_traces/regenerate.py                      # rewrite
    .venv/bin/python sample_traces/regenerate.py --check              # exit 1 if stale
    .venv/bin/python sample_traces/regenerate.py --out-dir DIR        # write elsewhere

Also writes ``claims.snapshot.json``: the simulator's provider copy of the claims
conversation and the input_items of its final response, saved as `traceview fetch` saves
them (``fetched_at`` pinned to the frozen clock, host named "simulator"), so `d` on the
sample works offline and `fidelity --items` has the input the model received.

Writes ``claims.jsonl`` (the scenario in ``traceview/sim/scenario.py``, file search
without ``include``: results null, the deposit unexplained) and ``claims_included.jsonl``
(the same conversation recorded with ``include=["file_search_call.results"]``: the
evidence captured). Every other sample is hand-built by ``make_samples.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = {
    "claims.jsonl": {"include": False},
    "claims_included.jsonl": {"include": True},
}
SEED = "traceview-sample-CS-88213"


SNAPSHOT_OF = "claims.jsonl"
# copies shipped as package data (`traceview sample`), kept equal to these by --check
BUNDLE_DIR = HERE.parent / "traceview" / "samples"
BUNDLED = ("claims.jsonl", "claims.snapshot.json")
FETCHED_AT = "2026-01-01T00:00:10Z"  # just after the frozen clock's turns


def record(path: Path, *, include: bool, sim=None) -> None:  # noqa: ANN001
    """Record the claims scenario into ``path``; on ``sim`` when given (it then keeps the
    provider's copy for a caller that reads it back), else on a fresh seeded simulator."""
    import contextlib

    import traceview.record
    from traceview.sim import SimServer
    from traceview.sim.scenario import run_claims

    recorder = traceview.record.Recorder(
        path, clock=traceview.record.FrozenClock(),
        link_ids=traceview.record.counter_links(deterministic=True),
    )
    with (contextlib.nullcontext(sim) if sim is not None else SimServer(seed=SEED)) as live:
        client = traceview.record.client(recorder, base_url=live.base_url,
                                         api_key="sk-sample-0000000000000000", max_retries=0)
        try:
            conversation = run_claims(client, include=include)
        finally:
            client.close()
            recorder.close()
        if path.name == SNAPSHOT_OF:  # the capture complete, so its final turn is known
            snapshot(live, conversation, path, path.with_name("claims.snapshot.json"))


def snapshot(sim, conversation: str, capture: Path, target: Path) -> None:  # noqa: ANN001
    """The simulator's copy of ``conversation``, every page, and the input_items of the
    capture's final response, as a deterministic snapshot: what `traceview fetch` saves."""
    from traceview.provider.client import ProviderConfig, make_client
    from traceview.provider.diffing import FetchSettings, fetch_final_input, load_target
    from traceview.provider.fetch import HOSTED_EVIDENCE_INCLUDE, fetch_conversation_items
    from traceview.provider.provider_copy import ProviderCopy
    from traceview.provider.snapshot import save_snapshot

    os.environ.setdefault("TRACEVIEW_SAMPLE_KEY", "sk-sample-0000000000000000")
    config = ProviderConfig(base_url=sim.base_url, api_key_env="TRACEVIEW_SAMPLE_KEY",
                            max_retries=0)
    copy = fetch_conversation_items(make_client(config), conversation,
                                    include=list(HOSTED_EVIDENCE_INCLUDE), config=config)
    copy.fetched_at = FETCHED_AT
    copy.host = "simulator (loopback)"
    cap, found = load_target(str(capture), conversation, allow_unlisted=False)
    try:
        inputs = fetch_final_input(FetchSettings(config), cap, found)
    finally:
        cap.close()
    if not isinstance(inputs, ProviderCopy):
        raise RuntimeError(f"the simulator did not list the final input: {inputs}")
    inputs.fetched_at, inputs.host = FETCHED_AT, copy.host
    save_snapshot(copy, target, inputs)


def build(directory: Path) -> dict[str, bytes]:
    out = {}
    for name, options in SAMPLES.items():
        target = directory / name
        target.unlink(missing_ok=True)  # the recorder appends
        record(target, **options)
        out[name] = target.read_bytes()
    out["claims.snapshot.json"] = (directory / "claims.snapshot.json").read_bytes()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed files instead of writing")
    parser.add_argument("--out-dir", type=Path, default=HERE, metavar="DIR",
                        help="directory to write (or check) the samples in (default: %(default)s)")
    ns = parser.parse_args(argv)
    out_dir: Path = ns.out_dir
    if not out_dir.is_dir():
        print(f"regenerate.py: --out-dir {out_dir} is not a directory", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        fresh = build(Path(tmp))
    targets = [(out_dir / n, data) for n, data in fresh.items()]
    if out_dir.resolve() == HERE:
        targets += [(BUNDLE_DIR / n, fresh[n]) for n in BUNDLED]
    stale = [(path, data) for path, data in targets
             if not path.exists() or path.read_bytes() != data]
    if ns.check:
        for path, _ in stale:
            print(f"{path} is stale; run sample_traces/regenerate.py", file=sys.stderr)
        return 1 if stale else 0
    for path, data in targets:
        tmp_path = path.with_name(f".{path.name}.tmp")
        tmp_path.write_bytes(data)
        os.replace(tmp_path, path)
        print(f"wrote {path} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    raise SystemExit(main())
