"""Each hall's floor grid, and a cursor that lays racks into it.

Per hall, in a local frame where ``u`` runs along the rows and ``v`` across them:

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
  (600 mm GPU, 800 mm network racks) one after the other (:class:`FloorCursor`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from layout.place.templates import GpuRack, gpu_racks, hall_items, network_templates

if TYPE_CHECKING:
    from layout.load import Inputs
    from layout.memo import Scope
    from layout.model import Hall, RackTemplate
    from layout.place.groups import RackItem

EPS = 1e-6
ROOMY = 0.9  # a run of row lines with this share of the roomiest run's free length counts as roomy
MIN_SPLIT_RACKS = 3  # a row piece a column cuts off must hold this many of the narrowest racks
LOOK_AHEAD_CELLS = 4  # how many cells a block of racks skips to stand whole in one row


@dataclass
class Cell:
    """One (row line, cross-aisle segment) of a hall, in the hall's local frame: its ``u`` extent, the
    ``v`` its band starts at, and the intervals along ``u`` free of columns, keep-outs and walls."""

    hall: int
    line: int
    seg: int
    u0: float
    u1: float
    v0: float
    free: list[tuple[float, float]]
    slot: int = 0  # its row's number in the hall: by its place on the grid (see lay_grid), from 1


@dataclass
class UserSlot:
    """One rack position of a user row (``[[row]]``), where the site file put it (site coordinates)."""

    template: str
    x_m: float
    y_m: float
    width_m: float
    depth_m: float
    rotation_deg: float
    user_row: int
    pos: int


@dataclass
class HallPlan:
    """A hall as the placer lays it out: its usable area in the local frame (``swap``: rows run along
    ``y``, so ``u`` is ``y``), the depth of a row band, the row lines with the direction their fronts face
    and their cells, the user-row slots, and the GPU rack it gets."""

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
    user_slots: list[UserSlot] = field(default_factory=list)
    gpu: GpuRack | None = None
    max_width_m: float = 0.0  # the widest rack in play: a row segment holds at least one of it
    # rack positions and metres each row leaves free at its start (the hall's fibre_positions)
    reserve: int = 0
    reserve_m: float = 0.0
    first_cell: int = 0  # the number of its first cell across the site (a Spot's cell is counted from it)
    slots: int = 0  # row numbers the grid gives (lay_grid); user rows are numbered after them


def local_frame(geom: shapely.Geometry, swap: bool) -> shapely.Geometry:
    return shapely.transform(geom, lambda c: c[:, ::-1]) if swap else geom


def rect(x0: float, y0: float, x1: float, y1: float) -> Polygon:
    return box(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def hall_floor(h: Hall) -> tuple[Polygon, list[Polygon]]:
    """The hall inside its wall clearance, and the obstacles on it (columns, keep-outs)."""
    poly = Polygon(h.polygon)
    inner = poly.buffer(-h.wall_clearance_m, join_style="mitre") if h.wall_clearance_m > 0 else poly
    obstacles = [
        rect(
            c.at[0] - c.size_m[0] / 2,
            c.at[1] - c.size_m[1] / 2,
            c.at[0] + c.size_m[0] / 2,
            c.at[1] + c.size_m[1] / 2,
        )
        for c in h.columns
    ]
    return inner, obstacles + [Polygon(k.polygon) for k in h.keepouts]


def user_rows(inputs: Inputs) -> tuple[dict[str, list[UserSlot]], dict[str, list[Polygon]]]:
    """Racks of the site's [[row]] entries per hall, and the area each keeps free (footprint + aisles).

    A row's racks stand side by side from ``origin`` (the row's corner of smallest x and y), each as
    wide as its template; the row is as deep as its deepest rack and the racks align their fronts on
    its front side, as the placer's do (a band's racks front the cold aisle). The area kept free is
    the row, its cold aisle on the front side, its hot aisle behind and a cross aisle at each end."""
    halls = {k: h for k, h in hall_items(inputs)}
    slots: dict[str, list[UserSlot]] = {}
    reserve: dict[str, list[Polygon]] = {}
    for ri, r in enumerate(inputs.site.row):
        tpls = [inputs.templates[t] for t in r.rack_templates()]
        hall = halls[r.hall]
        depth = max(t.depth_m for t in tpls)
        plus = r.front == "+"
        ox, oy = r.origin
        at = 0.0
        for k, tpl in enumerate(tpls):
            w, d = tpl.width_m, tpl.depth_m
            across = depth - d / 2 if plus else d / 2  # the front on the row's front side
            if r.axis == "x":  # fronts face +y (rotation 0) or -y (180)
                x, y, rot = ox + at + w / 2, oy + across, 0.0 if plus else 180.0
            else:  # fronts face +x (rotation 270) or -x (90)
                x, y, rot = ox + across, oy + at + w / 2, 270.0 if plus else 90.0
            slots.setdefault(r.hall, []).append(UserSlot(tpl.id, x, y, w, d, rot, ri, k + 1))
            at += w
        length = at
        below, above = (
            (hall.hot_aisle_m, hall.cold_aisle_m) if plus else (hall.cold_aisle_m, hall.hot_aisle_m)
        )
        if r.axis == "x":
            area = rect(
                ox - hall.cross_aisle_m, oy - below, ox + length + hall.cross_aisle_m, oy + depth + above
            )
        else:
            area = rect(
                ox - below, oy - hall.cross_aisle_m, ox + depth + above, oy + length + hall.cross_aisle_m
            )
        reserve.setdefault(r.hall, []).append(area)
    return slots, reserve


def build_halls(
    inputs: Inputs,
    gpu: dict[str, GpuRack],
    net_templates: Sequence[RackTemplate],
    typical: dict[str, list[float]],
    scope: Scope | None = None,
) -> tuple[list[HallPlan], list[Cell]]:
    """Every hall's plan and floor grid, cells numbered across the site in hall order. ``scope``: a memo
    (layout/memo.py) that keeps each hall's grid by all it is made from (:class:`KeptGrid`)."""
    slots, reserve = user_rows(inputs)
    halls: list[HallPlan] = []
    cells: list[Cell] = []
    for bno, b in enumerate(inputs.site.building):
        for h in b.hall:
            key = f"{b.id}/{h.id}"
            used = [inputs.templates[gpu[key].template], *net_templates]
            band = max(t.depth_m for t in used)
            min_w = min(t.width_m for t in used)
            max_w = max(t.width_m for t in used)
            swap = h.row_axis == "y"
            block = typical.get(key, [])
            hall = HallPlan(
                len(halls),
                key,
                b.id,
                bno,
                h,
                swap,
                band,
                min_w,
                Polygon(),
                gpu=gpu[key],
                max_width_m=max_w,
            )
            hall.user_slots = slots.get(key, [])
            hall.reserve = h.fibre_positions or 0
            hall.reserve_m = hall.reserve * inputs.catalog.plant.cabinet_width_mm / 1000
            hall.first_cell = len(cells)
            held = reserve.get(key, [])
            make = partial(_grid, hall, block, held)
            if scope is None:
                grid = make()
            else:
                parts = (
                    h.model_dump_json(include=GRID_FIELDS),
                    [p.bounds for p in held],
                    band,
                    min_w,
                    max_w,
                    block,
                    hall.reserve_m,  # the row segments are that much longer
                )
                grid = scope.take("place.hall_grid", parts, make)
            hall.usable, hall.line_v, hall.line_front = grid.usable, list(grid.line_v), list(grid.line_front)
            hall.slots = grid.slots
            first = len(cells)
            cells += [Cell(hall.no, *c) for c in grid.cells]
            hall.line_cells = [[first + i for i in ids] for ids in grid.line_cells]
            halls.append(hall)
    return halls, cells


