"""The report's look: A4 page geometry, the colour palette, fonts and paragraph styles.

Everything the report draws takes its sizes, colours and type from here, so a change of house style is a
change in one place.
"""

from __future__ import annotations

from typing import Any

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm

PAGE_W, PAGE_H = A4
MARGIN_X = 16 * mm
MARGIN_TOP = 20 * mm
MARGIN_BOTTOM = 18 * mm
FRAME_W = PAGE_W - 2 * MARGIN_X
FRAME_H = PAGE_H - MARGIN_TOP - MARGIN_BOTTOM

INK = colors.HexColor("#1b2631")
ACCENT = colors.HexColor("#1f4e79")
MUTED = colors.HexColor("#5d6d7e")
RULE = colors.HexColor("#c8d1da")
ZEBRA = colors.HexColor("#f2f5f8")
SUBTOTAL = colors.HexColor("#dde6ef")
OK_GREEN = colors.HexColor("#2e7d32")
WARN_AMBER = colors.HexColor("#ef8f00")
BAD_RED = colors.HexColor("#c62828")

FONT, FONT_BOLD, FONT_ITALIC = "Helvetica", "Helvetica-Bold", "Helvetica-Oblique"


def _style(name: str, **kw: Any) -> ParagraphStyle:
    base = {"fontName": FONT, "fontSize": 9, "leading": 11.5, "textColor": INK}
    base.update(kw)
    return ParagraphStyle(name, **base)


STYLES: dict[str, ParagraphStyle] = {
    "body": _style("body", spaceAfter=4),
    "small": _style("small", fontSize=7.5, leading=9.5, textColor=MUTED),
    "cell": _style("cell", fontSize=7.5, leading=9),
    "cell_r": _style("cell_r", fontSize=7.5, leading=9, alignment=TA_RIGHT),
    "cell_head": _style("cell_head", fontName=FONT_BOLD, fontSize=7.5, leading=9, textColor=colors.white),
    "cell_head_r": _style(
        "cell_head_r", fontName=FONT_BOLD, fontSize=7.5, leading=9, textColor=colors.white, alignment=TA_RIGHT
    ),
    "h1": _style(
        "h1", fontName=FONT_BOLD, fontSize=16, leading=20, textColor=ACCENT, spaceBefore=0, spaceAfter=8
    ),
    "h2": _style(
        "h2", fontName=FONT_BOLD, fontSize=11.5, leading=14, textColor=ACCENT, spaceBefore=10, spaceAfter=4
    ),
    "title": _style("title", fontName=FONT_BOLD, fontSize=26, leading=31, textColor=ACCENT),
    "subtitle": _style("subtitle", fontSize=13, leading=17, textColor=MUTED),
    "kpi_value": _style("kpi_value", fontName=FONT_BOLD, fontSize=15, leading=18, alignment=TA_LEFT),
    "kpi_label": _style("kpi_label", fontSize=7.5, leading=9, textColor=MUTED),
    "toc0": _style("toc0", fontName=FONT_BOLD, fontSize=10, leading=15, leftIndent=0),
    "toc1": _style("toc1", fontSize=9, leading=12, leftIndent=14),
    "caption": _style(
        "caption", fontSize=7.5, leading=9.5, textColor=MUTED, alignment=TA_CENTER, spaceAfter=6
    ),
}
