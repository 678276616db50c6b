"""XLSX: ``write_xlsx(sheets, path, date)``, one sheet per DataFrame, bold frozen header, column widths
from the content, USD columns formatted ``#,##0.00``. Same input, same bytes: the workbook's created and
modified dates are the site's date (not the clock) and so are the timestamps of the zip entries (the
nearest a zip can hold for a date outside 1980-2107). The bytes are openpyxl's; the cells are written as
strings, not through an element tree per cell. Every text value is a text cell: one starting with ``=``,
``+``, ``-`` or ``@`` is never a live formula (formula injection), ``#N/A`` never an error; a
formula-like one also carries the quote prefix style (Excel's stored form of a typed ``'``), so that
editing the cell keeps it text.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import io
import math
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from layout.export.atomic import write_bytes
from layout.export.tables.csv import formula_like_rows, is_formula_like

USD_SUFFIX = "_usd"
MAX_COLUMN_WIDTH = 60


def _site_datetime(date: str) -> datetime.datetime:
    return datetime.datetime.combine(datetime.date.fromisoformat(date), datetime.time())


def xlsx_bytes(sheets: dict[str, pd.DataFrame], date: str, title: str = "") -> bytes:
    """The workbook of ``sheets`` (name -> table) as bytes; ``date`` (YYYY-MM-DD) stamps it.

    openpyxl writes the workbook around the cells (properties, styles, widths, frozen header); the
    cells themselves are written here as the same XML openpyxl writes for them, a string per cell
    instead of an element tree per cell (seconds on a campus's Racks sheet). Values openpyxl would
    treat specially (dates, characters it refuses, ...) send the whole workbook
    through openpyxl cell by cell, so the bytes never depend on the path."""
    stamp = _site_datetime(date)
    try:
        return _xlsx_fast(sheets, stamp, title)
    except _NotPlain:
        return xlsx_bytes_openpyxl(sheets, date, title)


def xlsx_bytes_openpyxl(sheets: dict[str, pd.DataFrame], date: str, title: str = "") -> bytes:
    """The same workbook written by openpyxl cell by cell (the reference the fast path matches)."""
    stamp = _site_datetime(date)
    wb = _workbook(sheets, stamp, title)
    splice: dict[str, Callable[[bytes], bytes]] = {}
    for i, (df, ws) in enumerate(zip(sheets.values(), wb.worksheets, strict=True), start=1):
        cached: dict[str, str] = {}
        for row in df.itertuples(index=False, name=None):
            ws.append([f"={v.text}" if isinstance(v, Formula) else _cell(v) for v in row])
            for cell, v in zip(ws[ws.max_row], row, strict=False):
                if isinstance(v, Formula):
                    cached[cell.coordinate] = v.cached
                elif cell.data_type in ("f", "e"):  # openpyxl makes "=..." a formula, "#N/A" an error: text
                    cell.data_type = "s"
        for j, col in enumerate(df.columns):
            fmt = number_format(str(col), df.iloc[:, j])
            if fmt:
                for cell in ws[column_letter(j)][1:]:
                    cell.number_format = fmt
        for j in range(df.shape[1]):  # formula-like text: "quote prefix" style, text even once edited
            hit = formula_like_rows(df.iloc[:, j])
            if hit is not None:
                column = ws[column_letter(j)][1:]
                for r in np.flatnonzero(hit).tolist():
                    column[r].quotePrefix = True
        if cached:
            splice[f"xl/worksheets/sheet{i}.xml"] = functools.partial(_cache_formulas, cached=cached)
    return _restamp_zip(_zip_workbook(wb), stamp, splice)


def _cache_formulas(body: bytes, cached: dict[str, str]) -> bytes:
    """openpyxl's sheet XML with each formula's computed value written as the cell's cached value (it
    writes ``<v />``), so that a reader that does not calculate (pandas, a previewer) shows the figure."""

    def fill(m: re.Match[str]) -> str:
        return f"{m.group(1)}<v>{cached[m.group(2)]}</v></c>"

    text = re.sub(r'(<c r="([A-Z]+[0-9]+)"[^>]*><f>[^<]*</f>)<v ?/></c>', fill, body.decode("utf-8"))
    return text.encode("utf-8")


@dataclasses.dataclass(frozen=True)
class Formula:
    """A live spreadsheet formula in a table cell (``text`` without the ``=``, e.g. ``SUBTOTAL(9,G2:G9)``)
    and the value it computes, written as the cell's cached value. Only the exporter's own formulas are
    live: text from a site file that looks like one stays text."""

    text: str
    value: float

    @property
    def cached(self) -> str:
        return f"{self.value:.16g}"


COUNT_FORMAT = "#,##0"  # quantities: whole numbers with thousands separators
COUNT_COLUMNS = ("qty",)  # quantity columns that hold more than integers (the BOM's subtotal rows)


def number_format(name: str, col: pd.Series) -> str:
    """The number format of a table column in the workbook: money (``*_usd``) with cents, quantities
    (integer columns and ``qty``) with thousands separators, else none (General)."""
    if name.endswith(USD_SUFFIX):
        return USD_FORMAT
    if (
        name in COUNT_COLUMNS
        or pd.api.types.is_integer_dtype(col.dtype)
        and not pd.api.types.is_bool_dtype(col.dtype)
    ):
        return COUNT_FORMAT
    return ""


USD_FORMAT = "#,##0.00"


class _NotPlain(Exception):
    """A value the fast XLSX cell writer leaves to openpyxl."""


def column_letter(j: int) -> str:
    from openpyxl.utils import get_column_letter

    return str(get_column_letter(j + 1))


FILTER_ROWS = "filter_rows"  # DataFrame.attrs key: the rows an autofilter spans (default: all)


def _workbook(sheets: dict[str, pd.DataFrame], stamp: datetime.datetime, title: str) -> Any:
    """A workbook with the properties, one sheet per table holding its bold header row, the frozen
    header, an autofilter over the table (``df.attrs["filter_rows"]``: over that many rows only) and the
    column widths."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    wb.remove(wb.active)
    props = wb.properties
    props.creator = "dclayout"
    props.lastModifiedBy = "dclayout"
    props.title = title or None
    props.created = stamp
    props.modified = stamp
    bold = Font(bold=True)
    for name, df in sheets.items():
        ws = wb.create_sheet(title=name[:31])
        cols = [str(c) for c in df.columns]
        ws.append(cols)
        for cell in ws[1]:
            cell.font = bold
        ws.freeze_panes = "A2"
        if cols:  # on the header and the rows the table names (a total row below stays out of it)
            ws.auto_filter.ref = (
                f"A1:{column_letter(len(cols) - 1)}{int(df.attrs.get(FILTER_ROWS, len(df))) + 1}"
            )
        for j, col in enumerate(cols):
            longest = max([len(col), *(len(_shown(v)) for v in df.iloc[:, j].head(2000).tolist())])
            ws.column_dimensions[column_letter(j)].width = min(longest + 2, MAX_COLUMN_WIDTH)
    return wb


