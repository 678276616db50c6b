"""Model space: buildings and their entries, hall walls and names, columns, keep-outs and hall
dimensions; the racks (through the fast path) with their position tags; row labels, row kW and aisle
dimensions. Everything in millimetres; annotation sized for the sheet it shows on (:class:`Scales`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import ezdxf
import numpy as np
import pandas as pd
from ezdxf.document import Drawing
from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import BaseLayout, Modelspace

from layout.export.dxf.annotate import Boards, Spot, note, place_label, to_mm
from layout.export.dxf.blocks import (
    attrib_height_mm,
    attrib_longest,
    attrib_offsets_mm,
    define_column_block,
    front_band_mm,
)
from layout.export.dxf.fastpath import RawEntities, render_dimension
from layout.export.dxf.layers import (
    DIMSTYLE_MM,
    MIN_TEXT_MM,
    MM_PER_M,
    NOTE_MM,
    NOTE_STYLE,
    RACK_ATTRIBS,
    TITLE_MM,
    dimstyle,
)
from layout.export.dxf.setout import draw_edges, draw_grid, draw_setting_out, is_rectangle, take_dim_text
from layout.export.dxf.sheets import Scales, bbox
from layout.export.labels import Board, Box, grow, text_box, text_width
from layout.model import RackTemplate
from layout.scene import Scene

HALL_DIM_MM = 8.0  # overall hall and wall dimensions, off the wall on paper (layout.export.dxf.setout)


def _overview_label(msp: BaseLayout, text: str, at: tuple[float, float], height: float) -> None:
    """A site-scale name over a hall: MTEXT with a background mask so it reads over the racks."""
    mt = msp.add_mtext(text, dxfattribs={"layer": "G-ANNO-OVER", "style": NOTE_STYLE, "char_height": height})
    mt.set_location(at, attachment_point=ezdxf.const.MTEXT_MIDDLE_CENTER)
    mt.set_bg_color(None, scale=1.3)  # None: the canvas colour


def clear_spot(
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


def draw_site(
    msp: BaseLayout,
    doc: Drawing,
    scene: Scene,
    scales: Scales,
    boards: Boards,
    raw: RawEntities | None = None,
) -> None:
    """Building outlines and entries, hall walls and names, columns, keep-outs, hall dimensions."""
    site = scene.site
    over_h = 5.0 * scales.site
    hall_kw = scene.racks.groupby("hall")["power_kw"].sum().to_dict() if not scene.racks.empty else {}
    for b in site.building:
        msp.add_lwpolyline(to_mm(b.footprint), close=True, dxfattribs={"layer": "A-BLDG-OTLN"})
        bx0, by0, bx1, by1 = bbox(b.footprint)
        note(
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
            note(msp, "ENTRY", (ex, ey - 3.0 * bs), NOTE_MM * bs, "G-ANNO-TEXT", TextEntityAlignment.TOP_CENTER,
                  board=boards.hall)  # fmt: skip
            at, align = _outside(b.entry, (bx0, by0, bx1, by1), 2.5 * bs + 0.5 * NOTE_MM * scales.site)
            note(msp, "ENTRY", at, NOTE_MM * scales.site, "G-ANNO-OVER", align, board=boards.over)
        for h in b.hall:
            key = f"{b.id}/{h.id}"
            sc = scales.of(key)
            msp.add_lwpolyline(to_mm(h.polygon), close=True, dxfattribs={"layer": "A-HALL-OTLN"})
            box = bbox(h.polygon)
            hx0, hy0, hx1, hy1 = (v * MM_PER_M for v in box)
            dim_below = b.entry is None or b.entry[1] >= (box[1] + box[3]) / 2
            label_y = hy1 + 1.5 * sc if dim_below else hy0 - 1.5 * sc
            align = TextEntityAlignment.BOTTOM_CENTER if dim_below else TextEntityAlignment.TOP_CENTER
            note(
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
            note(
                msp,
                f"IT {hall_kw.get(key, 0.0) / 1000:,.2f} MW{limit}",
                (hx1, label_y),
                TITLE_MM * sc,
                "E-POWR",
                right,
                board=boards.hall,
            )
            kboxes = [bbox(k.polygon) for k in h.keepouts]
            spot = clear_spot(scene.racks, key, box, kboxes, 2.5 * over_h / MM_PER_M)
            _overview_label(msp, key, spot, over_h)
            boards.over.take(text_box(key, spot, over_h))
            for c in h.columns:
                name = define_column_block(doc, c.size_m)
                msp.add_blockref(
                    name, (c.at[0] * MM_PER_M, c.at[1] * MM_PER_M), dxfattribs={"layer": "S-COLS"}
                )
            others = [bbox(o.polygon) for _b, o in site.halls() if o is not h]
            draw_grid(msp, doc, h, sc, boards.hall, others, raw)
            for k in h.keepouts:
                pts = to_mm(k.polygon)
                msp.add_lwpolyline(pts, close=True, dxfattribs={"layer": "A-AREA-KOUT"})
                hatch = msp.add_hatch(dxfattribs={"layer": "A-AREA-PATT"})
                hatch.set_pattern_fill("ANSI31", color=256, scale=0.5 * sc)  # by layer: the palette's colour
                hatch.paths.add_polyline_path(pts, is_closed=True)
                _keepout_text(msp, boards.hall, bbox(k.polygon), k.reason, sc)
            if is_rectangle(h.polygon):
                _hall_dims(msp, doc, box, b.entry, sc, boards.hall, raw)
            else:  # an L or any other shape: every wall its own dimension
                draw_edges(msp, doc, h.polygon, HALL_DIM_MM * sc, sc, boards.hall, raw)
    if scene.tray_edges is None:  # without cabling, draw the ducts' paths from the site file
        for d in site.duct:
            if d.path:
                msp.add_lwpolyline(to_mm(d.path), dxfattribs={"layer": "E-TRAY-DUCT"})


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
        place_label(msp, board, "G-ANNO-TEXT", [Spot(text, at, h, align)])


def _hall_dims(
    msp: BaseLayout,
    doc: Drawing,
    box: tuple[float, float, float, float],
    entry: tuple[float, float] | None,
    scale: int,
    board: Board,
    raw: RawEntities | None = None,
) -> None:
    """Overall hall width and depth, on the sides away from the building entry (where the trunk comes in)."""
    x0, y0, x1, y1 = (v * MM_PER_M for v in box)
    style = dimstyle(doc, scale)
    off = HALL_DIM_MM * scale
    ex, ey = entry if entry is not None else (box[0], box[3])
    y = y0 - off if ey * MM_PER_M >= (y0 + y1) / 2 else y1 + off
    x = x1 + off if ex * MM_PER_M <= (x0 + x1) / 2 else x0 - off
    attrs = {"layer": "G-ANNO-DIMS"}
    t = DIMSTYLE_MM["dimtxt"] * scale  # the dimension lines and their texts, centred on them
    board.take((x0, y - t, x1, y + t))
    board.take((x - t, y0, x + t, y1))
    take_dim_text(board, ((x0 + x1) / 2, y), x1 - x0, t)  # the texts read horizontally (DIMTIH, DIMTOH)
    take_dim_text(board, (x, (y0 + y1) / 2), y1 - y0, t)
    render_dimension(
        msp.add_linear_dim(base=(x0, y), p1=(x0, y0), p2=(x1, y0), dimstyle=style, dxfattribs=attrs), raw
    )
    render_dimension(
        msp.add_linear_dim(
            base=(x, y0), p1=(x0, y0), p2=(x0, y1), angle=90, dimstyle=style, dxfattribs=attrs
        ),
        raw,
    )


def draw_racks(msp: Modelspace, raw: RawEntities, scene: Scene, scales: Scales, boards: Boards) -> None:
    """One INSERT per rack with its ATTRIBs, and the visible position tag inside the rack: through the
    fast path (``raw``, :mod:`layout.export.dxf.fastpath`), as DXF text written with the document.
    The rows' rack bands are taken on the hall board: labels placed later stay in the aisles.
    """
    racks = scene.racks
    if racks.empty:
        return
    order = racks.sort_values("rack_id", kind="stable")
    raw.add_racks(msp, order, rack_marks(order, scene.templates, scales))
    bands = order.groupby("row", sort=True).agg(x0=("x0_m", "min"), y0=("y0_m", "min"), x1=("x1_m", "max"),
                                                y1=("y1_m", "max"))  # fmt: skip
    for b in (bands.to_numpy(float) * MM_PER_M).tolist():
        boards.hall.take((b[0], b[1], b[2], b[3]))


def rack_marks(order: pd.DataFrame, templates: Mapping[str, RackTemplate], scales: Scales) -> pd.DataFrame:
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
    band = np.array([front_band_mm(t.depth_mm) for t in used], float)[codes]
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


def draw_rows(
    msp: BaseLayout, doc: Drawing, scene: Scene, scales: Scales, board: Board, raw: RawEntities | None = None
) -> None:
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
            place_label(msp, board, layer, spots, raw)
    hall_of = {f"{b.id}/{h.id}": h for b in scene.site.building for h in b.hall}
    for hall, group in rows.groupby("hall", sort=True):
        sc = scales.of(str(hall))
        label_mm = 5 * 0.8 * _row_label_height(sc, aisle.get(str(hall), 1.2))
        aisle_dims(msp, doc, group, sc, label_mm, widest.get(str(hall), 3.6), board, raw)
        if str(hall) in hall_of:  # after the aisle dimensions: theirs are the places by the row labels
            draw_setting_out(msp, doc, hall_of[str(hall)], group, sc, board, raw)


def _row_label_height(scale: int, cold_aisle_m: float) -> float:
    """Row labels: 2.5 mm on paper, but no more than 30 % of the aisle they stand in (two facing rows
    put their labels side by side across it), and never under MIN_TEXT_MM (mm)."""
    return max(MIN_TEXT_MM * scale, min(TITLE_MM * scale, 0.3 * cold_aisle_m * MM_PER_M))


def _xy(axis: str, along: float, across: float) -> tuple[float, float]:
    """A point given along and across rows of ``axis`` as drawing (x, y)."""
    return (along, across) if axis == "x" else (across, along)


def aisle_dims(
    msp: BaseLayout,
    doc: Drawing,
    rows: pd.DataFrame,
    scale: int,
    label_mm: float,
    max_gap_m: float,
    board: Board | None = None,
    raw: RawEntities | None = None,
) -> None:
    """One DIMENSION per aisle between neighbouring row lines, in the first stretch (lowest along the
    rows) where rows on both sides overlap, just past the row labels (``label_mm`` long) at the rows'
    first racks, else further along where ``board`` has room for it (midway, then before the far end);
    text COLD/HOT/AISLE and the width. An aisle with no free spot gets none."""
    style = dimstyle(doc, scale)
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
            render_dimension(dim, raw)
