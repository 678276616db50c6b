"""Table exports: CSV, Parquet, XLSX and JSON, written atomically and byte-stable.

- ``write_csv(df, path)``: UTF-8, ``\\n`` line ends, no index, NaN as an empty cell: the bytes pandas'
  ``to_csv`` writes, through pyarrow's columnar CSV writer (the 300,000-row links table of a campus in a
  fraction of a second instead of seconds). A text cell a spreadsheet would run as a formula (it starts
  with ``=``, ``+``, ``-``, ``@``, a tab or a CR and is not a plain number) gets a ``'`` before it (OWASP's
  defence against CSV injection); number columns are written as they are.
- ``write_parquet(df, path)``: the same table as Parquet (zstd), for pandas, polars, DuckDB, Spark.
- ``write_json(obj, path)``: sorted keys, two-space indent, NaN/inf as ``null``.
- ``write_xlsx(sheets, path, date)``: one sheet per DataFrame, bold frozen header, column widths from
  the content, USD columns formatted ``#,##0.00``. Same input, same bytes: the workbook's created and
  modified dates are the site's date (not the clock) and so are the timestamps of the zip entries (the
  nearest a zip can hold for a date outside 1980-2107). The bytes are openpyxl's; the cells are written
  as strings, not through an element tree per cell. Every text value is a text cell: one starting with
  ``=``, ``+``, ``-`` or ``@`` is never a live formula (formula injection), ``#N/A`` never an error; a
  formula-like one also carries the quote prefix style (Excel's stored form of a typed ``'``), so that
  editing the cell keeps it text.
- ``links_table(fabric, placement, cabling)``: one row per link with device and rack ids (for CSV);
  ``links_summary(links)``: links and metres per network, kind and medium (for the XLSX);
  ``summary_rows(summary)``: ``summary.json`` flattened to (key, value) rows;
  ``ports_table(fabric, placement, cabling, site_code)``: one row per link with both ends' device,
  rack, RU, port, cage and module and a TIA-606-style ``cable_id`` (``STEM-ports.csv``).
- ``write_fabric_csv(fabric, out_dir)``: ``fabric-devices.csv`` (one row per device: server, switch;
  tier 0 servers, 1 leaf, 2 spine, 3 core, 4 super) and ``fabric-links.csv`` (one row per link, its
  two ends by device id) of `dclayout fabric --csv DIR`, for checking the fabric with other tools.
- ``write_design_tables(out_dir, stem, ...)``: ``{stem}-bom.csv``, ``{stem}-links.csv``,
  ``{stem}-ports.csv``, their Parquet twins and ``{stem}.xlsx`` (sheets BOM, Racks, Links summary,
  Ports, Summary) of one design.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import io
import json
import math
import os
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout import figures
from layout.export.atomic import atomic_path, write_bytes

if TYPE_CHECKING:
    from layout.design import Design
    from layout.fabric import Fabric
    from layout.media import Cabling
    from layout.place import Placement

USD_SUFFIX = "_usd"
MAX_COLUMN_WIDTH = 60


def csv_bytes(df: pd.DataFrame | Any) -> bytes:
    """``df`` as CSV, byte for byte what ``df.to_csv(index=False, lineterminator="\\n")`` writes, through
    pyarrow's columnar CSV writer (pandas' writer formats row by row: seconds for the links table).
    ``df`` may also be a pyarrow Table (:func:`ports_arrow`): the bytes of its pandas twin.

    Each column becomes the text pandas would write (floats as Python's repr, NaN as an empty cell,
    bools as True/False); pyarrow then joins them unquoted. pandas quotes a value only when it holds a
    comma, a quote or a line break; a table with such a value (or a one-column table, where pandas
    quotes an empty value) is written by pandas' own writer, so the bytes never depend on the path."""
    buf = io.BytesIO()
    _csv_into(df, buf)
    return buf.getvalue()


CSV_BATCH_ROWS = 65_536  # rows pyarrow formats at a time: the file is streamed, not built in memory first


def _csv_into(df: pd.DataFrame | Any, f: Any) -> None:
    """Write csv_bytes(df) into the binary file ``f`` (at its start), streamed a batch of rows at a time;
    a table that needs pandas' writer (a value to quote, found on the way) is written again by it."""
    if isinstance(df, pd.DataFrame):
        header, texts = [str(c) for c in df.columns], _csv_texts(df)
    else:
        header, texts = [str(c) for c in df.column_names], _arrow_texts(df)
    if texts is not None and _joined_csv(header, texts, f):
        return
    f.seek(0)
    f.truncate()
    f.write(_pandas_csv(df if isinstance(df, pd.DataFrame) else decoded(df).to_pandas()))


