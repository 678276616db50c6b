"""DXF drawings for facilities teams: an adapter that reads a finished Design and writes NAME.dxf.

What a careful CAD technician would hand over:

- millimetres (``$INSUNITS`` = 4; the model is in metres, so every coordinate is x 1000), DXF R2018;
- layers declared once from :data:`LAYERS` (discipline-major-minor names, each with colour, linetype,
  lineweight and a description), named text styles and one dimension style per plot scale;
- one BLOCK per rack template (footprint, front marker) placed by INSERT with ATTRIBs (rack id,
  template, kW, GPUs, row, hall) and a position tag (K07) near the front; columns, risers, the north
  arrow, the scale bars, the legend and the title block are blocks too;
- trays as polylines drawn at their width, each segment labelled with its cables per medium and fill;
  one polyline per tray segment and media class for the cable bundles (never one entity per cable);
  design-rule violations as revision clouds on their own layer, listed in the sheets' notes;
- row labels, aisle dimensions (real DIMENSION entities), and paper space: a site overview, one sheet
  per building (campuses) and one per hall on ISO A1 with a locked viewport at a standard scale.

The output is deterministic: handles are given out in a fixed order, and the header dates and GUIDs are
fixed (the dates come from the site file's ``site.date``), so the same design gives the same bytes.
"""

from __future__ import annotations

import io
import math
import re
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import ezdxf
import numpy as np
import pandas as pd
from ezdxf import revcloud
from ezdxf.document import Drawing
from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import BaseLayout, Paperspace
from ezdxf.tools.juliandate import juliandate

from layout.export import atomic
from layout.export.labels import Board, Box, grow, runs_text, text_box, text_width
from layout.model import RackTemplate
from layout.scene import MEDIA_CLASSES, Scene, scene_from_parts, scene_of, tray_edge_table
from layout.sheet_names import building_sheet, hall_sheet, power_sheet
from layout.violations import hall_key

if TYPE_CHECKING:
    from layout.design import Design

__all__ = ["Scene", "scene_from_parts", "tray_edge_table"]  # the scene's, re-exported for callers of old

