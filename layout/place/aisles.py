"""Clear aisles: every rack keeps its service clearance free, in front (the hall's ``cold_aisle_m``) and
behind (``hot_aisle_m``).

The placer lays its rows so that no column or keep-out stands in an aisle (layout/place/floor_grid.py);
user rows (``[[row]]``) stand where the site file puts them. This check looks at every placed rack: the
strip in front of it as deep as the cold aisle and the strip behind it as deep as the hot aisle must be
free of columns, keep-outs and the racks of other rows. Where one is not, an ``aisle`` violation per hall
names the worst rack, where the obstruction stands and the clear width left (the aisle's width less
what the obstruction takes of it). The hall's walls are not obstructions here: the wall clearance
(``wall_clearance_m``) is the hall's own rule along its walls, kept by the placer and checked for user
rows by ``user_row``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import shapely

from layout.place.floor_grid import hall_floor
from layout.place.tables import rack_polygons
from layout.place.templates import hall_items
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.load import Inputs
    from layout.memo import Scope
    from layout.model import Hall

# rotation -> the direction a rack's front faces (layout/place/tables.py: 0 faces +y, 270 faces +x)
FRONT = {0.0: (0.0, 1.0), 180.0: (0.0, -1.0), 270.0: (1.0, 0.0), 90.0: (-1.0, 0.0)}
MIN_AREA_M2 = 1e-6  # touching is not standing in


def clearance_strips(
    racks: pd.DataFrame | Mapping[str, np.ndarray], front_m: np.ndarray, back_m: np.ndarray
) -> np.ndarray:
    """Per rack, its front strip then its back strip (2 x racks shapely boxes, site coordinates);
    ``racks``: the racks table, or its columns as arrays."""
    x = np.asarray(racks["x_m"], float)
    y = np.asarray(racks["y_m"], float)
    w = np.asarray(racks["width_m"], float)
    d = np.asarray(racks["depth_m"], float)
    rot = np.asarray(racks["rotation_deg"], float)
    fx = np.array([FRONT.get(r, (0.0, 1.0))[0] for r in rot.tolist()])
    fy = np.array([FRONT.get(r, (0.0, 1.0))[1] for r in rot.tolist()])
    along = np.abs(fy)  # 1: the rack's width runs along x
    half_w = np.where(along > 0, w, d) / 2  # x half-extent of the footprint
    half_h = np.where(along > 0, d, w) / 2
    out = []
    for sign, depth in ((1.0, front_m), (-1.0, back_m)):
        # the face's centre, then the strip reaching ``depth`` beyond it
        cx, cy = x + sign * fx * half_w, y + sign * fy * half_h
        ex, ey = cx + sign * fx * depth, cy + sign * fy * depth
        lat_x, lat_y = np.where(along > 0, half_w, 0.0), np.where(along > 0, 0.0, half_h)
        out.append(
            shapely.box(
                np.minimum(cx, ex) - lat_x,
                np.minimum(cy, ey) - lat_y,
                np.maximum(cx, ex) + lat_x,
                np.maximum(cy, ey) + lat_y,
            )
        )
    return np.concatenate(out)


# the racks table's columns the check reads
AISLE_COLUMNS = ("rack_id", "row", "user_row", "x_m", "y_m", "width_m", "depth_m", "rotation_deg")


def aisle_checks(inputs: Inputs, racks: pd.DataFrame) -> list[Violation]:
    """One ``aisle`` violation per hall whose racks' service clearance a column, a keep-out or another
    row's rack stands in (see the module docstring)."""
    if not len(racks):
        return []
    hall_col = racks["hall"].to_numpy()
    cols = {c: racks[c].to_numpy() for c in AISLE_COLUMNS}
    parts: list[tuple[str, Mapping[str, np.ndarray]]] = []
    for key in pd.unique(hall_col):
        idx = np.flatnonzero(hall_col == key)
        parts.append((str(key), {c: v[idx] for c, v in cols.items()}))
    return hall_aisle_checks(inputs, parts)


