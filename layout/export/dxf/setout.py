"""What a contractor sets the hall out from, on the hall sheets: the column grid (a line through the column
centres each way, a bubble at one end: 1, 2, 3 west to east, A, B, C south to north) with dimensions
between grid lines, the setting-out of every row (its start point, the first rack's edge on the row's
centre line, dimensioned along x and y from the hall's reference corner, and its length), and for a hall
that is not a rectangle one dimension per wall.

Everything is a real DIMENSION (rendered, so any CAD program shows it) on a hall-only layer. Rings of
annotation outside the walls, in paper millimetres from the wall: the rows' setting-out chains (west
and south) and the grid dimensions (north and east) at ``RING_MM``, the overall hall dimensions at
``HALL_DIM_MM`` (:func:`layout.export.dxf.model._hall_dims`), the grid bubbles at ``BUBBLE_MM``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
from ezdxf.document import Drawing
from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import BaseLayout

from layout.export.dxf.annotate import note
from layout.export.dxf.fastpath import RawEntities, render_dimension
from layout.export.dxf.layers import DIMSTYLE_MM, MM_PER_M, dimstyle
from layout.export.labels import Board, text_width
from layout.model.site import Hall

GRID_LAYER = "S-GRID"
SETOUT_LAYER = "G-ANNO-SETO"
RING_MM = 3.0  # the rows' setting-out chains (west and south), off the wall on paper
GRID_DIM_MM = 11.0  # grid dimensions (north and east): past the hall's name and overall dimensions
BUBBLE_MM = 17.0  # grid bubble centres off the wall
BUBBLE_R_MM = 3.5
GRID_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O (read as 1 and 0)


def grid_letter(n: int) -> str:
    """A, B, ... Z (no I, O), then AA, AB, ..."""
    k = len(GRID_LETTERS)
    return GRID_LETTERS[n] if n < k else grid_letter(n // k - 1) + GRID_LETTERS[n % k]


@dataclass(frozen=True)
class Grid:
    """A hall's column grid: the x of each numbered line (1, 2, ...) and the y of each lettered one."""

    xs: tuple[float, ...]
    ys: tuple[float, ...]

    def labels(self) -> list[tuple[str, str, float]]:
        """(axis, label, position m): "x" lines are numbered, "y" lines lettered."""
        return [("x", str(i + 1), x) for i, x in enumerate(self.xs)] + [
            ("y", grid_letter(i), y) for i, y in enumerate(self.ys)
        ]


def column_grid(hall: Hall) -> Grid:
    """Grid lines through the column centres: the distinct x and y (to the millimetre), in order."""
    xs = sorted({round(c.at[0], 3) for c in hall.columns})
    ys = sorted({round(c.at[1], 3) for c in hall.columns})
    return Grid(tuple(xs), tuple(ys))


def reference_corner(hall: Hall) -> tuple[float, float]:
    """The hall's setting-out datum: the south-west corner of its walls' box (metres)."""
    return (min(p[0] for p in hall.polygon), min(p[1] for p in hall.polygon))


def is_rectangle(polygon: Sequence[tuple[float, float]]) -> bool:
    """Four corners, walls along x and y: the overall width and depth say it all."""
    if len(polygon) != 4:
        return False
    xs = {round(p[0], 6) for p in polygon}
    ys = {round(p[1], 6) for p in polygon}
    return len(xs) == 2 and len(ys) == 2


def setting_out(rows: pd.DataFrame, hall: Hall) -> pd.DataFrame:
    """Per row of ``hall`` (the placement's rows table, this hall's rows): ``row, axis``, the reference
    it is set out from, ``ref_x_m, ref_y_m``: across the rows the reference corner's wall, along them
    the nearest column grid line at or before the row's start (else the corner's wall); ``dx_m, dy_m``:
    the start (``x0_m, y0_m``) from that reference; ``length_m``: along the row."""
    rx, ry = reference_corner(hall)
    grid = column_grid(hall)
    out = pd.DataFrame({"row": rows["row"].astype(str), "axis": rows["axis"].astype(str)})
    x0 = rows["x0_m"].to_numpy(float)
    y0 = rows["y0_m"].to_numpy(float)
    along_x = out["axis"].to_numpy() == "x"

    def before(v: float, lines: tuple[float, ...], wall: float) -> float:
        return max([wall, *(g for g in lines if g <= v + 1e-6)])

    out["ref_x_m"] = [before(x, grid.xs, rx) if a else rx for a, x in zip(along_x, x0, strict=True)]
    out["ref_y_m"] = [ry if a else before(y, grid.ys, ry) for a, y in zip(along_x, y0, strict=True)]
    out["dx_m"] = x0 - out["ref_x_m"].to_numpy(float)
    out["dy_m"] = y0 - out["ref_y_m"].to_numpy(float)
    span_x = rows["x1_m"].to_numpy(float) - x0
    span_y = rows["y1_m"].to_numpy(float) - y0
    out["length_m"] = [sx if a else sy for a, sx, sy in zip(along_x, span_x, span_y, strict=True)]
    return out.reset_index(drop=True)


