"""The network chapter: the fabric's design, switches and servers per role and model, links per tier."""

from __future__ import annotations

from typing import Any

from reportlab.platypus import (
    Flowable,
)

from layout.export.pdf.document import h1, h2
from layout.export.pdf.flowables import Cell, Col, data_table, kv_table
from layout.export.pdf.formatting import fmt_int

ROLE_ORDER = (
    "server",
    "leaf",
    "spine",
    "core",
    "super",
    "fe_leaf",
    "fe_spine",
    "fe_core",
    "st_leaf",
    "st_spine",
    "st_core",
    "oob",
)
KIND_ORDER = ("gpu_leaf", "leaf_spine", "spine_core", "core_super", "frontend", "storage", "oob")


def story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    fab = design.fabric
    cat = design.inputs.catalog
    out: list[Flowable] = [*h1("Network")]
    nic = cat.nic[fab.nic]
    out += [
        kv_table(
            [
                (
                    "Design",
                    "rail-optimized (each server's NICs go to different leaves)"
                    if fab.design == "rail"
                    else "middle-of-rack (the leaf sits in the GPU rack)",
                ),
                ("Backend switch", f"{cat.switch[fab.switch].name}, {fab.radix} ports at the NIC speed"),
                ("NIC", nic.name),
                ("Backend tiers", str(fab.tiers)),
                ("Pods", f"{fab.pods} x {fab.pod_gpus:,} GPUs"),
                ("Oversubscription between pods", f"{fab.oversubscription:g}:1"),
                ("Node-side optical modules", fmt_int(summary["node_optics"])),
                (
                    "Links",
                    fmt_int(summary["links"]["total"])
                    + " backend, "
                    + fmt_int(len(fab.links) - summary["links"]["total"])
                    + " frontend, storage and management",
                ),
            ],
            numeric=False,
        )
    ]
    dev = fab.devices
    counts = (
        dev.groupby(["network", "role", "model"], observed=True)
        .agg(n=("device_id", "size"), ports=("ports_used", "sum"))
        .reset_index()
    )
    counts["o"] = counts["role"].map({r: i for i, r in enumerate(ROLE_ORDER)}).fillna(99)
    rows: list[list[Cell]] = []
    for r in counts.sort_values(["o", "model"]).itertuples():
        spec = cat.switch.get(str(r.model))
        name = (
            cat.server[str(r.model)].name
            if str(r.model) in cat.server
            else (spec.name if spec else str(r.model))
        )
        cap = f"{int(r.n) * spec.ports:,}" if spec else "-"
        rows.append([str(r.network), str(r.role), name, fmt_int(r.n), fmt_int(r.ports) if spec else "-", cap])
    cols = [
        Col("Network", 60),
        Col("Role", 55),
        Col("Model", 190),
        Col("Count", 55, True),
        Col("Ports used", 60, True),
        Col("Ports", 55, True),
    ]
    out += [*h2("Switches and servers"), data_table(cols, rows)]
    links = fab.links
    lc = links.groupby(["network", "kind", "speed_gbps"], observed=True).size().reset_index(name="n")
    lc["o"] = lc["kind"].astype(str).map({k: i for i, k in enumerate(KIND_ORDER)}).fillna(99)
    rows = [
        [str(r.network), str(r.kind), f"{int(r.speed_gbps):,}G", fmt_int(r.n)]
        for r in lc.sort_values(["o", "speed_gbps"]).itertuples()
    ]
    cols = [Col("Network", 90), Col("Link", 110), Col("Speed", 70, True), Col("Links", 80, True)]
    out += [*h2("Links per tier"), data_table(cols, rows)]
    return out
