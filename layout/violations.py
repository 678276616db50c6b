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


def where_prefixes(where: str) -> list[str]:
    """The places a ``where`` names, most specific first: ``B1/H1/R03/K07`` -> the rack, its row
    ``B1/H1/R03``, its hall ``B1/H1``, its building ``B1``. The one parser of ``where`` strings: the
    drawings' markers and the TUI's jump to a violation both go through it."""
    parts = where.split("/")
    return ["/".join(parts[:n]) for n in range(len(parts), 0, -1)]


def hall_key(where: str) -> str:
    """The hall (``B1/H1``) a ``where`` lies in, or "" for a building, the site or a bare id."""
    parts = where.split("/")
    return "/".join(parts[:2]) if len(parts) >= 2 else ""
