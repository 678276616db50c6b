"""The PDF design report: a reportlab platypus adapter over a finished Design.

Only this module (and the commands that call it) imports reportlab; the core never does. Everything
drawn here is read from the Design: no figure is computed twice, none is made up. The bytes are
deterministic: reportlab's invariant mode, the creation date taken from the site file's date, no clock.

Layout: A4 portrait, a cover with the headline figures, a table of contents, then one chapter per
concern (plans, power, network, bill of materials, reliability, violations, assumptions). Long tables
are LongTables that split across pages and repeat their header row.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias
from xml.sax.saxutils import escape

import numpy as np
import tomlkit
from reportlab.graphics.shapes import Drawing, Group, Line, Polygon, PolyLine, Rect, String
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


def h1(text: str) -> list[Flowable]:
    """A chapter: starts on a new page."""
    return [PageBreak(), Paragraph(safe(text), STYLES["h1"])]


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


def kv_table(pairs: Sequence[tuple[str, str]], width: float = FRAME_W) -> Table:
    """Two-column label/value table for small fact lists."""
    rows = [[Paragraph(safe(k), STYLES["cell"]), Paragraph(safe(v), STYLES["cell_r"])] for k, v in pairs]
    t = Table(rows, colWidths=[width * 0.62, width * 0.38], hAlign="LEFT")
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
        d.add(
            String(
                x,
                h - top + 8,
                "limit" if frac == 1 else f"{frac:.0%}",
                fontName=FONT,
                fontSize=6,
                fillColor=MUTED,
                textAnchor="middle",
            )
        )
    for b in items:
        y -= bar_h + gap
        d.add(String(0, y + 2, safe_plain(b.label), fontName=FONT, fontSize=7, fillColor=INK))
        d.add(Rect(x0, y, bar_w, bar_h, fillColor=ZEBRA, strokeColor=None))
        if b.limit:
            ratio = b.used / b.limit
            d.add(
                Rect(
                    x0,
                    y,
                    bar_w * min(ratio, scale_max) / scale_max,
                    bar_h,
                    fillColor=use_colour(ratio),
                    strokeColor=None,
                )
            )
            text = f"{b.used:,.2f} of {b.limit:,.2f} {b.unit} ({ratio:.0%})"
        else:
            text = f"{b.used:,.2f} {b.unit} (no limit set)"
            d.add(Rect(x0, y, 2, bar_h, fillColor=MUTED, strokeColor=None))
        d.add(String(x0 + bar_w + 6, y + 2, text, fontName=FONT, fontSize=7, fillColor=INK))
    return d


MEDIA_COLOURS: dict[str, colors.Color] = {
    "dac": colors.HexColor("#b35806"),
    "aec": colors.HexColor("#f1a340"),
    "mmf": colors.HexColor("#5e3c99"),
    "smf": colors.HexColor("#2166ac"),
    "coherent": colors.HexColor("#1b7837"),
}
MEDIA_LABELS = {
    "dac": "Passive copper (DAC)",
    "aec": "Active copper (AEC)",
    "mmf": "Multimode fibre",
    "smf": "Single-mode fibre",
    "coherent": "Coherent optics",
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
        d.add(String(0, y + 2.5, MEDIA_LABELS.get(k, k), fontName=FONT, fontSize=7.5, fillColor=INK))
        d.add(
            Rect(
                label_w,
                y,
                max(bar_w * n / peak, 0.5 if n else 0),
                bar_h,
                fillColor=MEDIA_COLOURS.get(k, MUTED),
                strokeColor=None,
            )
        )
        d.add(
            String(
                label_w + bar_w + 6,
                y + 2.5,
                f"{n:,} links ({n / total:.1%})",
                fontName=FONT,
                fontSize=7.5,
                fillColor=INK,
            )
        )
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
        d.add(
            String(left - 3, y - 2.5, f"{v:,}", fontName=FONT, fontSize=6, fillColor=MUTED, textAnchor="end")
        )
    bw = pw / nb
    for i in range(nb):
        x = left + i * bw + 1
        base = 0
        for k in classes:
            n = int(counts[k][i])
            if n:
                d.add(
                    Rect(
                        x,
                        yof(base),
                        bw - 2,
                        yof(base + n) - yof(base),
                        fillColor=MEDIA_COLOURS.get(k, MUTED),
                        strokeColor=None,
                    )
                )
                base += n
        if base:
            d.add(
                String(
                    x + (bw - 2) / 2,
                    yof(base) + 2,
                    f"{base:,}",
                    fontName=FONT,
                    fontSize=5.5,
                    fillColor=INK,
                    textAnchor="middle",
                )
            )
        d.add(
            String(
                x + (bw - 2) / 2,
                bottom - 9,
                labels[i],
                fontName=FONT,
                fontSize=5.5,
                fillColor=INK,
                textAnchor="middle",
            )
        )
    d.add(
        String(
            left + pw / 2,
            bottom - 19,
            "routed length (m)",
            fontName=FONT,
            fontSize=6.5,
            fillColor=MUTED,
            textAnchor="middle",
        )
    )
    d.add(
        String(left - 28, bottom + ph + 10, "links (log scale)", fontName=FONT, fontSize=6.5, fillColor=MUTED)
    )
    x = left + 90
    for k in classes:
        name = MEDIA_LABELS.get(k, k)
        d.add(Rect(x, bottom + ph + 9, 7, 7, fillColor=MEDIA_COLOURS.get(k, MUTED), strokeColor=None))
        d.add(String(x + 9, bottom + ph + 10, name, fontName=FONT, fontSize=6.5, fillColor=INK))
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
KEEPOUT_FILL = colors.HexColor("#e0e0e0")


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
    label: str
    x_m: float  # where the label goes (the row's first rack end)
    y_m: float
    axis: str
    spine: bool


class _Frame:
    """Maps site metres to drawing points inside a box, y up, equal scale."""

    def __init__(self, bounds: tuple[float, float, float, float], box: tuple[float, float, float, float]):
        x0, y0, x1, y1 = bounds
        bx, by, bw, bh = box
        self.scale = min(bw / max(x1 - x0, 1e-9), bh / max(y1 - y0, 1e-9))
        self.ox = bx + (bw - (x1 - x0) * self.scale) / 2 - x0 * self.scale
        self.oy = by + (bh - (y1 - y0) * self.scale) / 2 - y0 * self.scale

    def x(self, v: float) -> float:
        return self.ox + v * self.scale

    def y(self, v: float) -> float:
        return self.oy + v * self.scale

    def pts(self, ring: Iterable[tuple[float, float]]) -> list[float]:
        out: list[float] = []
        for px, py in ring:
            out += [self.x(px), self.y(py)]
        return out


def _plan_canvas(
    bounds: tuple[float, float, float, float], width: float, height: float
) -> tuple[_Frame, Drawing]:
    """The drawing for a plan of ``bounds`` (m), as tall as the plan needs (up to ``height``) plus the
    legend strip at the bottom, and the metre-to-point mapping into it."""
    dx, dy = bounds[2] - bounds[0], bounds[3] - bounds[1]
    scale = min(width / max(dx, 1e-9), (height - LEGEND_H - 4) / max(dy, 1e-9))
    plan_h = dy * scale
    return _Frame(bounds, (0, LEGEND_H, width, plan_h)), Drawing(width, plan_h + LEGEND_H + 4)


def _scale_bar(g: Group, fr: _Frame, x: float, y: float, max_w: float) -> None:
    length = nice_length(max_w / fr.scale)
    w = length * fr.scale
    for i in range(4):
        g.add(
            Rect(
                x + i * w / 4,
                y,
                w / 4,
                3.5,
                fillColor=INK if i % 2 == 0 else colors.white,
                strokeColor=INK,
                strokeWidth=0.4,
            )
        )
    for frac in (0.0, 0.5, 1.0):
        g.add(
            String(
                x + frac * w,
                y + 6,
                f"{length * frac:g}",
                fontName=FONT,
                fontSize=6,
                fillColor=INK,
                textAnchor="middle",
            )
        )
    g.add(String(x + w + 4, y, "m", fontName=FONT, fontSize=6.5, fillColor=INK))


def _north_arrow(g: Group, x: float, y: float) -> None:
    g.add(Polygon([x, y, x + 4, y - 10, x, y - 7, x - 4, y - 10], fillColor=INK, strokeColor=None))
    g.add(String(x, y + 2, "N", fontName=FONT_BOLD, fontSize=7, fillColor=INK, textAnchor="middle"))


def _rack_shapes(g: Group, fr: _Frame, racks: PlanRacks, labels: bool) -> None:
    rotated = np.isin(np.round(racks.rotation_deg) % 180, [90])
    wx = np.where(rotated, racks.depth_m, racks.width_m) * fr.scale
    wy = np.where(rotated, racks.width_m, racks.depth_m) * fr.scale
    px = fr.ox + racks.x_m * fr.scale - wx / 2
    py = fr.oy + racks.y_m * fr.scale - wy / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(racks.limit_kw > 0, racks.power_kw / racks.limit_kw, 0.0)
    band = kw_band(ratio)
    network = np.isin(racks.kind, list(NETWORK_KINDS))
    fills = [b[2] for b in KW_BANDS]
    font = float(min(np.min(wx), np.min(wy)) * 0.55) if len(wx) else 0.0
    for i in range(len(px)):
        net = bool(network[i])
        g.add(
            Rect(
                float(px[i]),
                float(py[i]),
                float(wx[i]),
                float(wy[i]),
                fillColor=fills[int(band[i])],
                strokeColor=NETWORK_EDGE if net else INK,
                strokeWidth=0.6 if net else 0.15,
            )
        )
        if labels and font >= 0.8:
            g.add(
                String(
                    float(px[i] + wx[i] / 2),
                    float(py[i] + wy[i] / 2 - font * 0.35),
                    str(racks.label[i]),
                    fontName=FONT,
                    fontSize=font,
                    fillColor=INK,
                    textAnchor="middle",
                )
            )


def _legend(g: Group, x: float, y: float, limit_text: str) -> float:
    """Draws the colour legend from (x, y) rightwards; returns the x it ended at."""
    g.add(String(x, y + 1, f"Rack kW vs {limit_text}:", fontName=FONT_BOLD, fontSize=6.5, fillColor=INK))
    x += stringWidth(f"Rack kW vs {limit_text}:", FONT_BOLD, 6.5) + 5
    for _, label, col in KW_BANDS:
        g.add(Rect(x, y, 8, 6, fillColor=col, strokeColor=INK, strokeWidth=0.15))
        g.add(String(x + 10, y + 1, label, fontName=FONT, fontSize=6.5, fillColor=INK))
        x += 10 + stringWidth(label, FONT, 6.5) + 7
    return x


def _legend_symbols(g: Group, x: float, y: float) -> None:
    items: list[tuple[str, Callable[[float, float], None]]] = [
        (
            "network / spine rack",
            lambda a, b: g.add(
                Rect(a, b, 8, 6, fillColor=colors.white, strokeColor=NETWORK_EDGE, strokeWidth=0.9)
            ),
        ),
        (
            "cable tray",
            lambda a, b: g.add(Line(a, b + 3, a + 10, b + 3, strokeColor=TRAY_COLOUR, strokeWidth=1.2)),
        ),
        ("building column", lambda a, b: g.add(Rect(a + 1, b, 6, 6, fillColor=INK, strokeColor=None))),
        (
            "keep-out",
            lambda a, b: g.add(Rect(a, b, 8, 6, fillColor=KEEPOUT_FILL, strokeColor=MUTED, strokeWidth=0.4)),
        ),
    ]
    for label, draw in items:
        draw(x, y)
        g.add(String(x + 12, y + 1, label, fontName=FONT, fontSize=6.5, fillColor=INK))
        x += 12 + stringWidth(label, FONT, 6.5) + 9


@dataclass(frozen=True)
class HallOutline:
    key: str  # "B1/H1"
    polygon: list[tuple[float, float]]
    columns: list[tuple[float, float, float, float]]  # centre x, y, size x, y
    keepouts: list[tuple[list[tuple[float, float]], str]]
    max_rack_kw: float


LEGEND_H = 40.0


def hall_plan(
    hall: HallOutline,
    racks: PlanRacks,
    rows: Sequence[PlanRow],
    trays: np.ndarray,
    width: float = FRAME_W,
    height: float = FRAME_H - 60,
) -> Drawing:
    """Vector plan of one hall: walls, keep-outs, columns, trays (segments x0, y0, x1, y1 in m), racks
    coloured by kW against the hall's limit with their position number, row labels, legend, scale bar."""
    xs = [p[0] for p in hall.polygon]
    ys = [p[1] for p in hall.polygon]
    bounds = (min(xs) - 1.0, min(ys) - 1.0, max(xs) + 1.0, max(ys) + 1.0)
    fr, d = _plan_canvas(bounds, width, height)
    g = Group()
    g.add(Polygon(fr.pts(hall.polygon), fillColor=colors.white, strokeColor=INK, strokeWidth=1.2))
    for ring, reason in hall.keepouts:
        g.add(Polygon(fr.pts(ring), fillColor=KEEPOUT_FILL, strokeColor=MUTED, strokeWidth=0.4))
        cx = sum(p[0] for p in ring) / len(ring)
        cy = sum(p[1] for p in ring) / len(ring)
        if reason:
            g.add(
                String(
                    fr.x(cx),
                    fr.y(cy),
                    safe_plain(reason),
                    fontName=FONT_ITALIC,
                    fontSize=6,
                    fillColor=MUTED,
                    textAnchor="middle",
                )
            )
    for x0, y0, x1, y1 in np.asarray(trays, dtype=float).reshape(-1, 4):
        g.add(Line(fr.x(x0), fr.y(y0), fr.x(x1), fr.y(y1), strokeColor=TRAY_COLOUR, strokeWidth=0.8))
    _rack_shapes(g, fr, racks, labels=True)
    for cx, cy, sx, sy in hall.columns:
        g.add(
            Rect(
                fr.x(cx - sx / 2),
                fr.y(cy - sy / 2),
                sx * fr.scale,
                sy * fr.scale,
                fillColor=INK,
                strokeColor=None,
            )
        )
    for r in rows:
        size = 5.0 if not r.spine else 5.5
        text = f"{r.label} spine" if r.spine else r.label
        g.add(
            String(
                fr.x(r.x_m) - 2,
                fr.y(r.y_m) - size * 0.35,
                safe_plain(text),
                fontName=FONT_BOLD if r.spine else FONT,
                fontSize=size,
                fillColor=NETWORK_EDGE if r.spine else INK,
                textAnchor="end",
            )
        )
    _north_arrow(g, width - 6, LEGEND_H - 12)
    _legend(g, 0, 20, f"the hall limit of {hall.max_rack_kw:g} kW")
    _legend_symbols(g, 0, 8)
    _scale_bar(g, fr, width - 120, 8, 100)
    d.add(g)
    return d


