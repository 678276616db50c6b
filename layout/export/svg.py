"""SVG floor plan of each hall: a preview of the floor before the DXF exists.

Hall outline and wall clearance, columns, keep-outs, cold and hot aisles, CDUs, racks filled by the
scene's colour rule (layout.scene.palette: GPU racks by kW band, other kinds by kind), the front of every
rack, row labels, a legend, a scale bar and a north arrow. A thin renderer of layout.scene: it decides
no colour, label or position itself (every element's colour is the palette's, as in the DXF and the PDF
plans; ``data-kind`` names the palette entry of each element drawn in one). Plain text, fixed number formatting: the same design gives the same
bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from shapely.geometry import Polygon
from shapely.geometry import box as shapely_box

from layout import figures
from layout.export.atomic import write_text
from layout.export.labels import Board, runs_text, text_width
from layout.scene import Scene, scene_of
from layout.scene import palette as pal
from layout.scene.palette import COLOURS
from layout.sheet_names import hall_sheet

if TYPE_CHECKING:
    from layout.design import Design
    from layout.model import Hall

PLAN_PX = 900.0  # the longer side of the hall on the page
MARGIN = 36.0
TITLE_H = 64.0
LEGEND_W = 250.0
# No text on a plan is smaller than this (px of the viewBox, which is 900-1250 px on its longer side:
# 10 px reads as 8 pt on a screen or a printed A4 page). A row label that cannot stand that big
# anywhere near its row is left off that plan, never shrunk.
MIN_FONT_PX = 10.0

# the GPU bands' legend lines (the palette's bands, worded for this legend)
USE_LABELS = tuple(
    "GPU rack over the limit" if i == pal.OVER else f"GPU rack, {b.label}" + (" of max kW" if i == 0 else "")
    for i, b in enumerate(pal.BANDS)
)
EMPTY_FILL = pal.EMPTY
COLD = COLOURS["cold_aisle"].hex
HOT = COLOURS["hot_aisle"].hex
KEEPOUT = COLOURS["keepout"].hex
KEEPOUT_GROUND = COLOURS["keepout_ground"].hex
COLUMN = COLOURS["column"].hex
CDU = COLOURS["cdu"].hex
FIBRE = COLOURS["fibre_cabinet"].hex
RACK_FRONT = COLOURS["rack_front"].hex


def _n(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


class _Frame:
    """Site metres to page pixels (y up in the site, down on the page)."""

    def __init__(self, bounds: tuple[float, float, float, float]):
        x0, y0, x1, y1 = bounds
        self.x0, self.y1 = x0, y1
        self.s = PLAN_PX / max(x1 - x0, y1 - y0, 1e-6)
        self.w = (x1 - x0) * self.s
        self.h = (y1 - y0) * self.s

    def x(self, v: float) -> float:
        return MARGIN + (v - self.x0) * self.s

    def y(self, v: float) -> float:
        return MARGIN + TITLE_H + (self.y1 - v) * self.s

    def pts(self, coords: list[tuple[float, float]] | np.ndarray) -> str:
        return " ".join(f"{_n(self.x(float(a)))},{_n(self.y(float(b)))}" for a, b in coords)

    def rect(self, x0: float, y0: float, x1: float, y1: float, **attrs: str) -> str:
        a = " ".join(f'{k.replace("_", "-")}="{v}"' for k, v in attrs.items())
        return (f'<rect x="{_n(self.x(min(x0, x1)))}" y="{_n(self.y(max(y0, y1)))}" '
                f'width="{_n(abs(x1 - x0) * self.s)}" height="{_n(abs(y1 - y0) * self.s)}" {a}/>')  # fmt: skip


def hall_svg(design: Design | Scene, hall_key: str) -> str:
    """The floor plan of one hall (``B1/H1``) as SVG text, from a design or its scene."""
    scene = design if isinstance(design, Scene) else scene_of(design)
    hall = next(h for b, h in scene.site.halls() if f"{b.id}/{h.id}" == hall_key)
    poly = Polygon(hall.polygon)
    f = _Frame(poly.bounds)
    sel = scene.racks_of(hall_key)
    kw = sel["power_kw"].to_numpy(float)
    aisles = scene.aisles
    aisles = aisles[(aisles["hall"] == hall_key) & aisles["kind"].isin(["cold", "hot"])]
    all_rows = scene.rows
    rows = [
        {str(k): v for k, v in r.items()} for r in all_rows[all_rows["hall"] == hall_key].to_dict("records")
    ]
    depth = float(sel["depth_m"].max()) if len(sel) else 1.2

    width = MARGIN * 2 + f.w + LEGEND_W
    height = max(MARGIN * 2 + TITLE_H + f.h + 40.0, 620.0)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" font-family="Helvetica, Arial, sans-serif">',
        "<defs>",
        '<pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        f'<rect width="8" height="8" fill="{KEEPOUT_GROUND}"/><line x1="0" y1="0" x2="0" y2="8" stroke="{KEEPOUT}" '
        'stroke-width="2"/></pattern>',
        "</defs>",
        f'<rect width="{_n(width)}" height="{_n(height)}" fill="#ffffff"/>',
    ]
    out += _title(scene, hall_key, hall, len(sel), float(kw.sum()))
    # floor, wall clearance
    out.append(
        f'<polygon points="{f.pts(list(poly.exterior.coords))}" fill="{HALL_FILL}" stroke="#222222" stroke-width="3"/>'
    )
    if hall.wall_clearance_m > 0:
        inner = poly.buffer(-hall.wall_clearance_m, join_style="mitre")
        for g in getattr(inner, "geoms", [inner]):
            if not g.is_empty:
                out.append(f'<polygon points="{f.pts(list(g.exterior.coords))}" fill="none" stroke="#9a9a9a" '
                           'stroke-width="1" stroke-dasharray="6 4"/>')  # fmt: skip
    # aisles: half a cold aisle in front of every row, half a hot aisle behind it (the scene's)
    for kind, x0, y0, x1, y1 in zip(
        aisles["kind"].tolist(),
        *(aisles[c].to_numpy(float).tolist() for c in ("x0_m", "y0_m", "x1_m", "y1_m")),
        strict=True,
    ):
        out.append(f.rect(x0, y0, x1, y1, fill=COLD if kind == "cold" else HOT, data_kind=f"{kind}_aisle"))
    # keep-outs, columns
    for k in hall.keepouts:
        kp = Polygon(k.polygon).intersection(poly)
        for g in getattr(kp, "geoms", [kp]):
            if g.is_empty or g.geom_type != "Polygon":
                continue
            out.append(
                f'<polygon data-kind="keepout" points="{f.pts(list(g.exterior.coords))}" fill="url(#hatch)" '
                f'stroke="{KEEPOUT}" stroke-width="1.5"/>'
            )
            if k.reason:
                c = g.representative_point()
                out.append(f'<text x="{_n(f.x(c.x))}" y="{_n(f.y(c.y))}" font-size="11" text-anchor="middle" '
                           f'fill="#7b1e14" stroke="#ffffff" stroke-width="3" paint-order="stroke">{escape(k.reason)}</text>')  # fmt: skip
    for c in hall.columns:
        (cx, cy), (sx, sy) = c.at, c.size_m
        out.append(
            f.rect(
                cx - sx / 2,
                cy - sy / 2,
                cx + sx / 2,
                cy + sy / 2,
                fill=COLUMN,
                stroke="#111111",
                stroke_width="0.8",
                data_kind="column",
            )
        )
    # CDUs (from the scene, as the DXF draws them), racks
    boxes = scene.cdu_boxes
    cdus = boxes[boxes["hall"] == hall_key]
    out += _cdus(f, cdus)
    cab = scene.cabinet_boxes
    cab = cab[cab["hall"] == hall_key]
    out += _cabinets(f, cab)
    out += _racks(f, sel)
    out += _row_labels(f, hall, sel, rows, depth, pd.concat([cdus, cab]) if len(cab) else cdus)
    out += _scale_bar(f)
    out += _north(f)
    out += _legend(f, hall, sel, kw, len(cdus) > 0, len(cab) > 0)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _cdus(f: _Frame, cdus: pd.DataFrame) -> list[str]:
    """Each CDU as a box in the palette's CDU colour, its id (CDU01) inside when it fits."""
    out = []
    for cid, model, x0, y0, x1, y1 in zip(
        cdus["cdu_id"].tolist(), cdus["model"].tolist(),
        *(cdus[c].to_numpy(float).tolist() for c in ("x0_m", "y0_m", "x1_m", "y1_m")), strict=True
    ):  # fmt: skip
        out.append(f'<rect data-kind="cdu" data-cdu="{escape(cid)}" x="{_n(f.x(x0))}" y="{_n(f.y(y1))}" '
                   f'width="{_n((x1 - x0) * f.s)}" height="{_n((y1 - y0) * f.s)}" fill="{CDU}" stroke="#1b1b1b" '
                   f'stroke-width="0.6"><title>{escape(cid)} {escape(model)}</title></rect>')  # fmt: skip
        tail = cid.rsplit("/", 1)[-1]
        fs = min(11.0, 0.5 * (y1 - y0) * f.s)
        if fs >= MIN_FONT_PX and text_width(tail, fs) * 0.8 <= (x1 - x0) * f.s - 2:
            out.append(f'<text x="{_n(f.x((x0 + x1) / 2))}" y="{_n(f.y((y0 + y1) / 2) + fs * 0.35)}" '
                       f'font-size="{_n(fs)}" text-anchor="middle" fill="#111111">{escape(tail)}</text>')  # fmt: skip
    return out


