"""CSV / XLSX / JSON table exports: read back equal, byte-identical on two runs, atomic, site-dated."""

from __future__ import annotations

import datetime
import io
import json
import math
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import openpyxl
import pandas as pd
import pytest

from layout import bom, figures
from layout.export import tables


@pytest.fixture(scope="module")
def superpod(inputs_of: Any, design_of: Any) -> Any:
    inputs = inputs_of("superpod-4su")
    d = design_of("superpod-4su")
    cabling = d.cabling
    return SimpleNamespace(
        inputs=inputs, design=d, cabling=cabling, bom=bom.build(bom.BomInput.of(inputs), d.fabric, d.placement, cabling),
        links=tables.links_table(d.fabric, d.placement, cabling),
        summary={"site": inputs.site.site.name, "gpus": d.fabric.gpus, "cost_usd": {"total": 1.5, "by_category": {"servers": 1.0}},
                 "violations": [{"kind": "rack_kw", "where": "B1"}], "ttff": math.inf},
    )  # fmt: skip


def test_csv_reads_back_and_is_byte_stable(tmp_path: Path, superpod: Any) -> None:
    p1 = tables.write_csv(superpod.bom, tmp_path / "a" / "bom.csv")
    p2 = tables.write_csv(superpod.bom, tmp_path / "b" / "bom.csv")
    assert p1.read_bytes() == p2.read_bytes()
    assert b"\r\n" not in p1.read_bytes()
    back = pd.read_csv(p1)
    assert back.columns.tolist() == bom.BOM_COLUMNS
    assert back["part_id"].tolist() == superpod.bom["part_id"].tolist()
    assert back["qty"].tolist() == superpod.bom["qty"].tolist()
    assert np.allclose(back["extended_usd"], superpod.bom["extended_usd"])
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["bom.csv"]  # no temporary file left


def test_links_table_names_devices_and_racks(superpod: Any) -> None:
    lt, cab, d = superpod.links, superpod.cabling.links, superpod.design
    assert len(lt) == len(cab)
    first = cab.iloc[0]
    assert lt["a_device"].iloc[0] == d.fabric.devices["device_id"].iloc[int(first["a"])]
    assert lt["rack_b"].iloc[0] == d.placement.racks["rack_id"].iloc[int(first["rack_b"])]
    assert set(lt["media"]) <= {*superpod.inputs.catalog.media, ""}
    assert (lt["kind"].value_counts().to_dict()) == cab["kind"].astype(str).value_counts().to_dict()
    back = pd.read_csv(io.BytesIO(tables.csv_bytes(lt)), keep_default_na=False)
    assert back["b_device"].tolist() == lt["b_device"].tolist()
    assert np.allclose(back["stock_length_m"].astype(float), lt["stock_length_m"])


def test_links_summary_adds_up(superpod: Any) -> None:
    s = tables.links_summary(superpod.links)
    assert s["links"].sum() == len(superpod.links)
    assert s["cable_m"].sum() == pytest.approx(superpod.cabling.cable_length_m()["total"])
    backend = s[s["network"] == "backend"]
    assert backend["links"].sum() == superpod.design.fabric.summary()["links"]["total"]


def test_json_is_sorted_and_nan_free(tmp_path: Path) -> None:
    p = tables.write_json({"b": np.int64(2), "a": [float("nan"), 1.5, pd.NA]}, tmp_path / "x.json")
    text = p.read_text()
    assert text == '{\n  "a": [\n    null,\n    1.5,\n    null\n  ],\n  "b": 2\n}\n'


def test_summary_rows_flatten_with_dotted_keys(superpod: Any) -> None:
    rows = dict(tables.summary_rows(superpod.summary).itertuples(index=False, name=None))
    assert rows["cost_usd.by_category.servers"] == 1.0
    assert rows["cost_usd.total"] == 1.5
    assert json.loads(rows["violations"]) == [{"kind": "rack_kw", "where": "B1"}]
    assert rows["ttff"] is None


def test_xlsx_reads_back_is_site_dated_and_byte_stable(tmp_path: Path, superpod: Any) -> None:
    date = superpod.inputs.site.site.date  # 2026-11-29
    kw = dict(bom=superpod.bom, racks=superpod.design.placement.racks, links=superpod.links,
              summary=superpod.summary, date=date)  # fmt: skip
    a = tables.write_design_tables(tmp_path / "a", "superpod-4su", **kw)
    b = tables.write_design_tables(tmp_path / "b", "superpod-4su", **kw)
    assert [p.name for p in a] == ["superpod-4su-bom.csv", "superpod-4su-links.csv", "superpod-4su.xlsx"]
    for pa, pb in zip(a, b, strict=True):
        assert pa.read_bytes() == pb.read_bytes(), pa.name
    xlsx = a[2]
    stamp = datetime.datetime.fromisoformat(date)
    with zipfile.ZipFile(xlsx) as z:
        assert {i.date_time for i in z.infolist()} == {(stamp.year, stamp.month, stamp.day, 0, 0, 0)}
    wb = openpyxl.load_workbook(xlsx)
    assert wb.sheetnames == ["BOM", "Racks", "Links summary", "Summary"]
    assert (wb.properties.created, wb.properties.modified) == (stamp, stamp)
    assert wb.properties.creator == "dclayout"
    ws = wb["BOM"]
    values = list(ws.values)
    assert list(values[0]) == [tables.BOM_HEADERS[c] for c in bom.BOM_COLUMNS]  # in words
    lines = [list(r) for r in values[1:] if not str(r[1]).startswith(("Subtotal ", "Total "))]
    assert lines == superpod.bom.astype(object).values.tolist()  # every line, between the subtotals
    assert ws["F2"].number_format == ws["G2"].number_format == "#,##0.00"  # the _usd columns
    assert ws["D2"].number_format == "#,##0"  # qty
    racks = list(wb["Racks"].values)
    assert len(racks) - 1 == len(superpod.design.placement.racks)
    assert racks[1][0] == superpod.design.placement.racks["rack_id"].iloc[0]
    summ = {r[3]: r[1] for r in list(wb["Summary"].values)[1:]}  # by summary.json key, the last column
    assert summ["gpus"] == 1024 and summ["ttff"] is None
    links = list(wb["Links summary"].values)
    assert sum(r[4] for r in links[1:]) == len(superpod.links)


