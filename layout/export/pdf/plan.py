"""Floor plans: the campus and each hall as vector drawings painted straight into the page.

Self-contained: it knows nothing of a Design. It draws what it is given: rack boxes (PlanRacks), CDU
boxes (PlanCdus), row labels (PlanRow), tray segments (PlanTrays), hall and site outlines (HallOutline,
SiteOutline). Racks are filled as the scene says (layout.scene.palette: GPU racks by kW band, other
kinds by kind), and every other element takes the palette's colour for its kind, as in the DXF and the
SVG plans (each batch names it: ``Batch.role``). Numpy arrays become PDF path operators in bulk (Plan),
one path per style batch, which keeps a campus of thousands of racks quick to draw.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
)
from shapely.geometry import LineString, Polygon

from layout.export.labels import Board
from layout.export.pdf.formatting import safe_plain
from layout.export.pdf.theme import FONT, FONT_BOLD, FONT_ITALIC, FRAME_H, FRAME_W, INK, MUTED
from layout.scene import palette
from layout.scene.palette import COLOURS

# the palette's bands as (upper bound, label, colour)
KW_BANDS: tuple[tuple[float, str, colors.Color], ...] = tuple(
    (b.upper, b.label, colors.HexColor(b.colour)) for b in palette.BANDS
)
FILL_COLOURS = tuple(colors.HexColor(c) for c in palette.FILLS)
NETWORK_KINDS = palette.NETWORK_KINDS


def paint(name: str) -> colors.Color:
    """The palette's colour of an element kind (layout.scene.palette.COLOURS)."""
    return colors.HexColor(COLOURS[name].hex)


NETWORK_EDGE = paint("network_edge")
TRAY_COLOUR = paint("tray")  # trays, and dashed, the campus ducts
TRAY_FULL = paint("violation")
KEEPOUT_FILL = paint("keepout_ground")
KEEPOUT_EDGE = paint("keepout")
COLUMN_FILL = paint("column")
CDU_FILL = paint("cdu")
FIBRE_FILL = paint("fibre_cabinet")
BUILDING_FILL = paint("building")
HALL_FILL = paint("hall_floor")


kw_band = palette.kw_band  # band number (index into KW_BANDS) of each use ratio


def nice_length(target: float) -> float:
    """1, 2 or 5 x 10^k not above ``target`` (for scale bars)."""
    if target <= 0:
        return 1.0
    k = math.floor(math.log10(target))
    for m in (5, 2, 1):
        if m * 10**k <= target:
            return float(m * 10**k)
    return float(10**k)


def _pdf_colour(c: colors.Color | None, op: str) -> str:
    return "" if c is None else f"{c.red:.3f} {c.green:.3f} {c.blue:.3f} {op} "


def _pdf_text(s: str) -> str:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


@dataclass(frozen=True)
class Batch:
    """One bulk paint operation of a Plan: many shapes sharing one style.

    kind: ``rects`` (data columns x, y, w, h), ``lines`` (x0, y0, x1, y1), ``path`` (one polygon or
    polyline: x, y per vertex), ``text`` (x, y; ``labels`` holds the strings). ``role``: the element
    kind the batch draws (a name in the palette, or ``rack``), for tests; it is not painted."""

    kind: str
    data: np.ndarray
    fill: colors.Color | None = None
    stroke: colors.Color | None = None
    line_w: float = 0.0
    dash: tuple[float, ...] = ()
    closed: bool = True
    labels: tuple[str, ...] = ()
    font: str = FONT
    size: float = 6.0
    anchor: str = "start"
    role: str = ""


