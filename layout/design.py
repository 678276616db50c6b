"""The whole pipeline as one call: ``run(inputs) -> Design`` (pure; the CLI, the TUI and the exporters
read only a Design).

``run`` is a plain sequence of stages; each stage is a pure function of the inputs and the earlier
stages' results. ``progress`` (optional) is called with each stage's name before it starts, so a front
end can show progress without the core importing a UI library. ``cache`` (optional, layout/cache.py) is
what a front end that reruns the design keeps between runs; without it a run keeps nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd

from layout import bom as bom_mod
from layout import cable as cable_mod
from layout import fabric as fabric_mod
from layout import figures as figures_mod
from layout import place as place_mod
from layout import reliability as reliability_mod
from layout.bom import BomInput
from layout.cable import CableInput, Cabling
from layout.cache import DesignCache, FabricKey
from layout.fabric import Fabric
from layout.load import Inputs
from layout.place import Placement, su_order
from layout.power import cdus as cdus_mod
from layout.power import chain as chain_mod
from layout.power import loads as power_mod
from layout.power.cdus import LiquidLoop
from layout.power.chain import PowerChain
from layout.power.facility import FacilityInput
from layout.power.loads import PowerReport
from layout.reliability import ReliabilityInput
from layout.violations import Violation

STAGES = ("fabric", "place", "cable", "power", "bom")

Progress = Callable[[str], None]


@dataclass(frozen=True, eq=False)
class Design:
    """One immutable result of the pipeline."""

    inputs: Inputs
    fabric: Fabric
    placement: Placement
    cabling: Cabling
    power: PowerReport
    bom: pd.DataFrame
    reliability: dict[str, Any]
    violations: tuple[Violation, ...]
    chain: PowerChain  # UPS blocks, busways and every rack's A and B feeds (layout/power/chain.py)
    liquid: LiquidLoop  # the CDUs of liquid halls (layout/power/cdus.py)

    @cached_property
    def figures(self) -> figures_mod.Figures:
        """The headline figures (layout/figures.py), worked out once; every output prints them from here."""
        return figures_mod.of(
            self.fabric,
            self.placement,
            self.cabling,
            self.power,
            self.bom,
            self.reliability,
            len(self.violations),
        )

    def figure_row(self) -> dict[str, Any]:
        """This design's row of ``compare`` / ``sweep`` (layout.figures.row)."""
        return figures_mod.row(self.inputs.catalog, self.fabric, self.cabling, self.figures)

    def summary(self) -> dict[str, Any]:
        """The ``summary.json`` object of DESIGN.md."""
        fab = self.fabric.summary()
        pl = self.placement
        racks = pl.racks
        halls = {}
        chain = self.chain.by_hall()
        cdus = self.liquid.by_hall()
        for row in self.power.halls.to_dict("records"):
            key = str(row["hall"])
            gpu = pl.gpu_rack.get(key)
            cool = row["cooling_mw"]
            entry: dict[str, Any] = {
                "racks": int(row["racks"]),
                "it_mw": round(float(row["it_kw"]) / 1000.0, 4),
                "cooling_mw": None if cool is None or cool != cool else round(float(cool), 4),
                "gpu_rack": gpu.template if gpu else None,
                "servers_per_rack": gpu.servers if gpu else 0,
            }
            if key in chain:
                entry["power_chain"] = chain[key]
            if key in cdus:
                entry["cdus"] = cdus[key]
            halls[key] = entry
        return {
            "site": self.inputs.site.site.name,
            "gpus": self.fabric.gpus,
            "servers": self.fabric.servers,
            "racks": {
                "total": int(len(racks)),
                "by_template": pl.racks_by_template(),
                "missing": int(pl.racks_missing),
            },
            "halls": halls,
            "switches": fab["switches"],  # the backend (GPU) fabric's, as in DESIGN.md
            "switches_all_networks": self.fabric.switches_all_networks(),
            "links": fab["links"],
            "scalable_unit": fab["scalable_unit"],
            **self.cabling.summary(),
            "power": self.power.summary(),
            "reliability": self.reliability,
            "cost_usd": bom_mod.totals(self.bom),
            "violations": [v.to_dict() for v in self.violations],
            "figures": self.figures.to_json(),
        }


