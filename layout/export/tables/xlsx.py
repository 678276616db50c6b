"""XLSX: ``write_xlsx(sheets, path, date)``, one sheet per DataFrame, bold frozen header, an autofilter,
column widths from the content, USD columns formatted ``#,##0.00`` and quantities ``#,##0``.

Same input, same bytes: the workbook's created and modified dates are the site's date (not the clock)
and so are the timestamps of the zip entries (the nearest a zip can hold for a date outside 1980-2107).
openpyxl writes the package around the cells; the cells are written here as strings, not through an
element tree per cell, by one writer that takes any value:

- numbers (int, float, numpy's, Decimal) as numbers, booleans as booleans; NaN, infinity, None, NA and
  NaT as an empty cell; a :class:`Formula` (the exporter's own, e.g. the BOM's subtotals) as a live
  formula with its value cached;
- every other value as a text cell: a string as it is, a date or timestamp as its ISO text, anything
  else as ``str``. Text starting with ``=``, ``+``, ``-`` or ``@`` is never a live formula (formula
  injection), ``#N/A`` never an error; a formula-like one also carries the quote prefix style (Excel's
  stored form of a typed ``'``), so that editing the cell keeps it text. Characters XML 1.0 cannot hold
  (control characters, lone surrogates) and the carriage return are written as OOXML's ``_xHHHH_``
  escape, as Excel writes them, and an ``_x`` that would read as one is escaped itself (``_x005F_``);
  text longer than an Excel cell holds (32,767 characters) is cut, with a visible mark at its end;
- a table without columns as a sheet without cells.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import functools
import io
import math
import numbers
import re
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from layout.export.atomic import Settler, write_bytes
from layout.export.tables.csv import formula_like_rows

USD_SUFFIX = "_usd"
MAX_COLUMN_WIDTH = 60


def _site_datetime(date: str) -> datetime.datetime:
    return datetime.datetime.combine(datetime.date.fromisoformat(date), datetime.time())


def xlsx_bytes(sheets: dict[str, pd.DataFrame], date: str, title: str = "") -> bytes:
    """The workbook of ``sheets`` (name -> table) as bytes; ``date`` (YYYY-MM-DD) stamps it.

    openpyxl writes the workbook around the cells (properties, styles, widths, frozen header,
    autofilter); the cells themselves are written here, a string per cell instead of an element tree
    per cell (seconds on a campus's Racks sheet), each value as the cell writer below makes it."""
    stamp = _site_datetime(date)
    wb = _workbook(sheets, stamp, title)
    splice: dict[str, Callable[[bytes], bytes]] = {}
    for i, ((_, df), ws) in enumerate(zip(sheets.items(), wb.worksheets, strict=True), start=1):
        if df.shape[1] == 0:  # no column, no header: a sheet with no cell
            rows, dim = "", "A1"
        else:
            bold_id = ws.cell(row=1, column=1).style_id
            styles, quoted, hits = _register_styles(ws, df)
            bold = _bold_styles(ws, df) if df.attrs.get(BOLD_ROWS) else []
            rows = _sheet_rows(df, bold_id, styles, quoted, hits, bold)
            dim = f"A1:{column_letter(df.shape[1] - 1)}{len(df) + 1}"
        splice[f"xl/worksheets/sheet{i}.xml"] = functools.partial(_splice, rows=rows, dim=dim)
    data = _zip_workbook(wb)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        missing = sorted(set(splice) - set(z.namelist()))
    if missing:  # not the package layout openpyxl is known to write
        raise RuntimeError(f"openpyxl wrote no {', '.join(missing)}")
    return _restamp_zip(data, stamp, splice)


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


def column_letter(j: int) -> str:
    from openpyxl.utils import get_column_letter

    return str(get_column_letter(j + 1))


FILTER_ROWS = "filter_rows"  # DataFrame.attrs key: the rows an autofilter spans (default: all)
BOLD_ROWS = "bold_rows"  # DataFrame.attrs key: table rows (0-based) written in bold (totals)
HEADERS = "headers"  # DataFrame.attrs key: column -> the header written for it (default: its name)


def _workbook(sheets: dict[str, pd.DataFrame], stamp: datetime.datetime, title: str) -> Any:
    """A workbook with the properties, one sheet per table holding its bold header row (cells without a
    value: the cells are spliced in later), the frozen header, an autofilter over the table
    (``df.attrs["filter_rows"]``: over that many rows only) and the column widths."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    wb.remove(wb.active)
    props = wb.properties
    props.creator = "dclayout"
    props.lastModifiedBy = "dclayout"
    props.title = _XML_BAD.sub("", title) or None  # no _xHHHH_ escape in the document properties
    props.created = stamp
    props.modified = stamp
    bold = Font(bold=True)
    for name, df in sheets.items():
        ws = wb.create_sheet(title=_XML_BAD.sub("", name)[:31])
        cols = [str(c) for c in df.columns]
        ws.append([None] * len(cols))
        for cell in ws[1]:
            cell.font = bold
        ws.freeze_panes = "A2"
        if cols:  # on the header and the rows the table names (a total row below stays out of it)
            ws.auto_filter.ref = (
                f"A1:{column_letter(len(cols) - 1)}{int(df.attrs.get(FILTER_ROWS, len(df))) + 1}"
            )
        heads = df.attrs.get(HEADERS, {})
        for j, col in enumerate(cols):
            head = str(heads.get(col, col))
            longest = max(len(head), _widest(df.iloc[:, j].head(2000)))
            ws.column_dimensions[column_letter(j)].width = min(longest + 2, MAX_COLUMN_WIDTH)
        _print_setup(ws, title, len(cols), len(df))
    return wb


def _widest(col: pd.Series) -> int:
    """The longest text of ``col``'s cells as shown (:func:`_shown`), each distinct value once."""
    distinct = _distinct(col)
    values = col.tolist() if distinct is None else distinct[1]
    return max((len(_shown(v)) for v in values), default=0)


def _print_setup(ws: Any, title: str, n_cols: int, n_rows: int) -> None:
    """Ready to print: A4 landscape, one page wide, the header row on every page, the table as the
    print area, the workbook's title and the sheet's name in the page header, page numbers below."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    if n_cols:
        ws.print_title_rows = "1:1"
        ws.print_area = f"A1:{column_letter(n_cols - 1)}{n_rows + 1}"
    name = _XML_BAD.sub("", title).replace("&", "&&")
    ws.oddHeader.center.text = f"{name} - &A" if name else "&A"
    ws.oddFooter.center.text = "Page &P of &N"


def _zip_workbook(wb: Any) -> bytes:
    from openpyxl.writer.excel import ExcelWriter

    raw = io.BytesIO()
    # stored, not deflated: the entries are read back and deflated once, dated, by the next step
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        ExcelWriter(wb, archive).write_data()  # not wb.save(): that stamps the clock into docProps
    return raw.getvalue()


def _register_styles(ws: Any, df: pd.DataFrame) -> tuple[list[int], list[int], list[np.ndarray | None]]:
    """The style id of each column's cells (its number format), of its formula-like text cells (that
    format with the quote prefix; 0 for a column without any) and which of its cells are formula-like
    (None: none), registered with the workbook row by row, left to right (the order the ids of the
    workbooks written so far come from: the same table, the same bytes)."""
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
    return styles, quoted, hits


def _splice(body: bytes, rows: str, dim: str) -> bytes:
    """A sheet's XML from openpyxl with ``rows`` as its sheetData and ``dim`` as its dimension."""
    head, found, rest = body.decode("utf-8").partition("<sheetData>")
    _, closed, tail = rest.partition("</sheetData>")
    if not found or not closed:
        raise RuntimeError("openpyxl wrote a sheet without <sheetData>...</sheetData>")
    head = re.sub(r'<dimension ref="[^"]*" />', f'<dimension ref="{dim}" />', head, count=1)
    return f"{head}<sheetData>{rows}</sheetData>{tail}".encode()


