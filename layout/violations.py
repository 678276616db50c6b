"""Design rule breaches. Every check reports a Violation (kind, location, figures, suggestion); none raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Violation:
    kind: str  # e.g. rack_kw, hall_mw, building_mw, site_mw, floor_load, cooling, capacity, reach, tray_fill
    where: str  # B1/H2/R07/K12, B1/H2, B1, site, or a tray segment id
    message: str  # one sentence with the figures
    suggestion: str = ""
    figures: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "where": self.where, "message": self.message}
        if self.suggestion:
            out["suggestion"] = self.suggestion
        if self.figures:
            out["figures"] = dict(sorted(self.figures.items()))
        return out
