"""Fibre cabinets on the floor: where each panel location's cabinets stand (pure: numpy, pandas).

A panel location whose panels do not fit its rack's free U gets fibre cabinets (layout/cable/plant.py).
They stand on the floor the racks leave free (the placement's ``free`` table,
layout/place/free_floor.py): rack positions of the hall's floor grid, so inside the wall clearance, off
columns and keep-outs, out of every cold, hot and cross aisle, and never more racks in a row place
than the hall's ``max_row_racks``. A cabinet deeper than the grid's row band finds no place.

Positions: each free interval of a row place holds ``floor((hi - lo) / width)`` cabinets side by side,
packed from the end where a rack already stands (the cabinets continue that row), else from ``lo``.
The cabinet faces as the row line does, its front on the line's cold aisle, like the racks.

Which cabinet goes where: per hall, the locations with the most cabinets first (then by rack number),
each takes, one by one, the free position nearest to its rack (distance along the floor: along x plus
along y between the centres, the way a cord runs along the rows and across them), until a row place
has no room left. A cabinet that finds no position in its hall is not placed: a ``cabinets`` violation
names its location.

A location's cords run to its farthest cabinet: ``run_m`` is that distance (0 without cabinets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from layout.violations import Violation

EPS = 1e-6
CABINET_COLUMNS = [
    "cabinet_id", "rack", "number", "hall", "row", "x_m", "y_m", "rotation_deg", "width_m", "depth_m", "run_m",
]  # fmt: skip


@dataclass(frozen=True)
class Cabinets:
    """Placed fibre cabinets (``CABINET_COLUMNS``: ``rack`` its location's rack number, ``number`` 1, 2,
    ... at that location, ``run_m`` the floor distance from the location's rack) and per rack of the
    racks table: the run to its farthest cabinet (``run_m``) and its cabinets with no place (``short``)."""

    table: pd.DataFrame
    run_m: np.ndarray
    short: np.ndarray
    count: np.ndarray | None = None  # per rack: the cabinets asked for (None: none asked)

    @staticmethod
    def empty(n_racks: int = 0) -> Cabinets:
        return Cabinets(_frame(), np.zeros(n_racks), np.zeros(n_racks, np.int64))


def _frame() -> pd.DataFrame:
    dt = {"cabinet_id": object, "rack": np.int64, "number": np.int64, "hall": object, "row": object}
    return pd.DataFrame({c: pd.Series(dtype=dt.get(c, float)) for c in CABINET_COLUMNS})


def positions(free: pd.DataFrame, width_m: float, depth_m: float) -> pd.DataFrame:
    """Every cabinet position of the free floor: ``hall, row, place, x_m, y_m, rotation_deg, width_m,
    depth_m, room`` (the room of its row place), in the free table's order, each interval's positions
    from the end it is packed from (module docstring)."""
    cols = ["hall", "row", "place", "x_m", "y_m", "rotation_deg", "width_m", "depth_m", "room"]
    if not len(free):
        return pd.DataFrame({c: [] for c in cols})
    lo, hi = free["lo_m"].to_numpy(float), free["hi_m"].to_numpy(float)
    fits = free["band_m"].to_numpy(float) >= depth_m - EPS
    n = np.where(fits, np.floor((hi - lo + EPS) / width_m), 0).astype(np.int64)
    n = np.minimum(n, free["room"].to_numpy(np.int64))
    iv = np.repeat(np.arange(len(free)), n)
    k = np.arange(len(iv)) - np.repeat(np.cumsum(n) - n, n)  # 0, 1, ... within its interval
    from_hi = (free["rack_hi"].to_numpy(bool) & ~free["rack_lo"].to_numpy(bool))[iv]
    along = np.where(from_hi, hi[iv] - (k + 0.5) * width_m, lo[iv] + (k + 0.5) * width_m)
    front = free["front_sign"].to_numpy(np.int64)[iv]
    across = free["front_m"].to_numpy(float)[iv] - front * depth_m / 2
    along_x = free["axis"].to_numpy(object)[iv] == "x"
    rot = np.where(along_x, np.where(front > 0, 0.0, 180.0), np.where(front > 0, 270.0, 90.0))
    return pd.DataFrame(
        {
            "hall": free["hall"].to_numpy(object)[iv],
            "row": free["row"].to_numpy(object)[iv],
            "place": free["place"].to_numpy(np.int64)[iv],
            "x_m": np.round(np.where(along_x, along, across), 6),
            "y_m": np.round(np.where(along_x, across, along), 6),
            "rotation_deg": rot,
            "width_m": np.full(len(iv), width_m),
            "depth_m": np.full(len(iv), depth_m),
            "room": free["room"].to_numpy(np.int64)[iv],
        }
    )


def place(rack: np.ndarray, count: np.ndarray, racks: pd.DataFrame, pos: pd.DataFrame) -> Cabinets:
    """Where the ``count[i]`` fibre cabinets of panel location ``rack[i]`` (rack numbers) stand, on the
    free floor's cabinet positions ``pos`` (:func:`positions`; module docstring)."""
    n_racks = len(racks)
    rack = np.asarray(rack, np.int64)
    count = np.asarray(count, np.int64)
    want = count > 0
    if not want.any():
        return Cabinets.empty(n_racks)
    halls = racks["hall"].astype(str).to_numpy(object)
    ids = racks["rack_id"].astype(str).to_numpy(object)
    rx, ry = racks["x_m"].to_numpy(float), racks["y_m"].to_numpy(float)
    short = np.zeros(n_racks, np.int64)
    px, py = pos["x_m"].to_numpy(float), pos["y_m"].to_numpy(float)
    by_hall = {str(k): np.asarray(v) for k, v in pos.groupby("hall", sort=False).indices.items()}
    place_code, _ = pd.factorize(pos["place"])
    room = pos.groupby(place_code, sort=True)["room"].first().to_numpy(np.int64).copy()
    taken = np.zeros(len(pos), bool)
    locs = np.flatnonzero(want)
    order = locs[np.lexsort((rack[locs], -count[locs], halls[rack[locs]]))]
    at: list[np.ndarray] = []
    of: list[int] = []
    for i in order.tolist():
        at_rack = int(rack[i])
        mine = by_hall.get(str(halls[at_rack]), np.zeros(0, np.int64))
        mine = mine[~taken[mine]]
        dist = np.abs(px[mine] - rx[at_rack]) + np.abs(py[mine] - ry[at_rack])
        got = _nearest(mine, dist, int(count[i]), place_code, room)
        taken[got] = True
        short[at_rack] = int(count[i]) - len(got)
        at.append(np.asarray(got, np.int64))
        of.append(at_rack)
    j = np.concatenate(at) if at else np.zeros(0, np.int64)
    r = np.repeat(np.asarray(of, np.int64), [len(g) for g in at])
    d = np.round(np.abs(px[j] - rx[r]) + np.abs(py[j] - ry[r]), 6)
    run = np.zeros(n_racks)
    np.maximum.at(run, r, d)
    asked = np.zeros(n_racks, np.int64)
    asked[rack] = count
    if not len(j):
        return Cabinets(_frame(), run, short, asked)
    k = np.concatenate([np.arange(1, len(g) + 1) for g in at])
    table = pd.DataFrame(
        {
            "cabinet_id": pd.Series(ids[r])
            .str.cat(pd.Series(k).map("FC{:02d}".format), sep="/")
            .to_numpy(object),
            "rack": r,
            "number": k.astype(np.int64),
            "hall": halls[r],
            "row": pos["row"].to_numpy(object)[j],
            "x_m": px[j],
            "y_m": py[j],
            "rotation_deg": pos["rotation_deg"].to_numpy(float)[j],
            "width_m": pos["width_m"].to_numpy(float)[j],
            "depth_m": pos["depth_m"].to_numpy(float)[j],
            "run_m": d,
        }
    )
    table = table.sort_values(["rack", "number"], kind="stable").reset_index(drop=True)
    return Cabinets(table, run, short, asked)


def _nearest(
    mine: np.ndarray, dist: np.ndarray, k: int, place_code: np.ndarray, room: np.ndarray
) -> list[int]:
    """The ``k`` positions of ``mine`` nearest by ``dist`` (a tie: the lower position) whose row place
    has room, taking that room (``room`` is changed); fewer when the hall has no more. The nearest few
    first (a partial sort), all of them only when those places are full."""
    got: list[int] = []
    m = min(len(mine), 4 * k + 32)
    near = None
    if m < len(mine):  # the m nearest and every position as near as the farthest of them
        near = np.flatnonzero(dist <= np.partition(dist, m - 1)[m - 1])
    for cand in (near, None):
        sel = np.arange(len(mine)) if cand is None else cand
        for j in mine[sel[np.lexsort((mine[sel], dist[sel]))]].tolist():
            if len(got) == k:
                return got
            q = place_code[j]
            if room[q] <= 0 or j in got:
                continue
            room[q] -= 1
            got.append(j)
        if cand is None:
            break
    return got


def violations(cab: Cabinets, racks: pd.DataFrame) -> list[Violation]:
    """One ``cabinets`` violation per hall whose fibre cabinets do not all find a place on its floor,
    naming the location short of the most."""
    bad = np.flatnonzero(cab.short > 0)
    if not len(bad):
        return []
    halls = racks["hall"].astype(str).to_numpy(object)
    ids = racks["rack_id"].astype(str).to_numpy(object)
    placed = (
        np.bincount(cab.table["rack"].to_numpy(np.int64), minlength=len(racks)) if len(cab.table) else None
    )
    res = []
    for hall in sorted(set(halls[bad].tolist())):
        sel = bad[halls[bad] == hall]
        worst = int(sel[np.lexsort((sel, -cab.short[sel]))[0]])
        got = int(placed[worst]) if placed is not None else 0
        res.append(
            Violation(
                "cabinets",
                str(ids[worst]),
                f"{int(cab.short[sel].sum())} fibre cabinets of {len(sel)} panel locations in {hall} find no free "
                f"rack position on its floor: {ids[worst]} needs {got + int(cab.short[worst])}, "
                f"{got} placed",
                "keep rack positions for them at the rows' starts (the hall's fibre_positions), free floor "
                "(fewer racks, a larger hall), denser panels ([plant] panel_fibres), or cabinets no deeper "
                "than the hall's rack rows ([plant] cabinet_depth_mm)",
                {"cabinets_short": int(cab.short[sel].sum()), "locations": len(sel)},
            )
        )
    return res
