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


# kinds in the order a reviewer takes them: people and the building first (aisles, floor), then power
# and cooling (what trips or overheats), then what cannot be built or cabled, then capacity and fill
SEVERITY = (
    "aisle", "floor_load", "feed", "site_mw", "building_mw", "hall_mw", "rack_kw", "pdu", "cooling", "cdu",
    "unplaced", "ports", "reach", "no_path", "channel", "panels", "cabinets", "media", "capacity", "tray_fill",
    "tray_add", "user_row",
)  # fmt: skip


def worst_first(violations: list[Violation]) -> list[int]:
    """The violations' indices, worst first: by :data:`SEVERITY` of their kind (kinds it does not name
    after those it does), in their order within a kind."""
    rank = {k: i for i, k in enumerate(SEVERITY)}
    return sorted(range(len(violations)), key=lambda i: (rank.get(violations[i].kind, len(rank)), i))


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
