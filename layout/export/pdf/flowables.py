"""Table flowables (data tables that split across pages and repeat their header, label/value tables) and
the cover page's title block with its grid of headline figures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import (
    Flowable,
    LongTable,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from layout.export.pdf.document import ReportMeta
from layout.export.pdf.formatting import safe, safe_plain
from layout.export.pdf.theme import (
    ACCENT,
    BAD_RED,
    FONT_BOLD,
    FRAME_W,
    INK,
    MUTED,
    RULE,
    STYLES,
    SUBTOTAL,
    ZEBRA,
    _style,
)

# ---------------------------------------------------------------------------------------------- tables
Cell: TypeAlias = str | float | int | Paragraph


@dataclass(frozen=True)
class Col:
    """A table column: heading, width in points, whether it holds numbers (right-aligned), and whether
    it holds ids (``B1/H1/R20/K07``), which wrap only after a separator, never inside a token."""

    head: str
    width: float
    numeric: bool = False
    ids: bool = False


PAD = 3  # left and right padding of every table cell, points


def _text_cell(text: object, style: ParagraphStyle, width: float) -> Cell:
    """A table cell of ``text`` in ``style`` for a column ``width`` points wide: the plain string when it is
    one line that fits (the table draws it where the Paragraph would put it: same font, colour, leading,
    baseline and alignment, at a fraction of the layout cost), else the Paragraph, which wraps it."""
    plain = safe_plain(text)
    if (
        plain
        and plain == " ".join(plain.split())  # a Paragraph collapses runs of white space; a string does not
        and stringWidth(plain, style.fontName, style.fontSize) < width - 2 * PAD - 0.01
    ):
        return plain
    return Paragraph(safe(text), style)


def _id_cell(text: object, style: ParagraphStyle, width: float) -> Cell:
    """A table cell of ids in a column ``width`` points wide: one line when it fits, else broken at the
    spaces between ids first and inside an id only after a slash (``B1/H1/`` then ``R20/K07``), a token
    never split; a token wider than the column stands whole on its own line. A plain string (the table
    draws its lines)."""

    def fits(s: str) -> bool:
        return bool(stringWidth(s, style.fontName, style.fontSize) <= width - 2 * PAD - 0.01)

    def pack(pieces: list[str], sep: str) -> list[str]:
        lines: list[str] = []
        for piece in pieces:
            if lines and fits(lines[-1] + sep + piece):
                lines[-1] += sep + piece
            else:
                lines.append(piece)
        return lines

    words = pack(safe_plain(text).split(), " ")
    return "\n".join(
        line for w in words for line in (pack(re.findall(r"[^/]+/?|/", w), "") if not fits(w) else [w])
    )


def _text_style(rows: tuple[int, int], style: ParagraphStyle) -> list[tuple[Any, ...]]:
    """Table style commands that draw the plain string cells of ``rows`` (first, last) as ``style`` would:
    the cell leading must equal the style's, for the row heights to match a Paragraph's."""
    first, last = rows
    return [
        ("FONT", (0, first), (-1, last), style.fontName, style.fontSize, style.leading),
        ("TEXTCOLOR", (0, first), (-1, last), style.textColor),
    ]


def data_table(
    cols: Sequence[Col],
    rows: Sequence[Sequence[Cell]],
    *,
    emphasis: Iterable[int] = (),
    total_last: bool = False,
) -> LongTable:
    """A table that splits across pages and repeats its header. ``emphasis``: row numbers (0-based, in
    ``rows``) drawn as subtotal rows; ``total_last``: the last row is a grand total. A cell that fits on
    one line is a plain string, a longer one a Paragraph that wraps (an id column's: lines broken at its
    separators only, see :class:`Col`); a Paragraph given stays as it is."""
    head = [_text_cell(c.head, STYLES["cell_head_r" if c.numeric else "cell_head"], c.width) for c in cols]
    body: list[list[Cell]] = []
    for r in rows:
        out: list[Cell] = []
        for c, v in zip(cols, r, strict=True):
            if isinstance(v, Paragraph):
                out.append(v)
            elif c.ids:
                out.append(_id_cell(v, STYLES["cell"], c.width))
            else:
                out.append(_text_cell(v, STYLES["cell_r" if c.numeric else "cell"], c.width))
        body.append(out)
    t = LongTable([head, *body], colWidths=[c.width for c in cols], repeatRows=1, splitByRow=1)
    cmds: list[tuple[Any, ...]] = [
        *_text_style((0, 0), STYLES["cell_head"]),
        *_text_style((1, -1), STYLES["cell"]),
        *[("ALIGN", (i, 0), (i, -1), "RIGHT") for i, c in enumerate(cols) if c.numeric],
        ("BACKGROUND", (0, 0), (-1, 0), ACCENT),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD),
        ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
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
        if len(body) > 1:  # the grand total never alone at the top of a page: with the row above it
            cmds.append(("NOSPLIT", (0, len(body) - 1), (-1, len(body))))
    t.setStyle(TableStyle(cmds))
    return t


def bold(text: object, style: str = "cell") -> Paragraph:
    st = STYLES[style]
    return Paragraph(f"<b>{safe(text)}</b>", st)


def kv_table(pairs: Sequence[tuple[str, str]], width: float = FRAME_W, numeric: bool = True) -> Table:
    """Two-column label/value table for small fact lists: figures right-aligned, text left-aligned."""
    value = STYLES["cell_r" if numeric else "cell"]
    split = 0.62 if numeric else 0.32
    widths = [width * split, width * (1 - split)]
    rows = [[_text_cell(k, STYLES["cell"], widths[0]), _text_cell(v, value, widths[1])] for k, v in pairs]
    t = Table(rows, colWidths=widths, hAlign="LEFT")
    cmds: list[tuple[Any, ...]] = [
        *_text_style((0, -1), STYLES["cell"]),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD),
        ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
    ]
    if numeric:
        cmds.append(("ALIGN", (1, 0), (1, -1), "RIGHT"))
    t.setStyle(TableStyle(cmds))
    return t


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
