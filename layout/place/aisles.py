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

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import shapely

from layout.place.floor_grid import hall_floor
from layout.place.tables import rack_polygons
from layout.place.templates import hall_items
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.load import Inputs

# rotation -> the direction a rack's front faces (layout/place/tables.py: 0 faces +y, 270 faces +x)
FRONT = {0.0: (0.0, 1.0), 180.0: (0.0, -1.0), 270.0: (1.0, 0.0), 90.0: (-1.0, 0.0)}
MIN_AREA_M2 = 1e-6  # touching is not standing in


def clearance_strips(racks: pd.DataFrame, front_m: np.ndarray, back_m: np.ndarray) -> np.ndarray:
    """Per rack, its front strip then its back strip (2 x racks shapely boxes, site coordinates)."""
    x = racks["x_m"].to_numpy(float)
    y = racks["y_m"].to_numpy(float)
    w = racks["width_m"].to_numpy(float)
    d = racks["depth_m"].to_numpy(float)
    rot = racks["rotation_deg"].to_numpy(float)
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


def aisle_checks(inputs: Inputs, racks: pd.DataFrame) -> list[Violation]:
    """One ``aisle`` violation per hall whose racks' service clearance a column, a keep-out or another
    row's rack stands in (see the module docstring)."""
    if not len(racks):
        return []
    halls = dict(hall_items(inputs))
    polys = rack_polygons(racks)
    hall_col = racks["hall"].to_numpy()
    row_col = racks["row"].to_numpy()
    ids = racks["rack_id"].to_numpy()
    user = racks["user_row"].to_numpy(bool)
    out: list[Violation] = []
    for key in pd.unique(hall_col):
        h = halls[str(key)]
        idx = np.flatnonzero(hall_col == key)
        n = len(idx)
        _, obstacles = hall_floor(h)
        depth = np.r_[np.full(n, h.cold_aisle_m), np.full(n, h.hot_aisle_m)]
        strips = clearance_strips(racks.iloc[idx], depth[:n], depth[n:])
        owner = np.r_[idx, idx]  # the rack of each strip
        hits: list[tuple[np.ndarray, np.ndarray]] = []  # (strip, obstruction geometry)
        if obstacles:
            obs = np.asarray(obstacles, dtype=object)
            si, oi = shapely.STRtree(obs).query(strips, predicate="intersects")
            hits.append((si, obs[oi]))
        if user[idx].any():  # user rows: other rows' racks in their aisles, or theirs in others'
            mine = polys[idx]
            si, ri = shapely.STRtree(mine).query(strips, predicate="intersects")
            other = row_col[idx[ri]] != row_col[owner[si]]
            either = user[idx[ri]] | user[owner[si]]
            keep = other & either
            hits.append((si[keep], mine[ri[keep]]))
        if not hits:
            continue
        si = np.concatenate([s for s, _ in hits])
        geo = np.concatenate([g for _, g in hits])
        inter = shapely.intersection(strips[si], geo)
        ok = shapely.area(inter) > MIN_AREA_M2
        if not ok.any():
            continue
        si, inter = si[ok], inter[ok]
        b = shapely.bounds(inter)
        rot = racks["rotation_deg"].to_numpy(float)[owner[si]]
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
        out.append(
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
        )
    return out