def take_dim_text(board: Board, at: tuple[float, float], value_mm: float, text_h: float) -> None:
    """Take on ``board`` the box of a dimension's text (horizontal, centred at ``at``)."""
    w = text_width(f"{round(value_mm)}", text_h)
    board.take((at[0] - w / 2, at[1] - 0.6 * text_h, at[0] + w / 2, at[1] + 0.6 * text_h))


def draw_grid(
    msp: BaseLayout,
    doc: Drawing,
    hall: Hall,
    scale: int,
    board: Board,
    others: Sequence[tuple[float, float, float, float]] = (),
    raw: RawEntities | None = None,
) -> int:
    """The hall's column grid: lines, bubbles (north and east ends, or south and west where another
    hall of ``others``, boxes in metres, stands there) and the dimensions between neighbouring lines,
    on the bubbles' side next to the wall. Returns the number of bubbles."""
    grid = column_grid(hall)
    if not grid.xs:
        return 0
    x0, y0 = (v * MM_PER_M for v in reference_corner(hall))
    x1 = max(p[0] for p in hall.polygon) * MM_PER_M
    y1 = max(p[1] for p in hall.polygon) * MM_PER_M
    over = 2.0 * scale  # the lines run past the walls by this
    off, r = BUBBLE_MM * scale, BUBBLE_R_MM * scale
    boxes = [tuple(v * MM_PER_M for v in o) for o in others]

    def clear(x: float, y: float) -> bool:
        return not any(b[0] - r <= x <= b[2] + r and b[1] - r <= y <= b[3] + r for b in boxes)

    north = all(clear(x * MM_PER_M, y1 + off) for x in grid.xs) or not all(
        clear(x * MM_PER_M, y0 - off) for x in grid.xs
    )
    east = all(clear(x1 + off, y * MM_PER_M) for y in grid.ys) or not all(
        clear(x0 - off, y * MM_PER_M) for y in grid.ys
    )
    ny, ex = (y1, 1.0) if north else (y0, -1.0), (x1, 1.0) if east else (x0, -1.0)
    line = {"layer": GRID_LAYER, "linetype": "CENTER"}
    for axis, label, at in grid.labels():
        v = at * MM_PER_M
        if axis == "x":
            wall, s = ny
            far = y0 if north else y1
            msp.add_line((v, far - s * over), (v, wall + s * (off - r)), dxfattribs=line)
            centre = (v, wall + s * off)
        else:
            wall, s = ex
            far = x0 if east else x1
            msp.add_line((far - s * over, v), (wall + s * (off - r), v), dxfattribs=line)
            centre = (wall + s * off, v)
        msp.add_circle(centre, r, dxfattribs={"layer": GRID_LAYER})
        note(msp, label, centre, 1.1 * r, GRID_LAYER, TextEntityAlignment.MIDDLE_CENTER, board=board, raw=raw)
    style = dimstyle(doc, scale)
    attrs = {"layer": "G-ANNO-DIMS"}
    ring = GRID_DIM_MM * scale
    text_h = DIMSTYLE_MM["dimtxt"] * scale
    wall, s = ny
    for a, b in zip(grid.xs, grid.xs[1:], strict=False):
        p1, p2 = (a * MM_PER_M, wall), (b * MM_PER_M, wall)
        dim = msp.add_linear_dim(
            base=(p1[0], wall + s * ring), p1=p1, p2=p2, dimstyle=style, dxfattribs=attrs
        )
        render_dimension(dim, raw)
        take_dim_text(board, ((p1[0] + p2[0]) / 2, wall + s * ring), p2[0] - p1[0], text_h)
    wall, s = ex
    for a, b in zip(grid.ys, grid.ys[1:], strict=False):
        p1, p2 = (wall, a * MM_PER_M), (wall, b * MM_PER_M)
        dim = msp.add_linear_dim(
            base=(wall + s * ring, p1[1]), p1=p1, p2=p2, angle=90, dimstyle=style, dxfattribs=attrs
        )
        render_dimension(dim, raw)
        take_dim_text(board, (wall + s * ring, (p1[1] + p2[1]) / 2), p2[1] - p1[1], text_h)
    return len(grid.xs) + len(grid.ys)


