"""Place the racks on the halls' floors and every fabric device in a rack (pure: shapely 2 + numpy).

Floor geometry, per hall, in a local frame where ``u`` runs along the rows and ``v`` across them:

- usable area = hall polygon buffered inward by ``wall_clearance_m``, minus columns, keep-outs and the
  user rows (their footprint plus the aisles around them);
- row lines come in facing pairs: a row whose fronts face +v, the cold aisle (``cold_aisle_m``), a row
  whose fronts face -v, then the hot aisle (``hot_aisle_m``) before the next pair; every band is as deep
  as the deepest rack template in play and racks align their fronts on the cold aisle;
- along a line, cross aisles (``cross_aisle_m``) cut it into segments at the same ``u`` on every line, so
  the cross aisles line up: ``max_row_racks`` of the narrowest racks long, or as many whole SU blocks as
  fit ``max_row_racks`` racks when that is longer; a segment holds at most ``max_row_racks`` racks and a
  segment with racks is one row;
- one vectorised shapely difference of every (line, segment) box with the usable area gives what is
  blocked; the free intervals along ``u`` are the box minus the ``u``-extent of each blocked part, so a row
  broken by a column continues past it. Racks are laid into the intervals arithmetically, mixed widths
  (600 mm GPU, 800 mm network racks) one after the other.

What goes where:

- a scalable unit (SU: the servers of one fabric ``(pod, su)``; middle-of-rack: of one ``(pod, group)``,
  as its SUs are single racks or rack pairs) is a block of GPU racks with its
  network racks (template kind ``network``: the rail leaves, and the SU's frontend/storage leaves and
  out-of-band switches, found through their links to the SU's servers) in the middle of the block;
  middle-of-rack: each leaf sits in the GPU rack's ``leaf`` slot of the first rack of its servers;
- SUs are laid in order, row after row (serpentine, so a block that spans two lines stays side by side),
  a block moves to the next row when it fits a fresh row but not the rest of this one;
- the spine switches of a pod (kind ``spine``) stand in spine rows in the middle of the pod's SU rows of
  each hall (spines go to the hall of their leaves; spines wired to leaves in several halls are shared out
  in proportion to the pod's SUs per hall); the occupied lines are centred in the hall;
- out-of-band switches that manage no server stand with what they manage: in an SU's network rack when
  all of it is in that SU, in the MDF when it is all MDF gear, else beside the pod's spines;
- core switches, frontend/storage spines and anything above the pods (kind ``core``) stand in an MDF per
  building in the rows nearest the building's entry (SU racks fill the rest of those rows); the campus top tier (4th tier, cross-pod devices)
  is in the MDF of the building nearest the others (smallest sum of distances between entries);
- a pod stays in one building unless ``cluster.pod_spans_buildings``; pods go to the next building when
  this one has no room or no power (``it_mw``) left; halls with an ``it_mw`` take SUs up to it;
- user rows (``[[row]]``) are kept exactly; a rack that the placer would build with the same template
  goes into a free user-row position of its hall first.

Density: servers per GPU rack follow ``cluster.rack`` unless its estimated kW exceeds the hall's
``max_rack_kw``; then ``cluster.rack_low_density``; if that is also too much (or none is named) the rack
is placed anyway and the power check reports it. Middle-of-rack uses one density for the whole site
(the fabric wires a leaf per rack or rack pair).

When the floor is too small, what fits is placed (whole SUs first, then what fits of the rest) and a
``capacity`` violation says how many racks are missing and where.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import shapely
from shapely.geometry import Polygon, box

from layout.errors import InputError, Problem
from layout.estimates import estimate_gpu_rack_kw, estimate_switch_kw
from layout.kept import Kept
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.model import Catalog, Hall, RackTemplate

EPS = 1e-6
SU_ROLES = {
    "leaf": 0,
    "fe_leaf": 1,
    "st_leaf": 2,
    "oob": 3,
}  # switches that live with their SU, in this order
RACK_COLUMNS = [
    "rack_id", "building", "hall", "row", "pos", "template", "kind", "x_m", "y_m", "rotation_deg",
    "width_m", "depth_m", "user_row", "servers",
]  # fmt: skip
ROW_COLUMNS = ["row", "hall", "axis", "x0_m", "y0_m", "x1_m", "y1_m", "front_sign", "kind", "user_row"]


# ------------------------------------------------------------------------------------------- density
@dataclass(frozen=True)
class GpuRack:
    """The GPU rack a hall gets: template, servers per rack, estimated kW and whether that fits."""

    template: str
    servers: int
    est_kw: float
    fits: bool


def gpu_rack_for_hall(inputs: Inputs, hall: Hall) -> GpuRack:
    cl = inputs.site.cluster
    choice: GpuRack | None = None
    for tid in [cl.rack] + ([cl.rack_low_density] if cl.rack_low_density else []):
        tpl = inputs.templates[tid]
        n = len(tpl.server_slots({cl.server}))
        kw = estimate_gpu_rack_kw(inputs, tpl, n)
        choice = GpuRack(tid, n, kw, kw <= hall.max_rack_kw + 1e-9)
        if choice.fits:
            return choice
    assert choice is not None
    return choice  # the lowest density on offer, reported by the power check


def gpu_racks(inputs: Inputs) -> dict[str, GpuRack]:
    """GPU rack per hall key ``B1/H1``. Middle-of-rack: the lowest density any hall needs, everywhere."""
    out = {f"{b.id}/{h.id}": gpu_rack_for_hall(inputs, h) for b, h in inputs.site.halls()}
    if inputs.site.cluster.design == "mor" and out:
        low = min(out.values(), key=lambda c: (c.servers, c.template))
        n_fit = {k: low.est_kw <= h.max_rack_kw + 1e-9 for (k, h) in _hall_items(inputs)}
        out = {k: GpuRack(low.template, low.servers, low.est_kw, n_fit[k]) for k in out}
    return out


def fabric_servers_per_rack(inputs: Inputs) -> int | None:
    """What `fabric.build` needs to wire middle-of-rack leaves (None for rail-optimized)."""
    if inputs.site.cluster.design != "mor":
        return None
    return min(c.servers for c in gpu_racks(inputs).values())


def _hall_items(inputs: Inputs) -> list[tuple[str, Hall]]:
    return [(f"{b.id}/{h.id}", h) for b, h in inputs.site.halls()]


# -------------------------------------------------------------------------------------------- result
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


# ------------------------------------------------------------------------------------------ geometry
@dataclass
class _Cell:
    hall: int
    line: int
    seg: int
    u0: float
    u1: float
    v0: float
    free: list[tuple[float, float]]


@dataclass
class _UserSlot:
    template: str
    x_m: float
    y_m: float
    width_m: float
    depth_m: float
    rotation_deg: float
    user_row: int
    pos: int


@dataclass
class _Hall:
    no: int
    key: str
    building: str
    bno: int
    model: Hall
    swap: bool
    band_m: float
    min_width_m: float
    usable: Polygon  # local frame
    line_v: list[float] = field(default_factory=list)
    line_front: list[int] = field(default_factory=list)
    line_cells: list[list[int]] = field(default_factory=list)  # global cell ids per line, by segment
    user_slots: list[_UserSlot] = field(default_factory=list)
    gpu: GpuRack | None = None


def _local(geom: shapely.Geometry, swap: bool) -> shapely.Geometry:
    return shapely.transform(geom, lambda c: c[:, ::-1]) if swap else geom


def _rect(x0: float, y0: float, x1: float, y1: float) -> Polygon:
    return box(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def hall_floor(h: Hall) -> tuple[Polygon, list[Polygon]]:
    """The hall inside its wall clearance, and the obstacles on it (columns, keep-outs)."""
    poly = Polygon(h.polygon)
    inner = poly.buffer(-h.wall_clearance_m, join_style="mitre") if h.wall_clearance_m > 0 else poly
    obstacles = [
        _rect(
            c.at[0] - c.size_m[0] / 2,
            c.at[1] - c.size_m[1] / 2,
            c.at[0] + c.size_m[0] / 2,
            c.at[1] + c.size_m[1] / 2,
        )
        for c in h.columns
    ]
    return inner, obstacles + [Polygon(k.polygon) for k in h.keepouts]


def _user_rows(inputs: Inputs) -> tuple[dict[str, list[_UserSlot]], dict[str, list[Polygon]]]:
    """Racks of the site's [[row]] entries per hall, and the area each keeps free (footprint + aisles)."""
    halls = {k: h for k, h in _hall_items(inputs)}
    slots: dict[str, list[_UserSlot]] = {}
    reserve: dict[str, list[Polygon]] = {}
    for ri, r in enumerate(inputs.site.row):
        tpl = inputs.templates[r.template]
        hall = halls[r.hall]
        w, d = tpl.width_m, tpl.depth_m
        ox, oy = r.origin
        for k in range(r.racks):
            if r.axis == "x":  # fronts face +y
                x, y, rot = ox + (k + 0.5) * w, oy + d / 2, 0.0
            else:  # fronts face +x
                x, y, rot = ox + d / 2, oy + (k + 0.5) * w, 270.0
            slots.setdefault(r.hall, []).append(_UserSlot(r.template, x, y, w, d, rot, ri, k + 1))
        length = r.racks * w
        if r.axis == "x":
            area = _rect(
                ox - hall.cross_aisle_m,
                oy - hall.hot_aisle_m,
                ox + length + hall.cross_aisle_m,
                oy + d + hall.cold_aisle_m,
            )
        else:
            area = _rect(
                ox - hall.hot_aisle_m,
                oy - hall.cross_aisle_m,
                ox + d + hall.cold_aisle_m,
                oy + length + hall.cross_aisle_m,
            )
        reserve.setdefault(r.hall, []).append(area)
    return slots, reserve