def _zip_workbook(wb: Any) -> bytes:
    from openpyxl.writer.excel import ExcelWriter

    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        ExcelWriter(wb, archive).write_data()  # not wb.save(): that stamps the clock into docProps
    return raw.getvalue()


def _xlsx_fast(sheets: dict[str, pd.DataFrame], stamp: datetime.datetime, title: str) -> bytes:
    """openpyxl's workbook with each sheet's cells spliced in (see xlsx_bytes)."""
    wb = _workbook(sheets, stamp, title)
    splice: dict[str, Callable[[bytes], bytes]] = {}
    for i, ((_, df), ws) in enumerate(zip(sheets.items(), wb.worksheets, strict=True), start=1):
        if df.shape[1] == 0:
            raise _NotPlain("a table without columns")
        bold_id = ws.cell(row=1, column=1).style_id
        styles, quoted = _register_styles(ws, df)
        rows = _sheet_rows(df, bold_id, styles, quoted)
        dim = f"A1:{column_letter(df.shape[1] - 1)}{len(df) + 1}"
        splice[f"xl/worksheets/sheet{i}.xml"] = functools.partial(_splice, rows=rows, dim=dim)
    data = _zip_workbook(wb)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        if not set(splice) <= set(z.namelist()):  # not the layout openpyxl is known to write
            raise _NotPlain("sheet files")
    return _restamp_zip(data, stamp, splice)