def test_csv_and_xlsx_flags(tmp_path: Path, superpod: Any) -> None:
    kw = dict(bom=superpod.bom, racks=superpod.design.placement.racks, links=superpod.links,
              summary=superpod.summary, date="2026-01-01")  # fmt: skip
    only_xlsx = tables.write_design_tables(tmp_path, "s", csv=False, **kw)
    assert [p.name for p in only_xlsx] == ["s.xlsx"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.xlsx"]


def test_a_failed_export_leaves_nothing(tmp_path: Path) -> None:
    bad = pd.DataFrame({"x": [1]})
    target = tmp_path / "t.xlsx"
    with pytest.raises(ValueError):
        tables.write_xlsx({"S": bad}, target, date="not-a-date")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ CSV through pyarrow, bytes of pandas
def pandas_csv(df: pd.DataFrame) -> bytes:
    """The reference: what pandas' own writer gives (the bytes csv_bytes promises)."""
    return df.to_csv(index=False, lineterminator="\n").encode("utf-8")


def test_links_csv_is_pandas_bytes_and_reads_back_equal(superpod: Any) -> None:
    lt = superpod.links
    data = tables.csv_bytes(lt)
    assert tables.csv._csv_texts(lt) is not None  # the columnar path, not the fallback
    assert data == pandas_csv(lt)
    back = pd.read_csv(io.BytesIO(data), keep_default_na=False, dtype={"pod": "int64"})
    assert back.columns.tolist() == lt.columns.tolist()
    for c in lt.columns:
        if lt[c].dtype == np.float64:
            assert np.array_equal(back[c].to_numpy(float), lt[c].to_numpy(float)), c
        else:
            assert back[c].astype(type(lt[c].iloc[0])).tolist() == lt[c].tolist(), c


TRICKY_FLOATS = [0.0, -0.0, 1.0, 0.1, 1 / 3, 1e-4, 9.99e-5, 1e-5, 1e15, 1e16, 123456789012345.6, 2.5e-300,
                 1.7976931348623157e308, 5e-324, float("nan"), float("inf"), -float("inf"), -12.5, 2.0**53]  # fmt: skip


def test_float_text_is_repr() -> None:
    x = np.array(TRICKY_FLOATS)
    got = tables.float_text(x).to_pylist()
    assert got == [None if math.isnan(v) else repr(v) for v in TRICKY_FLOATS]
    assert got[:3] == ["0.0", "-0.0", "1.0"]  # -0.0 keeps its sign although it equals 0.0


def test_csv_of_every_column_kind_is_pandas_bytes() -> None:
    n = len(TRICKY_FLOATS)
    df = pd.DataFrame({
        "f": TRICKY_FLOATS,
        "i": np.arange(n, dtype=np.int64) * -7,
        "u": np.arange(n, dtype=np.uint8),
        "ni": pd.array([None if k % 3 == 0 else k for k in range(n)], dtype="Int64"),
        "b": [k % 2 == 0 for k in range(n)],
        "s": [f"id-{k}" if k % 4 else "" for k in range(n)],
        "o": pd.Series([None if k % 5 == 0 else f"x{k}" for k in range(n)], dtype=object),
        "c": pd.Categorical([["a", "b", None][k % 3] for k in range(n)], categories=["b", "a", "zz"]),
    })  # fmt: skip
    assert tables.csv._csv_texts(df) is not None
    assert tables.csv_bytes(df) == pandas_csv(df)


@pytest.mark.parametrize(
    "df",
    [
        pd.DataFrame({"a": ["x,y", "z"], "b": [1, 2]}),  # a comma: pandas quotes it
        pd.DataFrame({"a": ['say "hi"', "z"], "b": [1, 2]}),
        pd.DataFrame({"a": ["two\nlines", "z"], "b": [1, 2]}),
        pd.DataFrame({"a": ["", "z"]}),  # one column: pandas writes "" for the empty value
        pd.DataFrame({"a,b": [1], "c": [2]}),  # a header that needs quotes
        pd.DataFrame({"t": pd.to_datetime(["2026-01-01"]), "b": [1]}),  # a kind of column not covered
        pd.DataFrame({"o": [1, "x"], "b": [1, 2]}),  # a mixed object column
        pd.DataFrame({"a": [], "b": []}),
    ],
)
def test_csv_that_needs_pandas_is_written_by_pandas(df: pd.DataFrame) -> None:
    assert tables.csv_bytes(df) == pandas_csv(df)


# ------------------------------------------------------------------------------------------- Parquet
def test_parquet_reads_back_equal_and_is_byte_stable(tmp_path: Path, superpod: Any) -> None:
    import pyarrow.parquet as pq

    kw = dict(bom=superpod.bom, racks=superpod.design.placement.racks, links=superpod.links,
              summary=superpod.summary, date="2026-01-01", csv=False, xlsx=False, parquet=True)  # fmt: skip
    a = tables.write_design_tables(tmp_path / "a", "s", **kw)
    b = tables.write_design_tables(tmp_path / "b", "s", **kw)
    assert [p.name for p in a] == ["s-bom.parquet", "s-links.parquet"]
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["s-bom.parquet", "s-links.parquet"]
    for pa_, pb_ in zip(a, b, strict=True):
        assert pa_.read_bytes() == pb_.read_bytes()
    for path, frame in zip(a, (superpod.bom, superpod.links), strict=True):
        table = pq.read_table(path)
        assert table.schema.metadata is None  # no pandas metadata tying the bytes to a pandas version
        back = table.to_pandas()
        pd.testing.assert_frame_equal(back, frame.reset_index(drop=True), check_dtype=False)
        assert [str(t) for t in table.schema.types].count("large_string") == 0


# ----------------------------------------------------------------------------------------- links table
def test_links_table_matches_a_row_by_row_build(superpod: Any) -> None:
    """Every row against the ids looked up one link at a time (the slow, obvious way)."""
    d, lt, cab = superpod.design, superpod.links, superpod.cabling.links
    dev = d.fabric.devices["device_id"].tolist()
    racks = d.placement.racks["rack_id"].tolist()
    rows = cab.head(500).itertuples(index=False)
    for i, r in enumerate(rows):
        got = lt.iloc[i]
        assert (got["a_device"], got["b_device"]) == (dev[r.a], dev[r.b])
        assert got["rack_a"] == (racks[r.rack_a] if r.rack_a >= 0 else "")
        assert got["rack_b"] == (racks[r.rack_b] if r.rack_b >= 0 else "")
        assert (got["kind"], got["media"], got["status"]) == (str(r.kind), str(r.media), str(r.status))
        assert got["length_m"] == np.round(r.length_m, 3)  # numpy rounding, as pandas rounds
    assert all(str(t) == "str" for t in lt.dtypes[["a_device", "rack_a", "kind", "media"]])


def test_links_arrow_is_the_links_table_dictionary_encoded_and_writes_its_bytes(superpod: Any) -> None:
    """The tables the exports write from (dictionary-encoded) give the DataFrame's CSV bytes (pandas'
    own writer the reference), its Parquet values and types, and its Links summary."""
    import pyarrow as pa

    d, lt = superpod.design, superpod.links
    la = tables.links_arrow(d.fabric, d.placement, d.cabling)
    assert la.column_names == tables.LINK_COLUMNS == lt.columns.tolist()
    assert all(pa.types.is_dictionary(la[c].type) for c in ("a_device", "rack_b", "kind", "media", "status"))
    assert tables.csv_bytes(la) == tables.csv_bytes(lt) == pandas_csv(lt)
    back, twin = _parquet_back(tables.parquet_bytes(la)), _parquet_back(tables.parquet_bytes(lt))
    assert back.schema == twin.schema and back.equals(twin)
    pd.testing.assert_frame_equal(back.to_pandas(), lt, check_dtype=False)
    pd.testing.assert_frame_equal(tables.links_summary(la), tables.links_summary(lt))


def test_parquet_bytes_depend_on_the_values_not_on_the_dictionary() -> None:
    """A dictionary column with unused, repeated or reordered entries writes the same file as the
    plainest dictionary of its values (a category added to a shared categorical changes nothing)."""
    import pyarrow as pa

    def table(idx: list[int | None], words: list[str]) -> Any:
        col = pa.DictionaryArray.from_arrays(pa.array(idx, pa.int32()), pa.array(words))
        return pa.table({"d": col, "n": pa.array(range(len(idx)))})

    plain = tables.parquet_bytes(table([0, 1, 0, None], ["a", "b"]))
    assert tables.parquet_bytes(table([2, 0, 2, None], ["b", "zz", "a"])) == plain
    assert tables.parquet_bytes(table([0, 1, 2, None], ["a", "b", "a"])) == plain
    assert _parquet_back(plain).column("d").to_pylist() == ["a", "b", "a", None]


def test_links_summary_groups_as_the_text_sorts() -> None:
    """Grouped by codes, the rows come out sorted by the names (not by the categories' order), a
    missing name as "nan", and the metres of the rounded lengths."""
    cat = pd.Categorical
    links = pd.DataFrame({
        "network": cat(["fe", "be", "be", None], categories=["fe", "be"]),
        "kind": cat(["x", "y", "y", "y"]), "media": cat(["m", "m", "m", "m"]),
        "media_class": cat(["c", "c", "c", "c"]), "length_m": [1.0, 2.0, 3.5, 4.0],
        "stock_length_m": [2.0, 3.0, 5.0, 5.0],
    })  # fmt: skip
    s = tables.links_summary(links)
    assert s["network"].tolist() == ["be", "fe", "nan"]
    assert s["links"].tolist() == [2, 1, 1]
    assert s["routed_m"].tolist() == [5.5, 1.0, 4.0] and s["max_length_m"].tolist() == [3.5, 1.0, 4.0]
    plain = links.astype({k: str for k in ("network", "kind", "media", "media_class")})
    pd.testing.assert_frame_equal(tables.links_summary(plain), s)


def test_links_table_marks_a_link_without_a_rack_with_an_empty_rack_id() -> None:
    devices = pd.DataFrame({"device_id": ["srv-0", "leaf-0"]})
    racks = pd.DataFrame({"rack_id": ["B1/H1/R01/K01"]})
    cat = pd.Categorical
    links = pd.DataFrame({
        "a": [0, 1], "b": [1, 0], "kind": cat(["gpu_leaf", "gpu_leaf"]), "network": cat(["backend"] * 2),
        "speed_gbps": [400, 400], "pod": [0, 0], "rack_a": [0, -1], "rack_b": [-1, 0],
        "route": cat(["tray", ""]), "tray_m": [1.23456, np.nan], "length_m": [2.0, np.nan],
        "media": cat(["mmf", ""]), "media_class": cat(["mmf", ""]), "stock_length_m": [3.0, np.nan],
        "status": cat(["ok", "unplaced"]),
    })  # fmt: skip
    lt = tables.links_table(
        SimpleNamespace(devices=devices), SimpleNamespace(racks=racks), SimpleNamespace(links=links)
    )  # type: ignore[arg-type]
    assert lt["rack_a"].tolist() == ["B1/H1/R01/K01", ""]
    assert lt["rack_b"].tolist() == ["", "B1/H1/R01/K01"]
    assert lt["a_device"].tolist() == ["srv-0", "leaf-0"]
    assert lt["tray_m"].iloc[0] == 1.235 and math.isnan(lt["tray_m"].iloc[1])
    assert (
        tables.csv_bytes(lt).decode().splitlines()[2]
        == "leaf-0,srv-0,gpu_leaf,backend,400,0,,B1/H1/R01/K01,,,,,,,unplaced"
    )


# ------------------------------------------------------------------- XLSX: read back by openpyxl
# The workbook is written by the exporter's own cell writer; openpyxl, an independent reader, reads it
# back here and every cell is checked against the table: value, type, number format, quote prefix.
def _want(v: Any) -> tuple[Any, str]:
    """What a reader finds in the cell of the table value ``v``: (value, openpyxl data type; "": any)."""
    if isinstance(v, tables.Formula):
        return f"={v.text}", "f"
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and not math.isfinite(v)):
        return None, "n"
    if isinstance(v, bool):
        return v, "b"
    if isinstance(v, int | float):
        return pytest.approx(v, rel=1e-15), "n"  # written with 16 significant digits
    assert isinstance(v, str), repr(v)  # other kinds have tests of their own
    return (v, "s") if v else (None, "")  # an empty text cell reads back as no value


