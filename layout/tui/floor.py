"""What the hall map draws, as arrays: one hall's outline, columns, keep-outs, user rows, racks and trays,
rasterised to terminal cells at a given scale. No Textual here, so it is cheap to test.

A terminal cell is about twice as tall as it is wide, so one column is ``m_per_col`` metres and one
line ``2 * m_per_col`` metres: the map keeps the floor's proportions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import shapely
from shapely.geometry import Polygon

from layout.load import Inputs
from layout.scene import palette

if TYPE_CHECKING:
    from layout.tui.results import Result

# cell codes
OUTSIDE, FLOOR, COLUMN, KEEPOUT, TRAY, USER_ROW, CABINET = 0, 1, 2, 3, 4, 5, 6
RACK = 10  # RACK + index into RACK_KINDS (colour by kind) or into palette.FILLS (the drawings' colours)
USER_RACK = 70  # the same for a rack of a user row ([[row]]): drawn with its own glyph
WALL = 40  # WALL + which of its north, east, south, west neighbours are wall too (1, 2, 4, 8): the outline
# the trace overlay (see trace_overlay): the traced rack, the racks its cables reach, and the route cells,
# TRACE + 2 x media class (layout.tui.trace.TRACE_CLASSES) + 1 where the piece runs north-south
NO_TRACE, TRACE_NEAR, TRACE_FAR, TRACE = -1, 98, 99, 100
RACK_KINDS = palette.RACK_KINDS
ASPECT = 2.0  # a terminal line is this many columns tall


@dataclass(frozen=True)
class UserRowBox:
    index: int  # position in the site file's [[row]] list
    template: str  # its racks' template (the first rack's when they differ: see templates)
    racks: int
    axis: str
    x0: float
    y0: float
    x1: float
    y1: float

    templates: tuple[str, ...] = ()  # each rack's, along the axis, when the row gives them one by one

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def what(self) -> str:
        """Its racks: "8 × dgx-h100-x4", or per template when they differ."""
        if not self.templates or len(set(self.templates)) == 1:
            return f"{self.racks} × {self.template}"
        counts: dict[str, int] = {}
        for t in self.templates:
            counts[t] = counts.get(t, 0) + 1
        return f"{self.racks} racks: " + ", ".join(f"{n} × {t}" for t, n in counts.items())


@dataclass
class HallFloor:
    """One hall, in site metres."""

    key: str  # B1/H1
    polygon: Polygon
    columns: list[tuple[float, float, float, float]]  # x0, y0, x1, y1
    keepouts: list[tuple[Polygon, str]]
    user_rows: list[UserRowBox]
    max_rack_kw: float
    # this hall's racks: rack_no (row of placement.racks), kind, power_kw, footprint box x0, y0, x1, y1
    # and, from a scene, limit_kw and fill_no (palette.FILLS)
    racks: pd.DataFrame = field(default_factory=pd.DataFrame)
    trays: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))  # x0, y0, x1, y1 per tray segment
    # this hall's placed rows (the scene's: row, label, axis, x0_m, y0_m, x1_m, y1_m, front_sign) and it_kw
    rows: pd.DataFrame = field(default_factory=pd.DataFrame)
    # the cable plant's fibre cabinets standing in this hall: x0, y0, x1, y1 per cabinet (the scene's),
    # and each one's id (B1/H1/R25/K01/FC02: its panel location and number)
    cabinets: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    cabinet_ids: tuple[str, ...] = ()

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = self.polygon.bounds
        return float(x0), float(y0), float(x1), float(y1)

    def user_row_at(self, x: float, y: float) -> UserRowBox | None:
        for r in self.user_rows:
            if r.contains(x, y):
                return r
        return None

    def keepout_at(self, x: float, y: float) -> str | None:
        for poly, reason in self.keepouts:
            if poly.covers(shapely.Point(x, y)):
                return reason or "keep-out"
        return None

    def cabinet_at(self, x: float, y: float, reach_m: float = 0.0) -> str | None:
        """The id of the fibre cabinet at (x, y) or within ``reach_m`` of it (a map cell's half size: the
        map marks every cell a cabinet overlaps), the nearest one first; None where none is."""
        if not len(self.cabinets):
            return None
        c = self.cabinets
        dx = np.maximum(np.maximum(c[:, 0] - x, x - c[:, 2]), 0.0)
        dy = np.maximum(np.maximum(c[:, 1] - y, y - c[:, 3]), 0.0)
        d = np.hypot(dx, dy)
        i = int(np.argmin(d))
        return self.cabinet_ids[i] if d[i] <= reach_m + 1e-9 else None

    def column_at(self, x: float, y: float) -> bool:
        return any(c[0] <= x <= c[2] and c[1] <= y <= c[3] for c in self.columns)


def user_row_box(
    index: int,
    hall: str,
    origin: tuple[float, float],
    axis: str,
    racks: int,
    width_m: float | list[float],
    depth_m: float,
    template: str,
    templates: tuple[str, ...] = (),
) -> UserRowBox:
    """The footprint of a ``[[row]]``: ``origin`` is its corner of smallest x and y, racks side by side
    along ``axis`` (``width_m``: one width for every rack, or each rack's), ``depth_m`` (the deepest
    rack's) across it."""
    length = sum(width_m) if isinstance(width_m, list) else racks * width_m
    dx, dy = (length, depth_m) if axis == "x" else (depth_m, length)
    return UserRowBox(
        index, template, racks, axis, origin[0], origin[1], origin[0] + dx, origin[1] + dy, templates
    )


def hall_floors(inputs: Inputs, result: Result | None = None) -> dict[str, HallFloor]:
    """Every hall of the site, keyed ``B1/H1``: geometry and user rows from the inputs; racks (with their
    kW and footprint box) and tray segments from a design result, if there is one."""
    out: dict[str, HallFloor] = {}
    for b in inputs.site.building:
        for h in b.hall:
            key = f"{b.id}/{h.id}"
            cols = [
                (
                    c.at[0] - c.size_m[0] / 2,
                    c.at[1] - c.size_m[1] / 2,
                    c.at[0] + c.size_m[0] / 2,
                    c.at[1] + c.size_m[1] / 2,
                )
                for c in h.columns
            ]
            kos = [(Polygon(k.polygon), k.reason) for k in h.keepouts]
            out[key] = HallFloor(key, Polygon(h.polygon), cols, kos, [], h.max_rack_kw)
    for i, r in enumerate(inputs.site.row):
        ids = r.rack_templates()
        tpls = [inputs.templates[t] for t in ids]
        depth = max(t.depth_m for t in tpls)
        each = tuple(ids) if r.templates is not None else ()
        out[r.hall].user_rows.append(
            user_row_box(i, r.hall, r.origin, r.axis, r.racks, [t.width_m for t in tpls], depth, ids[0], each)
        )
    if result is not None:
        _add_design(out, result)
    return out


def floor_plan(inputs: Inputs) -> tuple[object, ...]:
    """What hall_floors takes from the inputs for the drawing (halls' outlines, columns, keep-outs, user
    rows): equal for two inputs whose maps look the same before a design is placed on them."""
    halls = tuple((b.id, h.id, h.polygon, h.columns, h.keepouts) for b, h in inputs.site.halls())
    return halls, tuple(inputs.site.row)


def with_design_of(floors: dict[str, HallFloor], earlier: dict[str, HallFloor]) -> dict[str, HallFloor]:
    """``floors`` (of edited inputs) with the racks and trays of an earlier design's floors, hall by hall:
    what the map shows while the design of the edit runs, without recomputing any rack geometry."""
    for key, floor in floors.items():
        if key in earlier:
            e = earlier[key]
            floor.racks, floor.trays, floor.rows = e.racks, e.trays, e.rows
            floor.cabinets, floor.cabinet_ids = e.cabinets, e.cabinet_ids
    return floors


def _add_design(floors: dict[str, HallFloor], result: Result) -> None:
    """Each hall's racks and tray segments from the design's scene (layout.scene)."""
    scene = result.scene
    racks = scene.racks
    if len(racks):
        names = {"x0_m": "x0", "y0_m": "y0", "x1_m": "x1", "y1_m": "y1"}
        cols = ["rack_no", "kind", "power_kw", "limit_kw", "fill_no", "user_row", *names]
        arrays = {names.get(c, c): _column(racks[c]) for c in cols}
        for key, idx in scene.hall_racks.items():
            if key in floors:
                floors[key].racks = _taken(arrays, idx)
    rows = scene.rows
    if len(rows):
        kw = dict(zip(*(result.design.power.rows[c].tolist() for c in ("row", "it_kw")), strict=True))
        arrays = {
            c: _column(rows[c])
            for c in ("row", "label", "axis", "x0_m", "y0_m", "x1_m", "y1_m", "front_sign")
        }
        it_kw = np.array([kw.get(r, np.nan) for r in rows["row"].tolist()], float)
        arrays["it_kw"] = np.where(np.isnan(it_kw), 0.0, it_kw)  # a row without power figures: 0 kW
        for hall, at in rows.groupby("hall", sort=False).indices.items():
            if str(hall) in floors:
                floors[str(hall)].rows = _taken(arrays, np.asarray(at))
    cab = scene.cabinet_boxes
    if len(cab):
        boxes = cab[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy(float)
        ids = cab["cabinet_id"].astype(str).to_numpy(object)
        for hall, at in cab.groupby("hall", sort=False).indices.items():
            if str(hall) in floors:
                floors[str(hall)].cabinets = boxes[np.asarray(at)]
                floors[str(hall)].cabinet_ids = tuple(ids[np.asarray(at)].tolist())
    edges = scene.tray_edges
    if edges is not None and len(edges):
        seg = edges[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy(float)
        for hall, at in edges.groupby("hall", sort=False).indices.items():
            if str(hall) in floors:
                floors[str(hall)].trays = seg[np.asarray(at)]


def _column(series: pd.Series) -> Any:
    """A column's values as numpy (numbers, objects) or as its own array (text: no conversion)."""
    return series.to_numpy() if isinstance(series.dtype, np.dtype) else series.array


def _taken(arrays: dict[str, Any], idx: np.ndarray) -> pd.DataFrame:
    """The rows ``idx`` of the columns ``arrays``, as a frame numbered from 0 (one take per column), each
    column of its own dtype (an object column stays objects: no inference of text)."""
    return pd.DataFrame(
        {
            c: pd.Series(a.take(idx), dtype=object, copy=False) if a.dtype == object else a.take(idx)
            for c, a in arrays.items()
        },
        copy=False,
    )


# ------------------------------------------------------------------------------------------- raster
@dataclass(frozen=True)
class Grid:
    """Cell (col, line) of a hall raster <-> site metres. Line 0 is the north edge (largest y)."""

    x0: float
    y1: float
    m_per_col: float
    cols: int
    lines: int

    @property
    def m_per_line(self) -> float:
        return self.m_per_col * ASPECT

    @classmethod
    def for_hall(cls, floor: HallFloor, m_per_col: float) -> Grid:
        x0, y0, x1, y1 = floor.bounds
        cols = int(np.ceil((x1 - x0) / m_per_col)) + 1
        lines = int(np.ceil((y1 - y0) / (m_per_col * ASPECT))) + 1
        return cls(x0, y1, m_per_col, cols, lines)

    def centre(self, col: int, line: int) -> tuple[float, float]:
        return self.x0 + (col + 0.5) * self.m_per_col, self.y1 - (line + 0.5) * self.m_per_line

    def cell(self, x: float, y: float) -> tuple[int, int]:
        col = int(np.floor((x - self.x0) / self.m_per_col))
        line = int(np.floor((self.y1 - y) / self.m_per_line))
        return min(max(col, 0), self.cols - 1), min(max(line, 0), self.lines - 1)

    def span(self, lo: np.ndarray, hi: np.ndarray, axis: str) -> tuple[np.ndarray, np.ndarray]:
        """Cells whose centres fall in [lo, hi] along x (cols) or y (lines); at least the cell of the middle."""
        if axis == "x":
            a = np.ceil((lo - self.x0) / self.m_per_col - 0.5)
            b = np.floor((hi - self.x0) / self.m_per_col - 0.5)
            mid = np.floor(((lo + hi) / 2 - self.x0) / self.m_per_col)
        else:
            a = np.ceil((self.y1 - hi) / self.m_per_line - 0.5)
            b = np.floor((self.y1 - lo) / self.m_per_line - 0.5)
            mid = np.floor((self.y1 - (lo + hi) / 2) / self.m_per_line)
        empty = b < a
        a = np.where(empty, mid, a)
        b = np.where(empty, mid, b)
        return a.astype(np.int64), b.astype(np.int64)


def rack_codes(racks: pd.DataFrame, by: str, max_rack_kw: float) -> np.ndarray:
    """The cell code of each rack: by ``kind``, or by ``kw``: the drawings' fill (palette.fill_index: GPU
    racks by kW band against their limit, the hall's unless the table has ``limit_kw``, other kinds by
    kind), so the map's kW view and the PDF and SVG plans colour every rack alike."""
    if by == "kw" and "power_kw" in racks:
        if "fill_no" in racks:
            return RACK + racks["fill_no"].to_numpy(np.int64)
        kw = racks["power_kw"].to_numpy(float)
        limit = racks["limit_kw"].to_numpy(float) if "limit_kw" in racks else np.full(len(kw), max_rack_kw)
        return RACK + palette.fill_index(
            racks["kind"].to_numpy(), palette.kw_band(palette.use(kw, limit)), kw
        )
    kinds = {k: i for i, k in enumerate(RACK_KINDS)}
    return RACK + racks["kind"].map(kinds).fillna(0).to_numpy(np.int64)


def rasterise(floor: HallFloor, grid: Grid, by: str = "kind") -> tuple[np.ndarray, np.ndarray]:
    """(codes, rack) arrays of shape (lines, cols): what each cell shows, and which rack (row number in
    ``placement.racks``, -1 for none) it shows. Where several racks share a cell, the most loaded (by kW) or
    the last one wins."""
    cols = np.arange(grid.cols)
    lines = np.arange(grid.lines)
    cx = grid.x0 + (cols + 0.5) * grid.m_per_col
    cy = grid.y1 - (lines + 0.5) * grid.m_per_line
    xx, yy = np.meshgrid(cx, cy)
    codes = np.where(shapely.contains_xy(floor.polygon, xx, yy), FLOOR, OUTSIDE).astype(np.int16)
    rack = np.full(codes.shape, -1, dtype=np.int64)

    def fill(
        x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray, values: np.ndarray, target: np.ndarray
    ) -> None:
        c0, c1 = grid.span(x0, x1, "x")
        l0, l1 = grid.span(y0, y1, "y")
        c0, l0 = np.clip(c0, 0, grid.cols - 1), np.clip(l0, 0, grid.lines - 1)
        c1, l1 = np.clip(c1, 0, grid.cols - 1), np.clip(l1, 0, grid.lines - 1)
        for i in range(len(values)):
            target[l0[i] : l1[i] + 1, c0[i] : c1[i] + 1] = values[i]

    for poly, _ in floor.keepouts:
        codes[shapely.contains_xy(poly, xx, yy) & (codes == FLOOR)] = KEEPOUT
    if len(floor.trays):
        _draw_segments(codes, grid, floor.trays)
    if floor.user_rows:
        ur = np.array([(r.x0, r.y0, r.x1, r.y1) for r in floor.user_rows])
        fill(ur[:, 0], ur[:, 1], ur[:, 2], ur[:, 3], np.full(len(ur), USER_ROW), codes)
    if len(floor.racks):
        order = np.arange(len(floor.racks))
        if "power_kw" in floor.racks:
            order = np.argsort(floor.racks["power_kw"].to_numpy(float), kind="stable")
        r = floor.racks.iloc[order]
        x0, y0, x1, y1 = (r[c].to_numpy(float) for c in ("x0", "y0", "x1", "y1"))
        rc = rack_codes(r, by, floor.max_rack_kw)
        if "user_row" in r:  # a user row's racks keep their colour, with the user-row glyph
            rc = np.where(r["user_row"].to_numpy(bool), rc + (USER_RACK - RACK), rc)
        fill(x0, y0, x1, y1, rc, codes)
        fill(x0, y0, x1, y1, r["rack_no"].to_numpy(np.int64), rack)
    if len(floor.cabinets):  # on free rack positions; a cell it shares with a rack shows the cabinet,
        cb = floor.cabinets  # and so inspects no rack (what the cell shows is what the cursor finds)
        fill(cb[:, 0], cb[:, 1], cb[:, 2], cb[:, 3], np.full(len(cb), CABINET), codes)
        fill(cb[:, 0], cb[:, 1], cb[:, 2], cb[:, 3], np.full(len(cb), -1), rack)
    if floor.columns:
        c = np.array(floor.columns)
        fill(c[:, 0], c[:, 1], c[:, 2], c[:, 3], np.full(len(c), COLUMN), codes)
    return codes, rack


def segment_cells(grid: Grid, seg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(line, col, segment) of the cells that segments (x0, y0, x1, y1 per row) pass over, inside the
    grid: points every half column along each segment."""
    if not len(seg):
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    steps = np.maximum(1, np.ceil(length / (grid.m_per_col / 2)).astype(np.int64))
    idx = np.repeat(np.arange(len(seg)), steps + 1)
    t = np.concatenate([np.linspace(0.0, 1.0, s + 1) for s in steps])
    x = seg[idx, 0] + t * (seg[idx, 2] - seg[idx, 0])
    y = seg[idx, 1] + t * (seg[idx, 3] - seg[idx, 1])
    col = np.floor((x - grid.x0) / grid.m_per_col).astype(np.int64)
    line = np.floor((grid.y1 - y) / grid.m_per_line).astype(np.int64)
    ok = (col >= 0) & (col < grid.cols) & (line >= 0) & (line < grid.lines)
    return line[ok], col[ok], idx[ok]


def _draw_segments(codes: np.ndarray, grid: Grid, seg: np.ndarray) -> None:
    """Mark the floor cells that tray segments (x0, y0, x1, y1) pass over."""
    line, col, _ = segment_cells(grid, seg)
    on_floor = codes[line, col] == FLOOR
    codes[line[on_floor], col[on_floor]] = TRAY


def with_outline(codes: np.ndarray) -> np.ndarray:
    """``codes`` with the hall's outline drawn: each bare floor cell on the edge of the hall (a neighbour
    outside it, or the edge of the raster) becomes WALL plus which of its four neighbours are wall too,
    so the walls read as box lines without colour. Racks, columns, keep-outs and trays stay as they are."""
    inside = codes != OUTSIDE
    padded = np.pad(inside, 1, constant_values=False)
    edge = inside & ~(padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:])
    wall = np.pad(edge, 1, constant_values=False)
    mask = (
        wall[:-2, 1:-1].astype(np.int16)  # north
        + 2 * wall[1:-1, 2:]  # east
        + 4 * wall[2:, 1:-1]  # south
        + 8 * wall[1:-1, :-2]  # west
    )
    out = codes.copy()
    bare = edge & (codes == FLOOR)
    out[bare] = WALL + mask[bare]
    return out


def row_labels(
    rows: pd.DataFrame, grid: Grid, codes: np.ndarray, with_kw: bool = False
) -> list[tuple[int, int, str]]:
    """(line, col, text) of each row's label (``R03``; with ``with_kw`` also its IT kW, ``R03 412kW``)
    where it fits on bare floor, outside or tray cells next to the row: before its west (or north) end,
    else along its front, else behind it; a label that fits nowhere (or only over another) is left out."""
    free = np.isin(codes, (OUTSIDE, FLOOR, TRAY))
    out: list[tuple[int, int, str]] = []
    if not len(rows):
        return out
    for r in rows.to_dict("records"):
        texts = [str(r["label"])]
        if with_kw:
            texts.insert(0, f"{r['label']} {float(r['it_kw']):,.0f}kW")
        c0, l0 = grid.cell(float(r["x0_m"]), float(r["y0_m"]))
        c1, l1 = grid.cell(float(r["x1_m"]), float(r["y1_m"]))
        c0, c1, l0, l1 = min(c0, c1), max(c0, c1), min(l0, l1), max(l0, l1)
        faces = int(r["front_sign"]) > 0  # x rows: the fronts face north (+y); y rows: east (+x)
        for text in texts:
            n = len(text)
            if r["axis"] == "x":
                front = l0 - 1 if faces else l0 + 1
                spots = [(l0, c0 - n - 1), (front, c0), (2 * l0 - front, c0)]
            else:
                mid, beside = (c0 + c1) // 2 - n // 2, c1 + 2 if faces else c0 - n - 1
                spots = [(l0 - 1, mid), (l1 + 1, mid), ((l0 + l1) // 2, beside)]
            spot = next(
                (
                    (line, col)
                    for line, col in spots
                    if 0 <= line < grid.lines
                    and col >= 0
                    and col + n <= grid.cols
                    and free[line, col : col + n].all()
                ),
                None,
            )
            if spot is not None:
                out.append((spot[0], spot[1], text))
                free[spot[0], max(spot[1] - 1, 0) : spot[1] + n + 1] = False  # a space between two labels
                break
    return out


def trace_overlay(
    grid: Grid, segments: np.ndarray, cls: np.ndarray, near: np.ndarray, far: np.ndarray
) -> np.ndarray:
    """What a trace adds to a hall raster ((lines, cols), NO_TRACE elsewhere): each route piece
    (x0, y0, x1, y1 per row of ``segments``, media class ``cls``) over the cells it crosses, then the
    footprints (x0, y0, x1, y1 per row) of the racks its cables reach (``far``) and of the traced rack
    (``near``) on top: marked whole, even where a cell also holds a neighbour the map shows instead."""
    out = np.full((grid.lines, grid.cols), NO_TRACE, dtype=np.int16)
    if len(segments):
        order = np.argsort(cls, kind="stable")  # a cell crossed by several media shows the last class
        seg, c = segments[order], cls[order]
        line, col, si = segment_cells(grid, seg)
        upright = (
            np.abs(seg[:, 3] - seg[:, 1]) / grid.m_per_line > np.abs(seg[:, 2] - seg[:, 0]) / grid.m_per_col
        )
        out[line, col] = TRACE + 2 * c[si] + upright[si]
    for boxes, code in ((far, TRACE_FAR), (near, TRACE_NEAR)):
        if len(boxes):
            c0, c1 = grid.span(boxes[:, 0], boxes[:, 2], "x")
            l0, l1 = grid.span(boxes[:, 1], boxes[:, 3], "y")
            c0, c1 = np.clip(c0, 0, grid.cols - 1), np.clip(c1, 0, grid.cols - 1)
            l0, l1 = np.clip(l0, 0, grid.lines - 1), np.clip(l1, 0, grid.lines - 1)
            for i in range(len(boxes)):
                out[l0[i] : l1[i] + 1, c0[i] : c1[i] + 1] = code
    return out
