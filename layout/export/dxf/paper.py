"""Paper space: one ISO A1 layout per sheet with its frame, a locked viewport at the sheet's scale (the
layers of the other kind of sheet frozen in it), the title block, north arrow, scale bar, legend, and
the notes (general notes and the sheet's violations, or a power sheet's busways, UPS blocks and CDUs)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import ezdxf
import numpy as np
from ezdxf.document import Drawing
from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import Paperspace

from layout import figures
from layout.export.dxf.annotate import fit_height, note
from layout.export.dxf.blocks import (
    LEGEND_ROW,
    TITLE_FIELDS,
    TITLE_H,
    TITLE_W,
    define_scale_bar,
    legend_layers,
)
from layout.export.dxf.issue import draw_issue
from layout.export.dxf.layers import CABLING_LAYERS, HALL_ONLY_LAYERS, MM_PER_M, OVERVIEW_ONLY_LAYERS
from layout.export.dxf.overlays import numbered_violations, records
from layout.export.dxf.sheets import FRAME, PAPER_A1_MM, PLOT_FLAGS, SIDE_X, VIEW_BOX, Sheet
from layout.power.chain import bought_m
from layout.scene import Scene
from layout.violations import hall_key

NOTES_MAX = 30  # violation notes listed on one sheet; the rest are counted


def _drawing_number(stem: str, n: int) -> str:
    return f"{re.sub(r'[^A-Z0-9]+', '-', stem.upper()).strip('-')}-E-{n:03d}"


def _summary_line(summary: Mapping[str, Any]) -> str:
    """The title block's line of headline figures, as every output writes them (layout/figures.py)."""
    shown = summary.get("figures")
    if not isinstance(shown, Mapping):
        return ""
    keys = ("gpus", "racks", "it_mw", "violations")
    return "; ".join(f"{shown[k]['label']}: {figures.text(k, shown[k]['value'])}" for k in keys if k in shown)


def draw_sheet(
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
    if sheet.kind in ("power", "sld"):
        frozen = [*OVERVIEW_ONLY_LAYERS, *CABLING_LAYERS]
    elif sheet.kind == "hall":
        frozen = [*OVERVIEW_ONLY_LAYERS]
    else:
        frozen = [*HALL_ONLY_LAYERS]
    vp.frozen_layers = frozen
    note(
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
            attrib.dxf.height = fit_height(attrib.dxf.text, TITLE_FIELDS["TITLE"][2], TITLE_W - 4.0)
    above = TITLE_H + draw_issue(layout, site, fx1, fy0 + TITLE_H)  # sign-off and revision table
    layout.add_blockref(
        blocks["north"], (SIDE_X + 20.0, fy0 + above + 22.0), dxfattribs={"layer": "G-ANNO-SYMB"}
    )
    layout.add_blockref(
        define_scale_bar(doc, sheet.scale),
        (SIDE_X + 45.0, fy0 + above + 18.0),
        dxfattribs={"layer": "G-ANNO-SYMB"},
    )
    layout.add_blockref(blocks["legend"], (SIDE_X + 5.0, fy1 - 5.0), dxfattribs={"layer": "G-ANNO-LEGN"})
    _notes(layout, scene, sheet)


def _notes(layout: Paperspace, scene: Scene, sheet: Sheet) -> None:
    """General notes and the violations on this sheet, in the right-hand column above the north arrow."""
    x = SIDE_X + 5.0
    y = FRAME[3] - 5.0 - 12.0 - LEGEND_ROW * len(legend_layers()) - 10.0
    note(layout, "NOTES", (x, y), 5.0, "G-TTLB", TextEntityAlignment.TOP_LEFT)
    lines = [
        "1. Dimensions in millimetres. Site coordinates in metres: x east, y north.",
        "2. Racks: the filled band marks the front; tag = position in the row.",
        "3. Trays overhead; label = cables per medium | peak fill of the tray cross-section.",
        "4. Bundles: one lane per medium, as wide as its cables stacked to tray depth.",
    ]
    if sheet.kind == "sld":  # the diagram carries its figures; the busway totals are the power sheet's
        note(layout, "1. Figures from the electrical schedule (XLSX Power sheet).", (x, y - 8.0), 2.0,
             "G-TTLB", TextEntityAlignment.TOP_LEFT)  # fmt: skip
        return
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
        note(
            layout,
            line,
            (x, y),
            2.0,
            "G-ANNO-VIOL" if line.startswith("V") else "G-TTLB",
            TextEntityAlignment.TOP_LEFT,
        )
        y -= 3.6


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
                f"   {model}: {len(g)} runs, {float(bought_m(g['length_m']).sum()):,.0f} m as bought, "
                f"load up to {g['load_kw'].to_numpy(float).max():,.0f} of {g['rating_kw'].to_numpy(float)[0]:,.0f} kW"
            )
        if len(bw):
            k = int(np.argmax(use))
            lines.append(f"   most loaded: {bw['busway_id'].iat[k]} at {use[k]:.0%}")
    if scene.ups is not None:
        mine = scene.ups[scene.ups["hall"] == key]
        lines.append(f"4. UPS blocks of {key}: {len(mine)} (design load / rating MW, busways):")
        for r in records(mine.head(NOTES_MAX)):
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
        for r in records(c.head(NOTES_MAX)):
            what = (
                "standby"
                if r.standby
                else f"{float(r.load_kw):,.0f} / {float(r.rating_kw):,.0f} kW, {float(r.load_flow_l_per_s):,.1f} L/s, "
                f"rows {r.rows}"
            )
            lines.append(f"   {str(r.cdu_id).rsplit('/', 1)[-1]} {r.model}: {what}")
    for line in lines:
        note(
            layout,
            line if len(line) <= 100 else line[:99] + "~",
            (x, y),
            2.0,
            "G-TTLB",
            TextEntityAlignment.TOP_LEFT,
        )
        y -= 3.6
