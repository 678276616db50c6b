"""The PDF design report: a reportlab platypus adapter over a finished Design.

Only this module (and the commands that call it) imports reportlab; the core never does. Every figure
comes from the Design (the headline ones from Design.summary(), as in summary.json); the report only
sums, sorts, groups and formats them. The bytes are
deterministic: reportlab's invariant mode, the creation date taken from the site file's date, no clock.

Layout: A4 portrait, a cover with the headline figures, a table of contents, then one chapter per
concern (plans, power, network, bill of materials, reliability, violations, assumptions). Long tables
are LongTables that split across pages and repeat their header row.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias
from xml.sax.saxutils import escape

import numpy as np
import pandas as pd
import tomlkit
from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    KeepTogether,
    LongTable,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.tableofcontents import TableOfContents

from layout.export.atomic import write_bytes

if TYPE_CHECKING:
    from layout.design import Design

# ------------------------------------------------------------------------------------------ page + style
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


# ------------------------------------------------------------------------------------------- formatting
def fmt_int(n: float) -> str:
    return f"{round(n):,}"


def fmt_num(x: float, digits: int = 1) -> str:
    return f"{x:,.{digits}f}"


def fmt_usd(x: float) -> str:
    return f"${x:,.0f}"


def fmt_price(x: float) -> str:
    """Dollars, with cents only when there are any (so BOM lines add up to their subtotals exactly)."""
    cents = round(x * 100)
    return f"${cents // 100:,}" if cents % 100 == 0 else f"${cents / 100:,.2f}"


def fmt_pct(x: float, digits: int = 1) -> str:
    return f"{100.0 * x:.{digits}f} %"


_ASCII = str.maketrans(
    {"≤": "<=", "≥": ">=", "→": "->", "←": "<-", "≈": "~", "…": "...", "−": "-", "✓": "ok"}
)


def safe(text: object) -> str:
    """Text fit for a Paragraph in the standard Helvetica (WinAnsi) encoding, markup escaped."""
    s = str(text).translate(_ASCII)
    s = s.encode("cp1252", errors="replace").decode("cp1252")
    return escape(s)


def para(text: object, style: str = "body") -> Paragraph:
    return Paragraph(safe(text), STYLES[style])


# ------------------------------------------------------------------------------------ document template
class PageCounter(Flowable):
    """Zero-size indexing flowable: remembers the page count of the last pass for "page N of M", and keeps
    multiBuild going until that count is stable."""

    _ZERO_SIZE = 1

    def __init__(self) -> None:
        super().__init__()
        self.total = 0  # pages of the last finished pass (0 before the first)
        self.seen = 0  # pages laid out so far in this pass
        self._previous = -1

    def isIndexing(self) -> int:  # noqa: N802 (reportlab API)
        return 1

    def isSatisfied(self) -> bool:  # noqa: N802
        return self.total == self._previous

    def beforeBuild(self) -> None:  # noqa: N802
        self._previous = self.total

    def afterBuild(self) -> None:  # noqa: N802
        self.total = self.seen

    def notify(self, kind: str, stuff: Any) -> None:
        pass

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        return 0.0, 0.0

    def draw(self) -> None:
        pass


@dataclass(frozen=True)
class ReportMeta:
    """What the page furniture shows: the site's name, revision and date (from the site file)."""

    site_name: str
    revision: str
    date: str  # YYYY-MM-DD
    title: str = "Datacenter design report"

    def pdf_date(self) -> str:
        y, m, d = self.date.split("-")
        return f"D:{y}{m}{d}000000+00'00'"


class ReportDoc(BaseDocTemplate):
    """A4 report: a cover page template without furniture and a body template with header and footer.
    Level-0/1 headings become TOC entries and PDF bookmarks."""

    def __init__(self, target: Any, meta: ReportMeta) -> None:
        self.meta = meta
        self.counter = PageCounter()
        self._heading_seq = 0
        super().__init__(
            target,
            pagesize=A4,
            leftMargin=MARGIN_X,
            rightMargin=MARGIN_X,
            topMargin=MARGIN_TOP,
            bottomMargin=MARGIN_BOTTOM,
            title=f"{meta.title}: {meta.site_name}",
            author="dclayout",
            subject=f"{meta.site_name}, revision {meta.revision}",
            creator="dclayout",
            invariant=1,
        )
        frame = Frame(
            MARGIN_X,
            MARGIN_BOTTOM,
            FRAME_W,
            FRAME_H,
            id="body",
            leftPadding=0,
            rightPadding=0,
            topPadding=0,
            bottomPadding=0,
        )
        self.addPageTemplates(
            [
                PageTemplate(id="cover", frames=[frame], onPage=self._on_cover),
                PageTemplate(id="body", frames=[frame], onPage=self._on_body),
            ]
        )

    def build_story(self, story: list[Flowable]) -> None:
        self._heading_seq = 0
        self.multiBuild([self.counter, *story], canvasmaker=self._canvas)

    def _canvas(self, *args: Any, **kw: Any) -> Canvas:
        canv = Canvas(*args, **kw)
        date = self.meta.pdf_date()
        canv.setDateFormatter(lambda *_: date)
        return canv

    def beforeDocument(self) -> None:  # noqa: N802 (reportlab API)
        self._heading_seq = 0

    def afterFlowable(self, flowable: Flowable) -> None:  # noqa: N802 (reportlab API)
        if isinstance(flowable, Paragraph) and flowable.style.name in ("h1", "h2"):
            level = 0 if flowable.style.name == "h1" else 1
            text = flowable.getPlainText()
            self._heading_seq += 1
            key = f"h{self._heading_seq}"
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(text, key, level=level, closed=level > 0)
            self.notify("TOCEntry", (level, text, self.page, key))

    def afterPage(self) -> None:  # noqa: N802 (reportlab API)
        self.counter.seen = self.page

    def _on_cover(self, canv: Canvas, doc: BaseDocTemplate) -> None:
        canv.saveState()
        canv.setFillColor(ACCENT)
        canv.rect(0, PAGE_H - 14 * mm, PAGE_W, 14 * mm, stroke=0, fill=1)
        self._footer(canv, doc)
        canv.restoreState()

    def _on_body(self, canv: Canvas, doc: BaseDocTemplate) -> None:
        canv.saveState()
        canv.setFont(FONT, 7.5)
        canv.setFillColor(MUTED)
        top = PAGE_H - MARGIN_TOP + 6 * mm
        canv.drawString(MARGIN_X, top, safe_plain(self.meta.title))
        canv.drawRightString(PAGE_W - MARGIN_X, top, safe_plain(self.meta.site_name))
        canv.setStrokeColor(RULE)
        canv.setLineWidth(0.5)
        canv.line(MARGIN_X, top - 2.5, PAGE_W - MARGIN_X, top - 2.5)
        self._footer(canv, doc)
        canv.restoreState()

    def _footer(self, canv: Canvas, doc: BaseDocTemplate) -> None:
        y = MARGIN_BOTTOM - 9 * mm
        canv.setStrokeColor(RULE)
        canv.setLineWidth(0.5)
        canv.line(MARGIN_X, y + 9, PAGE_W - MARGIN_X, y + 9)
        canv.setFont(FONT, 7.5)
        canv.setFillColor(MUTED)
        canv.drawString(
            MARGIN_X,
            y,
            safe_plain(f"{self.meta.site_name} - revision {self.meta.revision} - {self.meta.date}"),
        )
        total = self.counter.total
        page = f"Page {doc.page} of {total}" if total else f"Page {doc.page}"
        canv.drawRightString(PAGE_W - MARGIN_X, y, page)


def safe_plain(text: object) -> str:
    """Text for canvas.drawString (no markup)."""
    return str(text).translate(_ASCII).encode("cp1252", errors="replace").decode("cp1252")


def h1(text: str, new_page: bool = True) -> list[Flowable]:
    """A chapter: starts on a new page (short chapters: unless a third of the page is left)."""
    brk: Flowable = PageBreak() if new_page else CondPageBreak(FRAME_H / 3)
    return [brk, Spacer(1, 0 if new_page else 10), Paragraph(safe(text), STYLES["h1"])]


def h2(text: str) -> list[Flowable]:
    return [CondPageBreak(60 * mm), Paragraph(safe(text), STYLES["h2"])]


def table_of_contents() -> TableOfContents:
    toc = TableOfContents(dotsMinLevel=0)
    toc.levelStyles = [STYLES["toc0"], STYLES["toc1"]]
    return toc


# ---------------------------------------------------------------------------------------------- tables
Cell: TypeAlias = str | float | int | Paragraph


@dataclass(frozen=True)
class Col:
    """A table column: heading, width in points, and whether it holds numbers (right-aligned)."""

    head: str
    width: float
    numeric: bool = False


def data_table(
    cols: Sequence[Col],
    rows: Sequence[Sequence[Cell]],
    *,
    emphasis: Iterable[int] = (),
    total_last: bool = False,
) -> LongTable:
    """A table that splits across pages and repeats its header. ``emphasis``: row numbers (0-based, in
    ``rows``) drawn as subtotal rows; ``total_last``: the last row is a grand total."""
    head = [Paragraph(safe(c.head), STYLES["cell_head_r" if c.numeric else "cell_head"]) for c in cols]
    body: list[list[Cell]] = []
    for r in rows:
        out: list[Cell] = []
        for c, v in zip(cols, r, strict=True):
            if isinstance(v, Paragraph):
                out.append(v)
            elif c.numeric:
                out.append(Paragraph(safe(v), STYLES["cell_r"]))
            else:
                out.append(Paragraph(safe(v), STYLES["cell"]))
        body.append(out)
    t = LongTable([head, *body], colWidths=[c.width for c in cols], repeatRows=1, splitByRow=1)
    cmds: list[tuple[Any, ...]] = [
        ("BACKGROUND", (0, 0), (-1, 0), ACCENT),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]
    strong = set(emphasis)
    for i in range(len(body)):
        if i in strong:
            cmds.append(("BACKGROUND", (0, i + 1), (-1, i + 1), SUBTOTAL))
        elif i % 2:
            cmds.append(("BACKGROUND", (0, i + 1), (-1, i + 1), ZEBRA))
    if total_last and body:
        cmds += [
            ("BACKGROUND", (0, len(body)), (-1, len(body)), SUBTOTAL),
            ("LINEABOVE", (0, len(body)), (-1, len(body)), 1.0, INK),
        ]
    t.setStyle(TableStyle(cmds))
    return t


