"""CSV and Parquet writing, and the defence against formula injection every table export shares.

- ``write_csv(df, path)``: UTF-8, ``\\n`` line ends, no index, NaN as an empty cell: the bytes pandas'
  ``to_csv`` writes, through pyarrow's columnar CSV writer (the 300,000-row links table of a campus in a
  fraction of a second instead of seconds). A text cell a spreadsheet would run as a formula (it starts
  with ``=``, ``+``, ``-``, ``@``, a tab or a CR and is not a plain number) gets a ``'`` before it (OWASP's
  defence against CSV injection); number columns are written as they are.
- ``write_parquet(df, path)``: the same table as Parquet (zstd), for pandas, polars, DuckDB, Spark.
"""

from __future__ import annotations

import functools
import io
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from layout.export.atomic import Settler, atomic_path, write_bytes


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
    """Write the header line and the text columns joined unquoted by pyarrow into ``f``, a batch of
    rows at a time (a dictionary column decoded per batch: pyarrow writes plain text faster than it
    decodes as it writes); False when a value needs quotes (``f`` then holds part of it)."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    f.write((",".join(header) + "\n").encode("utf-8"))
    table = pa.table(texts, names=[f"c{i}" for i in range(len(texts))])
    schema = pa.schema([pa.field(n, pa.string()) for n in table.column_names])
    options = pa_csv.WriteOptions(include_header=False, quoting_style="none")
    try:
        with pa_csv.CSVWriter(f, schema, write_options=options) as writer:
            for start in range(0, len(table), CSV_BATCH_ROWS):
                writer.write_table(decoded(table.slice(start, CSV_BATCH_ROWS)))
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
    firsts = pc.utf8_slice_codeunits(col, 0, 1)  # a look at the first character first: the usual case
    if not pc.any(pc.is_in(firsts, value_set=_FORMULA_FIRSTS())).as_py():
        return col
    hit = pc.match_substring_regex(col, _FORMULA_START_RE)
    hit = pc.and_not(hit, pc.match_substring_regex(col, _NUMBER_RE))
    if not pc.any(hit).as_py():
        return col
    return pc.if_else(hit, pc.binary_join_element_wise("'", col, ""), col)


@functools.cache
def _FORMULA_FIRSTS() -> Any:  # noqa: N802 - a constant, made when first needed (pyarrow loads late)
    import pyarrow as pa

    return pa.array(list(FORMULA_START), pa.string())


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
    # text (a string dtype by its type, else by looking at the values): each distinct value looked at once
    if isinstance(col.dtype, pd.StringDtype) or pd.api.types.infer_dtype(col, skipna=True) == "string":
        codes, uniques = pd.factorize(col)
        words = _formula_like(uniques.tolist())
        if not words.any():
            return None
        codes = np.asarray(codes)
        hit = np.where(codes >= 0, words[np.maximum(codes, 0)], False)
        return hit if hit.any() else None
    hit = _formula_like(col.tolist())
    return hit if hit.any() else None


def _formula_like(values: list[Any]) -> np.ndarray:
    return np.fromiter((type(v) is str and is_formula_like(v) for v in values), bool, len(values))


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


def write_csv(df: pd.DataFrame | Any, path: str | Path, settler: Settler | None = None) -> Path:
    """csv_bytes(df) written atomically to ``path``, streamed into the file (no copy of it in memory);
    with a ``settler``, its flush to disk and rename into place in the settler's thread."""
    if settler is not None:
        return settler.write_with(path, lambda f: _csv_into(df, f))
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        _csv_into(df, f)
        f.flush()
        os.fsync(f.fileno())
    return Path(path)


def parquet_bytes(df: pd.DataFrame | Any) -> bytes:
    """``df`` (a DataFrame, or a pyarrow Table such as :func:`ports_arrow`'s) as a Parquet file (zstd, one
    row group, no index). Deterministic: no pandas metadata nor Arrow schema (they would tie the bytes
    to the pandas or pyarrow version), so a reader sees the file's own types: text as plain UTF-8
    strings. A dictionary-encoded text column (a categorical, a dictionary array) is handed to the
    writer as it is, its dictionary the column's dictionary page (no string hashed per row); the values
    read back are those of the decoded table."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False) if isinstance(df, pd.DataFrame) else df
    fields = [pa.field(f.name, _plain_text(f.type)) for f in table.schema]
    table = table.cast(pa.schema(fields)).replace_schema_metadata(None)
    table = pa.table(
        [_canonical(c) if pa.types.is_dictionary(c.type) else c for c in table.columns],
        names=table.column_names,
    )
    # min/max statistics of the numbers only: those of the text columns (ids, names) took half the
    # writer's time on the campus's links and ports (0.32 -> 0.17 s) and serve no filter a reader runs
    numbers = [f.name for f in table.schema if not _is_text(f.type)]
    sink = pa.BufferOutputStream()
    pq.write_table(
        table,
        sink,
        compression="zstd",
        row_group_size=max(len(table), 1),
        store_schema=False,
        write_statistics=numbers,
    )
    return bytes(sink.getvalue().to_pybytes())


def _canonical(col: Any) -> Any:
    """A dictionary column with its dictionary made of the values it uses, each once, sorted, so that
    the file's bytes depend on the column's values only, not on how its dictionary was built (unused or
    repeated entries, their order). Worked out on the indices and the (small) dictionary: no string
    hashed per row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if arr.dictionary.null_count:  # a null among the words themselves: worked out in Python
        same, words = pd.factorize(np.asarray(arr.dictionary.to_pylist(), dtype=object))
        words = pa.array(words, arr.type.value_type)
    else:  # in Arrow: unique words, each word's first copy, sorted by their UTF-8 bytes (code points)
        words = pc.unique(arr.dictionary)
        same = np.asarray(pc.index_in(arr.dictionary, value_set=words), np.int64)
    valid = ~np.asarray(arr.is_null())
    codes = same[np.asarray(arr.indices.fill_null(0), np.int64)]
    present = np.zeros(len(words), bool)
    present[codes[valid]] = True
    order = np.asarray(pc.sort_indices(words), np.int64)
    order = order[present[order]]
    rank = np.zeros(max(len(words), 1), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    indices = pa.array(rank[codes], mask=~valid)
    return pa.DictionaryArray.from_arrays(indices, words.take(pa.array(order)))


def _is_text(t: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        t = t.value_type
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


def _plain_text(t: Any) -> Any:
    """``t`` with large strings as strings (a dictionary's values too): the same file from pandas' text."""
    import pyarrow as pa

    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_dictionary(t) and pa.types.is_large_string(t.value_type):
        return pa.dictionary(t.index_type, pa.string())
    return t


def write_parquet(df: pd.DataFrame | Any, path: str | Path, settler: Settler | None = None) -> Path:
    data = parquet_bytes(df)
    return write_bytes(path, data) if settler is None else settler.write_bytes(path, data)


def decoded(table: Any) -> Any:
    """``table`` with every dictionary-encoded column decoded to its values."""
    import pyarrow as pa

    cols = [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in table.columns]
    return pa.table(cols, names=table.column_names)