def _cabinets(f: _Frame, cab: pd.DataFrame) -> list[str]:
    """Each fibre cabinet as a box in the palette's fibre-cabinet colour, its id in its title."""
    out = []
    for cid, x0, y0, x1, y1 in zip(
        cab["cabinet_id"].tolist(), *(cab[c].to_numpy(float).tolist() for c in ("x0_m", "y0_m", "x1_m", "y1_m")), strict=True
    ):  # fmt: skip
        out.append(f'<rect data-kind="fibre-cabinet" data-cabinet="{escape(cid)}" x="{_n(f.x(x0))}" '
                   f'y="{_n(f.y(y1))}" width="{_n((x1 - x0) * f.s)}" height="{_n((y1 - y0) * f.s)}" '
                   f'fill="{FIBRE}" stroke="#1b1b1b" stroke-width="0.6"><title>{escape(cid)} fibre cabinet'
                   f'</title></rect>')  # fmt: skip
    return out


def _row_labels(
    f: _Frame, hall: Hall, sel: pd.DataFrame, rows: list[dict[str, Any]], depth: float, cdus: pd.DataFrame
) -> list[str]:
    """Each row's label at MIN_FONT_PX or more (12 px at most, 45 % of the cold aisle between): in the
    front half of the cold aisle at the row's start, else just beyond the row's start, else beyond its
    end, else in the aisle at its end, inside the walls; else in the page margin beyond the west (x
    rows) or south (y rows) wall when nothing stands between that wall and the row. Each keeps clear
    of racks, columns, CDUs and the labels placed before it; a row with no such spot is not labelled on
    this plan (page pixels)."""
    fs = max(MIN_FONT_PX, min(12.0, 0.45 * hall.cold_aisle_m * f.s))
    board = Board(8.0 * fs)
    for x0, y0, x1, y1 in zip(
        *(sel[c].to_numpy(float).tolist() for c in ("x0_m", "y0_m", "x1_m", "y1_m")), strict=True
    ):
        board.take((f.x(x0), f.y(y1), f.x(x1), f.y(y0)))
    for c in hall.columns:
        (cx, cy), (sx, sy) = c.at, c.size_m
        board.take((f.x(cx - sx / 2), f.y(cy + sy / 2), f.x(cx + sx / 2), f.y(cy - sy / 2)))
    for x0, y0, x1, y1 in cdus[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy(float).tolist():
        board.take((f.x(x0), f.y(y1), f.x(x1), f.y(y0)))
    poly = Polygon(hall.polygon)
    # the floor inside the walls' drawn line, in page pixels
    inner = Polygon([(f.x(x), f.y(y)) for x, y in poly.exterior.coords]).buffer(-2.5, join_style="mitre")
    out = []
    for r in rows:
        label = escape(str(r["label"]))
        w = text_width(str(r["label"]), fs) * 0.8  # Helvetica is narrower than the DXF's lettering
        s = float(r["front_sign"])
        off = depth / 2 + hall.cold_aisle_m * 0.25  # the middle of the row's front half aisle
        x_row = r["axis"] == "x"
        lo = min(r["x0_m"], r["x1_m"]) if x_row else min(r["y0_m"], r["y1_m"])
        hi = max(r["x0_m"], r["x1_m"]) if x_row else max(r["y0_m"], r["y1_m"])
        line = r["y0_m"] if x_row else r["x0_m"]
        gap = 0.3 * fs / f.s  # metres between a label and the rack it names
        w_m = w / f.s
        wall = poly.bounds[0] if x_row else poly.bounds[1]
        # (along the row where the text starts, across: the text's centre line) in metres
        inside = [(lo + 0.1, line + s * off), (lo - gap - w_m, line), (hi + gap, line),
                  (hi - 0.1 - w_m, line + s * off)]  # fmt: skip
        spots = [_label_box(f, x_row, a, c, w, fs) for a, c in inside]
        spots = [b for b in spots if inner.contains(shapely_box(*b))]
        if board.free(_label_box(f, x_row, wall, line, (lo - wall) * f.s - 1.0, 0.5 * fs)):
            spots.append(_label_box(f, x_row, wall - 2 * gap - w_m, line, w, fs))
        got = board.place(spots)
        if got is None:
            continue
        b = spots[got]
        if x_row:
            out.append(f'<text x="{_n(b[0])}" y="{_n((b[1] + b[3]) / 2 + fs * 0.35)}" font-size="{_n(fs)}" '
                       f'fill="#1d3557">{label}</text>')  # fmt: skip
        else:
            px, py = (b[0] + b[2]) / 2 + fs * 0.35, b[3]
            out.append(f'<text x="{_n(px)}" y="{_n(py)}" font-size="{_n(fs)}" fill="#1d3557" '
                       f'transform="rotate(-90 {_n(px)} {_n(py)})">{label}</text>')  # fmt: skip
    return out


def _label_box(
    f: _Frame, x_row: bool, along: float, across: float, w: float, fs: float
) -> tuple[float, float, float, float]:
    """The page box of a label starting ``along`` a row (along x when ``x_row``) and centred ``across``
    it (metres), ``w`` long and ``fs`` high (pixels); a y row's label is turned to run up the page."""
    if x_row:
        return (f.x(along), f.y(across) - fs / 2, f.x(along) + w, f.y(across) + fs / 2)
    return (f.x(across) - fs / 2, f.y(along) - w, f.x(across) + fs / 2, f.y(along))


def _title(scene: Scene, hall_key: str, hall: Hall, n_racks: int, kw: float) -> list[str]:
    site = scene.site.site
    gpu = scene.gpu_rack.get(hall_key)
    dens = f", GPU racks: {gpu[0]} ({gpu[1]} server{'s' if gpu[1] != 1 else ''} each)" if gpu else ""
    return [
        f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + 4)}" font-size="20" font-weight="bold" fill="#111111">'
        f"{escape(site.name)} — hall {escape(hall_key)}</text>",
        f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + 24)}" font-size="12" fill="#333333">{n_racks} racks, IT {kw / 1000:.2f} MW'
        f"{'' if hall.it_mw is None else f' of {hall.it_mw:g} MW'}{escape(dens)}</text>",
        f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + 40)}" font-size="12" fill="#333333">{hall.cooling} cooling, max '
        f"{hall.max_rack_kw:g} kW per rack, floor {hall.floor_load_kg_m2:g} kg/m²; revision {escape(site.revision)}, "
        f"{escape(site.date)}</text>",
    ]