def _register_styles(ws: Any, df: pd.DataFrame) -> tuple[list[int], list[int]]:
    """The style id of each column's cells (its number format) and of its formula-like text cells (that
    format with the quote prefix; 0 for a column without any), registered with the workbook in the order
    openpyxl's writer meets them (row by row, left to right), so the ids are the ones it gives."""
    from openpyxl.cell import Cell

    formats = [number_format(str(c), df.iloc[:, j]) for j, c in enumerate(df.columns)]
    hits = [formula_like_rows(df.iloc[:, j]) for j in range(df.shape[1])]
    firsts: list[tuple[int, int, bool]] = []  # (row, column, quoted) where a style first appears
    for j, (fmt, hit) in enumerate(zip(formats, hits, strict=True)):
        if hit is None:
            if fmt and len(df):
                firsts.append((0, j, False))
            continue
        firsts.append((int(np.argmax(hit)), j, True))
        if fmt and not hit.all():
            firsts.append((int(np.argmin(hit)), j, False))
    styles, quoted = [0] * df.shape[1], [0] * df.shape[1]
    for _, j, quote in sorted(firsts):
        cell = Cell(ws)  # a cell of no row: it only registers its style
        if formats[j]:
            cell.number_format = formats[j]
        cell.quotePrefix = quote
        (quoted if quote else styles)[j] = cell.style_id
    return styles, quoted


def _splice(body: bytes, rows: str, dim: str) -> bytes:
    """A sheet's XML from openpyxl with ``rows`` as its sheetData and ``dim`` as its dimension."""
    head, found, rest = body.decode("utf-8").partition("<sheetData>")
    if not found:
        raise _NotPlain("sheetData")
    _, _, tail = rest.partition("</sheetData>")
    head = re.sub(r'<dimension ref="[^"]*" />', f'<dimension ref="{dim}" />', head, count=1)
    return f"{head}<sheetData>{rows}</sheetData>{tail}".encode()


ZIP_YEARS = (1980, 2107)  # what a zip entry's date can hold (MS-DOS dates)


def _zip_date(stamp: datetime.datetime) -> tuple[int, int, int, int, int, int]:
    """The zip entries' date of a site dated ``stamp``: the date itself, or the nearest a zip holds
    (1980-01-01 or 2107-12-31) for a date outside them; the workbook's properties keep the true date."""
    if stamp.year < ZIP_YEARS[0]:
        return (ZIP_YEARS[0], 1, 1, 0, 0, 0)
    if stamp.year > ZIP_YEARS[1]:
        return (ZIP_YEARS[1], 12, 31, 0, 0, 0)
    return (stamp.year, stamp.month, stamp.day, 0, 0, 0)


def _restamp_zip(
    data: bytes, stamp: datetime.datetime, splice: dict[str, Callable[[bytes], bytes]] | None = None
) -> bytes:
    """The same zip with every entry dated ``stamp`` (zip entries carry the clock otherwise), and the
    entries named in ``splice`` rewritten by their function."""
    out = io.BytesIO()
    when = _zip_date(stamp)
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=when)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            body = src.read(info.filename)
            if splice and info.filename in splice:
                body = splice[info.filename](body)
            dst.writestr(entry, body)
    return out.getvalue()


_ILLEGAL = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")  # openpyxl's ILLEGAL_CHARACTERS_RE
# text openpyxl writes as it is: no markup to escape, no control character, no space at either end, not a
# formula ("=...") or an error code ("#...")
_PLAIN = re.compile(r"[^\s=#&<>\000-\037](?:[^&<>\000-\037]*[^\s&<>\000-\037])?\Z")


