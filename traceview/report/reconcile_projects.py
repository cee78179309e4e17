"""Which rows of a reconciliation each side's line goes to, by project.

The bill is per project (`group_by=project_id`); the capture's lines name the project each
turn was billed to when the capture recorded it (or the user said, `--project`), else
none. A named project is compared with that project's bill alone. Lines that name none go
to the `(unknown)` rows, compared with the bill of every project the capture does not name
(every project, when it names none): never matched to one project on a guess, and said so.
A day whose bill was read without `group_by=project_id` is compared as one pool (`*`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

ALL_PROJECTS = "*"  # the bill of a day that was read without project_id: every project pooled
UNKNOWN_PROJECT = "(unknown)"  # the capture's lines that name no project


@dataclass(frozen=True)
class ProjectBuckets:
    """How the capture's and the bill's projects meet in rows."""

    named: frozenset[str]  # projects the capture's lines name
    unknown_lines: int  # capture lines that name none (dated ones)
    pooled_days: frozenset[str]  # days billed without project_id

    @classmethod
    def of(cls, lines: Iterable[Any], billed: Iterable[Any]) -> ProjectBuckets:
        named: set[str] = set()
        unknown = 0
        for ln in lines:
            if ln.day is None:
                continue
            if ln.project is None:
                unknown += 1
            else:
                named.add(ln.project)
        pooled = {b.day for b in billed if b.project_id is None}
        return cls(frozenset(named), unknown, frozenset(pooled))

    def capture_key(self, day: str, project: str | None) -> str:
        if day in self.pooled_days:
            return ALL_PROJECTS
        return project if project is not None else UNKNOWN_PROJECT

    def billed_key(self, day: str, project_id: str | None) -> str | None:
        """The row project a billed line counts in; None: not compared (a project the
        capture does not name, when every capture line names one)."""
        if day in self.pooled_days:
            return ALL_PROJECTS
        if project_id in self.named:
            return project_id
        return UNKNOWN_PROJECT if self.unknown_lines else None

    def usage_key(self, day: str, project_id: str | None) -> str | None:
        """As billed_key; a usage result without project_id counts where it cannot be
        mistaken: the one row project of the day, else nowhere."""
        if project_id is not None or day in self.pooled_days:
            return self.billed_key(day, project_id)
        keys = set(self.named) | ({UNKNOWN_PROJECT} if self.unknown_lines else set())
        return next(iter(keys)) if len(keys) == 1 else None

    def scope(self, key: str) -> str:
        """What the billed side of a row with this project covers."""
        if key == ALL_PROJECTS:
            return "every project (the bill was read without group_by=project_id)"
        if key == UNKNOWN_PROJECT:
            if not self.named:
                return "every project (the capture names none)"
            return "every project the capture does not name"
        return "this project"

    def notes(self) -> list[str]:
        out = []
        if self.unknown_lines:
            others = " the capture does not name" if self.named else ""
            out.append(
                f"{self.unknown_lines:,} capture line(s) name no project (no openai-project "
                "header was recorded and --project gave none): their rows, project "
                f"{UNKNOWN_PROJECT}, are compared with the bill of every project{others}, "
                "so other workloads there show as a positive remainder; give the project "
                "(--project proj_… or --project CAPTURE=proj_…) to compare it alone")
        if self.pooled_days:
            days = sorted(self.pooled_days)
            out.append(f"{len(days)} day(s) were billed without project_id ({days[0]} … "
                       f"{days[-1]}): every project is pooled on them (project "
                       f"{ALL_PROJECTS})")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"named": sorted(self.named), "unknown_lines": self.unknown_lines,
                "pooled_days": sorted(self.pooled_days)}