class Plan(Flowable):
    """A vector drawing painted straight into the page's content stream, one PDF path per style batch.

    reportlab.graphics builds one Python object per shape and renders each separately, which takes
    seconds for the thousands of racks of a campus. Here numpy arrays become PDF path operators in bulk;
    the batches stay inspectable (``batches``) for tests."""

    def __init__(self, width: float, height: float) -> None:
        super().__init__()
        self.width = width
        self.height = height
        self.batches: list[Batch] = []

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        return self.width, self.height

    def rects(
        self,
        x: Any,
        y: Any,
        w: Any,
        h: Any,
        fill: colors.Color | None,
        stroke: colors.Color | None = None,
        line_w: float = 0.0,
        role: str = "",
    ) -> None:
        data = np.column_stack(np.broadcast_arrays(*(np.asarray(v, float) for v in (x, y, w, h))))
        if len(data):
            self.batches.append(Batch("rects", data.reshape(-1, 4), fill, stroke, line_w, role=role))

    def lines(
        self, segs: Any, stroke: colors.Color, line_w: float, dash: tuple[float, ...] = (), role: str = ""
    ) -> None:
        data = np.asarray(segs, float).reshape(-1, 4)
        if len(data):
            self.batches.append(Batch("lines", data, None, stroke, line_w, dash, role=role))

    def path(
        self,
        pts: Sequence[tuple[float, float]],
        fill: colors.Color | None,
        stroke: colors.Color | None,
        line_w: float,
        closed: bool = True,
        dash: tuple[float, ...] = (),
        role: str = "",
    ) -> None:
        self.batches.append(
            Batch(
                "path", np.asarray(pts, float).reshape(-1, 2), fill, stroke, line_w, dash, closed, role=role
            )
        )

    def text(
        self,
        x: Any,
        y: Any,
        labels: Sequence[str],
        size: float,
        colour: colors.Color = INK,
        font: str = FONT,
        anchor: str = "start",
    ) -> None:
        data = np.column_stack(np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float)))
        if len(labels):
            self.batches.append(
                Batch(
                    "text",
                    data.reshape(-1, 2),
                    colour,
                    None,
                    0.0,
                    labels=tuple(safe_plain(t) for t in labels),
                    font=font,
                    size=size,
                    anchor=anchor,
                )
            )

    def draw(self) -> None:
        canv = self.canv
        for b in self.batches:
            canv.addLiteral(self._ops(b, canv))

    @staticmethod
    def _ops(b: Batch, canv: Canvas) -> str:
        head = "q " + _pdf_colour(b.fill, "rg") + _pdf_colour(b.stroke, "RG")
        if b.stroke is not None:
            head += f"{b.line_w:.2f} w " + (f"[{' '.join(f'{d:g}' for d in b.dash)}] 0 d " if b.dash else "")
        paint = "B" if b.fill is not None and b.stroke is not None else ("f" if b.fill is not None else "S")
        d = b.data
        if b.kind == "rects":
            body = "\n".join(f"{x:.2f} {y:.2f} {w:.2f} {h:.2f} re" for x, y, w, h in d.tolist())
            return f"{head}\n{body}\n{paint} Q"
        if b.kind == "lines":
            body = "\n".join(f"{a:.2f} {c:.2f} m {e:.2f} {f:.2f} l" for a, c, e, f in d.tolist())
            return f"{head}\n{body}\nS Q"
        if b.kind == "path":
            pts = d.tolist()
            body = f"{pts[0][0]:.2f} {pts[0][1]:.2f} m " + " ".join(f"{x:.2f} {y:.2f} l" for x, y in pts[1:])
            return f"{head}\n{body}{' h' if b.closed else ''}\n{paint if b.closed else 'S'} Q"
        # text
        fname = canv._doc.getInternalFontName(b.font)
        widths = {t: stringWidth(t, b.font, b.size) for t in set(b.labels)}
        shift = {"start": 0.0, "middle": 0.5, "end": 1.0}[b.anchor]
        body = "\n".join(
            f"1 0 0 1 {x - shift * widths[t]:.2f} {y:.2f} Tm ({_pdf_text(t)}) Tj"
            for (x, y), t in zip(d.tolist(), b.labels, strict=True)
        )
        return f"q BT {fname} {b.size:.2f} Tf {_pdf_colour(b.fill, 'rg')}\n{body}\nET Q"


