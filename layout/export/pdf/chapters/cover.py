"""The cover: what was designed (GPUs, racks, buildings, fabric) and the headline figures, from
Design.summary() as in summary.json.
"""

from __future__ import annotations

from typing import Any

from reportlab.platypus import (
    Flowable,
)

from layout.export.pdf.document import ReportMeta
from layout.export.pdf.flowables import Kpi, cover


def meta_of(design: Any) -> ReportMeta:
    info = design.inputs.site.site
    return ReportMeta(site_name=info.name, revision=info.revision, date=info.date)


def story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    inp = design.inputs
    fab = design.fabric
    cat = inp.catalog
    site = inp.site
    halls = len(site.halls())
    server = cat.server[fab.server].name
    switch = cat.switch[fab.switch].name
    pods = (
        f", {fab.pods} pods of {fab.pod_gpus:,} GPUs joined {fab.oversubscription:g}:1"
        if fab.pods > 1
        else ""
    )
    lines = [
        f"{fab.gpus:,} GPUs in {fab.servers:,} x {server}, {summary['racks']['total']:,} racks in "
        f"{len(site.building)} building(s) and {halls} hall(s).",
        f"{'Rail-optimized' if fab.design == 'rail' else 'Middle-of-rack'} fabric on {switch}: "
        f"{fab.tiers} tier(s){pods}.",
        f"Site file {inp.path.name}; catalog {inp.templates_dir.name}/catalog.toml.",
    ]
    fig = design.figures
    n_viol = fig.value("violations")

    def kpi(key: str, label: str | None = None) -> Kpi:
        f = fig[key]
        return Kpi(label or f.label, f.text, alarm=key == "violations" and n_viol > 0)

    site_info = site.site
    kpis = [
        kpi("gpus"),
        kpi("racks"),
        kpi("it_mw"),
        kpi("facility_mw", f"{fig['facility_mw'].label} at PUE {site_info.pue:g}"),
        kpi("annual_twh"),
        kpi(
            "annual_cost_usd", f"{fig['annual_cost_usd'].label} at ${site_info.electricity_usd_per_kwh:g}/kWh"
        ),
        kpi("cost_total_usd"),
        kpi("cost_without_power_chain_usd"),
        Kpi(
            f"{fig['switches_backend'].label} / {fig['switches_all'].label}",
            f"{fig['switches_backend'].text} / {fig['switches_all'].text}",
        ),
        kpi("cable_km"),
        kpi("copper_share_pct"),
        kpi("ttff_min"),
        kpi("ttff_all_links_min"),
        kpi("tray_fill_max_pct"),
        kpi("violations"),
    ]
    note = (
        "Prices are indicative catalog figures meant to be replaced by quotes; every figure used and its "
        "source is listed under Assumptions. Power is computed per device from the catalog."
    )
    return cover(meta_of(design), lines, kpis, note)