XLSX_DEFLATE_LEVEL = 3
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
    # deflate level 3: the campus's workbook 1.11 MB in 0.06 s, against 0.97 MB in 0.14 s at zlib's default
    with (
        zipfile.ZipFile(io.BytesIO(data)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=when)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            body = src.read(info.filename)
            if splice and info.filename in splice:
                body = splice[info.filename](body)
            dst.writestr(entry, body, compresslevel=XLSX_DEFLATE_LEVEL)
    return out.getvalue()


# ------------------------------------------------------------------------------------------ the cells
# What XML 1.0 cannot hold (C0 controls but tab and newline, surrogates, U+FFFE, U+FFFF) and the carriage
# return (XML holds it, but a reader turns it into a newline): written as OOXML's escape _xHHHH_ (HHHH the
# UTF-16 code unit in hex, ST_Xstring), as Excel writes them. An underscore that would start such an
# escape in the file (_x, four hex digits, then _ or an escaped character) is escaped itself, _x005F_,
# so that the text "_x0041_" reads back as that text and not as "A".
_NOT_XML = "\\ud800-\\udfff\\ufffe\\uffff"  # surrogates, U+FFFE, U+FFFF: as regex ranges
_BAD = f"\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\r{_NOT_XML}"
_XML_BAD = re.compile(f"[{_BAD}]")
_ESCAPED = re.compile(f"[{_BAD}]|_(?=x[0-9A-Fa-f]{{4}}(?:_|[{_BAD}]))")

XLSX_MAX_TEXT = 32_767  # characters an Excel cell holds (UTF-16 code units)


def truncated_mark(n: int) -> str:
    """What ends a text cut to XLSX_MAX_TEXT: the cut is visible, and how long the text was."""
    return f" …[cut: {n:,} characters, more than the {XLSX_MAX_TEXT:,} an Excel cell holds]"


def _fit(text: str) -> str:
    """``text``, or its start and :func:`truncated_mark` when it is longer than an Excel cell holds."""
    if len(text) <= XLSX_MAX_TEXT // 2:  # fits even if every character took two UTF-16 units
        return text
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * XLSX_MAX_TEXT:
        return text
    mark = truncated_mark(len(text))
    keep = units[: 2 * (XLSX_MAX_TEXT - len(mark.encode("utf-16-le")) // 2)]
    if 0xD800 <= int.from_bytes(keep[-2:], "little") <= 0xDBFF:  # half a surrogate pair: not cut in two
        keep = keep[:-2]
    return keep.decode("utf-16-le", "surrogatepass") + mark


def _escape(m: re.Match[str]) -> str:
    return f"_x{ord(m.group()):04X}_"


def _text_tail(s: str, text: str) -> str:
    """A text cell after its reference: ``text`` cut to what a cell holds, escaped (see _BAD), markup as
    entities."""
    text = _ESCAPED.sub(_escape, _fit(text))
    if text == "":
        return f'"{s} t="inlineStr" />'
    stripped = text.strip()
    space = ' xml:space="preserve"' if stripped and stripped != text else ""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'"{s} t="inlineStr"><is><t{space}>{text}</t></is></c>'


def _bold_styles(ws: Any, df: pd.DataFrame) -> list[int]:
    """Per column, the style of its cells in bold (with the column's number format)."""
    from openpyxl.cell import Cell
    from openpyxl.styles import Font

    out = []
    for j, c in enumerate(df.columns):
        cell = Cell(ws)
        cell.font = Font(bold=True)
        fmt = number_format(str(c), df.iloc[:, j])
        if fmt:
            cell.number_format = fmt
        out.append(cell.style_id)
    return out


def _sheet_rows(
    df: pd.DataFrame,
    bold_id: int,
    styles: list[int],
    quoted: list[int],
    hits: list[np.ndarray | None],
    bold: list[int] | None = None,
) -> str:
    """The ``<row>`` elements of a sheet: the header in bold (its words: ``attrs["headers"]``), then one
    row per table row; the rows ``attrs["bold_rows"]`` names in ``bold`` (per column, a bold style).

    Each column's cells are worked out once per distinct value (:func:`_column_tails`) and joined into
    rows by pyarrow, not a Python string per cell."""
    import pyarrow as pa
    import pyarrow.compute as pc

    letters = [column_letter(j) for j in range(df.shape[1])]
    heads = df.attrs.get(HEADERS, {})
    head = "".join(
        _xml_cell(f"{c}1", str(heads.get(v, v)), bold_id) for c, v in zip(letters, df.columns, strict=True)
    )
    if not len(df):
        return f'<row r="1">{head}</row>'
    tails = [_column_tails(df.iloc[:, j], styles[j], quoted[j], hits[j]) for j in range(df.shape[1])]
    bold_rows = df.attrs.get(BOLD_ROWS, []) if bold is not None else []
    if bold_rows:
        for j, style in enumerate(bold or []):
            column = tails[j].to_pylist()
            for r in bold_rows:
                column[r] = _cell_tail(df.iat[r, j], style)
            tails[j] = pa.array(column, pa.string())
    rows = pa.array(np.arange(2, len(df) + 2)).cast(pa.string())
    cells = [
        pc.fill_null(pc.binary_join_element_wise(f'<c r="{letter}', rows, tail, ""), "")
        for letter, tail in zip(letters, tails, strict=True)
    ]
    body = pc.binary_join_element_wise('<row r="', rows, '">', *cells, "</row>", "")
    return f'<row r="1">{head}</row>' + "".join(body.to_pylist())


def _column_tails(col: pd.Series, style: int, quoted: int = 0, hit: np.ndarray | None = None) -> Any:
    """Each cell of one column from row 2 on as the text after its reference (``<c r="A7`` then this),
    null for no cell, as a pyarrow string array: one :func:`_cell_tail` per distinct value (a numpy
    number or bool column, text) taken for every row, else one per row. ``quoted``: the style of the
    cells ``hit`` marks, its formula-like text cells (0, None: it has none)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    styled = quoted and hit is not None
    distinct = _distinct(col)
    if distinct is None:
        marks = hit.tolist() if styled and hit is not None else [False] * len(col)
        return pa.array(
            [_cell_tail(v, quoted if h else style) for v, h in zip(col.tolist(), marks, strict=True)],
            pa.string(),
        )
    codes, values = distinct
    values = [*values, None]  # the last: a missing value
    idx = np.where(codes >= 0, codes, len(values) - 1)
    tails = [_cell_tail(v, style) for v in values]
    if styled and hit is not None:
        tails += [_cell_tail(v, quoted) for v in values]
        idx = idx + np.asarray(hit, bool) * len(values)
    return pc.take(pa.array(tails, pa.string()), pa.array(idx))


def _distinct(col: pd.Series) -> tuple[np.ndarray, list[Any]] | None:
    """Each value's code into the column's distinct values (-1: missing) and those values, for a column
    of one kind of value: numbers or bools of a numpy dtype (floats by their bits: -0.0 is not 0.0),
    text (plain, arrow-backed or categorical). None for any other column: an object column mixing kinds
    (1, 1.0 and True are one key but three cells), dates, formulas."""
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        if pd.api.types.infer_dtype(cats, skipna=True) != "string":
            return None
        return col.cat.codes.to_numpy(np.int64), cats.tolist()
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        codes, uniques = pd.factorize(col.to_numpy())
        return codes, uniques.tolist()
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        x = np.ascontiguousarray(col.to_numpy(), np.float64)
        codes, bits = pd.factorize(x.view(np.int64))
        return codes, bits.view(np.float64).tolist()
    # a string dtype holds text (or missing) by its type: infer_dtype would look at every value
    if isinstance(dtype, pd.StringDtype) or pd.api.types.infer_dtype(col, skipna=True) in ("string", "empty"):
        text_codes, words = pd.factorize(col)
        return np.asarray(text_codes), words.tolist()
    return None


def _xml_cell(ref: str, v: Any, style: int) -> str:
    """One ``<c>`` element of any value ("" for an empty cell without a style): see :func:`_cell_tail`."""
    tail = _cell_tail(v, style)
    return "" if tail is None else f'<c r="{ref}{tail}'


def _cell_tail(v: Any, style: int) -> str | None:
    """The ``<c>`` element of any value after its reference (None: no cell, an empty cell without a
    style): a :class:`Formula` with its cached value, a number, a boolean, or text (see :func:`_value`).
    Text is always a text cell: "=..." (live in a spreadsheet: formula injection) and "#N/A" (an error
    code) are written as the text they are, as "+...", "-..." and "@..." are."""
    s = f' s="{style}"' if style else ""
    if isinstance(v, Formula):
        text = v.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return f'"{s}><f>{text}</f><v>{v.cached}</v></c>'
    v = _value(v)
    if v is None:
        return f'"{s} t="n" />' if style else None
    t = type(v)
    if t is bool:
        return f'"{s} t="b"><v>{int(v)}</v></c>'
    if t is int or t is float:
        return f'"{s} t="n"><v>{v:.16g}</v></c>'
    return _text_tail(s, v)


_LARGEST = int(sys.float_info.max)  # the largest integer a number cell (a float) holds


def _value(v: Any) -> None | bool | int | float | str:
    """What the cell of ``v`` holds: None (empty: None, NA, NaT, NaN, infinity), a bool, a number (int,
    float and any other real number, numpy's as Python's), or text: a string as it is, a date, time or
    timestamp as its ISO text, anything else as ``str``."""
    t = type(v)
    if t is str or t is bool:
        return v
    if t is int:  # an integer beyond any float: its digits
        return v if -_LARGEST <= v <= _LARGEST else str(v)
    if t is float:
        return v if math.isfinite(v) else None
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.datetime64 | np.timedelta64):  # .item() of a nanosecond one is an int
        v = pd.Timestamp(v) if isinstance(v, np.datetime64) else pd.Timedelta(v)
        return None if v is pd.NaT else v.isoformat()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, str):
        return str(v)
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        return _value(int(v))
    if isinstance(v, numbers.Real | decimal.Decimal):
        try:
            x = float(v)
        except OverflowError:  # a Decimal or Fraction beyond any float: its text
            return str(v)
        return x if math.isfinite(x) else None
    isoformat = getattr(v, "isoformat", None)
    if callable(isoformat):
        return str(isoformat())
    return str(v)


def _shown(v: Any) -> str:
    """The text of ``v`` as wide as the cell shows it (for the column widths)."""
    if isinstance(v, Formula):
        return v.cached
    v = _value(v)
    return "" if v is None else str(v)


def write_xlsx(
    sheets: dict[str, pd.DataFrame],
    path: str | Path,
    date: str,
    title: str = "",
    settler: Settler | None = None,
) -> Path:
    """The workbook written atomically (its flush and rename in ``settler``'s thread, if given)."""
    data = xlsx_bytes(sheets, date, title)
    return write_bytes(path, data) if settler is None else settler.write_bytes(path, data)