def bold(text: object, style: str = "cell") -> Paragraph:
    st = STYLES[style]
    return Paragraph(f"<b>{safe(text)}</b>", st)


def kv_table(pairs: Sequence[tuple[str, str]], width: float = FRAME_W, numeric: bool = True) -> Table:
    """Two-column label/value table for small fact lists: figures right-aligned, text left-aligned."""
    value = STYLES["cell_r" if numeric else "cell"]
    rows = [[Paragraph(safe(k), STYLES["cell"]), Paragraph(safe(v), value)] for k, v in pairs]
    split = 0.62 if numeric else 0.32
    t = Table(rows, colWidths=[width * split, width * (1 - split)], hAlign="LEFT")
    t.setStyle(
        TableStyle(
            [
                ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
                ("TOPPADDING", (0, 0), (-1, -1), 2),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
                ("LEFTPADDING", (0, 0), (-1, -1), 3),
                ("RIGHTPADDING", (0, 0), (-1, -1), 3),
            ]
        )
    )
    return t


# ---------------------------------------------------------------------------------------------- charts
def _label(
    x: float, y: float, text: str, size: float, colour: colors.Color = INK, anchor: str = "start"
) -> String:
    """A chart label in the report font."""
    return String(x, y, text, fontName=FONT, fontSize=size, fillColor=colour, textAnchor=anchor)


def _bar(x: float, y: float, w: float, h: float, fill: colors.Color) -> Rect:
    """A filled chart bar with no outline."""
    return Rect(x, y, w, h, fillColor=fill, strokeColor=None)


def use_colour(ratio: float) -> colors.Color:
    """Colour of a used/limit ratio: green up to 80 %, amber up to 100 %, red above."""
    if ratio > 1.0 + 1e-9:
        return BAD_RED
    if ratio > 0.8:
        return WARN_AMBER
    return OK_GREEN


@dataclass(frozen=True)
class Budget:
    label: str
    used: float
    limit: float | None  # None: no limit set
    unit: str = "MW"


def budget_bars(items: Sequence[Budget], width: float = FRAME_W) -> Drawing:
    """Horizontal bars of use against limit, one per item; the limit is the 100 % mark."""
    label_w, value_w, bar_h, gap = 95.0, 150.0, 9.0, 5.0
    bar_w = width - label_w - value_w - 8
    top = 14.0
    h = top + len(items) * (bar_h + gap) + 4
    d = Drawing(width, h)
    scale_max = max([1.0] + [b.used / b.limit for b in items if b.limit])
    scale_max = min(scale_max, 2.0)
    x0 = label_w
    y = h - top
    for frac in (0.0, 0.5, 1.0):
        x = x0 + bar_w * frac / scale_max
        d.add(
            Line(
                x,
                4,
                x,
                h - top + 6,
                strokeColor=RULE if frac < 1 else INK,
                strokeWidth=0.4 if frac < 1 else 0.8,
                strokeDashArray=None if frac < 1 else [2, 1.5],
            )
        )
        d.add(_label(x, h - top + 8, "limit" if frac == 1 else f"{frac:.0%}", 6, MUTED, "middle"))
    for b in items:
        y -= bar_h + gap
        d.add(_label(0, y + 2, safe_plain(b.label), 7))
        d.add(_bar(x0, y, bar_w, bar_h, ZEBRA))
        if b.limit:
            ratio = b.used / b.limit
            d.add(_bar(x0, y, bar_w * min(ratio, scale_max) / scale_max, bar_h, use_colour(ratio)))
            text = f"{b.used:,.2f} of {b.limit:,.2f} {b.unit} ({ratio:.0%})"
        else:
            text = f"{b.used:,.2f} {b.unit} (no limit set)"
            d.add(_bar(x0, y, 2, bar_h, MUTED))
        d.add(_label(x0 + bar_w + 6, y + 2, text, 7))
    return d


MEDIA_COLOURS: dict[str, colors.Color] = {
    "dac": colors.HexColor("#b35806"),
    "aec": colors.HexColor("#f1a340"),
    "mmf": colors.HexColor("#5e3c99"),
    "smf": colors.HexColor("#2166ac"),
    "coherent": colors.HexColor("#1b7837"),
    "utp": colors.HexColor("#878787"),
}
MEDIA_LABELS = {
    "dac": "Passive copper (DAC)",
    "aec": "Active copper (AEC)",
    "mmf": "Multimode fibre",
    "smf": "Single-mode fibre",
    "coherent": "Coherent optics",
    "utp": "Twisted-pair copper (UTP)",
}


def media_mix_chart(counts: dict[str, int], width: float = FRAME_W) -> Drawing:
    """Horizontal bars: links per media class, with count and share."""
    total = sum(counts.values()) or 1
    keys = [k for k in MEDIA_COLOURS if k in counts] + sorted(k for k in counts if k not in MEDIA_COLOURS)
    bar_h, gap, label_w, value_w = 11.0, 5.0, 110.0, 110.0
    h = len(keys) * (bar_h + gap) + 6
    d = Drawing(width, h)
    bar_w = width - label_w - value_w
    peak = max(counts.values()) if counts else 1
    y = h
    for k in keys:
        y -= bar_h + gap
        n = counts[k]
        d.add(_label(0, y + 2.5, MEDIA_LABELS.get(k, k), 7.5))
        d.add(_bar(label_w, y, max(bar_w * n / peak, 0.5 if n else 0), bar_h, MEDIA_COLOURS.get(k, MUTED)))
        d.add(_label(label_w + bar_w + 6, y + 2.5, f"{n:,} links ({n / total:.1%})", 7.5))
    return d


LENGTH_BIN_EDGES_M: tuple[float, ...] = (
    0,
    1,
    2,
    3,
    5,
    7,
    10,
    15,
    20,
    30,
    50,
    75,
    100,
    150,
    200,
    300,
    500,
    1000,
    2000,
)


def length_bins(length_m: np.ndarray, media_class: np.ndarray) -> tuple[list[str], dict[str, np.ndarray]]:
    """Bin labels and links per bin for each media class present (bins follow the media reaches)."""
    edges = np.array(LENGTH_BIN_EDGES_M + (math.inf,))
    nb = len(edges) - 1
    present = set(np.asarray(media_class).tolist())
    classes = [k for k in MEDIA_COLOURS if k in present] + sorted(
        k for k in present if k not in MEDIA_COLOURS
    )
    idx = np.clip(np.searchsorted(edges, length_m, side="right") - 1, 0, nb - 1)
    counts = {k: np.bincount(idx[media_class == k], minlength=nb) for k in classes}
    labels = [_metres(edges[i]) + "-" + _metres(edges[i + 1]) for i in range(nb - 1)] + [
        f">{_metres(edges[-2])}"
    ]
    return labels, counts


def _metres(v: float) -> str:
    return f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"


def length_histogram(
    length_m: np.ndarray, media_class: np.ndarray, width: float = FRAME_W, height: float = 170.0
) -> Drawing:
    """Links per routed-length bin, stacked by media class, on a log count axis."""
    labels, counts = length_bins(length_m, media_class)
    classes = list(counts)
    nb = len(labels)
    total = sum(counts.values(), np.zeros(nb, dtype=np.int64))
    left, bottom, right, top = 34.0, 30.0, 6.0, 22.0
    d = Drawing(width, height)
    pw, ph = width - left - right, height - bottom - top
    peak = max(int(total.max()) if len(total) else 1, 1)
    decades = max(1, math.ceil(math.log10(peak + 1)))

    def yof(v: float) -> float:
        return bottom + ph * (math.log10(v + 1) / decades)

    for power in range(-1, decades + 1):
        v = 0 if power < 0 else 10**power
        y = yof(v)
        d.add(Line(left, y, left + pw, y, strokeColor=RULE, strokeWidth=0.3))
        d.add(_label(left - 3, y - 2.5, f"{v:,}", 6, MUTED, "end"))
    bw = pw / nb
    for i in range(nb):
        x = left + i * bw + 1
        base = 0
        for k in classes:
            n = int(counts[k][i])
            if n:
                d.add(_bar(x, yof(base), bw - 2, yof(base + n) - yof(base), MEDIA_COLOURS.get(k, MUTED)))
                base += n
        if base:
            d.add(_label(x + (bw - 2) / 2, yof(base) + 2, f"{base:,}", 5.5, INK, "middle"))
        d.add(_label(x + (bw - 2) / 2, bottom - 9, labels[i], 5.5, INK, "middle"))
    d.add(_label(left + pw / 2, bottom - 19, "routed length (m)", 6.5, MUTED, "middle"))
    d.add(_label(left - 28, bottom + ph + 10, "links (log scale)", 6.5, MUTED))
    x = left + 90
    for k in classes:
        name = MEDIA_LABELS.get(k, k)
        d.add(_bar(x, bottom + ph + 9, 7, 7, MEDIA_COLOURS.get(k, MUTED)))
        d.add(_label(x + 9, bottom + ph + 10, name, 6.5))
        x += 12 + stringWidth(name, FONT, 6.5) + 8
    return d


