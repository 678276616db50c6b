"""The tables of one design and the files they are written to.

- ``links_arrow(fabric, placement, cabling)``: one row per link with device and rack ids, dictionary-
  encoded (the CSV, Parquet and Links summary of all three formats built from one table);
  ``links_table``: the same as a DataFrame;
  ``links_summary(links)``: links and metres per network, kind and medium (for the XLSX);
  ``summary_rows(summary)``: ``summary.json`` flattened to (key, value) rows; ``summary_words``: the
  same in words, the workbook's Summary sheet; ``bom_sheet``: the BOM with live subtotals.
- ``write_design_tables(out_dir, stem, ...)``: ``{stem}-bom.csv``, ``{stem}-links.csv``,
  ``{stem}-ports.csv``, their Parquet twins and ``{stem}.xlsx`` (sheets BOM, Racks, Links summary,
  Ports, Summary) of one design.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout import figures
from layout.export.atomic import Settler
from layout.export.tables.csv import decoded, write_csv, write_parquet
from layout.export.tables.jsonout import jsonable
from layout.export.tables.ports import port_tables
from layout.export.tables.xlsx import BOLD_ROWS, FILTER_ROWS, HEADERS, Formula, column_letter, write_xlsx
from layout.power.schedule import SCHEDULE_COLUMNS

if TYPE_CHECKING:
    from layout.cable import Cabling
    from layout.design import Design
    from layout.fabric import Fabric
    from layout.place import Placement


def links_table(fabric: Fabric, placement: Placement, cabling: Cabling) -> pd.DataFrame:
    """:func:`links_arrow` as a pandas DataFrame: its text columns as pandas' arrow-backed ``str``, the
    numbers as they are."""
    import pyarrow as pa

    str_dtype = pd.StringDtype("pyarrow", na_value=np.nan)
    return decoded(links_arrow(fabric, placement, cabling)).to_pandas(
        types_mapper={pa.string(): str_dtype}.get
    )


LINK_COLUMNS = [
    "a_device", "b_device", "kind", "network", "speed_gbps", "pod", "rack_a", "rack_b", "route",
    "tray_m", "length_m", "media", "media_class", "stock_length_m", "status",
]  # fmt: skip


def links_arrow(fabric: Fabric, placement: Placement, cabling: Cabling) -> Any:
    """One row per link of ``cabling.links`` with device ids and rack ids instead of numbers
    (``LINK_COLUMNS``; a link end without a rack: an empty rack id), as a pyarrow Table.

    Every text column is dictionary-encoded, as :func:`ports_arrow`'s: the device and rack ids held
    once, each row an index into them, the categories by their codes; no string is copied per link
    until a file is written (the CSV writer decodes them a batch at a time, the Parquet writer keeps
    them as its dictionary pages, the Links summary groups the codes)."""
    import pyarrow as pa

    links = cabling.links
    dev_ids = _arrow_text(fabric.devices["device_id"])
    racks = placement.racks["rack_id"]
    rack_ids = pa.concat_arrays([_arrow_text(racks), pa.array([""], pa.string())])

    def coded(idx: Any, dictionary: Any) -> Any:
        return pa.DictionaryArray.from_arrays(pa.array(np.asarray(idx, np.int32)), dictionary)

    def rack(col: str) -> Any:
        r = links[col].to_numpy(np.int64)
        return coded(np.where(r >= 0, r, len(racks)), rack_ids)

    def text(col: str) -> Any:
        c = links[col]
        if not isinstance(c.dtype, pd.CategoricalDtype):
            c = c.astype(str).astype("category")
        codes = c.cat.codes.to_numpy()
        names = _arrow_text(pd.Series(c.cat.categories))
        return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32), mask=codes < 0), names)

    def number(col: str, digits: int | None = None) -> Any:
        x = links[col]
        return pa.array(x.round(digits) if digits is not None else x, from_pandas=True)  # NaN: null

    table = {
        "a_device": coded(links["a"].to_numpy(np.int64), dev_ids),
        "b_device": coded(links["b"].to_numpy(np.int64), dev_ids),
        "kind": text("kind"),
        "network": text("network"),
        "speed_gbps": number("speed_gbps"),
        "pod": number("pod"),
        "rack_a": rack("rack_a"),
        "rack_b": rack("rack_b"),
        "route": text("route"),
        "tray_m": number("tray_m", 3),
        "length_m": number("length_m", 3),
        "media": text("media"),
        "media_class": text("media_class"),
        "stock_length_m": number("stock_length_m"),
        "status": text("status"),
    }
    return pa.table([table[c] for c in LINK_COLUMNS], names=LINK_COLUMNS)


def _arrow_text(col: pd.Series) -> Any:
    import pyarrow as pa

    return pa.array(col.astype(str), from_pandas=True).cast(pa.string())


def links_summary(links: pd.DataFrame | Any) -> pd.DataFrame:
    """Links, routed metres and cable bought per network, kind and medium, sorted by them: of a links
    table (:func:`links_arrow`'s or a DataFrame with those columns), grouped by one integer key made of
    the four columns' codes (no string looked at per link)."""
    keys = ["network", "kind", "media", "media_class"]
    if not isinstance(links, pd.DataFrame):  # dictionary columns become categoricals
        links = links.select([*keys, "length_m", "stock_length_m"]).to_pandas()
    key = np.zeros(len(links), np.int64)
    names = []
    for k in keys:  # each name as text (a missing one as "nan", as str() writes it); codes in mixed radix
        codes, uniques = pd.factorize(links[k], use_na_sentinel=False)
        names.append(np.asarray([str(u) for u in uniques], dtype=object))
        key = key * max(len(uniques), 1) + codes
    df = pd.DataFrame({
        "key": key, "length_m": links["length_m"].to_numpy(float),
        "stock_length_m": links["stock_length_m"].to_numpy(float),
    })  # fmt: skip
    out = df.groupby("key", sort=True).agg(
        links=("length_m", "size"),
        routed_m=("length_m", "sum"),
        max_length_m=("length_m", "max"),
        cable_m=("stock_length_m", "sum"),
    )
    rest = out.index.to_numpy(np.int64)
    cols: dict[str, Any] = {}
    for k, words in reversed(list(zip(keys, names, strict=True))):
        cols[k] = words[rest % max(len(words), 1)]
        rest = rest // max(len(words), 1)
    head = pd.DataFrame({k: cols[k] for k in keys})
    out = pd.concat([head, out.reset_index(drop=True)], axis=1)
    out = out.sort_values(keys, kind="stable").reset_index(drop=True)
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
            rows.append((prefix, json.dumps(jsonable(v), sort_keys=True)))
        else:
            rows.append((prefix, jsonable(v)))

    walk("", summary)
    return pd.DataFrame(rows, columns=["key", "value"])


def bom_sheet(bom: pd.DataFrame) -> pd.DataFrame:
    """The BOM as finance reads it: each category's lines followed by its subtotal row, then a total row
    below them; the subtotals and the total are live ``SUBTOTAL(9, ...)`` formulas over the money columns
    (the lines' price and their spares' price: the total with spares is their sum) (SUBTOTAL skips the
    subtotals inside its range and the rows an autofilter hides, so a filtered sheet totals what it
    shows). ``attrs["filter_rows"]``: the lines and subtotals, not the total."""
    cols = list(bom.columns)
    money = "extended_usd"
    if money not in cols or not len(bom):
        return bom
    summed = [c for c in (money, "spares_usd") if c in cols]
    letters = {c: column_letter(cols.index(c)) for c in summed}
    values = {c: bom[c].to_numpy(float) for c in summed}
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
        for c in summed:
            subtotal[c] = Formula(
                f"SUBTOTAL(9,{letters[c]}{top}:{letters[c]}{len(rows) + 1})", float(values[c][first:i].sum())
            )
        rows.append([subtotal[c] for c in cols])
        first = i
    last = len(rows) + 1
    total: dict[str, Any] = {c: None for c in cols} | {"category": "Total", "item": "Total of every line"}
    for c in summed:
        total[c] = Formula(f"SUBTOTAL(9,{letters[c]}2:{letters[c]}{last})", float(values[c].sum()))
    out = pd.DataFrame([*rows, [total[c] for c in cols]], columns=cols)
    out.attrs[FILTER_ROWS] = len(rows)
    # as procurement prints it: the subtotals and the total in bold, the headers in words
    out.attrs[BOLD_ROWS] = [
        i for i, r in enumerate(out["item"].astype(str)) if r.startswith(("Subtotal ", "Total "))
    ]
    out.attrs[HEADERS] = BOM_HEADERS
    return out


# the BOM sheet's column headers, in words
BOM_HEADERS = {
    "category": "Category",
    "item": "Description",
    "part_id": "Part",
    "qty": "Quantity",
    "unit": "Unit",
    "unit_price_usd": "Unit price (USD)",
    "extended_usd": "Extended price (USD)",
    "part_number": "Part number",
    "part_number_source": "Part number source",
    "spares": "Spares",
    "spares_usd": "Spares price (USD)",
}


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
    links: pd.DataFrame | Any,
    summary: dict[str, Any],
    date: str,
    csv: bool = True,
    xlsx: bool = True,
    parquet: bool = False,
    ports: pd.DataFrame | Any = None,
    cages: pd.DataFrame | None = None,
    power: pd.DataFrame | None = None,
    cabinets: pd.DataFrame | None = None,
) -> list[Path]:
    """``{stem}-bom.csv`` and ``{stem}-links.csv`` (``csv``), ``{stem}-bom.parquet`` and
    ``{stem}-links.parquet`` (``parquet``) and ``{stem}.xlsx`` (``xlsx``); ``links`` is
    ``links_arrow(...)`` (or its DataFrame, ``links_table(...)``: the same bytes). Given ``ports`` (``ports_table(...)``) also ``{stem}-ports.csv`` / ``.parquet``,
    given ``cages`` (the port map's cages per model and group) a Ports sheet, given ``power``
    (``power_table(...)``) a Power sheet, given ``cabinets`` (``cabinet_table(...)``) with rows a Fibre
    cabinets sheet. Returns the paths written."""
    out = Path(out_dir)
    written: list[Path] = []
    # each file's flush to disk goes on in the background while the next one is made
    with Settler() as settler:
        if csv:
            written.append(write_csv(bom, out / f"{stem}-bom.csv", settler))
            written.append(write_csv(links, out / f"{stem}-links.csv", settler))
            if ports is not None:
                written.append(write_csv(ports, out / f"{stem}-ports.csv", settler))
        if parquet:
            written.append(write_parquet(bom, out / f"{stem}-bom.parquet", settler))
            written.append(write_parquet(links, out / f"{stem}-links.parquet", settler))
            if ports is not None:
                written.append(write_parquet(ports, out / f"{stem}-ports.parquet", settler))
        if xlsx:
            sheets = {
                "BOM": bom_sheet(bom),
                "Racks": racks,
                "Links summary": links_summary(links),
                **({"Ports": cages} if cages is not None else {}),
                **({"Power": power} if power is not None else {}),
                **({"Fibre cabinets": cabinets} if cabinets is not None and len(cabinets) else {}),
                "Summary": summary_words(summary),
            }
            title = str(summary.get("site", stem))
            written.append(write_xlsx(sheets, out / f"{stem}.xlsx", date, title=title, settler=settler))
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
        links=links_arrow(design.fabric, design.placement, design.cabling),
        summary=design.summary() if summary is None else summary,
        date=design.inputs.site.site.date,
        csv=csv,
        xlsx=xlsx,
        parquet=parquet,
        ports=pt.get("ports"),
        cages=pt.get("cages"),
        power=power_table(design) if xlsx else None,
        cabinets=cabinet_table(design) if xlsx else None,
    )


