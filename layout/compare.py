"""Seed 000's network alternatives for one site, side by side (`dclayout compare SITE`).

Sixteen variants of the site's cluster: four fabrics x rail-optimized / middle-of-rack x ConnectX-7 /
Cedar-7. The fabrics:

- ``ib-nb``: InfiniBand QM9700, one non-blocking fabric with as many tiers as the radix needs (64-port
  switches: 4 tiers above 65,536 GPUs);
- ``ib-pods``: InfiniBand QM9700, non-blocking pods (the site's ``pod_gpus``, else 24,576 GPUs) joined
  7:1 oversubscribed above them (Meta's design);
- ``spectrum-x``: NVIDIA SN5600, ``tomahawk5``: Broadcom Tomahawk 5; 128 x 400G ports, non-blocking (3
  tiers hold 524,288 GPUs).

Every variant runs the whole pipeline (fabric, placement, trays, routing, media, power, BOM,
reliability) on a copy of the site whose ``[cluster]`` is changed; the rest of the site is untouched.
A variant whose NIC differs from the site's drops the site's ``link_mtbf_years`` (it describes the
site's NIC), so Cedar-7 gets its own 4-year dual-port figure. A variant the site cannot build (too
many tiers, ...) is a row with its ``error`` and no figures.

Figures per variant (the ``COLUMNS`` of the table): backend switches per tier; transceivers per medium
(both ends, every network) and the node-side ones; the copper share of the GPU (backend) fabric's
links; cable bought (stock lengths, km); network power (every switch, with its optics, plus the
server-end modules, MW); cost (BOM total and its network part); time to the first job failure
(node-side optics, and every backend link with its medium's MTBF); design-rule violations.
"""

from __future__ import annotations

import dataclasses
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout import bom
from layout import media as media_mod
from layout.errors import InputError
from layout.model import Cluster

if TYPE_CHECKING:
    from layout.load import Inputs


@dataclass(frozen=True)
class FabricOption:
    label: str
    switch: str
    pods: bool  # non-blocking pods joined oversubscribed above them


FABRICS: dict[str, FabricOption] = {
    "ib-nb": FabricOption("InfiniBand QM9700, non-blocking", "qm9700", False),
    "ib-pods": FabricOption("InfiniBand QM9700, pods 7:1 above", "qm9700", True),
    "spectrum-x": FabricOption("Spectrum-X SN5600, non-blocking", "sn5600", False),
    "tomahawk5": FabricOption("Tomahawk 5, non-blocking", "tomahawk5", False),
}
DESIGNS = ("rail", "mor")
NICS = ("cx7", "cedar7")
DEFAULT_POD_GPUS = 24_576  # seed 000: 4 pods of 24,576 GPUs on the 100k cluster
PODS_OVERSUBSCRIPTION = 7.0  # seed 000 (Meta)
TIER_ROLES = ("leaf", "spine", "core", "super")
INT_COLUMNS = {"gpus", "tiers", "pods", "pod_gpus", "node_optics", "violations"}  # plus switches_*, optics_*


@dataclass(frozen=True)
class Variant:
    fabric: str  # a key of FABRICS
    design: str  # rail / mor
    nic: str  # cx7 / cedar7

    @property
    def name(self) -> str:
        return f"{self.fabric}/{self.design}/{self.nic}"


def variants() -> list[Variant]:
    """The sixteen variants in table order (fabric, then design, then NIC)."""
    return [Variant(f, d, n) for f in FABRICS for d in DESIGNS for n in NICS]


def variant_cluster(cluster: Cluster, variant: Variant) -> Cluster:
    """The site's cluster changed into ``variant`` (validated again)."""
    opt = FABRICS[variant.fabric]
    data = cluster.model_dump(exclude_unset=True)
    pod_gpus = 0
    if opt.pods:
        pod_gpus = cluster.pod_gpus or DEFAULT_POD_GPUS
        if pod_gpus >= cluster.gpus:
            pod_gpus = 0  # the whole cluster fits in one pod
    data.update(
        switch=opt.switch,
        design=variant.design,
        nic=variant.nic,
        pod_gpus=pod_gpus,
        oversubscription=PODS_OVERSUBSCRIPTION if pod_gpus else 1.0,
    )
    data.pop("tiers", None)  # as many as the radix needs
    if variant.nic != cluster.nic:
        data.pop("link_mtbf_years", None)
    return Cluster.model_validate(data)


def variant_inputs(inputs: Inputs, variant: Variant) -> Inputs:
    site = inputs.site.model_copy(update={"cluster": variant_cluster(inputs.site.cluster, variant)})
    return dataclasses.replace(inputs, site=site)


def run_variant(inputs: Inputs, variant: Variant) -> dict[str, Any]:
    """One row of the comparison: the whole pipeline on the variant's site."""
    from layout import design as design_mod

    row: dict[str, Any] = {
        "variant": variant.name,
        "fabric": variant.fabric,
        "design": variant.design,
        "nic": variant.nic,
        "switch": FABRICS[variant.fabric].switch,
    }
    try:
        vin = variant_inputs(inputs, variant)
        design = design_mod.run(vin)
    except InputError as e:
        row["error"] = "; ".join(f"{p.key}: {p.problem}" for p in e.problems)
        return row
    cat = vin.catalog
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


def columns(catalog_media: list[str]) -> list[str]:
    """The table's columns for a catalog whose optical media are ``catalog_media``."""
    return [
        "variant", "fabric", "design", "nic", "switch", "gpus", "tiers", "pods", "pod_gpus", "oversubscription",
        *(f"switches_{r}" for r in TIER_ROLES), "switches_backend", "switches_all",
        *(f"optics_{m}" for m in catalog_media), "optics_total", "node_optics", "copper_share_pct", "cable_km",
        "network_power_mw", "cost_total_usd", "cost_network_usd", "ttff_min", "ttff_all_links_min", "violations", "error",
    ]  # fmt: skip


def _run_one(args: tuple[Inputs, Variant]) -> dict[str, Any]:
    return run_variant(*args)


def compare(inputs: Inputs, chosen: list[Variant] | None = None, jobs: int | None = None) -> pd.DataFrame:
    """The comparison table, one row per variant of ``chosen`` (default: ``variants()``), in that order.
    ``jobs``: worker processes (default: one per core, at most one per variant; 1 runs here)."""
    todo = chosen if chosen is not None else variants()
    workers = min(jobs or os.cpu_count() or 1, len(todo))
    if workers <= 1:
        rows = [run_variant(inputs, v) for v in todo]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            rows = list(pool.map(_run_one, [(inputs, v) for v in todo]))
    optical = [m for m, spec in inputs.catalog.media.items() if spec.optical]
    df = pd.DataFrame(rows).reindex(columns=columns(optical))
    for c in df.columns:
        if c in INT_COLUMNS or c.startswith(("switches_", "optics_")):
            df[c] = df[c].astype("Int64")
    df["error"] = [e if isinstance(e, str) else "" for e in df["error"]]
    return df