@dataclass(frozen=True)
class PlanRacks:
    """Racks to draw: footprint centres and sizes (m), rotation, kind, fill (index into palette.FILLS, as
    the scene gives it), short label."""

    x_m: np.ndarray
    y_m: np.ndarray
    width_m: np.ndarray
    depth_m: np.ndarray
    rotation_deg: np.ndarray
    kind: np.ndarray
    fill_no: np.ndarray
    label: np.ndarray  # str per rack, e.g. position "07"


@dataclass(frozen=True)
class PlanRow:
    label: str  # "R03", or "R03 spine" for a network row
    x_m: float  # where the label goes: the row's west end (x rows) or south end (y rows)
    y_m: float
    axis: str
    spine: bool


@dataclass(frozen=True)
class PlanTrays:
    """Tray segments to draw (x0, y0, x1, y1 in m) and which of them are filled beyond their limit."""

    segments: np.ndarray
    over: np.ndarray  # bool per segment


NO_TRAYS = PlanTrays(np.zeros((0, 4)), np.zeros(0, bool))


@dataclass(frozen=True)
class PlanCdus:
    """CDUs to draw: footprint boxes (x0, y0, x1, y1 in m, as placed: turned ones already across) and
    short ids (CDU01)."""

    boxes: np.ndarray
    label: np.ndarray


NO_CDUS = PlanCdus(np.zeros((0, 4)), np.zeros(0, "<U1"))


class _Frame:
    """Maps site metres to drawing points inside a box, y up, equal scale."""

    def __init__(self, bounds: tuple[float, float, float, float], box: tuple[float, float, float, float]):
        x0, y0, x1, y1 = bounds
        bx, by, bw, bh = box
        self.scale = min(bw / max(x1 - x0, 1e-9), bh / max(y1 - y0, 1e-9))
        self.ox = bx + (bw - (x1 - x0) * self.scale) / 2 - x0 * self.scale
        self.oy = by + (bh - (y1 - y0) * self.scale) / 2 - y0 * self.scale

    def x(self, v: Any) -> Any:
        return self.ox + np.asarray(v, float) * self.scale

    def y(self, v: Any) -> Any:
        return self.oy + np.asarray(v, float) * self.scale

    def pts(self, ring: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(float(self.x(px)), float(self.y(py))) for px, py in ring]


LEGEND_H = 40.0


def _plan_canvas(
    bounds: tuple[float, float, float, float], width: float, height: float
) -> tuple[_Frame, Plan]:
    """The drawing for a plan of ``bounds`` (m), as tall as the plan needs (up to ``height``) plus the
    legend strip at the bottom, and the metre-to-point mapping into it."""
    dx, dy = bounds[2] - bounds[0], bounds[3] - bounds[1]
    scale = min(width / max(dx, 1e-9), (height - LEGEND_H - 4) / max(dy, 1e-9))
    plan_h = dy * scale
    return _Frame(bounds, (0, LEGEND_H, width, plan_h)), Plan(width, plan_h + LEGEND_H + 4)


def _scale_bar(p: Plan, fr: _Frame, x: float, y: float, max_w: float) -> None:
    length = nice_length(max_w / fr.scale)
    w = length * fr.scale
    xs = x + np.arange(4) * w / 4
    p.rects(xs[0::2], y, w / 4, 3.5, INK, INK, 0.4)
    p.rects(xs[1::2], y, w / 4, 3.5, colors.white, INK, 0.4)
    p.text([x, x + w / 2, x + w], y + 6, [f"{length * f:g}" for f in (0, 0.5, 1)], 6, anchor="middle")
    p.text(x + w + 4, y, ["m"], 6.5)


def _north_arrow(p: Plan, x: float, y: float) -> None:
    p.path([(x, y), (x + 4, y - 10), (x, y - 7), (x - 4, y - 10)], INK, None, 0)
    p.text(x, y + 2, ["N"], 7, font=FONT_BOLD, anchor="middle")