def draw_setting_out(
    msp: BaseLayout,
    doc: Drawing,
    hall: Hall,
    rows: pd.DataFrame,
    scale: int,
    board: Board,
    raw: RawEntities | None = None,
) -> int:
    """Three dimensions per row of the hall (``rows``: its rows from the rows table, with ``depth_m``
    and ``front_sign``), as :func:`setting_out` gives them: along the row's centre line from its
    reference (a grid line or the corner's wall) to its start; across the rows, on a chain outside the
    wall through the reference corner, from the corner to the row's centre line (the value beside the
    row's arrow; one for the rows in series on one line); and the row's length along its front face (else
    its rear), its text where ``board`` has room (taken,
    so the tray labels placed later keep clear). Returns the number of dimensions."""
    if rows.empty:
        return 0
    cx, cy = (v * MM_PER_M for v in reference_corner(hall))
    style = dimstyle(doc, scale)
    attrs = {"layer": SETOUT_LAYER}
    text_h = DIMSTYLE_MM["dimtxt"] * scale
    ring = RING_MM * scale
    count = 0
    sets = setting_out(rows, hall)
    depth = rows["depth_m"].to_numpy(float).tolist()
    sign = rows["front_sign"].to_numpy(float).tolist()
    ref_x, ref_y, dxs, dys, lengths = (
        sets[c].to_numpy(float).tolist() for c in ("ref_x_m", "ref_y_m", "dx_m", "dy_m", "length_m")
    )
    chained: set[int] = set()  # rows in series share their line's dimension on the chain
    fractions = (0.5, 0.25, 0.75, 0.1, 0.9)
    for k, axis in enumerate(sets["axis"].tolist()):
        along_x = axis == "x"

        def xy(along: float, across: float, _x: bool = along_x) -> tuple[float, float]:
            return (along, across) if _x else (across, along)

        def spot(cands: list[tuple[float, float]], w: float, _x: bool = along_x) -> tuple[float, float]:
            """The first of the text centres ``cands`` (along, across) with room, taken; else the first."""
            boxes = [(a - w / 2, c - 0.6 * text_h, a + w / 2, c + 0.6 * text_h) for a, c in cands]
            i = board.place(b if _x else (b[1], b[0], b[3], b[2]) for b in boxes)
            return cands[0 if i is None else i]

        rot = 0 if along_x else 90
        # in the row's frame: along it from the reference, across it from the corner
        ra, rc = (ref_x[k], ref_y[k]) if along_x else (ref_y[k], ref_x[k])
        d_along, d_across = (dxs[k], dys[k]) if along_x else (dys[k], dxs[k])
        ca, cc = (cx, cy) if along_x else (cy, cx)
        a0, c0 = ra * MM_PER_M, rc * MM_PER_M
        sa, sc = a0 + d_along * MM_PER_M, c0 + d_across * MM_PER_M
        length = lengths[k] * MM_PER_M
        face = depth[k] * MM_PER_M / 2.0  # a dimension along a face lies on the racks' outline
        gap = face + 0.8 * text_h  # its text's centre, beside it in the aisle
        back = -1.0 if sign[k] >= 0 else 1.0  # the rear face's side
        if d_along > 1e-6:  # reference to start: on the centre line, else along a face
            w = text_width(f"{round(sa - a0)}", text_h)
            # in the aisles beside the stretch first: past the row's end, on its centre line, is where
            # the busways are labelled (draw_power)
            cands = [(a0 + f * (sa - a0), sc + s * gap) for s in (back, -back) for f in fractions]
            cands += [(a0 + f * (sa - a0), sc + 0.7 * text_h) for f in fractions]
            # a short stretch (the wall's clearance): the text past the start, beside the row
            cands += [(sa + 0.5 * text_h + w / 2 + f * length, sc + s * gap)
                      for s in (-back, back) for f in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)]  # fmt: skip
            # rows that keep fibre positions at their start, beside crowded aisles: before the reference,
            # else further along the row
            cands += [(a0 - 0.5 * text_h - w / 2, sc + s * gap) for s in (back, -back)]
            cands += [(sa + 0.5 * text_h + w / 2 + f * length, sc + s * gap)
                      for s in (-back, back) for f in (0.75, 0.8, 0.85, 0.9)]  # fmt: skip
            # ... else deeper in the aisles beside the stretch
            cands += [(a0 + f * (sa - a0), sc + s * (gap + j * 1.3 * text_h))
                      for j in (1, 2) for s in (back, -back) for f in fractions]  # fmt: skip
            at = spot(cands, w)
            line = sc if abs(at[1] - sc) < 0.5 * gap else sc + (face if at[1] > sc else -face)
            dim = msp.add_linear_dim(base=xy(a0, line), p1=xy(a0, sc), p2=xy(sa, sc), angle=0 if along_x else 90,
                                     text_rotation=rot, dimstyle=style, dxfattribs=attrs)  # fmt: skip
            dim.set_location(xy(*at), leader=False)
            render_dimension(dim, raw)
            count += 1
        if d_across > 1e-6 and round(sc) not in chained:  # corner to the row's line, on the chain
            chained.add(round(sc))
            w = text_width(f"{round(sc - cc)}", text_h)
            if along_x:  # west of the chain, level with the row's arrow (or just above or below)
                tx = cx - ring - 0.5 * text_h - w / 2
                cands = [(tx, sc + j * 1.3 * text_h) for j in (0, 1, -1, 2, -2)]
            else:  # south of the chain, under the row's arrow (or just beside it)
                ty = cy - ring - 0.7 * text_h
                cands = [(sc + j * (w / 2 + 0.3 * text_h), ty) for j in (0, 1, -1, 2, -2)]
            boxes = [(x - w / 2, y - 0.6 * text_h, x + w / 2, y + 0.6 * text_h) for x, y in cands]
            i = board.place(boxes)
            at = cands[0 if i is None else i]
            corner = xy(ca, cc)
            dim = msp.add_linear_dim(base=xy(ca - ring, cc), p1=corner,
                                     p2=xy(ca, sc), angle=90 if along_x else 0, text_rotation=0,
                                     dimstyle=style, dxfattribs=attrs)  # fmt: skip
            dim.set_location(at, leader=False)
            render_dimension(dim, raw)
            count += 1
        w = text_width(f"{round(length)}", text_h)
        # the front (cold aisle) side first: the tray labels sit along the rear (hot aisle) side
        cands = [(sa + f * length, sc + s * gap) for s in (-back, back) for f in (0.5, 0.25, 0.75, 0.1, 0.9)]
        # a short row (one or two racks) beside crowded aisles: past its ends, else deeper in the aisles
        off = 0.5 * text_h + w / 2
        cands += [(a, sc + s * gap) for s in (-back, back) for a in (sa + length + off, sa - off)]
        cands += [(sa + f * length, sc + s * (gap + j * 1.3 * text_h))
                  for j in (1, 2) for s in (-back, back) for f in (0.5, 0.1, 0.9)]  # fmt: skip
        at = spot(cands, w)
        line = sc + (face if at[1] > sc else -face)
        dim = msp.add_linear_dim(base=xy(sa, line), p1=xy(sa, sc), p2=xy(sa + length, sc),
                                 angle=0 if along_x else 90, text_rotation=rot, dimstyle=style,
                                 dxfattribs=attrs)  # fmt: skip
        dim.set_location(xy(*at), leader=False)
        render_dimension(dim, raw)
        count += 1
    return count


