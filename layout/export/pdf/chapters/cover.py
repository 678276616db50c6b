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
from layout.export.pdf.formatting import fmt_energy, fmt_int, fmt_minutes, fmt_money, fmt_pct


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
    pw = summary["power"]
    ttff = summary["reliability"]["time_to_first_failure_min"]
    n_viol = len(summary["violations"])
    kpis = [
        Kpi("GPUs", fmt_int(summary["gpus"])),
        Kpi("racks", fmt_int(summary["racks"]["total"])),
        Kpi("IT power (critical load)", f"{pw['it_mw']:,.2f} MW"),
        Kpi(f"facility power at PUE {site.site.pue:g}", f"{pw['facility_mw']:,.2f} MW"),
        Kpi("annual energy", fmt_energy(pw["annual_twh"])),
        Kpi(
            f"annual electricity at ${site.site.electricity_usd_per_kwh:g}/kWh",
            fmt_money(pw["annual_cost_usd"]),
        ),
        Kpi("capital cost (bill of materials)", fmt_money(summary["cost_usd"]["total"])),
        Kpi(
            "switches: GPU fabric / all networks",
            f"{fmt_int(summary['switches']['total'])} / {fmt_int(summary['switches_all_networks'])}",
        ),
        Kpi("cable at stock lengths", f"{summary['cable_length_m']['total'] / 1000:,.1f} km"),
        Kpi("copper share of GPU fabric links (DAC + AEC)", fmt_pct(summary["copper_share_pct"] / 100.0)),
        Kpi("mean time to the first link failure", fmt_minutes(ttff)),
        Kpi("design-rule violations", fmt_int(n_viol), alarm=n_viol > 0),
    ]
    note = (
        "Prices are indicative catalog figures meant to be replaced by quotes; every figure used and its "
        "source is listed under Assumptions. Power is computed per device from the catalog."
    )
    return cover(meta_of(design), lines, kpis, note)