def _format_of(name: str, col: pd.Series) -> str:
    if name.endswith("_usd"):
        return "#,##0.00"
    if name == "qty" or (
        pd.api.types.is_integer_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype)
    ):
        return "#,##0"
    return "General"


def _all_parts_parse(data: bytes) -> None:
    """Every XML part of the package is well-formed XML 1.0 (expat refuses what XML cannot hold)."""
    from xml.etree import ElementTree

    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name in z.namelist():
            if name.endswith((".xml", ".rels")):
                ElementTree.fromstring(z.read(name))


def _check_sheet(ws: Any, df: pd.DataFrame) -> None:
    """Sheet ``ws`` read back holds table ``df``: a bold header of its column names, frozen, an autofilter
    over the table (``attrs["filter_rows"]`` rows of it), then every value with its type and format."""
    n, m = df.shape
    last = openpyxl.utils.get_column_letter(m)
    assert ws.freeze_panes == "A2", ws.title
    assert ws.auto_filter.ref == f"A1:{last}{int(df.attrs.get('filter_rows', n)) + 1}", ws.title
    assert ws.max_row <= n + 1 and ws.max_column == m, ws.title  # (no cell for an empty value)
    header = ws[1]
    heads = df.attrs.get("headers", {})  # a table's headers in words (the BOM's), else its names
    assert [c.value for c in header] == [str(heads.get(c, c)) for c in df.columns]
    assert all(c.font.b and c.data_type == "s" for c in header)
    for j, name in enumerate(df.columns):
        col = df.iloc[:, j]
        fmt = _format_of(str(name), col)
        cells = [ws.cell(row=r, column=j + 1) for r in range(2, n + 2)]
        bold = set(df.attrs.get("bold_rows", []))  # the BOM's subtotals and total
        for i, (cell, v) in enumerate(zip(cells, col.tolist(), strict=True)):
            value, kind = _want(v)
            where = f"{ws.title}!{cell.coordinate} {v!r}"
            assert cell.value == value and cell.data_type == (kind or cell.data_type), where
            assert cell.number_format == fmt, where
            assert cell.quotePrefix == (type(v) is str and tables.is_formula_like(v)), where
            assert bool(cell.font.b) == (i in bold), where