def build_fabric(inputs: Inputs, cache: DesignCache | None = None) -> Fabric:
    """The site's fabric, wired for the rack density the halls allow (middle-of-rack leaf groups).
    ``cache``: an earlier run's fabric when the cluster, catalog, servers per rack and file it was built
    from are equal (edits in the TUI mostly leave the cluster alone); a Fabric is immutable (read-only
    arrays), so a run may take one as it is."""
    spr = place_mod.fabric_servers_per_rack(inputs)
    cluster = inputs.site.cluster
    if cache is None:
        return fabric_mod.build(cluster, inputs.catalog, spr, str(inputs.path))
    # == ignores which fields were given; fabric.build does not (a default NIC MTBF vs the one given)
    key: FabricKey = (cluster, frozenset(cluster.model_fields_set), inputs.catalog, spr, str(inputs.path))
    return cache.fabrics.take(key, lambda: fabric_mod.build(cluster, inputs.catalog, spr, str(inputs.path)))


def check(inputs: Inputs, cache: DesignCache | None = None) -> Fabric:
    """Every check of the input that the pipeline makes before it designs: the fabric sizing (tiers
    that cannot hold the GPUs, a switch too slow for the servers, pods one tier cannot join, ...) and
    the network rack templates the placer needs. ``dclayout validate`` runs exactly this, so that it
    refuses what ``dclayout design`` refuses, with the same lines (InputError); returns the fabric."""
    from layout.errors import InputError, Problem
    from layout.estimates import memory_problem

    too_big = memory_problem(inputs)  # before building anything: one line, not a MemoryError later
    if too_big is not None:
        raise InputError([Problem(str(inputs.path), *too_big)])
    fabric = build_fabric(inputs, cache)
    place_mod.network_templates(inputs)
    su_order.problems(inputs, fabric)
    return fabric


def run(inputs: Inputs, progress: Progress | None = None, cache: DesignCache | None = None) -> Design:
    """Run every stage on validated inputs. Design-rule breaches are in ``Design.violations``.

    ``cache``: what earlier runs of the same front end kept (layout/cache.py), handed to the stages that
    reuse work; the design is the same with or without it. Without one, nothing is kept between calls.
    """
    step: Progress = progress or (lambda _name: None)
    step("fabric")
    fabric = check(inputs, cache)
    step("place")
    placement = place_mod.place(inputs, fabric, cache.place if cache is not None else None)
    step("cable")
    cabling = cable_mod.cable(
        CableInput.of(inputs), fabric, placement, cache.cable if cache is not None else None
    )
    step("power")
    power = power_mod.check(
        inputs,
        fabric,
        placement,
        module_w=cabling.module_w,
        kept=cache.power_loads if cache is not None else None,
    )
    facility = FacilityInput.of(inputs)
    chain = chain_mod.build(
        facility,
        placement,
        power.rack_kw,
        cache.hall_chains if cache is not None else None,
        cache.chains if cache is not None else None,
    )
    liquid = cdus_mod.liquid_loop(facility, placement, power.rack_kw)
    step("bom")
    bom = bom_mod.build(
        BomInput.of(inputs),
        fabric,
        placement,
        cabling,
        chain,
        liquid,
        cache.bom_parts if cache is not None else None,
        cache.bom_cabling if cache is not None else None,
    )
    reliability = reliability_mod.design_reliability(
        ReliabilityInput.of(inputs, fabric, cabling), cache.reliability if cache is not None else None
    )
    violations = (
        tuple(placement.violations)
        + tuple(cabling.violations)
        + tuple(power.violations)
        + chain.violations
        + liquid.violations
    )
    return Design(
        inputs=inputs,
        fabric=fabric,
        placement=placement,
        cabling=cabling,
        power=power,
        bom=bom,
        reliability=reliability,
        violations=violations,
        chain=chain,
        liquid=liquid,
    )
