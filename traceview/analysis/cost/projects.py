"""Which provider project each turn's cost belongs to, for lines laid out as the bill is.

A capture holds the project only when the recorder kept the `openai-project` header (the
provider's answer names the project it billed; a client's `OpenAI-Project` request header
the one it asked for). Where it holds none, the user may say (`reconcile --project proj_…`
for every capture, `--project CAPTURE=proj_…` for one); a project the capture recorded is
never overridden by that, and what is still unknown stays unknown (None), never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from traceview.analysis.cost.attribution import billed_to


class ProjectMapError(ValueError):
    """A --project argument that cannot be used; the message says which and why."""


def _check_id(value: str, given: str) -> str:
    value = value.strip()
    if not value.startswith("proj_") or len(value) > 100 or any(c.isspace() for c in value):
        raise ProjectMapError(f"--project {given!r}: {value!r} is not a project id (the "
                              "provider's are proj_…)")
    return value


@dataclass(frozen=True)
class ProjectMap:
    """The projects the user says captures ran under: `default` for every capture,
    `by_capture` ((capture path as given, project), …) for one capture or directory."""

    default: str | None = None
    by_capture: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, args: list[str], paths: list[str]) -> ProjectMap:
        """From `--project` values: `proj_…` (every capture) or `CAPTURE=proj_…` (CAPTURE
        one of `paths`). Raises ProjectMapError on a bad id, an unknown capture or two
        projects for one capture."""
        default: str | None = None
        pairs: dict[str, str] = {}
        for arg in args:
            where, sep, value = arg.rpartition("=")
            project = _check_id(value if sep else arg, arg)
            if not sep:
                if default not in (None, project):
                    raise ProjectMapError(f"--project {default} and --project {project}: "
                                          "one project for every capture, or name each "
                                          "capture (--project CAPTURE=proj_…)")
                default = project
                continue
            if where not in paths:
                raise ProjectMapError(f"--project {arg!r}: {where!r} is not one of the "
                                      f"captures given ({', '.join(paths)})")
            if pairs.get(where, project) != project:
                raise ProjectMapError(f"--project: {where!r} is given two projects "
                                      f"({pairs[where]}, {project})")
            pairs[where] = project
        return cls(default, tuple(pairs.items()))

    def of(self, source: str) -> str | None:
        """The project the user gave for the capture file `source` (a directory's entry
        names every file under it), else the default, else None."""
        for path, project in self.by_capture:
            if source == path or source.startswith(path.rstrip("/") + "/"):
                return project
        return self.default

    def to_dict(self) -> dict[str, Any]:
        return {"default": self.default, "by_capture": dict(self.by_capture)}


@dataclass
class TurnProjects:
    """The project each turn was billed to, as the cost lines name it, and what the
    reconciliation says about how it was found (counts of turns)."""

    given: ProjectMap | None = None
    recorded: int = 0  # turns whose capture named their project
    mapped: int = 0  # turns given one by the user
    unknown: int = 0
    # (source, recorded project, the user's) where the capture overrode the user's word
    overridden: dict[tuple[str, str, str], int] = field(default_factory=dict)

    def of(self, req_extra: dict[str, Any] | None, res_extra: dict[str, Any] | None,
           source: str) -> str | None:
        project = billed_to(req_extra, res_extra)[0] if req_extra or res_extra else None
        said = self.given.of(source) if self.given is not None else None
        if project is not None:
            self.recorded += 1
            if said is not None and said != project:
                key = (source, project, said)
                self.overridden[key] = self.overridden.get(key, 0) + 1
            return project
        if said is not None:
            self.mapped += 1
            return said
        self.unknown += 1
        return None

    def notes(self) -> list[str]:
        """What a reader of the reconciliation needs to know about the projects."""
        out = []
        for (source, rec, said), n in sorted(self.overridden.items()):
            out.append(f"{source}: {n:,} turn(s) recorded project {rec} (openai-project "
                       f"header) where --project said {said}: the recorded project was used")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"recorded": self.recorded, "given": self.mapped, "unknown": self.unknown,
                "map": self.given.to_dict() if self.given is not None else None}