MM_PER_M = 1000.0
DXF_VERSION = "R2018"
PAPER_A1_MM = (841.0, 594.0)
# Standard plot scales (1:n); a sheet takes the largest one at which its area fits the viewport.
STANDARD_SCALES = (20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
APPID = "DCLAYOUT"
# Text on paper (mm): nothing plots smaller than MIN_TEXT_MM, notes at NOTE_MM, titles at TITLE_MM or more.
# A label that cannot be that big where it goes is shortened or left off that sheet, never shrunk.
MIN_TEXT_MM = 1.8
NOTE_MM = 2.0
TITLE_MM = 2.5


# ------------------------------------------------------------------------------------------- layers
@dataclass(frozen=True)
class Layer:
    """One CAD layer: name in discipline-major-minor form, AutoCAD colour index, linetype, pen width."""

    name: str
    color: int
    linetype: str
    lineweight_mm: float
    description: str
    plot: bool = True
    transparency: float = 0.0  # 0 opaque .. 1 invisible; trays are translucent so racks show through

    @property
    def lineweight(self) -> int:
        """DXF lineweight code (hundredths of a millimetre)."""
        return round(self.lineweight_mm * 100)


LAYERS: tuple[Layer, ...] = (
    Layer("A-BLDG-OTLN", 7, "Continuous", 0.70, "Building outline (exterior walls)"),
    Layer("A-HALL-OTLN", 7, "Continuous", 0.50, "Data hall walls"),
    Layer("A-AREA-KOUT", 6, "DASHED", 0.35, "Keep-out zones (electrical rooms, CDU galleries)"),
    Layer("A-AREA-PATT", 9, "Continuous", 0.13, "Keep-out hatch"),
    Layer("A-DOOR-IDEN", 7, "Continuous", 0.25, "Building entry (where the campus ducts come in)"),
    Layer("S-COLS", 8, "Continuous", 0.50, "Structural columns"),
    Layer("E-RACK-GPU", 5, "Continuous", 0.35, "GPU racks"),
    Layer("E-RACK-NETW", 3, "Continuous", 0.35, "Leaf network racks"),
    Layer("E-RACK-SPIN", 94, "Continuous", 0.35, "Spine racks"),
    Layer("E-RACK-MDF", 6, "Continuous", 0.35, "Core / MDF racks"),
    Layer("E-RACK-STOR", 44, "Continuous", 0.35, "Storage racks"),
    Layer("E-RACK-MGMT", 8, "Continuous", 0.35, "Management racks"),
    Layer("M-EQPM-CDU", 150, "Continuous", 0.35, "Coolant distribution units"),
    Layer(
        "E-RACK-IDEN", 7, "Continuous", 0.18, "Rack tags and attributes (id, template, kW, GPUs, row, hall)"
    ),
    Layer("E-TRAY", 31, "Continuous", 0.25, "Overhead cable trays, drawn at tray width", transparency=0.6),
    Layer("E-TRAY-RISR", 30, "Continuous", 0.25, "Tray risers"),
    Layer("E-TRAY-DUCT", 31, "DASHED", 0.50, "Campus ducts between buildings", transparency=0.6),
    Layer("E-TRAY-IDEN", 30, "Continuous", 0.18, "Tray labels: cables per medium and fill per segment"),
    Layer("E-CABL-DAC", 16, "Continuous", 0.25, "Cable bundles: passive copper DAC"),
    Layer("E-CABL-AEC", 32, "Continuous", 0.25, "Cable bundles: active electrical cables"),
    Layer("E-CABL-MMF", 130, "Continuous", 0.25, "Cable bundles: multimode fibre"),
    Layer("E-CABL-SMF", 40, "Continuous", 0.25, "Cable bundles: single-mode fibre"),
    Layer("E-CABL-COHR", 200, "Continuous", 0.25, "Cable bundles: coherent optics"),
    Layer("E-CABL-UTP", 8, "Continuous", 0.25, "Cable bundles: twisted-pair copper (out-of-band)"),
    Layer("E-POWR", 212, "Continuous", 0.25, "Power: row and hall IT load"),
    Layer("G-ANNO-VIOL", 1, "Continuous", 0.50, "Design-rule violations (revision clouds)"),
    Layer("G-ANNO-TEXT", 7, "Continuous", 0.25, "Notes at hall scale: hall and row labels"),
    Layer(
        "G-ANNO-OVER",
        7,
        "Continuous",
        0.35,
        "Site-scale notes: building and hall names, duct labels",
    ),
    Layer("G-ANNO-DIMS", 7, "Continuous", 0.18, "Dimensions: aisles and halls"),
    Layer("G-ANNO-LEGN", 7, "Continuous", 0.25, "Legend"),
    Layer("G-ANNO-SYMB", 7, "Continuous", 0.25, "North arrow and scale bars"),
    Layer("G-TTLB", 7, "Continuous", 0.50, "Drawing border and title block"),
    Layer("G-VPRT", 8, "Continuous", 0.13, "Viewports (not plotted)", plot=False),
)

LAYER_BY_NAME = {ly.name: ly for ly in LAYERS}

RACK_LAYER = {
    "gpu": "E-RACK-GPU",
    "network": "E-RACK-NETW",
    "spine": "E-RACK-SPIN",
    "core": "E-RACK-MDF",
    "storage": "E-RACK-STOR",
    "management": "E-RACK-MGMT",
    "cdu": "M-EQPM-CDU",
}
MEDIA_LAYER = dict(
    zip(MEDIA_CLASSES, ("E-CABL-DAC", "E-CABL-AEC", "E-CABL-MMF", "E-CABL-SMF", "E-CABL-COHR", "E-CABL-UTP"),
        strict=True)
)  # fmt: skip
MEDIA_TAG = {m: layer.rsplit("-", 1)[1] for m, layer in MEDIA_LAYER.items()}  # DAC, ..., COHR, UTP
# Layers that only make sense at one of the two kinds of sheet: frozen in the other's viewports.
HALL_ONLY_LAYERS = ("E-RACK-IDEN", "E-TRAY-IDEN", "G-ANNO-DIMS", "G-ANNO-TEXT", "E-POWR")
OVERVIEW_ONLY_LAYERS = ("G-ANNO-OVER",)
# the power sheet of a hall shows the chain (busways on E-POWR) and leaves the cabling out
CABLING_LAYERS = (
    "E-TRAY",
    "E-TRAY-RISR",
    "E-TRAY-IDEN",
    *(f"E-CABL-{t}" for t in ("DAC", "AEC", "MMF", "SMF", "COHR", "UTP")),
)

# (name, description, pattern in paper millimetres: [total, dash, gap, ...]); scaled by $LTSCALE.
LINETYPES = (
    ("DASHED", "Dashed __ __ __", (8.0, 6.0, -2.0)),
    ("CENTER", "Center ____ _ ____ _", (22.0, 16.0, -2.0, 2.0, -2.0)),
)

# Text styles: ISO 3098 lettering for notes, a plain sans for the title block.
TEXT_STYLES = (("DCL-ISO", "isocp.shx"), ("DCL-TITLE", "arial.ttf"))
NOTE_STYLE = "DCL-ISO"
TITLE_STYLE = "DCL-TITLE"

# ATTRIB tags on every rack INSERT (invisible: CAD programs list them, data extraction reads them). The
# visible tag (K07) is a TEXT beside the INSERT, because LibreCAD does not display attributes.
RACK_ATTRIBS = ("RACK_ID", "TEMPLATE", "KW", "GPUS", "ROW", "HALL")


def layer_table() -> tuple[Layer, ...]:
    """The layer table the drawing declares (for tests and the README)."""
    return LAYERS


def layer_table_markdown() -> str:
    """The layer table as a Markdown table (name, colour, linetype, lineweight, plotted, content)."""
    out = ["| Layer | Colour | Linetype | Lineweight | Plotted | Content |", "|---|---|---|---|---|---|"]
    for ly in LAYERS:
        out.append(
            f"| {ly.name} | {ly.color} | {ly.linetype} | {ly.lineweight_mm:.2f} mm | "
            f"{'yes' if ly.plot else 'no'} | {ly.description} |"
        )
    return "\n".join(out)


def rack_block_name(template_id: str) -> str:
    """Block name of a rack template: RACK-<ID> in upper case, characters CAD programs accept."""
    return "RACK-" + re.sub(r"[^A-Z0-9_-]", "_", template_id.upper())


def column_block_name(size_m: tuple[float, float]) -> str:
    w, d = (round(v * MM_PER_M) for v in size_m)
    return f"S-COL-{w}X{d}"


# ----------------------------------------------------------------------------------------- sheets
# A1 landscape: 20 mm binding margin on the left, 10 mm elsewhere; a 180 mm column on the right holds
# the legend, north arrow, scale bar and title block; the viewport fills the rest.
FRAME = (20.0, 10.0, 831.0, 584.0)
SIDE_X = FRAME[2] - 180.0
VIEW_BOX = (FRAME[0] + 5.0, FRAME[1] + 14.0, SIDE_X - 5.0, FRAME[3] - 5.0)
PLOT_FLAGS = 32 | 128 | 512  # PLOTSETTINGS 70: plot plot styles, print lineweights, viewports first
VIEW_MARGIN_MM = 12.0  # paper kept free around the drawn area for dimensions and labels


@dataclass(frozen=True)
class Sheet:
    name: str  # layout tab
    title: str  # second title line, e.g. "Hall B1/H1: racks, trays and cabling"
    bbox_m: tuple[float, float, float, float]
    scale: int
    kind: str  # "site", "building", "hall", "power"
    hall: str = ""  # the hall a hall or power sheet draws, "B1/H1" (ids may hold "-": not from the name)


def fit_scale(width_m: float, height_m: float) -> int:
    """The largest standard scale (smallest 1:n) at which width x height fits the sheet's viewport."""
    vw = VIEW_BOX[2] - VIEW_BOX[0] - 2 * VIEW_MARGIN_MM
    vh = VIEW_BOX[3] - VIEW_BOX[1] - 2 * VIEW_MARGIN_MM
    for n in STANDARD_SCALES:
        if width_m * MM_PER_M / n <= vw and height_m * MM_PER_M / n <= vh:
            return n
    return STANDARD_SCALES[-1]


def _bbox(points: Sequence[tuple[float, float]]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def _union(boxes: Sequence[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def plan_sheets(scene: Scene) -> list[Sheet]:
    """Site overview, one sheet per building when there are several, one per hall."""
    site = scene.site
    boxes = [_bbox(b.footprint) for b in site.building]
    for d in site.duct:
        if d.path:
            boxes.append(_bbox(d.path))
    site_box = _union(boxes)
    sheets = [
        Sheet(
            "00 SITE",
            "Site plan: buildings, halls and campus ducts",
            site_box,
            fit_scale(site_box[2] - site_box[0], site_box[3] - site_box[1]),
            "site",
        )
    ]
    multi = len(site.building) > 1
    for b in site.building:
        if multi:
            bb = _bbox(b.footprint)
            sheets.append(
                Sheet(
                    building_sheet(b.id),
                    f"Building {b.id}: halls and racks",
                    bb,
                    fit_scale(bb[2] - bb[0], bb[3] - bb[1]),
                    "building",
                )
            )
        for h in b.hall:
            hb = _bbox(h.polygon)
            sheets.append(
                Sheet(
                    hall_sheet(b.id, h.id),
                    f"Hall {b.id}/{h.id}: racks, trays and cabling",
                    hb,
                    fit_scale(hb[2] - hb[0], hb[3] - hb[1]),
                    "hall",
                    f"{b.id}/{h.id}",
                )
            )
    if scene.busways is not None:  # a power sheet per hall with a power chain, after the plans
        chained = set(scene.busways["hall"])
        for b in site.building:
            for h in b.hall:
                if f"{b.id}/{h.id}" in chained:
                    hb = _bbox(h.polygon)
                    sheets.append(
                        Sheet(
                            power_sheet(b.id, h.id),
                            f"Hall {b.id}/{h.id}: power chain, busways A and B, UPS blocks, CDUs",
                            hb,
                            fit_scale(hb[2] - hb[0], hb[3] - hb[1]),
                            "power",
                            f"{b.id}/{h.id}",
                        )
                    )
    return sheets


# -------------------------------------------------------------------------------- the document
def _new_document(scene: Scene, hall_scale: int) -> Drawing:
    doc = ezdxf.new(DXF_VERSION, units=4, setup=False)
    hdr = doc.header
    hdr["$MEASUREMENT"] = 1  # metric
    hdr["$LUNITS"] = 2  # decimal
    hdr["$LUPREC"] = 0  # whole millimetres
    hdr["$AUNITS"] = 0
    hdr["$AUPREC"] = 0
    # Linetype patterns are in paper millimetres: scaled by the usual hall plot scale, not per viewport.
    hdr["$LTSCALE"] = float(hall_scale)
    hdr["$PSLTSCALE"] = 0
    hdr["$LWDISPLAY"] = 1
    hdr["$TEXTSTYLE"] = NOTE_STYLE
    hdr["$PROJECTNAME"] = scene.site.site.name[:255]
    for name, desc, pattern in LINETYPES:
        doc.linetypes.add(name, list(pattern), description=desc)
    for name, font in TEXT_STYLES:
        doc.styles.add(name, font=font)
    for ly in LAYERS:
        layer = doc.layers.add(
            ly.name,
            color=ly.color,
            linetype=ly.linetype,
            lineweight=ly.lineweight,
            plot=ly.plot,
            transparency=ly.transparency or None,
        )
        layer.description = ly.description
    doc.appids.add(APPID)
    return doc


DIMSTYLE_MM = {
    "dimtxt": 2.0,
    "dimasz": 2.0,
    "dimexe": 1.0,
    "dimexo": 0.0,
    "dimgap": 0.8,
    "dimtad": 0,
    "dimtih": 1,
    "dimtoh": 1,
    "dimdec": 0,
    "dimzin": 8,
    "dimlunit": 2,
    "dimlfac": 1.0,
    "dimtix": 0,
    "dimtofl": 1,
}


def _dimstyle(doc: Drawing, scale: int) -> str:
    """One dimension style per plot scale: sizes in paper millimetres, DIMSCALE = the scale."""
    name = f"DCL-1-{scale}"
    if name not in doc.dimstyles:
        doc.dimstyles.add(name, dxfattribs={**DIMSTYLE_MM, "dimscale": float(scale), "dimtxsty": NOTE_STYLE})
    return name


def _current_dimstyle(doc: Drawing, scale: int) -> None:
    """Make the hall scale's style current; LibreCAD draws every dimension from these header values."""
    name = _dimstyle(doc, scale)
    doc.header["$DIMSTYLE"] = name
    doc.header["$DIMSCALE"] = float(scale)
    for key, value in DIMSTYLE_MM.items():
        doc.header["$" + key.upper()] = value


# ------------------------------------------------------------------------------------------ blocks
def _define_rack_block(doc: Drawing, tpl: RackTemplate, longest: int) -> None:
    """Footprint (width along the row, depth across it), front marker on the +y side, ATTDEFs inside
    the outline (``longest``: characters of the longest attribute value, see :func:`rack_marks`)."""
    w, d = tpl.width_mm / 2.0, tpl.depth_mm / 2.0
    blk = doc.blocks.new(rack_block_name(tpl.id), dxfattribs={"description": tpl.name[:255]})
    blk.add_lwpolyline([(-w, -d), (w, -d), (w, d), (-w, d)], close=True)
    # front marker: a filled band along the front face and a notch pointing out of the front
    band = _front_band_mm(tpl.depth_mm)
    blk.add_solid([(-w, d - band), (w, d - band), (-w, d), (w, d)])
    blk.add_solid([(-w * 0.25, d - band), (w * 0.25, d - band), (0.0, d - band - w * 0.3)])
    h = attrib_height_mm(tpl, longest)
    for tag, at in zip(RACK_ATTRIBS, attrib_offsets_mm(tpl, h), strict=True):
        attdef = blk.add_attdef(tag, at, "", height=h)
        attdef.dxf.style = NOTE_STYLE
        attdef.dxf.prompt = tag.replace("_", " ").lower()
        attdef.is_invisible = True


def _define_column_block(doc: Drawing, size_m: tuple[float, float]) -> str:
    name = column_block_name(size_m)
    if name in doc.blocks:
        return name
    w, d = size_m[0] * MM_PER_M / 2.0, size_m[1] * MM_PER_M / 2.0
    blk = doc.blocks.new(name, dxfattribs={"description": f"Column {2 * w:.0f} x {2 * d:.0f} mm"})
    blk.add_lwpolyline([(-w, -d), (w, -d), (w, d), (-w, d)], close=True)
    hatch = blk.add_hatch()
    hatch.set_solid_fill(color=256)
    hatch.paths.add_polyline_path([(-w, -d), (w, -d), (w, d), (-w, d)], is_closed=True)
    return name


def _define_riser_block(doc: Drawing) -> str:
    name = "E-RISER"
    if name not in doc.blocks:
        s = 300.0
        blk = doc.blocks.new(name, dxfattribs={"description": "Tray riser (vertical run)"})
        blk.add_lwpolyline([(-s, -s), (s, -s), (s, s), (-s, s)], close=True)
        blk.add_line((-s, -s), (s, s))
        blk.add_line((-s, s), (s, -s))
    return name


def _define_north_arrow(doc: Drawing) -> str:
    """North arrow in paper millimetres: a circle, a half-filled arrow, N on top."""
    name = "G-NORTH"
    blk = doc.blocks.new(name, dxfattribs={"description": "North arrow (site y axis is north)"})
    r = 9.0
    blk.add_circle((0, 0), r)
    blk.add_lwpolyline([(0, r + 1.5), (-4.5, -r + 2), (0, -r + 5.5), (4.5, -r + 2)], close=True)
    blk.add_solid([(0, r + 1.5), (0, -r + 5.5), (4.5, -r + 2)])
    t = blk.add_text("N", height=5.0, dxfattribs={"style": TITLE_STYLE})
    t.set_placement((0, r + 3.0), align=TextEntityAlignment.BOTTOM_CENTER)
    return name


def _nice_bar(scale: int) -> tuple[float, int]:
    """Scale bar length in metres (a 1-2-5 step) close to 100 mm of paper, and its division count."""
    target_m = 100.0 * scale / MM_PER_M
    exp = math.floor(math.log10(target_m))
    best = 1.0
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * 10**exp <= target_m:
            best = step * 10**exp
    divisions = 5 if best / 10**exp in (1.0, 5.0, 10.0) else 4
    return best, divisions


def _define_scale_bar(doc: Drawing, scale: int) -> str:
    name = f"G-SCALEBAR-1-{scale}"
    if name in doc.blocks:
        return name
    length_m, div = _nice_bar(scale)
    length_mm = length_m * MM_PER_M / scale
    seg = length_mm / div
    h = 3.0
    blk = doc.blocks.new(name, dxfattribs={"description": f"Scale bar 1:{scale}, {length_m:g} m"})
    for i in range(div):
        x0, x1 = i * seg, (i + 1) * seg
        blk.add_lwpolyline([(x0, 0), (x1, 0), (x1, h), (x0, h)], close=True)
        if i % 2 == 0:
            blk.add_solid([(x0, 0), (x1, 0), (x0, h), (x1, h)])
    for i in range(div + 1):
        value = length_m * i / div
        label = f"{value:g}" + (" m" if i == div else "")
        t = blk.add_text(label, height=2.5, dxfattribs={"style": NOTE_STYLE})
        t.set_placement((i * seg, h + 1.5), align=TextEntityAlignment.BOTTOM_CENTER)
    t = blk.add_text(f"SCALE 1:{scale} (A1)", height=3.5, dxfattribs={"style": NOTE_STYLE})
    t.set_placement((0, -2.5), align=TextEntityAlignment.TOP_LEFT)
    return name


TITLE_W, TITLE_H = 180.0, 70.0
# Title block fields (ATTDEF tag: x, y of the text's start, height, style), base point lower right.
TITLE_FIELDS = {
    "TITLE": (-178.0, 34.0, 7.0, TITLE_STYLE),
    "SUBTITLE": (-178.0, 27.0, 3.5, TITLE_STYLE),
    "SUMMARY": (-178.0, 22.0, 2.5, NOTE_STYLE),
    "SOURCE": (-178.0, 49.0, 2.5, NOTE_STYLE),
    "DWG_NO": (-178.0, 1.5, 3.5, NOTE_STYLE),
    "REV": (-68.0, 11.5, 3.5, NOTE_STYLE),
    "DATE": (-178.0, 11.5, 3.5, NOTE_STYLE),
    "SCALE": (-108.0, 11.5, 3.5, NOTE_STYLE),
    "SHEET": (-43.0, 11.5, 3.5, NOTE_STYLE),
}


def _define_title_block(doc: Drawing) -> str:
    """ISO 7200-style title block, 180 x 70 mm, base point at its lower right corner: from the bottom,
    drawing number / size / units, date / scale / revision / sheet, title (site name, sheet title,
    summary), source file, and the program that drew it."""
    name = "G-TTLB-A1"
    blk = doc.blocks.new(name, dxfattribs={"description": "Title block, ISO A1"})
    x0 = -TITLE_W
    blk.add_lwpolyline([(x0, 0), (0, 0), (0, TITLE_H), (x0, TITLE_H)], close=True)
    for y in (10.0, 20.0, 46.0, 58.0):
        blk.add_line((x0, y), (0, y))
    for x, y0, y1 in ((-70.0, 0.0, 20.0), (-45.0, 0.0, 20.0), (-110.0, 10.0, 20.0)):
        blk.add_line((x, y0), (x, y1))
    captions = (
        ("DRAWING NUMBER", x0, 10.0), ("SIZE", -70.0, 10.0), ("UNITS", -45.0, 10.0), ("DATE", x0, 20.0),
        ("SCALE", -110.0, 20.0), ("REV", -70.0, 20.0), ("SHEET", -45.0, 20.0), ("TITLE", x0, 46.0),
        ("SOURCE", x0, 58.0),
    )  # fmt: skip
    for text, x, y in captions:
        t = blk.add_text(text, height=1.8, dxfattribs={"style": NOTE_STYLE})
        t.set_placement((x + 1.2, y - 1.2), align=TextEntityAlignment.TOP_LEFT)
    for text, x in (("A1", -68.0), ("mm", -43.0)):
        t = blk.add_text(text, height=3.5, dxfattribs={"style": NOTE_STYLE})
        t.set_placement((x, 1.5))
    for tag, (x, y, h, style) in TITLE_FIELDS.items():
        a = blk.add_attdef(tag, (x, y), "", height=h)
        a.dxf.style = style
        a.dxf.prompt = tag.replace("_", " ").lower()
    t = blk.add_text("dclayout", height=5.0, dxfattribs={"style": TITLE_STYLE})
    t.set_placement((x0 + 2.0, 61.0))
    t = blk.add_text(
        "floor plan, cabling and power of AI clusters", height=2.2, dxfattribs={"style": NOTE_STYLE}
    )
    t.set_placement((-2.0, 61.0), align=TextEntityAlignment.BOTTOM_RIGHT)
    return name


LEGEND_W = 170.0
LEGEND_ROW = 6.5


def legend_layers() -> list[Layer]:
    """The layers the legend explains: everything drawn in the model."""
    skip = {"G-ANNO-LEGN", "G-ANNO-SYMB", "G-TTLB", "G-VPRT"}
    return [ly for ly in LAYERS if ly.name not in skip]


def _define_legend(doc: Drawing, ltscale: float) -> str:
    """One swatch per model layer, drawn on that layer (so it shows its colour and linetype)."""
    name = "G-LEGEND"
    blk = doc.blocks.new(name, dxfattribs={"description": "Legend of layers"})
    rows = legend_layers()
    height = 12.0 + LEGEND_ROW * len(rows)
    blk.add_lwpolyline([(0, 0), (LEGEND_W, 0), (LEGEND_W, -height), (0, -height)], close=True)
    t = blk.add_text("LEGEND", height=5.0, dxfattribs={"style": TITLE_STYLE})
    t.set_placement((4.0, -3.0), align=TextEntityAlignment.TOP_LEFT)
    y = -12.0 - LEGEND_ROW / 2
    for ly in rows:
        # paper millimetres: undo $LTSCALE (set for the model at hall scale) so dashes read as in the plan
        attrs: dict[str, Any] = {"layer": ly.name, "ltscale": 1.0 / ltscale}
        x0, x1 = 4.0, 24.0
        if ly.name in ("G-ANNO-TEXT", "G-ANNO-OVER", "E-RACK-IDEN", "E-TRAY-IDEN", "E-POWR"):
            sample = {
                "E-RACK-IDEN": "K07",
                "E-TRAY-IDEN": "412 | 38%",
                "E-POWR": "412 kW",
                "G-ANNO-OVER": "B1",
            }
            t = blk.add_text(
                sample.get(ly.name, "R03"), height=2.5, dxfattribs={**attrs, "style": NOTE_STYLE}
            )
            t.set_placement(((x0 + x1) / 2, y), align=TextEntityAlignment.MIDDLE_CENTER)
        elif ly.name.startswith(("E-RACK", "M-EQPM")):
            blk.add_lwpolyline(
                [(x0 + 6, y - 2.2), (x1 - 6, y - 2.2), (x1 - 6, y + 2.2), (x0 + 6, y + 2.2)],
                close=True,
                dxfattribs=attrs,
            )
            blk.add_solid(
                [(x0 + 6, y + 1.6), (x1 - 6, y + 1.6), (x0 + 6, y + 2.2), (x1 - 6, y + 2.2)], dxfattribs=attrs
            )
        elif ly.name == "S-COLS":
            blk.add_solid(
                [(x0 + 8, y - 2), (x1 - 8, y - 2), (x0 + 8, y + 2), (x1 - 8, y + 2)], dxfattribs=attrs
            )
        elif ly.name == "G-ANNO-VIOL":
            revcloud.add_entity(
                blk, [(x0, y - 2.2), (x1, y - 2.2), (x1, y + 2.2), (x0, y + 2.2)], 2.5, dxfattribs=attrs
            )
        elif ly.name.startswith("E-CABL") or ly.name == "E-TRAY":
            blk.add_lwpolyline(
                [(x0, y), (x1, y)], dxfattribs={**attrs, "const_width": 2.0 if ly.name == "E-TRAY" else 1.0}
            )
        elif ly.name == "G-ANNO-DIMS":
            blk.add_line((x0, y), (x1, y), dxfattribs=attrs)
            for x in (x0, x1):
                blk.add_line((x - 1, y - 1), (x + 1, y + 1), dxfattribs=attrs)
        elif ly.name == "E-TRAY-RISR":
            blk.add_lwpolyline(
                [(11, y - 2), (17, y - 2), (17, y + 2), (11, y + 2)], close=True, dxfattribs=attrs
            )
            blk.add_line((11, y - 2), (17, y + 2), dxfattribs=attrs)
            blk.add_line((11, y + 2), (17, y - 2), dxfattribs=attrs)
        else:
            blk.add_line((x0, y), (x1, y), dxfattribs=attrs)
        t = blk.add_text(ly.name, height=2.2, dxfattribs={"style": NOTE_STYLE})
        t.set_placement((28.0, y), align=TextEntityAlignment.MIDDLE_LEFT)
        t = blk.add_text(ly.description, height=2.2, dxfattribs={"style": NOTE_STYLE})
        t.set_placement((58.0, y), align=TextEntityAlignment.MIDDLE_LEFT)
        y -= LEGEND_ROW
    return name


# ------------------------------------------------------------------------------------ model space
class _Scales:
    """The plot scale that sizes the annotation of each place: its hall's sheet, else the site's."""

    def __init__(self, scene: Scene, sheets: Sequence[Sheet]) -> None:
        self.site = sheets[0].scale
        self.hall = {s.hall: s.scale for s in sheets if s.kind == "hall"}
        self.building: dict[str, int] = {}
        for b in scene.site.building:
            mine = [self.hall[f"{b.id}/{h.id}"] for h in b.hall if f"{b.id}/{h.id}" in self.hall]
            self.building[b.id] = min(mine) if mine else self.site
        values = sorted(self.hall.values())
        # the hall scale most sheets use (ties: the finer one) sets $LTSCALE and the current dimstyle
        self.main = max(values, key=lambda s: (values.count(s), -s)) if values else self.site

    def of(self, where: str) -> int:
        """Scale for a hall key, anything inside a hall (B1/H1/R03/K07), a building id, else the site."""
        parts = where.split("/")
        if len(parts) >= 2 and f"{parts[0]}/{parts[1]}" in self.hall:
            return self.hall[f"{parts[0]}/{parts[1]}"]
        return self.building.get(parts[0], self.site)


def _text(
    space: BaseLayout,
    text: str,
    at: tuple[float, float],
    height: float,
    layer: str,
    align: TextEntityAlignment = TextEntityAlignment.MIDDLE_CENTER,
    rotation: float = 0.0,
    board: Board | None = None,
) -> Box:
    """A TEXT in the note style; its box is taken on ``board`` (if given) and returned."""
    t = space.add_text(
        text, height=height, rotation=rotation, dxfattribs={"layer": layer, "style": NOTE_STYLE}
    )
    t.set_placement(at, align=align)
    box = text_box(text, at, height, align.name, rotation)
    if board is not None:
        board.take(grow(box, 0.1 * height))
    return box


class Spot(NamedTuple):
    """One place a label may go: text, anchor point, height, alignment, rotation."""

    text: str
    at: tuple[float, float]
    height: float
    align: TextEntityAlignment = TextEntityAlignment.MIDDLE_CENTER
    rotation: float = 0.0

    def box(self) -> Box:
        return grow(
            text_box(self.text, self.at, self.height, self.align.name, self.rotation), 0.15 * self.height
        )


def _first_free(board: Board, spots: Sequence[Spot]) -> Spot | None:
    """The first of ``spots`` whose box is free on ``board`` (now taken), or None: the label is left off."""
    i = board.place(s.box() for s in spots)
    return None if i is None else spots[i]


def _label(space: BaseLayout, board: Board, layer: str, spots: Sequence[Spot]) -> Spot | None:
    """Draw the label at the first free of ``spots``; None (nothing drawn) when every one is taken."""
    got = _first_free(board, spots)
    if got is not None:
        _text(space, got.text, got.at, got.height, layer, got.align, got.rotation)
    return got


def _mm(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    return [(x * MM_PER_M, y * MM_PER_M) for x, y in points]


def _overview_label(msp: BaseLayout, text: str, at: tuple[float, float], height: float) -> None:
    """A site-scale name over a hall: MTEXT with a background mask so it reads over the racks."""
    mt = msp.add_mtext(text, dxfattribs={"layer": "G-ANNO-OVER", "style": NOTE_STYLE, "char_height": height})
    mt.set_location(at, attachment_point=ezdxf.const.MTEXT_MIDDLE_CENTER)
    mt.set_bg_color(None, scale=1.3)  # None: the canvas colour


def _clear_spot(
    racks: pd.DataFrame,
    hall: str,
    box: tuple[float, float, float, float],
    keepouts: Sequence[tuple[float, float, float, float]] = (),
    reach_m: float = 0.0,
) -> tuple[float, float]:
    """Where a hall's overview name sits: of the centre and eight spots around it (a 3 x 3 grid over the
    hall), the one farthest from any rack and not within ``reach_m`` of a keep-out's box (ties: nearest
    the centre). Returns millimetres."""
    x0, y0, x1, y1 = box
    mine = racks[racks["hall"] == hall] if not racks.empty else racks
    xs = mine["x_m"].to_numpy(float) if not mine.empty else np.zeros(0)
    ys = mine["y_m"].to_numpy(float) if not mine.empty else np.zeros(0)
    spots = [(fx, fy) for fy in (0.5, 0.2, 0.8) for fx in (0.5, 0.2, 0.8)]

    def clearance(fx: float, fy: float) -> float:
        cx, cy = x0 + (x1 - x0) * fx, y0 + (y1 - y0) * fy
        if any(
            k[0] - reach_m < cx < k[2] + reach_m and k[1] - reach_m < cy < k[3] + reach_m for k in keepouts
        ):
            return -1.0
        return float(np.hypot(xs - cx, ys - cy).min()) if len(xs) else math.inf

    fx, fy = max(spots, key=lambda s: (round(clearance(*s), 1), -abs(s[0] - 0.5) - abs(s[1] - 0.5)))
    return ((x0 + (x1 - x0) * fx) * MM_PER_M, (y0 + (y1 - y0) * fy) * MM_PER_M)


def _fit_height(text: str, height: float, width: float) -> float:
    """The text height, reduced so the text (about 0.8 x height per character) fits ``width``."""
    return min(height, width / (0.8 * max(len(text), 1)))


@dataclass
class _Boards:
    """What is taken on the hall sheets (model mm, hall-scale notes) and on the overview sheets (site and
    building sheets, site-scale notes): a label keeps clear of those on the sheets it shows on."""

    hall: Board
    over: Board


def _draw_site(msp: BaseLayout, doc: Drawing, scene: Scene, scales: _Scales, boards: _Boards) -> None:
    """Building outlines and entries, hall walls and names, columns, keep-outs, hall dimensions."""
    site = scene.site
    over_h = 5.0 * scales.site
    hall_kw = scene.racks.groupby("hall")["power_kw"].sum().to_dict() if not scene.racks.empty else {}
    for b in site.building:
        msp.add_lwpolyline(_mm(b.footprint), close=True, dxfattribs={"layer": "A-BLDG-OTLN"})
        bx0, by0, bx1, by1 = _bbox(b.footprint)
        _text(
            msp,
            f"BUILDING {b.id}",
            ((bx0 + bx1) / 2 * MM_PER_M, by1 * MM_PER_M + over_h * 0.6),
            over_h,
            "G-ANNO-OVER",
            TextEntityAlignment.BOTTOM_CENTER,
            board=boards.over,
        )
        if b.entry is not None:
            bs = scales.building[b.id]
            ex, ey = b.entry[0] * MM_PER_M, b.entry[1] * MM_PER_M
            msp.add_circle((ex, ey), 2.5 * bs, dxfattribs={"layer": "A-DOOR-IDEN"})
            # the word twice: at the halls' scale for the hall sheets, under the circle; at the site's
            # for the overviews, outside the building on the side of the wall the entry is on, where it
            # does not stand on the halls' racks
            _text(msp, "ENTRY", (ex, ey - 3.0 * bs), NOTE_MM * bs, "G-ANNO-TEXT", TextEntityAlignment.TOP_CENTER,
                  board=boards.hall)  # fmt: skip
            at, align = _outside(b.entry, (bx0, by0, bx1, by1), 2.5 * bs + 0.5 * NOTE_MM * scales.site)
            _text(msp, "ENTRY", at, NOTE_MM * scales.site, "G-ANNO-OVER", align, board=boards.over)
        for h in b.hall:
            key = f"{b.id}/{h.id}"
            sc = scales.of(key)
            msp.add_lwpolyline(_mm(h.polygon), close=True, dxfattribs={"layer": "A-HALL-OTLN"})
            box = _bbox(h.polygon)
            hx0, hy0, hx1, hy1 = (v * MM_PER_M for v in box)
            dim_below = b.entry is None or b.entry[1] >= (box[1] + box[3]) / 2
            label_y = hy1 + 1.5 * sc if dim_below else hy0 - 1.5 * sc
            align = TextEntityAlignment.BOTTOM_CENTER if dim_below else TextEntityAlignment.TOP_CENTER
            _text(
                msp,
                f"HALL {key}",
                ((hx0 + hx1) / 2, label_y),
                3.5 * sc,
                "G-ANNO-TEXT",
                align,
                board=boards.hall,
            )
            right = TextEntityAlignment.BOTTOM_RIGHT if dim_below else TextEntityAlignment.TOP_RIGHT
            limit = f" of {h.it_mw:g} MW" if h.it_mw else ""
            _text(
                msp,
                f"IT {hall_kw.get(key, 0.0) / 1000:,.2f} MW{limit}",
                (hx1, label_y),
                TITLE_MM * sc,
                "E-POWR",
                right,
                board=boards.hall,
            )
            kboxes = [_bbox(k.polygon) for k in h.keepouts]
            spot = _clear_spot(scene.racks, key, box, kboxes, 2.5 * over_h / MM_PER_M)
            _overview_label(msp, key, spot, over_h)
            boards.over.take(text_box(key, spot, over_h))
            for c in h.columns:
                name = _define_column_block(doc, c.size_m)
                msp.add_blockref(
                    name, (c.at[0] * MM_PER_M, c.at[1] * MM_PER_M), dxfattribs={"layer": "S-COLS"}
                )
            for k in h.keepouts:
                pts = _mm(k.polygon)
                msp.add_lwpolyline(pts, close=True, dxfattribs={"layer": "A-AREA-KOUT"})
                hatch = msp.add_hatch(dxfattribs={"layer": "A-AREA-PATT"})
                hatch.set_pattern_fill("ANSI31", scale=0.5 * sc)
                hatch.paths.add_polyline_path(pts, is_closed=True)
                _keepout_text(msp, boards.hall, _bbox(k.polygon), k.reason, sc)
            _hall_dims(msp, doc, box, b.entry, sc, boards.hall)
    if scene.tray_edges is None:  # without cabling, draw the ducts' paths from the site file
        for d in site.duct:
            if d.path:
                msp.add_lwpolyline(_mm(d.path), dxfattribs={"layer": "E-TRAY-DUCT"})


def _outside(
    at_m: tuple[float, float], box_m: tuple[float, float, float, float], gap: float
) -> tuple[tuple[float, float], TextEntityAlignment]:
    """Where a label goes ``gap`` mm outside a point on a building's wall (its side: the one of the
    box's centre the point is farthest off), beside the duct that comes in there at right angles to
    the wall (above it on the west and east walls, right of it on the south and north), and its
    alignment."""
    dx, dy = at_m[0] - (box_m[0] + box_m[2]) / 2, at_m[1] - (box_m[1] + box_m[3]) / 2
    x, y = at_m[0] * MM_PER_M, at_m[1] * MM_PER_M
    side = gap / 4
    if abs(dx) >= abs(dy):
        if dx < 0:
            return (x - gap, y + side), TextEntityAlignment.BOTTOM_RIGHT
        return (x + gap, y + side), TextEntityAlignment.BOTTOM_LEFT
    if dy < 0:
        return (x + side, y - gap), TextEntityAlignment.TOP_LEFT
    return (x + side, y + gap), TextEntityAlignment.BOTTOM_LEFT


def keepout_lines(reason: str, width_mm: float, scale: int) -> list[tuple[str, float]]:
    """What a keep-out ``width_mm`` wide says at 1:``scale``, each line with its height: KEEP-OUT and
    its reason at 2.5 mm, else at 1.8 mm; a line that does not fit 90 % of the width even then is left
    off (the hatch still marks the area)."""
    out = []
    for text in ("KEEP-OUT", reason.upper()):
        h = next(
            (m * scale for m in (TITLE_MM, MIN_TEXT_MM) if text_width(text, m * scale) <= 0.9 * width_mm),
            None,
        )
        if text and h is not None:
            out.append((text, h))
    return out


def _keepout_text(msp: BaseLayout, board: Board, box_m: Box, reason: str, sc: int) -> None:
    kx0, ky0, kx1, ky1 = (v * MM_PER_M for v in box_m)
    cx, cy = (kx0 + kx1) / 2, (ky0 + ky1) / 2
    lines = keepout_lines(reason, kx1 - kx0, sc)
    for k, (text, h) in enumerate(lines):
        if len(lines) == 1:
            at, align = (cx, cy), TextEntityAlignment.MIDDLE_CENTER
        elif k == 0:
            at, align = (cx, cy + 0.2 * h), TextEntityAlignment.BOTTOM_CENTER
        else:
            at, align = (cx, cy - 0.2 * h), TextEntityAlignment.TOP_CENTER
        _label(msp, board, "G-ANNO-TEXT", [Spot(text, at, h, align)])


def _hall_dims(
    msp: BaseLayout,
    doc: Drawing,
    box: tuple[float, float, float, float],
    entry: tuple[float, float] | None,
    scale: int,
    board: Board,
) -> None:
    """Overall hall width and depth, on the sides away from the building entry (where the trunk comes in)."""
    x0, y0, x1, y1 = (v * MM_PER_M for v in box)
    style = _dimstyle(doc, scale)
    off = 6.0 * scale
    ex, ey = entry if entry is not None else (box[0], box[3])
    y = y0 - off if ey * MM_PER_M >= (y0 + y1) / 2 else y1 + off
    x = x1 + off if ex * MM_PER_M <= (x0 + x1) / 2 else x0 - off
    attrs = {"layer": "G-ANNO-DIMS"}
    t = DIMSTYLE_MM["dimtxt"] * scale  # the dimension lines and their texts, centred on them
    board.take((x0, y - t, x1, y + t))
    board.take((x - t, y0, x + t, y1))
    msp.add_linear_dim(base=(x0, y), p1=(x0, y0), p2=(x1, y0), dimstyle=style, dxfattribs=attrs).render()
    msp.add_linear_dim(
        base=(x, y0), p1=(x0, y0), p2=(x0, y1), angle=90, dimstyle=style, dxfattribs=attrs
    ).render()


def _fmt_kw(v: float) -> str:
    return f"{v:.1f}"


def _upright(angle: float) -> float:
    """A text angle that reads from the bottom or the right of the sheet, never upside down."""
    a = angle % 360.0
    return a - 180.0 if 90.0 < a <= 270.0 else a


def _draw_racks(msp: BaseLayout, scene: Scene, scales: _Scales, boards: _Boards) -> None:
    """One INSERT per rack with its ATTRIBs, and the visible position tag inside the rack.

    A campus has thousands of racks and six attributes each, and ezdxf spends ~50 us on every entity it
    builds and again on every one it writes: the racks are written instead as DXF text in one go
    (:func:`rack_entities_text`), with the handles ezdxf would have given them, and spliced into the
    model space when the document is written (:func:`document_bytes`). Same bytes as building them one
    by one; the in-memory document holds no rack entities (read the written file back to query them).
    The rows' rack bands are taken on the hall board: labels placed later stay in the aisles.
    """
    racks = scene.racks
    if racks.empty:
        return
    order = racks.sort_values("rack_id", kind="stable")
    doc = msp.doc
    assert doc is not None
    marks = rack_marks(order, scene.templates, scales)
    handles = doc.entitydb.handles
    first = handles._handle  # ezdxf's next handle: INSERT, SEQEND, six ATTRIBs, TEXT per rack
    handles._handle = first + RACK_HANDLES * len(order)
    text = rack_entities_text(order, marks, first, msp.layout_key)
    _splice(doc, len(msp.entity_space), 1, text)
    bands = order.groupby("row", sort=True).agg(x0=("x0_m", "min"), y0=("y0_m", "min"), x1=("x1_m", "max"),
                                                y1=("y1_m", "max"))  # fmt: skip
    for b in (bands.to_numpy(float) * MM_PER_M).tolist():
        boards.hall.take((b[0], b[1], b[2], b[3]))


RACK_HANDLES = 2 + len(RACK_ATTRIBS) + 1  # INSERT, SEQEND, ATTRIBs, tag TEXT
ATTRIB_LINE = 1.5  # attribute lines inside the rack: this many heights apart


def _front_band_mm(depth_mm: float) -> float:
    """Depth of the filled band along a rack's front face (the block's front marker)."""
    return min(80.0, 0.05 * depth_mm)


def _tag(code: int, value: object) -> str:
    return f"{code:3d}\n{value}\n"


def attrib_longest(racks: pd.DataFrame) -> int:
    """The longest attribute value of any rack: ids, templates, rows and halls (kW and GPUs are short)."""
    if racks.empty:
        return 6
    return int(
        max(6, *(racks[c].astype(str).str.len().max() for c in ("rack_id", "template", "row", "hall")))
    )


def attrib_height_mm(tpl: RackTemplate, longest: int) -> float:
    """Height of a template's (invisible) attributes: the six lines, ``longest`` characters at most,
    stand inside the rack outline (90 % of its width, 80 % of its depth behind the front band)."""
    d_free = tpl.depth_mm - 2.0 * _front_band_mm(tpl.depth_mm)
    return round(
        min(0.9 * tpl.width_mm / (0.8 * max(longest, 1)), 0.8 * d_free / (ATTRIB_LINE * len(RACK_ATTRIBS))), 1
    )


def attrib_offsets_mm(tpl: RackTemplate, h: float) -> list[tuple[float, float]]:
    """Where each attribute starts in the block (x across the width, y along the depth; front +y): one
    line under the other from behind the front band, from the outline's left edge."""
    top = tpl.depth_mm / 2.0 - 2.0 * _front_band_mm(tpl.depth_mm)
    return [(-0.45 * tpl.width_mm, top - ATTRIB_LINE * h * (k + 1)) for k in range(len(RACK_ATTRIBS))]


def rack_marks(order: pd.DataFrame, templates: Mapping[str, RackTemplate], scales: _Scales) -> pd.DataFrame:
    """Per rack (``order``'s rows): its position tag (K07) sized for its hall's sheet, and its attributes.

    The tag is NOTE_MM high on paper (down to MIN_TEXT_MM where the rack is small) across the rack, 30 %
    of the depth towards the front; when it does not fit across at that height (a 600 mm rack at 1:200
    is 3 mm of paper), it turns to read along the depth, centred behind the front band; when it fits
    neither way it is left off (``tag_h`` 0): the ATTRIBs still name the rack. Columns: ``tag_h,
    tag_x, tag_y, tag_rot`` (mm, degrees), ``attr_h`` and ``attr_x<k>, attr_y<k>`` per attribute."""
    codes, kinds = pd.factorize(order["template"].astype(str))  # per template, then per rack
    used = [templates[str(t)] for t in kinds]
    w = np.array([t.width_mm for t in used], float)[codes]
    d = np.array([t.depth_mm for t in used], float)[codes]
    band = np.array([_front_band_mm(t.depth_mm) for t in used], float)[codes]
    sc = order["hall"].astype(str).map(scales.hall).fillna(scales.site).to_numpy(float)
    chars = order["label"].astype(str).str.len().to_numpy(float)
    per = 0.8 * np.maximum(chars, 1.0)
    # across the rack: 75 % of the width (neighbours' tags stay apart); clear of the front band from 30 %
    across = np.minimum(0.75 * w / per, 2.0 * (0.2 * d - band))
    # along the depth: 90 % of the depth behind the band; its height within 70 % of the width
    along = np.minimum(0.9 * (d - band) / per, 0.7 * w)
    target, least = NOTE_MM * sc, MIN_TEXT_MM * sc
    fit_across = across >= least
    fit_along = ~fit_across & (along >= least)
    h = np.where(fit_across, np.minimum(target, across), np.where(fit_along, np.minimum(target, along), 0.0))
    h = np.round(h, 1)
    rot = order["rotation_deg"].to_numpy(float)
    a = np.radians(rot)
    fx, fy = -np.sin(a), np.cos(a)  # the rack's front: (0, 1) turned by its rotation
    off = np.where(fit_along, -band / 2.0, 0.3 * d)
    x = order["x_m"].to_numpy(float) * MM_PER_M
    y = order["y_m"].to_numpy(float) * MM_PER_M
    up = (np.where(fit_along, rot + 90.0, rot) + 360.0) % 360.0
    up = np.where((up > 90.0) & (up <= 270.0), up - 180.0, up)
    out = pd.DataFrame(
        {"tag_h": h, "tag_x": x + fx * off, "tag_y": y + fy * off, "tag_rot": up}, index=order.index
    )
    # attributes: one height per template, sized to the longest value any rack carries
    longest = attrib_longest(order)
    ah = [attrib_height_mm(t, longest) for t in used]
    out["attr_h"] = np.array(ah, float)[codes]
    offsets = np.array([attrib_offsets_mm(t, h) for t, h in zip(used, ah, strict=True)], float)
    offsets = offsets.reshape(-1, len(RACK_ATTRIBS), 2)
    c, s_ = np.cos(a), np.sin(a)
    for k in range(len(RACK_ATTRIBS)):
        lx, ly = offsets[codes, k, 0], offsets[codes, k, 1]
        # whole millimetres: invisible notes need no finer place, and short numbers write faster
        out[f"attr_x{k}"] = np.round(x + lx * c - ly * s_)
        out[f"attr_y{k}"] = np.round(y + lx * s_ + ly * c)
    return out


def rack_entities_text(order: pd.DataFrame, marks: pd.DataFrame, first_handle: int, owner: str) -> str:
    """The DXF text of the racks' INSERTs (with their ATTRIBs and SEQEND) and position tags, as ezdxf
    writes them: ``order`` are the scene's racks in drawing order, ``marks`` their tags and attribute
    places (:func:`rack_marks`), handles from ``first_handle`` on (hex, RACK_HANDLES per rack), ``owner``
    the model space's block record."""
    xs = (order["x_m"].to_numpy(float) * MM_PER_M).tolist()
    ys = (order["y_m"].to_numpy(float) * MM_PER_M).tolist()
    rot_list = order["rotation_deg"].to_numpy(float).tolist()
    cols = [order[c].astype(str).tolist() for c in ("rack_id", "template", "kind", "row", "hall", "label")]
    kws = order["power_kw"].to_numpy(float).tolist()
    gpus = order["gpus"].to_numpy(np.int64).tolist()
    tag_h, tag_x, tag_y, tag_rot, attr_h = (marks[c].to_numpy(float).tolist()
                                            for c in ("tag_h", "tag_x", "tag_y", "tag_rot", "attr_h"))  # fmt: skip
    ax = [marks[f"attr_x{k}"].to_numpy(float).tolist() for k in range(len(RACK_ATTRIBS))]
    ay = [marks[f"attr_y{k}"].to_numpy(float).tolist() for k in range(len(RACK_ATTRIBS))]
    entity = f"330\n{owner}\n100\nAcDbEntity\n  8\n"
    attrib_head = f"{entity}E-RACK-IDEN\n100\nAcDbText\n"
    blocks = {t: rack_block_name(t) for t in set(cols[1])}
    out: list[str] = []
    hnd = first_handle
    for i, (rid, tid, kind, row, hall, label) in enumerate(zip(*cols, strict=True)):
        x, y, rot = xs[i], ys[i], rot_list[i]
        layer = RACK_LAYER.get(kind, "E-RACK-GPU")
        r50 = _tag(50, rot) if rot != 0.0 else ""
        out.append(f"  0\nINSERT\n  5\n{hnd:X}\n{entity}{layer}\n100\nAcDbBlockReference\n 66\n1\n"
                   f"  2\n{blocks[tid]}\n 10\n{x}\n 20\n{y}\n 30\n0.0\n{r50}")  # fmt: skip
        values = (rid, tid, _fmt_kw(kws[i]), str(gpus[i]), row, hall)
        for k, (tag, value) in enumerate(zip(RACK_ATTRIBS, values, strict=True)):
            # invisible, left-aligned, one under the other inside the rack (turned with it)
            out.append(f"  0\nATTRIB\n  5\n{hnd + 2 + k:X}\n{attrib_head} 10\n{ax[k][i]}\n 20\n{ay[k][i]}\n"
                       f" 30\n0.0\n 40\n{attr_h[i]}\n  1\n{value}\n{r50}100\nAcDbAttribute\n  2\n{tag}\n"
                       " 70\n1\n 71\n1\n 72\n0\n")  # fmt: skip
        out.append(f"  0\nSEQEND\n  5\n{hnd + 1:X}\n330\n{hnd:X}\n100\nAcDbEntity\n  8\n{layer}\n")
        if tag_h[i] > 0.0:
            tx, ty, up = tag_x[i], tag_y[i], tag_rot[i]
            tat = f" 10\n{tx}\n 20\n{ty}\n 30\n0.0\n"
            out.append(f"  0\nTEXT\n  5\n{hnd + RACK_HANDLES - 1:X}\n{attrib_head}{tat} 40\n{tag_h[i]}\n"
                       f"  1\n{label}\n" + (_tag(50, up) if up != 0.0 else "")
                       + f"  7\n{NOTE_STYLE}\n 72\n1\n 11\n{tx}\n 21\n{ty}\n 31\n0.0\n100\nAcDbText\n 73\n2\n")  # fmt: skip
        hnd += RACK_HANDLES
    return "".join(out)


# Entities written as text (the trays, the racks): per document, (position in the model space, DXF text)
# to write before the entity at that position, in drawing order. Weak: a document nobody holds any more
# takes its text with it.
_SPLICES: weakref.WeakKeyDictionary[Drawing, list[tuple[int, int, str]]] = weakref.WeakKeyDictionary()


def _splice(doc: Drawing, position: int, rank: int, text: str) -> None:
    """Write ``text`` before the model-space entity at ``position``; texts at one position go in ``rank``
    order (the trays, rank 0, under the racks, rank 1, whichever was worked out first)."""
    splices = _SPLICES.setdefault(doc, [])
    splices.append((position, rank, text))
    splices.sort(key=lambda s: (s[0], s[1]))


@contextmanager
def _spliced(doc: Drawing) -> Iterator[None]:
    """While writing ``doc``, its model space writes the spliced texts at their positions."""
    splices = _SPLICES.get(doc)
    if not splices:
        yield
        return
    space = doc.modelspace().entity_space

    def export_dxf(tagwriter: Any) -> None:
        at = 0
        entities = space.entities
        for pos, _rank, text in splices:
            for e in entities[at:pos]:
                if e.is_alive:
                    e.export_dxf(tagwriter)
            tagwriter.write_str(text)
            at = pos
        for e in entities[at:]:
            if e.is_alive:
                e.export_dxf(tagwriter)

    space.export_dxf = export_dxf  # type: ignore[method-assign]
    try:
        yield
    finally:
        del space.export_dxf


def _row_geometry(scene: Scene) -> pd.DataFrame:
    """Rows with their deepest rack and their power, sorted by row id."""
    rows = scene.rows.sort_values("row", kind="stable").reset_index(drop=True)
    agg = scene.racks.groupby("row").agg(depth_m=("depth_m", "max"), power_kw=("power_kw", "sum"))
    rows = rows.join(agg, on="row")
    rows["depth_m"] = rows["depth_m"].fillna(1.2)
    rows["power_kw"] = rows["power_kw"].fillna(0.0)
    return rows


# (text sits on the +side of its line, at the row's end) -> alignment
_ALIGN = {
    (True, False): TextEntityAlignment.BOTTOM_LEFT,
    (True, True): TextEntityAlignment.BOTTOM_RIGHT,
    (False, False): TextEntityAlignment.TOP_LEFT,
    (False, True): TextEntityAlignment.TOP_RIGHT,
}


def _draw_rows(msp: BaseLayout, doc: Drawing, scene: Scene, scales: _Scales, board: Board) -> None:
    """Row id at the first rack and row kW at the last, both in the aisle the fronts face (else where
    the hall board has room: the row's other end or its rear side; else left off); aisle dims."""
    if scene.rows.empty:
        return
    rows = _row_geometry(scene)
    aisle = {f"{b.id}/{h.id}": h.cold_aisle_m for b in scene.site.building for h in b.hall}
    # a gap between row lines is an aisle up to three aisle widths (an empty row line between, say);
    # wider ones are open floor and get no aisle dimension
    widest = {
        f"{b.id}/{h.id}": 3 * max(h.cold_aisle_m, h.hot_aisle_m) for b in scene.site.building for h in b.hall
    }
    ends = (rows[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy(float) * MM_PER_M).tolist()
    names, halls, axes = (rows[c].astype(str).tolist() for c in ("row", "hall", "axis"))
    signs, depths, kws = (rows[c].to_numpy(float).tolist() for c in ("front_sign", "depth_m", "power_kw"))
    for k, (x0, y0, x1, y1) in enumerate(ends):
        sc = scales.of(halls[k])
        th = _row_label_height(sc, aisle.get(halls[k], 1.2))
        gap = 0.25 * th  # clear of the rack band by more than a label's margin (Spot.box)
        fs = 1.0 if signs[k] >= 0 else -1.0
        out = depths[k] * MM_PER_M / 2.0 + gap
        label = names[k].rsplit("/", 1)[-1]
        power = f"{kws[k]:,.0f} kW"
        # (side: +1 the front's, -1 the rear's; at the row's end?) in order of preference
        prefer = {label: ((fs, False), (-fs, False), (fs, True), (-fs, True)),
                  power: ((fs, True), (-fs, True), (-fs, False), (fs, False))}  # fmt: skip
        for text, height, layer in (
            (label, th, "G-ANNO-TEXT"),
            (power, max(0.8 * th, MIN_TEXT_MM * sc), "E-POWR"),
        ):
            spots = []
            for s, at_end in prefer[text]:
                if axes[k] == "x":
                    lo, hi = min(x0, x1), max(x0, x1)
                    spots.append(
                        Spot(text, (hi if at_end else lo, y0 + s * out), height, _ALIGN[(s > 0, at_end)])
                    )
                else:
                    # turned 90 degrees, a text's top faces -x: on the +x side it hangs from its top
                    lo, hi = min(y0, y1), max(y0, y1)
                    spots.append(
                        Spot(
                            text, (x0 + s * out, hi if at_end else lo), height, _ALIGN[(s < 0, at_end)], 90.0
                        )
                    )
            _label(msp, board, layer, spots)
    for hall, group in rows.groupby("hall", sort=True):
        sc = scales.of(str(hall))
        label_mm = 5 * 0.8 * _row_label_height(sc, aisle.get(str(hall), 1.2))
        _aisle_dims(msp, doc, group, sc, label_mm, widest.get(str(hall), 3.6), board)


def _row_label_height(scale: int, cold_aisle_m: float) -> float:
    """Row labels: 2.5 mm on paper, but no more than 30 % of the aisle they stand in (two facing rows
    put their labels side by side across it), and never under MIN_TEXT_MM (mm)."""
    return max(MIN_TEXT_MM * scale, min(TITLE_MM * scale, 0.3 * cold_aisle_m * MM_PER_M))


def _xy(axis: str, along: float, across: float) -> tuple[float, float]:
    """A point given along and across rows of ``axis`` as drawing (x, y)."""
    return (along, across) if axis == "x" else (across, along)


def _aisle_dims(
    msp: BaseLayout,
    doc: Drawing,
    rows: pd.DataFrame,
    scale: int,
    label_mm: float,
    max_gap_m: float,
    board: Board | None = None,
) -> None:
    """One DIMENSION per aisle between neighbouring row lines, in the first stretch (lowest along the
    rows) where rows on both sides overlap, just past the row labels (``label_mm`` long) at the rows'
    first racks, else further along where ``board`` has room for it (midway, then before the far end);
    text COLD/HOT/AISLE and the width. An aisle with no free spot gets none."""
    style = _dimstyle(doc, scale)
    board = Board(10.0 * scale) if board is None else board
    done: set[tuple[float, float]] = set()
    text_h = DIMSTYLE_MM["dimtxt"] * scale
    for axis in ("x", "y"):
        g = rows[rows["axis"] == axis]
        if len(g) < 2:
            continue
        along0, along1, across = ("x0_m", "x1_m", "y0_m") if axis == "x" else ("y0_m", "y1_m", "x0_m")
        a0 = np.minimum(g[along0].to_numpy(float), g[along1].to_numpy(float))
        a1 = np.maximum(g[along0].to_numpy(float), g[along1].to_numpy(float))
        c = g[across].to_numpy(float)
        half = g["depth_m"].to_numpy(float) / 2.0
        sign = g["front_sign"].to_numpy(float)
        for i in np.lexsort((a0, c)).tolist():
            overlap = (np.minimum(a1, a1[i]) - np.maximum(a0, a0[i])) > 0
            above = overlap & (c > c[i] + 1e-9)
            if not above.any():
                continue
            j = int(np.flatnonzero(above)[np.argmin(c[above])])
            pair = (round(float(c[i]), 3), round(float(c[j]), 3))
            lo_edge, hi_edge = c[i] + half[i], c[j] - half[j]
            if pair in done or not 1e-6 < hi_edge - lo_edge <= max_gap_m + 1e-6:
                continue
            done.add(pair)
            kind = "COLD" if sign[i] > 0 > sign[j] else "HOT" if sign[i] < 0 < sign[j] else "AISLE"
            lo_a, hi_a = max(a0[i], a0[j]) * MM_PER_M, min(a1[i], a1[j]) * MM_PER_M
            lo_mm, hi_mm, mid = lo_edge * MM_PER_M, hi_edge * MM_PER_M, (lo_edge + hi_edge) / 2 * MM_PER_M
            words = f"{kind} {round((hi_edge - lo_edge) * MM_PER_M)}"
            reach = 0.5 * text_h + text_width(words, text_h)  # the dim line and the text beside it
            # just past the row labels at the first racks (in a hot aisle: before the tray labels,
            # which sit midway), midway, or before the far end's labels; the first with room
            tries = [lo_a + label_mm, (lo_a + hi_a) / 2, max(lo_a, hi_a - label_mm - reach)]
            spot = None
            for at in (t for t in tries if lo_a <= t < hi_a):
                beside = at + 0.5 * text_h + text_width(words, text_h) / 2  # text clear of the dim line
                tb = text_box(
                    words, _xy(axis, beside, mid), text_h, "MIDDLE_CENTER", 0 if axis == "x" else 90
                )
                line = (*_xy(axis, at - 0.3 * text_h, lo_mm), *_xy(axis, at + 0.3 * text_h, hi_mm))
                line = (
                    min(line[0], line[2]),
                    min(line[1], line[3]),
                    max(line[0], line[2]),
                    max(line[1], line[3]),
                )
                if board.free(grow(tb, 0.1 * text_h)) and board.free(line):
                    board.take(grow(tb, 0.1 * text_h))
                    board.take(line)
                    spot = (at, beside)
                    break
            if spot is None:
                continue
            at, beside = spot
            dim = msp.add_linear_dim(
                base=_xy(axis, at, lo_mm),
                p1=_xy(axis, at, lo_mm),
                p2=_xy(axis, at, hi_mm),
                angle=90 if axis == "x" else 0,
                text=f"{kind} <>",
                text_rotation=0 if axis == "x" else 90,
                dimstyle=style,
                dxfattribs={"layer": "G-ANNO-DIMS"},
            )
            dim.set_location(_xy(axis, beside, mid), leader=False)
            dim.render()


class TrayLine(NamedTuple):
    """A straight LWPOLYLINE at a constant width: a tray, or a bundle in its lane (``xdata``: medium, cables)."""

    layer: str
    p: tuple[float, float]
    q: tuple[float, float]
    width: float
    xdata: tuple[str, int] | None = None


class TrayText(NamedTuple):
    """A TEXT in the note style, placed at ``at`` by ``align`` (BOTTOM_LEFT or MIDDLE_CENTER)."""

    layer: str
    text: str
    at: tuple[float, float]
    height: float
    rotation: float = 0.0
    align: TextEntityAlignment = TextEntityAlignment.MIDDLE_CENTER


class TrayRiser(NamedTuple):
    """An INSERT of the riser block."""

    layer: str
    at: tuple[float, float]


TrayEntity = TrayLine | TrayText | TrayRiser


def tray_entities(scene: Scene, scales: _Scales, boards: _Boards | None = None) -> list[TrayEntity]:
    """The model-space entities of the trays, in drawing order: per segment the tray at its width, its
    bundles per media class in lanes across it and its label (a riser: the riser block and its label).

    A label is NOTE_MM high on its sheet and stays within its segment, clear of what ``boards`` holds:
    in full (``412: 400 MMF + 12 SMF | 38%``) midway, a third or two thirds along, else shortened
    (``412 | 38%``), else left off; empty segments carry none (the notes say what a label means)."""
    boards = _Boards(Board(10.0 * scales.main), Board(10.0 * scales.site)) if boards is None else boards
    edges = scene.tray_edges
    if edges is None or edges.empty:
        return []
    media = [m for m in MEDIA_LAYER if f"cables_{m}" in edges.columns]
    x0 = (edges["x0_m"].to_numpy(float) * MM_PER_M).tolist()
    y0 = (edges["y0_m"].to_numpy(float) * MM_PER_M).tolist()
    x1 = (edges["x1_m"].to_numpy(float) * MM_PER_M).tolist()
    y1 = (edges["y1_m"].to_numpy(float) * MM_PER_M).tolist()
    width = edges["width_mm"].to_numpy(float).tolist()
    kinds = edges["kind"].astype(str).tolist()
    halls = edges["hall"].astype(str).tolist()
    cables = edges["cables"].to_numpy(np.int64).tolist()
    fill = edges["fill"].to_numpy(float).tolist()
    counts = {m: edges[f"cables_{m}"].to_numpy(np.int64).tolist() for m in media}
    lanes = {m: edges[f"lane_mm_{m}"].to_numpy(float).tolist() for m in media}
    side_x = edges["side_x"].to_numpy(float).tolist()
    side_y = edges["side_y"].to_numpy(float).tolist()
    clear = edges["clear_mm"].to_numpy(float).tolist()
    out: list[TrayEntity] = []
    for i in range(len(x0)):
        p, q = (x0[i], y0[i]), (x1[i], y1[i])
        sc = scales.of(halls[i])
        dx, dy = q[0] - p[0], q[1] - p[1]
        length = math.hypot(dx, dy)
        if kinds[i] == "riser" or length < 1.0:
            out.append(TrayRiser("E-TRAY-RISR", p))
            if cables[i] > 0:
                h = NOTE_MM * sc
                texts = (
                    f"RISER {_cable_text(cables[i], {m: counts[m][i] for m in media})}",
                    f"RISER {cables[i]}",
                )
                spots = [Spot(t, (p[0] + 400.0 * fx, p[1] + 400.0 * fy), h, _CORNER[(fx, fy)])
                         for t in texts for fx, fy in ((1, 1), (1, -1), (-1, 1), (-1, -1))]  # fmt: skip
                got = _first_free(boards.hall, spots)
                if got is not None:
                    out.append(TrayText("E-TRAY-IDEN", got.text, got.at, got.height, 0.0, got.align))
            continue
        out.append(TrayLine("E-TRAY-DUCT" if kinds[i] == "duct" else "E-TRAY", p, q, width[i]))
        nx, ny = -dy / length, dx / length
        offset = -width[i] / 2.0
        for m in media:
            n = counts[m][i]
            if n <= 0:
                continue
            lw = max(lanes[m][i], 1.0)
            mid = offset + lw / 2.0
            a, b = (p[0] + nx * mid, p[1] + ny * mid), (q[0] + nx * mid, q[1] + ny * mid)
            out.append(TrayLine(MEDIA_LAYER[m], a, b, lw, (m, n)))
            offset += lw
        if cables[i] <= 0:
            continue
        full = f"{_cable_text(cables[i], {m: counts[m][i] for m in media})} | {fill[i] * 100:.0f}%"
        short = f"{cables[i]} | {fill[i] * 100:.0f}%"
        # campus ducts are labelled at site scale, on the overview layer (frozen on hall sheets)
        duct = kinds[i] == "duct"
        label_layer, board = ("G-ANNO-OVER", boards.over) if duct else ("E-TRAY-IDEN", boards.hall)
        h = NOTE_MM * (scales.site if duct else sc)
        # a row tray's label hugs the rear of its racks; other trays carry theirs on themselves
        off = clear[i] + 0.75 * h if clear[i] > 0 else 0.0
        rot = _upright(math.degrees(math.atan2(dy, dx)))
        spots = []
        for text in (full, short):
            w = text_width(text, h)
            for t in (0.5, 1 / 3, 2 / 3):  # along the segment; the text within its middle 90 %
                if abs(t - 0.5) * length + w / 2 <= 0.45 * length:
                    at = (p[0] + dx * t + side_x[i] * off, p[1] + dy * t + side_y[i] * off)
                    spots.append(Spot(text, at, h, TextEntityAlignment.MIDDLE_CENTER, rot))
        got = _first_free(board, spots)
        if got is not None:
            out.append(TrayText(label_layer, got.text, got.at, got.height, got.rotation))
    return out


# a riser label's corner away from the riser: (x, y direction) -> alignment
_CORNER = {
    (1, 1): TextEntityAlignment.BOTTOM_LEFT,
    (1, -1): TextEntityAlignment.TOP_LEFT,
    (-1, 1): TextEntityAlignment.BOTTOM_RIGHT,
    (-1, -1): TextEntityAlignment.TOP_RIGHT,
}


# TEXT alignments the tray writer knows: (group 72 horizontal, group 73 vertical)
_TEXT_ALIGN = {
    TextEntityAlignment.MIDDLE_CENTER: (1, 2),
    TextEntityAlignment.BOTTOM_LEFT: (0, 1),
    TextEntityAlignment.TOP_LEFT: (0, 3),
    TextEntityAlignment.BOTTOM_RIGHT: (2, 1),
    TextEntityAlignment.TOP_RIGHT: (2, 3),
}

# handles ezdxf gives each: an INSERT takes two (its SEQEND's is kept even without attributes)
TRAY_HANDLES = {TrayLine: 1, TrayText: 1, TrayRiser: 2}


def tray_entities_text(items: Sequence[TrayEntity], riser: str, first_handle: int, owner: str) -> str:
    """The DXF text of the tray entities ``items`` as ezdxf writes them (handles from ``first_handle``,
    hex; ``owner`` the model space's block record; ``riser`` the riser block's name)."""
    entity = f"330\n{owner}\n100\nAcDbEntity\n  8\n"
    out: list[str] = []
    hnd = first_handle
    for e in items:
        if isinstance(e, TrayLine):
            (px, py), (qx, qy) = e.p, e.q
            out.append(f"  0\nLWPOLYLINE\n  5\n{hnd:X}\n{entity}{e.layer}\n100\nAcDbPolyline\n 90\n2\n 70\n0\n"
                       f" 43\n{e.width}\n 10\n{px}\n 20\n{py}\n 10\n{qx}\n 20\n{qy}\n")  # fmt: skip
            if e.xdata is not None:
                out.append(f"1001\n{APPID}\n1000\n{e.xdata[0]}\n1071\n{e.xdata[1]}\n")
        elif isinstance(e, TrayText):
            x, y = e.at
            at = f" 10\n{x}\n 20\n{y}\n 30\n0.0\n"
            if e.align not in _TEXT_ALIGN:
                raise ValueError(
                    f"tray text alignment {e.align} (allowed: {', '.join(a.name for a in _TEXT_ALIGN)})"
                )
            ha, va = _TEXT_ALIGN[e.align]
            out.append(f"  0\nTEXT\n  5\n{hnd:X}\n{entity}{e.layer}\n100\nAcDbText\n{at} 40\n{e.height}\n"
                       f"  1\n{e.text}\n" + (_tag(50, e.rotation) if e.rotation != 0.0 else "")
                       + f"  7\n{NOTE_STYLE}\n" + (f" 72\n{ha}\n" if ha else "")
                       + f" 11\n{x}\n 21\n{y}\n 31\n0.0\n100\nAcDbText\n 73\n{va}\n")  # fmt: skip
        else:
            x, y = e.at
            out.append(f"  0\nINSERT\n  5\n{hnd:X}\n{entity}{e.layer}\n100\nAcDbBlockReference\n"
                       f"  2\n{riser}\n 10\n{x}\n 20\n{y}\n 30\n0.0\n")  # fmt: skip
        hnd += TRAY_HANDLES[type(e)]
    return "".join(out)


def _draw_trays(
    msp: BaseLayout, doc: Drawing, scene: Scene, scales: _Scales, boards: _Boards, at: int
) -> None:
    """Trays at their width, bundles per media class in lanes across them, a label per loaded segment.

    A campus has ~10k of these entities: like the racks (:func:`_draw_racks`), they are written as DXF
    text in one go (:func:`tray_entities_text`) with the handles ezdxf would have given them, and spliced
    into the model space when the document is written. Same bytes as adding them one by one."""
    items = tray_entities(scene, scales, boards)
    if not items:
        return
    riser = _define_riser_block(doc)
    handles = doc.entitydb.handles
    first = handles._handle
    handles._handle = first + sum(TRAY_HANDLES[type(e)] for e in items)
    text = tray_entities_text(items, riser, first, msp.layout_key)
    _splice(doc, at, 0, text)  # under the racks, though placed after the notes it keeps clear of


def _cable_text(total: int, by_class: Mapping[str, int]) -> str:
    """412 MMF, or 412: 400 MMF + 12 SMF when several media share the segment; 0 when it is empty."""
    parts = [f"{n} {MEDIA_TAG[m]}" for m, n in by_class.items() if n > 0]
    if len(parts) == 1:
        return parts[0]
    return f"{total}: " + " + ".join(parts) if parts else str(total)


NOTES_MAX = 30  # violation notes listed on one sheet; the rest are counted


def numbered_violations(scene: Scene) -> list[tuple[int, str, str, str]]:
    """(number, kind, where, message) of every violation, numbered V1.. as the drawing tags them (the
    scene's markers: ordered by where, kind, message)."""
    m = scene.markers
    return list(
        zip(m["number"].tolist(), m["kind"].tolist(), m["where"].tolist(), m["message"].tolist(), strict=True)
    )


def _tag_list(numbers: Sequence[int]) -> str:
    """V3, V4, V5, V9 -> 'V3-V5, V9'."""
    return runs_text(numbers, "V")


def _draw_violations(msp: BaseLayout, scene: Scene, scales: _Scales, boards: _Boards) -> None:
    """A revision cloud per marked place, tagged with its violations' numbers and kinds (V12 tray_fill);
    violations at the very same place share one cloud. The sheets' notes give the messages.

    A tag goes at a corner of its cloud (or stacked above it) that is free on the board of the sheets
    it shows on, else in short (V12) likewise, else it is left off: tags never stand on one another.
    A tag inside a hall is at the hall's scale, on the hall-scale notes layer G-ANNO-TEXT in the
    violations' red (the overview sheets, at a tenth of the scale, would print it unreadably small);
    a building's is at the site's scale, on G-ANNO-VIOL."""
    m = scene.markers.dropna(subset=["x0_m"])
    by_box: dict[tuple[float, ...], list[tuple[int, str, str]]] = {}
    boxes = m[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy(float).tolist()
    for b, n, kind, where in zip(
        boxes, m["number"].tolist(), m["kind"].tolist(), m["where"].tolist(), strict=True
    ):
        by_box.setdefault(tuple(round(c, 1) for c in b), []).append((n, kind, where))
    red = LAYER_BY_NAME["G-ANNO-VIOL"].color
    for box, items in by_box.items():
        sc = scales.of(items[0][2])
        pad = 1.0 * sc
        x0, y0 = box[0] * MM_PER_M - pad, box[1] * MM_PER_M - pad
        x1, y1 = box[2] * MM_PER_M + pad, box[3] * MM_PER_M + pad
        arc = min(4.0 * sc, (x1 - x0) / 3.0, (y1 - y0) / 3.0)
        revcloud.add_entity(
            msp, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], arc, dxfattribs={"layer": "G-ANNO-VIOL"}
        )
        in_hall = hall_key(items[0][2]) in scales.hall
        board = boards.hall if in_hall else boards.over
        h = NOTE_MM * (sc if in_hall else scales.site)
        kinds = ", ".join(sorted({k for _, k, _ in items}))
        numbers = _tag_list([n for n, _, _ in items])
        gap = 0.3 * h
        corners = [
            ((x0, y1 + gap), TextEntityAlignment.BOTTOM_LEFT),
            ((x0, y0 - gap), TextEntityAlignment.TOP_LEFT),
            ((x1, y1 + gap), TextEntityAlignment.BOTTOM_RIGHT),
            ((x1, y0 - gap), TextEntityAlignment.TOP_RIGHT),
        ]
        corners += [((x0, y1 + gap + k * 1.4 * h), TextEntityAlignment.BOTTOM_LEFT) for k in range(1, 4)]  # fmt: skip
        spots = [Spot(t, at, h, align) for t in (f"{numbers} {kinds}", numbers) for at, align in corners]
        got = _first_free(board, spots)
        if got is None:
            continue
        t = msp.add_text(got.text, height=h, dxfattribs={"layer": "G-ANNO-TEXT" if in_hall else "G-ANNO-VIOL",
                                                          "style": NOTE_STYLE, **({"color": red} if in_hall else {})})  # fmt: skip
        t.set_placement(got.at, align=got.align)


# ------------------------------------------------------------------------------------- paper space
def _drawing_number(stem: str, n: int) -> str:
    return f"{re.sub(r'[^A-Z0-9]+', '-', stem.upper()).strip('-')}-E-{n:03d}"


def _summary_line(summary: Mapping[str, Any]) -> str:
    parts = []
    if "gpus" in summary:
        parts.append(f"{int(summary['gpus']):,} GPUs")
    racks = summary.get("racks", {})
    if isinstance(racks, Mapping) and "total" in racks:
        parts.append(f"{int(racks['total']):,} racks")
    power = summary.get("power", {})
    if isinstance(power, Mapping) and "it_mw" in power:
        parts.append(f"{float(power['it_mw']):.1f} MW IT")
    viol = summary.get("violations")
    if isinstance(viol, list):
        parts.append(f"{len(viol)} violation(s)")
    return ", ".join(parts)


def _sheet(
    doc: Drawing,
    layout: Paperspace,
    scene: Scene,
    sheet: Sheet,
    number: int,
    count: int,
    blocks: Mapping[str, str],
) -> None:
    layout.page_setup(size=PAPER_A1_MM, margins=(0, 0, 0, 0), units="mm", scale=(1, 1), name="ISO_A1")
    # plot the layout area at 1:1 with lineweights and plot styles, viewports first (notes on top)
    layout.dxf_layout.dxf.plot_layout_flags = PLOT_FLAGS
    layout.set_plot_type(5)
    fx0, fy0, fx1, fy1 = FRAME
    ttl = {"layer": "G-TTLB"}
    layout.add_lwpolyline([(fx0, fy0), (fx1, fy0), (fx1, fy1), (fx0, fy1)], close=True, dxfattribs=ttl)
    layout.add_line((SIDE_X, fy0), (SIDE_X, fy1), dxfattribs=ttl)
    vx0, vy0, vx1, vy1 = VIEW_BOX
    bx0, by0, bx1, by1 = sheet.bbox_m
    vp = layout.add_viewport(
        center=((vx0 + vx1) / 2, (vy0 + vy1) / 2),
        size=(vx1 - vx0, vy1 - vy0),
        view_center_point=((bx0 + bx1) / 2 * MM_PER_M, (by0 + by1) / 2 * MM_PER_M),
        view_height=(vy1 - vy0) * sheet.scale,
        dxfattribs={"layer": "G-VPRT"},
    )
    vp.dxf.flags = vp.dxf.flags | ezdxf.const.VSF_LOCK_ZOOM
    if sheet.kind == "power":
        frozen = [*OVERVIEW_ONLY_LAYERS, *CABLING_LAYERS]
    elif sheet.kind == "hall":
        frozen = [*OVERVIEW_ONLY_LAYERS]
    else:
        frozen = [*HALL_ONLY_LAYERS]
    vp.frozen_layers = frozen
    _text(
        layout,
        f"{sheet.title.upper()}   SCALE 1:{sheet.scale}",
        (vx0, fy0 + 4.0),
        3.5,
        "G-TTLB",
        TextEntityAlignment.BOTTOM_LEFT,
    )
    site = scene.site.site
    title = layout.add_blockref(blocks["title"], (fx1, fy0), dxfattribs=ttl).add_auto_attribs(
        {
            "TITLE": site.name[:60],
            "SUBTITLE": sheet.title,
            "SUMMARY": _summary_line(scene.summary),
            "SOURCE": f"{scene.stem}.toml: site coordinates in metres, x east, y north",
            "DWG_NO": _drawing_number(scene.stem, number),
            "REV": site.revision,
            "DATE": site.date,
            "SCALE": f"1:{sheet.scale}",
            "SHEET": f"{number} of {count}",
        }
    )
    for attrib in title.attribs:  # a long site name shrinks to the block's width
        if attrib.dxf.tag == "TITLE":
            attrib.dxf.height = _fit_height(attrib.dxf.text, TITLE_FIELDS["TITLE"][2], TITLE_W - 4.0)
    layout.add_blockref(
        blocks["north"], (SIDE_X + 20.0, fy0 + TITLE_H + 22.0), dxfattribs={"layer": "G-ANNO-SYMB"}
    )
    layout.add_blockref(
        _define_scale_bar(doc, sheet.scale),
        (SIDE_X + 45.0, fy0 + TITLE_H + 18.0),
        dxfattribs={"layer": "G-ANNO-SYMB"},
    )
    layout.add_blockref(blocks["legend"], (SIDE_X + 5.0, fy1 - 5.0), dxfattribs={"layer": "G-ANNO-LEGN"})
    _notes(layout, scene, sheet)


def _notes(layout: Paperspace, scene: Scene, sheet: Sheet) -> None:
    """General notes and the violations on this sheet, in the right-hand column above the north arrow."""
    x = SIDE_X + 5.0
    y = FRAME[3] - 5.0 - 12.0 - LEGEND_ROW * len(legend_layers()) - 10.0
    _text(layout, "NOTES", (x, y), 5.0, "G-TTLB", TextEntityAlignment.TOP_LEFT)
    lines = [
        "1. Dimensions in millimetres. Site coordinates in metres: x east, y north.",
        "2. Racks: the filled band marks the front; tag = position in the row.",
        "3. Trays overhead; label = cables per medium | peak fill of the tray cross-section.",
        "4. Bundles: one lane per medium, as wide as its cables stacked to tray depth.",
    ]
    if sheet.kind == "power":
        _power_notes(layout, scene, sheet, x, y - 8.0)
        return
    if sheet.kind == "hall":
        mine = [v for v in numbered_violations(scene) if hall_key(v[2]) == sheet.hall]
    else:
        mine = numbered_violations(scene)
    lines.append(
        f"5. Design-rule violations on this sheet: {len(mine)} (clouds, layer G-ANNO-VIOL)."
        if mine
        else "5. No design-rule violations on this sheet."
    )
    for n, kind, where, message in mine[:NOTES_MAX]:
        text = f"V{n} {kind} at {where}: {message}"
        lines.append(text if len(text) <= 100 else text[:99] + "~")
    if len(mine) > NOTES_MAX:
        lines.append(f"... and {len(mine) - NOTES_MAX} more (summary.json lists them all).")
    y -= 8.0
    for line in lines:
        _text(
            layout,
            line,
            (x, y),
            2.0,
            "G-ANNO-VIOL" if line.startswith("V") else "G-TTLB",
            TextEntityAlignment.TOP_LEFT,
        )
        y -= 3.6


def _records(df: pd.DataFrame) -> list[Any]:
    """The rows of a table as objects with its columns as attributes."""
    from types import SimpleNamespace

    return [SimpleNamespace(**{str(k): v for k, v in r.items()}) for r in df.to_dict("records")]


def _draw_power(msp: BaseLayout, scene: Scene, scales: _Scales, board: Board) -> None:
    """The power chain in model space: each busway a line over its racks (layer E-POWR, A and B either
    side of the row's centre line), the CDUs as boxes (M-EQPM-CDU). Each busway is labelled with its id and the UPS block it hangs on (``A1 UPS-A1``) past
    one end of its line, and each CDU with its id: on E-POWR (the hall and power sheets), placed last
    on the hall ``board``, so only where no other label is; the figures stay in the power sheet's notes
    and the XLSX."""
    if scene.busways is not None:
        for r in _records(scene.busways):
            if math.isnan(r.x0_m):  # a busway with no racks drawn
                continue
            a, b = (r.x0_m * MM_PER_M, r.y0_m * MM_PER_M), (r.x1_m * MM_PER_M, r.y1_m * MM_PER_M)
            msp.add_lwpolyline([a, b], dxfattribs={"layer": "E-POWR"})
            _label(msp, board, "E-POWR", _busway_spots(r, MIN_TEXT_MM * scales.of(str(r.hall))))
    if scene.cdus is not None:
        for r in _records(scene.cdus):
            vertical = float(r.rotation_deg) in (90.0, 270.0)
            hx = (r.depth_m if vertical else r.width_m) / 2
            hy = (r.width_m if vertical else r.depth_m) / 2
            x, y = float(r.x_m), float(r.y_m)
            pts = _mm([(x - hx, y - hy), (x + hx, y - hy), (x + hx, y + hy), (x - hx, y + hy)])
            msp.add_lwpolyline(pts, close=True, dxfattribs={"layer": "M-EQPM-CDU"})
            th = MIN_TEXT_MM * scales.of(str(r.hall))
            text, gap = _tail(r.cdu_id), 0.25 * th
            cx, cy, ex, ey = x * MM_PER_M, y * MM_PER_M, hx * MM_PER_M + gap, hy * MM_PER_M + gap
            _label(msp, board, "E-POWR", [
                Spot(text, (cx, cy), th),
                Spot(text, (cx, cy + ey), th, TextEntityAlignment.BOTTOM_CENTER),
                Spot(text, (cx, cy - ey), th, TextEntityAlignment.TOP_CENTER),
                Spot(text, (cx + ex, cy), th, TextEntityAlignment.MIDDLE_LEFT),
                Spot(text, (cx - ex, cy), th, TextEntityAlignment.MIDDLE_RIGHT),
            ])  # fmt: skip


def _tail(part_id: Any) -> str:
    """A power part's id without its hall: B1/H1/R03/A1 -> A1, B1/H1/UPS-A1 -> UPS-A1."""
    return str(part_id).rsplit("/", 1)[-1]


def _busway_spots(r: Any, height: float) -> list[Spot]:
    """Where a busway's label may go: in line with it, past one end of its run (A first before its
    start, B first after its end, so that the two of a row do not meet), clear of the run by a gap."""
    text = f"{_tail(r.busway_id)} {_tail(r.ups_id)}"
    gap = 0.5 * height
    x0, y0, x1, y1 = (float(v) * MM_PER_M for v in (r.x0_m, r.y0_m, r.x1_m, r.y1_m))
    if abs(y1 - y0) <= abs(x1 - x0):  # a run along x
        lo, hi = min(x0, x1), max(x0, x1)
        before = Spot(text, (lo - gap, y0), height, TextEntityAlignment.MIDDLE_RIGHT)
        after = Spot(text, (hi + gap, y0), height, TextEntityAlignment.MIDDLE_LEFT)
    else:  # along y: turned a quarter, reading from the right of the sheet
        lo, hi = min(y0, y1), max(y0, y1)
        before = Spot(text, (x0, lo - gap), height, TextEntityAlignment.MIDDLE_RIGHT, 90.0)
        after = Spot(text, (x0, hi + gap), height, TextEntityAlignment.MIDDLE_LEFT, 90.0)
    return [before, after] if str(r.side) == "A" else [after, before]


def _power_notes(layout: Paperspace, scene: Scene, sheet: Sheet, x: float, y: float) -> None:
    """The power sheet's notes: what the lines are, the hall's busways, UPS blocks and CDUs with their
    loads and ratings."""
    key = sheet.hall
    lines = [
        "1. Busways (layer E-POWR) over each row: A side below the row's centre line, B above.",
        "   Each labelled past one end with its id and the UPS block it hangs on, e.g. A1 UPS-A1.",
        "2. Every rack: one tap-off per side; its A and B busways hang on different UPS blocks.",
    ]
    if scene.busways is not None:
        bw = scene.busways[scene.busways["hall"] == key]
        use = bw["load_kw"].to_numpy(float) / bw["rating_kw"].to_numpy(float)
        lines.append(f"3. Busways of {key}: {len(bw)}, by model:")
        for model, g in bw.groupby("model", sort=True):
            lines.append(
                f"   {model}: {len(g)} runs, {float(g['length_m'].sum()):,.0f} m, "
                f"load up to {g['load_kw'].to_numpy(float).max():,.0f} of {g['rating_kw'].to_numpy(float)[0]:,.0f} kW"
            )
        if len(bw):
            k = int(np.argmax(use))
            lines.append(f"   most loaded: {bw['busway_id'].iat[k]} at {use[k]:.0%}")
    if scene.ups is not None:
        mine = scene.ups[scene.ups["hall"] == key]
        lines.append(f"4. UPS blocks of {key}: {len(mine)} (design load / rating MW, busways):")
        for r in _records(mine.head(NOTES_MAX)):
            lines.append(
                f"   {str(r.ups_id).rsplit('/', 1)[-1]} {r.model}: {float(r.load_mw):.2f} / {float(r.rating_mw):g} MW, "
                f"{int(r.busways)} busways, {str(r.switchboard_id).rsplit('/', 1)[-1]}"
            )
        if len(mine) > NOTES_MAX:
            lines.append(f"   ... and {len(mine) - NOTES_MAX} more (XLSX Power sheet).")
    if scene.cdus is not None and (scene.cdus["hall"] == key).any():
        c = scene.cdus[scene.cdus["hall"] == key]
        lines.append(
            f"5. CDUs (layer M-EQPM-CDU): {len(c)}, {float(c['load_kw'].sum()) / 1000:.2f} MW of liquid heat:"
        )
        for r in _records(c.head(NOTES_MAX)):
            what = (
                "standby"
                if r.standby
                else f"{float(r.load_kw):,.0f} / {float(r.rating_kw):,.0f} kW, rows {r.rows}"
            )
            lines.append(f"   {str(r.cdu_id).rsplit('/', 1)[-1]} {r.model}: {what}")
    for line in lines:
        _text(
            layout,
            line if len(line) <= 100 else line[:99] + "~",
            (x, y),
            2.0,
            "G-TTLB",
            TextEntityAlignment.TOP_LEFT,
        )
        y -= 3.6


# ------------------------------------------------------------------------------------------ build
def build_scene_document(scene: Scene) -> Drawing:
    """The whole drawing for a scene (model space, blocks, sheets); not yet written anywhere."""
    sheets = plan_sheets(scene)
    scales = _Scales(scene, sheets)
    doc = _new_document(scene, scales.main)
    _current_dimstyle(doc, scales.main)
    longest = attrib_longest(scene.racks)
    for tid in sorted(scene.templates):
        _define_rack_block(doc, scene.templates[tid], longest)
    blocks = {
        "title": _define_title_block(doc),
        "north": _define_north_arrow(doc),
        "legend": _define_legend(doc, scales.main),
    }
    msp = doc.modelspace()
    # draw order: building and halls, trays under the racks, racks, then annotation on top; labels are
    # placed most important first (names, dimensions, rows, violations, then trays), each clear of those
    # before it on the sheets it shows on
    boards = _Boards(Board(10.0 * scales.main), Board(10.0 * scales.site))
    _draw_site(msp, doc, scene, scales, boards)
    trays_at = len(msp.entity_space)
    _draw_racks(msp, scene, scales, boards)
    _draw_rows(msp, doc, scene, scales, boards.hall)
    _draw_violations(msp, scene, scales, boards)
    _draw_trays(msp, doc, scene, scales, boards, trays_at)
    _draw_power(msp, scene, scales, boards.hall)
    sx0, sy0, sx1, sy1 = sheets[0].bbox_m
    doc.set_modelspace_vport(
        height=(sy1 - sy0) * MM_PER_M * 1.1, center=((sx0 + sx1) / 2 * MM_PER_M, (sy0 + sy1) / 2 * MM_PER_M)
    )
    for n, sheet in enumerate(sheets, start=1):
        if n == 1:  # the document's first paper layout becomes the site sheet
            doc.layouts.rename(doc.layouts.names_in_taborder()[1], sheet.name)
            layout = doc.paperspace(sheet.name)
        else:
            layout = doc.layouts.new(sheet.name)
        _sheet(doc, layout, scene, sheet, n, len(sheets), blocks)
    return doc


# ezdxf.options is process-wide: one fixed-metadata write at a time (the TUI exports in worker threads)
_WRITE_LOCK = threading.Lock()


@contextmanager
def _fixed_metadata(doc: Drawing, date: str) -> Iterator[None]:
    """Write with fixed dates (the site file's date) and GUIDs instead of the clock and random ids."""
    old = ezdxf.options.write_fixed_meta_data_for_testing
    ezdxf.options.write_fixed_meta_data_for_testing = True
    update = doc._update_metadata
    day = juliandate(datetime.strptime(date, "%Y-%m-%d"))

    marker = f"{ezdxf.__version__} @ {date}T00:00:00+00:00"

    def fixed() -> None:
        update()
        for var in ("$TDCREATE", "$TDUCREATE", "$TDUPDATE", "$TDUUPDATE"):
            doc.header[var] = day
        meta = doc.ezdxf_metadata()  # ezdxf stamps "created/written by" with the clock: use the date
        meta["CREATED_BY_EZDXF"] = marker
        meta["WRITTEN_BY_EZDXF"] = marker

    try:
        setattr(doc, "_update_metadata", fixed)  # noqa: B010 - instance override for this write only
        yield
    finally:
        ezdxf.options.write_fixed_meta_data_for_testing = old
        setattr(doc, "_update_metadata", update)  # noqa: B010


def document_bytes(doc: Drawing, date: str) -> bytes:
    """The DXF file's bytes, deterministic for the same document."""
    stream = io.StringIO()
    # ezdxf adds a CLASS per entity type in use from a set, in hash order: register them now and sort,
    # so the CLASSES section does not depend on PYTHONHASHSEED (its own call in write() adds nothing)
    doc.classes.add_required_classes(doc.dxfversion)
    doc.classes.classes = dict(sorted(doc.classes.classes.items()))
    with _WRITE_LOCK, _fixed_metadata(doc, date), _spliced(doc):
        doc.write(stream)
    return stream.getvalue().encode("utf-8")


def write_scene(scene: Scene, path: str | Path) -> Path:
    """Build the drawing in memory, then write it atomically (temp file in the same folder, replace):
    a failure anywhere leaves no file behind."""
    data = document_bytes(build_scene_document(scene), scene.site.site.date)
    return atomic.write_bytes(path, data)


def scene_from_design(design: Design) -> Scene:
    """The scene of a finished design (layout.scene)."""
    return scene_of(design)


def build_document(design: Design) -> Drawing:
    """The drawing of a finished design (for tests that read it back without a file)."""
    return build_scene_document(scene_from_design(design))


def write_dxf(design: Design, path: str | Path) -> Path:
    """Write the design's drawing to ``path`` (NAME.dxf) atomically; returns the path."""
    return write_scene(scene_from_design(design), path)