def draw_edges(msp: BaseLayout, doc: Drawing, polygon: Sequence[tuple[float, float]], off_mm: float,
               scale: int, board: Board, raw: RawEntities | None = None) -> int:  # fmt: skip
    """One aligned dimension per wall of a hall that is not a rectangle, ``off_mm`` outside it (its
    text taken on ``board``)."""
    pts = [(x * MM_PER_M, y * MM_PER_M) for x, y in polygon]
    n = len(pts)
    area2 = sum(pts[i][0] * pts[(i + 1) % n][1] - pts[(i + 1) % n][0] * pts[i][1] for i in range(n))
    # counter-clockwise walls have the outside on their right: ezdxf's distance is to the left
    outward = -1.0 if area2 > 0 else 1.0
    style = dimstyle(doc, scale)
    count = 0
    for i in range(n):
        p, q = pts[i], pts[(i + 1) % n]
        if abs(p[0] - q[0]) + abs(p[1] - q[1]) < 1e-6:
            continue
        dim = msp.add_aligned_dim(p1=p, p2=q, distance=outward * off_mm, dimstyle=style,
                                  dxfattribs={"layer": "G-ANNO-DIMS"})  # fmt: skip
        render_dimension(dim, raw)
        length = math.hypot(q[0] - p[0], q[1] - p[1])
        nx, ny = -(q[1] - p[1]) / length, (q[0] - p[0]) / length  # the wall's left
        mid = ((p[0] + q[0]) / 2 + outward * off_mm * nx, (p[1] + q[1]) / 2 + outward * off_mm * ny)
        take_dim_text(board, mid, length, DIMSTYLE_MM["dimtxt"] * scale)
        count += 1
    return count