def _joined_csv(header: list[str], texts: list[Any], f: Any) -> bool:
    """Write the header line and the text columns joined unquoted by pyarrow into ``f``; False when a
    value needs quotes (``f`` then holds part of it)."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    f.write((",".join(header) + "\n").encode("utf-8"))
    table = pa.table(texts, names=[f"c{i}" for i in range(len(texts))])
    try:
        pa_csv.write_csv(
            table,
            f,
            pa_csv.WriteOptions(include_header=False, quoting_style="none", batch_size=CSV_BATCH_ROWS),
        )
    except pa.ArrowInvalid:  # a value needs quoting
        return False
    return True


def _arrow_texts(table: Any) -> list[Any] | None:
    """Every column of a pyarrow Table as the text pandas writes for it, or None (see _csv_texts): text
    and dictionary-of-text columns as they are, integers in decimal, floats as Python's repr."""
    import pyarrow as pa

    if table.num_columns < 2 or any(ch in str(c) for c in table.column_names for ch in _NEEDS_QUOTES):
        return None
    texts = []
    for col in table.columns:
        t = col.type
        if pa.types.is_dictionary(t) and pa.types.is_string(t.value_type) or pa.types.is_string(t):
            texts.append(defused_text(col))
        elif pa.types.is_integer(t):
            texts.append(col.cast(pa.string()))
        elif pa.types.is_float64(t):
            texts.append(float_text(col.to_numpy()))
        else:
            return None
    return texts


def _pandas_csv(df: pd.DataFrame) -> bytes:
    return defused_frame(df).to_csv(index=False, lineterminator="\n").encode("utf-8")


# Formula injection (OWASP, "CSV injection"): a spreadsheet opening a CSV runs a cell that starts with one of
# these as a formula. Such a text cell is written with a ' before it, which the spreadsheet shows as text;
# text that is a plain number ("-5", "+1.5e3") is no formula and stays as it is, and so do number columns.
FORMULA_START = "=+-@\t\r"
_FORMULA_START_RE = "^[=+\\-@\t\r]"
_NUMBER_RE = "^[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"
_NUMBER = re.compile(_NUMBER_RE)


def is_formula_like(text: str) -> bool:
    """Whether a spreadsheet would read the text cell ``text`` as a formula (see FORMULA_START)."""
    return text[:1] in FORMULA_START and text != "" and not _NUMBER.match(text)


