"""Print, for every sample and real fixture, each conversation's carried-context tokens and
its replay-fidelity verdict with the reason.

    python sample_traces/hosted_state_table.py            # markdown table on stdout

Fidelity is scored from the capture alone; for the two simulator-made claims samples it is
also scored live, against a simulator that replays the recording (same seed, so the same
ids): the claims sample re-recorded byte for byte, then ``input_items`` read from it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(HERE))

import regenerate  # noqa: E402  the samples' own recorder: the same bytes, or the check fails

from traceview.analysis import analyze  # noqa: E402
from traceview.analysis.hosted.fidelity import REASONS, Received, assess  # noqa: E402

SIM_MADE = {"claims.jsonl": False, "claims_included.jsonl": True}
SEED = regenerate.SEED


def live_verdicts(path: Path, include: bool) -> dict[str, str]:
    """Verdicts with the provider's input_items read from a simulator replaying the sample."""
    import openai

    from traceview.provider.fetch import fetch_input_items
    from traceview.sim import SimServer

    with SimServer(seed=SEED) as sim, tempfile.TemporaryDirectory() as tmp:
        cap = Path(tmp) / path.name
        regenerate.record(cap, include=include, sim=sim)

        client = openai.OpenAI(base_url=sim.base_url, api_key="sk-sample-0", max_retries=0)
        assert cap.read_bytes() == path.read_bytes(), f"{path.name} is stale: regenerate it"
        analysis = analyze(str(path))
        received = {}
        for v in analysis.fidelity.verdicts:
            if v.final_response:
                copy = fetch_input_items(client, v.final_response)
                received[v.final_response] = Received(copy.items, "live", copy.fetched_at,
                                                      copy.complete)
        client.close()
        scored = assess(analysis, received, analysis.objects, "live (simulator)")
        return {v.conversation: _verdict(v) for v in scored.verdicts}


def _verdict(v) -> str:
    if v.replays:
        return "replays"
    return f"{v.status}: {REASONS.get(v.reason or '', v.reason)}"


def rows() -> list[tuple[str, str, str, str, str]]:
    paths = sorted(HERE.glob("*.jsonl")) + sorted((ROOT / "tests/fixtures/real").glob("*.jsonl"))
    out = []
    for path in paths:
        analysis = analyze(str(path))
        live = live_verdicts(path, SIM_MADE[path.name]) if path.name in SIM_MADE else {}
        verdicts = {v.conversation: v for v in analysis.fidelity.verdicts}
        convs = analysis.conversations or []
        if not convs:
            out.append((path.relative_to(ROOT).as_posix(), "(no model turns)", "—", "—", "—"))
        for conv in convs:
            v = verdicts.get(conv.key)
            carried = conv.carried.tokens if conv.carried is not None else None
            out.append((path.relative_to(ROOT).as_posix(), (conv.id or conv.key)[:34],
                        f"{carried:,}" if carried is not None else "—",
                        _verdict(v) + (f" — {v.detail}" if v and not v.replays else "")
                        if v else "—", live.get(conv.key, "")))
        analysis.capture.close()
    return out


def main() -> int:
    print("| capture | conversation | carried tokens | fidelity (capture only) | live |")
    print("|---|---|---:|---|---|")
    for r in rows():
        print("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
