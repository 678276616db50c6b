"""Block definitions: one per rack template (footprint, front band, invisible ATTDEFs), columns, the
tray riser, and in paper millimetres the north arrow, the scale bars, the title block and the legend."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from ezdxf import revcloud
from ezdxf.document import Drawing
from ezdxf.enums import TextEntityAlignment

from layout.export.dxf.layers import (
    LAYERS,
    MM_PER_M,
    NOTE_STYLE,
    RACK_ATTRIBS,
    TITLE_STYLE,
    Layer,
    column_block_name,
    rack_block_name,
)
from layout.model import RackTemplate


def define_rack_block(doc: Drawing, tpl: RackTemplate, longest: int) -> None:
    """Footprint (width along the row, depth across it), front marker on the +y side, ATTDEFs inside
    the outline (``longest``: characters of the longest attribute value, see :func:`rack_marks`)."""
    w, d = tpl.width_mm / 2.0, tpl.depth_mm / 2.0
    blk = doc.blocks.new(rack_block_name(tpl.id), dxfattribs={"description": tpl.name[:255]})
    blk.add_lwpolyline([(-w, -d), (w, -d), (w, d), (-w, d)], close=True)
    # front marker: a filled band along the front face and a notch pointing out of the front
    band = front_band_mm(tpl.depth_mm)
    blk.add_solid([(-w, d - band), (w, d - band), (-w, d), (w, d)])
    blk.add_solid([(-w * 0.25, d - band), (w * 0.25, d - band), (0.0, d - band - w * 0.3)])
    h = attrib_height_mm(tpl, longest)
    for tag, at in zip(RACK_ATTRIBS, attrib_offsets_mm(tpl, h), strict=True):
        attdef = blk.add_attdef(tag, at, "", height=h)
        attdef.dxf.style = NOTE_STYLE
        attdef.dxf.prompt = tag.replace("_", " ").lower()
        attdef.is_invisible = True


ATTRIB_LINE = 1.5  # attribute lines inside the rack: this many heights apart


def front_band_mm(depth_mm: float) -> float:
    """Depth of the filled band along a rack's front face (the block's front marker)."""
    return min(80.0, 0.05 * depth_mm)


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
    d_free = tpl.depth_mm - 2.0 * front_band_mm(tpl.depth_mm)
    return round(
        min(0.9 * tpl.width_mm / (0.8 * max(longest, 1)), 0.8 * d_free / (ATTRIB_LINE * len(RACK_ATTRIBS))), 1
    )


def attrib_offsets_mm(tpl: RackTemplate, h: float) -> list[tuple[float, float]]:
    """Where each attribute starts in the block (x across the width, y along the depth; front +y): one
    line under the other from behind the front band, from the outline's left edge."""
    top = tpl.depth_mm / 2.0 - 2.0 * front_band_mm(tpl.depth_mm)
    return [(-0.45 * tpl.width_mm, top - ATTRIB_LINE * h * (k + 1)) for k in range(len(RACK_ATTRIBS))]


def define_column_block(doc: Drawing, size_m: tuple[float, float]) -> str:
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


def define_riser_block(doc: Drawing) -> str:
    name = "E-RISER"
    if name not in doc.blocks:
        s = 300.0
        blk = doc.blocks.new(name, dxfattribs={"description": "Tray riser (vertical run)"})
        blk.add_lwpolyline([(-s, -s), (s, -s), (s, s), (-s, s)], close=True)
        blk.add_line((-s, -s), (s, s))
        blk.add_line((-s, s), (s, -s))
    return name


def define_north_arrow(doc: Drawing) -> str:
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


def nice_bar(scale: int) -> tuple[float, int]:
    """Scale bar length in metres (a 1-2-5 step) close to 100 mm of paper, and its division count."""
    target_m = 100.0 * scale / MM_PER_M
    exp = math.floor(math.log10(target_m))
    best = 1.0
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * 10**exp <= target_m:
            best = step * 10**exp
    divisions = 5 if best / 10**exp in (1.0, 5.0, 10.0) else 4
    return best, divisions


def define_scale_bar(doc: Drawing, scale: int) -> str:
    name = f"G-SCALEBAR-1-{scale}"
    if name in doc.blocks:
        return name
    length_m, div = nice_bar(scale)
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


def define_title_block(doc: Drawing) -> str:
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


def define_legend(doc: Drawing, ltscale: float) -> str:
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