# the hall keys a floor grid is made from (hall_floor, lay_grid); an edit of any other (its power,
# cooling, max kW, tray, the placement options) keeps the grid
GRID_FIELDS: set[str] = {
    "polygon", "wall_clearance_m", "columns", "keepouts", "row_axis", "cold_aisle_m", "hot_aisle_m",
    "cross_aisle_m", "max_row_racks",
}  # fmt: skip


@dataclass(frozen=True, eq=False)
class KeptGrid:
    """A hall's floor grid (see lay_grid), in the hall's own cell numbering. It is made from the hall
    alone (its polygon, columns, keep-outs, clearances, aisles, ``max_row_racks`` and row axis: the
    :data:`GRID_FIELDS` of the hall model), the areas its user rows hold, the rack band's depth, the
    narrowest and widest rack and the widths of a typical SU block: a memo keeps it by exactly these."""

    usable: Polygon
    line_v: list[float]
    line_front: list[int]
    cells: list[tuple[int, int, float, float, float, list[tuple[float, float]], int]]  # Cell without hall
    line_cells: list[list[int]]
    slots: int


def _grid(hall: HallPlan, block: list[float], held: list[Polygon]) -> KeptGrid:
    """The floor grid of ``hall`` (its plan's model, band and widths), cells counted from 0."""
    usable, obstacles = hall_floor(hall.model)
    holes = obstacles + held
    if holes:
        usable = usable.difference(shapely.union_all(holes))
    hall.usable = local_frame(usable, hall.swap)
    cells: list[Cell] = []
    lay_grid(hall, cells, block, [local_frame(o, hall.swap) for o in obstacles])
    return KeptGrid(
        hall.usable,
        list(hall.line_v),
        list(hall.line_front),
        [(c.line, c.seg, c.u0, c.u1, c.v0, c.free, c.slot) for c in cells],
        [list(ids) for ids in hall.line_cells],
        hall.slots,
    )


