"""Model space: the overhead trays at their width, the cable bundles per media class in lanes across
them, risers, and a label per loaded segment (cables per medium and fill)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from ezdxf.document import Drawing
from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import Modelspace

from layout.export.dxf.annotate import Boards, Spot, first_free, upright
from layout.export.dxf.blocks import define_riser_block
from layout.export.dxf.fastpath import RawEntities, TrayEntity, TrayLine, TrayRiser, TrayText
from layout.export.dxf.layers import MEDIA_LAYER, MEDIA_TAG, MM_PER_M, NOTE_MM
from layout.export.dxf.sheets import Scales
from layout.export.labels import Board, text_width
from layout.scene import Scene


def tray_entities(scene: Scene, scales: Scales, boards: Boards | None = None) -> list[TrayEntity]:
    """The model-space entities of the trays, in drawing order: per segment the tray at its width, its
    bundles per media class in lanes across it and its label (a riser: the riser block and its label).

    A label is NOTE_MM high on its sheet and stays within its segment, clear of what ``boards`` holds:
    in full (``412: 400 MMF + 12 SMF | 38%``) midway, a third or two thirds along, else shortened
    (``412 | 38%``), else left off; empty segments carry none (the notes say what a label means)."""
    boards = Boards(Board(10.0 * scales.main), Board(10.0 * scales.site)) if boards is None else boards
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
                    f"RISER {cable_text(cables[i], {m: counts[m][i] for m in media})}",
                    f"RISER {cables[i]}",
                )
                spots = [Spot(t, (p[0] + 400.0 * fx, p[1] + 400.0 * fy), h, _CORNER[(fx, fy)])
                         for t in texts for fx, fy in ((1, 1), (1, -1), (-1, 1), (-1, -1))]  # fmt: skip
                got = first_free(boards.hall, spots)
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
        # the one fill of every output (layout/figures.py), to the whole per cent a drawing label has room for
        filled = f"{fill[i] * 100:.0f}%"
        full = f"{cable_text(cables[i], {m: counts[m][i] for m in media})} | {filled}"
        short = f"{cables[i]} | {filled}"
        # campus ducts are labelled at site scale, on the overview layer (frozen on hall sheets)
        duct = kinds[i] == "duct"
        label_layer, board = ("G-ANNO-OVER", boards.over) if duct else ("E-TRAY-IDEN", boards.hall)
        h = NOTE_MM * (scales.site if duct else sc)
        # a row tray's label hugs the rear of its racks; other trays carry theirs on themselves
        off = clear[i] + 0.75 * h if clear[i] > 0 else 0.0
        rot = upright(math.degrees(math.atan2(dy, dx)))
        spots = []
        for text in (full, short):
            w = text_width(text, h)
            for t in (0.5, 1 / 3, 2 / 3):  # along the segment; the text within its middle 90 %
                if abs(t - 0.5) * length + w / 2 <= 0.45 * length:
                    at = (p[0] + dx * t + side_x[i] * off, p[1] + dy * t + side_y[i] * off)
                    spots.append(Spot(text, at, h, TextEntityAlignment.MIDDLE_CENTER, rot))
        got = first_free(board, spots)
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


def draw_trays(
    msp: Modelspace, raw: RawEntities, doc: Drawing, scene: Scene, scales: Scales, boards: Boards, at: int
) -> None:
    """Trays at their width, bundles per media class in lanes across them, a label per loaded segment:
    through the fast path (``raw``, ~10k entities on a campus), before the model-space entity at ``at``:
    under the racks, though placed after the notes it keeps clear of."""
    items = tray_entities(scene, scales, boards)
    if not items:
        return
    raw.add_trays(msp, items, define_riser_block(doc), at)


def cable_text(total: int, by_class: Mapping[str, int]) -> str:
    """412 MMF, or 412: 400 MMF + 12 SMF when several media share the segment; 0 when it is empty."""
    parts = [f"{n} {MEDIA_TAG[m]}" for m, n in by_class.items() if n > 0]
    if len(parts) == 1:
        return parts[0]
    return f"{total}: " + " + ".join(parts) if parts else str(total)
