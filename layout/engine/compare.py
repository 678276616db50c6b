"""Seed 000's network alternatives for one site, side by side (`dclayout compare SITE`).

Twenty variants of the site's cluster: five fabrics x rail-optimized / middle-of-rack x ConnectX-7 /
Cedar-7. The fabrics (each one seed 000 discusses; the ``seed`` column names where):

- ``ib-nb``: InfiniBand QM9700, one non-blocking fabric with as many tiers as the radix needs (64-port
  switches: 4 tiers above 65,536 GPUs);
- ``ib-pods``: InfiniBand QM9700, non-blocking pods (the site's ``pod_gpus``, else 24,576 GPUs) joined
  7:1 oversubscribed above them (Meta's design);
- ``ib-islands``: InfiniBand QM9700, the same pods as islands no backend tier joins: traffic between
  them goes over the frontend Ethernet network (seed 000's hybrid of InfiniBand islands and the front
  end), which the variant turns on; ``between_pods_gbps_per_server`` says what it carries;
- ``spectrum-x``: NVIDIA SN5600, ``tomahawk5``: Broadcom Tomahawk 5; 128 x 400G ports, non-blocking (3
  tiers hold 524,288 GPUs).

**Ranking**: ``rank`` orders the variants that can be built as designed, with no error and no
design-rule violation, by capital cost (power chain included), 1 the cheapest; a variant with
violations is not ranked (its violations are in the row), so the best line never names a layout that
cannot be built.

Every variant runs the whole pipeline (fabric, placement, trays, routing, media, power, BOM,
reliability) on a copy of the site whose ``[cluster]`` is changed; the rest of the site is untouched.
A variant whose NIC differs from the site's drops the site's ``link_mtbf_years`` (it describes the
site's NIC), so Cedar-7 gets its own 4-year dual-port figure. A variant the site cannot build (too
many tiers, ...) is a row with its ``error`` and no figures.

Figures per variant (layout.figures, the ``columns`` of the table): backend switches per tier; transceivers per medium
(both ends, every network) and the node-side ones; the copper share of the GPU (backend) fabric's
links; cable bought (stock lengths, km); network power (every switch, with its optics, plus the
server-end modules, MW); cost (BOM total and its network part); time to the first job failure
(node-side optics, and every backend link with its medium's MTBF); design-rule violations.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from layout.errors import InputError
from layout.figures import figure_columns, table
from layout.model import Cluster
from layout.model.site import changed_cluster

if TYPE_CHECKING:
    from layout.engine.cluster import Engine
    from layout.load import Inputs


@dataclass(frozen=True)
class FabricOption:
    label: str
    switch: str
    pods: bool  # non-blocking pods joined oversubscribed above them
    seed: str  # where seed 000 discusses it
    islands: bool = False  # the pods joined over the frontend network, no backend tier above them


FABRICS: dict[str, FabricOption] = {
    "ib-nb": FabricOption(
        "InfiniBand QM9700, non-blocking", "qm9700", False, "4-tier InfiniBand, non-blocking"
    ),
    "ib-pods": FabricOption(
        "InfiniBand QM9700, pods 7:1 above", "qm9700", True, "4-tier InfiniBand, 7:1 pods"
    ),
    "ib-islands": FabricOption(
        "InfiniBand QM9700 islands, joined over the front end",
        "qm9700",
        True,
        "hybrid InfiniBand + front end",
        True,
    ),
    "spectrum-x": FabricOption("Spectrum-X SN5600, non-blocking", "sn5600", False, "Spectrum-X"),
    "tomahawk5": FabricOption("Tomahawk 5, non-blocking", "tomahawk5", False, "Broadcom Tomahawk 5"),
}
DESIGNS = ("rail", "mor")
NICS = ("cx7", "cedar7")
DEFAULT_POD_GPUS = 24_576  # seed 000: 4 pods of 24,576 GPUs on the 100k cluster
PODS_OVERSUBSCRIPTION = 7.0  # seed 000 (Meta)


@dataclass(frozen=True)
class Variant:
    fabric: str  # a key of FABRICS
    design: str  # rail / mor
    nic: str  # cx7 / cedar7

    @property
    def name(self) -> str:
        return f"{self.fabric}/{self.design}/{self.nic}"


def variants() -> list[Variant]:
    """The twenty variants in table order (fabric, then design, then NIC)."""
    return [Variant(f, d, n) for f in FABRICS for d in DESIGNS for n in NICS]


def variant_cluster(cluster: Cluster, variant: Variant) -> Cluster:
    """The site's cluster changed into ``variant`` (validated again)."""
    opt = FABRICS[variant.fabric]
    pod_gpus = 0
    if opt.pods:
        pod_gpus = cluster.pod_gpus or DEFAULT_POD_GPUS
        if pod_gpus >= cluster.gpus:
            pod_gpus = 0  # the whole cluster fits in one pod
    data: dict[str, Any] = dict(
        switch=opt.switch,
        design=variant.design,
        nic=variant.nic,
        pod_gpus=pod_gpus,
        oversubscription=PODS_OVERSUBSCRIPTION if pod_gpus and not opt.islands else 1.0,
        join_pods=not (opt.islands and pod_gpus),
    )
    if opt.islands and pod_gpus:  # the pods talk over the front end: it is on
        data["networks"] = {**cluster.networks.model_dump(exclude_unset=True), "frontend": True}
    base = cluster.model_dump(exclude_unset=True)
    base.pop("tiers", None)  # as many as the radix needs
    return Cluster.model_validate(changed_cluster(base, data))


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
        "seed": FABRICS[variant.fabric].seed,
    }
    try:
        vin = variant_inputs(inputs, variant)
        design = design_mod.run(vin)
    except InputError as e:
        row["error"] = "; ".join(f"{p.key}: {p.problem}" for p in e.problems)
        return row
    row.update(design.figure_row())
    row["between_pods_gbps_per_server"] = between_pods_gbps(design)
    return row


