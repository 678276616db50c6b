"""The power chapter: site, building and hall budgets against their limits, heat against each hall's
cooling, the power chain (UPS blocks, switchboards, busways, feeds) and its stranded capacity, CDUs of
liquid halls, energy and cost, the hottest racks and the floor load per hall.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from reportlab.platypus import (
    Flowable,
    Spacer,
)

from layout.export.pdf.charts import Budget, budget_bars
from layout.export.pdf.document import h1, h2
from layout.export.pdf.flowables import Cell, Col, data_table, kv_table
from layout.export.pdf.formatting import fmt_int, fmt_num, fmt_pct, para
from layout.export.pdf.theme import FRAME_W


def _limit(v: Any) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _budget_rows(frame: Any, key: str) -> list[list[Cell]]:
    rows: list[list[Cell]] = []
    for r in frame.itertuples():
        mw = float(r.it_kw) / 1000.0
        limit = _limit(r.limit_mw)
        use = fmt_pct(mw / limit, 0) if limit else "no limit"
        rows.append(
            [str(getattr(r, key)), fmt_int(r.racks), fmt_num(mw, 2), fmt_num(limit, 2) if limit else "-", use]
        )
    return rows


def story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    pw = design.power
    info = design.inputs.site.site
    out: list[Flowable] = [*h1("Power")]
    s = summary["power"]
    out.append(
        para(
            f"The IT load is {s['it_mw']:,.2f} MW; at a PUE of {info.pue:g} the facility draws {s['facility_mw']:,.2f} MW "
            f"from a utility feed of {info.utility_mw:g} MW. Device power comes from the catalog: servers with their "
            "NIC option and node-side optics, switches between their all-copper and all-optics figures by the "
            "share of their ports on optics."
        )
    )
    budgets = [Budget("Site (facility vs utility)", pw.facility_mw, pw.utility_mw)]
    budgets += [
        Budget(f"Building {r.building}", r.it_kw / 1000.0, _limit(r.limit_mw))
        for r in pw.buildings.itertuples()
    ]
    budgets += [
        Budget(f"Hall {r.hall}", r.it_kw / 1000.0, _limit(r.limit_mw))
        for r in pw.halls.itertuples()
        if _limit(r.limit_mw) is not None
    ]
    unlimited = [str(r.hall) for r in pw.halls.itertuples() if _limit(r.limit_mw) is None]
    out += [*h2("Budgets: site, buildings, halls"), budget_bars(budgets)]
    if unlimited:
        out.append(
            para(
                f"Halls without an IT limit of their own ({', '.join(unlimited)}) count against their "
                "building's; their load is in the table below.",
                "small",
            )
        )
    out.append(Spacer(1, 4))
    cols = [
        Col("Building", 130),
        Col("Racks", 70, True),
        Col("IT MW", 90, True),
        Col("Limit MW", 90, True),
        Col("Use", 80, True),
    ]
    out += [data_table(cols, _budget_rows(pw.buildings, "building")), Spacer(1, 6)]
    cols = [Col("Hall", 130), *cols[1:]]
    out += [data_table(cols, _budget_rows(pw.halls, "hall"))]
    out += _chain(design)
    fig = design.figures
    out += [
        *h2("Energy and cost"),
        kv_table(
            [
                (fig["it_mw"].label, fig["it_mw"].text),
                (f"{fig['facility_mw'].label} (IT x PUE {info.pue:g})", fig["facility_mw"].text),
                (f"{fig['annual_twh'].label} ({energy_basis(info.utilisation)})", fig["annual_twh"].text),
                (
                    f"{fig['annual_cost_usd'].label} at ${info.electricity_usd_per_kwh:g}/kWh",
                    fig["annual_cost_usd"].text,
                ),
                (fig["max_rack_kw"].label, fig["max_rack_kw"].text),
            ],
            width=FRAME_W * 0.75,
        ),
    ]

    racks = design.placement.racks
    kw = np.asarray(pw.rack_kw, float)
    limit = np.asarray(pw.rack_limit_kw, float)
    floor = np.asarray(pw.rack_floor_kg_m2, float)
    foot, tile = np.asarray(pw.rack_foot_kg, float), np.asarray(pw.rack_tile_kg, float)
    order = np.lexsort((racks["rack_id"].to_numpy(str), -kw))[:20]
    rows: list[list[Cell]] = []
    for i in order:
        rows.append(
            [
                str(racks["rack_id"].iat[i]),
                str(racks["template"].iat[i]),
                fmt_num(kw[i], 1),
                f"{limit[i]:g}",
                fmt_pct(kw[i] / limit[i], 0) if limit[i] else "-",
                fmt_int(floor[i]),
            ]
        )
    cols = [
        Col("Rack", 110),
        Col("Template", 110),
        Col("kW", 60, True),
        Col("Hall limit kW", 75, True),
        Col("Of limit", 60, True),
        Col("Floor kg/m2", 70, True),
    ]
    out += [*h2(f"The {len(order)} hottest racks"), data_table(cols, rows)]

    halls = {f"{b.id}/{h.id}": h for b, h in design.inputs.site.halls()}
    hall_col = racks["hall"].to_numpy(str)
    rows = []
    for key, h in halls.items():
        m = hall_col == key
        if not m.any():
            continue
        worst = int(np.flatnonzero(m)[np.argmax(floor[m])])
        over = int((floor[m] > h.floor_load_kg_m2 + 1e-9).sum())
        rows.append(
            [
                key,
                f"{h.floor_load_kg_m2:,.0f}",
                fmt_int(floor[m].max()),
                str(racks["rack_id"].iat[worst]),
                fmt_int(over),
                _against(float(foot[m].max()), None if h.floor == "slab" else h.point_load_kg),
                _against(float(tile[m].max()), None if h.floor == "slab" else h.tile_load_kg),
            ]
        )
    cols = [
        Col("Hall", 55),
        Col("Rating kg/m2", 65, True),
        Col("Heaviest kg/m2", 70, True),
        Col("Heaviest rack", 100, True),
        Col("Racks over", 55, True),
        Col("kg per foot (rated)", FRAME_W / 2 - 172.5, True),
        Col("kg per tile (rated)", FRAME_W / 2 - 172.5, True),
    ]
    out += [
        *h2("Floor load"),
        para(
            "Rack weight (servers, switches and the empty cabinet) over its footprint, on each of its feet "
            "(the rack template's feet, at its corners) and on each whole floor tile under it (the hall's "
            "tile size), each against the hall's rating: floor_load_kg_m2, point_load_kg and tile_load_kg. "
            'On a slab (floor = "slab") feet and tiles are not checked: its point loads are for the '
            "structural engineer."
        ),
        data_table(cols, rows),
    ]
    return out


def _against(kg: float, limit_kg: float | None) -> str:
    """The heaviest load and its rating, or that the hall gives none (not checked)."""
    return f"{kg:,.0f} ({limit_kg:,.0f})" if limit_kg is not None else f"{kg:,.0f} (slab: not checked)"


def _chain(design: Any) -> list[Flowable]:
    """Heat per hall, the power chain per hall and its stranded capacity, and the CDUs."""
    ch = design.chain
    out: list[Flowable] = []
    if len(ch.halls):
        red = sorted(set(ch.halls["redundancy"]))
        out += [
            *h2("Power chain and stranded capacity"),
            para(
                "Utility -> UPS blocks -> one switchboard each -> per row an A and a B busway (several side by "
                "side where one rating does not carry the row) -> a tap-off box per rack and side -> the rack. "
                f"Redundancy {', '.join(red)}: in 2N the A and the B side are separate UPS systems and each "
                "alone carries every rack; in N+1 each row's two sides hang on two different blocks and any one "
                "block may fail. Chain MW is what the blocks carry with that redundancy; stranded is what the "
                "hall was given (its IT limit, else the chain) less the IT it carries: by cooling where the "
                "hall cannot reject more heat; by space where some of the design's racks found no floor; "
                "unused where every rack is placed and the cluster needs no more of the hall."
            ),
        ]
        rows: list[list[Cell]] = []
        for r in ch.halls.itertuples():
            rows.append(
                [
                    str(r.hall),
                    str(r.redundancy),
                    fmt_num(r.it_mw, 2),
                    fmt_num(r.cooling_mw, 2) if r.cooling_mw == r.cooling_mw else "-",
                    f"{int(r.ups_blocks)} x {r.ups_model}",
                    fmt_int(r.busways),
                    fmt_num(r.chain_mw, 1),
                    fmt_num(r.stranded_mw, 2),
                    f"{fmt_num(r.stranded_cooling_mw, 2)} / {fmt_num(r.stranded_space_mw, 2)}"
                    f" / {fmt_num(r.unused_mw, 2)}",
                ]
            )
        cols = [
            Col("Hall", 55),
            Col("Red.", 35),
            Col("IT MW", 45, True),
            Col("Cooling MW", 55, True),
            Col("UPS blocks", 80, True),
            Col("Busways", 45, True),
            Col("Chain MW", 50, True),
            Col("Stranded MW", 60, True),
            Col("cooling / space / unused", FRAME_W - 425, True),
        ]
        out.append(data_table(cols, rows))
        ups = ch.ups
        if len(ups):
            worst = ups.assign(use=ups["load_mw"] / ups["rating_mw"]).sort_values(
                ["use", "ups_id"], ascending=[False, True], kind="stable"
            )[:10]
            rows = [
                [str(r.ups_id), str(r.model), fmt_num(r.normal_mw, 2), fmt_num(r.load_mw, 2),
                 fmt_num(r.rating_mw, 1), fmt_pct(r.use, 0), fmt_int(r.busways)]
                for r in worst.itertuples()
            ]  # fmt: skip
            cols = [
                Col("UPS block", 110),
                Col("Model", 70),
                Col("Normal MW", 60, True),
                Col("Design MW", 60, True),
                Col("Rating MW", 60, True),
                Col("Use", 45, True),
                Col("Busways", FRAME_W - 405, True),
            ]
            out += [
                Spacer(1, 6),
                para(
                    "The most loaded UPS blocks (design load: alone in 2N, on the worst failure in N+1).",
                    "small",
                ),
                data_table(cols, rows),
            ]
    sched = design.schedule
    if len(sched):
        from layout.export.pdf.sld import hall_diagrams

        out += [
            *h2("Single-line diagrams"),
            para(
                "Per hall: the utility feed, each UPS block with its switchboard, and the busways each "
                "switchboard feeds (the most loaded first), with rating, design load (and a block's normal "
                "load), the breaker frame that carries the load within its continuous limit, and the tap-off "
                "boxes on them. The bar at a box's left and the mark after a busway show its use of what it "
                "may carry (rating x limit, x power factor for current-rated parts). Every element is in the "
                "XLSX Power sheet."
            ),
        ]
        for hall, blocks in design.sld.items():
            out += [para(f"Hall {hall}", "small"), *hall_diagrams(hall, blocks)]
    cdus = design.liquid.cdus
    if len(cdus):
        rows = []
        for key, g in cdus.groupby("hall", sort=True):
            placed = g[g["placed"].astype(bool)]
            rows.append(
                [
                    str(key),
                    f"{len(placed)} x {g['model'].iat[0]}",
                    fmt_int(int(g["standby"].sum())),
                    fmt_num(float(g["load_kw"].sum()) / 1000.0, 2),
                    fmt_num(float(placed["rating_kw"].sum()) / 1000.0, 1),
                    fmt_num(float(g["load_flow_l_per_s"].sum()), 1),
                ]
            )
        cols = [
            Col("Hall", 70),
            Col("CDUs", 110, True),
            Col("Standby", 55, True),
            Col("Liquid MW", 70, True),
            Col("CDU MW", 70, True),
            Col("Flow L/s", FRAME_W - 375, True),
        ]
        out += [*h2("Liquid cooling: CDUs"), data_table(cols, rows)]
    return out


def energy_basis(utilisation: float) -> str:
    """How the annual energy is stated: 8,760 h at nameplate, or at the site's average utilisation."""
    if utilisation >= 1.0:
        return "8,760 h at nameplate: site.utilisation = 1"
    return f"8,760 h at {utilisation:.0%} of nameplate: site.utilisation = {utilisation:g}"
