"""The structured cabling section of the network chapter: trunks by size, panel locations, the optical
channels with the highest loss against their budget, and the installation effort per hall."""

from __future__ import annotations

from typing import Any

import numpy as np
from reportlab.platypus import Flowable

from layout import figures
from layout.export.pdf.document import h2
from layout.export.pdf.flowables import Cell, Col, data_table
from layout.export.pdf.formatting import fmt_int, fmt_num, para
from layout.export.pdf.theme import FRAME_W

WORST = 12  # channels listed, highest loss first


def story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    plant = design.cabling.plant
    f = design.figures
    trunks, panels, ch = plant.trunks, plant.panels, plant.channels
    structured = ch[ch["structured"].to_numpy()] if len(ch) else ch
    out: list[Flowable] = [*h2("Structured cabling")]
    out.append(
        para(
            f"Optical links between rows run as built: a patch cord to a panel, an MPO trunk between panel "
            f"locations and a cord to the far port (Type B polarity); links inside a rack or to the next "
            f"rack stay direct. {len(structured):,} of {len(ch):,} optical links run through the panels: "
            f"{f['trunks'].line()}, {f['patch_panels'].line()}, {f['worst_channel_db'].line()}."
        )
    )
    if len(trunks):
        by = (
            trunks.groupby(["fibres", "connector", "fibre"], observed=True)
            .agg(
                n=("trunk", "size"),
                m=("length_m", "sum"),
                links=("links", "sum"),
                used=("fibres_used", "sum"),
            )
            .reset_index()
            .sort_values(["fibres", "fibre", "connector"])
        )
        rows: list[list[Cell]] = [
            [
                f"{int(r.fibres):,}-fibre {str(r.fibre).upper()} {str(r.connector).upper()}",
                fmt_int(r.n),
                fmt_num(r.m, 0),
                fmt_int(r.links),
                f"{100.0 * r.used / max(r.n * r.fibres, 1):.0f} %",
            ]
            for r in by.itertuples(index=False)
        ]
        cols = [
            Col("Trunk", 170),
            Col("Trunks", 60, True),
            Col("Metres", 70, True),
            Col("Links", 60, True),
            Col("Fibres used", FRAME_W - 360, True),
        ]
        out += [
            para("Trunks by size (stock fibre counts), with the share of their fibres in use."),
            data_table(cols, rows),
        ]
    if len(panels):
        racks = design.placement.racks["rack_id"].astype(str).to_numpy()
        top = panels.sort_values(["panels", "rack"], ascending=[False, True]).head(8)
        rows = [
            [
                racks[int(r.rack)],
                fmt_int(r.panels),
                fmt_int(r.cassettes),
                fmt_int(r.trunks),
                fmt_int(r.fibres),
                f"{int(r.in_rack)} of {int(r.free_ru)}",
                fmt_int(r.cabinets),
                fmt_num(r.cord_extra_m, 1),
            ]
            for r in top.itertuples(index=False)
        ]
        cols = [
            Col("Panel location (rack)", 115),
            Col("1U panels", 50, True),
            Col("Cassettes", 50, True),
            Col("Trunks", 40, True),
            Col("Fibres", 55, True),
            Col("In rack (U free)", 75, True),
            Col("Fibre cabinets", 65, True),
            Col("Cord +m", FRAME_W - 450, True),
        ]
        cab = int(panels["cabinets"].sum())
        placed = len(design.cabling.plant.cabinets)
        p = design.inputs.catalog.plant
        out += [
            para(
                f"{len(panels):,} panel locations; the largest below. A location's panels fill the U its "
                f"rack's devices leave free, the rest go into fibre cabinets of {p.cabinet_ru} panels "
                f"({cab:,} cabinets, at most {int(panels['cabinets'].max()):,} at one location). The "
                f"cabinets ({p.cabinet_width_mm:g} x {p.cabinet_depth_mm:g} mm) stand on free rack positions "
                f"of the floor grid nearest their location (in a row, out of every aisle; drawn on the hall "
                f"plans), {placed:,} of them placed; the location's cords are made longer by the floor run "
                f"to its farthest cabinet and one cabinet's width more (column 'Cord +m')."
            ),
            data_table(cols, rows),
        ]
    if len(ch):
        loss = ch["loss_db"].to_numpy(float)
        worst = np.lexsort((ch["link"].to_numpy(), -loss))[:WORST]
        links = design.cabling.links
        rows = [
            [
                fmt_int(int(ch["link"].iat[i])),
                str(links["kind"].iat[int(ch["link"].iat[i])]),
                str(links["media"].iat[int(ch["link"].iat[i])]),
                fmt_num(float(ch["length_m"].iat[i]), 1),
                f"{int(ch['connections'].iat[i])} of {int(ch['max_connections'].iat[i])}",
                fmt_num(float(ch["loss_db"].iat[i]), 2),
                fmt_num(float(ch["budget_db"].iat[i]), 2),
                "over" if bool(ch["over"].iat[i]) else "",
            ]
            for i in worst.tolist()
        ]
        cols = [
            Col("Link", 45, True),
            Col("Kind", 70),
            Col("Medium", 55),
            Col("Metres", 50, True),
            Col("Connections", 70, True),
            Col("Loss dB", 50, True),
            Col("Budget dB", 55, True),
            Col("", FRAME_W - 395),
        ]
        over = int(ch["over"].sum())
        out += [
            para(
                f"Each optical link's channel: mated connections, splices and fibre loss against its module's "
                f"budget and connection count (catalog [plant]). {over:,} channel(s) over budget. The "
                f"{min(WORST, len(ch))} highest losses:"
            ),
            data_table(cols, rows),
        ]
    install = summary.get("install") or {}
    if install.get("by_hall"):
        # per hall as the headline figure writes hours (whole hours), so the rows add up as printed
        rows = [[h, figures.text("install_hours", v)] for h, v in sorted(install["by_hall"].items())]
        cols = [Col("Hall", 120), Col("Technician-hours", FRAME_W - 120, True)]
        a = install["assumptions"]
        out += [
            para(
                f"{f['install_hours'].line()} ({install['days']:,} days for a crew of {a['crew']:g} on "
                f"{a['shift_h']:g}-hour shifts), from the catalog's [labour] minutes (indicative): "
                f"{a['pull_min_per_m']:g} min per metre pulled in tray, {a['trunk_min']:g} min per trunk plus "
                f"{a['trunk_min_per_m']:g} min per metre, {a['patch_min']:g} min per plug, {a['dress_min']:g} "
                f"min to dress a cable, {a['label_min']:g} min per label, {a['test_min']:g} min per optical "
                f"test, {a['panel_min']:g} min per panel and {a['cassette_min']:g} per cassette."
            ),
            data_table(cols, rows),
        ]
    return out