def between_pods_gbps(design: Any) -> float:
    """What one server can send to the other pods, Gb/s: its whole backend bandwidth in one fabric,
    divided by the oversubscription above oversubscribed pods, its frontend ports' bandwidth when the
    pods are islands joined over the front end."""
    fab = design.fabric
    cat = design.inputs.catalog
    links, gbps = cat.backend(fab.server, fab.nic)
    backend = float(links * gbps)
    if fab.pods <= 1:
        return backend
    if not fab.pods_joined:
        srv = cat.server[fab.server]
        return float(srv.frontend_ports * srv.frontend_port_gbps)
    return round(backend / fab.oversubscription, 1)


def _failed_row(variant: Variant, reason: str) -> dict[str, Any]:
    return {
        "variant": variant.name,
        "fabric": variant.fabric,
        "design": variant.design,
        "nic": variant.nic,
        "switch": FABRICS[variant.fabric].switch,
        "seed": FABRICS[variant.fabric].seed,
        "error": f"failed: {reason}",
    }


def columns(catalog_media: list[str]) -> list[str]:
    """The table's columns for a catalog whose optical media are ``catalog_media``."""
    return [
        "variant", "fabric", "design", "nic", "switch", "seed", "rank", *figure_columns(catalog_media),
        "between_pods_gbps_per_server", "error",
    ]  # fmt: skip


def _variant_task(inputs: Inputs, variant: Variant, state: dict[str, Any]) -> dict[str, Any]:
    """One variant as an engine task (layout.engine: the inputs are sent to each worker once)."""
    return run_variant(inputs, variant)


def compare(
    inputs: Inputs,
    chosen: list[Variant] | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """The comparison table, one row per variant of ``chosen`` (default: ``variants()``), in that order.
    The variants run on Dask (layout.engine): ``scheduler`` ``tcp://HOST:PORT`` an existing cluster, else
    a local cluster of ``jobs`` workers (default: one per core, at most one per variant; 1 runs here).
    The table is the same whichever ran it; a variant whose task failed is a row with its ``error``."""
    from layout.engine import Engine

    todo = chosen if chosen is not None else variants()
    with Engine(scheduler, workers(jobs, len(todo))) as engine:
        return compare_on(engine, inputs, todo)


def workers(jobs: int | None, n: int) -> int:
    """The local cluster's size for ``n`` variants: ``jobs`` (default: one per core), at most ``n``."""
    return min(jobs or os.cpu_count() or 1, n)


def compare_on(
    engine: Engine, inputs: Inputs, todo: list[Variant], done: Callable[[int, Any], None] | None = None
) -> pd.DataFrame:
    """The comparison table of the variants ``todo`` on ``engine``: a variant whose task failed, or that
    was not finished when the engine's cluster was lost (``engine.lost``), is a row with its ``error``.
    ``done(index, result)`` as each variant ends (Engine.map)."""
    from layout.engine import Failed

    got = engine.map(_variant_task, inputs, todo, done)
    rows = [_failed_row(v, r.reason) if isinstance(r, Failed) else r for v, r in zip(todo, got, strict=True)]
    optical = [m for m, spec in inputs.catalog.media.items() if spec.optical]
    df = table(ranked(rows), columns(optical))
    df["rank"] = df["rank"].astype("Int64")
    return df


def ranked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with ``rank``: 1, 2, ... by capital cost (power chain included) over the variants built
    with no error and no violation (ties: table order); None for the others."""
    ok = [i for i, r in enumerate(rows) if not r.get("error") and r.get("violations") == 0]
    order = sorted(ok, key=lambda i: (rows[i]["cost_total_usd"], i))
    rank = {i: k + 1 for k, i in enumerate(order)}
    return [{**r, "rank": rank.get(i)} for i, r in enumerate(rows)]


def best(df: pd.DataFrame) -> dict[str, Any] | None:
    """The ranked variant of rank 1 (the cheapest that can be built), or None when none can."""
    top = df[df["rank"] == 1]
    return None if top.empty else {str(k): v for k, v in top.iloc[0].to_dict().items()}
