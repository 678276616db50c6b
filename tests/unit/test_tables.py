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

from layout import bom
from layout.export import tables


@pytest.fixture(scope="module")
def superpod(inputs_of: Any, design_of: Any) -> Any:
    inputs = inputs_of("superpod-4su")
    d = design_of("superpod-4su")
    cabling = d.cabling
    return SimpleNamespace(
        inputs=inputs, design=d, cabling=cabling, bom=bom.build(inputs, d.fabric, d.placement, cabling),
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
    assert list(values[0]) == bom.BOM_COLUMNS
    assert [list(r) for r in values[1:]] == superpod.bom.astype(object).values.tolist()
    assert ws["F2"].number_format == ws["G2"].number_format == "#,##0.00"  # the _usd columns
    assert ws["D2"].number_format == "General"  # qty
    racks = list(wb["Racks"].values)
    assert len(racks) - 1 == len(superpod.design.placement.racks)
    assert racks[1][0] == superpod.design.placement.racks["rack_id"].iloc[0]
    summ = {r[0]: r[1] for r in list(wb["Summary"].values)[1:]}
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