def _read_back(sheets: dict[str, pd.DataFrame], title: str = "") -> Any:
    data = tables.xlsx_bytes(sheets, "2026-01-01", title)
    _all_parts_parse(data)
    wb = openpyxl.load_workbook(io.BytesIO(data))
    assert wb.sheetnames == list(sheets)
    return wb


def test_superpod_workbook_reads_back_cell_by_cell(superpod: Any) -> None:
    sheets = {"BOM": tables.bom_sheet(superpod.bom), "Racks": superpod.design.placement.racks,
              "Links summary": tables.links_summary(superpod.links), "Summary": tables.summary_words(superpod.summary),
              "Dotted": tables.summary_rows(superpod.summary)}  # fmt: skip
    wb = _read_back(sheets, "t")
    assert wb.properties.title == "t"
    for name, df in sheets.items():
        _check_sheet(wb[name], df)


EVERY_KIND = pd.DataFrame({
    "text": ["x", "", " lead", "trail ", "a&b<c>\"'", None, "   ", "tab\there", "#1", "=", "ünï"],
    "price_usd": [1.5, np.nan, 3, 0.1, 1e20, -0.0, float("inf"), 2**60, 1 / 3, 7, 0],
    "empty": [np.nan] * 11,
    "flag": [True, False] * 5 + [True],
    "n": [1, 2, 3, 10**17, -5, 0, 6, 7, 8, 9, 10],
    "mixed": [1, "a", 2.5, None, True, "b", 3, 4, 5, 6, 7],
    "nullable": pd.array([1, None, 3, 4, 5, 6, 7, 8, 9, 10, -(2**40)], dtype="Int64"),
    "cat": pd.Categorical(["a", "b", None, "a", "=x", "b", "a", "b", "a", "b", "a"]),
})  # fmt: skip


@pytest.mark.parametrize(
    "sheets",
    [{"S": EVERY_KIND, "Only NaN": EVERY_KIND[["empty"]]}, {"No rows": EVERY_KIND.iloc[:0]},
     {"U": EVERY_KIND[["price_usd"]]}],
    ids=["every-kind", "no-rows", "one-column"],
)  # fmt: skip
def test_xlsx_cells_of_every_kind_read_back(sheets: dict[str, pd.DataFrame]) -> None:
    wb = _read_back(sheets)
    for name, df in sheets.items():
        _check_sheet(wb[name], df)


REPEATS = pd.DataFrame({
    "f": [0.0, -0.0, 0.1, np.nan, 0.0, -0.0, 0.1, float("inf")],
    "mixed": [1, True, 1.0, "1", 1, True, 1.0, "1"],  # equal keys, four different cells
    "text": ["=x", "a", None, "=x", "a", "", "a&b", "a"],
    "str": pd.array(["r1", "r1", None, "-y", "r2", "r1", "-y", "r2"], dtype="str"),
    "cat": pd.Categorical(["b", "a", None, "b", "+z", "a", "b", "a"], categories=["b", "a", "+z"]),
    "n": np.array([3, 3, 1, 2, 3, 1, 2, 3], np.uint8),
})  # fmt: skip


def test_xlsx_cells_of_repeated_values_are_the_per_cell_writers() -> None:
    """The cells worked out once per distinct value and taken for each row are those the writer gives
    cell by cell (its reference): -0.0 apart from 0.0, 1 / True / 1.0 / "1" apart, formula-like text
    with the quote prefix style; and they read back."""
    from openpyxl import Workbook

    from layout.export.tables import xlsx

    ws = Workbook().active
    styles, quoted, hits = xlsx._register_styles(ws, REPEATS)
    got = xlsx._sheet_rows(REPEATS, 1, styles, quoted, hits)
    rows = []
    for r in range(len(REPEATS)):
        cells = []
        for j, letter in enumerate("ABCDEF"):
            hit = hits[j]
            style = quoted[j] if hit is not None and hit[r] else styles[j]
            cells.append(xlsx._xml_cell(f"{letter}{r + 2}", REPEATS.iat[r, j], style))
        rows.append(f'<row r="{r + 2}">{"".join(cells)}</row>')
    assert got.partition("</row>")[2] == "".join(rows)
    assert [h is not None for h in hits] == [False, False, True, True, True, False]
    _check_sheet(_read_back({"R": REPEATS})["R"], REPEATS)


CONTROL = ["bell\x07", "nul\x00 here", "\x1b[31mred", "cr\r\nlf", "\rstarts", "\x0b\x0c", "\x1f", "x\ufffe\uffff",
           "lone \ud800 surrogate", "tab\tand\nnewline stay"]  # fmt: skip
UNDERSCORE = ["_x0041_", "_x005F_", "a_x12", "_xABCD\x01", "_x0041", "snake_x_case", "_X0041_"]


def test_xlsx_control_characters_are_written_as_ooxml_escapes_and_read_back() -> None:
    """Characters XML 1.0 cannot hold (and the CR, which a reader turns into a newline) are written as
    _xHHHH_, as Excel writes them; an "_x" that would read as such an escape is escaped itself. openpyxl
    reads the escapes as they are; its own unescape (what Excel does on reading) gives the text back."""
    from openpyxl.utils.escape import unescape

    texts = CONTROL + UNDERSCORE
    df = pd.DataFrame({"text\x07": pd.Series(texts, dtype=object), "n": range(len(texts))})
    wb = _read_back({"S": df})
    ws = wb["S"]
    assert ws["A1"].value == "text_x0007_" and ws["A1"].font.b
    got = [ws.cell(row=r, column=1).value for r in range(2, len(texts) + 2)]
    assert [unescape(v) for v in got] == texts
    assert {ws.cell(row=r, column=1).data_type for r in range(2, len(texts) + 2)} == {"s"}
    written = dict(zip(texts, got, strict=True))
    assert written["bell\x07"] == "bell_x0007_"
    assert written["cr\r\nlf"] == "cr_x000D_\nlf"
    assert written["x\ufffe\uffff"] == "x_xFFFE__xFFFF_"
    assert written["lone \ud800 surrogate"] == "lone _xD800_ surrogate"
    assert written["tab\tand\nnewline stay"] == "tab\tand\nnewline stay"  # XML holds them
    assert written["_x0041_"] == "_x005F_x0041_"
    assert written["_xABCD\x01"] == "_x005F_xABCD_x0001_"  # the escape that follows would complete it
    for plain in ("a_x12", "_x0041", "snake_x_case", "_X0041_"):  # never read as an escape: as they are
        assert written[plain] == plain
    assert ws.cell(row=2 + texts.index("\rstarts"), column=1).quotePrefix  # a CR starts a formula too


