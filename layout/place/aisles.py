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
    """The aisle violations of one hall's ``racks``: a rack whose clearance strip something stands in,
    and a column standing in the aisle between two facing rows (at most one of each)."""
    return _rack_aisles(key, h, racks) + _columns_in_aisles(key, h, racks)


def _columns_in_aisles(key: str, h: Hall, racks: Mapping[str, np.ndarray]) -> list[Violation]:
    """One ``aisle`` violation when a row runs past a column standing in its front or back aisle: the
    row is broken around the column, so no rack's own strip holds it, yet the aisle is narrowed there
    and its containment cannot close. Each row is taken as one rack from its first to its last rack's
    end (its racks share a line and a facing); its strips meet the columns. Names the worst column and
    the clear width it leaves."""
    if not len(racks["rack_id"]) or not h.columns:
        return []
    x, y = np.asarray(racks["x_m"], float), np.asarray(racks["y_m"], float)
    w, d = np.asarray(racks["width_m"], float), np.asarray(racks["depth_m"], float)
    rot = np.asarray(racks["rotation_deg"], float)
    along_x = np.isin(rot, (0.0, 180.0))
    lo_x, hi_x = x - np.where(along_x, w, d) / 2, x + np.where(along_x, w, d) / 2
    lo_y, hi_y = y - np.where(along_x, d, w) / 2, y + np.where(along_x, d, w) / 2
    codes, rows = pd.factorize(np.asarray(racks["row"]))
    k = len(rows)
    box = np.empty((4, k))
    for i, (vals, ufunc, init) in enumerate(
        (
            (lo_x, np.minimum, np.inf),
            (lo_y, np.minimum, np.inf),
            (hi_x, np.maximum, -np.inf),
            (hi_y, np.maximum, -np.inf),
        )
    ):
        box[i] = init
        ufunc.at(box[i], codes, vals)
    first = np.unique(codes, return_index=True)[1]
    row_rot, row_x = rot[first], along_x[first]
    row = {  # one rack per row
        "x_m": (box[0] + box[2]) / 2,
        "y_m": (box[1] + box[3]) / 2,
        "width_m": np.where(row_x, box[2] - box[0], box[3] - box[1]),
        "depth_m": np.where(row_x, box[3] - box[1], box[2] - box[0]),
        "rotation_deg": row_rot,
    }
    depth = np.r_[np.full(k, h.cold_aisle_m), np.full(k, h.hot_aisle_m)]
    strips = clearance_strips(row, depth[:k], depth[k:])
    cols = np.array(
        [
            shapely.box(cx - sx / 2, cy - sy / 2, cx + sx / 2, cy + sy / 2)
            for (cx, cy), (sx, sy) in ((c.at, c.size_m) for c in h.columns)
        ],
        dtype=object,
    )
    si, ci = shapely.STRtree(cols).query(strips, predicate="intersects")
    if not len(si):
        return []
    inter = shapely.intersection(strips[si], cols[ci])
    ok = shapely.area(inter) > MIN_AREA_M2
    if not ok.any():
        return []
    # only where the column stands in a gap of the row: a rack beside it is the rack check's
    cb = shapely.bounds(cols)
    lo_u, hi_u = np.where(along_x, lo_x, lo_y), np.where(along_x, hi_x, hi_y)

    def in_a_gap(r: int, c: int) -> bool:
        c0, c1 = (cb[c, 0], cb[c, 2]) if row_x[r] else (cb[c, 1], cb[c, 3])
        return not np.any((codes == r) & (lo_u < c1 - 1e-9) & (hi_u > c0 + 1e-9))

    gap = np.array([in_a_gap(r % k, c) for r, c in zip(si[ok].tolist(), ci[ok].tolist(), strict=True)])
    ok[ok] = gap
    if not ok.any():
        return []
    si, ci, inter = si[ok], ci[ok], inter[ok]
    b = shapely.bounds(inter)
    across_y = np.r_[row_x, row_x][si]
    clear = np.maximum(depth[si] - np.where(across_y, b[:, 3] - b[:, 1], b[:, 2] - b[:, 0]), 0.0)
    worst = int(np.lexsort((ci, np.round(clear, 6)))[0])
    (cx, cy), r = h.columns[int(ci[worst])].at, str(rows[si[worst] % k])
    which = "front (cold)" if si[worst] < k else "back (hot)"
    found = len(set(ci.tolist()))
    aisle_m = float(depth[si[worst]])
    return [
        Violation(
            "aisle",
            f"{key} column at ({cx:g}, {cy:g})",
            f"{found} column(s) of {key} stand in the aisle of a row that runs past them; worst at "
            f"({cx:g}, {cy:g}) in the {which} aisle of {r.rsplit('/', 1)[-1]}, {clear[worst]:.2f} m clear of "
            f"{aisle_m:g} m, and the row is broken around it",
            "end the row at the column (the placer does: a cross aisle wide), or shift the rows so the "
            "column stands in a row line",
            {
                "columns": found,
                "clear_m": round(float(clear[worst]), 3),
                "aisle_m": aisle_m,
                "x_m": cx,
                "y_m": cy,
            },
        )
    ]


def _rack_aisles(key: str, h: Hall, racks: Mapping[str, np.ndarray]) -> list[Violation]:
    """The violation of racks whose clearance strip something stands in (at most one)."""
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
