"""Single-line diagrams for the PDF: per hall, the utility feed, each UPS block with its switchboard,
and the busways each switchboard feeds, every box with its rating and design load, from the
electrical schedule (layout/power/schedule.py) so the diagram and the XLSX Power sheet carry the same
figures. A hall with many blocks is drawn in bands of ``PER_BAND`` blocks; a switchboard with many
busways lists ``BUSWAYS_SHOWN`` of them (the most loaded) and how many more."""

from __future__ import annotations

from collections.abc import Sequence

from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors

from layout.export.pdf.charts import use_colour
from layout.export.pdf.theme import FONT, FRAME_W, INK, MUTED, RULE
from layout.power.sld import SldBlock

PER_BAND = 4  # UPS blocks side by side in one drawing
BUSWAYS_SHOWN = 6  # busway lines under a switchboard
BOX_H, LINE_H, GAP = 30.0, 9.0, 10.0


def _text(
    x: float, y: float, text: str, size: float = 6.5, colour: colors.Color = INK, anchor: str = "middle"
) -> String:
    return String(x, y, text, fontName=FONT, fontSize=size, fillColor=colour, textAnchor=anchor)


def _box(d: Drawing, x: float, y: float, w: float, lines: list[str], use: float | None) -> None:
    """A labelled box at (x, y) (its lower left corner), its left edge coloured by use of its limit."""
    d.add(Rect(x, y, w, BOX_H, fillColor=colors.white, strokeColor=INK, strokeWidth=0.6))
    if use is not None:
        d.add(Rect(x, y, 3, BOX_H, fillColor=use_colour(use), strokeColor=None))
    for i, t in enumerate(lines[:3]):
        d.add(_text(x + w / 2, y + BOX_H - 9 - i * 8.5, t, 6.8 if i == 0 else 6.0, INK if i == 0 else MUTED))


def _kw(v: float) -> str:
    return f"{v / 1000:,.2f} MW" if v >= 1000 else f"{v:,.0f} kW"


def hall_diagrams(hall: str, blocks: Sequence[SldBlock], width: float = FRAME_W) -> list[Drawing]:
    """The single-line diagram of one hall (its tree of layout/power/sld.py), one drawing per band of
    blocks."""
    out: list[Drawing] = []
    for start in range(0, len(blocks), PER_BAND):
        band = blocks[start : start + PER_BAND]
        col_w = width / max(len(band), 1)
        box_w = col_w - GAP
        n_lines = 0
        feeds = []
        for b in band:
            mine = sorted(b.busways, key=lambda r: (-float(r["use_of_limit"]), str(r["part_id"])))
            feeds.append(mine)
            n_lines = max(
                n_lines, min(len(mine), BUSWAYS_SHOWN) + (1 if len(mine) > BUSWAYS_SHOWN else 0) + 1
            )
        height = 20 + 3 * (BOX_H + 14) + n_lines * LINE_H + 6
        d = Drawing(width, height)
        top = height - 4
        # the utility feed across the band
        util_y = top - 16
        d.add(
            _text(
                width / 2,
                util_y + 4,
                f"Utility / MV switchgear: hall {hall}, blocks {start + 1}-{start + len(band)} of {len(blocks)}",
                7.5,
            )
        )
        d.add(Line(col_w / 2, util_y, width - col_w / 2, util_y, strokeColor=INK, strokeWidth=1.0))
        for i, (b, mine) in enumerate(zip(band, feeds, strict=True)):
            row, s = b.ups, b.switchboard
            x = i * col_w + GAP / 2
            cx = x + box_w / 2
            y_ups = util_y - 10 - BOX_H
            d.add(Line(cx, util_y, cx, y_ups + BOX_H, strokeColor=INK, strokeWidth=0.8))
            _box(
                d,
                x,
                y_ups,
                box_w,
                [
                    str(row["part_id"]).rsplit("/", 1)[-1] + f" ({row['side']})",
                    f"{row['model']} {_kw(row['rating_kw'])}",
                    f"normal {row['normal_kw'] / 1000:,.2f} / design {row['load_kw'] / 1000:,.2f} MW",
                ],
                float(row["use_of_limit"]),
            )
            y_swb = y_ups - 14 - BOX_H
            d.add(Line(cx, y_ups, cx, y_swb + BOX_H, strokeColor=INK, strokeWidth=0.8))
            _box(
                d,
                x,
                y_swb,
                box_w,
                [
                    str(s["part_id"]).rsplit("/", 1)[-1],
                    f"{s['model']} {_kw(s['rating_kw'])}",
                    f"{s['breaker_a']} A, design {_kw(s['load_kw'])}",
                ],
                float(s["use_of_limit"]),
            )
            y_bus = y_swb - 14 - BOX_H
            d.add(Line(cx, y_swb, cx, y_bus + BOX_H, strokeColor=INK, strokeWidth=0.8))
            n_taps = sum(int(r["taps"]) for r in mine)
            _box(
                d,
                x,
                y_bus,
                box_w,
                [
                    f"{len(mine)} busway run(s)",
                    f"{n_taps} tap-off boxes",
                    f"design {_kw(sum(float(r['load_kw']) for r in mine))}",
                ],
                None,
            )
            y = y_bus - 8
            for r in mine[:BUSWAYS_SHOWN]:
                name = str(r["part_id"]).split("/", 2)[-1]
                d.add(
                    _text(
                        x + 2,
                        y,
                        f"{name}: {r['load_kw']:,.0f} of {r['rating_kw']:,.0f} kW, {r['breaker_a']} A",
                        5.6,
                        INK,
                        "start",
                    )
                )
                d.add(
                    Rect(
                        x + box_w - 6,
                        y - 1,
                        4,
                        5,
                        fillColor=use_colour(float(r["use_of_limit"])),
                        strokeColor=None,
                    )
                )
                y -= LINE_H
            if len(mine) > BUSWAYS_SHOWN:
                d.add(
                    _text(
                        x + 2, y, f"+{len(mine) - BUSWAYS_SHOWN} more (XLSX Power sheet)", 5.6, MUTED, "start"
                    )
                )
        d.add(Line(0, 1, width, 1, strokeColor=RULE, strokeWidth=0.4))
        out.append(d)
    return out
