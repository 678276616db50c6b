"""Placement options that gather racks around a point (written by ``dclayout optimize``; a user may set
them too). Each is optional; without it the placer keeps its fixed rule (layout.place.assign).

- ``building.mdf_at = [x, y]``: the building's MDF racks stand in the row cells nearest this point, in
  whichever hall of the building those are (default: nearest the building's entry);
- ``hall.spine_at = [x, y]``: the hall is laid out around this point: its spine racks in the row cells
  nearest it, then its SU blocks from the nearest free cells outward (default: SU rows from the middle
  line, with a spine row in the middle of them).

"Nearest" is the distance from the point to a cell's box (a row line's band between two cross aisles)
along the hall's axes (``|du| + |dv|``: cables run along rows and cross aisles), ties broken by the cell
number, so the order is the same on every run.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from shapely.geometry import Polygon

if TYPE_CHECKING:
    from layout.model import Building
    from layout.place.floor_grid import Cell, HallPlan


def mdf_point(b: Building) -> tuple[float, float]:
    """Where a building's MDF gathers: ``mdf_at``, else the entry, else the footprint's centroid."""
    if b.mdf_at is not None:
        return b.mdf_at
    if b.entry is not None:
        return b.entry
    c = Polygon(b.footprint).centroid
    return (c.x, c.y)


def _distances(
    hall: HallPlan, cells: list[Cell], ids: list[int], point: tuple[float, float], l1: bool
) -> list[float]:
    """Distance from ``point`` (site coordinates) to each cell's box in ``hall``'s frame: straight
    (``l1`` False) or along the axes (True); rounded to the micrometre so the order is stable."""
    pu, pv = (point[1], point[0]) if hall.swap else point
    out = []
    for c in ids:
        cell = cells[c]
        du = max(cell.u0 - pu, 0.0, pu - cell.u1)
        dv = max(cell.v0 - pv, 0.0, pv - (cell.v0 + hall.band_m))
        out.append(round(du + dv if l1 else math.hypot(du, dv), 6))
    return out


def cells_nearest(
    halls: list[HallPlan], cells: list[Cell], point: tuple[float, float], l1: bool
) -> list[int]:
    """Every row cell of ``halls``, nearest ``point`` first (ties: the lower cell number)."""
    ids: list[int] = []
    dist: list[float] = []
    for hall in halls:
        own = [c for line in hall.line_cells for c in line]
        ids += own
        dist += _distances(hall, cells, own, point, l1)
    if not ids:
        return []
    return [ids[i] for i in np.lexsort((np.asarray(ids), np.asarray(dist)))]


def spine_order(hall: HallPlan, cells: list[Cell]) -> list[int] | None:
    """The cell order of a hall laid out around its ``spine_at`` (nearest first, along the axes); None
    when the hall has no ``spine_at``."""
    at = hall.model.spine_at
    return None if at is None else cells_nearest([hall], cells, at, True)