def _build_halls(
    inputs: Inputs,
    gpu: dict[str, GpuRack],
    net_templates: Sequence[RackTemplate],
    typical: dict[str, list[float]],
) -> tuple[list[_Hall], list[_Cell]]:
    slots, reserve = _user_rows(inputs)
    halls: list[_Hall] = []
    cells: list[_Cell] = []
    for bno, b in enumerate(inputs.site.building):
        for h in b.hall:
            key = f"{b.id}/{h.id}"
            used = [inputs.templates[gpu[key].template], *net_templates]
            band = max(t.depth_m for t in used)
            min_w = min(t.width_m for t in used)
            swap = h.row_axis == "y"
            block = typical.get(key, [])
            held = tuple(tuple(p.bounds) for p in reserve.get(key, []))
            grid_key = (h.model_dump_json(), held, band, min_w, tuple(block))
            hall = _Hall(len(halls), key, b.id, bno, h, swap, band, min_w, Polygon(), gpu=gpu[key])
            hall.user_slots = slots.get(key, [])
            known = _GRIDS.get(grid_key)
            if known is None:
                usable, holes = hall_floor(h)
                holes += reserve.get(key, [])
                if holes:
                    usable = usable.difference(shapely.union_all(holes))
                hall.usable = _local(usable, swap)
                first = len(cells)
                _grid(hall, cells, block)
                known = _HallGrid(
                    hall.usable,
                    list(hall.line_v),
                    list(hall.line_front),
                    [(c.line, c.seg, c.u0, c.u1, c.v0, c.free) for c in cells[first:]],
                    [[i - first for i in ids] for ids in hall.line_cells],
                )
                _GRIDS.put(grid_key, known)
            else:
                hall.usable, hall.line_v, hall.line_front = (
                    known.usable,
                    list(known.line_v),
                    list(known.line_front),
                )
                first = len(cells)
                cells += [_Cell(hall.no, *c) for c in known.cells]
                hall.line_cells = [[first + i for i in ids] for ids in known.line_cells]
            halls.append(hall)
    return halls, cells


@dataclass(frozen=True, eq=False)
class _HallGrid:
    """A hall's floor grid (see _grid), in the hall's own cell numbering: the same for the same hall,
    user rows, rack band and blocks, so an edit elsewhere (another hall's max kW or cooling, the cluster)
    does not work it out again (shapely differences and interval arithmetic: ~5 ms a hall)."""

    usable: Polygon
    line_v: list[float]
    line_front: list[int]
    cells: list[tuple[int, int, float, float, float, list[tuple[float, float]]]]  # _Cell without hall
    line_cells: list[list[int]]


_GRIDS: Kept[tuple[object, ...], _HallGrid] = Kept(64)


def forget_kept() -> None:
    """Drop the hall grids and per-fabric placement data kept for later runs (benchmarks time a cold
    placement with it; tests compare with a run that keeps nothing)."""
    _GRIDS.clear()
    _DERIVED.clear()