# ----------------------------------------------------------------------------------------------- plans
KW_BANDS: tuple[tuple[float, str, colors.Color], ...] = (
    (0.5, "up to 50 %", colors.HexColor("#c7e9c0")),
    (0.8, "50-80 %", colors.HexColor("#74c476")),
    (0.95, "80-95 %", colors.HexColor("#fdae6b")),
    (1.0 + 1e-9, "95-100 %", colors.HexColor("#f16913")),
    (math.inf, "over the limit", colors.HexColor("#cb181d")),
)
NETWORK_KINDS = frozenset({"network", "spine", "core"})
NETWORK_EDGE = colors.HexColor("#08306b")
TRAY_COLOUR = colors.HexColor("#8c6bb1")
TRAY_FULL = colors.HexColor("#cb181d")
KEEPOUT_FILL = colors.HexColor("#e0e0e0")
BUILDING_FILL = colors.HexColor("#f7f9fb")


def kw_band(ratio: np.ndarray) -> np.ndarray:
    """Band number (index into KW_BANDS) of each rack's kW / hall limit."""
    limits = np.array([b[0] for b in KW_BANDS[:-1]])
    return np.searchsorted(limits, ratio, side="left")


def nice_length(target: float) -> float:
    """1, 2 or 5 x 10^k not above ``target`` (for scale bars)."""
    if target <= 0:
        return 1.0
    k = math.floor(math.log10(target))
    for m in (5, 2, 1):
        if m * 10**k <= target:
            return float(m * 10**k)
    return float(10**k)


def _pdf_colour(c: colors.Color | None, op: str) -> str:
    return "" if c is None else f"{c.red:.3f} {c.green:.3f} {c.blue:.3f} {op} "


def _pdf_text(s: str) -> str:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


@dataclass(frozen=True)
class Batch:
    """One bulk paint operation of a Plan: many shapes sharing one style.

    kind: ``rects`` (data columns x, y, w, h), ``lines`` (x0, y0, x1, y1), ``path`` (one polygon or
    polyline: x, y per vertex), ``text`` (x, y; ``labels`` holds the strings)."""

    kind: str
    data: np.ndarray
    fill: colors.Color | None = None
    stroke: colors.Color | None = None
    line_w: float = 0.0
    dash: tuple[float, ...] = ()
    closed: bool = True
    labels: tuple[str, ...] = ()
    font: str = FONT
    size: float = 6.0
    anchor: str = "start"


class Plan(Flowable):
    """A vector drawing painted straight into the page's content stream, one PDF path per style batch.

    reportlab.graphics builds one Python object per shape and renders each separately, which takes
    seconds for the thousands of racks of a campus. Here numpy arrays become PDF path operators in bulk;
    the batches stay inspectable (``batches``) for tests."""

    def __init__(self, width: float, height: float) -> None:
        super().__init__()
        self.width = width
        self.height = height
        self.batches: list[Batch] = []

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        return self.width, self.height

    def rects(
        self,
        x: Any,
        y: Any,
        w: Any,
        h: Any,
        fill: colors.Color | None,
        stroke: colors.Color | None = None,
        line_w: float = 0.0,
    ) -> None:
        data = np.column_stack(np.broadcast_arrays(*(np.asarray(v, float) for v in (x, y, w, h))))
        if len(data):
            self.batches.append(Batch("rects", data.reshape(-1, 4), fill, stroke, line_w))

    def lines(self, segs: Any, stroke: colors.Color, line_w: float, dash: tuple[float, ...] = ()) -> None:
        data = np.asarray(segs, float).reshape(-1, 4)
        if len(data):
            self.batches.append(Batch("lines", data, None, stroke, line_w, dash))

    def path(
        self,
        pts: Sequence[tuple[float, float]],
        fill: colors.Color | None,
        stroke: colors.Color | None,
        line_w: float,
        closed: bool = True,
        dash: tuple[float, ...] = (),
    ) -> None:
        self.batches.append(
            Batch("path", np.asarray(pts, float).reshape(-1, 2), fill, stroke, line_w, dash, closed)
        )

    def text(
        self,
        x: Any,
        y: Any,
        labels: Sequence[str],
        size: float,
        colour: colors.Color = INK,
        font: str = FONT,
        anchor: str = "start",
    ) -> None:
        data = np.column_stack(np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float)))
        if len(labels):
            self.batches.append(
                Batch(
                    "text",
                    data.reshape(-1, 2),
                    colour,
                    None,
                    0.0,
                    labels=tuple(safe_plain(t) for t in labels),
                    font=font,
                    size=size,
                    anchor=anchor,
                )
            )

    def draw(self) -> None:
        canv = self.canv
        for b in self.batches:
            canv.addLiteral(self._ops(b, canv))

    @staticmethod
    def _ops(b: Batch, canv: Canvas) -> str:
        head = "q " + _pdf_colour(b.fill, "rg") + _pdf_colour(b.stroke, "RG")
        if b.stroke is not None:
            head += f"{b.line_w:.2f} w " + (f"[{' '.join(f'{d:g}' for d in b.dash)}] 0 d " if b.dash else "")
        paint = "B" if b.fill is not None and b.stroke is not None else ("f" if b.fill is not None else "S")
        d = b.data
        if b.kind == "rects":
            body = "\n".join(f"{x:.2f} {y:.2f} {w:.2f} {h:.2f} re" for x, y, w, h in d.tolist())
            return f"{head}\n{body}\n{paint} Q"
        if b.kind == "lines":
            body = "\n".join(f"{a:.2f} {c:.2f} m {e:.2f} {f:.2f} l" for a, c, e, f in d.tolist())
            return f"{head}\n{body}\nS Q"
        if b.kind == "path":
            pts = d.tolist()
            body = f"{pts[0][0]:.2f} {pts[0][1]:.2f} m " + " ".join(f"{x:.2f} {y:.2f} l" for x, y in pts[1:])
            return f"{head}\n{body}{' h' if b.closed else ''}\n{paint if b.closed else 'S'} Q"
        # text
        fname = canv._doc.getInternalFontName(b.font)
        widths = {t: stringWidth(t, b.font, b.size) for t in set(b.labels)}
        shift = {"start": 0.0, "middle": 0.5, "end": 1.0}[b.anchor]
        body = "\n".join(
            f"1 0 0 1 {x - shift * widths[t]:.2f} {y:.2f} Tm ({_pdf_text(t)}) Tj"
            for (x, y), t in zip(d.tolist(), b.labels, strict=True)
        )
        return f"q BT {fname} {b.size:.2f} Tf {_pdf_colour(b.fill, 'rg')}\n{body}\nET Q"


@dataclass(frozen=True)
class PlanRacks:
    """Racks to draw: footprint centres and sizes (m), rotation, kind, kW and its limit, short label."""

    x_m: np.ndarray
    y_m: np.ndarray
    width_m: np.ndarray
    depth_m: np.ndarray
    rotation_deg: np.ndarray
    kind: np.ndarray
    power_kw: np.ndarray
    limit_kw: np.ndarray
    label: np.ndarray  # str per rack, e.g. position "07"


@dataclass(frozen=True)
class PlanRow:
    label: str  # "R03", or "R03 spine" for a network row
    x_m: float  # where the label goes: the row's west end (x rows) or south end (y rows)
    y_m: float
    axis: str
    spine: bool


@dataclass(frozen=True)
class PlanTrays:
    """Tray segments to draw (x0, y0, x1, y1 in m) and which of them are filled beyond their limit."""

    segments: np.ndarray
    over: np.ndarray  # bool per segment


NO_TRAYS = PlanTrays(np.zeros((0, 4)), np.zeros(0, bool))


class _Frame:
    """Maps site metres to drawing points inside a box, y up, equal scale."""

    def __init__(self, bounds: tuple[float, float, float, float], box: tuple[float, float, float, float]):
        x0, y0, x1, y1 = bounds
        bx, by, bw, bh = box
        self.scale = min(bw / max(x1 - x0, 1e-9), bh / max(y1 - y0, 1e-9))
        self.ox = bx + (bw - (x1 - x0) * self.scale) / 2 - x0 * self.scale
        self.oy = by + (bh - (y1 - y0) * self.scale) / 2 - y0 * self.scale

    def x(self, v: Any) -> Any:
        return self.ox + np.asarray(v, float) * self.scale

    def y(self, v: Any) -> Any:
        return self.oy + np.asarray(v, float) * self.scale

    def pts(self, ring: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(float(self.x(px)), float(self.y(py))) for px, py in ring]


LEGEND_H = 40.0


def _plan_canvas(
    bounds: tuple[float, float, float, float], width: float, height: float
) -> tuple[_Frame, Plan]:
    """The drawing for a plan of ``bounds`` (m), as tall as the plan needs (up to ``height``) plus the
    legend strip at the bottom, and the metre-to-point mapping into it."""
    dx, dy = bounds[2] - bounds[0], bounds[3] - bounds[1]
    scale = min(width / max(dx, 1e-9), (height - LEGEND_H - 4) / max(dy, 1e-9))
    plan_h = dy * scale
    return _Frame(bounds, (0, LEGEND_H, width, plan_h)), Plan(width, plan_h + LEGEND_H + 4)


def _scale_bar(p: Plan, fr: _Frame, x: float, y: float, max_w: float) -> None:
    length = nice_length(max_w / fr.scale)
    w = length * fr.scale
    xs = x + np.arange(4) * w / 4
    p.rects(xs[0::2], y, w / 4, 3.5, INK, INK, 0.4)
    p.rects(xs[1::2], y, w / 4, 3.5, colors.white, INK, 0.4)
    p.text([x, x + w / 2, x + w], y + 6, [f"{length * f:g}" for f in (0, 0.5, 1)], 6, anchor="middle")
    p.text(x + w + 4, y, ["m"], 6.5)


def _north_arrow(p: Plan, x: float, y: float) -> None:
    p.path([(x, y), (x + 4, y - 10), (x, y - 7), (x - 4, y - 10)], INK, None, 0)
    p.text(x, y + 2, ["N"], 7, font=FONT_BOLD, anchor="middle")