def _racks(f: _Frame, sel: pd.DataFrame) -> list[str]:
    out = []
    cols = (
        "x_m",
        "y_m",
        "rotation_deg",
        "width_m",
        "depth_m",
        "over",
        "fill",
        "rack_id",
        "template",
        "power_kw",
        "kind",
    )
    for x, y, rot, width, depth, over, fill, rack_id, template, kw, kind in zip(
        *(sel[c].tolist() for c in cols), strict=True
    ):
        r = {"width_m": width, "depth_m": depth, "over": over, "fill": fill, "rack_id": rack_id,
             "template": template, "power_kw": kw}  # fmt: skip
        x, y, rot = float(x), float(y), float(rot)
        along_x = rot in (0.0, 180.0)
        hx = (r["width_m"] if along_x else r["depth_m"]) / 2
        hy = (r["depth_m"] if along_x else r["width_m"]) / 2
        edge = (
            f' stroke="{pal.OVER_EDGE}" stroke-width="1.6"'
            if r["over"]
            else ' stroke="#1b1b1b" stroke-width="0.5"'
        )
        out.append(f'<rect data-kind="{escape(str(kind))}" x="{_n(f.x(x - hx))}" y="{_n(f.y(y + hy))}" width="{_n(2 * hx * f.s)}" '
                   f'height="{_n(2 * hy * f.s)}" fill="{r["fill"]}"{edge}><title>{escape(str(r["rack_id"]))} '
                   f'{escape(str(r["template"]))} {r["power_kw"]:.1f} kW</title></rect>')  # fmt: skip
        # the front edge (cold-aisle side)
        if rot == 0.0:
            a, b = (x - hx, y + hy), (x + hx, y + hy)
        elif rot == 180.0:
            a, b = (x - hx, y - hy), (x + hx, y - hy)
        elif rot == 270.0:
            a, b = (x + hx, y - hy), (x + hx, y + hy)
        else:
            a, b = (x - hx, y - hy), (x - hx, y + hy)
        out.append(f'<line x1="{_n(f.x(a[0]))}" y1="{_n(f.y(a[1]))}" x2="{_n(f.x(b[0]))}" y2="{_n(f.y(b[1]))}" '
                   f'stroke="{RACK_FRONT}" stroke-width="1.4"/>')  # fmt: skip
    return out