@dataclass(frozen=True)
class SiteOutline:
    buildings: list[tuple[str, list[tuple[float, float]]]]
    halls: list[tuple[str, list[tuple[float, float]]]]
    ducts: list[tuple[str, list[tuple[float, float]]]]


def site_plan(
    site: SiteOutline, racks: PlanRacks, width: float = FRAME_W, height: float = FRAME_H - 60
) -> Drawing:
    """Vector plan of the campus: buildings, halls, inter-building ducts, every rack coloured by kW use."""
    pts = [p for _, ring in site.buildings for p in ring] + [p for _, path in site.ducts for p in path]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    pad = 0.04 * max(max(xs) - min(xs), max(ys) - min(ys))
    bounds = (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)
    fr, d = _plan_canvas(bounds, width, height)
    g = Group()
    for _, path in site.ducts:
        g.add(PolyLine(fr.pts(path), strokeColor=TRAY_COLOUR, strokeWidth=1.4, strokeDashArray=[4, 2]))
    for _, ring in site.buildings:
        g.add(Polygon(fr.pts(ring), fillColor=colors.HexColor("#f7f9fb"), strokeColor=INK, strokeWidth=1.2))
    for _, ring in site.halls:
        g.add(Polygon(fr.pts(ring), fillColor=colors.white, strokeColor=MUTED, strokeWidth=0.5))
    _rack_shapes(g, fr, racks, labels=False)
    for name, ring in site.buildings:
        x = max(p[0] for p in ring)
        y = max(p[1] for p in ring)
        g.add(
            String(
                fr.x(x),
                fr.y(y) + 3,
                safe_plain(name),
                fontName=FONT_BOLD,
                fontSize=8,
                fillColor=INK,
                textAnchor="end",
            )
        )
    for name, ring in site.halls:
        x = min(p[0] for p in ring)
        y = max(p[1] for p in ring)
        g.add(String(fr.x(x) + 2, fr.y(y) - 7, safe_plain(name), fontName=FONT, fontSize=6, fillColor=MUTED))
    _north_arrow(g, width - 6, LEGEND_H - 12)
    _legend(g, 0, 20, "each hall's limit")
    g.add(PolyLine([0, 11, 12, 11], strokeColor=TRAY_COLOUR, strokeWidth=1.4, strokeDashArray=[4, 2]))
    g.add(String(15, 9, "duct between buildings", fontName=FONT, fontSize=6.5, fillColor=INK))
    _scale_bar(g, fr, width - 120, 8, 100)
    d.add(g)
    return d


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
            _style("kpi_alarm", parent=STYLES["kpi_value"], textColor=BAD_RED)
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
    return [PageBreak(), Paragraph("Contents", _style("contents", parent=STYLES["h1"])), table_of_contents()]


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


def write_atomic(data: bytes, path: Path) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