def aisle_key(hall: Hall, racks: Mapping[str, np.ndarray]) -> dict[str, Any]:
    """Everything one hall's aisle check reads, by name: of the hall its aisles, columns and keep-outs
    (not its power or cooling), and its racks (``racks``: the :data:`AISLE_COLUMNS` of the hall's
    racks: ids, rows, user flags, centre, size and rotation). A memo keeps a hall's check by these."""
    return {
        "hall": (hall.cold_aisle_m, hall.hot_aisle_m, hall.columns, hall.keepouts),
        "racks": tuple(np.asarray(racks[c]) for c in AISLE_COLUMNS),
    }


def hall_aisle_checks(
    inputs: Inputs,
    parts: list[tuple[str, Mapping[str, np.ndarray]]],
    scope: Scope | None = None,
) -> list[Violation]:
    """:func:`aisle_checks` of the halls' racks given per hall: ``(hall key, its racks' AISLE_COLUMNS)``
    in the racks table's order."""
    halls = dict(hall_items(inputs))
    out: list[Violation] = []
    for key, racks in parts:
        h = halls[key]
        if scope is None:
            out += _hall_aisles(key, h, racks)
        else:  # an edit of one hall checks that hall alone
            got = scope.take(
                "place.hall_aisles",
                (key, *aisle_key(h, racks).values()),
                partial(_hall_aisles, key, h, racks),
            )
            out += got
    return out


def _hall_aisles(key: str, h: Hall, racks: Mapping[str, np.ndarray]) -> list[Violation]:
    """The aisle violation of one hall's ``racks`` (at most one)."""
    polys = rack_polygons(racks)
    row_col = np.asarray(racks["row"])
    ids = np.asarray(racks["rack_id"])
    user = np.asarray(racks["user_row"], bool)
    n = len(ids)
    _, obstacles = hall_floor(h)
    depth = np.r_[np.full(n, h.cold_aisle_m), np.full(n, h.hot_aisle_m)]
    strips = clearance_strips(racks, depth[:n], depth[n:])
    local = np.arange(n)
    owner = np.r_[local, local]  # the rack of each strip
    hits: list[tuple[np.ndarray, np.ndarray]] = []  # (strip, obstruction geometry)
    if obstacles:
        obs = np.asarray(obstacles, dtype=object)
        si, oi = shapely.STRtree(obs).query(strips, predicate="intersects")
        hits.append((si, obs[oi]))
    if user.any():  # user rows: other rows' racks in their aisles, or theirs in others'
        si, ri = shapely.STRtree(polys).query(strips, predicate="intersects")
        other = row_col[ri] != row_col[owner[si]]
        either = user[ri] | user[owner[si]]
        keep = other & either
        hits.append((si[keep], polys[ri[keep]]))
    if not hits:
        return []
    si = np.concatenate([s for s, _ in hits])
    geo = np.concatenate([g for _, g in hits])
    inter = shapely.intersection(strips[si], geo)
    ok = shapely.area(inter) > MIN_AREA_M2
    if not ok.any():
        return []
    si, inter = si[ok], inter[ok]
    b = shapely.bounds(inter)
    rot = np.asarray(racks["rotation_deg"], float)[owner[si]]
    across_y = np.isin(rot, (0.0, 180.0))  # the strip's depth runs along y
    taken = np.where(across_y, b[:, 3] - b[:, 1], b[:, 2] - b[:, 0])
    full = depth[si]
    clear = np.maximum(full - taken, 0.0)
    # the worst: least clear width left, then the first rack
    worst = int(np.lexsort((owner[si], np.round(clear, 6)))[0])
    r = int(owner[si][worst])
    c = shapely.centroid(inter[worst])
    which = "front (cold)" if si[worst] < n else "back (hot)"
    aisle_m = float(full[worst])
    n_racks = len(set(owner[si].tolist()))
    return [
        Violation(
            "aisle",
            str(ids[r]),
            f"{n_racks} rack(s) in {key} have their aisle narrowed; worst {ids[r]}: its {which} aisle "
            f"at ({c.x:.2f}, {c.y:.2f}) keeps {clear[worst]:.2f} m clear of {aisle_m:g} m",
            "move the [[row]] or the column/keep-out so the aisle keeps its full width, or narrow the "
            "hall's aisle only if the code allows",
            {
                "racks": n_racks,
                "clear_m": round(float(clear[worst]), 3),
                "aisle_m": aisle_m,
                "x_m": round(float(c.x), 3),
                "y_m": round(float(c.y), 3),
            },
        )
    ]