def test_xlsx_text_longer_than_a_cell_holds_is_cut_with_a_mark() -> None:
    limit = 32_767
    texts = {
        "at the limit": "a" * limit,
        "one over": "b" * (limit + 1),
        "far over": "c" * 100_000,
        "two units a character": "\U0001f600" * 20_000,  # 40,000 UTF-16 units: Excel counts those
        "half of them": "d" * 16_383 + "\U0001f600" * 8_192,  # exactly the limit in UTF-16 units
    }
    df = pd.DataFrame({"what": list(texts), "text": pd.Series(list(texts.values()), dtype=object)})
    ws = _read_back({"S": df})["S"]
    got = {ws.cell(row=r, column=1).value: ws.cell(row=r, column=2).value for r in range(2, len(texts) + 2)}
    assert got["at the limit"] == texts["at the limit"]
    assert got["half of them"] == texts["half of them"]
    for what in ("one over", "far over", "two units a character"):
        mark = tables.xlsx.truncated_mark(len(texts[what]))
        cut = got[what]
        assert cut.endswith(mark) and "cut" in mark and f"{len(texts[what]):,}" in mark, what
        assert texts[what].startswith(cut[: -len(mark)]), what
        assert limit - 1 <= len(cut.encode("utf-16-le")) // 2 <= limit, what  # a pair is never split
    assert len(got["far over"].encode("utf-16-le")) // 2 == limit


def test_xlsx_dates_and_other_objects_are_their_iso_or_str_text() -> None:
    import decimal

    class Tag:
        def __str__(self) -> str:
            return "tag <1>"

    values = [datetime.date(2026, 11, 29), datetime.datetime(2026, 11, 29, 8, 30), pd.Timestamp("2026-11-29 12:00"),
              np.datetime64("2026-11-29T00:00:00.000000000"), datetime.datetime(2026, 1, 1, 8, 30).time(), pd.NaT, np.datetime64("NaT"),
              decimal.Decimal("1.25"), np.int32(7), np.float32(0.5), np.bool_(True), 10**400, Tag(), ("a", 1)]  # fmt: skip
    want = [("2026-11-29", "s"), ("2026-11-29T08:30:00", "s"), ("2026-11-29T12:00:00", "s"),
            ("2026-11-29T00:00:00", "s"), ("08:30:00", "s"), (None, "n"), (None, "n"), (1.25, "n"), (7, "n"),
            (0.5, "n"), (True, "b"), (str(10**400), "s"), ("tag <1>", "s"), ("('a', 1)", "s")]  # fmt: skip
    when = pd.to_datetime(["2026-11-29 06:00", None])  # a datetime64 column
    df = pd.DataFrame({"v": pd.Series(values, dtype=object), "i": range(len(values))})
    wb = _read_back({"S": df, "T": pd.DataFrame({"when": when})})
    ws = wb["S"]
    assert [(ws.cell(row=r, column=1).value, ws.cell(row=r, column=1).data_type)
            for r in range(2, len(values) + 2)] == want  # fmt: skip
    t = wb["T"]
    assert [t["A2"].value, t["A3"].value] == ["2026-11-29T06:00:00", None]


@pytest.mark.parametrize(
    "empty", [pd.DataFrame(), pd.DataFrame(index=range(3))], ids=["nothing", "rows-only"]
)
def test_xlsx_table_without_columns_is_an_empty_sheet(empty: pd.DataFrame) -> None:
    df = pd.DataFrame({"a": ["x"], "b": [1]})
    data = tables.xlsx_bytes({"Before": df, "Empty": empty, "After": df}, "2026-01-01")
    _all_parts_parse(data)
    wb = openpyxl.load_workbook(io.BytesIO(data))
    assert wb.sheetnames == ["Before", "Empty", "After"]
    ws = wb["Empty"]
    assert list(ws.values) == [] and ws.auto_filter.ref is None and ws.freeze_panes == "A2"
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        sheet = z.read("xl/worksheets/sheet2.xml").decode()
    assert '<dimension ref="A1" />' in sheet and "<sheetData></sheetData>" in sheet
    for name in ("Before", "After"):  # the sheets around it as ever
        _check_sheet(wb[name], df)


