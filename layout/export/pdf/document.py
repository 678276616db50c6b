"""The document template: A4 page templates (a cover without furniture, a body page with header and
footer), "page N of M", chapter and section headings that become TOC entries and PDF bookmarks, and the
layout of a story into deterministic PDF bytes (reportlab's invariant mode, the date from the site file).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
)
from reportlab.platypus.tableofcontents import TableOfContents

from layout.export.pdf.formatting import safe, safe_plain
from layout.export.pdf.theme import (
    ACCENT,
    FONT,
    FRAME_H,
    FRAME_W,
    MARGIN_BOTTOM,
    MARGIN_TOP,
    MARGIN_X,
    MUTED,
    PAGE_H,
    PAGE_W,
    RULE,
    STYLES,
)


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


class SketchFrame(Frame):
    """A frame that, on a sketch canvas (``canv.sketch``: a layout pass whose canvas is thrown away),
    lays the flowables out without drawing them. Drawing never changes the layout, so the pass finds
    the same page breaks, TOC entries and page count at a fraction of the cost."""

    def _add(self, flowable: Flowable, canv: Canvas, trySplit: int = 0) -> int:  # noqa: N803 (reportlab API)
        if not getattr(canv, "sketch", False):
            return int(super()._add(flowable, canv, trySplit))
        # shadow the method in the instance for this call only (through __dict__: a Drawing vets setattr)
        flowable.__dict__["drawOn"] = _no_draw
        try:
            return int(super()._add(flowable, canv, trySplit))
        finally:
            del flowable.__dict__["drawOn"]

    add = _add


def _no_draw(*_: Any, **__: Any) -> None:
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
        frame = SketchFrame(
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
        self._passes = 0
        self.multiBuild([self.counter, *story], canvasmaker=self._canvas)
        if self._passes < 2:  # cannot happen (see _canvas); a one-pass build would have saved a sketch
            raise RuntimeError("the report was laid out in one pass: its pages were never drawn")

    def _canvas(self, *args: Any, **kw: Any) -> Canvas:
        canv = Canvas(*args, **kw)
        self._passes += 1
        # multiBuild's first pass is never its last (the page count is unknown until it ends, so the
        # counter is not satisfied): its canvas is thrown away, and it only has to lay the story out
        canv.sketch = self._passes == 1  # type: ignore[attr-defined]
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


def contents_page() -> list[Flowable]:
    return [
        PageBreak(),
        Paragraph("Contents", ParagraphStyle("contents", parent=STYLES["h1"])),
        table_of_contents(),
    ]


def render(story: list[Flowable], meta: ReportMeta) -> bytes:
    """Lay the story out into PDF bytes (the cover template first, the body template from page 2)."""
    import io

    buf = io.BytesIO()
    doc = ReportDoc(buf, meta)
    doc.build_story([NextPageTemplate("body"), *story])
    return buf.getvalue()