def _rack_boxes(
    fr: _Frame, racks: PlanRacks
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each rack's drawn box in points: left, bottom, width, height, and whether it lies across (90/270)."""
    rotated = np.round(racks.rotation_deg) % 180 == 90
    wx = np.where(rotated, racks.depth_m, racks.width_m) * fr.scale
    wy = np.where(rotated, racks.width_m, racks.depth_m) * fr.scale
    return fr.x(racks.x_m) - wx / 2, fr.y(racks.y_m) - wy / 2, wx, wy, rotated


def _row_labels(p: Plan, fr: _Frame, racks: PlanRacks, rows: Sequence[PlanRow]) -> None:
    """Row names beside each row's first rack (west of x rows, south of y rows) on a white ground, or,
    where another row's racks stand there (rows split by cross aisles), small in the aisle beside it."""
    px, py, wx, wy, _ = _rack_boxes(fr, racks)
    depth = float(np.max(np.maximum(wx, wy))) if len(px) else fr.scale  # a rack's extent across its row

    def free(x0: float, y0: float, x1: float, y1: float) -> bool:
        return not bool(
            np.any((px < x1 - 0.3) & (px + wx > x0 + 0.3) & (py < y1 - 0.3) & (py + wy > y0 + 0.3))
        )

    for r in rows:
        size = 5.5 if r.spine else 5.0
        font = FONT_BOLD if r.spine else FONT
        style: dict[str, Any] = {"colour": NETWORK_EDGE if r.spine else INK, "font": font}
        w = stringWidth(r.label, font, size)
        x, y = float(fr.x(r.x_m)), float(fr.y(r.y_m))
        if r.axis == "x":
            box = (x - 2.5 - w, y - size * 0.5, x - 1.5, y + size * 0.5)
            at, anchor = (x - 2, y - size * 0.35), "end"
        else:
            box = (x - w / 2 - 0.5, y - size - 2, x + w / 2 + 0.5, y - 0.5)
            at, anchor = (x, y - size - 1), "middle"
        if free(*box):
            p.rects(box[0], box[1], box[2] - box[0], box[3] - box[1], colors.white)  # legible over walls
            p.text(at[0], at[1], [r.label], size, anchor=anchor, **style)
            continue
        small = min(size, 0.6 * fr.scale)  # at most 0.6 m tall: fits the aisle beside the row
        if r.axis == "x":
            p.text(x + 0.5, y + depth / 2 + 0.8, [r.label], small, anchor="start", **style)
        else:
            p.text(x - depth / 2 - 0.8, y + 0.5, [r.label], small, anchor="end", **style)


def _rack_shapes(p: Plan, fr: _Frame, racks: PlanRacks, detail: bool) -> None:
    """Racks as rectangles filled by kW band. ``detail`` (hall plans): outlines, network racks in dark
    blue, position labels sized to the rack. Without (site plans): fills only, which stay legible when
    a rack is a point wide."""
    px, py, wx, wy, rotated = _rack_boxes(fr, racks)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(racks.limit_kw > 0, racks.power_kw / racks.limit_kw, 0.0)
    band = kw_band(ratio)
    network = np.isin(racks.kind, list(NETWORK_KINDS))
    for bi, (_, _, fill) in enumerate(KW_BANDS):
        for net in (False, True):
            m = (band == bi) & (network == net)
            if not m.any():
                continue
            if detail:
                p.rects(px[m], py[m], wx[m], wy[m], fill, NETWORK_EDGE if net else INK, 0.6 if net else 0.15)
            else:
                p.rects(px[m], py[m], wx[m], wy[m], fill)
    if detail and len(px):
        font = float(min(np.min(wx), np.min(wy)) * 0.55)
        if font >= 0.8:
            # the row's tray runs along the rack centres: set the number off to the side of it
            lx = px + wx / 2 - np.where(rotated, wx * 0.22, 0.0)
            ly = py + wy / 2 + np.where(rotated, 0.0, wy * 0.22) - font * 0.35
            p.text(lx, ly, [str(t) for t in racks.label], font, anchor="middle")


def _legend(p: Plan, x: float, y: float, limit_text: str) -> None:
    head = f"Rack kW vs {limit_text}:"
    p.text(x, y + 1, [head], 6.5, font=FONT_BOLD)
    x += stringWidth(head, FONT_BOLD, 6.5) + 5
    for _, label, col in KW_BANDS:
        p.rects(x, y, 8, 6, col, INK, 0.15)
        p.text(x + 10, y + 1, [label], 6.5)
        x += 10 + stringWidth(label, FONT, 6.5) + 7


def _legend_symbols(p: Plan, x: float, y: float, trays: bool) -> None:
    def item(label: str) -> None:
        nonlocal x
        p.text(x + 12, y + 1, [label], 6.5)
        x += 12 + stringWidth(label, FONT, 6.5) + 9

    p.rects(x, y, 8, 6, colors.white, NETWORK_EDGE, 0.9)
    item("network / spine rack")
    if trays:
        p.lines([[x, y + 3, x + 10, y + 3]], TRAY_COLOUR, 1.2)
        item("cable tray")
        p.lines([[x, y + 3, x + 10, y + 3]], TRAY_FULL, 1.6)
        item("tray over its fill limit")
    p.rects(x + 1, y, 6, 6, INK)
    item("building column")
    p.rects(x, y, 8, 6, KEEPOUT_FILL, MUTED, 0.4)
    item("keep-out")


@dataclass(frozen=True)
class HallOutline:
    key: str  # "B1/H1"
    polygon: list[tuple[float, float]]
    columns: list[tuple[float, float, float, float]]  # centre x, y, size x, y
    keepouts: list[tuple[list[tuple[float, float]], str]]
    max_rack_kw: float


def hall_plan(
    hall: HallOutline,
    racks: PlanRacks,
    rows: Sequence[PlanRow],
    trays: PlanTrays = NO_TRAYS,
    width: float = FRAME_W,
    height: float = FRAME_H - 60,
) -> Plan:
    """Vector plan of one hall: walls, keep-outs, columns, cable trays, racks coloured by kW against the
    hall's limit with their position number, row labels, legend, scale bar, north arrow."""
    xs = [q[0] for q in hall.polygon]
    ys = [q[1] for q in hall.polygon]
    bounds = (min(xs) - 3.0, min(ys) - 1.0, max(xs) + 1.0, max(ys) + 1.0)
    fr, p = _plan_canvas(bounds, width, height)
    p.path(fr.pts(hall.polygon), colors.white, INK, 1.2)
    for ring, reason in hall.keepouts:
        p.path(fr.pts(ring), KEEPOUT_FILL, MUTED, 0.4)
        if reason:
            cx = sum(q[0] for q in ring) / len(ring)
            cy = sum(q[1] for q in ring) / len(ring)
            p.text(fr.x(cx), fr.y(cy), [reason], 6, MUTED, FONT_ITALIC, "middle")
    seg = np.asarray(trays.segments, float).reshape(-1, 4)
    pts = np.column_stack([fr.x(seg[:, 0]), fr.y(seg[:, 1]), fr.x(seg[:, 2]), fr.y(seg[:, 3])])
    p.lines(pts[~trays.over], TRAY_COLOUR, 0.8)
    _rack_shapes(p, fr, racks, detail=True)
    p.lines(pts[trays.over], TRAY_FULL, 1.6)
    if hall.columns:
        c = np.asarray(hall.columns, float)
        p.rects(
            fr.x(c[:, 0] - c[:, 2] / 2),
            fr.y(c[:, 1] - c[:, 3] / 2),
            c[:, 2] * fr.scale,
            c[:, 3] * fr.scale,
            INK,
        )
    _row_labels(p, fr, racks, rows)
    _north_arrow(p, width - 6, LEGEND_H - 12)
    _legend(p, 0, 20, f"the hall limit of {hall.max_rack_kw:g} kW")
    _legend_symbols(p, 0, 8, trays=len(seg) > 0)
    _scale_bar(p, fr, width - 120, 8, 100)
    return p


@dataclass(frozen=True)
class SiteOutline:
    buildings: list[tuple[str, list[tuple[float, float]]]]
    halls: list[tuple[str, list[tuple[float, float]]]]
    ducts: list[tuple[str, list[tuple[float, float]]]]


def site_plan(
    site: SiteOutline, racks: PlanRacks, width: float = FRAME_W, height: float = FRAME_H - 60
) -> Plan:
    """Vector plan of the campus: buildings, halls, inter-building ducts, every rack coloured by kW use."""
    pts = [q for _, ring in site.buildings for q in ring] + [q for _, path in site.ducts for q in path]
    xs, ys = [q[0] for q in pts], [q[1] for q in pts]
    pad = 0.04 * max(max(xs) - min(xs), max(ys) - min(ys))
    bounds = (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)
    fr, p = _plan_canvas(bounds, width, height)
    for _, path in site.ducts:
        p.path(fr.pts(path), None, TRAY_COLOUR, 1.4, closed=False, dash=(4, 2))
    for _, ring in site.buildings:
        p.path(fr.pts(ring), BUILDING_FILL, INK, 1.2)
    for _, ring in site.halls:
        p.path(fr.pts(ring), colors.white, MUTED, 0.5)
    _rack_shapes(p, fr, racks, detail=False)
    for name, ring in site.buildings:
        p.text(
            fr.x(max(q[0] for q in ring)),
            fr.y(max(q[1] for q in ring)) + 3,
            [name],
            8,
            font=FONT_BOLD,
            anchor="end",
        )
    for name, ring in site.halls:
        p.text(fr.x(min(q[0] for q in ring)) + 2, fr.y(max(q[1] for q in ring)) - 7, [name], 6, MUTED)
    _north_arrow(p, width - 6, LEGEND_H - 12)
    _legend(p, 0, 20, "each hall's limit")
    p.lines([[0, 11, 12, 11]], TRAY_COLOUR, 1.4, dash=(4, 2))
    p.text(15, 9, ["duct between buildings"], 6.5)
    _scale_bar(p, fr, width - 120, 8, 100)
    return p


# ----------------------------------------------------------------------------------------------- cover
@dataclass(frozen=True)
class Kpi:
    label: str
    value: str
    alarm: bool = False  # drawn in red (e.g. violations > 0)


def cover(meta: ReportMeta, lines: Sequence[str], kpis: Sequence[Kpi], note: str) -> list[Flowable]:
    """The cover page: title block, what was designed, a grid of headline figures, a note."""
    out: list[Flowable] = [
        Spacer(1, 18 * mm),
        Paragraph(
            safe(meta.title.upper()), _style("kicker", fontName=FONT_BOLD, fontSize=9, textColor=MUTED)
        ),
        Spacer(1, 3 * mm),
        Paragraph(safe(meta.site_name), STYLES["title"]),
        Spacer(1, 2 * mm),
        Paragraph(safe(f"Revision {meta.revision} - {meta.date}"), STYLES["subtitle"]),
        Spacer(1, 6 * mm),
    ]
    out += [Paragraph(safe(t), STYLES["body"]) for t in lines]
    out.append(Spacer(1, 8 * mm))
    ncol = 3
    cells: list[list[Any]] = []
    row: list[Any] = []
    for k in kpis:
        value_style = (
            ParagraphStyle("kpi_alarm", parent=STYLES["kpi_value"], textColor=BAD_RED)
            if k.alarm
            else STYLES["kpi_value"]
        )
        row.append([Paragraph(safe(k.value), value_style), Paragraph(safe(k.label), STYLES["kpi_label"])])
        if len(row) == ncol:
            cells.append(row)
            row = []
    if row:
        cells.append(row + [""] * (ncol - len(row)))
    grid = Table(cells, colWidths=[FRAME_W / ncol] * ncol, hAlign="LEFT")
    grid.setStyle(
        TableStyle(
            [
                ("BOX", (0, 0), (-1, -1), 0.5, RULE),
                ("INNERGRID", (0, 0), (-1, -1), 0.5, RULE),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), 7),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 7),
                ("LEFTPADDING", (0, 0), (-1, -1), 8),
            ]
        )
    )
    out += [grid, Spacer(1, 8 * mm), Paragraph(safe(note), STYLES["small"])]
    return out


