"""The bill of materials chapter: totals by category, then every line with subtotals."""

from __future__ import annotations

from typing import Any

from reportlab.platypus import (
    Flowable,
)

from layout.export.pdf.document import h1, h2
from layout.export.pdf.flowables import Cell, Col, bold, data_table
from layout.export.pdf.formatting import fmt_int, fmt_pct, fmt_price, para
from layout.export.pdf.theme import FRAME_W

BOM_TITLES = {
    "servers": "Servers",
    "gpus": "GPUs",
    "racks": "Racks",
    "switches": "Switches",
    "nics": "NICs",
    "transceivers": "Transceivers",
    "cables": "Cables",
    "trays": "Trays and ducts",
    "power": "Power distribution",
    "cooling": "Cooling",
}


def story(design: Any) -> list[Flowable]:
    bom = design.bom
    total = float(bom["extended_usd"].sum())
    out: list[Flowable] = [*h1("Bill of materials")]
    out.append(
        para(
            f"{len(bom)} lines, {fmt_price(total)} in all at indicative catalog prices. GPUs are counted but priced "
            "with their servers; a medium's optics are priced per module, its cable per stock length."
        )
    )
    by = bom.groupby("category", sort=False).agg(lines=("item", "size"), usd=("extended_usd", "sum"))
    rows: list[list[Cell]] = [
        [
            BOM_TITLES.get(str(c), str(c)),
            fmt_int(r.lines),
            fmt_price(r.usd),
            fmt_pct(r.usd / total if total else 0.0),
        ]
        for c, r in by.iterrows()
    ]
    rows.append(
        [
            bold("Total"),
            bold(fmt_int(len(bom)), "cell_r"),
            bold(fmt_price(total), "cell_r"),
            bold("100.0 %", "cell_r"),
        ]
    )
    cols = [Col("Category", 150), Col("Lines", 60, True), Col("Extended", 120, True), Col("Share", 70, True)]
    out += [*h2("By category"), data_table(cols, rows, total_last=True)]
    rows = []
    emphasis = []
    for cat_name, part in bom.groupby("category", sort=False):
        title = BOM_TITLES.get(str(cat_name), str(cat_name))
        for r in part.itertuples():
            rows.append(
                [
                    str(r.item),
                    str(r.part_id),
                    f"{int(r.qty):,} {r.unit if r.unit != 'each' else ''}".strip(),
                    fmt_price(r.unit_price_usd) if r.unit_price_usd else "-",
                    fmt_price(r.extended_usd),
                ]
            )
        emphasis.append(len(rows))
        rows.append(
            [
                bold(f"Subtotal {title.lower()}"),
                "",
                "",
                "",
                bold(fmt_price(part["extended_usd"].sum()), "cell_r"),
            ]
        )
    rows.append([bold("Total"), "", "", "", bold(fmt_price(total), "cell_r")])
    cols = [
        Col("Item", 210),
        Col("Part", 85),
        Col("Quantity", 65, True),
        Col("Unit price", 65, True),
        Col("Extended", FRAME_W - 425, True),
    ]
    out += [*h2("Every line"), data_table(cols, rows, emphasis=emphasis, total_last=True)]
    return out
