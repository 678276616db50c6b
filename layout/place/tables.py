"""The placement as tables: racks (ids ``B1/H1/R03/K07``: the placer's rows numbered per hall across the
hall then along it, then the user rows in file order; racks along the row), rows, each device's rack and
RU; and the checks of user rows against the floor and the cluster's racks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import shapely

from layout.place.floor_grid import EPS, HallPlan, Spot, UserSlot, hall_floor
from layout.place.groups import RackItem
from layout.place.templates import GpuRack, hall_items
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.place.assign import Placer

RACK_COLUMNS = [
    "rack_id", "building", "hall", "row", "pos", "template", "kind", "x_m", "y_m", "rotation_deg",
    "width_m", "depth_m", "user_row", "servers",
]  # fmt: skip
ROW_COLUMNS = ["row", "hall", "axis", "x0_m", "y0_m", "x1_m", "y1_m", "front_sign", "kind", "user_row"]


@dataclass(frozen=True)
class Placement:
    """Racks on the floor and devices in racks (docs/tables.md)."""

    racks: pd.DataFrame
    rows: pd.DataFrame
    device_rack: np.ndarray
    device_ru: np.ndarray
    violations: tuple[Violation, ...]
    gpu_rack: dict[str, GpuRack]  # per hall key
    racks_missing: int = 0

    def racks_by_template(self) -> dict[str, int]:
        counts = self.racks["template"].value_counts()
        return {str(k): int(counts[k]) for k in sorted(counts.index)}

    def device_places(self, fabric: Fabric) -> pd.DataFrame:
        """Where each device of ``fabric`` stands: ``device_id, role, rack_id, hall, row, pos, ru, x_m,
        y_m, rotation_deg`` (one row per device in device order; empty strings and NaN when unplaced)."""
        dev = fabric.devices
        rk = self.device_rack
        placed = rk >= 0
        out = pd.DataFrame({"device_id": dev["device_id"], "role": dev["role"]})
        for col, empty in (("rack_id", ""), ("hall", ""), ("row", ""), ("pos", -1), ("x_m", np.nan),
                           ("y_m", np.nan), ("rotation_deg", np.nan)):  # fmt: skip
            values = self.racks[col].to_numpy()
            arr = np.full(len(rk), empty, dtype=values.dtype if len(values) else object)
            arr[placed] = values[rk[placed]]
            out[col] = arr
        out.insert(6, "ru", self.device_ru)
        return out


@dataclass(slots=True)
class RackRec:
    hall: int
    row_key: tuple[str, int]  # ("c", cell) or ("u", user row)
    along: float  # order inside the row
    x_m: float
    y_m: float
    rotation_deg: float
    width_m: float
    depth_m: float
    user_row: bool
    item: RackItem


@dataclass(slots=True)
class RowRec:
    hall: int
    key: tuple[str, int]
    members: list[RackRec]
    axis: str
    x0_m: float
    y0_m: float
    x1_m: float
    y1_m: float
    front_sign: int
    kind: str
    sort: tuple[float, float, tuple[str, int]]


def rack_recs(p: Placer, spots: list[Spot]) -> list[RackRec]:
    recs = []
    for s in spots:
        hall = p.halls[s.hall]
        it = s.item
        if s.user is not None:
            recs.append(user_rec(hall.no, s.user, it))
            continue
        cell = p.cells[s.cell]
        front = hall.line_front[cell.line]
        v = cell.v0 + hall.band_m - it.depth_m / 2 if front > 0 else cell.v0 + it.depth_m / 2
        uc = s.u + it.width_m / 2
        x, y = (v, uc) if hall.swap else (uc, v)
        rot = (270.0 if front > 0 else 90.0) if hall.swap else (0.0 if front > 0 else 180.0)
        recs.append(RackRec(hall.no, ("c", s.cell), s.u, x, y, rot, it.width_m, it.depth_m, False, it))
    # user rows stand whole, filled or not
    used = {(r.hall, r.row_key, r.along) for r in recs if r.user_row}
    for hall in p.halls:
        for u in hall.user_slots:
            if (hall.no, ("u", u.user_row), u.pos) not in used:
                tpl = p.inputs.templates[u.template]
                none = np.zeros(0, np.int64)
                recs.append(
                    user_rec(hall.no, u, RackItem(tpl.id, tpl.kind, u.width_m, u.depth_m, none, none))
                )
    return recs


def user_rec(hall_no: int, u: UserSlot, item: RackItem) -> RackRec:
    """A rack position of a user row, exactly where the site file put it."""
    return RackRec(
        hall_no, ("u", u.user_row), u.pos, u.x_m, u.y_m, u.rotation_deg, u.width_m, u.depth_m, True, item
    )


def row_rec(hall: HallPlan, key: tuple[str, int], members: list[RackRec]) -> RowRec:
    xs = np.array([r.x_m for r in members])
    ys = np.array([r.y_m for r in members])
    ws = np.array([r.width_m for r in members])
    rot = members[0].rotation_deg
    along_x = rot in (0.0, 180.0)
    if along_x:
        x0, x1 = float((xs - ws / 2).min()), float((xs + ws / 2).max())
        y0 = y1 = float(ys.mean())
        front = 1 if rot == 0.0 else -1
    else:
        y0, y1 = float((ys - ws / 2).min()), float((ys + ws / 2).max())
        x0 = x1 = float(xs.mean())
        front = 1 if rot == 270.0 else -1
    across = (x0 + x1) / 2 if hall.swap else (y0 + y1) / 2
    start = min(y0, y1) if hall.swap else min(x0, x1)
    kinds = {r.item.kind for r in members}
    kind = "gpu" if "gpu" in kinds else sorted(kinds)[0]
    members = sorted(members, key=lambda r: (r.x_m, r.y_m) if along_x else (r.y_m, r.x_m))
    return RowRec(
        hall.no,
        key,
        members,
        "x" if along_x else "y",
        x0,
        y0,
        x1,
        y1,
        front,
        kind,
        (round(across, 4), round(start, 4), key),
    )


def row_order(row: RowRec) -> tuple[bool, int, tuple[float, float, tuple[str, int]]]:
    """Where a row comes in its hall's numbering: the placer's rows first, across the hall then along
    it, then the user rows in the order of their [[row]] entries. A user row added (or moved) renumbers
    no row the placer laid out, and no earlier user row."""
    user = row.key[0] == "u"
    return (user, row.key[1] if user else 0, (0.0, 0.0, row.key) if user else row.sort)


def placement_tables(
    p: Placer, spots: list[Spot]
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
    """Racks and rows tables; rows numbered per hall as :func:`row_order` says, racks along the row."""
    grouped: dict[tuple[int, tuple[str, int]], list[RackRec]] = {}
    for r in rack_recs(p, spots):
        grouped.setdefault((r.hall, r.row_key), []).append(r)
    rows = sorted(
        (row_rec(p.halls[h], key, m) for (h, key), m in grouped.items()),
        key=lambda r: (p.halls[r.hall].bno, r.hall, *row_order(r)),
    )
    per_hall: dict[int, int] = {}
    numbers = []
    for row in rows:
        per_hall[row.hall] = per_hall.get(row.hall, 0) + 1
        numbers.append(per_hall[row.hall])
    rw = max(2, len(str(max(per_hall.values(), default=1))))
    kw = max(2, len(str(max((len(r.members) for r in rows), default=1))))
    device_rack = np.full(p.d.n, -1, np.int64)
    device_ru = np.full(p.d.n, -1, np.int64)
    rack_cols: dict[str, list[object]] = {c: [] for c in RACK_COLUMNS}  # columns, not a dict per rack
    row_rows: list[dict[str, object]] = []
    n_racks = 0
    for no, row in zip(numbers, rows, strict=True):
        hall = p.halls[row.hall]
        row_id = f"{hall.key}/R{no:0{rw}d}"
        row_rows.append(
            {"row": row_id, "hall": hall.key, "axis": row.axis, "x0_m": round(row.x0_m, 6), "y0_m": round(row.y0_m, 6),
             "x1_m": round(row.x1_m, 6), "y1_m": round(row.y1_m, 6), "front_sign": row.front_sign, "kind": row.kind,
             "user_row": row.key[0] == "u"}
        )  # fmt: skip
        m = len(row.members)
        rack_cols["rack_id"] += [f"{row_id}/K{k:0{kw}d}" for k in range(1, m + 1)]
        rack_cols["building"] += [hall.building] * m
        rack_cols["hall"] += [hall.key] * m
        rack_cols["row"] += [row_id] * m
        rack_cols["pos"] += range(1, m + 1)
        for rec in row.members:
            it = rec.item
            device_rack[it.dev] = n_racks
            device_ru[it.dev] = it.ru
            n_racks += 1
            rack_cols["template"].append(it.template)
            rack_cols["kind"].append(it.kind)
            rack_cols["x_m"].append(round(rec.x_m, 6))
            rack_cols["y_m"].append(round(rec.y_m, 6))
            rack_cols["rotation_deg"].append(rec.rotation_deg)
            rack_cols["width_m"].append(rec.width_m)
            rack_cols["depth_m"].append(rec.depth_m)
            rack_cols["user_row"].append(rec.user_row)
            rack_cols["servers"].append(it.servers)
    racks = pd.DataFrame(
        {
            **rack_cols,
            "pos": np.asarray(rack_cols["pos"], np.int64),
            "x_m": np.asarray(rack_cols["x_m"], float),
            "y_m": np.asarray(rack_cols["y_m"], float),
            "rotation_deg": np.asarray(rack_cols["rotation_deg"], float),
            "width_m": np.asarray(rack_cols["width_m"], float),
            "depth_m": np.asarray(rack_cols["depth_m"], float),
            "user_row": np.asarray(rack_cols["user_row"], bool),
            "servers": np.asarray(rack_cols["servers"], np.int64),
        },
        columns=RACK_COLUMNS,
    )
    return racks, pd.DataFrame(row_rows, columns=ROW_COLUMNS), device_rack, device_ru


def rack_polygons(racks: pd.DataFrame) -> np.ndarray:
    """Footprint of every rack (shapely polygons, site coordinates)."""
    x = racks["x_m"].to_numpy(float)
    y = racks["y_m"].to_numpy(float)
    w = racks["width_m"].to_numpy(float)
    d = racks["depth_m"].to_numpy(float)
    along_x = np.isin(racks["rotation_deg"].to_numpy(float), (0.0, 180.0))
    hx = np.where(along_x, w, d) / 2
    hy = np.where(along_x, d, w) / 2
    return np.asarray(shapely.box(x - hx, y - hy, x + hx, y + hy))


def user_row_checks(inputs: Inputs, racks: pd.DataFrame) -> list[Violation]:
    """User rows are kept as drawn; say so when one stands on a column, a keep-out, the wall clearance
    or another user row."""
    if not len(racks) or not racks["user_row"].any():
        return []
    out = []
    polys = rack_polygons(racks)
    halls = {k: h for k, h in hall_items(inputs)}
    for key in sorted(pd.unique(racks.loc[racks["user_row"], "hall"])):
        h = halls[str(key)]
        inner, obstacles = hall_floor(h)
        m = (racks["user_row"] & (racks["hall"] == key)).to_numpy()
        idx = np.flatnonzero(m)
        blocked = shapely.union_all(obstacles) if obstacles else None
        bad = []
        for i in idx:
            pg = polys[i]
            if not inner.buffer(EPS).contains(pg) or (
                blocked is not None and pg.intersection(blocked).area > 1e-9
            ):
                bad.append(i)
        tree = shapely.STRtree(polys[idx])
        pairs = tree.query(polys[idx], predicate="intersects")
        for a, b in zip(pairs[0], pairs[1], strict=True):
            if a < b and polys[idx[a]].intersection(polys[idx[b]]).area > 1e-9:
                bad.append(idx[a])
        if bad:
            first = int(min(bad))
            out.append(
                Violation(
                    "user_row",
                    str(racks["rack_id"].iat[first]),
                    f"{len(set(bad))} user-placed rack(s) in {key} stand on a column, a keep-out, the "
                    f"{h.wall_clearance_m:g} m wall clearance or another rack",
                    "move the [[row]] origin or shorten the row",
                    {"racks": len(set(bad))},
                )
            )
    return out


def user_row_template_checks(p: Placer, racks: pd.DataFrame) -> list[Violation]:
    """A user row whose template is neither its hall's GPU rack nor one of the network racks the placer
    fills: nothing of the cluster goes into it, so its racks stay empty (they are still drawn and costed,
    as placed): one violation per such [[row]], at its row."""
    network = sorted({p.groups.t_net.id, p.t_spine.id, p.t_core.id})
    first = {}  # (hall, x, y) of each user row's first rack -> its row id
    if len(racks):
        user = racks[racks["user_row"]]
        first = dict(zip(zip(user["hall"], user["x_m"], user["y_m"], strict=True), user["row"], strict=True))
    out = []
    for hall in p.halls:
        gpu = hall.gpu.template if hall.gpu is not None else "none"
        for slot in hall.user_slots:
            if slot.pos != 1 or slot.template in (gpu, *network):
                continue
            row = p.inputs.site.row[slot.user_row]
            kind = p.inputs.templates[slot.template].kind
            out.append(
                Violation(
                    "user_row",
                    str(first.get((hall.key, round(slot.x_m, 6), round(slot.y_m, 6)), hall.key)),
                    f"[[row]] {slot.user_row + 1} in {hall.key} is of template {slot.template} ({kind}), not a "
                    f"rack of this cluster there (GPU rack {gpu}; network racks {', '.join(network)}): its "
                    f"{row.racks} rack(s) stay empty, yet are drawn and costed",
                    f'template = "{gpu}" for GPU racks, or delete the [[row]]',
                    {"racks": row.racks, "row_entry": slot.user_row + 1},
                )
            )
    return out