def segment_m(hall: HallPlan, block: list[float]) -> float:
    """Row length between cross aisles: ``max_row_racks`` of the narrowest racks, or as many whole SU
    blocks (GPU and network racks) as the rack count allows when that is longer; an SU block of more
    racks than that is laid over as few rows as hold it, evenly, and a row is as long as the longest of
    those parts (network racks being wider, the part with them is longer). Never shorter than the
    widest rack, so that ``max_row_racks = 1`` still takes an 800 mm network rack. The positions the row
    keeps free at its start for fibre cabinets (``fibre_positions``) come on top."""
    n = hall.model.max_row_racks
    length = max(n * hall.min_width_m, hall.max_width_m)
    if block and len(block) <= n:
        length = max(length, (n // len(block)) * sum(block))
    elif block:
        size = math.ceil(len(block) / math.ceil(len(block) / n))
        length = max(length, max(sum(block[i : i + size]) for i in range(0, len(block), size)))
    return length + hall.reserve_m


def reach(front: np.ndarray, d: float, cold: float, hot: float) -> tuple[np.ndarray, np.ndarray]:
    """How far a row line's service clearance reaches below and above its band ``[v, v + d]``: its
    front aisle (cold) on the side its fronts face, its back aisle (hot) on the other."""
    below = np.where(front > 0, hot, cold)
    above = np.where(front > 0, cold, hot)
    return below, above


def line_offset(v_lo: float, v_hi: float, d: float, cold: float, hot: float, obst: np.ndarray) -> float:
    """Where the first row line starts, ``v_lo`` + the offset returned: the most row lines, then the
    least row length given up to obstacles (each obstacle costs its ``u`` extent on every line whose band
    or aisles it stands in: a column in an aisle costs both rows beside it, one in a row line only that
    row), then the smallest shift. ``obst``: per obstacle ``v0, v1, u0, u1``. The cost only changes
    where an obstacle's edge meets an edge of a line's reach, so those shifts (and 0) are the
    candidates; a candidate where they touch counts as clear (touching is not standing in)."""
    pair = 2 * d + cold + hot
    if not len(obst) or pair <= 0:
        return 0.0
    # reach of the two lines of a pair, relative to the pair's start
    starts = np.array([-hot, d])  # line 0 (fronts +v) from its hot aisle, line 1 from the cold aisle
    ends = np.array([d + cold, 2 * d + cold + hot])
    c0, c1 = obst[:, 0], obst[:, 1]
    cand = np.r_[
        0.0,
        np.mod(c1[:, None] - v_lo - starts[None, :], pair).ravel(),
        np.mod(c0[:, None] - v_lo - ends[None, :], pair).ravel(),
    ]
    cand = np.unique(np.round(cand, 9))
    n_max = int((v_hi - v_lo + EPS) // pair) * 2 + 2
    i = np.arange(n_max)
    rel = (i // 2) * pair + (i % 2) * (d + cold)
    front = np.where(i % 2 == 0, 1, -1)
    below, above = reach(front, d, cold, hot)
    v = v_lo + cand[:, None] + rel[None, :]  # (K, L)
    fits = v + d <= v_hi + EPS
    lines = fits.sum(1)
    lo = (v - below[None, :])[:, :, None]
    hi = (v + d + above[None, :])[:, :, None]
    hit = (c0[None, None, :] < hi - EPS) & (c1[None, None, :] > lo + EPS) & fits[:, :, None]
    cost = (hit * (obst[:, 3] - obst[:, 2])[None, None, :]).sum((1, 2))
    best = np.lexsort((cand, np.round(cost, 6), -lines))[0]
    return float(cand[best])


def lay_grid(
    hall: HallPlan, cells: list[Cell], block: list[float], obstacles: Sequence[Polygon] = ()
) -> None:
    """Row lines, cross-aisle segments and the free intervals of each (line, segment) of one hall.

    Aisles stay clear: the lines are shifted (:func:`line_offset`) so that columns and keep-outs stand
    in row lines rather than in aisles; where one still reaches into a row's front or back aisle
    (its service clearance) the row is broken over the obstacle's length, so it stands beyond the rack
    ends; where one stands in a cross aisle, the rows beside it keep a cross aisle's width from it.
    ``obstacles``: the hall's columns and keep-outs, in the local frame."""
    h = hall.model
    if hall.usable.is_empty:
        return
    u_lo, v_lo, u_hi, v_hi = hall.usable.bounds
    d = hall.band_m
    cold, hot, cross = h.cold_aisle_m, h.hot_aisle_m, h.cross_aisle_m
    pair = 2 * d + cold + hot
    obs = np.asarray(obstacles, dtype=object)
    ob = shapely.bounds(obs) if len(obs) else np.zeros((0, 4))
    start = v_lo + line_offset(v_lo, v_hi, d, cold, hot, ob[:, [1, 3, 0, 2]])
    while True:
        i = len(hall.line_v)
        v = start + (i // 2) * pair + (i % 2) * (d + cold)
        if v + d > v_hi + EPS:
            break
        hall.line_v.append(v)
        hall.line_front.append(1 if i % 2 == 0 else -1)
    seg_len = segment_m(hall, block)
    seg_u = []
    u = u_lo
    while u + hall.min_width_m <= u_hi + EPS:
        seg_u.append((u, min(u + seg_len, u_hi)))
        u += seg_len + cross
    if not hall.line_v or not seg_u:
        return
    n_seg = len(seg_u)
    lv = np.repeat(np.asarray(hall.line_v), n_seg)
    su = np.tile(np.asarray(seg_u), (len(hall.line_v), 1))
    boxes = shapely.box(su[:, 0], lv, su[:, 1], lv + d)
    # a box inside the usable area has nothing blocked: the difference only of the others
    edge = np.flatnonzero(~shapely.within(boxes, hall.usable))
    parts, idx = shapely.get_parts(shapely.difference(boxes[edge], hall.usable), return_index=True)
    idx = edge[idx]
    bounds = shapely.bounds(parts)
    real = (
        (shapely.area(parts) > 1e-9)
        & (bounds[:, 3] - bounds[:, 1] > EPS)
        & (bounds[:, 2] - bounds[:, 0] > EPS)
    )
    per_box: dict[int, list[tuple[float, float]]] = {}
    for j, lo, hi in zip(idx[real].tolist(), bounds[real, 0].tolist(), bounds[real, 2].tolist(), strict=True):
        per_box.setdefault(j, []).append((lo, hi))
    splits: dict[int, list[float]] = {}
    if len(obs):
        for j, lo, hi, split in clearance_blocks(hall, obs, lv, su, d, cross):
            per_box.setdefault(j, []).append((lo, hi))
            if split:
                splits.setdefault(j, []).append(hi)
    # rows are numbered by their place: line, then segment, then the part of a (line, segment) a column
    # in its aisle cuts off; every place of the grid has its number whether it holds racks or not, so a
    # row keeps its number when rows elsewhere come and go (the grid is the hall's alone, user rows aside)
    parts = 1 + max((len(e) for e in splits.values()), default=0)
    hall.slots = len(hall.line_v) * n_seg * parts
    for li in range(len(hall.line_v)):
        ids = []
        for si, (a, b) in enumerate(seg_u):
            j = li * n_seg + si
            free = subtract((a, b), per_box.get(j, []), hall.min_width_m)
            for g, part in split_rows(free, splits.get(j, []), MIN_SPLIT_RACKS * hall.min_width_m):
                ids.append(len(cells))
                cells.append(Cell(hall.no, li, si, a, b, hall.line_v[li], part, j * parts + g + 1))
        hall.line_cells.append(ids)


def split_rows(
    free: list[tuple[float, float]], ends: list[float], min_m: float
) -> list[tuple[int, list[tuple[float, float]]]]:
    """The free intervals of one (line, segment) as rows: a row ends where an obstacle in its aisle
    stands (``ends``: the far side of each such gap along ``u``), so the intervals either side of it are
    two rows, each with its own containment end, and no row runs past a column in its aisle. A piece
    shorter than ``min_m`` (``MIN_SPLIT_RACKS`` narrow racks) is left empty: a stub of a row or two
    racks beside a column is not worth its containment. Each row comes with its part number: how many
    of ``ends`` lie before it."""
    if not ends:
        return [(0, free)] if free else []
    cut = np.sort(np.asarray(ends))
    group = np.searchsorted(cut, [lo + EPS for lo, _ in free])
    out: dict[int, list[tuple[float, float]]] = {}
    for g, iv in zip(group.tolist(), free, strict=True):
        out.setdefault(g, []).append(iv)
    return [(g, out[g]) for g in sorted(out) if sum(b - a for a, b in out[g]) >= min_m - EPS]


def clearance_blocks(
    hall: HallPlan, obs: np.ndarray, lv: np.ndarray, su: np.ndarray, d: float, cross: float
) -> list[tuple[int, float, float, bool]]:
    """(box, u0, u1, ends_row) spans that obstacles take from the (line, segment) boxes through the
    aisles: one in a row's front or back aisle (not in its band) takes its ``u`` extent, at least a cross
    aisle wide, and ends the row there (``ends_row``: the racks either side are two rows, so the obstacle
    stands between two rows' ends, not in the aisle of one row broken around it); one in the cross aisle
    at a segment's end takes its extent and a cross aisle's width either side. One STRtree query of
    every line's reach (band, front and back aisle, the cross aisles at its ends) against the
    obstacles."""
    h = hall.model
    u_lo, _, u_hi, _ = hall.usable.bounds
    front = np.repeat(np.asarray(hall.line_front), len(su) // len(hall.line_v))
    below, above = reach(front, d, h.cold_aisle_m, h.hot_aisle_m)
    boxes = shapely.box(su[:, 0] - cross, lv - below, su[:, 1] + cross, lv + d + above)
    bi, oi = shapely.STRtree(obs).query(boxes, predicate="intersects")
    if not len(bi):
        return []
    inter = shapely.intersection(boxes[bi], obs[oi])
    b = shapely.bounds(inter)
    ok = (shapely.area(inter) > 1e-9) & (b[:, 3] - b[:, 1] > EPS) & (b[:, 2] - b[:, 0] > EPS)
    a0, a1 = su[bi, 0], su[bi, 1]
    # in the cross aisle: beyond the segment's end, where another segment follows (not the hall's end)
    gap = ((b[:, 0] < a0 - EPS) & (a0 > u_lo + EPS)) | ((b[:, 2] > a1 + EPS) & (a1 < u_hi - EPS))
    widen = np.where(gap, cross, 0.0)
    # reaching into an aisle: beyond the band [lv, lv + d] of the line (wholly inside it, the column
    # stands in the row line and the row runs on past it)
    in_aisle = ~gap & ((b[:, 1] < lv[bi] - EPS) | (b[:, 3] > lv[bi] + d + EPS))
    widen = np.where(in_aisle, np.maximum(cross - (b[:, 2] - b[:, 0]), 0.0) / 2, widen)
    lo, hi = b[:, 0] - widen, b[:, 2] + widen
    return list(zip(bi[ok].tolist(), lo[ok].tolist(), hi[ok].tolist(), in_aisle[ok].tolist(), strict=True))


def subtract(
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


@dataclass(slots=True)
class Spot:
    """Where an item went: a cell and its u, or a user-row slot (slots: a cache keeps the spots of
    several layouts, and the garbage collector walks every object with a __dict__). The cell is counted
    in its hall (the hall's first cell is 0; site-wide: ``HallPlan.first_cell + cell``), so a spot
    stays as it is when the grid of a hall before it changes (layout/place/zones.py keeps them)."""

    item: RackItem
    hall: int
    cell: int = -1
    u: float = 0.0
    user: UserSlot | None = None


class FloorCursor:
    """A cursor over a hall's free intervals in a given cell order; racks are laid one after the other."""

    def __init__(self, hall: HallPlan, cells: list[Cell], order: list[int]):
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
        self.limit = hall.model.max_row_racks
        # cells with spans taken by a spine row, or with positions kept free at their start
        self.free: dict[int, list[tuple[float, float]]] = {}

    def free_of(self, c: int) -> list[tuple[float, float]]:
        got = self.free.get(c)
        if got is None:
            got = self.cells[c].free
            if self.hall.reserve_m > 0 and got:  # the row's first positions kept for fibre cabinets
                (a, b), rest = got[0], got[1:]
                a += self.hall.reserve_m
                got = self.free[c] = ([(a, b)] if b - a >= self.hall.min_width_m - EPS else []) + rest
        return got

    def take_span(self, c: int, a: float, b: float) -> None:
        """Another floor (a spine row) put a rack at [a, b] of cell ``c``."""
        self.free[c] = [
            iv for lo, hi in self.free_of(c) for iv in subtract((lo, hi), [(a, b)], self.hall.min_width_m)
        ]

    def state(self) -> tuple[int, int, float, int]:
        """The cursor (restore it with what was placed since)."""
        return self.k, self.iv, self.u, self.last_line

    def restore(self, s: tuple[int, int, float, int], undo: list[Spot]) -> None:
        """Back to cursor ``s``, giving back the places ``undo`` took."""
        self.k, self.iv, self.u, self.last_line = s
        for sp in undo:
            if sp.user is not None:
                self.user_free.append(sp.user)
            else:
                self.count[self.hall.first_cell + sp.cell] -= 1
        self.user_free.sort(key=lambda x: (x.user_row, x.pos))

    def _take(self, w: float) -> tuple[int, float] | None:
        got = self._take_run([w])
        return None if got is None else got[0]

    def _take_run(self, widths: list[float]) -> list[tuple[int, float]] | None:
        """Places for racks of ``widths`` side by side in one free interval of one cell: the first from
        the cursor that holds them all (cell, start) each; None when no later interval does."""
        total = sum(widths)
        while self.k < len(self.order):
            c = self.order[self.k]
            free = self.free_of(c)
            if self.count.get(c, 0) + len(widths) > self.limit:
                free = []
            while self.iv < len(free):
                a, b = free[self.iv]
                u = max(self.u, a)
                if u + total <= b + EPS:
                    out = []
                    for w in widths:
                        out.append((c, u))
                        u += w
                    self.u = u
                    self.last_line = self.cells[c].line
                    self.count[c] = self.count.get(c, 0) + len(widths)
                    return out
                self.iv += 1
                self.u = -math.inf
            self.k += 1
            self.iv = 0
            self.u = -math.inf
        return None

    def put_run(self, items: list[RackItem]) -> list[Spot] | None:
        """Racks that must stand side by side in one row (a middle-of-rack leaf's rack pair)."""
        got = self._take_run([it.width_m for it in items])
        if got is None:
            return None
        self.lines_used.add(self.cells[got[0][0]].line)
        first = self.hall.first_cell
        return [Spot(it, self.hall.no, cell=c - first, u=u) for it, (c, u) in zip(items, got, strict=True)]

    def put(self, item: RackItem) -> Spot | None:
        for i, slot in enumerate(self.user_free):
            if slot.template == item.template:
                del self.user_free[i]
                return Spot(item, self.hall.no, user=slot)
        got = self._take(item.width_m)
        if got is None:
            return None
        self.lines_used.add(self.cells[got[0]].line)
        return Spot(item, self.hall.no, cell=got[0] - self.hall.first_cell, u=got[1])

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
        if self.count.get(c, 0) + len(widths) > self.limit:
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

    def put_block(self, items: list[RackItem], whole: bool = True) -> list[Spot] | None:
        """Place a block's racks in order, keeping it in one row when it fits a fresh row.

        ``whole``: all or nothing (None and the cursor unchanged if it does not fit); otherwise place
        what fits and return those spots.
        """
        before = self.state()
        widths = [it.width_m for it in items]
        if not self.fits_in_cell(widths):
            # the next of the few cells ahead that holds the whole block (a row that ends at a column
            # may be too short for an SU), else from the cursor as it was
            s = self.state()
            self.next_cell()
            for _ in range(LOOK_AHEAD_CELLS):
                if self.k >= len(self.order) or self.fits_in_cell(widths):
                    break
                self.k, self.iv, self.u = self.k + 1, 0, -math.inf
            if not self.fits_in_cell(widths):
                self.restore(s, [])
        here = self._block_here(items, widths)
        if here is not None:
            return here
        spots: list[Spot] = []
        for unit in _runs(items):
            got = [self.put(unit[0])] if len(unit) == 1 else self.put_run(unit)
            if got is None or got[0] is None:
                if whole:
                    self.restore(before, spots)
                    return None
                continue
            spots += [sp for sp in got if sp is not None]
        return spots

    def _block_here(self, items: list[RackItem], widths: list[float]) -> list[Spot] | None:
        """The block's racks one after the other from the cursor in its current free interval, when
        they all fit there and none of them takes a user-row slot: the spots the rack by rack laying
        below gives in that case (the same sums, in the same order), without its per-rack search; None
        (the cursor unchanged) when they do not."""
        if self.k >= len(self.order) or not items:
            return None
        if self.user_free:
            tpls = {slot.template for slot in self.user_free}
            if any(it.template in tpls for it in items):
                return None
        c = self.order[self.k]
        free = self.free_of(c)
        n = self.count.get(c, 0) + len(items)
        if self.iv >= len(free) or n > self.limit:
            return None
        a, b = free[self.iv]
        u = max(self.u, a)
        limit = b + EPS
        at = []
        i = 0
        while i < len(items):
            j = i + 1  # a run: the item and those joined to it
            while j < len(items) and items[j].joined:
                j += 1
            if j - i == 1:
                if u + widths[i] > limit:
                    return None
            elif u + sum(widths[i:j]) > limit:
                return None
            for w in widths[i:j]:
                at.append(u)
                u += w
            i = j
        self.u = u
        self.last_line = line = self.cells[c].line
        self.count[c] = n
        self.lines_used.add(line)
        no, local = self.hall.no, c - self.hall.first_cell
        return [Spot(it, no, cell=local, u=x) for it, x in zip(items, at, strict=True)]


def _runs(items: list[RackItem]) -> list[list[RackItem]]:
    """The items in runs: each starts a new run unless it is ``joined`` to the one before."""
    runs: list[list[RackItem]] = []
    for it in items:
        if it.joined and runs:
            runs[-1].append(it)
        else:
            runs.append([it])
    return runs


def start_line(hall: HallPlan, cells: list[Cell], lines: int) -> int:
    """The first of the ``lines`` row lines the zone's racks go to: of the runs of that many lines with
    nearly the most free length (within ``ROOMY``: the larger part of an L-shaped or partly blocked hall
    first), the one nearest the middle of the hall (a rectangular hall: its middle lines)."""
    n = len(hall.line_cells)
    if lines <= 0 or lines >= n:
        return max(0, (n - lines) // 2)
    free = np.array([sum(b - a for c in ids for a, b in cells[c].free) for ids in hall.line_cells], float)
    window = np.convolve(free, np.ones(lines), mode="valid")  # per start: the free length of its lines
    middle = (n - lines) // 2
    starts = np.arange(len(window))
    roomy = starts[window >= ROOMY * window.max() - EPS]
    return int(roomy[np.argmin(np.abs(roomy - middle))])


def cell_order(hall: HallPlan, start: int) -> list[int]:
    """Cells line by line from ``start`` up, then from ``start - 1`` down; serpentine along the lines."""
    n = len(hall.line_cells)
    lines = list(range(start, n)) + list(range(start - 1, -1, -1))
    out: list[int] = []
    for j, li in enumerate(lines):
        ids = hall.line_cells[li] if j % 2 == 0 else hall.line_cells[li][::-1]
        out += ids
    return out


def floor_positions(inputs: Inputs, width_m: float) -> dict[str, int]:
    """How many racks ``width_m`` wide the placer's rows hold in each hall (``B1/H1``): the same wall
    clearance, aisles, columns, keep-outs, user rows, ``max_row_racks`` and ``fibre_positions`` as
    :func:`place`, with cross aisles every ``max_row_racks`` narrowest racks."""
    halls, cells = build_halls(inputs, gpu_racks(inputs), network_templates(inputs), {})
    out = {h.key: 0 for h in halls}
    for i, c in enumerate(cells):
        h = halls[c.hall]
        free = FloorCursor(h, cells, []).free_of(i) if h.reserve_m > 0 else c.free
        n = sum(int((b - a + EPS) // width_m) for a, b in free)
        out[h.key] += min(n, h.model.max_row_racks)
    return out
