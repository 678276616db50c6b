"""The floor the racks leave free: where a rack-sized thing (a fibre cabinet) can still stand.

Every place of a hall's floor grid (layout/place/floor_grid.py: a row line between two cross aisles,
inside the wall clearance, off columns and keep-outs, with its cold and hot aisles clear by
construction) has free intervals along its row line; the placer's racks take spans of them. What is
left, per place: each free interval along the row (``lo_m`` .. ``hi_m`` in site coordinates, along
``axis``), where the rack fronts of that row line align (``front_m`` across the row, facing
``front_sign``), how deep a rack may be (``band_m``), how many more racks the place takes under the
hall's ``max_row_racks`` (``room``, shared by the place's intervals), the row id a row there has (or
would have: the grid numbers every place), and whether a placed rack stands right at the interval's
``lo`` or ``hi`` end (a thing put there continues that row rather than leaving a gap).

User rows are not part of the grid: their empty positions are not free floor here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from layout.place.floor_grid import Spot, subtract

if TYPE_CHECKING:
    from layout.place.assign import Placer

FREE_COLUMNS = [
    "hall", "row", "place", "axis", "lo_m", "hi_m", "front_m", "front_sign", "band_m", "room", "rack_lo",
    "rack_hi",
]  # fmt: skip


def empty_free() -> pd.DataFrame:
    """The free-floor table with no rows, in its dtypes."""
    dtypes = {"hall": object, "row": object, "place": np.int64, "axis": object, "front_sign": np.int64,
              "room": np.int64, "rack_lo": bool, "rack_hi": bool}  # fmt: skip
    return pd.DataFrame({c: pd.Series(dtype=dtypes.get(c, float)) for c in FREE_COLUMNS})


def free_floor(p: Placer, spots: list[Spot], row_digits: int) -> pd.DataFrame:
    """The free-floor table (module docstring) of the placer's grid once ``spots`` are laid; ``place``
    is the grid place's number across the site, ``row`` its row id with ``row_digits`` digits (as the
    rows table numbers it)."""
    taken: dict[int, list[tuple[float, float]]] = {}
    for s in spots:
        if s.user is None:
            c = p.halls[s.hall].first_cell + s.cell
            taken.setdefault(c, []).append((s.u, s.u + s.item.width_m))
    recs: list[tuple[object, ...]] = []
    for hall in p.halls:
        limit = hall.model.max_row_racks + hall.reserve  # the racks, and the positions kept for fibre
        axis = "y" if hall.swap else "x"
        for line in hall.line_cells:
            for c in line:
                cell = p.cells[c]
                spans = sorted(taken.get(c, []))
                room = limit - len(spans)
                if room <= 0 or not cell.free:
                    continue
                front = hall.line_front[cell.line]
                front_m = cell.v0 + hall.band_m if front > 0 else cell.v0
                row = f"{hall.key}/R{cell.slot:0{row_digits}d}"
                ends = {round(b, 6) for _, b in spans}
                starts = {round(a, 6) for a, _ in spans}
                for lo, hi in cell.free:
                    for a, b in subtract((lo, hi), spans, hall.min_width_m) if spans else [(lo, hi)]:
                        recs.append(
                            (hall.key, row, c, axis, a, b, front_m, front, hall.band_m, room,
                             round(a, 6) in ends, round(b, 6) in starts)
                        )  # fmt: skip
    if not recs:
        return empty_free()
    out = pd.DataFrame.from_records(recs, columns=FREE_COLUMNS)
    out = out.astype({"place": np.int64, "front_sign": np.int64, "room": np.int64})
    return out.round({"lo_m": 6, "hi_m": 6, "front_m": 6})