def _nice(length: float) -> float:
    for v in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000):
        if v >= length:
            return float(v)
    return 1000.0


def _scale_bar(f: _Frame) -> list[str]:
    metres = _nice(PLAN_PX / f.s / 6)
    x, y = MARGIN, MARGIN + TITLE_H + f.h + 22
    px = metres * f.s
    out = []
    for k in range(4):
        out.append(f'<rect x="{_n(x + k * px / 4)}" y="{_n(y)}" width="{_n(px / 4)}" height="6" '
                   f'fill="{"#222222" if k % 2 == 0 else "#ffffff"}" stroke="#222222" stroke-width="0.8"/>')  # fmt: skip
    out.append(f'<text x="{_n(x)}" y="{_n(y + 18)}" font-size="11" fill="#222222">0</text>')
    out.append(
        f'<text x="{_n(x + px)}" y="{_n(y + 18)}" font-size="11" text-anchor="middle" fill="#222222">{_n(metres)} m</text>'
    )
    return out


def _north(f: _Frame) -> list[str]:
    cx, top = MARGIN + f.w + LEGEND_W / 2, MARGIN + TITLE_H + 6
    return [
        f'<polygon points="{_n(cx)},{_n(top)} {_n(cx - 9)},{_n(top + 30)} {_n(cx)},{_n(top + 23)} {_n(cx + 9)},{_n(top + 30)}" '
        'fill="#222222"/>',
        f'<text x="{_n(cx)}" y="{_n(top + 46)}" font-size="14" font-weight="bold" text-anchor="middle" fill="#222222">N</text>',
    ]