def contents_page() -> list[Flowable]:
    return [
        PageBreak(),
        Paragraph("Contents", ParagraphStyle("contents", parent=STYLES["h1"])),
        table_of_contents(),
    ]


# ------------------------------------------------------------------------------------ catalog sources
@dataclass(frozen=True)
class Figure:
    section: str  # server, switch, nic, media, rack_part
    item: str  # catalog id ("" for rack_part)
    key: str
    value: str
    source: str  # the comment next to the figure, "" when the catalog gives none


def catalog_figures(path: Path, used: dict[str, set[str]] | None = None) -> list[Figure]:
    """Every numeric figure of the catalog (optionally only the items in ``used[section]``) with the
    comment written next to it in the TOML file, which is where the catalog records its source."""
    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    out: list[Figure] = []
    for section, body in doc.items():
        if not isinstance(body, dict):
            continue
        if section == "rack_part":
            out += _figures(section, "", body)
            continue
        for item_id, table in body.items():
            if used is not None and item_id not in used.get(section, set()):
                continue
            if isinstance(table, dict):
                out += _figures(section, str(item_id), table)
    return out


def _figures(section: str, item_id: str, table: Any) -> list[Figure]:
    out: list[Figure] = []
    for key, item in table.items():
        value = item.unwrap() if hasattr(item, "unwrap") else item
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        numeric_list = isinstance(value, list) and all(isinstance(v, int | float) for v in value)
        if not (numeric or numeric_list):
            continue
        comment = item.trivia.comment if hasattr(item, "trivia") else ""
        text = ", ".join(f"{v:g}" for v in value) if numeric_list else f"{value:g}"
        out.append(Figure(section, item_id, str(key), text or "(none)", comment.lstrip("#").strip()))
    return out


# ------------------------------------------------------------------------------------------- assembly
def render(story: list[Flowable], meta: ReportMeta) -> bytes:
    """Lay the story out into PDF bytes (the cover template first, the body template from page 2)."""
    import io

    buf = io.BytesIO()
    doc = ReportDoc(buf, meta)
    doc.build_story([NextPageTemplate("body"), *story])
    return buf.getvalue()


# ===================================================================================== the Design report
# Everything below reads a finished layout.design.Design. Headline figures come from Design.summary(),
# so the PDF states the same numbers as summary.json.


def _energy(twh: float) -> str:
    return f"{twh:,.3f} TWh" if twh >= 1 else f"{twh * 1000:,.1f} GWh"


def _money_short(usd: float) -> str:
    if usd >= 1e9:
        return f"${usd / 1e9:,.2f} bn"
    if usd >= 1e6:
        return f"${usd / 1e6:,.1f} M"
    return fmt_usd(usd)


def _minutes(v: float | None) -> str:
    if v is None or not math.isfinite(v):
        return "no node-side optical links"
    if v >= 600:
        return f"{v / 60:,.1f} h ({v:,.0f} min)"
    return f"{v:,.2f} min" if v < 100 else f"{v:,.1f} min"


def _short(key: str) -> str:
    """Last part of a hierarchical id: B1/H1/R03 -> R03."""
    return key.rsplit("/", 1)[-1]


def _switches(design: Any) -> int:
    return int((design.fabric.devices["role"] != "server").sum())


def copper_share(summary: dict[str, Any]) -> float:
    """Links on copper (DAC or AEC) over all links with a medium."""
    media = summary["media"]
    total = sum(media.values())
    return (media.get("dac", 0) + media.get("aec", 0)) / total if total else 0.0


def meta_of(design: Any) -> ReportMeta:
    info = design.inputs.site.site
    return ReportMeta(site_name=info.name, revision=info.revision, date=info.date)


def _cover_story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    inp = design.inputs
    fab = design.fabric
    cat = inp.catalog
    site = inp.site
    halls = len(site.halls())
    server = cat.server[fab.server].name
    switch = cat.switch[fab.switch].name
    pods = (
        f", {fab.pods} pods of {fab.pod_gpus:,} GPUs joined {fab.oversubscription:g}:1"
        if fab.pods > 1
        else ""
    )
    lines = [
        f"{fab.gpus:,} GPUs in {fab.servers:,} x {server}, {summary['racks']['total']:,} racks in "
        f"{len(site.building)} building(s) and {halls} hall(s).",
        f"{'Rail-optimized' if fab.design == 'rail' else 'Middle-of-rack'} fabric on {switch}: "
        f"{fab.tiers} tier(s){pods}.",
        f"Site file {inp.path.name}; catalog {inp.templates_dir.name}/catalog.toml.",
    ]
    pw = summary["power"]
    ttff = summary["reliability"]["time_to_first_failure_min"]
    n_viol = len(summary["violations"])
    kpis = [
        Kpi("GPUs", fmt_int(summary["gpus"])),
        Kpi("racks", fmt_int(summary["racks"]["total"])),
        Kpi("IT power (critical load)", f"{pw['it_mw']:,.2f} MW"),
        Kpi(f"facility power at PUE {site.site.pue:g}", f"{pw['facility_mw']:,.2f} MW"),
        Kpi("annual energy", _energy(pw["annual_twh"])),
        Kpi(
            f"annual electricity at ${site.site.electricity_usd_per_kwh:g}/kWh",
            _money_short(pw["annual_cost_usd"]),
        ),
        Kpi("capital cost (bill of materials)", _money_short(summary["cost_usd"]["total"])),
        Kpi("switches (all networks)", fmt_int(_switches(design))),
        Kpi("cable at stock lengths", f"{summary['cable_length_m']['total'] / 1000:,.1f} km"),
        Kpi("copper share of links (DAC + AEC)", fmt_pct(copper_share(summary))),
        Kpi("mean time to the first link failure", _minutes(ttff)),
        Kpi("design-rule violations", fmt_int(n_viol), alarm=n_viol > 0),
    ]
    note = (
        "Prices are indicative catalog figures meant to be replaced by quotes; every figure used and its "
        "source is listed under Assumptions. Power is computed per device from the catalog."
    )
    return cover(meta_of(design), lines, kpis, note)


# ------------------------------------------------------------------------------------------ plans
def _plan_racks(design: Any, mask: np.ndarray | None = None) -> PlanRacks:
    r = design.placement.racks
    pw = design.power
    m = np.ones(len(r), bool) if mask is None else mask
    return PlanRacks(
        x_m=r["x_m"].to_numpy(float)[m],
        y_m=r["y_m"].to_numpy(float)[m],
        width_m=r["width_m"].to_numpy(float)[m],
        depth_m=r["depth_m"].to_numpy(float)[m],
        rotation_deg=r["rotation_deg"].to_numpy(float)[m],
        kind=r["kind"].to_numpy(str)[m],
        power_kw=np.asarray(pw.rack_kw, float)[m],
        limit_kw=np.asarray(pw.rack_limit_kw, float)[m],
        label=np.char.zfill(r["pos"].to_numpy(int)[m].astype(str), 2),
    )


def _plan_rows(design: Any, hall: str) -> list[PlanRow]:
    rows = design.placement.rows
    out = []
    for r in rows[rows["hall"] == hall].itertuples():
        x = min(r.x0_m, r.x1_m) if r.axis == "x" else r.x0_m
        y = r.y0_m if r.axis == "x" else min(r.y0_m, r.y1_m)
        network = str(r.kind) in NETWORK_KINDS
        label = f"{_short(str(r.row))} {r.kind}" if network else _short(str(r.row))
        out.append(PlanRow(label, float(x), float(y), str(r.axis), network))
    return out