def _sheet_rows(df: pd.DataFrame, bold_id: int, styles: list[int], quoted: list[int]) -> str:
    """The ``<row>`` elements of a sheet: the header in bold, then one row per table row, each cell as
    openpyxl writes it."""
    letters = [column_letter(j) for j in range(df.shape[1])]
    head = "".join(_xml_cell(f"{c}1", str(v), bold_id) for c, v in zip(letters, df.columns, strict=True))
    parts = [f'<row r="1">{head}</row>']
    columns = [_column_cells(df.iloc[:, j], letters[j], styles[j], quoted[j]) for j in range(df.shape[1])]
    for r, cells in enumerate(zip(*columns, strict=True), start=2):
        parts.append(f'<row r="{r}">{"".join(cells)}</row>')
    return "".join(parts)


def _column_cells(col: pd.Series, letter: str, style: int, quoted: int = 0) -> list[str]:
    """The ``<c>`` elements of one column from row 2 on; numpy number and bool columns without a type
    test per value; ``quoted``: the style of its formula-like text cells (0: it has none)."""
    values = col.tolist()
    rows = range(2, len(values) + 2)
    s = f' s="{style}"' if style else ""
    kind = col.dtype.kind if isinstance(col.dtype, np.dtype) else ""
    if kind in ("i", "u"):
        return [f'<c r="{letter}{r}"{s} t="n"><v>{v:.16g}</v></c>' for r, v in zip(rows, values, strict=True)]
    if kind == "f":
        return [
            f'<c r="{letter}{r}"{s} t="n"><v>{v:.16g}</v></c>'
            if math.isfinite(v)
            else (f'<c r="{letter}{r}"{s} t="n" />' if style else "")
            for r, v in zip(rows, values, strict=True)
        ]
    if kind == "b":
        return [f'<c r="{letter}{r}"{s} t="b"><v>{int(v)}</v></c>' for r, v in zip(rows, values, strict=True)]
    if quoted:
        return [
            _xml_cell(f"{letter}{r}", v, quoted if isinstance(v, str) and is_formula_like(v) else style)
            for r, v in zip(rows, values, strict=True)
        ]
    return [
        f'<c r="{letter}{r}"{s} t="inlineStr"><is><t>{v}</t></is></c>'
        if type(v) is str and len(v) <= 32767 and _PLAIN.match(v)
        else _xml_cell(f"{letter}{r}", v, style)
        for r, v in zip(rows, values, strict=True)
    ]


def _xml_cell(ref: str, v: Any, style: int) -> str:
    """One ``<c>`` element exactly as openpyxl's etree writer serialises it ("" when it writes none); a
    :class:`Formula` with its cached value, as xlsx_bytes_openpyxl writes it."""
    s = f' s="{style}"' if style else ""
    if isinstance(v, Formula):
        text = v.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return f'<c r="{ref}"{s}><f>{text}</f><v>{v.cached}</v></c>'
    v = _cell(v)
    if v is None:
        return f'<c r="{ref}"{s} t="n" />' if style else ""
    t = type(v)
    if t is bool:
        return f'<c r="{ref}"{s} t="b"><v>{int(v)}</v></c>'
    if t is int or t is float:
        return f'<c r="{ref}"{s} t="n"><v>{v:.16g}</v></c>'
    if t is not str or len(v) > 32767 or _ILLEGAL.search(v):
        raise _NotPlain(repr(v)[:40])
    # text, always: "=..." (a formula to openpyxl, live in a spreadsheet: formula injection) and "#N/A"
    # (an error code) are written as the text they are, as "+...", "-..." and "@..." are
    if v == "":
        return f'<c r="{ref}"{s} t="inlineStr" />'
    stripped = v.strip()
    space = ' xml:space="preserve"' if stripped and stripped != v else ""
    text = v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<c r="{ref}"{s} t="inlineStr"><is><t{space}>{text}</t></is></c>'


def _cell(v: Any) -> Any:
    t = type(v)
    if t is str or t is int or t is bool:
        return v
    if t is float:
        return v if math.isfinite(v) else None
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is pd.NA or v is pd.NaT:
        return None
    return v


def _shown(v: Any) -> str:
    if isinstance(v, Formula):
        return v.cached
    v = _cell(v)
    return "" if v is None else str(v)


def write_xlsx(sheets: dict[str, pd.DataFrame], path: str | Path, date: str, title: str = "") -> Path:
    return write_bytes(path, xlsx_bytes(sheets, date, title))