def _segment_m(hall: _Hall, block: list[float]) -> float:
    """Row length between cross aisles: ``max_row_racks`` of the narrowest racks, or as many whole SU
    blocks (GPU and network racks) as the rack count allows when that is longer."""
    n = hall.model.max_row_racks
    length = n * hall.min_width_m
    if block and len(block) <= n:
        length = max(length, (n // len(block)) * sum(block))
    return length


def _grid(hall: _Hall, cells: list[_Cell], block: list[float]) -> None:
    """Row lines, cross-aisle segments and the free intervals of each (line, segment) of one hall."""
    h = hall.model
    if hall.usable.is_empty:
        return
    u_lo, v_lo, u_hi, v_hi = hall.usable.bounds
    d = hall.band_m
    pair = 2 * d + h.cold_aisle_m + h.hot_aisle_m
    while True:
        i = len(hall.line_v)
        v = v_lo + (i // 2) * pair + (i % 2) * (d + h.cold_aisle_m)
        if v + d > v_hi + EPS:
            break
        hall.line_v.append(v)
        hall.line_front.append(1 if i % 2 == 0 else -1)
    seg_len = _segment_m(hall, block)
    seg_u = []
    u = u_lo
    while u + hall.min_width_m <= u_hi + EPS:
        seg_u.append((u, min(u + seg_len, u_hi)))
        u += seg_len + h.cross_aisle_m
    if not hall.line_v or not seg_u:
        return
    lv = np.repeat(np.asarray(hall.line_v), len(seg_u))
    su = np.tile(np.asarray(seg_u), (len(hall.line_v), 1))
    boxes = shapely.box(su[:, 0], lv, su[:, 1], lv + d)
    blocked = shapely.difference(boxes, hall.usable)
    parts, idx = shapely.get_parts(blocked, return_index=True)
    bounds = shapely.bounds(parts)
    real = (
        (shapely.area(parts) > 1e-9)
        & (bounds[:, 3] - bounds[:, 1] > EPS)
        & (bounds[:, 2] - bounds[:, 0] > EPS)
    )
    per_box: dict[int, list[tuple[float, float]]] = {}
    for j, lo, hi in zip(idx[real].tolist(), bounds[real, 0].tolist(), bounds[real, 2].tolist(), strict=True):
        per_box.setdefault(j, []).append((lo, hi))
    n_seg = len(seg_u)
    for li in range(len(hall.line_v)):
        ids = []
        for si, (a, b) in enumerate(seg_u):
            free = _subtract((a, b), per_box.get(li * n_seg + si, []), hall.min_width_m)
            if free:
                ids.append(len(cells))
                cells.append(_Cell(hall.no, li, si, a, b, hall.line_v[li], free))
        hall.line_cells.append(ids)


def _subtract(
    span: tuple[float, float], blocked: list[tuple[float, float]], min_len: float
) -> list[tuple[float, float]]:
    out = []
    cur = span[0]
    for lo, hi in sorted(blocked):
        if lo > cur + EPS:
            out.append((cur, min(lo, span[1])))
        cur = max(cur, hi)
    if span[1] > cur + EPS:
        out.append((cur, span[1]))
    return [(a, b) for a, b in out if b - a >= min_len - EPS]


# -------------------------------------------------------------------------------------- fill engine
@dataclass(slots=True, eq=False)
class _Item:
    """One rack to build: template, the devices in it (device numbers) and their RU (shared by the
    placements of one fabric: see _Derived)."""

    template: str
    kind: str
    width_m: float
    depth_m: float
    dev: np.ndarray
    ru: np.ndarray
    servers: int = 0


@dataclass(frozen=True, eq=False)
class _Block:
    su: int
    items: list[_Item]
    kw: float


@dataclass
class _Spot:
    """Where an item went: a cell and its u, or a user-row slot."""

    item: _Item
    hall: int
    cell: int = -1
    u: float = 0.0
    user: _UserSlot | None = None


class _Floor:
    """A cursor over a hall's free intervals in a given cell order; racks are laid one after the other."""

    def __init__(self, hall: _Hall, cells: list[_Cell], order: list[int]):
        self.hall = hall
        self.cells = cells
        self.order = order
        self.k = 0
        self.iv = 0
        self.u = -math.inf
        self.last_line = -1
        self.user_free = list(hall.user_slots)
        self.lines_used: set[int] = set()
        self.count: dict[int, int] = {}  # racks per cell, at most max_row_racks
        self.free: dict[int, list[tuple[float, float]]] = {}  # cells with spans taken by a spine row

    def free_of(self, c: int) -> list[tuple[float, float]]:
        return self.free.get(c, self.cells[c].free)

    def take_span(self, c: int, a: float, b: float) -> None:
        """Another floor (a spine row) put a rack at [a, b] of cell ``c``."""
        self.free[c] = [
            iv for lo, hi in self.free_of(c) for iv in _subtract((lo, hi), [(a, b)], self.hall.min_width_m)
        ]

    def state(self) -> tuple[int, int, float, int]:
        """The cursor (restore it with what was placed since)."""
        return self.k, self.iv, self.u, self.last_line

    def restore(self, s: tuple[int, int, float, int], undo: list[_Spot]) -> None:
        """Back to cursor ``s``, giving back the places ``undo`` took."""
        self.k, self.iv, self.u, self.last_line = s
        for sp in undo:
            if sp.user is not None:
                self.user_free.append(sp.user)
            else:
                self.count[sp.cell] -= 1
        self.user_free.sort(key=lambda x: (x.user_row, x.pos))

    def _take(self, w: float) -> tuple[int, float] | None:
        while self.k < len(self.order):
            c = self.order[self.k]
            free = self.free_of(c)
            if self.count.get(c, 0) >= self.hall.model.max_row_racks:
                free = []
            while self.iv < len(free):
                a, b = free[self.iv]
                u = max(self.u, a)
                if u + w <= b + EPS:
                    self.u = u + w
                    self.last_line = self.cells[c].line
                    self.count[c] = self.count.get(c, 0) + 1
                    return c, u
                self.iv += 1
                self.u = -math.inf
            self.k += 1
            self.iv = 0
            self.u = -math.inf
        return None

    def put(self, item: _Item) -> _Spot | None:
        for i, slot in enumerate(self.user_free):
            if slot.template == item.template:
                del self.user_free[i]
                return _Spot(item, self.hall.no, user=slot)
        got = self._take(item.width_m)
        if got is None:
            return None
        self.lines_used.add(self.cells[got[0]].line)
        return _Spot(item, self.hall.no, cell=got[0], u=got[1])

    def started(self) -> bool:
        return self.u > -math.inf

    def next_cell(self) -> None:
        if self.started():
            self.k += 1
            self.iv = 0
            self.u = -math.inf

    def next_line(self) -> None:
        while self.k < len(self.order) and self.cells[self.order[self.k]].line == self.last_line:
            self.k += 1
            self.iv = 0
            self.u = -math.inf

    def later_cells(self) -> list[int]:
        """Cells of the lines after the current one (from the current line if it is still empty)."""
        k = self.k
        if k >= len(self.order):
            return []
        line = self.cells[self.order[k]].line
        if self.last_line == line or self.started():
            while k < len(self.order) and self.cells[self.order[k]].line == line:
                k += 1
        return self.order[k:]

    def fits_in_cell(self, widths: list[float]) -> bool:
        """Would these widths fit from the cursor without leaving the current cell?"""
        if self.k >= len(self.order):
            return False
        c = self.order[self.k]
        if self.count.get(c, 0) + len(widths) > self.hall.model.max_row_racks:
            return False
        free = self.free_of(c)
        iv, u = self.iv, self.u
        for w in widths:
            while iv < len(free):
                a, b = free[iv]
                uu = max(u, a)
                if uu + w <= b + EPS:
                    u = uu + w
                    break
                iv += 1
                u = -math.inf
            else:
                return False
        return True

    def put_block(self, items: list[_Item], whole: bool = True) -> list[_Spot] | None:
        """Place a block's racks in order, keeping it in one row when it fits a fresh row.

        ``whole``: all or nothing (None and the cursor unchanged if it does not fit); otherwise place
        what fits and return those spots.
        """
        before = self.state()
        widths = [it.width_m for it in items]
        if self.started() and not self.fits_in_cell(widths):
            s = self.state()
            self.next_cell()
            if not self.fits_in_cell(widths):
                self.restore(s, [])
        spots: list[_Spot] = []
        for it in items:
            sp = self.put(it)
            if sp is None:
                if whole:
                    self.restore(before, spots)
                    return None
                continue
            spots.append(sp)
        return spots


def _order(hall: _Hall, start: int) -> list[int]:
    """Cells line by line from ``start`` up, then from ``start - 1`` down; serpentine along the lines."""
    n = len(hall.line_cells)
    lines = list(range(start, n)) + list(range(start - 1, -1, -1))
    out: list[int] = []
    for j, li in enumerate(lines):
        ids = hall.line_cells[li] if j % 2 == 0 else hall.line_cells[li][::-1]
        out += ids
    return out


# ---------------------------------------------------------------------------------------- devices
class _Devices:
    """The fabric's devices grouped for placement: SUs, their switches, spines per pod, MDF devices."""

    def __init__(self, inputs: Inputs, fabric: Fabric):
        dev = fabric.devices
        self.n = len(dev)
        self.role = dev["role"].to_numpy().astype(str)
        self.pod = dev["pod"].to_numpy().astype(np.int64)
        # placement block: a rail scalable unit, or (middle-of-rack) the 2-tier group of rack leaves
        col = "su" if fabric.design == "rail" and "su" in dev.columns else "group"
        group = dev[col].to_numpy().astype(np.int64)
        index = dev["index"].to_numpy().astype(np.int64)
        models = dev["model"].to_numpy().astype(str)
        self.height = np.ones(self.n, np.int64)
        self.est_kw = np.zeros(self.n)
        for m in pd.unique(models):
            sw = inputs.catalog.switch.get(str(m))
            if sw is not None:
                self.height[models == m] = sw.height_ru
                self.est_kw[models == m] = estimate_switch_kw(inputs.catalog, str(m))
        is_server = self.role == "server"
        srv = np.flatnonzero(is_server)
        order = np.lexsort((srv, index[srv], group[srv], self.pod[srv]))
        srv = srv[order]
        keys = np.stack([self.pod[srv], group[srv]], axis=1) if len(srv) else np.zeros((0, 2), np.int64)
        new = np.ones(len(srv), bool)
        new[1:] = np.any(keys[1:] != keys[:-1], axis=1)
        su_of_sorted = np.cumsum(new) - 1
        self.su_of = np.full(self.n, -1, np.int64)
        self.su_of[srv] = su_of_sorted
        starts = np.flatnonzero(new)
        self.su_servers = np.split(srv, starts[1:]) if len(srv) else []
        self.su_pod = [int(self.pod[s[0]]) for s in self.su_servers]
        # the 2-tier group (leaves that share their spines) of each SU: kept in one hall when power allows
        spine_group = dev["group"].to_numpy().astype(np.int64)
        self.su_group = [int(spine_group[s[0]]) for s in self.su_servers]
        self.pos_in_su = np.full(self.n, -1, np.int64)
        for s in self.su_servers:
            self.pos_in_su[s] = np.arange(len(s))
        self.pods = sorted(set(self.su_pod))
        self.pod_sus = {p: [i for i, q in enumerate(self.su_pod) if q == p] for p in self.pods}

        # switches wired to servers belong to the SU of the lowest-numbered such server
        a = fabric.links["a"].to_numpy().astype(np.int64)
        b = fabric.links["b"].to_numpy().astype(np.int64)
        self.links_a, self.links_b = a, b
        to_srv = is_server[a] & ~is_server[b]
        from_srv = is_server[b] & ~is_server[a]
        sw_end = np.concatenate([b[to_srv], a[from_srv]])
        srv_end = np.concatenate([a[to_srv], b[from_srv]])
        self.first_server = np.full(self.n, -1, np.int64)
        if len(sw_end):
            first = pd.Series(srv_end).groupby(sw_end).min()
            self.first_server[first.index.to_numpy()] = first.to_numpy()
        has = self.first_server >= 0
        sw_su = np.full(self.n, -1, np.int64)
        sw_su[has] = self.su_of[self.first_server[has]]
        self.sw_su = sw_su

        # an out-of-band switch that manages no server: in the SU block of the switches it manages when
        # they are all of one SU, in the MDF when they are all MDF devices, else beside the spines of
        # its pod (the middle of the hall, in reach of both)
        self.leader = np.full(self.n, -1, np.int64)
        oob = (fabric.links["network"] == "oob").to_numpy() & (self.first_server[b] < 0)
        if oob.any():
            core_role = ~np.isin(self.role, ["server", "spine", *SU_ROLES])
            managed = pd.DataFrame({"sw": b[oob], "su": sw_su[a[oob]], "core": core_role[a[oob]]})
            g = managed.groupby("sw").agg(lo=("su", "min"), hi=("su", "max"), core=("core", "all"))
            first_spine = {int(p): int(np.flatnonzero((self.role == "spine") & (self.pod == p))[0])
                           for p in np.unique(self.pod[self.role == "spine"]) if p >= 0}  # fmt: skip
            for sw_id, lo, hi, core in zip(
                g.index.tolist(), g["lo"].tolist(), g["hi"].tolist(), g["core"].tolist(), strict=True
            ):
                if lo == hi and lo >= 0:
                    sw_su[sw_id] = lo
                elif not core and int(self.pod[sw_id]) in first_spine:
                    self.leader[sw_id] = first_spine[int(self.pod[sw_id])]
        su_role = np.isin(self.role, list(SU_ROLES))
        self.in_su = su_role & (sw_su >= 0)
        self.spine = ((self.role == "spine") & (self.pod >= 0)) | (self.leader >= 0)
        self.mdf = ~is_server & ~self.in_su & ~self.spine
        self.is_server = is_server
        self.prio = np.full(self.n, 9, np.int64)
        for role, prio in SU_ROLES.items():
            self.prio[self.role == role] = prio
        su_dev = np.flatnonzero(self.in_su)
        su_dev = su_dev[np.lexsort((su_dev, self.prio[su_dev], sw_su[su_dev]))]
        self.su_switches: dict[int, np.ndarray] = {}
        if len(su_dev):
            cuts = np.flatnonzero(np.diff(sw_su[su_dev])) + 1
            for chunk in np.split(su_dev, cuts):
                self.su_switches[int(sw_su[chunk[0]])] = chunk

    def spine_halls(self, su_hall: np.ndarray, pod: int) -> dict[int, np.ndarray]:
        """Spines of a pod per hall: the hall of their leaves; spines wired into several halls are shared
        out in proportion to the pod's SUs per hall, in device order."""
        spines = np.flatnonzero(self.spine & (self.pod == pod))
        if not len(spines):
            return {}
        a, b = self.links_a, self.links_b
        is_sp = np.zeros(self.n, bool)
        is_sp[spines] = True
        m = is_sp[b] & self.in_su[a]
        lo = pd.Series(su_hall[self.sw_su[a[m]]]).groupby(b[m])
        lo_min, lo_max = lo.min(), lo.max()
        sus = self.pod_sus.get(pod, [])
        pod_halls = su_hall[sus] if sus else np.zeros(0, np.int64)
        pod_halls = pod_halls[pod_halls >= 0]
        default = int(np.bincount(pod_halls).argmax()) if len(pod_halls) else -1
        hall_of: dict[int, int] = {}
        shared = []
        lo_min_of = dict(zip(lo_min.index.tolist(), lo_min.tolist(), strict=True))
        lo_max_of = dict(zip(lo_max.index.tolist(), lo_max.tolist(), strict=True))
        for s in spines[self.leader[spines] < 0].tolist():
            h = lo_min_of.get(s, -1)
            if h >= 0 and h == lo_max_of[s]:
                hall_of[s] = int(h)
            else:
                shared.append(s)
        if shared and len(pod_halls):
            halls, counts = np.unique(pod_halls, return_counts=True)
            share = _largest_remainder(counts, len(shared))
            i = 0
            for h, k in zip(halls.tolist(), share, strict=True):
                hall_of.update(dict.fromkeys(shared[i : i + k], h))
                i += k
        else:
            hall_of.update(dict.fromkeys(shared, default))
        for s in spines[self.leader[spines] >= 0].tolist():  # management switches go with their spines
            hall_of[s] = hall_of.get(int(self.leader[s]), default)
        out: dict[int, list[int]] = {}
        for s, h in sorted(hall_of.items()):
            out.setdefault(h, []).append(s)
        return {h: np.asarray(v, np.int64) for h, v in out.items()}


def _largest_remainder(weights: np.ndarray, total: int) -> list[int]:
    q = weights / weights.sum() * total
    base = np.floor(q).astype(int)
    rest = total - int(base.sum())
    order = np.argsort(-(q - base), kind="stable")
    base[order[:rest]] += 1
    return [int(x) for x in base]


def _pack(
    template: RackTemplate, devices: np.ndarray, heights: np.ndarray, file: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Switches into racks of a network template, in order: each at a free ``switch`` slot that clears
    the previous one's height and fits under the top of the rack."""
    slots = sorted(template.switch_slots())
    racks: list[tuple[np.ndarray, np.ndarray]] = []
    cur_d: list[int] = []
    cur_r: list[int] = []
    si, top = 0, 0
    for d, h in zip(devices.tolist(), heights.tolist(), strict=True):
        while True:
            while si < len(slots) and (slots[si] <= top or slots[si] + h - 1 > template.height_ru):
                si += 1
            if si < len(slots):
                break
            if not cur_d:
                raise InputError(
                    [
                        Problem(
                            file,
                            "slot",
                            f"template {template.id!r} has no switch slot for a {h}U switch",
                            "switch slots with room for the switch height",
                        )
                    ]
                )
            racks.append((np.asarray(cur_d, np.int64), np.asarray(cur_r, np.int64)))
            cur_d, cur_r, si, top = [], [], 0, 0
        cur_d.append(d)
        cur_r.append(slots[si])
        top = slots[si] + h - 1
    if cur_d:
        racks.append((np.asarray(cur_d, np.int64), np.asarray(cur_r, np.int64)))
    return racks


def network_templates(inputs: Inputs) -> tuple[RackTemplate, RackTemplate, RackTemplate]:
    """The rack templates for SU network racks, spine racks and MDF racks (kinds network, spine, core;
    ``net-leaf``, ``net-spine``, ``net-core`` when present, else the first id of that kind)."""
    out = []
    for kind, preferred in (("network", "net-leaf"), ("spine", "net-spine"), ("core", "net-core")):
        t = inputs.templates
        ids = (
            [preferred]
            if preferred in t and t[preferred].kind == kind
            else sorted(k for k, v in t.items() if v.kind == kind)
        )
        if not ids:
            raise InputError(
                [Problem(str(inputs.templates_dir), "kind", f"no rack template of kind {kind!r} for the network racks",
                         f'a template with kind = "{kind}"')]
            )  # fmt: skip
        out.append(t[ids[0]])
    return out[0], out[1], out[2]


def floor_positions(inputs: Inputs, width_m: float) -> dict[str, int]:
    """How many racks ``width_m`` wide the placer's rows hold in each hall (``B1/H1``): the same wall
    clearance, aisles, columns, keep-outs, user rows and ``max_row_racks`` as :func:`place`, with
    cross aisles every ``max_row_racks`` narrowest racks."""
    halls, cells = _build_halls(inputs, gpu_racks(inputs), network_templates(inputs), {})
    out = {h.key: 0 for h in halls}
    for c in cells:
        n = sum(int((b - a + EPS) // width_m) for a, b in c.free)
        out[halls[c.hall].key] += min(n, halls[c.hall].model.max_row_racks)
    return out


# ------------------------------------------------------------------------------------------- placer
@dataclass(eq=False)
class _Derived:
    """What placement takes from a fabric, the catalog and the rack templates alone: the devices grouped
    for placement and the SU blocks built so far. A Fabric is immutable, so this is kept with it (weakly:
    it goes when the fabric goes), and a later placement of the same fabric skips rebuilding it (the TUI
    reuses the fabric across edits that leave the cluster alone: max kW, cooling, rows)."""

    catalog: Catalog
    templates: dict[str, RackTemplate]
    devices: _Devices
    blocks: dict[tuple[int, str], _Block]  # (SU, GPU rack template) -> block
    packs: dict[tuple[str, bytes], list[_Item]]  # (network template, devices) -> racks (_pack)


_DERIVED: weakref.WeakKeyDictionary[Fabric, _Derived] = weakref.WeakKeyDictionary()


def _derived(inputs: Inputs, fabric: Fabric) -> _Derived:
    got = _DERIVED.get(fabric)
    if got is None or got.catalog != inputs.catalog or got.templates != inputs.templates:
        got = _Derived(inputs.catalog, dict(inputs.templates), _Devices(inputs, fabric), {}, {})
        _DERIVED[fabric] = got
    return got


@dataclass
class _Trial:
    su_hall: np.ndarray
    lines: dict[int, int]
    missing: int


class _Placer:
    def __init__(self, inputs: Inputs, fabric: Fabric):
        self.inputs = inputs
        self.site = inputs.site
        self.cl = inputs.site.cluster
        self.gpu = gpu_racks(inputs)
        self.fabric = fabric
        self.t_net, self.t_spine, self.t_core = network_templates(inputs)
        derived = _derived(inputs, fabric)
        self.d = derived.devices
        self._blocks = derived.blocks
        self._packs = derived.packs
        self.n_su = len(self.d.su_servers)
        typical = {
            k: [it.width_m for it in self.block(0, g).items] if self.n_su else [] for k, g in self.gpu.items()
        }
        self.halls, self.cells = _build_halls(
            inputs, self.gpu, [self.t_net, self.t_spine, self.t_core], typical
        )
        self.campus = self._campus_building()
        first_gpu = next(iter(self.gpu.values()), None)
        # each SU carries its share of the spines in the power budgets of halls and buildings (spines
        # stand in the halls of their leaves); the MDF is charged to the hall it stands in (see trial);
        # a pod's share of both decides which building can take it
        su_kw = sum(self.block(su, first_gpu).kw for su in range(self.n_su))
        spine_kw = float(self.d.est_kw[self.d.spine].sum())
        mdf_kw = float(self.d.est_kw[self.d.mdf].sum())
        self.overhead = 1.0 + spine_kw / su_kw if su_kw > 0 else 1.0
        self.pod_overhead = 1.0 + (spine_kw + mdf_kw) / su_kw if su_kw > 0 else 1.0

    def _campus_building(self) -> int:
        pts = []
        for b in self.site.building:
            if b.entry is not None:
                pts.append(b.entry)
            else:
                c = Polygon(b.footprint).centroid
                pts.append((c.x, c.y))
        p = np.asarray(pts, float)
        total = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1)).sum(1)
        return int(np.argmin(np.round(total, 6)))

    # ------------------------------------------------------------------------------------- items
    def _pack_items(self, tpl: RackTemplate, devices: np.ndarray) -> list[_Item]:
        if not len(devices):
            return []
        key = (tpl.id, devices.tobytes())  # trial and final runs pack the same spines and MDFs again
        if key not in self._packs:
            self._packs[key] = [
                _Item(tpl.id, tpl.kind, tpl.width_m, tpl.depth_m, d, r)
                for d, r in _pack(tpl, devices, self.d.height[devices], str(self.inputs.templates_dir))
            ]
        return list(self._packs[key])

    def block(self, su: int, gpu: GpuRack | None) -> _Block:
        assert gpu is not None
        key = (su, gpu.template)
        if key in self._blocks:
            return self._blocks[key]
        d = self.d
        tpl = self.inputs.templates[gpu.template]
        spr = max(gpu.servers, 1)
        slots = np.asarray(sorted(tpl.server_slots({self.fabric.server})), np.int64)
        servers = d.su_servers[su]
        n_racks = -(-len(servers) // spr)
        gpu_dev = [servers[k * spr : (k + 1) * spr] for k in range(n_racks)]  # views: never written
        gpu_ru = [slots[: len(g)] for g in gpu_dev]
        net = d.su_switches.get(su, np.zeros(0, np.int64))
        leaf_ru = tpl.leaf_slot()
        if self.fabric.design == "mor" and len(net):
            is_leaf = d.role[net] == "leaf"
            taken: set[int] = set()
            stay = []
            for s in net[is_leaf].tolist():
                k = int(d.pos_in_su[d.first_server[s]]) // spr
                if leaf_ru is not None and k not in taken:
                    taken.add(k)
                    gpu_dev[k] = np.append(gpu_dev[k], s)
                    gpu_ru[k] = np.append(gpu_ru[k], leaf_ru)
                else:
                    stay.append(s)
            net = np.asarray(sorted(stay + net[~is_leaf].tolist(), key=lambda x: (d.prio[x], x)), np.int64)
        gpu_items = [
            _Item(tpl.id, tpl.kind, tpl.width_m, tpl.depth_m, g, r, min(spr, len(servers) - k * spr))
            for k, (g, r) in enumerate(zip(gpu_dev, gpu_ru, strict=True))
        ]
        net_items = self._pack_items(self.t_net, net)
        half = n_racks // 2
        items = gpu_items[:half] + net_items + gpu_items[half:]
        kw = len(servers) * gpu.est_kw / spr + float(d.est_kw[net].sum())
        blk = _Block(su, items, kw)
        self._blocks[key] = blk
        return blk

    def _mdf_devices(self, buildings: list[int], pod_building: dict[int, int]) -> dict[int, np.ndarray]:
        """MDF devices per building: a pod's core-level devices in its building, the rest on campus."""
        d = self.d
        idx = np.flatnonzero(d.mdf)
        if not len(idx):
            return {}
        known = set(d.pods)
        # a pod's own devices go with the pod; devices above the pods (pod -1) to the campus MDF
        pb = np.array(
            [pod_building.get(int(p), -1 if int(p) in known else self.campus) for p in d.pod[idx]], np.int64
        )
        out = {}
        for b in buildings:
            m = pb == b
            if m.any():
                out[b] = idx[m]
        return out

    def _spine_devices_of_pod(self, pod: int) -> np.ndarray:
        return np.flatnonzero(self.d.spine & (self.d.pod == pod))

    # ------------------------------------------------------------------------------------- trial
    def trial(self, zone: list[int], pods: list[int], respect_power: bool) -> _Trial:
        """Lay a zone's pods hall after hall in plain row order to learn which SU lands in which hall."""
        su_hall = np.full(self.n_su, -1, np.int64)
        floors = {h: _Floor(self.halls[h], self.cells, _order(self.halls[h], 0)) for h in zone}
        used_kw = dict.fromkeys(zone, 0.0)
        used_b = dict.fromkeys({self.halls[h].bno for h in zone}, 0.0)
        if respect_power:  # the MDF's power in the hall nearest each building's entry, where it will stand
            pod_b0 = {p: self.halls[zone[0]].bno for p in pods}
            for b, devs in self._mdf_devices(sorted(used_b), pod_b0).items():
                near = self._cells_near_entry([h for h in zone if self.halls[h].bno == b], b)
                if near:
                    kw = float(self.d.est_kw[devs].sum())
                    used_kw[self.cells[near[0]].hall] += kw
                    used_b[b] += kw
        missing = 0
        hi = 0
        late: list[int] = []
        for pod in pods:
            sus = self.d.pod_sus[pod]
            group_kw = self._group_kw(sus)
            for k, su in enumerate(sus):
                first_of_group = k == 0 or self.d.su_group[su] != self.d.su_group[sus[k - 1]]
                while hi < len(zone):
                    h = zone[hi]
                    b = self.halls[h].bno
                    blk = self.block(su, self.halls[h].gpu)
                    kw = blk.kw * self.overhead
                    # a new spine group starts in the next hall when the whole group would not fit this
                    # hall's power (its leaf-spine links then stay inside one hall)
                    need = group_kw[self.d.su_group[su]] if first_of_group else kw
                    if respect_power and (
                        (used_kw[h] > 0 and used_kw[h] + need > self._budget_kw(self.halls[h].model.it_mw))
                        or (used_b[b] > 0 and used_b[b] + kw > self._budget_kw(self.site.building[b].it_mw))
                    ):
                        hi += 1
                        continue
                    if floors[h].put_block(blk.items) is not None:
                        su_hall[su] = h
                        used_kw[h] += kw
                        used_b[b] += kw
                        break
                    hi += 1
                else:
                    late.append(su)
            spines = self._pack_items(self.t_spine, self._spine_devices_of_pod(pod))
            missing += self._put_any(floors, zone, hi, spines)
        for su in late:  # no hall had room (or power) left: any room in the zone will do
            for h in zone:
                if floors[h].put_block(self.block(su, self.halls[h].gpu).items) is not None:
                    su_hall[su] = h
                    break
            else:
                missing += len(self.block(su, self.halls[zone[0]].gpu).items)
        buildings = sorted({self.halls[h].bno for h in zone})
        pod_b = {p: self.halls[zone[0]].bno for p in pods}
        for devs in self._mdf_devices(buildings, pod_b).values():
            missing += self._put_any(floors, zone, 0, self._pack_items(self.t_core, devs))
        return _Trial(su_hall, {h: len(f.lines_used) for h, f in floors.items()}, missing)

    def _group_kw(self, sus: list[int]) -> dict[int, float]:
        """Estimated kW of each spine group of these SUs (with the spines' share)."""
        out: dict[int, float] = {}
        gpu = self.halls[0].gpu
        for su in sus:
            g = self.d.su_group[su]
            out[g] = out.get(g, 0.0) + self.block(su, gpu).kw * self.overhead
        return out

    def _put_any(self, floors: dict[int, _Floor], zone: list[int], hi: int, items: list[_Item]) -> int:
        """Items one after the other from hall ``zone[hi]`` on (then the halls before it); returns how
        many found no room."""
        left = list(items)
        for h in zone[hi:] + zone[:hi]:
            left = [it for it in left if floors[h].put(it) is None]
            if not left:
                break
        return len(left)

    @staticmethod
    def _budget_kw(mw: float | None) -> float:
        return math.inf if mw is None else mw * 1000.0 + 1e-6

    def pod_kw(self, pod: int) -> float:
        return self.pod_overhead * sum(self.block(su, self.halls[0].gpu).kw for su in self.d.pod_sus[pod])

    # ------------------------------------------------------------------------------------- final
    def final(self, zone: list[int], pods: list[int], trial: _Trial) -> tuple[list[_Spot], int]:
        halls = self.halls
        su_hall = trial.su_hall
        spots: list[_Spot] = []
        missing = 0
        # the building of each pod: where most of its SUs landed
        pod_b: dict[int, int] = {}
        for p in pods:
            hs = su_hall[self.d.pod_sus[p]]
            hs = hs[hs >= 0]
            pod_b[p] = (
                int(np.bincount([halls[h].bno for h in hs]).argmax()) if len(hs) else halls[zone[0]].bno
            )
        buildings = sorted({halls[h].bno for h in zone})
        floors: dict[int, _Floor] = {}
        for h in zone:
            start = max(0, (len(halls[h].line_cells) - trial.lines.get(h, 0)) // 2)
            floors[h] = _Floor(halls[h], self.cells, _order(halls[h], start))
        # MDF racks first, in the rows nearest the building's entry; the SUs fill around them
        for b, devs in sorted(self._mdf_devices(buildings, pod_b).items()):
            left = self._pack_items(self.t_core, devs)
            near = self._cells_near_entry([h for h in zone if halls[h].bno == b], b)
            for h in dict.fromkeys(self.cells[c].hall for c in near):  # halls, nearest first
                if left:
                    left = self._beside(floors[h], [c for c in near if self.cells[c].hall == h], left, spots)
            missing += len(left)
        spines: dict[int, list[np.ndarray]] = {}
        for p in pods:
            for h, devs in self.d.spine_halls(su_hall, p).items():
                spines.setdefault(h if h >= 0 else zone[0], []).append(devs)
        spill: list[int] = []
        for h in zone:
            f = floors[h]
            sus = spill + [int(s) for s in np.flatnonzero(su_hall == h)]
            half = (len(sus) + 1) // 2
            spill = self._lay_sus(f, sus[:half], spots)
            sp_items = [it for devs in spines.get(h, []) for it in self._pack_items(self.t_spine, devs)]
            if sp_items:
                left = self._spine_row(f, sp_items, spots)
                missing += self._elsewhere(left, floors, zone, spots)
            spill += self._lay_sus(f, sus[half:], spots) if not spill else sus[half:]
        unplaced_su = [int(s) for s in np.flatnonzero(su_hall < 0) if self.d.su_pod[s] in pods]
        for su in spill + unplaced_su:  # whole SUs found no room: place what fits of them
            items = self.block(su, halls[zone[0]].gpu).items
            for h in zone:
                got = floors[h].put_block(items, whole=False) or []
                spots += got
                placed = {id(s.item) for s in got}
                items = [it for it in items if id(it) not in placed]
                if not items:
                    break
            missing += len(items)
        return spots, missing

    def _lay_sus(self, f: _Floor, sus: list[int], spots: list[_Spot]) -> list[int]:
        """SU blocks in order until one does not fit; returns that one and the rest (they spill)."""
        for i, su in enumerate(sus):
            got = f.put_block(self.block(su, f.hall.gpu).items)
            if got is None:
                return sus[i:]
            spots += got
        return []

    def _spine_row(self, f: _Floor, items: list[_Item], spots: list[_Spot]) -> list[_Item]:
        """Spine racks in the next row line, in the cells nearest the middle of the hall; the SUs that
        follow fill around them. Returns the items that found no room."""
        u_mid = (f.hall.usable.bounds[0] + f.hall.usable.bounds[2]) / 2
        later = f.later_cells()
        cells = self.cells
        rank = {li: i for i, li in enumerate(dict.fromkeys(cells[c].line for c in later))}
        order = sorted(
            later, key=lambda c: (rank[cells[c].line], abs((cells[c].u0 + cells[c].u1) / 2 - u_mid), c)
        )
        return self._beside(f, order, items, spots)

    def _beside(self, f: _Floor, order: list[int], items: list[_Item], spots: list[_Spot]) -> list[_Item]:
        """Lay ``items`` into ``f``'s hall in their own cell ``order``; the cursor of ``f`` stays where it
        is and ``f`` then skips the spans they took. Returns the items that found no room."""
        tmp = _Floor(f.hall, self.cells, order)
        tmp.user_free, tmp.count, tmp.free = f.user_free, f.count, f.free
        left = []
        taken = []
        for it in items:
            sp = tmp.put(it)
            if sp is None:
                left.append(it)
            else:
                spots.append(sp)
                if sp.cell >= 0:
                    taken.append((sp.cell, sp.u, sp.u + it.width_m))
        for c, a, b in taken:
            f.take_span(c, a, b)
        return left

    def _elsewhere(
        self, items: list[_Item], floors: dict[int, _Floor], zone: list[int], spots: list[_Spot]
    ) -> int:
        left = items
        for h in zone:
            if not left or h not in floors:
                continue
            rest = []
            for it in left:
                sp = floors[h].put(it)
                if sp is None:
                    rest.append(it)
                else:
                    spots.append(sp)
            left = rest
        return len(left)

    def _cells_near_entry(self, zone_halls: list[int], bno: int) -> list[int]:
        b = self.site.building[bno]
        if b.entry is not None:
            ex, ey = b.entry
        else:
            c = Polygon(b.footprint).centroid
            ex, ey = c.x, c.y
        ids = [c for h in zone_halls for line in self.halls[h].line_cells for c in line]
        if not ids:
            return []
        dist = []
        for c in ids:
            cell = self.cells[c]
            hall = self.halls[cell.hall]
            pu, pv = (ey, ex) if hall.swap else (ex, ey)
            du = max(cell.u0 - pu, 0.0, pu - cell.u1)
            dv = max(cell.v0 - pv, 0.0, pv - (cell.v0 + hall.band_m))
            dist.append(round(math.hypot(du, dv), 6))
        return [ids[i] for i in np.lexsort((np.asarray(ids), np.asarray(dist)))]

    # ----------------------------------------------------------------------------------- assign
    def run(self) -> tuple[list[_Spot], list[Violation], int]:
        """Pods to buildings (zones), then each zone laid out; returns spots, violations, racks missing."""
        halls_of_b: list[list[int]] = [[] for _ in self.site.building]
        for h in self.halls:
            halls_of_b[h.bno].append(h.no)
        zones = [[h.no for h in self.halls]] if self.cl.pod_spans_buildings else halls_of_b
        zone_pods: list[list[int]] = [[] for _ in zones]
        zone_kw = [0.0 for _ in zones]
        trials: list[_Trial | None] = [None for _ in zones]

        def budget(zi: int) -> float:
            if self.cl.pod_spans_buildings:
                return math.inf
            return self._budget_kw(self.site.building[self.halls[zones[zi][0]].bno].it_mw)

        # a pod goes to the first zone from the current one that holds it whole (and has the power
        # left); else to the first empty zone, whatever fits of it; a second round ignores power
        lost = list(self.d.pods)
        for respect_power in (True, False):
            pending, lost, cur = lost, [], 0
            for pod in pending:
                kw = self.pod_kw(pod)
                fallback: tuple[int, _Trial] | None = None
                chosen: tuple[int, _Trial] | None = None
                for zi in range(cur, len(zones)):
                    if not zones[zi] or (respect_power and zone_pods[zi] and zone_kw[zi] + kw > budget(zi)):
                        continue
                    t = self.trial(zones[zi], zone_pods[zi] + [pod], respect_power)
                    if t.missing == 0:
                        chosen = (zi, t)
                        break
                    if fallback is None and not zone_pods[zi]:
                        fallback = (zi, t)
                chosen = chosen or fallback
                if chosen is None:
                    lost.append(pod)
                    continue
                cur, trials[chosen[0]] = chosen
                zone_pods[cur].append(pod)
                zone_kw[cur] += kw
        spots: list[_Spot] = []
        violations: list[Violation] = []
        missing_total = 0
        for zi, zone in enumerate(zones):
            if not zone_pods[zi] and self.campus not in {self.halls[h].bno for h in zone}:
                continue
            t = trials[zi] or self.trial(zone, zone_pods[zi], True)
            got, missing = self.final(zone, zone_pods[zi], t)
            spots += got
            if missing:
                missing_total += missing
                violations.append(self._capacity(zone, missing, len(got)))
        for pod in lost:
            n = self.pod_racks(pod)
            missing_total += n
            violations.append(
                Violation(
                    "capacity",
                    "site",
                    f"pod {pod} ({n} racks) found no building with room for it; every building is taken",
                    "add a building or hall, use denser racks, or set cluster.pod_spans_buildings = true",
                    {"racks_missing": n, "pod": pod},
                )
            )
        return spots, violations, missing_total

    def pod_racks(self, pod: int) -> int:
        """Racks a pod needs: its SU blocks, spine racks and the MDF racks of its own core devices."""
        d = self.d
        n = sum(len(self.block(su, self.halls[0].gpu).items) for su in d.pod_sus[pod])
        n += len(self._pack_items(self.t_spine, self._spine_devices_of_pod(pod)))
        return n + len(self._pack_items(self.t_core, np.flatnonzero(d.mdf & (d.pod == pod))))

    def _capacity(self, zone: list[int], missing: int, placed: int) -> Violation:
        keys = [self.halls[h].key for h in zone]
        where = self.halls[zone[0]].building if not self.cl.pod_spans_buildings else "site"
        return Violation(
            "capacity",
            where,
            f"{missing} of {missing + placed} racks do not fit: {', '.join(keys)} "
            f"{'is' if len(keys) == 1 else 'are'} full",
            "enlarge the hall(s), narrow the aisles, use denser racks, or add a hall or building",
            {"racks_missing": missing, "racks_placed": placed, "halls": keys},
        )


# ------------------------------------------------------------------------------------------ tables
def place(inputs: Inputs, fabric: Fabric) -> Placement:
    """Racks on the floor and every device of ``fabric`` in a rack at an RU (docs/tables.md)."""
    p = _Placer(inputs, fabric)
    spots, violations, missing = p.run()
    racks, rows, device_rack, device_ru = _tables(p, spots)
    violations += _user_row_checks(inputs, racks)
    return Placement(racks, rows, device_rack, device_ru, tuple(violations), p.gpu, missing)


@dataclass(slots=True)
class _RackRec:
    hall: int
    row_key: tuple[str, int]  # ("c", cell) or ("u", user row)
    along: float  # order inside the row
    x_m: float
    y_m: float
    rotation_deg: float
    width_m: float
    depth_m: float
    user_row: bool
    item: _Item


@dataclass(slots=True)
class _RowRec:
    hall: int
    key: tuple[str, int]
    members: list[_RackRec]
    axis: str
    x0_m: float
    y0_m: float
    x1_m: float
    y1_m: float
    front_sign: int
    kind: str
    sort: tuple[float, float, tuple[str, int]]


def _rack_recs(p: _Placer, spots: list[_Spot]) -> list[_RackRec]:
    recs = []
    for s in spots:
        hall = p.halls[s.hall]
        it = s.item
        if s.user is not None:
            recs.append(_user_rec(hall.no, s.user, it))
            continue
        cell = p.cells[s.cell]
        front = hall.line_front[cell.line]
        v = cell.v0 + hall.band_m - it.depth_m / 2 if front > 0 else cell.v0 + it.depth_m / 2
        uc = s.u + it.width_m / 2
        x, y = (v, uc) if hall.swap else (uc, v)
        rot = (270.0 if front > 0 else 90.0) if hall.swap else (0.0 if front > 0 else 180.0)
        recs.append(_RackRec(hall.no, ("c", s.cell), s.u, x, y, rot, it.width_m, it.depth_m, False, it))
    # user rows stand whole, filled or not
    used = {(r.hall, r.row_key, r.along) for r in recs if r.user_row}
    for hall in p.halls:
        for u in hall.user_slots:
            if (hall.no, ("u", u.user_row), u.pos) not in used:
                tpl = p.inputs.templates[u.template]
                none = np.zeros(0, np.int64)
                recs.append(_user_rec(hall.no, u, _Item(tpl.id, tpl.kind, u.width_m, u.depth_m, none, none)))
    return recs


def _user_rec(hall_no: int, u: _UserSlot, item: _Item) -> _RackRec:
    """A rack position of a user row, exactly where the site file put it."""
    return _RackRec(
        hall_no, ("u", u.user_row), u.pos, u.x_m, u.y_m, u.rotation_deg, u.width_m, u.depth_m, True, item
    )


def _row_rec(hall: _Hall, key: tuple[str, int], members: list[_RackRec]) -> _RowRec:
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
    return _RowRec(
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


def _tables(p: _Placer, spots: list[_Spot]) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
    """Racks and rows tables; rows numbered per hall across the hall then along it, racks along the row."""
    grouped: dict[tuple[int, tuple[str, int]], list[_RackRec]] = {}
    for r in _rack_recs(p, spots):
        grouped.setdefault((r.hall, r.row_key), []).append(r)
    rows = sorted(
        (_row_rec(p.halls[h], key, m) for (h, key), m in grouped.items()),
        key=lambda r: (p.halls[r.hall].bno, r.hall, r.sort),
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


def _user_row_checks(inputs: Inputs, racks: pd.DataFrame) -> list[Violation]:
    """User rows are kept as drawn; say so when one stands on a column, a keep-out, the wall clearance
    or another user row."""
    if not len(racks) or not racks["user_row"].any():
        return []
    out = []
    polys = rack_polygons(racks)
    halls = {k: h for k, h in _hall_items(inputs)}
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
