"""The figures of one designed variant, as ``dclayout compare`` and ``dclayout sweep`` tabulate them:
backend switches per tier; transceivers per medium (both ends, every network) and the node-side ones;
the copper share of the GPU (backend) fabric's links; cable bought (stock lengths, km); network power
(every switch, with its optics, plus the server-end modules, MW); cost (BOM total and its network
part); time to the first job failure (node-side optics, and every backend link with its medium's MTBF);
design-rule violations. ``table`` makes rows of them one typed table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout import bom
from layout import media as media_mod

if TYPE_CHECKING:
    from layout.load import Inputs

TIER_ROLES = ("leaf", "spine", "core", "super")
INT_COLUMNS = {"gpus", "tiers", "pods", "pod_gpus", "node_optics", "violations"}  # plus switches_*, optics_*


def figures(vin: Inputs, design: Any) -> dict[str, Any]:
    """A designed variant's figures: the table's columns from ``gpus`` on (``figure_columns``)."""
    cat = vin.catalog
    row: dict[str, Any] = {}
    fabric, placement, cabling = design.fabric, design.placement, design.cabling
    table = bom.build(vin, fabric, placement, cabling)
    cost = bom.totals(table)
    rel = bom.design_reliability(vin, fabric, cabling)
    s = fabric.summary()
    row.update(
        gpus=fabric.gpus,
        tiers=fabric.tiers,
        pods=fabric.pods,
        pod_gpus=fabric.pod_gpus,
        oversubscription=fabric.oversubscription,
    )
    for r in TIER_ROLES:
        row[f"switches_{r}"] = s["switches"][r]
    row["switches_backend"] = s["switches"]["total"]
    row["switches_all"] = fabric.switches_all_networks()

    mods = cabling.modules
    optical = [m for m, spec in cat.media.items() if spec.optical]
    per_media = (
        mods.groupby("media", sort=False)["modules"].sum() if not mods.empty else pd.Series(dtype=np.int64)
    )
    for m in optical:
        row[f"optics_{m}"] = int(per_media.get(m, 0))
    row["optics_total"] = int(per_media.sum())
    row["node_optics"] = rel["node_optical_modules"]

    links = cabling.links
    row["copper_share_pct"] = media_mod.copper_share_pct(*cabling.backend_copper())
    row["cable_km"] = round(float(np.nansum(links["stock_length_m"].to_numpy(float))) / 1000.0, 3)

    switch_kw = float(np.nansum(cabling.switch_power_kw))
    server = (fabric.devices["role"] == "server").to_numpy()
    row["network_power_mw"] = round((switch_kw + float(cabling.module_w[server].sum()) / 1000.0) / 1000.0, 4)
    row["cost_total_usd"] = cost["total"]
    row["cost_network_usd"] = cost["network"]
    row["ttff_min"] = rel["time_to_first_failure_min"]
    row["ttff_all_links_min"] = rel["all_links"]["time_to_first_failure_min"]
    row["violations"] = len(design.violations)
    return row


def figure_columns(catalog_media: list[str]) -> list[str]:
    """The columns of ``figures`` for a catalog whose optical media are ``catalog_media``."""
    return [
        "gpus", "tiers", "pods", "pod_gpus", "oversubscription",
        *(f"switches_{r}" for r in TIER_ROLES), "switches_backend", "switches_all",
        *(f"optics_{m}" for m in catalog_media), "optics_total", "node_optics", "copper_share_pct", "cable_km",
        "network_power_mw", "cost_total_usd", "cost_network_usd", "ttff_min", "ttff_all_links_min", "violations",
    ]  # fmt: skip


def table(rows: list[dict[str, Any]], cols: list[str]) -> pd.DataFrame:
    """Rows of figures as a table of ``cols``: counts as nullable integers (a row without figures has
    none), ``error`` as text ("" when the row has figures)."""
    df = pd.DataFrame(rows).reindex(columns=cols)
    for c in df.columns:
        if c in INT_COLUMNS or c.startswith(("switches_", "optics_")):
            df[c] = df[c].astype("Int64")
    df["error"] = [e if isinstance(e, str) else "" for e in df["error"]]
    return df
