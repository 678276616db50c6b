"""The single-line diagram of each hall in model space (layer E-POWR-SLD), in the area its SLD sheet views
(layout/export/dxf/sheets.py ``sld_sheets``): MV -> UPS blocks -> their switchboards -> busways, the
tap-offs counted per busway, every box with the figures of the design's electrical schedule
(layout/power/schedule.py, ``Design.schedule``, as the tree of layout/power/sld.py: the XLSX Power sheet and the PDF's diagrams print the
same), laid out in paper mm (:func:`sld_items`) and drawn at the sheet's scale."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import BaseLayout

from layout.export.dxf.annotate import note
from layout.export.dxf.fastpath import RawEntities
from layout.export.dxf.layers import MM_PER_M
from layout.export.dxf.sheets import SLD_H_MM, SLD_W_MM, Sheet
from layout.power.sld import SldBlock
from layout.scene import Scene

SLD_MAX_BLOCKS = 16  # UPS blocks drawn; the rest summarised
SLD_MAX_BUSWAYS = 40  # busways drawn on a sheet; the rest summarised per block as "+N more"
TEXT_MM = 1.8  # paper height of the box texts
PITCH_MM = 2.9  # between their lines
LAYER = "E-POWR-SLD"


@dataclass(frozen=True)
class SldItem:
    """A piece of the single-line diagram in paper mm (origin bottom left): a box with text lines (top
    to bottom), a line through ``points``, or a free text at ``points[0]``."""

    kind: str  # "box", "line", "text"
    points: tuple[tuple[float, float], ...]
    lines: tuple[str, ...] = ()


def _short(element_id: str, hall: str) -> str:
    return element_id[len(hall) + 1 :] if element_id.startswith(hall + "/") else element_id


def _fig(r: dict[str, object]) -> str:
    """A box's figures: its design load (a UPS block's normal / design), its use of what it may carry
    and its breaker frame, from the schedule's row ``r``."""
    brk = f"{r['breaker_a']} A" if r["breaker_a"] else "> 6300 A"
    normal, load = float(r["normal_kw"]), float(r["load_kw"])  # type: ignore[arg-type]
    kw = f"{normal:.1f} / {load:.1f} kW" if normal == normal else f"{load:.1f} kW"
    return f"{kw} {100 * float(r['use_of_limit']):.0f} % {brk}"  # type: ignore[arg-type]


