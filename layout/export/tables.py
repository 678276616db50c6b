"""Table exports: CSV, XLSX (openpyxl) and JSON, written atomically and byte-stable.

- ``write_csv(df, path)``: UTF-8, ``\\n`` line ends, no index, NaN as an empty cell.
- ``write_json(obj, path)``: sorted keys, two-space indent, NaN/inf as ``null``.
- ``write_xlsx(sheets, path, date)``: one sheet per DataFrame, bold frozen header, column widths from
  the content, USD columns formatted ``#,##0.00``. Same input, same bytes: the workbook's created and
  modified dates are the site's date (not the clock) and so are the timestamps of the zip entries.
- ``links_table(fabric, placement, cabling)``: one row per link with device and rack ids (for CSV);
  ``links_summary(links)``: links and metres per network, kind and medium (for the XLSX);
  ``summary_rows(summary)``: ``summary.json`` flattened to (key, value) rows.
- ``write_fabric_csv(fabric, out_dir)``: ``fabric-devices.csv`` (one row per device: server, switch;
  tier 0 servers, 1 leaf, 2 spine, 3 core, 4 super) and ``fabric-links.csv`` (one row per link, its
  two ends by device id) of `dclayout fabric --csv DIR`, for checking the fabric with other tools.
- ``write_design_tables(out_dir, stem, ...)``: ``{stem}-bom.csv``, ``{stem}-links.csv`` and
  ``{stem}.xlsx`` (sheets BOM, Racks, Links summary, Summary) of one design.
"""

from __future__ import annotations

import datetime
import io
import json
import math
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.export.atomic import atomic_path, write_bytes

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.media import Cabling
    from layout.place import Placement

USD_SUFFIX = "_usd"
MAX_COLUMN_WIDTH = 60


def csv_bytes(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False, lineterminator="\n").encode("utf-8")


def write_csv(df: pd.DataFrame, path: str | Path) -> Path:
    return write_bytes(path, csv_bytes(df))


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
    """The workbook of ``sheets`` (name -> table) as bytes; ``date`` (YYYY-MM-DD) stamps it."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter
    from openpyxl.writer.excel import ExcelWriter

    stamp = _site_datetime(date)
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
        for row in df.itertuples(index=False, name=None):
            ws.append([_cell(v) for v in row])
        ws.freeze_panes = "A2"
        for j, col in enumerate(cols, start=1):
            letter = get_column_letter(j)
            values = df.iloc[:, j - 1]
            longest = max([len(col), *(len(_shown(v)) for v in values.head(2000))])
            ws.column_dimensions[letter].width = min(longest + 2, MAX_COLUMN_WIDTH)
            if col.endswith(USD_SUFFIX):
                for cell in ws[letter][1:]:
                    cell.number_format = "#,##0.00"
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        ExcelWriter(wb, archive).write_data()  # not wb.save(): that stamps the clock into docProps
    return _restamp_zip(raw.getvalue(), stamp)


def _restamp_zip(data: bytes, stamp: datetime.datetime) -> bytes:
    """The same zip with every entry dated ``stamp`` (zip entries carry the clock otherwise)."""
    out = io.BytesIO()
    when = (stamp.year, stamp.month, stamp.day, 0, 0, 0)
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=when)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, src.read(info.filename))
    return out.getvalue()


def _cell(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is pd.NA or v is pd.NaT:
        return None
    return v


def _shown(v: Any) -> str:
    v = _cell(v)
    return "" if v is None else str(v)


def write_xlsx(sheets: dict[str, pd.DataFrame], path: str | Path, date: str, title: str = "") -> Path:
    return write_bytes(path, xlsx_bytes(sheets, date, title))


def links_table(fabric: Fabric, placement: Placement, cabling: Cabling) -> pd.DataFrame:
    """One row per link of ``cabling.links`` with device ids and rack ids instead of numbers."""
    links = cabling.links
    dev_ids = fabric.devices["device_id"].to_numpy()
    rack_ids = np.r_[placement.racks["rack_id"].to_numpy(dtype=object), np.array([""], dtype=object)]

    def rack(col: str) -> np.ndarray:
        r = links[col].to_numpy(np.int64)
        return rack_ids[np.where(r >= 0, r, len(rack_ids) - 1)]

    return pd.DataFrame({
        "a_device": dev_ids[links["a"].to_numpy(np.int64)],
        "b_device": dev_ids[links["b"].to_numpy(np.int64)],
        "kind": links["kind"].astype(str),
        "network": links["network"].astype(str),
        "speed_gbps": links["speed_gbps"],
        "pod": links["pod"],
        "rack_a": rack("rack_a"),
        "rack_b": rack("rack_b"),
        "route": links["route"].astype(str),
        "tray_m": links["tray_m"].round(3),
        "length_m": links["length_m"].round(3),
        "media": links["media"].astype(str),
        "media_class": links["media_class"].astype(str),
        "stock_length_m": links["stock_length_m"],
        "status": links["status"].astype(str),
    })  # fmt: skip


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


def summary_rows(summary: dict[str, Any]) -> pd.DataFrame:
    """``summary.json`` as (key, value) rows with dotted keys; lists of objects stay JSON text."""
    rows: list[tuple[str, Any]] = []

    def walk(prefix: str, v: Any) -> None:
        if isinstance(v, dict) and v:
            for k in sorted(v):
                walk(f"{prefix}.{k}" if prefix else str(k), v[k])
        elif isinstance(v, list | dict):
            rows.append((prefix, json.dumps(_clean(v), sort_keys=True)))
        else:
            rows.append((prefix, _clean(v)))

    walk("", summary)
    return pd.DataFrame(rows, columns=["key", "value"])


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
) -> list[Path]:
    """``{stem}-bom.csv`` and ``{stem}-links.csv`` (``csv``) and ``{stem}.xlsx`` (``xlsx``); ``links`` is
    ``links_table(...)``. Returns the paths written."""
    out = Path(out_dir)
    written: list[Path] = []
    if csv:
        written.append(write_csv(bom, out / f"{stem}-bom.csv"))
        written.append(write_csv(links, out / f"{stem}-links.csv"))
    if xlsx:
        sheets = {
            "BOM": bom,
            "Racks": racks,
            "Links summary": links_summary(links),
            "Summary": summary_rows(summary),
        }
        written.append(write_xlsx(sheets, out / f"{stem}.xlsx", date, title=str(summary.get("site", stem))))
    return written
