"""The plans chapter: the campus plan (when there is more than one hall) and one plan per hall with racks,
rows and trays, each with a caption of its racks, IT load and hottest rack.

It turns the Design's placement, power and tray tables into what plan.py draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
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
    PlanCdus,
    PlanRacks,
    PlanRow,
    PlanTrays,
    SiteOutline,
    hall_plan,
    site_plan,
)
from layout.export.pdf.theme import FRAME_H, STYLES
from layout.scene import Scene, scene_of


def _plan_racks(racks: pd.DataFrame) -> PlanRacks:
    """The scene's racks (all, or one hall's) as the plan draws them."""
    return PlanRacks(
        x_m=racks["x_m"].to_numpy(float),
        y_m=racks["y_m"].to_numpy(float),
        width_m=racks["width_m"].to_numpy(float),
        depth_m=racks["depth_m"].to_numpy(float),
        rotation_deg=racks["rotation_deg"].to_numpy(float),
        kind=racks["kind"].to_numpy(str),
        fill_no=racks["fill_no"].to_numpy(np.int64),
        # (numpy's zfill fails on an empty array: a site with no rack placed)
        label=np.char.zfill(racks["pos"].to_numpy(int).astype(str), 2) if len(racks) else np.zeros(0, "<U2"),
    )


def _plan_rows(scene: Scene, hall: str) -> list[PlanRow]:
    rows = scene.rows
    out = []
    r: dict[Any, Any]
    for r in rows[rows["hall"] == hall].to_dict("records"):
        x0, y0, x1, y1 = (float(r[k]) for k in ("x0_m", "y0_m", "x1_m", "y1_m"))
        x = min(x0, x1) if r["axis"] == "x" else x0
        y = y0 if r["axis"] == "x" else min(y0, y1)
        network = str(r["kind"]) in NETWORK_KINDS
        label = f"{short_id(str(r['row']))} {r['kind']}" if network else short_id(str(r["row"]))
        out.append(PlanRow(label, x, y, str(r["axis"]), network))
    return out


def story(design: Any, scene: Scene | None = None) -> list[Flowable]:
    scene = scene if scene is not None else scene_of(design, summary={})
    site = design.inputs.site
    racks = scene.racks
    out: list[Flowable] = [*h1("Site and hall plans")]
    out.append(
        para(
            "Racks are drawn to scale. GPU racks are coloured by their power draw against their per-rack "
            "limit; network racks (leaf, spine, core) by their kind, with a dark blue outline, as in the "
            "SVG plans and the terminal map. Each rack carries its position in the row; zoom in to read "
            "them. North is up."
        )
    )
    campus = scene.campus
    assert campus is not None
    if len(campus.halls) > 1:
        outline = SiteOutline(
            buildings=[(bid, list(ring)) for bid, ring, _ in campus.buildings],
            halls=[(hg.key, list(hg.polygon)) for hg in campus.halls],
            ducts=[(name, list(path)) for name, path in campus.ducts],
        )
        out += [
            *h2("Site plan"),
            site_plan(outline, _plan_racks(racks), height=FRAME_H - 80, cdus=_plan_cdus(scene)),
        ]
    empty = []
    for (_, h), hg in zip(site.halls(), campus.halls, strict=True):
        key = hg.key
        mine = scene.racks_of(key)
        if mine.empty:
            empty.append(key)
            continue
        outline_h = HallOutline(
            key,
            list(hg.polygon),
            [tuple(c) for c in hg.columns.tolist()],
            [(list(ring), reason) for ring, reason in hg.keepouts],
            hg.max_rack_kw,
        )
        plan = hall_plan(
            outline_h,
            _plan_racks(mine),
            _plan_rows(scene, key),
            _plan_trays(scene, key),
            height=FRAME_H - 70,
            cdus=_plan_cdus(scene, key),
            cabinets=_plan_cabinets(scene, key),
        )
        by_tpl = mine.groupby("template").size()
        kw = mine["power_kw"].to_numpy(float)
        caption = para(
            f"{len(mine):,} racks ({', '.join(f'{n:,} {t}' for t, n in by_tpl.items())}); "
            f"{kw.sum() / 1000:,.2f} MW of IT; hottest rack {kw.max():,.1f} kW against {h.max_rack_kw:g} kW "
            f"({h.cooling} cooling).",
            "caption",
        )
        out.append(KeepTogether([Paragraph(safe(f"Hall {key}"), STYLES["h2"]), plan, caption]))
    if empty:
        out.append(para(f"Halls without racks: {', '.join(empty)}.", "body"))
    return out


def _plan_trays(scene: Scene, hall: str) -> PlanTrays:
    e = scene.tray_edges
    if e is None or e.empty:
        return PlanTrays(np.zeros((0, 4)), np.zeros(0, bool))
    m = (e["hall"].to_numpy(str) == hall) & e["kind"].isin(["row", "cross", "trunk", "user"]).to_numpy()
    seg = e[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy(float)[m]
    return PlanTrays(seg, e["over"].to_numpy(bool)[m])


def _plan_cabinets(scene: Scene, hall: str) -> PlanCdus:
    """One hall's fibre cabinets as the plan draws them (boxes, no label: the DXF and the panel table
    name them)."""
    c = scene.cabinet_boxes
    c = c[c["hall"] == hall]
    return PlanCdus(
        c[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy(float).reshape(-1, 4), np.full(len(c), "", "<U1")
    )


def _plan_cdus(scene: Scene, hall: str | None = None) -> PlanCdus:
    """The scene's CDUs (all, or one hall's) as the plan draws them."""
    c = scene.cdu_boxes
    if hall is not None:
        c = c[c["hall"] == hall]
    labels = np.array([short_id(str(i)) for i in c["cdu_id"]], dtype=str).reshape(-1)
    return PlanCdus(c[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy(float).reshape(-1, 4), labels)
