"""Thresholds and inputs that change what analysis concludes; every one has a CLI flag."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Options:
    # A deposit is an unexplained rise of at least this many tokens…
    deposit_min_tokens: int = 500
    # …and at least this fraction of the expected input.
    deposit_ratio: float = 0.25
    # A drop in billed input of at least this many tokens counts as compaction_likely
    # (0: any drop below the previous turn's input).
    compaction_min_drop: int = 0
    # A pricing table to use instead of the bundled one.
    pricing_path: str | None = None
    # Read every source as this format (capture, har, batch, otlp); None detects each.
    from_format: str | None = None
    # The config file the thresholds were read from (None: none was), and which ones it set
    # (the rest are the command line's or the defaults). Not in repr or equality: the
    # export cache is keyed on repr, and the same thresholds make the same rows.
    config: str | None = field(default=None, repr=False, compare=False)
    from_config: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The report's `options`: the thresholds the numbers were made with, and where
        they came from."""
        return {"deposit_min_tokens": self.deposit_min_tokens,
                "deposit_ratio": self.deposit_ratio,
                "compaction_min_drop": self.compaction_min_drop,
                "pricing": self.pricing_path, "from_format": self.from_format,
                "config": self.config, "from_config": list(self.from_config)}
    # Conversations a month to project the capture's cost to (`report --per-month N`).
    per_month: int | None = None
    # A cost budget (analysis/cost/volume.py Budget) to mark what goes over.
    budget: Any = None
    # The projects the user says the captures ran under where they recorded none
    # (analysis/cost/projects.py ProjectMap; `reconcile --project`).
    projects: Any = None