def test_a_catalog_id_with_a_control_character_is_refused_before_any_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30: a catalog id held a control character (a TOML key was not free text) and the XLSX export
    failed on it. Ids now follow the id rule (tests/unit/test_ids.py): the design is refused with one
    line and exit 2, and nothing is written. The writer itself escapes such text in any cell (above)."""
    import shutil

    from layout.cli import main
    from layout.load import DEFAULT_TEMPLATES_DIR

    lib = tmp_path / "lib"
    shutil.copytree(DEFAULT_TEMPLATES_DIR, lib)
    catalog = (lib / "catalog.toml").read_text(encoding="utf-8")
    assert "\n[media.mmf]\n" in catalog
    (lib / "catalog.toml").write_text(
        catalog.replace("\n[media.mmf]\n", '\n[media."mmf\\u0007b"]\n'), "utf-8"
    )
    site = str(Path(__file__).resolve().parents[1] / "data" / "small-site.toml")
    out = tmp_path / "o"
    assert main(["design", site, "--templates", str(lib), "--out", str(out), "--no-svg", "--xlsx"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "media.mmf\\x07b: must be an id" in err[0], err
    assert not out.exists()


INJECTION = ["=1+2", '=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "=", "#N/A", "#DIV/0!"]


def test_xlsx_text_is_never_a_formula_or_an_error_code() -> None:
    """Formula injection: text starting with =, +, - or @ is a text cell holding that very text."""
    df = pd.DataFrame({"a": INJECTION, "n": range(len(INJECTION))})
    data = tables.xlsx_bytes({"S": df}, "2026-01-01")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        sheet = z.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in sheet and 't="e"' not in sheet and 't="str"' not in sheet
    ws = openpyxl.load_workbook(io.BytesIO(data))["S"]
    cells = [ws.cell(row=r, column=1) for r in range(2, len(INJECTION) + 2)]
    assert [c.value for c in cells] == INJECTION and {c.data_type for c in cells} == {"s"}


def test_a_site_name_that_looks_like_a_formula_is_text_in_the_workbook(tmp_path: Path, superpod: Any) -> None:
    summary = dict(superpod.summary, site='=HYPERLINK("http://x","y")')
    (path,) = tables.write_design_tables(
        tmp_path, "s", bom=superpod.bom, racks=superpod.design.placement.racks, links=superpod.links,
        summary=summary, date="2026-11-29", csv=False,
    )  # fmt: skip
    ws = openpyxl.load_workbook(path)["Summary"]
    site = next(r for r in ws.iter_rows(min_row=2) if r[3].value == "site")[1]  # by its summary.json key
    assert site.value == summary["site"] and site.data_type == "s"


@pytest.mark.parametrize(
    ("date", "zip_date"),
    [("1979-12-31", (1980, 1, 1)), ("0001-01-01", (1980, 1, 1)), ("2099-12-31", (2099, 12, 31)),
     ("2150-06-01", (2107, 12, 31)), ("9999-12-31", (2107, 12, 31)), ("1980-01-01", (1980, 1, 1))],
)  # fmt: skip
def test_xlsx_of_any_date_is_written_and_keeps_the_date(date: str, zip_date: tuple[int, int, int]) -> None:
    df = pd.DataFrame({"a": ["x"], "b": [1]})
    data = tables.xlsx_bytes({"S": df}, date)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert {i.date_time[:3] for i in z.infolist()} == {zip_date}
    wb = openpyxl.load_workbook(io.BytesIO(data))
    assert wb.properties.created == datetime.datetime.fromisoformat(date)
    assert wb["S"]["A2"].value == "x"


def test_design_command_writes_parquet_next_to_csv(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from layout.cli import main

    site = Path(__file__).resolve().parents[2] / "sites" / "superpod-4su.toml"
    assert main(["design", str(site), "--out", str(tmp_path), "--no-svg", "--csv", "--parquet"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["summary.json", "superpod-4su-bom.csv", "superpod-4su-bom.parquet",
                     "superpod-4su-links.csv", "superpod-4su-links.parquet",
                     "superpod-4su-ports.csv", "superpod-4su-ports.parquet"]  # fmt: skip
    for stem in ("bom", "links", "ports"):
        from_csv = pd.read_csv(tmp_path / f"superpod-4su-{stem}.csv", keep_default_na=False, na_values=[""])
        from_parquet = pq.read_table(tmp_path / f"superpod-4su-{stem}.parquet").to_pandas()
        assert from_parquet.columns.tolist() == from_csv.columns.tolist()
        assert len(from_parquet) == len(from_csv) > 0
        for c in from_csv.columns:
            a, b = from_csv[c], from_parquet[c]
            if b.dtype.kind == "f":
                assert np.allclose(a.astype(float), b, equal_nan=True), c
            else:
                assert a.fillna("").astype(str).tolist() == b.astype(str).tolist(), c


@pytest.fixture(scope="module")
def unplaced(make_inputs: Any) -> Any:
    """The small hall asked for 2,048 GPUs: 54 racks do not fit, so 240 devices and their links have no rack."""
    from layout.design import run

    d = run(make_inputs({"cluster": {"gpus": 2048}}))
    assert (d.placement.device_rack < 0).sum() > 0
    return d


@pytest.mark.parametrize("which", ["superpod", "unplaced"])
def test_ports_table_matches_a_row_by_row_build(which: str, superpod: Any, unplaced: Any) -> None:
    """The pyarrow-built ports table against each cable id and end written one link at a time."""
    d = superpod.design if which == "superpod" else unplaced
    pt = tables.ports_table(d.fabric, d.placement, d.cabling, "SITE")
    dev = d.fabric.devices["device_id"].tolist()
    model = d.fabric.devices["model"].tolist()
    racks = d.placement.racks["rack_id"].tolist()
    ru = d.placement.device_ru
    links = d.cabling.links
    rows = np.r_[0:300, len(links) - 300 : len(links)]
    for i in rows.tolist():
        got, link = pt.iloc[i], links.iloc[i]
        end = []
        for side, r in (("a", link["rack_a"]), ("b", link["rack_b"])):
            k = int(link[side])
            assert (got[f"{side}_device"], got[f"{side}_model"], got[f"{side}_ru"]) == (
                dev[k],
                model[k],
                ru[k],
            )
            assert got[f"{side}_rack"] == (racks[r] if r >= 0 else "")
            where = racks[r].replace("/", ".") if r >= 0 else dev[k]
            end.append(f"{where}-U{max(int(ru[k]), 0):02d}:{got[f'{side}_port'].replace('/', '.')}")
        assert got["cable_id"] == f"SITE.{end[0]}/{end[1]}"
        assert (got["network"], got["kind"], got["media"]) == (
            str(link["network"]),
            str(link["kind"]),
            str(link["media"]),
        )
    if which == "unplaced":
        assert (pt["a_rack"] == "").sum() > 0


def _parquet_back(data: bytes) -> Any:
    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(data))


def test_ports_arrow_holds_its_text_as_dictionaries_and_writes_its_pandas_twins_bytes(unplaced: Any) -> None:
    """The ports table stays dictionary-encoded until written; its CSV bytes are those of the plain
    pandas table (pandas' own CSV writer the reference), also where a value needs quotes; its Parquet
    file (the dictionaries kept as its dictionary pages) reads back as the pandas table's: the same
    plain types and values."""
    import pyarrow as pa

    d = unplaced
    for code in ("SITE", "A,B"):  # a comma in the site code: every cable id quoted, by pandas' writer
        table = tables.ports_arrow(d.fabric, d.placement, d.cabling, code)
        assert table.column_names == tables.PORT_COLUMNS
        text = [
            c
            for c in tables.PORT_COLUMNS
            if c not in ("cable_id", "a_ru", "b_ru", "length_m", "stock_length_m")
        ]
        assert all(pa.types.is_dictionary(table[c].type) for c in text)
        df = tables.ports_table(d.fabric, d.placement, d.cabling, code)
        assert tables.csv_bytes(table) == df.to_csv(index=False, lineterminator="\n").encode()
        back, twin = _parquet_back(tables.parquet_bytes(table)), _parquet_back(tables.parquet_bytes(df))
        assert back.schema == twin.schema and back.equals(twin)
        assert not any(pa.types.is_dictionary(t) for t in back.schema.types)
        pd.testing.assert_frame_equal(back.to_pandas(), df, check_dtype=False)
    assert b'"A,B.' in tables.csv_bytes(table)


# ------------------------------------------------------------------------------ XLSX: for finance
def _subtotal_9(ws: Any, ref: str) -> float:
    """Excel's SUBTOTAL(9, ref) worked out here: the sum of the range's numbers, skipping the cells that
    are SUBTOTAL formulas themselves."""
    total = 0.0
    for (cell,) in ws[ref]:
        if isinstance(cell.value, str) and cell.value.startswith("=SUBTOTAL("):
            continue
        total += float(cell.value or 0)
    return total


def test_bom_sheet_has_live_subtotals_and_a_total_that_read_back(tmp_path: Path, superpod: Any) -> None:
    """The workbook's BOM, read back with openpyxl: a subtotal formula after each category's lines over
    exactly those lines, a total over all of them, each with the value it computes cached (what pandas
    and previewers show), and these values are the BOM's own sums per category (bom.totals)."""
    (path,) = tables.write_design_tables(
        tmp_path, "s", bom=superpod.bom, racks=superpod.design.placement.racks, links=superpod.links,
        summary=superpod.summary, date="2026-11-29", csv=False,
    )  # fmt: skip
    ws = openpyxl.load_workbook(path)["BOM"]
    cached = openpyxl.load_workbook(path, data_only=True)["BOM"]
    by_category = bom.totals(superpod.bom)["by_category"]
    subtotals = {}
    first = 2
    for row in range(2, ws.max_row + 1):
        item, formula = ws.cell(row, 2).value, ws.cell(row, 7).value
        if str(item).startswith("Subtotal "):
            category = ws.cell(row, 1).value
            assert formula == f"=SUBTOTAL(9,G{first}:G{row - 1})"
            assert {ws.cell(r, 1).value for r in range(first, row)} == {category}  # its lines, all of them
            assert cached.cell(row, 7).value == pytest.approx(_subtotal_9(ws, f"G{first}:G{row - 1}"))
            subtotals[category] = cached.cell(row, 7).value
            first = row + 1
    assert subtotals == pytest.approx({c: v for c, v in by_category.items() if c in subtotals})
    assert set(subtotals) == set(superpod.bom["category"])
    last = ws.max_row
    assert (ws.cell(last, 1).value, ws.cell(last, 7).value) == ("Total", f"=SUBTOTAL(9,G2:G{last - 1})")
    assert cached.cell(last, 7).value == pytest.approx(_subtotal_9(ws, f"G2:G{last - 1}"))
    assert cached.cell(last, 7).value == pytest.approx(bom.totals(superpod.bom)["total"])
    # the autofilter spans the lines and subtotals, not the total below them
    assert ws.auto_filter.ref == f"A1:K{last - 1}"
    assert {ws.cell(r, 7).number_format for r in range(2, last + 1)} == {"#,##0.00"}
    assert {ws.cell(r, 4).number_format for r in range(2, last + 1)} == {"#,##0"}
    # pandas reads the cached figures: the total row says what the BOM costs
    df = pd.read_excel(path, sheet_name="BOM")
    assert df["Extended price (USD)"].iloc[-1] == pytest.approx(bom.totals(superpod.bom)["total"])
    # as procurement prints it: headers in words, the subtotals and the total in bold, the lines not
    assert [c.value for c in ws[1]] == [
        "Category", "Description", "Part", "Quantity", "Unit", "Unit price (USD)", "Extended price (USD)",
        "Part number", "Part number source", "Spares", "Spares price (USD)",
    ]  # fmt: skip
    # the spares' price totals too (column K), and equals the lines' spares x unit price
    assert ws.cell(last, 11).value == f"=SUBTOTAL(9,K2:K{last - 1})"
    assert cached.cell(last, 11).value == pytest.approx(
        float((superpod.bom["spares"] * superpod.bom["unit_price_usd"]).sum())
    )
    bold = {r for r in range(2, last + 1) if ws.cell(r, 2).font.b}
    assert bold == {
        r for r in range(2, last + 1) if str(ws.cell(r, 2).value).startswith(("Subtotal ", "Total "))
    }
    assert len(bold) == len(subtotals) + 1 and ws.cell(last, 7).font.b


def test_every_sheet_prints_landscape_one_page_wide_with_its_header_on_each_page(
    tmp_path: Path, superpod: Any
) -> None:
    (path,) = tables.write_design_tables(
        tmp_path, "s", bom=superpod.bom, racks=superpod.design.placement.racks, links=superpod.links,
        summary=superpod.summary, date="2026-11-29", csv=False,
    )  # fmt: skip
    for ws in openpyxl.load_workbook(path).worksheets:
        last = openpyxl.utils.get_column_letter(ws.max_column)
        assert ws.print_title_rows == "$1:$1", ws.title
        assert ws.print_area == f"'{ws.title}'!$A$1:${last}${ws.max_row}", ws.title
        setup = ws.page_setup
        assert (setup.orientation, setup.fitToWidth, setup.fitToHeight) == ("landscape", 1, 0)
        assert ws.sheet_properties.pageSetUpPr.fitToPage and str(setup.paperSize) == ws.PAPERSIZE_A4
        assert ws.oddHeader.center.text.endswith("&A") and ws.oddFooter.center.text == "Page &P of &N"


def test_every_sheet_has_a_frozen_header_an_autofilter_and_number_formats(
    tmp_path: Path, superpod: Any
) -> None:
    d = superpod.design
    ports = tables.port_tables(d, ports=False)
    (path,) = tables.write_design_tables(
        tmp_path, "s", bom=superpod.bom, racks=d.placement.racks, links=superpod.links,
        summary=superpod.summary, date="2026-11-29", csv=False, cages=ports["cages"],
    )  # fmt: skip
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == ["BOM", "Racks", "Links summary", "Ports", "Summary"]
    for ws in wb.worksheets:
        assert ws.freeze_panes == "A2", ws.title
        last = openpyxl.utils.get_column_letter(ws.max_column)
        rows = ws.max_row - (1 if ws.title == "BOM" else 0)  # the BOM's total row stands below its filter
        assert ws.auto_filter.ref == f"A1:{last}{rows}", ws.title
    racks = wb["Racks"]
    head = [c.value for c in racks[1]]
    assert racks.cell(2, head.index("servers") + 1).number_format == "#,##0"  # a quantity
    assert racks.cell(2, head.index("x_m") + 1).number_format == "General"  # a coordinate
    links = wb["Links summary"]
    head = [c.value for c in links[1]]
    assert links.cell(2, head.index("links") + 1).number_format == "#,##0"


def test_summary_sheet_speaks_words_with_units_and_keeps_the_key_last(tmp_path: Path, design_of: Any) -> None:
    d = design_of("superpod-4su")
    s = d.summary()
    words = tables.summary_words(s)
    assert list(words.columns) == ["figure", "value", "unit", "summary.json key"]
    assert not words["figure"].str.contains(r"[._]", regex=True).any()  # no dotted key, no underscore
    rows = {
        k: (f, v, u if isinstance(u, str) else None)
        for f, v, u, k in words.itertuples(index=False, name=None)
    }
    # the headline figures first, each under the one label every output gives it (layout/figures.py)
    assert rows["cost_usd.total"] == ("Capital cost, power chain included", s["cost_usd"]["total"], "USD")
    assert rows["power.it_mw"] == ("IT power (critical load)", s["power"]["it_mw"], "MW")
    assert rows["gpus"] == ("GPUs", 1024, None)
    assert rows["switches.total"] == ("Switches of the GPU fabric", 48, None)
    assert (
        rows["reliability.time_to_first_failure_min"][0]
        == "Time to the first failure, node-side optical links"
    )
    assert rows["reliability.all_links.time_to_first_failure_min"][0] == (
        "Time to the first failure, every backend link"
    )
    assert not words["figure"].duplicated().any()  # no label twice
    assert rows["switches_all_networks"] == ("Switches of every network", s["switches_all_networks"], None)
    assert rows["copper_share_pct"] == ("Copper share of the GPU fabric's links", s["copper_share_pct"], "%")
    assert rows["halls.B1/H1.it_mw"][0] == "Hall, B1/H1, IT load"  # ids keep their case
    assert rows["violations"][1] == 0
    keys = list(words["summary.json key"])
    assert keys[:3] == ["gpus", "racks.total", "power.it_mw"]  # the headline figures in their order
    after = [k for k in keys if k not in figures.SUMMARY_LABELS and not k.startswith("figures.")]
    assert after[:2] == ["site", "servers"]  # then the rest of summary.json in the design's order


# ------------------------------------------------------------------------------ formula injection (OWASP)
RISKY = ["=1+2", "+x", "-B1/H1/R01/K01", "@SUM(A1)", "\tTAB", "-", "=cmd|' /C calc'!A0"]
HARMLESS = ["-5", "+1.5e3", "-0.25", "B1-H1", "", "x=1", "#N/A"]


def _csv_cells(data: bytes) -> list[list[str]]:
    import csv

    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


def test_formula_like_text_is_defused_in_csv_cells_and_numbers_stay_numbers() -> None:
    texts = RISKY + HARMLESS
    n = len(texts)
    df = pd.DataFrame({
        "text": texts,
        "cat": pd.Categorical(texts),
        "num": np.linspace(-3.0, 3.0, n),
        "i": np.arange(n, dtype=np.int64) - 5,
    })  # fmt: skip
    for frame in (df, df.assign(comma=["a,b"] * n)):  # the columnar path and pandas' writer
        rows = _csv_cells(tables.csv_bytes(frame))
        body = rows[1:]
        want = ["'" + t for t in RISKY] + HARMLESS
        assert [r[0] for r in body] == want and [r[1] for r in body] == want
        assert [float(r[2]) for r in body] == frame["num"].tolist()  # no ' before a negative number
        assert [int(r[3]) for r in body] == frame["i"].tolist()
    assert tables.csv._csv_texts(df) is not None  # the first frame went the columnar way
    # a carriage return starts a formula too (no input can carry one: the text rule refuses it)
    assert tables.defused("\rCR") == "'\rCR" and tables.defused("-12") == "-12"


def test_formula_like_text_of_a_pyarrow_table_is_defused_plain_or_dictionary() -> None:
    import pyarrow as pa

    texts = RISKY[:3] + HARMLESS[:3]
    table = pa.table({"d": pa.array(texts).dictionary_encode(), "s": pa.array(texts), "n": list(range(6))})
    body = _csv_cells(tables.csv_bytes(table))[1:]
    want = ["'" + t for t in RISKY[:3]] + HARMLESS[:3]
    assert [r[0] for r in body] == want and [r[1] for r in body] == want


def test_formula_like_text_in_the_workbook_is_the_text_itself_with_the_quote_prefix() -> None:
    """XLSX cells are typed: formula-like text is a text cell holding that very text, with the quote
    prefix style (what Excel stores for a typed ') so that editing the cell keeps it text."""
    texts = [*HARMLESS[:2], *RISKY, *HARMLESS[2:], None]
    n = len(texts)
    df = pd.DataFrame({
        "a": texts,
        "qty": pd.Series([r"=1"] + [float(k) for k in range(n - 1)], dtype=object),  # a formatted column
        "price_usd": np.arange(n, dtype=float),
        "c": pd.Categorical([t or "x" for t in texts]),
    })  # fmt: skip
    for sheets in ({"S": df}, {"T": df.iloc[::-1].reset_index(drop=True), "S": df}):
        wb = _read_back(sheets)
        for name, frame in sheets.items():
            _check_sheet(wb[name], frame)
    ws = wb["S"]
    cells = [ws.cell(row=r, column=1) for r in range(2, n + 2)]
    assert [c.value for c in cells] == [t or None for t in texts]  # an empty text cell reads back None
    assert [c.quotePrefix for c in cells] == [t in RISKY for t in texts]
    assert {c.data_type for c in cells if c.value is not None} == {"s"}
    qty = ws.cell(row=2, column=2)
    assert (qty.value, qty.quotePrefix, qty.number_format) == ("=1", True, tables.COUNT_FORMAT)
    assert [ws.cell(row=r, column=3).quotePrefix for r in range(2, n + 2)] == [False] * n


def test_a_building_id_that_starts_with_a_dash_is_defused_in_the_exported_tables(
    tmp_path: Path, make_inputs: Any
) -> None:
    from layout import design

    d = design.run(make_inputs({"building": {0: {"id": "-B1"}}}))
    paths = tables.write_tables_of(d, tmp_path, csv=True, xlsx=True, stem="s")
    links = _csv_cells((tmp_path / "s-links.csv").read_bytes())
    col = links[0].index("rack_a")
    assert {r[col][:4] for r in links[1:]} == {"'-B1"}
    ports = _csv_cells((tmp_path / "s-ports.csv").read_bytes())
    col = ports[0].index("a_rack")
    assert {r[col][:4] for r in ports[1:]} == {"'-B1"}
    assert tmp_path / "s.xlsx" in paths
    ws = openpyxl.load_workbook(tmp_path / "s.xlsx")["Racks"]
    head = [c.value for c in ws[1]]
    racks = [row[head.index("rack_id")] for row in ws.iter_rows(min_row=2)]
    assert racks and all(c.value.startswith("-B1/") and c.quotePrefix for c in racks)


def test_a_cage_that_takes_hundreds_of_slow_links_still_names_their_modules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by bench/fuzz_inputs.py: a catalog whose dgx-h100 runs its backend at 1 Gb/s puts 800 links
    in a QM9700 cage (2 x 400G); validate said ok and design's CSV export failed (exit 3: an int8 copper
    assembly code plus 801 overflowed). Both say ok now, and the module names read back."""
    import shutil

    from layout.cli import main
    from layout.load import DEFAULT_TEMPLATES_DIR

    lib = tmp_path / "lib"
    shutil.copytree(DEFAULT_TEMPLATES_DIR, lib)
    catalog = (lib / "catalog.toml").read_text(encoding="utf-8")
    head, sep, rest = catalog.partition("[server.dgx-h100]")
    assert sep and "backend_port_gbps = 400" in rest
    (lib / "catalog.toml").write_text(
        head + sep + rest.replace("backend_port_gbps = 400", "backend_port_gbps = 1", 1), encoding="utf-8"
    )
    site = str(Path(__file__).resolve().parents[1] / "data" / "small-site.toml")
    assert main(["validate", site, "--templates", str(lib)]) == 0
    assert main(["design", site, "--templates", str(lib), "--out", str(tmp_path / "o"), "--csv"]) in (0, 1)
    assert "failed" not in capsys.readouterr().err
    ports = pd.read_csv(tmp_path / "o" / "small-site-ports.csv", keep_default_na=False)
    leaf_ends = ports.loc[(ports["kind"] == "gpu_leaf") & (ports["media_class"] != "dac"), "b_module"]
    assert len(leaf_ends) and leaf_ends.str.fullmatch(r"[a-z0-9-]+/(x\d+|straight|twin|breakout|split)").all()
