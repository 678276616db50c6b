"""Table exports: CSV, XLSX (openpyxl) and JSON, written atomically and byte-stable.

- ``write_csv(df, path)``: UTF-8, ``\\n`` line ends, no index, NaN as an empty cell.
- ``write_json(obj, path)``: sorted keys, two-space indent, NaN/inf as ``null``.
- ``write_xlsx(sheets, path, date)``: one sheet per DataFrame, bold frozen header, column widths from
  the content, USD columns formatted ``#,##0.00``. Same input, same bytes: the workbook's created and
  modified dates are the site's date (not the clock) and so are the timestamps of the zip entries.
- ``links_table(fabric, placement, cabling)``: one row per link with device and rack ids (for CSV);
  ``links_summary(links)``: links and metres per network, kind and medium (for the XLSX);
  ``summary_rows(summary)``: ``summary.json`` flattened to (key, value) rows.
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

from layout.export.atomic import write_bytes

if TYPE_CHECKING:
    from layout.design import Design
    from layout.fabric import Fabric
    from layout.media import Cabling
    from layout.place import Placement

USD_SUFFIX = "_usd"
MAX_COLUMN_WIDTH = 60


def csv_bytes(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False, lineterminator="\n").encode("utf-8")


def write_csv(df: pd.DataFrame, path: str | Path) -> Path:
    return write_bytes(path, csv_bytes(df))


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


PORT_COLUMNS = [
    "cable_id", "network", "kind",
    "a_device", "a_model", "a_rack", "a_ru", "a_port", "a_cage", "a_form", "a_module",
    "b_device", "b_model", "b_rack", "b_ru", "b_port", "b_cage", "b_form", "b_module",
    "media", "media_class", "assembly", "length_m", "stock_length_m",
]  # fmt: skip


def ports_table(fabric: Fabric, placement: Placement, cabling: Cabling, site_code: str) -> pd.DataFrame:
    """One row per link of ``cabling.links`` (same order) with both ends' device, model, rack, RU, port,
    cage, form factor and module (``PORT_COLUMNS``).

    ``cable_id`` is one TIA-606-style label printed on both ends: ``SITE.`` then the near end and the
    far end, ``/`` between them, each end as building.hall.row.rack, ``-U`` and the device's RU, ``:``
    and the port (``7.2`` = cage 7, port 2), e.g. ``SUPERPOD-4SU.B1.H1.R01.K05-U41:7.2/B1.H1.R01.K01-
    U02:be1.1``. An end whose device is not placed is named by the device id instead of rack and RU.
    ``a_module``: what plugs into the cage, ``mmf/x2`` (a twin-port multimode module), ``dac/breakout``
    (a copper assembly: ``straight``, ``twin`` or ``breakout``), empty without a medium.
    """
    from layout.ports import ASSEMBLIES, FORMS, cage_label_codes, port_label_codes

    pm = cabling.ports
    if pm is None:
        raise ValueError("the cabling has no port map")
    links = cabling.links
    dev = fabric.devices

    def take(values: Any, idx: np.ndarray) -> pd.Series:  # arrow strings taken by index, no Python str
        return pd.Series(values, dtype="string").take(idx).reset_index(drop=True)

    rack_ids = [*placement.racks["rack_id"].astype(str).tolist(), ""]
    rack_label = [r.replace("/", ".") for r in rack_ids]
    ru = np.asarray(placement.device_ru, dtype=np.int64)
    ru_label = [f"-U{u:02d}:" for u in range(max(int(ru.max(initial=0)), 0) + 1)]
    media_ids = [str(c) for c in links["media"].cat.categories]  # catalog ids, then "" (no medium)
    mcode = links["media"].cat.codes.to_numpy().astype(np.int64)
    optical = links["media_class"].astype(str).isin(["mmf", "smf", "coherent"]).to_numpy()
    group = pm.group.astype(np.int64)
    port_names, port_inv = port_label_codes(group, pm.cage, pm.port, pm.per_cage)
    dotted = [p.replace("/", ".") for p in port_names]
    cage_names, cage_inv = cage_label_codes(group, pm.cage)
    per_max = int(pm.per_cage.max(initial=1)) + 1
    # module names: (medium, per-cage ports or copper assembly)
    kinds = [f"/x{k}" for k in range(per_max)] + [f"/{a}" for a in ASSEMBLIES]
    module_names = [m + k if m else "" for m in media_ids for k in kinds]
    dev_ids = dev["device_id"].astype("string")
    dev_models = dev["model"].astype("string")
    cols: dict[str, Any] = {}
    ends: dict[str, pd.Series] = {}
    for side, dcol, rcol in (("a", "a", "rack_a"), ("b", "b", "rack_b")):
        sl = pm.end(side)
        d = links[dcol].to_numpy(np.int64)
        r = links[rcol].to_numpy(np.int64)
        r = np.where(r >= 0, r, len(rack_ids) - 1)
        module = mcode * len(kinds) + np.where(optical, pm.per_cage[sl], per_max + pm.assembly)
        port = take(port_names, port_inv[sl])
        cols[f"{side}_device"] = device = take(dev_ids, d)
        cols[f"{side}_model"] = take(dev_models, d)
        cols[f"{side}_rack"] = take(rack_ids, r)
        cols[f"{side}_ru"] = ru[d]
        cols[f"{side}_port"] = port
        cols[f"{side}_cage"] = take(cage_names, cage_inv[sl])
        cols[f"{side}_form"] = take(list(FORMS), pm.form[sl])
        cols[f"{side}_module"] = take(module_names, module)
        where = take(rack_label, r).where(r < len(rack_ids) - 1, device)
        ends[side] = where + take(ru_label, np.maximum(ru[d], 0)) + take(dotted, port_inv[sl])
    out = pd.DataFrame(
        {
            "cable_id": f"{site_code}." + ends["a"] + "/" + ends["b"],
            "network": links["network"].to_numpy(),
            "kind": links["kind"].to_numpy(),
            **cols,
            "media": links["media"].to_numpy(),
            "media_class": links["media_class"].to_numpy(),
            "assembly": take(list(ASSEMBLIES), pm.assembly),
            "length_m": links["length_m"].round(3).to_numpy(),
            "stock_length_m": links["stock_length_m"].to_numpy(),
        }
    )
    return out[PORT_COLUMNS]


def port_tables(design: Design, csv: bool = True) -> dict[str, pd.DataFrame]:
    """``write_design_tables``'s ``ports`` (the port map, only when ``csv``: it is one row per link)
    and ``cages`` (the Ports sheet) of a design; nothing when its cabling has no port map."""
    pm = design.cabling.ports
    if pm is None:
        return {}
    out = {"cages": pm.cages}
    if csv:
        code = design.inputs.stem.upper()
        out["ports"] = ports_table(design.fabric, design.placement, design.cabling, code)
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
    ports: pd.DataFrame | None = None,
    cages: pd.DataFrame | None = None,
) -> list[Path]:
    """``{stem}-bom.csv``, ``{stem}-links.csv`` and, given ``ports`` (``ports_table(...)``),
    ``{stem}-ports.csv`` (``csv``) and ``{stem}.xlsx`` (``xlsx``; a Ports sheet from ``cages``, the port
    map's cages per model and group); ``links`` is ``links_table(...)``. Returns the paths written."""
    out = Path(out_dir)
    written: list[Path] = []
    if csv:
        written.append(write_csv(bom, out / f"{stem}-bom.csv"))
        written.append(write_csv(links, out / f"{stem}-links.csv"))
        if ports is not None:
            written.append(write_csv(ports, out / f"{stem}-ports.csv"))
    if xlsx:
        sheets = {
            "BOM": bom,
            "Racks": racks,
            "Links summary": links_summary(links),
            **({"Ports": cages} if cages is not None else {}),
            "Summary": summary_rows(summary),
        }
        written.append(write_xlsx(sheets, out / f"{stem}.xlsx", date, title=str(summary.get("site", stem))))
    return written