def _plans_story(design: Any) -> list[Flowable]:
    site = design.inputs.site
    racks = design.placement.racks
    out: list[Flowable] = [*h1("Site and hall plans")]
    out.append(
        para(
            "Racks are drawn to scale and coloured by their power draw against their hall's per-rack limit; "
            "network racks (leaf, spine, core) have a dark blue outline. Each rack carries its position in "
            "the row; zoom in to read them. North is up."
        )
    )
    if len(site.halls()) > 1:
        outline = SiteOutline(
            buildings=[(b.id, list(b.footprint)) for b in site.building],
            halls=[(f"{b.id}/{h.id}", list(h.polygon)) for b, h in site.halls()],
            ducts=[(f"{d.from_}-{d.to}", list(d.path)) for d in site.duct if d.path],
        )
        out += [*h2("Site plan"), site_plan(outline, _plan_racks(design), height=FRAME_H - 80)]
    hall_keys = racks["hall"].to_numpy(str)
    empty = []
    for b, h in site.halls():
        key = f"{b.id}/{h.id}"
        mask = hall_keys == key
        if not mask.any():
            empty.append(key)
            continue
        outline_h = HallOutline(
            key,
            list(h.polygon),
            [(c.at[0], c.at[1], c.size_m[0], c.size_m[1]) for c in h.columns],
            [(list(k.polygon), k.reason) for k in h.keepouts],
            h.max_rack_kw,
        )
        plan = hall_plan(
            outline_h,
            _plan_racks(design, mask),
            _plan_rows(design, key),
            _plan_trays(design, key),
            height=FRAME_H - 70,
        )
        by_tpl = racks[mask].groupby("template").size()
        kw = np.asarray(design.power.rack_kw)[mask]
        caption = para(
            f"{int(mask.sum()):,} racks ({', '.join(f'{n:,} {t}' for t, n in by_tpl.items())}); "
            f"{kw.sum() / 1000:,.2f} MW of IT; hottest rack {kw.max():,.1f} kW against {h.max_rack_kw:g} kW "
            f"({h.cooling} cooling).",
            "caption",
        )
        out.append(KeepTogether([Paragraph(safe(f"Hall {key}"), STYLES["h2"]), plan, caption]))
    if empty:
        out.append(para(f"Halls without racks: {', '.join(empty)}.", "body"))
    return out


# ------------------------------------------------------------------------------------------ power
def _limit(v: Any) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _budget_rows(frame: Any, key: str) -> list[list[Cell]]:
    rows: list[list[Cell]] = []
    for r in frame.itertuples():
        mw = float(r.it_kw) / 1000.0
        limit = _limit(r.limit_mw)
        use = fmt_pct(mw / limit, 0) if limit else "no limit"
        rows.append(
            [str(getattr(r, key)), fmt_int(r.racks), fmt_num(mw, 2), fmt_num(limit, 2) if limit else "-", use]
        )
    return rows


def _power_story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    pw = design.power
    info = design.inputs.site.site
    out: list[Flowable] = [*h1("Power")]
    s = summary["power"]
    out.append(
        para(
            f"The IT load is {s['it_mw']:,.2f} MW; at a PUE of {info.pue:g} the facility draws {s['facility_mw']:,.2f} MW "
            f"from a utility feed of {info.utility_mw:g} MW. Device power comes from the catalog: servers with their "
            "NIC option and node-side optics, switches between their all-copper and all-optics figures by the "
            "share of their ports on optics."
        )
    )
    budgets = [Budget("Site (facility vs utility)", pw.facility_mw, pw.utility_mw)]
    budgets += [
        Budget(f"Building {r.building}", r.it_kw / 1000.0, _limit(r.limit_mw))
        for r in pw.buildings.itertuples()
    ]
    budgets += [
        Budget(f"Hall {r.hall}", r.it_kw / 1000.0, _limit(r.limit_mw))
        for r in pw.halls.itertuples()
        if _limit(r.limit_mw) is not None
    ]
    unlimited = [str(r.hall) for r in pw.halls.itertuples() if _limit(r.limit_mw) is None]
    out += [*h2("Budgets: site, buildings, halls"), budget_bars(budgets)]
    if unlimited:
        out.append(
            para(
                f"Halls without an IT limit of their own ({', '.join(unlimited)}) count against their "
                "building's; their load is in the table below.",
                "small",
            )
        )
    out.append(Spacer(1, 4))
    cols = [
        Col("Building", 130),
        Col("Racks", 70, True),
        Col("IT MW", 90, True),
        Col("Limit MW", 90, True),
        Col("Use", 80, True),
    ]
    out += [data_table(cols, _budget_rows(pw.buildings, "building")), Spacer(1, 6)]
    cols = [Col("Hall", 130), *cols[1:]]
    out += [data_table(cols, _budget_rows(pw.halls, "hall"))]
    out += [
        *h2("Energy and cost"),
        kv_table(
            [
                ("IT load", f"{s['it_mw']:,.3f} MW"),
                (f"Facility load (IT x PUE {info.pue:g})", f"{s['facility_mw']:,.3f} MW"),
                ("Annual energy (8,760 h)", _energy(s["annual_twh"])),
                (
                    f"Annual electricity cost at ${info.electricity_usd_per_kwh:g}/kWh",
                    fmt_usd(s["annual_cost_usd"]),
                ),
                ("Hottest rack", f"{s['max_rack_kw']:,.1f} kW"),
            ],
            width=FRAME_W * 0.75,
        ),
    ]

    racks = design.placement.racks
    kw = np.asarray(pw.rack_kw, float)
    limit = np.asarray(pw.rack_limit_kw, float)
    floor = np.asarray(pw.rack_floor_kg_m2, float)
    order = np.lexsort((racks["rack_id"].to_numpy(str), -kw))[:20]
    rows: list[list[Cell]] = []
    for i in order:
        rows.append(
            [
                str(racks["rack_id"].iat[i]),
                str(racks["template"].iat[i]),
                fmt_num(kw[i], 1),
                f"{limit[i]:g}",
                fmt_pct(kw[i] / limit[i], 0) if limit[i] else "-",
                fmt_int(floor[i]),
            ]
        )
    cols = [
        Col("Rack", 110),
        Col("Template", 110),
        Col("kW", 60, True),
        Col("Hall limit kW", 75, True),
        Col("Of limit", 60, True),
        Col("Floor kg/m2", 70, True),
    ]
    out += [*h2(f"The {len(order)} hottest racks"), data_table(cols, rows)]

    halls = {f"{b.id}/{h.id}": h for b, h in design.inputs.site.halls()}
    hall_col = racks["hall"].to_numpy(str)
    rows = []
    for key, h in halls.items():
        m = hall_col == key
        if not m.any():
            continue
        worst = int(np.flatnonzero(m)[np.argmax(floor[m])])
        over = int((floor[m] > h.floor_load_kg_m2 + 1e-9).sum())
        rows.append(
            [
                key,
                f"{h.floor_load_kg_m2:,.0f}",
                fmt_int(floor[m].max()),
                str(racks["rack_id"].iat[worst]),
                fmt_int(over),
            ]
        )
    cols = [
        Col("Hall", 90),
        Col("Rating kg/m2", 90, True),
        Col("Heaviest kg/m2", 90, True),
        Col("Heaviest rack", 120, True),
        Col("Racks over rating", 95, True),
    ]
    out += [
        *h2("Floor load"),
        para("Rack weight (servers, switches and the empty cabinet) over its footprint."),
        data_table(cols, rows),
    ]
    return out


# ----------------------------------------------------------------------------------------- network
ROLE_ORDER = (
    "server",
    "leaf",
    "spine",
    "core",
    "super",
    "fe_leaf",
    "fe_spine",
    "fe_core",
    "st_leaf",
    "st_spine",
    "st_core",
    "oob",
)
KIND_ORDER = ("gpu_leaf", "leaf_spine", "spine_core", "core_super", "frontend", "storage", "oob")


def _network_story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    fab = design.fabric
    cat = design.inputs.catalog
    out: list[Flowable] = [*h1("Network")]
    nic = cat.nic[fab.nic]
    out += [
        kv_table(
            [
                (
                    "Design",
                    "rail-optimized (each server's NICs go to different leaves)"
                    if fab.design == "rail"
                    else "middle-of-rack (the leaf sits in the GPU rack)",
                ),
                ("Backend switch", f"{cat.switch[fab.switch].name}, {fab.radix} ports at the NIC speed"),
                ("NIC", nic.name),
                ("Backend tiers", str(fab.tiers)),
                ("Pods", f"{fab.pods} x {fab.pod_gpus:,} GPUs"),
                ("Oversubscription between pods", f"{fab.oversubscription:g}:1"),
                ("Node-side optical modules", fmt_int(summary["node_optics"])),
                (
                    "Links",
                    fmt_int(summary["links"]["total"])
                    + " backend, "
                    + fmt_int(len(fab.links) - summary["links"]["total"])
                    + " frontend, storage and management",
                ),
            ],
            numeric=False,
        )
    ]
    dev = fab.devices
    counts = (
        dev.groupby(["network", "role", "model"], observed=True)
        .agg(n=("device_id", "size"), ports=("ports_used", "sum"))
        .reset_index()
    )
    counts["o"] = counts["role"].map({r: i for i, r in enumerate(ROLE_ORDER)}).fillna(99)
    rows: list[list[Cell]] = []
    for r in counts.sort_values(["o", "model"]).itertuples():
        spec = cat.switch.get(str(r.model))
        name = (
            cat.server[str(r.model)].name
            if str(r.model) in cat.server
            else (spec.name if spec else str(r.model))
        )
        cap = f"{int(r.n) * spec.ports:,}" if spec else "-"
        rows.append([str(r.network), str(r.role), name, fmt_int(r.n), fmt_int(r.ports) if spec else "-", cap])
    cols = [
        Col("Network", 60),
        Col("Role", 55),
        Col("Model", 190),
        Col("Count", 55, True),
        Col("Ports used", 60, True),
        Col("Ports", 55, True),
    ]
    out += [*h2("Switches and servers"), data_table(cols, rows)]
    links = fab.links
    lc = links.groupby(["network", "kind", "speed_gbps"], observed=True).size().reset_index(name="n")
    lc["o"] = lc["kind"].astype(str).map({k: i for i, k in enumerate(KIND_ORDER)}).fillna(99)
    rows = [
        [str(r.network), str(r.kind), f"{int(r.speed_gbps):,}G", fmt_int(r.n)]
        for r in lc.sort_values(["o", "speed_gbps"]).itertuples()
    ]
    cols = [Col("Network", 90), Col("Link", 110), Col("Speed", 70, True), Col("Links", 80, True)]
    out += [*h2("Links per tier"), data_table(cols, rows)]
    return out + _cabling_story(design, summary)