def defused(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet runs: with a ' before it when it is formula-like."""
    return "'" + text if is_formula_like(text) else text


def defused_text(col: Any) -> Any:
    """A pyarrow text column (plain or dictionary-encoded, an Array or a ChunkedArray) with each
    formula-like value :func:`defused`; the column itself when it holds none (the usual case: one pass)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(col, pa.ChunkedArray):
        if col.num_chunks == 0:
            return col
        chunks = [defused_text(c) for c in col.chunks]
        if all(a is b for a, b in zip(chunks, col.chunks, strict=True)):
            return col
        return pa.chunked_array(chunks, type=col.type)
    if pa.types.is_dictionary(col.type):
        words = defused_text(col.dictionary)
        return col if words is col.dictionary else pa.DictionaryArray.from_arrays(col.indices, words)
    hit = pc.match_substring_regex(col, _FORMULA_START_RE)
    if not pc.any(hit).as_py():
        return col
    hit = pc.and_not(hit, pc.match_substring_regex(col, _NUMBER_RE))
    if not pc.any(hit).as_py():
        return col
    return pc.if_else(hit, pc.binary_join_element_wise("'", col, ""), col)


def formula_like_rows(col: pd.Series) -> np.ndarray | None:
    """Which values of the column ``col`` are formula-like text, as a bool array; None when none is (and
    for every number column)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        cats = formula_like_rows(pd.Series(col.cat.categories, dtype=object))
        if cats is None:
            return None
        codes = col.cat.codes.to_numpy()
        hit = np.where(codes >= 0, cats[np.maximum(codes, 0)], False)
        return hit if hit.any() else None
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "biufcmM":
        return None
    values = col.tolist()
    hit = np.fromiter((type(v) is str and is_formula_like(v) for v in values), bool, len(values))
    return hit if hit.any() else None


def defused_frame(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every formula-like text value :func:`defused` (``df`` itself when none is)."""
    out = None
    for j in range(df.shape[1]):
        col = df.iloc[:, j]
        if formula_like_rows(col) is None:
            continue
        if isinstance(col.dtype, pd.CategoricalDtype):
            new = col.cat.rename_categories(
                [defused(c) if isinstance(c, str) else c for c in col.cat.categories]
            )
        else:
            new = col.map(lambda v: defused(v) if isinstance(v, str) else v)
        if out is None:
            out = df.copy()
        out.isetitem(j, new.array)
    return df if out is None else out


_NEEDS_QUOTES = (",", '"', "\n", "\r")


def _csv_texts(df: pd.DataFrame) -> list[Any] | None:
    """Every column of ``df`` as a pyarrow string array of the text pandas writes for it (null: empty
    cell), or None when pandas' writer must do it (see csv_bytes)."""
    if df.shape[1] < 2 or any(ch in str(c) for c in df.columns for ch in _NEEDS_QUOTES):
        return None
    out = []
    for j in range(df.shape[1]):
        text = _column_text(df.iloc[:, j])
        if text is None:
            return None
        out.append(text)
    return out


def _column_text(col: pd.Series) -> Any:
    """The text pandas' CSV writer gives each value of ``col`` as a pyarrow string array, or None for
    a kind of column this does not cover (dates, mixed objects, ...)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        cats = _column_text(pd.Series(dtype.categories))
        if cats is None:
            return None
        codes = col.cat.codes.to_numpy()
        return pc.take(cats, pa.array(codes, mask=codes < 0))
    if pd.api.types.is_bool_dtype(dtype) and dtype == np.bool_:
        return pa.array(np.where(col.to_numpy(), "True", "False"), pa.string())
    if dtype == np.float64:
        return float_text(col.to_numpy())
    if pd.api.types.is_integer_dtype(dtype):  # numpy or nullable: plain decimal, NA empty
        return pa.array(col, from_pandas=True).cast(pa.string())
    if pd.api.types.is_string_dtype(dtype):
        try:
            return defused_text(pa.array(col, from_pandas=True).cast(pa.string()))
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # an object column holding something else
            return None
    return None


def float_text(x: np.ndarray) -> Any:
    """``repr`` of every float64 (what pandas writes: ``1.0``, ``0.1``, ``1e-05``, ``1e+16``, ``-0.0``),
    NaN as null, as a pyarrow string array. Each distinct value (by its bits) is formatted once: the
    lengths in a links table, rounded to the millimetre, take a few thousand values over 300,000 rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    x = np.ascontiguousarray(x, np.float64)
    codes, bits = pd.factorize(x.view(np.int64))
    texts = pa.array([repr(v) for v in bits.view(np.float64).tolist()], pa.string())
    return pc.take(texts, pa.array(codes, mask=np.isnan(x)))


def write_csv(df: pd.DataFrame | Any, path: str | Path) -> Path:
    """csv_bytes(df) written atomically to ``path``, streamed into the file (no copy of it in memory)."""
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        _csv_into(df, f)
        f.flush()
        os.fsync(f.fileno())
    return Path(path)


def parquet_bytes(df: pd.DataFrame | Any) -> bytes:
    """``df`` (a DataFrame, or a pyarrow Table such as :func:`ports_arrow`'s) as a Parquet file (zstd, one
    row group, no index). Deterministic: no pandas metadata (it would tie the bytes to the pandas
    version), text columns as plain UTF-8 strings (dictionaries decoded: the file of the pandas twin)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False) if isinstance(df, pd.DataFrame) else decoded(df)
    fields = [pa.field(f.name, pa.string()) if pa.types.is_large_string(f.type) else f for f in table.schema]
    table = table.cast(pa.schema(fields)).replace_schema_metadata(None)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", row_group_size=max(len(table), 1))
    return bytes(sink.getvalue().to_pybytes())


def write_parquet(df: pd.DataFrame | Any, path: str | Path) -> Path:
    return write_bytes(path, parquet_bytes(df))


FABRIC_DEVICE_COLUMNS = [
    "device_id",
    "role",
    "tier",
    "network",
    "pod",
    "group",
    "model",
    "su",
    "rail",
    "index",
    "ports_used",
    "planes",
]
FABRIC_LINK_COLUMNS = ["a_device", "b_device", "kind", "network", "speed_gbps", "pod"]


def fabric_tables(fabric: Fabric) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fabric's devices and links with the two ends of a link named by device id."""
    dev = fabric.devices[FABRIC_DEVICE_COLUMNS]
    ids = dev["device_id"].to_numpy()
    lk = fabric.links
    links = pd.DataFrame(
        {
            "a_device": ids[lk["a"].to_numpy()],
            "b_device": ids[lk["b"].to_numpy()],
            "kind": lk["kind"].astype(str),
            "network": lk["network"].astype(str),
            "speed_gbps": lk["speed_gbps"],
            "pod": lk["pod"],
        }
    )
    return dev, links


def write_fabric_csv(fabric: Fabric, out_dir: str | Path) -> list[Path]:
    """``fabric-devices.csv`` and ``fabric-links.csv`` in ``out_dir``; each written to a temporary
    file first and both replaced only once both are written (a failure leaves neither)."""
    out = Path(out_dir)
    dev, links = fabric_tables(fabric)
    paths = [out / "fabric-devices.csv", out / "fabric-links.csv"]
    with atomic_path(paths[0]) as tmp_dev, atomic_path(paths[1]) as tmp_links:
        tmp_dev.write_bytes(csv_bytes(dev))
        tmp_links.write_bytes(csv_bytes(links))
    return paths


def _clean(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if obj is pd.NA or (isinstance(obj, float) and not math.isfinite(obj)):
        return None
    return obj


def json_text(obj: Any) -> str:
    return json.dumps(_clean(obj), indent=2, sort_keys=True, allow_nan=False) + "\n"


def write_json(obj: Any, path: str | Path) -> Path:
    return write_bytes(path, json_text(obj).encode("utf-8"))


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
                for cell in ws[_letter(j)][1:]:
                    cell.number_format = fmt
        for j in range(df.shape[1]):  # formula-like text: "quote prefix" style, text even once edited
            hit = formula_like_rows(df.iloc[:, j])
            if hit is not None:
                column = ws[_letter(j)][1:]
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


def _letter(j: int) -> str:
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
            ws.auto_filter.ref = f"A1:{_letter(len(cols) - 1)}{int(df.attrs.get(FILTER_ROWS, len(df))) + 1}"
        for j, col in enumerate(cols):
            longest = max([len(col), *(len(_shown(v)) for v in df.iloc[:, j].head(2000).tolist())])
            ws.column_dimensions[_letter(j)].width = min(longest + 2, MAX_COLUMN_WIDTH)
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
        dim = f"A1:{_letter(df.shape[1] - 1)}{len(df) + 1}"
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
    letters = [_letter(j) for j in range(df.shape[1])]
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


def links_table(fabric: Fabric, placement: Placement, cabling: Cabling) -> pd.DataFrame:
    """One row per link of ``cabling.links`` with device ids and rack ids instead of numbers.

    The text columns are built in pyarrow (ids taken by index, categories by code) and handed to pandas
    as its arrow-backed strings, without a Python object per link."""
    import pyarrow as pa
    import pyarrow.compute as pc

    links = cabling.links
    dev_ids = _arrow_text(fabric.devices["device_id"])
    rack_ids = pa.concat_arrays([_arrow_text(placement.racks["rack_id"]), pa.array([""], pa.string())])

    def device(col: str) -> pd.Series:
        return _str_series(pc.take(dev_ids, links[col].to_numpy(np.int64)))

    def rack(col: str) -> pd.Series:
        r = links[col].to_numpy(np.int64)
        return _str_series(pc.take(rack_ids, np.where(r >= 0, r, len(rack_ids) - 1)))

    def text(col: str) -> pd.Series:
        c = links[col]
        if not isinstance(c.dtype, pd.CategoricalDtype):
            return c.astype(str)
        codes = c.cat.codes.to_numpy()
        names = _arrow_text(pd.Series(c.cat.categories))
        return _str_series(pc.take(names, pa.array(codes, mask=codes < 0)))

    return pd.DataFrame({
        "a_device": device("a"),
        "b_device": device("b"),
        "kind": text("kind"),
        "network": text("network"),
        "speed_gbps": links["speed_gbps"],
        "pod": links["pod"],
        "rack_a": rack("rack_a"),
        "rack_b": rack("rack_b"),
        "route": text("route"),
        "tray_m": links["tray_m"].round(3),
        "length_m": links["length_m"].round(3),
        "media": text("media"),
        "media_class": text("media_class"),
        "stock_length_m": links["stock_length_m"],
        "status": text("status"),
    })  # fmt: skip


def _arrow_text(col: pd.Series) -> Any:
    import pyarrow as pa

    return pa.array(col.astype(str), from_pandas=True).cast(pa.string())


def _str_series(arr: Any) -> pd.Series:
    """A pyarrow string array as a pandas Series of the default ``str`` dtype (no copy)."""
    return pd.Series(pd.array(arr, dtype=pd.StringDtype("pyarrow", na_value=np.nan)))


PORT_COLUMNS = [
    "cable_id", "network", "kind",
    "a_device", "a_model", "a_rack", "a_ru", "a_port", "a_cage", "a_form", "a_module",
    "b_device", "b_model", "b_rack", "b_ru", "b_port", "b_cage", "b_form", "b_module",
    "media", "media_class", "assembly", "length_m", "stock_length_m",
]  # fmt: skip


def ports_table(fabric: Fabric, placement: Placement, cabling: Cabling, site_code: str) -> pd.DataFrame:
    """:func:`ports_arrow` as a pandas DataFrame of plain text, integer and float columns."""
    return decoded(ports_arrow(fabric, placement, cabling, site_code)).to_pandas()


def ports_arrow(fabric: Fabric, placement: Placement, cabling: Cabling, site_code: str) -> Any:
    """One row per link of ``cabling.links`` (same order) with both ends' device, model, rack, RU, port,
    cage, form factor and module (``PORT_COLUMNS``), as a pyarrow Table.

    ``cable_id`` is one TIA-606-style label printed on both ends: ``SITE.`` then the near end and the
    far end, ``/`` between them, each end as building.hall.row.rack, ``-U`` and the device's RU, ``:``
    and the port (``7.2`` = cage 7, port 2), e.g. ``SUPERPOD-4SU.B1.H1.R01.K05-U41:7.2/B1.H1.R01.K01-
    U02:be1.1``. An end whose device is not placed is named by the device id instead of rack and RU.
    ``a_module``: what plugs into the cage, ``mmf/x2`` (a twin-port multimode module), ``dac/breakout``
    (a copper assembly: ``straight``, ``twin`` or ``breakout``), empty without a medium.

    Every text column but ``cable_id`` is dictionary-encoded: its few distinct names (ids, models,
    ports, ...) held once, each row an index into them, decoded only where a file is written (pyarrow's
    CSV writer reads dictionaries as they are). ``cable_id`` is joined in one pass from each end's
    device prefix (worked out per device, not per link) and port name.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from layout.ports import ASSEMBLIES, FORMS, cage_label_codes, port_label_codes

    pm = cabling.ports
    if pm is None:
        raise ValueError("the cabling has no port map")
    links = cabling.links
    dev = fabric.devices

    def names(values: Any) -> Any:
        return pa.array(values, pa.string(), from_pandas=True)

    def coded(idx: np.ndarray, dictionary: Any) -> Any:  # a dictionary array: no string copied per row
        return pa.DictionaryArray.from_arrays(pa.array(np.asarray(idx, np.int32)), dictionary)

    def categorical(col: pd.Series) -> Any:
        codes = col.cat.codes.to_numpy()
        return pa.DictionaryArray.from_arrays(
            pa.array(codes.astype(np.int32), mask=codes < 0), names(col.cat.categories.astype(str))
        )

    racks = placement.racks["rack_id"].astype(str)
    rack_ids = names([*racks.tolist(), ""])
    dev_ids = names(dev["device_id"].astype(str))
    dev_models = names(dev["model"].astype("string"))
    ru = np.asarray(placement.device_ru, dtype=np.int64)
    # each device's end label up to the port: its rack (B1.H1.R01.K05) and RU, or its id when not placed
    device_rack = np.asarray(placement.device_rack, dtype=np.int64)
    placed = device_rack >= 0
    where = pc.if_else(
        pa.array(placed),
        pc.take(names(pc.replace_substring(rack_ids, "/", ".")), np.where(placed, device_rack, len(racks))),
        dev_ids,
    )
    ru_label = names([f"-U{u:02d}:" for u in range(max(int(ru.max(initial=0)), 0) + 1)])
    prefix = pc.binary_join_element_wise(where, pc.take(ru_label, np.maximum(ru, 0)), "")
    mcode = links["media"].cat.codes.to_numpy().astype(np.int64)
    media_ids = [str(c) for c in links["media"].cat.categories]  # catalog ids, then "" (no medium)
    mclass = links["media_class"]
    optical_codes = [i for i, c in enumerate(mclass.cat.categories) if c in ("mmf", "smf", "coherent")]
    optical = np.isin(mclass.cat.codes.to_numpy(), optical_codes)
    group = pm.group.astype(np.int64)
    port_names, port_inv = port_label_codes(group, pm.cage, pm.port, pm.per_cage)
    ports = names(port_names)
    dotted = pc.replace_substring(ports, "/", ".")
    cage_names, cage_inv = cage_label_codes(group, pm.cage)
    cages = names(cage_names)
    per_max = int(pm.per_cage.max(initial=1)) + 1
    # module names: (medium, per-cage ports or copper assembly)
    kinds = [f"/x{k}" for k in range(per_max)] + [f"/{a}" for a in ASSEMBLIES]
    modules = names([m + k if m else "" for m in media_ids for k in kinds])
    forms = names(list(FORMS))
    cols: dict[str, Any] = {}
    ends: dict[str, Any] = {}
    for side, dcol, rcol in (("a", "a", "rack_a"), ("b", "b", "rack_b")):
        sl = pm.end(side)
        d = links[dcol].to_numpy(np.int64)
        r = links[rcol].to_numpy(np.int64)
        r = np.where(r >= 0, r, len(racks))
        # the assembly codes are int8: widened first, or per_max (800 slow links in a cage) overflows them
        module = mcode * len(kinds) + np.where(
            optical, pm.per_cage[sl], per_max + pm.assembly.astype(np.int64)
        )
        cols[f"{side}_device"] = coded(d, dev_ids)
        cols[f"{side}_model"] = coded(d, dev_models)
        cols[f"{side}_rack"] = coded(r, rack_ids)
        cols[f"{side}_ru"] = pa.array(ru[d])
        cols[f"{side}_port"] = coded(port_inv[sl], ports)
        cols[f"{side}_cage"] = coded(cage_inv[sl], cages)
        cols[f"{side}_form"] = coded(pm.form[sl], forms)
        cols[f"{side}_module"] = coded(module, modules)
        ends[side] = (pc.take(prefix, d), pc.take(dotted, port_inv[sl]))
    cable_id = pc.binary_join_element_wise(f"{site_code}.", *ends["a"], "/", *ends["b"], "")
    table = {
        "cable_id": cable_id,
        "network": categorical(links["network"]),
        "kind": categorical(links["kind"]),
        **cols,
        "media": categorical(links["media"]),
        "media_class": categorical(links["media_class"]),
        "assembly": coded(pm.assembly, names(list(ASSEMBLIES))),
        "length_m": pa.array(links["length_m"].round(3).to_numpy(np.float64), from_pandas=True),
        "stock_length_m": pa.array(links["stock_length_m"].to_numpy(np.float64), from_pandas=True),
    }
    return pa.table([table[c] for c in PORT_COLUMNS], names=PORT_COLUMNS)


def decoded(table: Any) -> Any:
    """``table`` with every dictionary-encoded column decoded to its values."""
    import pyarrow as pa

    cols = [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in table.columns]
    return pa.table(cols, names=table.column_names)


def port_tables(design: Design, ports: bool = True) -> dict[str, Any]:
    """``write_design_tables``'s ``ports`` (the port map as :func:`ports_arrow`'s Table, only when
    ``ports``: one row per link) and
    ``cages`` (the Ports sheet) of a design; nothing when its cabling has no port map."""
    pm = design.cabling.ports
    if pm is None:
        return {}
    out = {"cages": pm.cages}
    if ports:
        code = design.inputs.stem.upper()
        out["ports"] = ports_arrow(design.fabric, design.placement, design.cabling, code)
    return out


def links_summary(links: pd.DataFrame) -> pd.DataFrame:
    """Links, routed metres and cable bought per network, kind and medium (``cabling.links`` columns)."""
    df = pd.DataFrame({
        "network": links["network"].astype(str), "kind": links["kind"].astype(str),
        "media": links["media"].astype(str), "media_class": links["media_class"].astype(str),
        "length_m": links["length_m"].astype(float), "stock_length_m": links["stock_length_m"].astype(float),
    })  # fmt: skip
    out = (
        df.groupby(["network", "kind", "media", "media_class"], sort=True)
        .agg(
            links=("length_m", "size"),
            routed_m=("length_m", "sum"),
            max_length_m=("length_m", "max"),
            cable_m=("stock_length_m", "sum"),
        )
        .reset_index()
    )
    for c in ("routed_m", "max_length_m", "cable_m"):
        out[c] = out[c].round(3)
    return out


def summary_rows(summary: dict[str, Any], sort: bool = True) -> pd.DataFrame:
    """``summary.json`` as (key, value) rows with dotted keys (sorted, as in the file; ``sort=False``: in
    the summary's own order); lists of objects stay JSON text."""
    rows: list[tuple[str, Any]] = []

    def walk(prefix: str, v: Any) -> None:
        if isinstance(v, dict) and v:
            for k in sorted(v) if sort else v:
                walk(f"{prefix}.{k}" if prefix else str(k), v[k])
        elif isinstance(v, list | dict):
            rows.append((prefix, json.dumps(_clean(v), sort_keys=True)))
        else:
            rows.append((prefix, _clean(v)))

    walk("", summary)
    return pd.DataFrame(rows, columns=["key", "value"])


def bom_sheet(bom: pd.DataFrame) -> pd.DataFrame:
    """The BOM as finance reads it: each category's lines followed by its subtotal row, then a total row
    below them; the subtotals and the total are live ``SUBTOTAL(9, ...)`` formulas over the money column
    (SUBTOTAL skips the subtotals inside its range and the rows an autofilter hides, so a filtered sheet
    totals what it shows). ``attrs["filter_rows"]``: the lines and subtotals, not the total."""
    cols = list(bom.columns)
    money = "extended_usd"
    if money not in cols or not len(bom):
        return bom
    letter = _letter(cols.index(money))
    values = bom[money].to_numpy(float)
    cats = bom["category"].astype(str).to_numpy()
    rows: list[list[Any]] = []
    first = 0
    for i in range(len(bom) + 1):
        if i < len(bom) and (i == first or cats[i] == cats[first]):
            continue
        top = len(rows) + 2  # the sheet row of the group's first line (row 1 is the header)
        rows += bom.iloc[first:i].astype(object).values.tolist()
        subtotal: dict[str, Any] = {c: None for c in cols} | {
            "category": cats[first],
            "item": f"Subtotal {cats[first]}",
        }
        subtotal[money] = Formula(
            f"SUBTOTAL(9,{letter}{top}:{letter}{len(rows) + 1})", float(values[first:i].sum())
        )
        rows.append([subtotal[c] for c in cols])
        first = i
    last = len(rows) + 1
    total: dict[str, Any] = {c: None for c in cols} | {"category": "Total", "item": "Total of every line"}
    total[money] = Formula(f"SUBTOTAL(9,{letter}2:{letter}{last})", float(values.sum()))
    out = pd.DataFrame([*rows, [total[c] for c in cols]], columns=cols)
    out.attrs[FILTER_ROWS] = len(rows)
    return out


# The Summary sheet's words for summary.json keys: a whole key, else its first part, else any later part,
# else the part itself with its underscores as spaces and a few abbreviations in capitals
SUMMARY_KEYS = {
    "cost_usd.network": "cost, network part (switches, NICs, transceivers, cables, trays)",
    "violations": "design-rule violations (each one listed in the PDF report)",
}
SUMMARY_TOP = {
    "switches": "switches of the GPU fabric", "switches_all_networks": "switches of every network",
    "links": "links of the GPU fabric", "media": "links by medium", "halls": "hall",
    "copper_share": "copper share of the GPU fabric's links", "cable_length": "cable at stock lengths",
    "node_optics": "node-side optical modules", "tray": "cable tray",
}  # fmt: skip
SUMMARY_PARTS = {
    "by_media": "by medium", "by_template": "by template", "by_category": "by category", "by_model": "by model",
    "max": "longest", "missing": "racks that do not fit", "it": "IT load", "facility": "facility load",
    "annual": "annual energy", "annual_cost": "annual electricity cost", "max_rack": "most loaded rack",
    "time_to_first_failure": "time to the first link failure", "gpu_leaf": "GPU to leaf",
    "leaf_spine": "leaf to spine", "spine_core": "spine to core", "core_super": "core to super-spine",
}  # fmt: skip
SUMMARY_CAPITALS = {"gpu": "GPU", "gpus": "GPUs", "nics": "NICs", "mtbf": "MTBF", "hbm": "HBM", "it": "IT"}
SUMMARY_UNITS = {"_usd": "USD", "_mw": "MW", "_kw": "kW", "_twh": "TWh", "_min": "min", "_pct": "%", "_m": "m",
                 "_gb": "GB", "_gbps": "Gbit/s", "_years": "years", "_kg_m2": "kg/m2", "_s": "s"}  # fmt: skip


def summary_words(summary: dict[str, Any]) -> pd.DataFrame:
    """``summary.json`` as the workbook's Summary sheet, in the design's order: one figure a row in words
    (``Cost, by category, servers``), its value and its unit (from the key's unit suffix: ``_usd`` is USD),
    and last the summary.json key it comes from, for whoever maps it back. Violations are counted."""
    out: list[tuple[str, Any, Any, str]] = []
    shown = summary.get("figures") or {}
    for k, f in shown.items():  # the headline figures first, as every output labels them
        spec = figures.SPEC.get(k)
        where = spec.summary_key if spec is not None and spec.summary_key else f"figures.{k}.value"
        value = len(summary.get("violations") or []) if where == "violations" else f["value"]
        out.append((f["label"][:1].upper() + f["label"][1:], value, f["unit"] or None, where))
    held = {figures.SPEC[k].summary_key for k in shown if k in figures.SPEC}
    for key, value in summary_rows(summary, sort=False).itertuples(index=False, name=None):
        if str(key).startswith("figures.") or (shown and key in held):
            continue  # a headline figure: its row is above
        if key == "violations":
            value = len(summary.get("violations") or [])
        words, unit = [], None  # no unit: an empty cell
        for depth, part in enumerate(str(key).split(".")):
            for suffix, name in SUMMARY_UNITS.items():
                if part.endswith(suffix) and len(part) > len(suffix):
                    part, unit = part[: -len(suffix)], name
                    break
            named = (SUMMARY_TOP if depth == 0 else {}).get(part) or SUMMARY_PARTS.get(part)
            if named is None and part == part.lower() and "/" not in part:  # a word, not an id
                named = " ".join(SUMMARY_CAPITALS.get(w, w) for w in part.split("_"))
            words.append(named or part)
        figure = figures.summary_label(str(key)) or SUMMARY_KEYS.get(str(key)) or ", ".join(words)
        out.append((figure[:1].upper() + figure[1:], value, unit, key))
    return pd.DataFrame(out, columns=["figure", "value", "unit", "summary.json key"])


def write_design_tables(
    out_dir: str | Path,
    stem: str,
    *,
    bom: pd.DataFrame,
    racks: pd.DataFrame,
    links: pd.DataFrame,
    summary: dict[str, Any],
    date: str,
    csv: bool = True,
    xlsx: bool = True,
    parquet: bool = False,
    ports: pd.DataFrame | Any = None,
    cages: pd.DataFrame | None = None,
    power: pd.DataFrame | None = None,
) -> list[Path]:
    """``{stem}-bom.csv`` and ``{stem}-links.csv`` (``csv``), ``{stem}-bom.parquet`` and
    ``{stem}-links.parquet`` (``parquet``) and ``{stem}.xlsx`` (``xlsx``); ``links`` is
    ``links_table(...)``. Given ``ports`` (``ports_table(...)``) also ``{stem}-ports.csv`` / ``.parquet``,
    given ``cages`` (the port map's cages per model and group) a Ports sheet, given ``power``
    (``power_table(...)``) a Power sheet. Returns the paths written."""
    out = Path(out_dir)
    written: list[Path] = []
    if csv:
        written.append(write_csv(bom, out / f"{stem}-bom.csv"))
        written.append(write_csv(links, out / f"{stem}-links.csv"))
        if ports is not None:
            written.append(write_csv(ports, out / f"{stem}-ports.csv"))
    if parquet:
        written.append(write_parquet(bom, out / f"{stem}-bom.parquet"))
        written.append(write_parquet(links, out / f"{stem}-links.parquet"))
        if ports is not None:
            written.append(write_parquet(ports, out / f"{stem}-ports.parquet"))
    if xlsx:
        sheets = {
            "BOM": bom_sheet(bom),
            "Racks": racks,
            "Links summary": links_summary(links),
            **({"Ports": cages} if cages is not None else {}),
            **({"Power": power} if power is not None else {}),
            "Summary": summary_words(summary),
        }
        written.append(write_xlsx(sheets, out / f"{stem}.xlsx", date, title=str(summary.get("site", stem))))
    return written


def write_tables_of(
    design: Design,
    out_dir: str | Path,
    *,
    csv: bool = False,
    xlsx: bool = False,
    parquet: bool = False,
    summary: dict[str, Any] | None = None,
    stem: str | None = None,
) -> list[Path]:
    """The table exports of a finished design (``write_design_tables`` with its links table built once);
    ``summary``: ``design.summary()`` when the caller has it already; ``stem``: of the file names (default:
    the site file's)."""
    pt = port_tables(design, ports=csv or parquet)
    return write_design_tables(
        out_dir,
        design.inputs.stem if stem is None else stem,
        bom=design.bom,
        racks=racks_with_feeds(design),
        links=links_table(design.fabric, design.placement, design.cabling),
        summary=design.summary() if summary is None else summary,
        date=design.inputs.site.site.date,
        csv=csv,
        xlsx=xlsx,
        parquet=parquet,
        ports=pt.get("ports"),
        cages=pt.get("cages"),
        power=power_table(design.chain) if xlsx else None,
    )


def racks_with_feeds(design: Design) -> pd.DataFrame:
    """The racks table with each rack's A and B feed (the busways its tap-offs hang on)."""
    racks = design.placement.racks.copy()
    feeds = design.chain.feeds
    racks["feed_a"] = feeds["feed_a"].to_numpy()
    racks["feed_b"] = feeds["feed_b"].to_numpy()
    return racks


POWER_COLUMNS = [
    "part", "part_id", "hall", "row", "side", "model", "rating_kw", "load_kw", "use", "racks", "length_m",
    "fed_from",
]  # fmt: skip


def power_table(chain: Any) -> pd.DataFrame:
    """The Power sheet: every UPS block, its switchboard and every busway of the power chain
    (layout/power_chain.py), with its rating and design load (kW: what it must carry with the hall's
    redundancy) and what feeds it; per hall, UPS blocks then switchboards then busways by row."""
    ups, bw = chain.ups, chain.busways
    n_u, n_b = len(ups), len(bw)
    blank = np.full(n_u, "", dtype=object)
    u_rating = ups["rating_mw"].to_numpy(float) * 1000.0
    s_rating = ups["switchboard_rating_mw"].to_numpy(float) * 1000.0
    u_load = ups["load_mw"].to_numpy(float) * 1000.0
    parts = [
        pd.DataFrame(
            {"part": "UPS block", "part_id": ups["ups_id"], "hall": ups["hall"], "row": blank,
             "side": ups["side"], "model": ups["model"], "rating_kw": u_rating, "load_kw": u_load,
             "racks": np.zeros(n_u, np.int64), "length_m": np.zeros(n_u), "fed_from": blank, "k": 0}
        ),
        pd.DataFrame(
            {"part": "switchboard", "part_id": ups["switchboard_id"], "hall": ups["hall"], "row": blank,
             "side": ups["side"], "model": ups["switchboard_model"], "rating_kw": s_rating, "load_kw": u_load,
             "racks": np.zeros(n_u, np.int64), "length_m": np.zeros(n_u), "fed_from": ups["ups_id"], "k": 1}
        ),
        pd.DataFrame(
            {"part": "busway", "part_id": bw["busway_id"], "hall": bw["hall"], "row": bw["row"],
             "side": bw["side"], "model": bw["model"], "rating_kw": bw["rating_kw"].to_numpy(float),
             "load_kw": bw["load_kw"].to_numpy(float), "racks": bw["racks"].to_numpy(np.int64),
             "length_m": bw["length_m"].to_numpy(float),
             "fed_from": bw["ups_id"].str.replace("/UPS-", "/SWB-", regex=False), "k": 2}
        ),
    ]  # fmt: skip
    if not n_u and not n_b:
        return pd.DataFrame(columns=POWER_COLUMNS)
    out = pd.concat([p for p in parts if len(p)], ignore_index=True)
    out = out.sort_values(["hall", "k"], kind="stable").reset_index(drop=True)
    out["rating_kw"] = out["rating_kw"].round(3)
    out["load_kw"] = out["load_kw"].round(3)
    out["use"] = np.where(out["rating_kw"] > 0, (out["load_kw"] / out["rating_kw"]).round(4), 0.0)
    out["racks"] = out["racks"].astype(np.int64)
    return out[POWER_COLUMNS]