def sld_items(blocks: Sequence[SldBlock], hall: str) -> list[SldItem]:
    """The single-line diagram of ``hall`` (MV -> UPS blocks -> their switchboards -> busways, tap-offs
    summarised per busway), laid out in a ``SLD_W_MM`` x ``SLD_H_MM`` box: at most ``SLD_MAX_BLOCKS``
    blocks (8 a tier) and ``SLD_MAX_BUSWAYS`` busways drawn. Each box: id and model; rating and limit;
    design load (a UPS block's normal / design), % of what it may carry, breaker."""
    out: list[SldItem] = []
    drawn = blocks[:SLD_MAX_BLOCKS]
    nd = max(1, len(drawn))
    per_tier = min(8, nd)
    k = max(1, SLD_MAX_BUSWAYS // nd)
    cell_w = SLD_W_MM / per_tier
    bw_w = cell_w - 6.0
    ups_h, bw_h, gap = 12.0, 9.0, 4.0
    cell_h = 2 * ups_h + 2 * gap + k * (bw_h + 2.0) + 8.0
    it_kw = sum(float(b.ups["normal_kw"]) for b in blocks)
    mx0, mx1 = SLD_W_MM / 2 - 45.0, SLD_W_MM / 2 + 45.0
    out.append(SldItem("box", ((mx0, SLD_H_MM - 14.0), (mx1, SLD_H_MM)),
                       (f"MV / UTILITY  HALL {hall}", f"IT {it_kw:.0f} kW on {len(blocks)} UPS blocks",
                        "each box: design kW (UPS: normal / design), % of what it may carry, breaker")))  # fmt: skip
    bar_y = SLD_H_MM - 22.0
    out.append(SldItem("line", ((SLD_W_MM / 2, SLD_H_MM - 14.0), (SLD_W_MM / 2, bar_y))))
    for i, b in enumerate(drawn):
        tier, col = divmod(i, per_tier)
        x0 = col * cell_w + 3.0
        top = bar_y - 8.0 - tier * (cell_h + 8.0)
        xc = x0 + bw_w / 2
        if col == 0:  # the tier's bus, hung from the MV bar (later tiers down the left margin)
            xe = (min(per_tier, nd - tier * per_tier) - 1) * cell_w + 3.0 + bw_w / 2
            xs = 1.5 if tier else xc
            out.append(SldItem("line", ((xs, top + 4.0), (xe, top + 4.0))))
            if tier:
                out.append(SldItem("line", ((1.5, bar_y), (1.5, top + 4.0))))
            else:
                lo = 1.5 if nd > per_tier else min(xc, SLD_W_MM / 2)
                out.append(SldItem("line", ((lo, bar_y), (max(xe, SLD_W_MM / 2), bar_y))))
                out.append(SldItem("line", ((xc, bar_y), (xc, top + 4.0))))
        out.append(SldItem("line", ((xc, top + 4.0), (xc, top))))
        u, s = b.ups, b.switchboard
        out.append(SldItem("box", ((x0, top - ups_h), (x0 + bw_w, top)),
                           (f"{_short(str(u['part_id']), hall)} {u['model']}",
                            f"{float(u['rating_kw']):.0f} kW x {float(u['limit']):g}", _fig(u))))  # fmt: skip
        y = top - ups_h - gap
        out.append(SldItem("line", ((xc, top - ups_h), (xc, y))))
        out.append(SldItem("box", ((x0, y - ups_h), (x0 + bw_w, y)),
                           (f"{_short(str(s['part_id']), hall)} {s['model']}",
                            f"{float(s['rating_kw']):.0f} kW x {float(s['limit']):g}", _fig(s))))  # fmt: skip
        y -= ups_h
        spine_x = x0 + 2.0
        ys = []
        for bw in b.busways[:k]:
            y -= 2.0
            ys.append(y - bw_h / 2)
            out.append(SldItem("box", ((x0 + 5.0, y - bw_h), (x0 + bw_w, y)),
                               (f"{_short(str(bw['part_id']), hall)} {bw['model']} {float(bw['rating_kw']):.0f} kW",
                                _fig(bw), f"{bw['taps']} tap-offs, largest {float(bw['tap_max_kw']):.1f} kW")))  # fmt: skip
            y -= bw_h
        if ys:
            out.append(SldItem("line", ((spine_x, top - 2 * ups_h - gap), (spine_x, ys[-1]))))
            for yy in ys:
                out.append(SldItem("line", ((spine_x, yy), (x0 + 5.0, yy))))
        more = len(b.busways) - k
        if more > 0:
            out.append(SldItem("text", ((x0 + 5.0, y - 4.0),), (f"+{more} more busways",)))
    if len(blocks) > len(drawn):
        rest = blocks[len(drawn) :]
        nbw = sum(len(b.busways) for b in rest)
        out.append(SldItem("text", ((3.0, 6.0),),
                           (f"+{len(rest)} more UPS blocks with {nbw} busways: see the Electrical schedule",)))  # fmt: skip
    return out


def draw_sld(msp: BaseLayout, scene: Scene, sheets: Sequence[Sheet], raw: RawEntities | None = None) -> None:
    if not scene.sld:
        return
    for sheet in sheets:
        if sheet.kind != "sld":
            continue
        n = sheet.scale
        ox, oy = sheet.bbox_m[0] * MM_PER_M, sheet.bbox_m[1] * MM_PER_M

        def at(p: tuple[float, float], ox: float = ox, oy: float = oy, n: int = n) -> tuple[float, float]:
            return (ox + p[0] * n, oy + p[1] * n)

        for it in sld_items(scene.sld[sheet.hall], sheet.hall):
            if it.kind == "line":
                msp.add_lwpolyline([at(p) for p in it.points], dxfattribs={"layer": LAYER})
            elif it.kind == "box":
                (x0, y0), (x1, y1) = it.points
                msp.add_lwpolyline(
                    [at((x0, y0)), at((x1, y0)), at((x1, y1)), at((x0, y1))], close=True,
                    dxfattribs={"layer": LAYER},
                )  # fmt: skip
                for i, line in enumerate(it.lines):
                    note(msp, line, at((x0 + 1.2, y1 - 1.0 - i * PITCH_MM)), TEXT_MM * n, LAYER,
                         TextEntityAlignment.TOP_LEFT, raw=raw)  # fmt: skip
            else:
                for i, line in enumerate(it.lines):
                    note(msp, line, at((it.points[0][0], it.points[0][1] - i * PITCH_MM)), TEXT_MM * n, LAYER,
                         TextEntityAlignment.TOP_LEFT, raw=raw)  # fmt: skip