# ------------------------------------------------------------------------------------------ cabling
def _why_long(ra: Any, rb: Any, length: float, status: str) -> str:
    """What makes a link as long as it is, from where its two racks stand."""
    if status != "ok":
        return {
            "reach": "longer than any medium's reach",
            "no_path": "no tray path between its racks",
            "no_tray": "a rack with no tray above it",
            "unplaced": "an end without a rack",
        }.get(status, status)
    if ra.building != rb.building:
        return f"joins buildings {ra.building} and {rb.building} through the campus duct"
    if ra.hall != rb.hall:
        return f"joins halls {ra.hall} and {rb.hall}"
    direct = math.hypot(ra.x_m - rb.x_m, ra.y_m - rb.y_m)
    return (
        f"racks {direct:,.0f} m apart in a straight line; {max(length - direct, 0):,.0f} m more along the "
        "trays (aisles, cross-aisles) and the drops into the racks"
    )


def _cabling_story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    cab = design.cabling
    links = cab.links
    media = summary["media"]
    total = sum(media.values())
    copper = media.get("dac", 0) + media.get("aec", 0)
    out: list[Flowable] = [*h2("Media mix")]
    out.append(
        para(
            f"Each link takes the cheapest medium whose reach covers its routed length. {copper:,} of {total:,} links "
            f"({fmt_pct(copper_share(summary))}) are copper (DAC or AEC); "
            f"{summary['cable_length_m']['total'] / 1000:,.1f} km of cable at stock lengths, the longest "
            f"{summary['cable_length_m']['max']:,.0f} m."
        )
    )
    out.append(media_mix_chart({k: int(v) for k, v in media.items() if v}))
    routed = links["length_m"].notna().to_numpy()
    out += [
        *h2("Cable lengths"),
        length_histogram(
            links["length_m"].to_numpy(float)[routed], links["media_class"].astype(str).to_numpy()[routed]
        ),
    ]
    by = (
        links[routed]
        .groupby(["media", "media_class"], observed=True)
        .agg(
            n=("length_m", "size"),
            avg_m=("length_m", "mean"),
            max_m=("length_m", "max"),
            stock_m=("stock_length_m", "sum"),
        )
    )
    cat = design.inputs.catalog
    rows: list[list[Cell]] = [
        [
            cat.media[str(m)].name,
            fmt_int(r.n),
            fmt_num(r.avg_m, 1),
            fmt_num(r.max_m, 1),
            f"{cat.media[str(m)].reach_m:g}",
            fmt_num(r.stock_m / 1000, 2),
        ]
        for (m, _), r in by.iterrows()
    ]
    cols = [
        Col("Medium", 190),
        Col("Links", 60, True),
        Col("Mean m", 55, True),
        Col("Longest m", 60, True),
        Col("Reach m", 60, True),
        Col("Cable km", 60, True),
    ]
    out.append(data_table(cols, rows))

    racks = design.placement.racks
    row_code, row_names = pd.factorize(racks["row"])
    sel = np.flatnonzero(routed)
    rk = pd.DataFrame(
        {
            "kind": links["kind"].cat.codes.to_numpy()[sel],
            "row_a": row_code[links["rack_a"].to_numpy()[sel]],
            "row_b": row_code[links["rack_b"].to_numpy()[sel]],
            "media": links["media"].cat.codes.to_numpy()[sel],
            "length_m": links["length_m"].to_numpy(float)[sel],
            "i": sel,
        }
    )
    # one line per bundle (link kind between the same two rows on the same medium), longest first
    longest = rk.sort_values(["length_m", "i"], ascending=[False, True], kind="stable")
    bundles = (
        longest.groupby(["kind", "row_a", "row_b", "media"], sort=False)
        .agg(n=("i", "size"), i=("i", "first"), length_m=("length_m", "first"))
        .reset_index()
        .head(15)
    )
    rows = []
    cols_b = [bundles[c].tolist() for c in ("i", "n", "length_m", "row_a", "row_b")]
    for i, n, length, row_a, row_b in zip(*cols_b, strict=True):
        link: Any = links.iloc[i]
        ra, rb = racks.iloc[int(link.rack_a)], racks.iloc[int(link.rack_b)]
        rows.append(
            [
                str(link.kind),
                f"{row_names[row_a]} - {row_names[row_b]}",
                fmt_int(n),
                fmt_num(length, 1),
                str(link.media),
                _why_long(ra, rb, length, str(link.status)),
            ]
        )
    cols = [
        Col("Link", 55),
        Col("Between rows", 110),
        Col("Links", 40, True),
        Col("Longest m", 52, True),
        Col("Medium", 45),
        Col("What forces the length", FRAME_W - 302),
    ]
    out += [
        *h2("The longest links"),
        para("Links grouped by kind, the two rows they join and their medium; the longest bundles first."),
        data_table(cols, rows),
    ]
    bad = links["status"].astype(str) != "ok"
    if bad.any():
        counts = links.loc[bad, "status"].astype(str).value_counts().sort_index()
        out.append(
            para(
                "Links without a usable route or medium: "
                + ", ".join(f"{n:,} {k}" for k, n in counts.items())
                + " (see Violations)."
            )
        )

    fill = cab.edge_fill
    edges = cab.trays.edges
    has = fill["cables"].to_numpy() > 0
    use = fill["peak_area_mm2"].to_numpy(float) / fill["capacity_mm2"].to_numpy(float)
    fullest = [int(i) for i in np.lexsort((np.arange(len(fill)), -use)) if has[i]][:15]
    nodes = cab.trays.nodes
    nx, ny = nodes["x_m"].to_numpy(float), nodes["y_m"].to_numpy(float)
    eu, ev = edges["u"].to_numpy(), edges["v"].to_numpy()

    def at(i: int) -> str:
        mid = f"({(nx[eu[i]] + nx[ev[i]]) / 2:,.1f}, {(ny[eu[i]] + ny[ev[i]]) / 2:,.1f})"
        return f"{edges['where'].iat[i]} at {mid}"

    rows = [
        [
            at(i),
            str(edges["kind"].iat[i]),
            fmt_int(edges["levels"].iat[i]),
            fmt_int(fill["cables"].iat[i]),
            fmt_int(fill["peak_area_mm2"].iat[i]),
            fmt_int(fill["capacity_mm2"].iat[i]),
            fmt_pct(float(use[i]), 0),
        ]
        for i in fullest
    ]
    cols = [
        Col("Tray segment", 130),
        Col("Kind", 50),
        Col("Levels", 40, True),
        Col("Cables", 55, True),
        Col("Cable mm2", 65, True),
        Col("Capacity mm2", 70, True),
        Col("Use", FRAME_W - 410, True),
    ]
    out += [
        *h2("The fullest tray segments"),
        para(
            f"{int(fill['over'].sum()):,} of {int(has.sum()):,} tray segments in use carry more cable than their "
            "capacity (cable cross-section at the segment's fullest point; capacity: width x depth x levels x the "
            "fill limit, for ducts conduits x bore x fill limit). Places are segment midpoints in site metres."
        ),
        data_table(cols, rows),
    ]
    return out


def _plan_trays(design: Any, hall: str) -> PlanTrays:
    cab = design.cabling
    e = cab.trays.edges
    n = cab.trays.nodes
    m = (e["hall"].astype(str).to_numpy() == hall) & e["kind"].isin(
        ["row", "cross", "trunk", "user"]
    ).to_numpy()
    u = e["u"].to_numpy()[m]
    v = e["v"].to_numpy()[m]
    x = n["x_m"].to_numpy(float)
    y = n["y_m"].to_numpy(float)
    return PlanTrays(np.column_stack([x[u], y[u], x[v], y[v]]), cab.edge_fill["over"].to_numpy(bool)[m])


# ---------------------------------------------------------------------------------------------- BOM
BOM_TITLES = {
    "servers": "Servers",
    "gpus": "GPUs",
    "racks": "Racks",
    "switches": "Switches",
    "nics": "NICs",
    "transceivers": "Transceivers",
    "cables": "Cables",
    "trays": "Trays and ducts",
}