def cabinet_table(design: Design) -> pd.DataFrame:
    """The Fibre cabinets sheet: each cabinet of the cable plant where it stands (layout/cable/cabinets.py),
    its panel location, the 1U panels it holds (the location's panels beyond its rack's free U, filled
    cabinet by cabinet) and the floor run of the location's cords to it."""
    plant = design.cabling.plant
    cab = plant.cabinets
    rack_ids = design.placement.racks["rack_id"].astype(str).to_numpy(object)
    rest = pd.Series((plant.panels["panels"] - plant.panels["in_rack"]).to_numpy(np.int64))
    rest.index = plant.panels["rack"].to_numpy(np.int64)
    per = design.inputs.catalog.plant.cabinet_ru
    r, k = cab["rack"].to_numpy(np.int64), cab["number"].to_numpy(np.int64)
    held = (
        np.clip(rest.reindex(r, fill_value=0).to_numpy(np.int64) - (k - 1) * per, 0, per) if len(cab) else k
    )
    return pd.DataFrame(
        {
            "cabinet_id": cab["cabinet_id"].astype(str).to_numpy(object),
            "location": rack_ids[r] if len(cab) else np.zeros(0, object),
            "hall": cab["hall"].astype(str).to_numpy(object),
            "row": cab["row"].astype(str).to_numpy(object),
            "x_m": cab["x_m"].to_numpy(float),
            "y_m": cab["y_m"].to_numpy(float),
            "rotation_deg": cab["rotation_deg"].to_numpy(float),
            "width_m": cab["width_m"].to_numpy(float),
            "depth_m": cab["depth_m"].to_numpy(float),
            "panels_1u": held.astype(np.int64),
            "run_m": cab["run_m"].to_numpy(float),
        }
    )


def racks_with_feeds(design: Design) -> pd.DataFrame:
    """The racks table with each rack's A and B feed (the busways its tap-offs hang on)."""
    racks = design.placement.racks.copy()
    feeds = design.chain.feeds
    racks["feed_a"] = feeds["feed_a"].to_numpy()
    racks["feed_b"] = feeds["feed_b"].to_numpy()
    return racks


POWER_COLUMNS = SCHEDULE_COLUMNS


def power_table(design: Any) -> pd.DataFrame:
    """The Power sheet: the design's electrical schedule (layout/power/schedule.py)."""
    return design.schedule
