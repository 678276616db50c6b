"""The plans chapter: the campus plan (when there is more than one hall) and one plan per hall with racks,
rows and trays, each with a caption of its racks, IT load and hottest rack.

It turns the Design's placement, power and tray tables into what plan.py draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from reportlab.platypus import (
    Flowable,
    KeepTogether,
    Paragraph,
)

from layout.export.pdf.document import h1, h2
from layout.export.pdf.formatting import para, safe, short_id
from layout.export.pdf.plan import (
    NETWORK_KINDS,
    HallOutline,
    PlanRacks,
    PlanRow,
    PlanTrays,
    SiteOutline,
    hall_plan,
    site_plan,
)
from layout.export.pdf.theme import FRAME_H, STYLES


def _plan_racks(design: Any, mask: np.ndarray | None = None) -> PlanRacks:
    r = design.placement.racks
    pw = design.power
    m = np.ones(len(r), bool) if mask is None else mask
    return PlanRacks(
        x_m=r["x_m"].to_numpy(float)[m],
        y_m=r["y_m"].to_numpy(float)[m],
        width_m=r["width_m"].to_numpy(float)[m],
        depth_m=r["depth_m"].to_numpy(float)[m],
        rotation_deg=r["rotation_deg"].to_numpy(float)[m],
        kind=r["kind"].to_numpy(str)[m],
        power_kw=np.asarray(pw.rack_kw, float)[m],
        limit_kw=np.asarray(pw.rack_limit_kw, float)[m],
        label=np.char.zfill(r["pos"].to_numpy(int)[m].astype(str), 2),
    )


def _plan_rows(design: Any, hall: str) -> list[PlanRow]:
    rows = design.placement.rows
    out = []
    for r in rows[rows["hall"] == hall].itertuples():
        x = min(r.x0_m, r.x1_m) if r.axis == "x" else r.x0_m
        y = r.y0_m if r.axis == "x" else min(r.y0_m, r.y1_m)
        network = str(r.kind) in NETWORK_KINDS
        label = f"{short_id(str(r.row))} {r.kind}" if network else short_id(str(r.row))
        out.append(PlanRow(label, float(x), float(y), str(r.axis), network))
    return out


def story(design: Any) -> list[Flowable]:
    site = design.inputs.site
    racks = design.placement.racks
    out: list[Flowable] = [*h1("Site and hall plans")]
    out.append(
        para(
            "Racks are drawn to scale and coloured by their power draw against their hall's per-rack limit; "
            "network racks (leaf, spine, core) have a dark blue outline. Each rack carries its position in "
            "the row; zoom in to read them. North is up."
        )
    )
    if len(site.halls()) > 1:
        outline = SiteOutline(
            buildings=[(b.id, list(b.footprint)) for b in site.building],
            halls=[(f"{b.id}/{h.id}", list(h.polygon)) for b, h in site.halls()],
            ducts=[(f"{d.from_}-{d.to}", list(d.path)) for d in site.duct if d.path],
        )
        out += [*h2("Site plan"), site_plan(outline, _plan_racks(design), height=FRAME_H - 80)]
    hall_keys = racks["hall"].to_numpy(str)
    empty = []
    for b, h in site.halls():
        key = f"{b.id}/{h.id}"
        mask = hall_keys == key
        if not mask.any():
            empty.append(key)
            continue
        outline_h = HallOutline(
            key,
            list(h.polygon),
            [(c.at[0], c.at[1], c.size_m[0], c.size_m[1]) for c in h.columns],
            [(list(k.polygon), k.reason) for k in h.keepouts],
            h.max_rack_kw,
        )
        plan = hall_plan(
            outline_h,
            _plan_racks(design, mask),
            _plan_rows(design, key),
            _plan_trays(design, key),
            height=FRAME_H - 70,
        )
        by_tpl = racks[mask].groupby("template").size()
        kw = np.asarray(design.power.rack_kw)[mask]
        caption = para(
            f"{int(mask.sum()):,} racks ({', '.join(f'{n:,} {t}' for t, n in by_tpl.items())}); "
            f"{kw.sum() / 1000:,.2f} MW of IT; hottest rack {kw.max():,.1f} kW against {h.max_rack_kw:g} kW "
            f"({h.cooling} cooling).",
            "caption",
        )
        out.append(KeepTogether([Paragraph(safe(f"Hall {key}"), STYLES["h2"]), plan, caption]))
    if empty:
        out.append(para(f"Halls without racks: {', '.join(empty)}.", "body"))
    return out


def _plan_trays(design: Any, hall: str) -> PlanTrays:
    cab = design.cabling
    e = cab.trays.edges
    n = cab.trays.nodes
    m = (e["hall"].astype(str).to_numpy() == hall) & e["kind"].isin(
        ["row", "cross", "trunk", "user"]
    ).to_numpy()
    u = e["u"].to_numpy()[m]
    v = e["v"].to_numpy()[m]
    x = n["x_m"].to_numpy(float)
    y = n["y_m"].to_numpy(float)
    return PlanTrays(np.column_stack([x[u], y[u], x[v], y[v]]), cab.edge_fill["over"].to_numpy(bool)[m])