def _bom_story(design: Any) -> list[Flowable]:
    bom = design.bom
    total = float(bom["extended_usd"].sum())
    out: list[Flowable] = [*h1("Bill of materials")]
    out.append(
        para(
            f"{len(bom)} lines, {fmt_price(total)} in all at indicative catalog prices. GPUs are counted but priced "
            "with their servers; a medium's optics are priced per module, its cable per stock length."
        )
    )
    by = bom.groupby("category", sort=False).agg(lines=("item", "size"), usd=("extended_usd", "sum"))
    rows: list[list[Cell]] = [
        [
            BOM_TITLES.get(str(c), str(c)),
            fmt_int(r.lines),
            fmt_price(r.usd),
            fmt_pct(r.usd / total if total else 0.0),
        ]
        for c, r in by.iterrows()
    ]
    rows.append(
        [
            bold("Total"),
            bold(fmt_int(len(bom)), "cell_r"),
            bold(fmt_price(total), "cell_r"),
            bold("100.0 %", "cell_r"),
        ]
    )
    cols = [Col("Category", 150), Col("Lines", 60, True), Col("Extended", 120, True), Col("Share", 70, True)]
    out += [*h2("By category"), data_table(cols, rows, total_last=True)]
    rows = []
    emphasis = []
    for cat_name, part in bom.groupby("category", sort=False):
        title = BOM_TITLES.get(str(cat_name), str(cat_name))
        for r in part.itertuples():
            rows.append(
                [
                    str(r.item),
                    str(r.part_id),
                    f"{int(r.qty):,} {r.unit if r.unit != 'each' else ''}".strip(),
                    fmt_price(r.unit_price_usd) if r.unit_price_usd else "-",
                    fmt_price(r.extended_usd),
                ]
            )
        emphasis.append(len(rows))
        rows.append(
            [
                bold(f"Subtotal {title.lower()}"),
                "",
                "",
                "",
                bold(fmt_price(part["extended_usd"].sum()), "cell_r"),
            ]
        )
    rows.append([bold("Total"), "", "", "", bold(fmt_price(total), "cell_r")])
    cols = [
        Col("Item", 210),
        Col("Part", 85),
        Col("Quantity", 65, True),
        Col("Unit price", 65, True),
        Col("Extended", FRAME_W - 425, True),
    ]
    out += [*h2("Every line"), data_table(cols, rows, emphasis=emphasis, total_last=True)]
    return out


# ------------------------------------------------------------------------------------- reliability
def _reliability_story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    rel = design.reliability
    cat = design.inputs.catalog
    ttff = rel["time_to_first_failure_min"]
    out: list[Flowable] = [*h1("Reliability", new_page=False)]
    src = {
        "site": "the site file's cluster.link_mtbf_years",
        "nic": "the NIC's catalog MTBF",
        "media": "each medium's catalog MTBF",
    }.get(rel["mtbf_source"], rel["mtbf_source"])
    out.append(
        para(
            "A synchronous training job stops when any node-side optical link fails. Failures are taken as "
            f"independent with constant rates (MTBF from {src}), so their rates add up: with "
            f"{rel['node_optical_modules']:,} node-side modules on {rel['node_optical_links']:,} links, one fails on "
            f"average every {_minutes(ttff)}, {rel['failures_per_day']:,.2f} times a day."
        )
    )
    rows: list[list[Cell]] = [
        [
            cat.media[k].name if k in cat.media else k,
            fmt_int(v["links"]),
            fmt_int(v["modules"]),
            f"{v['mtbf_years']:g}",
        ]
        for k, v in rel["by_media"].items()
    ]
    if rows:
        cols = [
            Col("Node-side medium", 220),
            Col("Links", 80, True),
            Col("Modules", 80, True),
            Col("MTBF years", 80, True),
        ]
        out += [data_table(cols, rows), Spacer(1, 6)]
    ck = rel["checkpoint"]
    out += [
        *h2("What a failure costs"),
        para(
            f"{ck['gpus']:,} GPUs at {ck['step_s']:g} s per step with a checkpoint every {ck['checkpoint_every_steps']:,} "
            f"steps. A failure just before a checkpoint redoes {ck['checkpoint_every_steps'] - 1:,} steps on every GPU. "
            f"In-memory (RDMA) recovery redoes one step and copies {ck['hbm_gb']:g} GB of state per GPU back at "
            f"{ck['link_gbps']:,} Gb/s ({ck['copy_s']:g} s)."
        ),
        kv_table(
            [
                ("Checkpoint restart, GPU-days lost per failure", fmt_num(ck["restart_gpu_days"], 2)),
                ("In-memory recovery: the step redone, GPU-days", fmt_num(ck["in_memory_step_gpu_days"], 2)),
                ("In-memory recovery: the state copy, GPU-days", fmt_num(ck["in_memory_copy_gpu_days"], 2)),
                ("In-memory recovery, GPU-days lost per failure", fmt_num(ck["in_memory_gpu_days"], 2)),
                ("Saved per failure, GPU-days", fmt_num(ck["saved_gpu_days"], 2)),
                ("Checkpoint restart, GPU-days lost per day", fmt_num(ck["restart_gpu_days_per_day"], 2)),
                ("In-memory recovery, GPU-days lost per day", fmt_num(ck["in_memory_gpu_days_per_day"], 2)),
            ],
            width=FRAME_W * 0.8,
        ),
    ]
    return out


# --------------------------------------------------------------------------------------- violations
def _violations_story(design: Any) -> list[Flowable]:
    out: list[Flowable] = [*h1("Violations", new_page=False)]
    vs = sorted(design.violations, key=lambda v: (v.kind, v.where))
    if not vs:
        return [*out, para("No design rule is breached.")]
    out.append(
        para(
            f"{len(vs)} design-rule {'breach' if len(vs) == 1 else 'breaches'}, by kind and location. None stops "
            "the design; dclayout design --strict fails on them."
        )
    )
    rows: list[list[Cell]] = [[v.kind, v.where, v.message, v.suggestion or "-"] for v in vs]
    cols = [Col("Kind", 55), Col("Where", 85), Col("What", 210), Col("Suggestion", FRAME_W - 350)]
    out.append(data_table(cols, rows))
    return out


# -------------------------------------------------------------------------------------- assumptions
def _used_catalog(design: Any) -> dict[str, set[str]]:
    models = {str(m) for m in design.fabric.devices["model"].unique()}
    cat = design.inputs.catalog
    return {
        "server": models & set(cat.server),
        "switch": models & set(cat.switch),
        "nic": {design.fabric.nic},
        "media": {str(m) for m in design.cabling.links["media"].dropna().unique()} & set(cat.media),
    }


def _assumptions_story(design: Any) -> list[Flowable]:
    inp = design.inputs
    s = inp.site
    out: list[Flowable] = [*h1("Assumptions")]
    out.append(
        para(
            "Every figure the design used, with its source: the site file for the site's own inputs, the rack "
            "templates for the cabinets, and the comment written next to each figure in the catalog (for the "
            "servers, switches and NIC the design contains and the media its links use). 'no source given' "
            "marks a catalog figure without one; 'unverified' is the catalog's own warning."
        )
    )
    rows: list[list[Cell]] = [
        ["site.utility_mw", f"{s.site.utility_mw:g}"],
        ["site.pue", f"{s.site.pue:g}"],
        ["site.electricity_usd_per_kwh", f"{s.site.electricity_usd_per_kwh:g}"],
        ["cluster.gpus", fmt_int(s.cluster.gpus)],
        ["cluster.oversubscription", f"{s.cluster.oversubscription:g}"],
        ["cluster.link_mtbf_years", f"{s.cluster.link_mtbf_years:g}"],
        ["training.step_s", f"{s.training.step_s:g}"],
        ["training.checkpoint_every_steps", fmt_int(s.training.checkpoint_every_steps)],
        ["training.hbm_gb", f"{s.training.hbm_gb:g}"],
    ]
    out += [
        *h2(f"Site inputs ({inp.path.name})"),
        data_table([Col("Key", 250), Col("Value", 120, True)], rows),
    ]
    rows = [
        [
            f"{b.id}/{h.id}",
            h.cooling,
            f"{h.max_rack_kw:g}",
            f"{h.floor_load_kg_m2:g}",
            f"{h.it_mw:g}" if h.it_mw else "none",
            f"{b.it_mw:g}" if b.it_mw else "none",
        ]
        for b, h in s.halls()
    ]
    cols = [
        Col("Hall", 70),
        Col("Cooling", 70),
        Col("max_rack_kw", 75, True),
        Col("floor_load_kg_m2", 90, True),
        Col("Hall it_mw", 70, True),
        Col("Building it_mw", 80, True),
    ]
    out += [*h2("Halls (from the site file)"), data_table(cols, rows)]
    used_tpl = sorted(set(design.placement.racks["template"].astype(str)))
    rows = []
    for t in used_tpl:
        tpl = inp.templates[t]
        rows.append(
            [
                t,
                tpl.name,
                f"{tpl.width_mm:g} x {tpl.depth_mm:g}",
                f"{tpl.weight_kg_empty:g}",
                f"{tpl.pdu_kw:g}",
                tpl.cooling,
            ]
        )
    cols = [
        Col("Template", 70),
        Col("Name", 190),
        Col("W x D mm", 65, True),
        Col("Empty kg", 50, True),
        Col("PDU kW", 45, True),
        Col("Cooling", FRAME_W - 420),
    ]
    out += [*h2("Rack templates used"), data_table(cols, rows)]
    figs = catalog_figures(inp.templates_dir / "catalog.toml", _used_catalog(design))
    rows = []
    for f in figs:
        src = safe(f.source) if f.source else "<i>no source given</i>"
        rows.append(
            [f"{f.section}.{f.item}" if f.item else f.section, f.key, f.value, Paragraph(src, STYLES["cell"])]
        )
    cols = [Col("Catalog item", 95), Col("Figure", 90), Col("Value", 75, True), Col("Source", FRAME_W - 260)]
    out += [*h2("Catalog figures used"), data_table(cols, rows)]
    return out


# --------------------------------------------------------------------------------------- the report
def build_story(design: Design) -> list[Flowable]:
    summary = design.summary()
    story: list[Flowable] = _cover_story(design, summary)
    story += contents_page()
    story += _plans_story(design)
    story += _power_story(design, summary)
    story += _network_story(design, summary)
    story += _bom_story(design)
    story += _reliability_story(design, summary)
    story += _violations_story(design)
    story += _assumptions_story(design)
    return story


def render_pdf(design: Design) -> bytes:
    """The report of ``design`` as PDF bytes (deterministic)."""
    return render(build_story(design), meta_of(design))


def write_pdf(design: Design, path: str | os.PathLike[str]) -> Path:
    """Write the report of ``design`` to ``path`` atomically: it is built in memory and moved into place,
    so a failure leaves no file (and an older report untouched)."""
    return write_bytes(path, render_pdf(design))