def _rack_boxes(
    fr: _Frame, racks: PlanRacks
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each rack's drawn box in points: left, bottom, width, height, and whether it lies across (90/270)."""
    rotated = np.round(racks.rotation_deg) % 180 == 90
    wx = np.where(rotated, racks.depth_m, racks.width_m) * fr.scale
    wy = np.where(rotated, racks.width_m, racks.depth_m) * fr.scale
    return fr.x(racks.x_m) - wx / 2, fr.y(racks.y_m) - wy / 2, wx, wy, rotated


def _row_labels(
    p: Plan, fr: _Frame, racks: PlanRacks, rows: Sequence[PlanRow], columns: Sequence[Sequence[float]] = ()
) -> None:
    """Row names beside each row's first rack (west of x rows, south of y rows) on a white ground, or,
    where another row's racks stand there (rows split by cross aisles), small in the aisle beside it:
    the front side first, else the rear, else one or two racks further along. Every name keeps clear
    of racks, of the building columns (``columns``: centre x, y and size x, y in m) and of the names
    placed before it; a row with no free spot is not named on this plan."""
    px, py, wx, wy, _ = _rack_boxes(fr, racks)
    depth = float(np.max(np.maximum(wx, wy))) if len(px) else fr.scale  # a rack's extent across its row
    col = np.asarray(columns, float).reshape(-1, 4)
    taken = Board(20.0)
    for c in col.tolist():
        taken.take((float(fr.x(c[0] - c[2] / 2)), float(fr.y(c[1] - c[3] / 2)),
                    float(fr.x(c[0] + c[2] / 2)), float(fr.y(c[1] + c[3] / 2))))  # fmt: skip

    def free(x0: float, y0: float, x1: float, y1: float) -> bool:
        clear = not bool(
            np.any((px < x1 - 0.3) & (px + wx > x0 + 0.3) & (py < y1 - 0.3) & (py + wy > y0 + 0.3))
        )
        return clear and taken.free((x0 + 0.3, y0 + 0.3, x1 - 0.3, y1 - 0.3))

    for r in rows:
        size = 5.5 if r.spine else 5.0
        font = FONT_BOLD if r.spine else FONT
        style: dict[str, Any] = {"colour": NETWORK_EDGE if r.spine else INK, "font": font}
        w = stringWidth(r.label, font, size)
        x, y = float(fr.x(r.x_m)), float(fr.y(r.y_m))
        if r.axis == "x":
            box = (x - 2.5 - w, y - size * 0.5, x - 1.5, y + size * 0.5)
            at, anchor = (x - 2, y - size * 0.35), "end"
        else:
            box = (x - w / 2 - 0.5, y - size - 2, x + w / 2 + 0.5, y - 0.5)
            at, anchor = (x, y - size - 1), "middle"
        if free(*box):
            taken.take(box)
            p.rects(box[0], box[1], box[2] - box[0], box[3] - box[1], colors.white)  # legible over walls
            p.text(at[0], at[1], [r.label], size, anchor=anchor, **style)
            continue
        small = min(size, 0.6 * fr.scale)  # at most 0.6 m tall: fits the aisle beside the row
        ws = stringWidth(r.label, font, small)
        # (text anchor x, y, and its box) in the aisle on either side, at the row's start or further on
        spots = []
        for shift in (0.5, 0.5 + 2 * depth, 0.5 + 4 * depth):
            for side in (1.0, -1.0):
                if r.axis == "x":
                    ty = y + depth / 2 + 0.8 if side > 0 else y - depth / 2 - 0.8 - small * 0.7
                    spots.append(
                        ((x + shift, ty), "start", (x + shift, ty, x + shift + ws, ty + small * 0.7))
                    )
                else:
                    tx = x - depth / 2 - 0.8 if side > 0 else x + depth / 2 + 0.8 + ws
                    ty = y + shift
                    spots.append(((tx, ty), "end", (tx - ws, ty, tx, ty + small * 0.7)))
        for (tx, ty), anchor, sbox in spots:
            if free(*sbox):
                taken.take(sbox)
                p.text(tx, ty, [r.label], small, anchor=anchor, **style)
                break


def _rack_shapes(p: Plan, fr: _Frame, racks: PlanRacks, detail: bool) -> None:
    """Racks as rectangles filled as the scene says. ``detail`` (hall plans): outlines, network racks
    in dark blue, position labels sized to the rack. Without (site plans): fills only, which stay
    legible when a rack is a point wide."""
    px, py, wx, wy, rotated = _rack_boxes(fr, racks)
    fill_no = np.asarray(racks.fill_no, np.int64)
    network = np.isin(racks.kind, list(NETWORK_KINDS))
    for fi, fill in enumerate(FILL_COLOURS):
        for net in (False, True):
            m = (fill_no == fi) & (network == net)
            if not m.any():
                continue
            if detail:
                p.rects(px[m], py[m], wx[m], wy[m], fill, NETWORK_EDGE if net else INK, 0.6 if net else 0.15,
                        role="rack")  # fmt: skip
            else:
                p.rects(px[m], py[m], wx[m], wy[m], fill, role="rack")
    if detail and len(px):
        font = float(min(np.min(wx), np.min(wy)) * 0.55)
        if font >= 0.8:
            # the row's tray runs along the rack centres: set the number off to the side of it
            lx = px + wx / 2 - np.where(rotated, wx * 0.22, 0.0)
            ly = py + wy / 2 + np.where(rotated, 0.0, wy * 0.22) - font * 0.35
            p.text(lx, ly, [str(t) for t in racks.label], font, anchor="middle")


def _cdu_shapes(
    p: Plan, fr: _Frame, cdus: PlanCdus, detail: bool, fill: Any = CDU_FILL, role: str = "cdu"
) -> None:
    """CDUs (or fibre cabinets: ``fill``, ``role``) as boxes in the palette's colour (as the DXF and the
    SVG draw them); ``detail`` (hall plans): outlined, with their id where it fits."""
    b = np.asarray(cdus.boxes, float).reshape(-1, 4)
    if not len(b):
        return
    x0, y0, x1, y1 = fr.x(b[:, 0]), fr.y(b[:, 1]), fr.x(b[:, 2]), fr.y(b[:, 3])
    if not detail:
        p.rects(x0, y0, x1 - x0, y1 - y0, fill, role=role)
        return
    p.rects(x0, y0, x1 - x0, y1 - y0, fill, INK, 0.3, role=role)
    font = float(min(np.min(x1 - x0), np.min(y1 - y0)) * 0.3)
    fits = [
        stringWidth(str(t), FONT, font) <= 0.9 * float(w) for t, w in zip(cdus.label, x1 - x0, strict=True)
    ]
    if font >= 0.8 and all(fits) and any(str(t) for t in cdus.label):
        p.text(
            (x0 + x1) / 2, (y0 + y1) / 2 - font * 0.35, [str(t) for t in cdus.label], font, anchor="middle"
        )


HATCH_PT = 3.0  # keep-out hatch: lines at 45 degrees this far apart (points)


def _keepout(p: Plan, ring: list[tuple[float, float]]) -> None:
    """A keep-out as the DXF and the SVG draw it: its ground, a hatch at 45 degrees and its edge, in the
    palette's keep-out colours (``ring`` in points)."""
    p.path(ring, KEEPOUT_FILL, KEEPOUT_EDGE, 0.4, role="keepout")
    poly = Polygon(ring)
    if not poly.is_valid or poly.area <= 0:
        return
    x0, y0, x1, y1 = poly.bounds
    segs = []
    step = HATCH_PT * math.sqrt(2.0)
    for c in np.arange(y0 - x1 + step / 2, y1 - x0, step).tolist():  # the lines y = x + c
        cut = poly.intersection(LineString([(x0 - 1.0, x0 - 1.0 + c), (x1 + 1.0, x1 + 1.0 + c)]))
        for g in getattr(cut, "geoms", [cut]):
            if g.geom_type == "LineString" and not g.is_empty:
                (a, b), (e, f) = g.coords[0], g.coords[-1]
                segs.append((a, b, e, f))
    p.lines(segs, KEEPOUT_EDGE, 0.25, role="keepout")


def _legend(p: Plan, x: float, y: float, limit_text: str) -> None:
    head = f"GPU rack kW vs {limit_text}:"
    p.text(x, y + 1, [head], 6.5, font=FONT_BOLD)
    x += stringWidth(head, FONT_BOLD, 6.5) + 5
    for _, label, col in KW_BANDS:
        p.rects(x, y, 8, 6, col, INK, 0.15)
        p.text(x + 10, y + 1, [label], 6.5)
        x += 10 + stringWidth(label, FONT, 6.5) + 7


def _legend_symbols(
    p: Plan, x: float, y: float, trays: bool, cdus: bool = False, cabinets: bool = False
) -> None:
    def item(label: str) -> None:
        nonlocal x
        p.text(x + 12, y + 1, [label], 6.5)
        x += 12 + stringWidth(label, FONT, 6.5) + 9

    for kind in ("network", "spine", "core"):
        p.rects(x, y, 8, 6, colors.HexColor(palette.KIND_COLOURS[kind]), NETWORK_EDGE, 0.9, role="rack")
        x += 10
    x -= 10
    item("leaf / spine / core rack")
    if cdus:
        p.rects(x, y, 8, 6, CDU_FILL, INK, 0.3, role="cdu")
        item("CDU")
    if cabinets:
        p.rects(x, y, 8, 6, FIBRE_FILL, INK, 0.3, role="fibre_cabinet")
        item("fibre cabinet")
    if trays:
        p.lines([[x, y + 3, x + 10, y + 3]], TRAY_COLOUR, 1.2, role="tray")
        item("cable tray")
        p.lines([[x, y + 3, x + 10, y + 3]], TRAY_FULL, 1.6, role="violation")
        item("tray over its fill limit")
    p.rects(x + 1, y, 6, 6, COLUMN_FILL, role="column")
    item("building column")
    _keepout(p, [(x, y), (x + 8, y), (x + 8, y + 6), (x, y + 6)])
    item("keep-out")


@dataclass(frozen=True)
class HallOutline:
    key: str  # "B1/H1"
    polygon: list[tuple[float, float]]
    columns: list[tuple[float, float, float, float]]  # centre x, y, size x, y
    keepouts: list[tuple[list[tuple[float, float]], str]]
    max_rack_kw: float


def hall_plan(
    hall: HallOutline,
    racks: PlanRacks,
    rows: Sequence[PlanRow],
    trays: PlanTrays = NO_TRAYS,
    width: float = FRAME_W,
    height: float = FRAME_H - 60,
    cdus: PlanCdus = NO_CDUS,
    cabinets: PlanCdus = NO_CDUS,
) -> Plan:
    """Vector plan of one hall: walls, keep-outs, columns, cable trays, CDUs, racks coloured by kW against
    the hall's limit with their position number, row labels, legend, scale bar, north arrow."""
    xs = [q[0] for q in hall.polygon]
    ys = [q[1] for q in hall.polygon]
    bounds = (min(xs) - 3.0, min(ys) - 1.0, max(xs) + 1.0, max(ys) + 1.0)
    fr, p = _plan_canvas(bounds, width, height)
    p.path(fr.pts(hall.polygon), HALL_FILL, INK, 1.2, role="hall_floor")
    for ring, reason in hall.keepouts:
        _keepout(p, fr.pts(ring))
        if reason:
            cx = sum(q[0] for q in ring) / len(ring)
            cy = sum(q[1] for q in ring) / len(ring)
            p.text(fr.x(cx), fr.y(cy), [reason], 6, MUTED, FONT_ITALIC, "middle")
    seg = np.asarray(trays.segments, float).reshape(-1, 4)
    pts = np.column_stack([fr.x(seg[:, 0]), fr.y(seg[:, 1]), fr.x(seg[:, 2]), fr.y(seg[:, 3])])
    p.lines(pts[~trays.over], TRAY_COLOUR, 0.8, role="tray")
    _cdu_shapes(p, fr, cdus, detail=True)
    _cdu_shapes(p, fr, cabinets, True, FIBRE_FILL, "fibre_cabinet")
    _rack_shapes(p, fr, racks, detail=True)
    p.lines(pts[trays.over], TRAY_FULL, 1.6, role="violation")
    if hall.columns:
        c = np.asarray(hall.columns, float)
        p.rects(
            fr.x(c[:, 0] - c[:, 2] / 2),
            fr.y(c[:, 1] - c[:, 3] / 2),
            c[:, 2] * fr.scale,
            c[:, 3] * fr.scale,
            COLUMN_FILL,
            role="column",
        )
    _row_labels(p, fr, racks, rows, hall.columns)
    _north_arrow(p, width - 6, LEGEND_H - 12)
    _legend(p, 0, 20, f"the hall limit of {hall.max_rack_kw:g} kW")
    _legend_symbols(
        p,
        0,
        8,
        trays=len(seg) > 0,
        cdus=len(np.asarray(cdus.boxes).reshape(-1, 4)) > 0,
        cabinets=len(np.asarray(cabinets.boxes).reshape(-1, 4)) > 0,
    )
    _scale_bar(p, fr, width - 120, 8, 100)
    return p


@dataclass(frozen=True)
class SiteOutline:
    buildings: list[tuple[str, list[tuple[float, float]]]]
    halls: list[tuple[str, list[tuple[float, float]]]]
    ducts: list[tuple[str, list[tuple[float, float]]]]


def site_plan(
    site: SiteOutline,
    racks: PlanRacks,
    width: float = FRAME_W,
    height: float = FRAME_H - 60,
    cdus: PlanCdus = NO_CDUS,
) -> Plan:
    """Vector plan of the campus: buildings, halls, inter-building ducts, every rack filled as the scene
    says and every CDU."""
    pts = [q for _, ring in site.buildings for q in ring] + [q for _, path in site.ducts for q in path]
    xs, ys = [q[0] for q in pts], [q[1] for q in pts]
    pad = 0.04 * max(max(xs) - min(xs), max(ys) - min(ys))
    bounds = (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)
    fr, p = _plan_canvas(bounds, width, height)
    for _, path in site.ducts:
        p.path(fr.pts(path), None, TRAY_COLOUR, 1.4, closed=False, dash=(4, 2), role="tray")
    for _, ring in site.buildings:
        p.path(fr.pts(ring), BUILDING_FILL, INK, 1.2, role="building")
    for _, ring in site.halls:
        p.path(fr.pts(ring), HALL_FILL, MUTED, 0.5, role="hall_floor")
    _cdu_shapes(p, fr, cdus, detail=False)
    _rack_shapes(p, fr, racks, detail=False)
    for name, ring in site.buildings:
        p.text(
            fr.x(max(q[0] for q in ring)),
            fr.y(max(q[1] for q in ring)) + 3,
            [name],
            8,
            font=FONT_BOLD,
            anchor="end",
        )
    for name, ring in site.halls:
        p.text(fr.x(min(q[0] for q in ring)) + 2, fr.y(max(q[1] for q in ring)) - 7, [name], 6, MUTED)
    _north_arrow(p, width - 6, LEGEND_H - 12)
    _legend(p, 0, 20, "each hall's limit")
    p.lines([[0, 11, 12, 11]], TRAY_COLOUR, 1.4, dash=(4, 2), role="tray")
    p.text(15, 9, ["duct between buildings"], 6.5)
    _scale_bar(p, fr, width - 120, 8, 100)
    return p
