"""The placement as tables: racks (ids ``B1/H1/R03/K07``: the placer's rows numbered per hall across the
hall then along it, then the user rows in file order; racks along the row), rows, each device's rack and
RU; and the checks of user rows against the floor and the cluster's racks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import shapely

from layout.place.floor_grid import EPS, HallPlan, Spot, UserSlot, hall_floor
from layout.place.free_floor import empty_free
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
    # the floor the racks leave free, per place of the grid (layout/place/free_floor.py)
    free: pd.DataFrame = field(default_factory=empty_free)
    # per hall (``B1/H1``) with any: the rack positions each row left free at its start (fibre_positions)
    fibre_positions: dict[str, int] = field(default_factory=dict)

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
    number: int  # R<number> in its hall (see row_number)
    members: list[RackRec]
    axis: str
    x0_m: float
    y0_m: float
    x1_m: float
    y1_m: float
    front_sign: int
    kind: str


def rack_recs(p: Placer, hall: HallPlan, spots: list[Spot]) -> list[RackRec]:
    """The racks of one hall: its spots (in their order), then its user-row positions left empty."""
    recs = []
    for s in spots:
        it = s.item
        if s.user is not None:
            recs.append(user_rec(hall.no, s.user, it))
            continue
        cell = p.cells[hall.first_cell + s.cell]
        front = hall.line_front[cell.line]
        v = cell.v0 + hall.band_m - it.depth_m / 2 if front > 0 else cell.v0 + it.depth_m / 2
        uc = s.u + it.width_m / 2
        x, y = (v, uc) if hall.swap else (uc, v)
        rot = (270.0 if front > 0 else 90.0) if hall.swap else (0.0 if front > 0 else 180.0)
        recs.append(RackRec(hall.no, ("c", s.cell), s.u, x, y, rot, it.width_m, it.depth_m, False, it))
    # user rows stand whole, filled or not
    used = {(r.row_key, r.along) for r in recs if r.user_row}
    for u in hall.user_slots:
        if (("u", u.user_row), u.pos) not in used:
            tpl = p.inputs.templates[u.template]
            none = np.zeros(0, np.int64)
            recs.append(user_rec(hall.no, u, RackItem(tpl.id, tpl.kind, u.width_m, u.depth_m, none, none)))
    return recs


def user_rec(hall_no: int, u: UserSlot, item: RackItem) -> RackRec:
    """A rack position of a user row, exactly where the site file put it."""
    return RackRec(
        hall_no, ("u", u.user_row), u.pos, u.x_m, u.y_m, u.rotation_deg, u.width_m, u.depth_m, True, item
    )


def row_rec(hall: HallPlan, key: tuple[str, int], members: list[RackRec], number: int) -> RowRec:
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
    kinds = {r.item.kind for r in members}
    kind = "gpu" if "gpu" in kinds else sorted(kinds)[0]
    members = sorted(members, key=lambda r: (r.x_m, r.y_m) if along_x else (r.y_m, r.x_m))
    return RowRec(
        hall.no,
        key,
        number,
        members,
        "x" if along_x else "y",
        x0,
        y0,
        x1,
        y1,
        front,
        kind,
    )


def row_number(p: Placer, hall: HallPlan, key: tuple[str, int], user_rank: dict[int, int]) -> int:
    """A row's number in its hall, by its place: a placer's row has the number of its place on the floor
    grid (layout/place/floor_grid.py lay_grid: line, segment, part, whether the places before it hold
    racks or not), a user row the next numbers after the grid's in the order of its [[row]] entries.
    So a row keeps its id when rows elsewhere come, go or change (an edit of the grid itself, its aisles,
    row length or the racks' sizes, numbers it again); numbers of empty places are not used."""
    if key[0] == "u":
        return hall.slots + user_rank[key[1]]
    return p.cells[hall.first_cell + key[1]].slot


@dataclass(frozen=True, eq=False)
class HallTables:
    """One hall's part of the racks and rows tables, without the ids (their digits are the site's):
    its rows in numbering order (row table columns but ``row``), and per rack in table order the rack
    table's columns but ``rack_id``, ``building``, ``hall`` and ``row``; each rack's devices (``dev``),
    its rack number in the hall (``dev_rack``) and their RU."""

    rows: list[dict[str, object]]
    numbers: list[int]  # each row's number (R<number>)
    members: list[int]  # racks per row
    racks: dict[str, list[object]]
    dev: np.ndarray
    dev_rack: np.ndarray
    dev_ru: np.ndarray


HALL_COLUMNS = ("pos", "template", "kind", "x_m", "y_m", "rotation_deg", "width_m", "depth_m", "user_row",
                "servers")  # fmt: skip


def hall_tables(p: Placer, hall: HallPlan, spots: list[Spot]) -> HallTables:
    """A hall's part of the tables: rows numbered as :func:`row_number` says, racks along the row."""
    grouped: dict[tuple[str, int], list[RackRec]] = {}
    for r in rack_recs(p, hall, spots):
        grouped.setdefault(r.row_key, []).append(r)
    user_rank = {u: k + 1 for k, u in enumerate(sorted({key[1] for key in grouped if key[0] == "u"}))}
    rows = sorted(
        (row_rec(hall, key, m, row_number(p, hall, key, user_rank)) for key, m in grouped.items()),
        key=lambda r: r.number,
    )
    row_rows = [
        {"axis": row.axis, "x0_m": round(row.x0_m, 6), "y0_m": round(row.y0_m, 6), "x1_m": round(row.x1_m, 6),
         "y1_m": round(row.y1_m, 6), "front_sign": row.front_sign, "kind": row.kind, "user_row": row.key[0] == "u"}
        for row in rows
    ]  # fmt: skip
    recs = [rec for row in rows for rec in row.members]  # table order
    items = [rec.item for rec in recs]
    cols: dict[str, list[object]] = {
        "pos": [k for row in rows for k in range(1, len(row.members) + 1)],
        "template": [it.template for it in items],
        "kind": [it.kind for it in items],
        "x_m": [round(rec.x_m, 6) for rec in recs],
        "y_m": [round(rec.y_m, 6) for rec in recs],
        "rotation_deg": [rec.rotation_deg for rec in recs],
        "width_m": [rec.width_m for rec in recs],
        "depth_m": [rec.depth_m for rec in recs],
        "user_row": [rec.user_row for rec in recs],
        "servers": [it.servers for it in items],
    }
    if not items:
        none = np.zeros(0, np.int64)
        return HallTables(
            row_rows, [r.number for r in rows], [len(r.members) for r in rows], cols, none, none, none
        )
    dev = np.concatenate([it.dev for it in items]).astype(np.int64)
    ru = np.concatenate([it.ru for it in items]).astype(np.int64)
    rank = np.repeat(
        np.arange(len(items), dtype=np.int64), [len(it.dev) for it in items]
    )  # each device's rack
    return HallTables(row_rows, [r.number for r in rows], [len(r.members) for r in rows], cols, dev, rank, ru)


# the dtype pandas gives a column of str (pandas 3: its Arrow-backed ``str``; pandas 2: ``object``), so
# a table put together from the halls' arrays has the dtypes of one made from lists
TEXT: Any = pd.Series(["text"]).dtype
ARROW_TEXT = getattr(TEXT, "storage", None) == "pyarrow"  # kept per hall as pyarrow arrays, then joined
ROW_TEXT = ("row", "hall", "axis", "kind")
RACK_TEXT = ("rack_id", "building", "hall", "row", "template", "kind")
DTYPES: dict[str, Any] = {"pos": np.int64, "x_m": float, "y_m": float, "rotation_deg": float, "width_m": float,
          "depth_m": float, "user_row": bool, "servers": np.int64, "x0_m": float, "y0_m": float,
          "x1_m": float, "y1_m": float, "front_sign": np.int64}  # fmt: skip


@dataclass(frozen=True, eq=False)
class HallColumns:
    """One hall's part of the racks and rows tables with its ids, as read-only arrays per column (text as
    the pandas array of :data:`TEXT`), ready to be put together with the other halls' parts; and the
    columns the aisle check reads (layout/place/aisles.py AISLE_COLUMNS) as numpy arrays (the very
    arrays every run that keeps this part gives, so a kept check compares them as the same objects)."""

    racks: dict[str, Any]
    rows: dict[str, Any]
    aisle: dict[str, np.ndarray]


def _fixed(values: Any, dtype: Any) -> np.ndarray:
    arr: np.ndarray = np.asarray(values, dtype)
    arr.flags.writeable = False
    return arr


def _column(name: str, values: list[Any], text: tuple[str, ...]) -> Any:
    """A hall's part of a column: text as a pyarrow array (pandas 3's ``str`` holds one) or a read-only
    numpy array of objects (pandas 2), the rest as a read-only numpy array of the column's dtype."""
    if name not in text:
        return _fixed(values, DTYPES[name])
    return pa.array(values, pa.large_string()) if ARROW_TEXT else _fixed(values, object)


def hall_columns(hall: HallPlan, tables: HallTables, row_digits: int, rack_digits: int) -> HallColumns:
    """A hall's part of the tables with its ids (``B1/H1/R03``, ``B1/H1/R03/K07``) and every column."""
    t = tables
    row_ids = [f"{hall.key}/R{no:0{row_digits}d}" for no in t.numbers]
    rack_ids: list[str] = []
    rack_rows: list[str] = []
    for rid, m in zip(row_ids, t.members, strict=True):
        rack_ids += [f"{rid}/K{k:0{rack_digits}d}" for k in range(1, m + 1)]
        rack_rows += [rid] * m
    m = len(t.racks["pos"])
    rack_lists: dict[str, list[Any]] = {
        "rack_id": rack_ids, "building": [hall.building] * m, "hall": [hall.key] * m, "row": rack_rows,
        **t.racks,
    }  # fmt: skip
    row_lists: dict[str, list[Any]] = {"row": row_ids, "hall": [hall.key] * len(row_ids)}
    row_lists.update({c: [r[c] for r in t.rows] for c in ROW_COLUMNS[2:]})
    racks = {c: _column(c, v, RACK_TEXT) for c, v in rack_lists.items()}
    rows = {c: _column(c, v, ROW_TEXT) for c, v in row_lists.items()}
    aisle = {"rack_id": _fixed(rack_ids, object), "row": _fixed(rack_rows, object)}
    aisle.update({c: racks[c] for c in ("user_row", "x_m", "y_m", "width_m", "depth_m", "rotation_deg")})
    return HallColumns(racks, rows, aisle)


def _table(parts: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
    """The halls' parts of a table put together (one array per column: no copy into 2-D blocks)."""
    cols: dict[str, Any] = {}
    for c in columns:
        arrs = [p[c] for p in parts]
        if isinstance(arrs[0], np.ndarray):
            arr = np.concatenate(arrs)
            arr.flags.writeable = False
            cols[c] = arr if arr.dtype != object else pd.array(arr, dtype=TEXT)
        else:  # one contiguous pyarrow array, as pandas makes of a list (not chunks per hall)
            cols[c] = pd.array(pa.concat_arrays(arrs), dtype=TEXT)
    return pd.DataFrame(cols, columns=columns, copy=False)


@dataclass(frozen=True, eq=False)
class Tables:
    """The placement's tables, and each hall's part of them (for the aisle check)."""

    racks: pd.DataFrame
    rows: pd.DataFrame
    device_rack: np.ndarray
    device_ru: np.ndarray
    halls: list[tuple[HallPlan, HallColumns]]
    row_digits: int  # digits of the row numbers in ids (R03: 2)


def placement_tables(
    p: Placer,
    spots: list[Spot],
) -> Tables:
    """Racks and rows tables; rows numbered per hall as :func:`row_number` says, racks along the row."""
    by_hall: dict[int, list[Spot]] = {}
    for s in spots:
        by_hall.setdefault(s.hall, []).append(s)
    parts: list[tuple[HallPlan, HallTables]] = []
    for hall in p.halls:
        mine = by_hall.get(hall.no, [])
        if not mine and not hall.user_slots:
            continue
        parts.append((hall, hall_tables(p, hall, mine)))
    # as many digits as the largest number the halls' grids and user rows can give, not the largest in
    # use: a row that comes or goes does not pad every other id again (R99 -> R100 would make R05 R005)
    users = [len({u.user_row for u in hall.user_slots}) for hall, _ in parts]
    rw = max(2, len(str(max((hall.slots + k for (hall, _), k in zip(parts, users, strict=True)), default=1))))
    kw = max(2, len(str(max((m for _, t in parts for m in t.members), default=1))))
    device_rack = np.full(p.d.n, -1, np.int64)
    device_ru = np.full(p.d.n, -1, np.int64)
    columns: list[tuple[HallPlan, HallColumns]] = []
    n_racks = 0
    for hall, t in parts:
        columns.append((hall, hall_columns(hall, t, rw, kw)))
        device_rack[t.dev] = t.dev_rack + n_racks
        device_ru[t.dev] = t.dev_ru
        n_racks += len(t.racks["pos"])
    if not columns:  # no rack anywhere: empty tables, with the dtypes pandas gives empty lists and arrays
        empty: dict[str, Any] = {c: np.zeros(0, DTYPES[c]) if c in DTYPES else [] for c in RACK_COLUMNS}
        racks = pd.DataFrame(empty, columns=RACK_COLUMNS)
        rows = pd.DataFrame([], columns=ROW_COLUMNS)
    else:
        racks = _table([c.racks for _, c in columns], RACK_COLUMNS)
        rows = _table([c.rows for _, c in columns], ROW_COLUMNS)
    return Tables(racks, rows, device_rack, device_ru, columns, rw)


def rack_polygons(racks: pd.DataFrame | Mapping[str, np.ndarray]) -> np.ndarray:
    """Footprint of every rack (shapely polygons, site coordinates); ``racks``: the racks table, or
    its columns as arrays."""
    x = np.asarray(racks["x_m"], float)
    y = np.asarray(racks["y_m"], float)
    w = np.asarray(racks["width_m"], float)
    d = np.asarray(racks["depth_m"], float)
    along_x = np.isin(np.asarray(racks["rotation_deg"], float), (0.0, 180.0))
    hx = np.where(along_x, w, d) / 2
    hy = np.where(along_x, d, w) / 2
    return np.asarray(shapely.box(x - hx, y - hy, x + hx, y + hy))


def user_row_checks(inputs: Inputs, racks: pd.DataFrame) -> list[Violation]:
    """User rows are kept as drawn; say so when one stands on a column, a keep-out, the wall clearance
    or another user row."""
    if not len(racks) or not racks["user_row"].any():
        return []
    out = []
    user = np.flatnonzero(racks["user_row"].to_numpy(bool))
    polys = np.full(len(racks), None, dtype=object)  # only user rows' racks are looked at
    polys[user] = rack_polygons(racks.iloc[user])
    halls = {k: h for k, h in hall_items(inputs)}
    for key in sorted(pd.unique(racks.loc[racks["user_row"], "hall"])):
        h = halls[str(key)]
        inner, obstacles = hall_floor(h)
        m = (racks["user_row"] & (racks["hall"] == key)).to_numpy()
        idx = np.flatnonzero(m)
        blocked = shapely.union_all(obstacles) if obstacles else None
        mine = polys[idx]
        off = ~shapely.contains(inner.buffer(EPS), mine)
        if blocked is not None:
            off |= shapely.area(shapely.intersection(mine, blocked)) > 1e-9
        bad = idx[off].tolist()
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
    """A user row with racks whose template is neither its hall's GPU rack nor one of the network racks
    the placer fills: nothing of the cluster goes into those racks, so they stay empty (they are still
    drawn and costed, as placed): one violation per such [[row]], at its row."""
    network = sorted({p.groups.t_net.id, p.t_spine.id, p.t_core.id})
    g = p.groups
    role = np.asarray(g.devices.role)
    # storage and management racks hold the cluster's storage and CPU nodes, where it has them
    nodes = sorted(
        {
            t.id
            for kind, t in (("storage_node", g.t_storage), ("cpu_node", g.t_mgmt))
            if t is not None and (role == kind).any()
        }
    )
    node_racks = f"; node racks {', '.join(nodes)}" if nodes else ""
    first: dict[tuple[str, float, float], str] | None = None  # (hall, x, y) of a user row's rack -> row
    out = []
    for hall in p.halls:
        gpu = hall.gpu.template if hall.gpu is not None else "none"
        by_row: dict[int, list[UserSlot]] = {}
        for slot in hall.user_slots:
            if slot.template not in (gpu, *network, *nodes):
                by_row.setdefault(slot.user_row, []).append(slot)
        for ri, bad in by_row.items():
            if first is None:
                user = racks[racks["user_row"]] if len(racks) else racks
                first = dict(
                    zip(zip(user["hall"], user["x_m"], user["y_m"], strict=True), user["row"], strict=True)
                )
            row = p.inputs.site.row[ri]
            slot = bad[0]
            ids = sorted({s.template for s in bad})
            what = ", ".join(f"{t} ({p.inputs.templates[t].kind})" for t in ids)
            of = "" if len(bad) == row.racks else f"{len(bad)} of "
            fix = (
                f'template = "{gpu}" for GPU racks, or delete the [[row]]'
                if row.templates is None
                else f'"{gpu}" for GPU racks in its templates, or delete the [[row]]'
            )
            out.append(
                Violation(
                    "user_row",
                    str(first.get((hall.key, round(slot.x_m, 6), round(slot.y_m, 6)), hall.key)),
                    f"[[row]] {ri + 1} in {hall.key} is of template {what}, not a rack of this cluster "
                    f"there (GPU rack {gpu}; network racks {', '.join(network)}{node_racks}): its {of}{row.racks} "
                    "rack(s) stay empty, yet are drawn and costed",
                    fix,
                    {"racks": len(bad), "row_entry": ri + 1},
                )
            )
    return out
