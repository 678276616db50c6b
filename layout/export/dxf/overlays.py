"""Model space over the plan: design-rule violations as revision clouds with their tags, and the power
chain (busways over their rows, CDUs as boxes) with their ids."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd
from ezdxf import revcloud
from ezdxf.colors import rgb2int
from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import BaseLayout

from layout.export.dxf.annotate import Boards, Spot, first_free, place_label, to_mm
from layout.export.dxf.fastpath import RawEntities
from layout.export.dxf.layers import LAYER_BY_NAME, MIN_TEXT_MM, MM_PER_M, NOTE_MM, NOTE_STYLE
from layout.export.dxf.sheets import Scales
from layout.export.labels import Board, runs_text
from layout.scene import Scene
from layout.violations import hall_key


def numbered_violations(scene: Scene) -> list[tuple[int, str, str, str]]:
    """(number, kind, where, message) of every violation, numbered V1.. as the drawing tags them (the
    scene's markers: ordered by where, kind, message)."""
    m = scene.markers
    return list(
        zip(m["number"].tolist(), m["kind"].tolist(), m["where"].tolist(), m["message"].tolist(), strict=True)
    )


def tag_list(numbers: Sequence[int]) -> str:
    """V3, V4, V5, V9 -> 'V3-V5, V9'."""
    return runs_text(numbers, "V")


def draw_violations(msp: BaseLayout, scene: Scene, scales: Scales, boards: Boards) -> None:
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
    viol = LAYER_BY_NAME["G-ANNO-VIOL"]  # its colour on a tag on the notes layer: ACI and true colour
    red: dict[str, int] = {"color": viol.color}
    if viol.rgb is not None:
        red["true_color"] = rgb2int(viol.rgb)
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
        numbers = tag_list([n for n, _, _ in items])
        gap = 0.3 * h
        corners = [
            ((x0, y1 + gap), TextEntityAlignment.BOTTOM_LEFT),
            ((x0, y0 - gap), TextEntityAlignment.TOP_LEFT),
            ((x1, y1 + gap), TextEntityAlignment.BOTTOM_RIGHT),
            ((x1, y0 - gap), TextEntityAlignment.TOP_RIGHT),
        ]
        corners += [((x0, y1 + gap + k * 1.4 * h), TextEntityAlignment.BOTTOM_LEFT) for k in range(1, 4)]  # fmt: skip
        spots = [Spot(t, at, h, align) for t in (f"{numbers} {kinds}", numbers) for at, align in corners]
        got = first_free(board, spots)
        if got is None:
            continue
        t = msp.add_text(got.text, height=h, dxfattribs={"layer": "G-ANNO-TEXT" if in_hall else "G-ANNO-VIOL",
                                                          "style": NOTE_STYLE, **(red if in_hall else {})})  # fmt: skip
        t.set_placement(got.at, align=got.align)


def records(df: pd.DataFrame) -> list[Any]:
    """The rows of a table as objects with its columns as attributes."""
    from types import SimpleNamespace

    return [SimpleNamespace(**{str(k): v for k, v in r.items()}) for r in df.to_dict("records")]


def draw_power(
    msp: BaseLayout, scene: Scene, scales: Scales, board: Board, raw: RawEntities | None = None
) -> None:
    """The power chain in model space: each busway a line over its racks (layer E-POWR, A and B either
    side of the row's centre line), the CDUs as boxes (M-EQPM-CDU, the scene's ``cdu_boxes``). Each
    busway is labelled with its id and the UPS block it hangs on (``A1 UPS-A1``) past one end of its
    line, and each CDU with its id: on E-POWR (the hall and power sheets), placed last on the hall
    ``board``, so only where no other label is; the figures stay in the power sheet's notes and the
    XLSX."""
    if scene.busways is not None:
        for r in records(scene.busways):
            if math.isnan(r.x0_m):  # a busway with no racks drawn
                continue
            a, b = (r.x0_m * MM_PER_M, r.y0_m * MM_PER_M), (r.x1_m * MM_PER_M, r.y1_m * MM_PER_M)
            msp.add_lwpolyline([a, b], dxfattribs={"layer": "E-POWR"})
            place_label(msp, board, "E-POWR", _busway_spots(r, MIN_TEXT_MM * scales.of(str(r.hall))), raw)
    for r in records(scene.cdu_boxes):
        _labelled_box(msp, board, r, "M-EQPM-CDU", "E-POWR", _tail(r.cdu_id), scales, raw, inside=True)


def draw_cabinets(
    msp: BaseLayout, scene: Scene, scales: Scales, board: Board, raw: RawEntities | None = None
) -> None:
    """The cable plant's fibre cabinets as boxes (T-EQPM-FIBR, the scene's ``cabinet_boxes``), each
    labelled with its location and number (``R25/K01/FC01``) on T-EQPM-IDEN (the hall sheets), placed on
    the hall ``board`` only where no other label is."""
    for r in records(scene.cabinet_boxes):
        _labelled_box(msp, board, r, "T-EQPM-FIBR", "T-EQPM-IDEN", str(r.label), scales, raw, inside=False)


def _labelled_box(
    msp: BaseLayout,
    board: Board,
    r: Any,
    layer: str,
    label_layer: str,
    text: str,
    scales: Scales,
    raw: RawEntities | None,
    inside: bool,
) -> None:
    """A footprint box of the scene (``x_m, y_m, half_x_m, half_y_m, hall``) on ``layer``, and its
    ``text`` on ``label_layer`` where the ``board`` has room: inside the box (``inside``), else beside
    one of its four sides."""
    hx, hy = float(r.half_x_m), float(r.half_y_m)
    x, y = float(r.x_m), float(r.y_m)
    pts = to_mm([(x - hx, y - hy), (x + hx, y - hy), (x + hx, y + hy), (x - hx, y + hy)])
    msp.add_lwpolyline(pts, close=True, dxfattribs={"layer": layer})
    th = MIN_TEXT_MM * scales.of(str(r.hall))
    gap = 0.25 * th
    cx, cy, ex, ey = x * MM_PER_M, y * MM_PER_M, hx * MM_PER_M + gap, hy * MM_PER_M + gap
    spots = [Spot(text, (cx, cy), th)] if inside else []
    spots += [
        Spot(text, (cx, cy + ey), th, TextEntityAlignment.BOTTOM_CENTER),
        Spot(text, (cx, cy - ey), th, TextEntityAlignment.TOP_CENTER),
        Spot(text, (cx + ex, cy), th, TextEntityAlignment.MIDDLE_LEFT),
        Spot(text, (cx - ex, cy), th, TextEntityAlignment.MIDDLE_RIGHT),
    ]
    place_label(msp, board, label_layer, spots, raw)


HEADER_OFFSET_M = 0.15  # supply and return either side of the line from a CDU to its row (drawn apart)


def coolant_headers(scene: Scene) -> list[tuple[str, str, tuple[float, float], tuple[float, float]]]:
    """Each working CDU's headers to the rows it serves: (layer, cdu_id, start, end) in site metres, a
    supply (``M-HYDR-SUPP``) and a return (``M-HYDR-RETN``) from the CDU's centre to the nearer end of
    each of its rows, ``HEADER_OFFSET_M`` either side of the straight line between them (schematic:
    their route is the mechanical contractor's)."""
    cdus, rows = scene.cdus, scene.rows
    if cdus is None or not len(cdus) or not len(rows):
        return []
    ends = {
        str(r.row): ((float(r.x0_m), float(r.y0_m)), (float(r.x1_m), float(r.y1_m))) for r in records(rows)
    }
    out = []
    for c in records(cdus):
        if bool(c.standby) or not str(c.rows):
            continue
        cx, cy = float(c.x_m), float(c.y_m)
        for tail in str(c.rows).split():
            row = ends.get(f"{c.hall}/{tail}")
            if row is None:
                continue
            ex, ey = min(row, key=lambda p: math.hypot(p[0] - cx, p[1] - cy))
            length = math.hypot(ex - cx, ey - cy)
            if length < 1e-9:
                continue
            nx, ny = -(ey - cy) / length * HEADER_OFFSET_M, (ex - cx) / length * HEADER_OFFSET_M
            out.append(("M-HYDR-SUPP", str(c.cdu_id), (cx + nx, cy + ny), (ex + nx, ey + ny)))
            out.append(("M-HYDR-RETN", str(c.cdu_id), (cx - nx, cy - ny), (ex - nx, ey - ny)))
    return out


def draw_coolant(msp: BaseLayout, scene: Scene) -> None:
    """The CDUs' supply and return headers (:func:`coolant_headers`) in model space."""
    for layer, _, a, b in coolant_headers(scene):
        msp.add_lwpolyline(to_mm([a, b]), dxfattribs={"layer": layer})


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