def _legend(
    f: _Frame, hall: Hall, sel: pd.DataFrame, kw: np.ndarray, cdus: bool, cabinets: bool = False
) -> list[str]:
    x = MARGIN + f.w + 24
    y = MARGIN + TITLE_H + 80
    out = [f'<text x="{_n(x)}" y="{_n(y)}" font-size="13" font-weight="bold" fill="#111111">Legend</text>']
    y += 10
    entries: list[tuple[str, str]] = [
        (b.colour, f"{label} ({hall.max_rack_kw:g} kW)" if i == pal.OVER else label)
        for i, (b, label) in enumerate(zip(pal.BANDS, USE_LABELS, strict=True))
    ]
    kinds = sorted(set(sel["kind"]) - {"gpu"})
    entries += [(pal.KIND_COLOURS.get(k, pal.OTHER_KIND), pal.KIND_LABELS.get(k, k)) for k in kinds]
    if (kw <= 0).any():
        entries.append((EMPTY_FILL, "Empty rack (user row)"))
    if cdus:
        entries.append((CDU, "CDU (coolant distribution unit)"))
    if cabinets:
        entries.append((FIBRE, "Fibre cabinet (patch panels)"))
    if hall.columns:
        entries.append((COLUMN, "Building column"))
    if hall.keepouts:
        entries.append(("url(#hatch)", "Keep-out zone"))
    entries += [(COLD, "Cold aisle (rack fronts)"), (HOT, "Hot aisle (rack backs)")]
    for fill, label in entries:
        y += 20
        out.append(
            f'<rect x="{_n(x)}" y="{_n(y - 11)}" width="18" height="12" fill="{fill}" stroke="#1b1b1b" stroke-width="0.6"/>'
        )
        out.append(f'<text x="{_n(x + 26)}" y="{_n(y)}" font-size="11" fill="#222222">{escape(label)}</text>')
    y += 20
    out.append(
        f'<line x1="{_n(x)}" y1="{_n(y - 5)}" x2="{_n(x + 18)}" y2="{_n(y - 5)}" stroke="{RACK_FRONT}" stroke-width="2"/>'
    )
    out.append(f'<text x="{_n(x + 26)}" y="{_n(y)}" font-size="11" fill="#222222">Rack front</text>')
    y += 28
    counts = sel["template"].value_counts()
    out.append(f'<text x="{_n(x)}" y="{_n(y)}" font-size="13" font-weight="bold" fill="#111111">Racks</text>')
    for t in sorted(counts.index):
        y += 17
        out.append(
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="11" fill="#222222">{int(counts[t])} × {escape(str(t))}</text>'
        )
    if len(kw):
        y += 24
        out.append(
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="11" fill="#222222">max rack {float(kw.max()):.1f} kW</text>'
        )
    return out


