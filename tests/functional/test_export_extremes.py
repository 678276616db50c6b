"""Input at the edges of what validates designs and writes every export, each of which reads back: a
site dated outside the years a zip can hold, a site name that looks like a spreadsheet formula, the
dearest price the catalog takes, media that all reach 1 m (most links then have no medium). A price
beyond that (1e308: the BOM total would be infinite) is refused by validate with one line."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ezdxf
import openpyxl
import pytest
from pypdf import PdfReader

from layout.model.catalog import MAX_PRICE_USD

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "sites" / "superpod-4su.toml"


def project(tmp_path: Path, site: Callable[[str], str] = str, catalog: Callable[[str], str] = str) -> Path:
    """A site folder beside its own rack_templates, the site and catalog texts changed by the functions."""
    shutil.copytree(ROOT / "rack_templates", tmp_path / "rack_templates")
    cat = tmp_path / "rack_templates" / "catalog.toml"
    cat.write_text(catalog(cat.read_text()))
    (tmp_path / "sites").mkdir()
    path = tmp_path / "sites" / "edge.toml"
    path.write_text(site(SITE.read_text()))
    return path


def every_export_reads_back(dclayout: Callable[..., Any], site: Path) -> Path:
    out = site.parent.parent / "out"
    run = dclayout("design", str(site), "--out", str(out), "--dxf", "--pdf", "--csv", "--xlsx", "--parquet")
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    for svg in out.glob("*.svg"):
        ET.parse(svg)
    ezdxf.readfile(out / "edge.dxf")
    assert len(PdfReader(out / "edge.pdf").pages) > 3
    wb = openpyxl.load_workbook(out / "edge.xlsx")
    sheets = ["BOM", "Racks", "Links summary", "Ports", "Power", "Summary"]
    assert wb.sheetnames in (sheets, [*sheets[:5], "Fibre cabinets", "Summary"])  # with cabinets or none
    assert (out / "edge-links.csv").stat().st_size > 0 and (out / "edge-bom.parquet").stat().st_size > 0
    return out


def with_key(text: str, key: str, value: str) -> str:
    new, n = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text, count=1)
    assert n == 1, key
    return new


@pytest.mark.parametrize("date", ["1970-01-01", "2150-06-01"])
def test_a_site_dated_outside_the_zip_years_exports(
    tmp_path: Path, dclayout: Callable[..., Any], date: str
) -> None:
    site = project(tmp_path, site=lambda t: with_key(t, "date", f'"{date}"'))
    out = every_export_reads_back(dclayout, site)
    assert str(openpyxl.load_workbook(out / "edge.xlsx").properties.created.date()) == date


def test_a_site_name_that_is_a_formula_is_text_in_the_workbook(
    tmp_path: Path, dclayout: Callable[..., Any]
) -> None:
    name = '=HYPERLINK("http://example.com","click")'
    site = project(
        tmp_path, site=lambda t: with_key(t, "name", '"=HYPERLINK(\\"http://example.com\\",\\"click\\")"')
    )
    out = every_export_reads_back(dclayout, site)
    ws = openpyxl.load_workbook(out / "edge.xlsx")["Summary"]
    cell = next(r for r in ws.iter_rows(min_row=2) if r[3].value == "site")[1]  # by its summary.json key
    assert cell.value == name and cell.data_type == "s"


def test_the_dearest_price_and_media_that_reach_1_m_export(
    tmp_path: Path, dclayout: Callable[..., Any]
) -> None:
    def catalog(t: str) -> str:
        t = re.sub(r"(?m)^price_usd = [0-9.]+", f"price_usd = {MAX_PRICE_USD:.0f}", t)
        t = re.sub(r"(?m)^reach_m = [0-9.]+", "reach_m = 1.0", t)
        return re.sub(r"(?m)^stock_lengths_m = .*$", "stock_lengths_m = [1.0]", t)

    every_export_reads_back(dclayout, project(tmp_path, catalog=catalog))


def test_a_price_of_1e308_is_refused_by_validate(tmp_path: Path, dclayout: Callable[..., Any]) -> None:
    site = project(
        tmp_path, catalog=lambda t: re.sub(r"(?m)^price_usd = [0-9.]+", "price_usd = 1e308", t, count=1)
    )
    run = dclayout("validate", str(site))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    line = f"{tmp_path / 'rack_templates' / 'catalog.toml'}: server.dgx-h100.price_usd: must be <= 1000000000"
    assert (run.stdout + run.stderr).splitlines()[0].startswith(line)