HALL_FILL = COLOURS["hall_floor"].hex
BUILDING_FILL = COLOURS["building"].hex
DUCT = COLOURS["tray"].hex  # campus ducts and the building entries: the cabling's colour


def _duct_paths(scene: Scene) -> list[tuple[str, list[tuple[float, float]]]]:
    """Each duct's path: as the site file draws it, else straight from entry to entry (when both
    buildings have one)."""
    entries = {b.id: b.entry for b in scene.site.building}
    out = []
    for d in scene.site.duct:
        a, b = entries.get(d.from_), entries.get(d.to)
        path = [tuple(p) for p in d.path] if d.path else ([a, b] if a is not None and b is not None else [])
        if path:
            out.append((f"{d.from_}-{d.to}", [(float(x), float(y)) for x, y in path]))
    return out


def _figures_line(summary: Mapping[str, Any]) -> str:
    """The site plan's line of headline figures, with the labels and text every output uses."""
    shown = summary.get("figures")
    if not isinstance(shown, Mapping):
        return ""
    keys = ("gpus", "racks", "it_mw", "cost_total_usd", "violations")
    return " · ".join(
        f"{shown[k]['label']}: {figures.text(k, shown[k]['value'])}" for k in keys if k in shown
    )


def site_svg(design: Design | Scene) -> str:
    """The site plan as SVG text: buildings, their halls (with the pods whose servers stand there, the
    racks and the IT load), building entries and the ducts between buildings. One element per
    building, hall and duct carries its id (``data-building``, ``data-hall``, ``data-duct``)."""
    scene = design if isinstance(design, Scene) else scene_of(design)
    site = scene.site
    ducts = _duct_paths(scene)
    pts = [p for b in site.building for p in b.footprint] + [p for _, path in ducts for p in path]
    xs, ys = [float(p[0]) for p in pts], [float(p[1]) for p in pts]
    f = _Frame((min(xs), min(ys), max(xs), max(ys)))
    width = MARGIN * 2 + f.w + LEGEND_W
    height = max(MARGIN * 2 + TITLE_H + f.h + 40.0, 620.0)
    racks = scene.racks
    kw = racks.groupby("hall")["power_kw"].sum().to_dict() if not racks.empty else {}
    count = racks.groupby("hall").size().to_dict() if not racks.empty else {}
    pods = scene.campus.pods if scene.campus else {}
    gpus = int(scene.summary.get("gpus", 0) or 0)
    total_mw = sum(kw.values()) / 1000
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" font-family="Helvetica, Arial, sans-serif">',
        f'<rect width="{_n(width)}" height="{_n(height)}" fill="#ffffff"/>',
        f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + 4)}" font-size="20" font-weight="bold" fill="#111111">'
        f"{escape(site.site.name)} — site plan</text>",
        f'<text data-kind="figures" x="{_n(MARGIN)}" y="{_n(MARGIN + 24)}" font-size="12" fill="#333333">'
        f"{escape(_figures_line(scene.summary) or f'{gpus:,} GPUs, IT {total_mw:,.2f} MW')}</text>",
        f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + 40)}" font-size="12" fill="#333333">{len(site.building)} '
        f"building(s), {sum(len(b.hall) for b in site.building)} hall(s), {len(ducts)} duct(s); revision "
        f"{escape(site.site.revision)}, {escape(site.site.date)}; site coordinates in metres, x east, y north</text>",
    ]
    for name, path in ducts:
        out.append(f'<polyline data-duct="{escape(name)}" points="{f.pts(path)}" fill="none" stroke="{DUCT}" '
                   'stroke-width="3" stroke-dasharray="8 4"/>')  # fmt: skip
    for b in site.building:
        out.append(f'<polygon data-building="{escape(b.id)}" points="{f.pts(list(b.footprint))}" fill="{BUILDING_FILL}" '
                   'stroke="#222222" stroke-width="2.5"/>')  # fmt: skip
        bx0, by1 = min(p[0] for p in b.footprint), max(p[1] for p in b.footprint)
        out.append(f'<text x="{_n(f.x(bx0) + 4)}" y="{_n(f.y(by1) - 6)}" font-size="14" font-weight="bold" '
                   f'fill="#111111">{escape(b.id)}</text>')  # fmt: skip
        for h in b.hall:
            key = f"{b.id}/{h.id}"
            out.append(f'<polygon data-hall="{escape(key)}" points="{f.pts(list(h.polygon))}" fill="{HALL_FILL}" '
                       'stroke="#555555" stroke-width="1.2"/>')  # fmt: skip
            hx = [p[0] for p in h.polygon]
            hy = [p[1] for p in h.polygon]
            cx, cy = f.x((min(hx) + max(hx)) / 2), f.y((min(hy) + max(hy)) / 2)
            room_w = (max(hx) - min(hx)) * f.s - 6
            lines = [h.id]
            if pods.get(key):
                lines.append(f"pod{'s' if len(pods[key]) > 1 else ''} {runs_text(pods[key])}")
            if count.get(key):
                lines.append(f"{count[key]:,} racks")
                lines.append(f"{kw.get(key, 0.0) / 1000:,.2f} MW")
            # a line that does not fit the hall at 11 px is left off (the hall id at 12 px bold first)
            lines = [
                t for k, t in enumerate(lines) if text_width(t, 12.0 if k == 0 else 11.0) * 0.75 <= room_w
            ]
            top = cy - 7 * (len(lines) - 1)
            for k, t in enumerate(lines):
                weight = ' font-weight="bold"' if k == 0 else ""
                out.append(f'<text x="{_n(cx)}" y="{_n(top + 14 * k + 4)}" font-size="{12 if k == 0 else 11}"{weight} '
                           f'text-anchor="middle" fill="#222222">{escape(t)}</text>')  # fmt: skip
        if b.entry is not None:
            out.append(f'<circle cx="{_n(f.x(b.entry[0]))}" cy="{_n(f.y(b.entry[1]))}" r="4" fill="#ffffff" '
                       f'stroke="{DUCT}" stroke-width="2"/>')  # fmt: skip
    out += _scale_bar(f)
    out += _north(f)
    x, y = MARGIN + f.w + 24, MARGIN + TITLE_H + 80
    out.append(
        f'<text x="{_n(x)}" y="{_n(y)}" font-size="13" font-weight="bold" fill="#111111">Legend</text>'
    )
    for fill, stroke, label in (
        (BUILDING_FILL, "#222222", "Building"),
        (HALL_FILL, "#555555", "Data hall: pods, racks, IT"),
    ):
        y += 20
        out.append(f'<rect x="{_n(x)}" y="{_n(y - 11)}" width="18" height="12" fill="{fill}" stroke="{stroke}" '
                   'stroke-width="1"/>')  # fmt: skip
        out.append(f'<text x="{_n(x + 26)}" y="{_n(y)}" font-size="11" fill="#222222">{label}</text>')
    y += 20
    out.append(f'<line x1="{_n(x)}" y1="{_n(y - 5)}" x2="{_n(x + 18)}" y2="{_n(y - 5)}" stroke="{DUCT}" '
               'stroke-width="3" stroke-dasharray="6 3"/>')  # fmt: skip
    out.append(
        f'<text x="{_n(x + 26)}" y="{_n(y)}" font-size="11" fill="#222222">Duct between buildings</text>'
    )
    y += 20
    out.append(
        f'<circle cx="{_n(x + 9)}" cy="{_n(y - 5)}" r="4" fill="#ffffff" stroke="{DUCT}" stroke-width="2"/>'
    )
    out.append(f'<text x="{_n(x + 26)}" y="{_n(y)}" font-size="11" fill="#222222">Building entry</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_svgs(design: Design | Scene, out_dir: str | Path, stem: str) -> list[Path]:
    """One ``{stem}-{building}-{hall}.svg`` per hall and the site plan ``{stem}-site.svg``, written
    atomically; returns the paths."""
    scene = design if isinstance(design, Scene) else scene_of(design)
    out = []
    for b, h in scene.site.halls():
        path = Path(out_dir) / f"{stem}-{hall_sheet(b.id, h.id)}.svg"
        write_text(path, hall_svg(scene, f"{b.id}/{h.id}"))
        out.append(path)
    path = Path(out_dir) / f"{stem}-site.svg"
    write_text(path, site_svg(scene))
    out.append(path)
    return out
