"""The whole pipeline as one call: ``run(inputs) -> Design`` (pure; the CLI, the TUI and the exporters
read only a Design).

``run`` is a plain sequence of stages; each stage is a pure function of the inputs and the earlier
stages' results. ``progress`` (optional) is called with each stage's name before it starts, so a front
end can show progress without the core importing a UI library. ``memo`` (optional, layout/memo.py) is
what a front end that reruns the design keeps between runs: each stage's result by the token of its
narrow input and of the upstream results' tokens (:class:`Tokens`); without it a run keeps nothing.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from layout import fabric as fabric_mod
from layout import place as place_mod
from layout.fabric import Fabric
from layout.load import Inputs
from layout.memo import Memo, Scope, Token, token
from layout.place import Placement, su_order
from layout.violations import Violation

if TYPE_CHECKING:  # the later stages are imported where they run: `validate` needs only the fabric
    import pandas as pd

    from layout import figures as figures_mod
    from layout.cable import Cabling
    from layout.power.cdus import LiquidLoop
    from layout.power.chain import PowerChain
    from layout.power.loads import PowerReport
    from layout.power.sld import SldBlock

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
    def schedule(self) -> pd.DataFrame:
        """The electrical schedule (layout/power/schedule.py): worked out once, printed by the XLSX Power
        sheet and the PDF's single-line diagrams alike."""
        from layout.power.facility import FacilityInput
        from layout.power.schedule import schedule

        margins = FacilityInput.of(self.inputs).margins
        return schedule(self.chain, self.power.rack_kw, self.inputs.catalog, margins)

    @cached_property
    def sld(self) -> dict[str, tuple[SldBlock, ...]]:
        """Each hall's single-line tree (layout/power/sld.py) from :attr:`schedule`: worked out once,
        drawn by the DXF sheet and the PDF page alike."""
        from layout.power.sld import sld_trees

        return sld_trees(self.schedule)

    @cached_property
    def inter_building(self) -> dict[str, Any]:
        """Links whose ends stand in two buildings, and the GPU fabric's lower bound (layout/crossings.py)."""
        from layout import crossings as crossings_mod

        return crossings_mod.of(self.fabric, self.placement)

    @cached_property
    def figures(self) -> figures_mod.Figures:
        """The headline figures (layout/figures.py), worked out once; every output prints them from here."""
        from layout import figures as figures_mod

        return figures_mod.of(
            self.fabric,
            self.placement,
            self.cabling,
            self.power,
            self.bom,
            self.reliability,
            len(self.violations),
            self.inputs.catalog,
            self.inter_building["links"],
        )

    def figure_row(self) -> dict[str, Any]:
        """This design's row of ``compare`` / ``sweep`` (layout.figures.row)."""
        from layout import figures as figures_mod

        return figures_mod.row(self.inputs.catalog, self.fabric, self.cabling, self.figures)

    def summary(self) -> dict[str, Any]:
        """The ``summary.json`` object of DESIGN.md."""
        from layout import bom as bom_mod
        from layout.cable import labour as labour_mod

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
                # rack positions each row left free at its start for fibre cabinets (fibre_positions)
                "fibre_positions": pl.fibre_positions.get(key, 0),
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
            "inter_building": self.inter_building,
            "switches": fab["switches"],  # the backend (GPU) fabric's, as in DESIGN.md
            "switches_all_networks": self.fabric.switches_all_networks(),
            "links": fab["links"],
            "scalable_unit": fab["scalable_unit"],
            **self.cabling.summary(),
            "install": labour_mod.summary(self.inputs.catalog, self.cabling, pl.racks),
            "power": self.power.summary(),
            "reliability": self.reliability,
            "cost_usd": bom_mod.totals(self.bom),
            "violations": [v.to_dict() for v in self.violations],
            "figures": self.figures.to_json(),
        }


def fabric_token(inputs: Inputs) -> Token:
    """The token of the site's fabric: the cluster (with which of its keys were given: ``fabric.build``
    tells a default NIC MTBF from one given), the catalog, the servers per rack the halls allow and the
    site file it is built for."""
    cluster = inputs.site.cluster
    spr = place_mod.fabric_servers_per_rack(inputs)
    return Token(
        token("fabric", cluster, sorted(cluster.model_fields_set), inputs.catalog, spr, str(inputs.path))
    )


def build_fabric(inputs: Inputs, memo: Memo | None = None) -> Fabric:
    """The site's fabric, wired for the rack density the halls allow (middle-of-rack leaf groups).
    ``memo``: an earlier run's fabric of the same :func:`fabric_token` (a Fabric is immutable)."""
    spr = place_mod.fabric_servers_per_rack(inputs)

    def make() -> Fabric:
        return fabric_mod.build(inputs.site.cluster, inputs.catalog, spr, str(inputs.path))

    return make() if memo is None else memo.take("fabric", fabric_token(inputs), make)


def check(inputs: Inputs, memo: Memo | None = None) -> Fabric:
    """Every check of the input that the pipeline makes before it designs: the fabric sizing (tiers
    that cannot hold the GPUs, a switch too slow for the servers, pods one tier cannot join, ...) and
    the network rack templates the placer needs. ``dclayout validate`` runs exactly this, so that it
    refuses what ``dclayout design`` refuses, with the same lines (InputError); returns the fabric."""
    from layout.errors import InputError, Problem
    from layout.estimates import memory_problem

    too_big = memory_problem(inputs)  # before building anything: one line, not a MemoryError later
    if too_big is not None:
        raise InputError([Problem(str(inputs.path), *too_big)])
    fabric = build_fabric(inputs, memo)
    place_mod.network_templates(inputs)
    su_order.problems(inputs, fabric)
    return fabric


# placements at most: the first, then with more floor kept for fibre cabinets, as long as that leaves
# no rack out that the placement before placed
FIBRE_ATTEMPTS = 3


def fibre_positions(inputs: Inputs, placement: Placement, plant: Any) -> dict[str, int]:
    """The halls whose fibre cabinets found no free rack position (layout/cable/cabinets.py) and do not
    set ``fibre_positions`` themselves, each with the positions every row should leave free at its
    start for them: what it left before and the cabinets short shared over its rows (rounded up), at
    most half of ``max_row_racks``; {} when every cabinet has its place (or no hall can keep more)."""
    import numpy as np
    import pandas as pd

    panels, cab = plant.panels, plant.cabinets
    if not len(panels) or int(panels["cabinets"].sum()) == len(cab):
        return {}
    halls = placement.racks["hall"].astype(str).to_numpy(object)
    asked = (
        pd.Series(panels["cabinets"].to_numpy(np.int64))
        .groupby(halls[panels["rack"].to_numpy(np.int64)])
        .sum()
    )
    got = cab.groupby("hall")["rack"].size() if len(cab) else pd.Series(dtype=np.int64)
    rows = placement.rows.loc[~placement.rows["user_row"].astype(bool), "hall"].astype(str).value_counts()
    by_key = {f"{b.id}/{h.id}": h for b, h in inputs.site.halls()}
    out: dict[str, int] = {}
    for hall, n in asked.items():
        key = str(hall)
        h = by_key[key]
        if h.fibre_positions is not None or int(got.get(key, 0)) >= int(n):
            continue
        before = placement.fibre_positions.get(key, 0)
        short = int(n) - int(got.get(key, 0))
        most = min(h.max_row_racks // 2, 50)  # a row keeps half its places for racks
        want = min(before + max(-(-short // max(int(rows.get(key, 1)), 1)), 1), most)
        if want > before:
            out[key] = want
    return out


def with_fibre_positions(inputs: Inputs, positions: dict[str, int]) -> Inputs:
    """``inputs`` with these halls' ``fibre_positions`` set (the placer keeps them free)."""
    buildings = [
        b.model_copy(
            update={
                "hall": [
                    h.model_copy(update={"fibre_positions": positions[f"{b.id}/{h.id}"]})
                    if f"{b.id}/{h.id}" in positions
                    else h
                    for h in b.hall
                ]
            }
        )
        for b in inputs.site.building
    ]
    return dataclasses.replace(inputs, site=inputs.site.model_copy(update={"building": buildings}))


def run(inputs: Inputs, progress: Progress | None = None, memo: Memo | None = None) -> Design:
    """Run every stage on validated inputs. Design-rule breaches are in ``Design.violations``.

    ``memo``: what earlier runs of the same front end kept (layout/memo.py). Each stage's result is kept
    under a token of its narrow input and of the tokens of the results it is given; a stage whose token
    is kept takes that result. The placement's token is its content (its racks and rows tables, ~5 ms on
    the 100k campus), so an edit that places every rack where it was (a hall's cooling, power budget or
    floor load) re-cables nothing. The design is the same with or without a memo; without one, nothing
    is kept between calls.
    """
    from layout import bom as bom_mod
    from layout import cable as cable_mod
    from layout import reliability as reliability_mod
    from layout.bom import BomInput
    from layout.cable import CableInput
    from layout.power import cdus as cdus_mod
    from layout.power import chain as chain_mod
    from layout.power import loads as power_mod
    from layout.power.facility import FacilityInput
    from layout.reliability import ReliabilityInput

    step: Progress = progress or (lambda _name: None)

    def take(stage: str, key: Callable[[], Token], make: Callable[[], Any]) -> Any:
        return make() if memo is None else memo.take(stage, key(), make)

    step("fabric")
    fabric = check(inputs, memo)
    f = fabric_token(inputs) if memo is not None else Token("")
    scope = Scope(memo, f) if memo is not None else None
    cable_in = CableInput.of(inputs)

    def place(placed: Inputs) -> tuple[Placement, Token]:
        step("place")
        placement: Placement = take(
            "place",
            lambda: Token(token("place", place_mod.placement_input(placed), f)),
            lambda: place_mod.place(placed, fabric, scope),
        )
        return placement, Token(token("placement", placement)) if memo is not None else Token("")

    def cable(placement: Placement, p: Token) -> tuple[Cabling, Token]:
        step("cable")
        c = Token(token("cable", cable_in.reads(), f, p)) if memo is not None else Token("")
        cabling: Cabling = take(
            "cable", lambda: c, lambda: cable_mod.cable(cable_in, fabric, placement, scope)
        )
        return cabling, c

    # the fibre cabinets' floor: when they find none, the halls short of it are placed again with rack
    # positions kept free at each row's start (fibre_positions), never at the cost of a rack the
    # placement before placed
    placement, p = place(inputs)
    cabling, c = cable(placement, p)
    placed = inputs
    for _ in range(FIBRE_ATTEMPTS - 1):
        more = fibre_positions(placed, placement, cabling.plant)
        if not more:
            break
        keep = with_fibre_positions(placed, more)
        pl2, p2 = place(keep)
        if pl2.racks_missing > placement.racks_missing:
            break  # the floor kept for fibre would leave racks out: the cabinets stay short
        placed, (placement, p) = keep, (pl2, p2)
        cabling, c = cable(placement, p)
    step("power")
    # the loads read the catalog, the templates (kW, slots) and the halls' limits
    w = (
        Token(token("power", inputs.catalog, dict(inputs.templates), inputs.site, f, p, c))
        if memo
        else Token("")
    )
    power: PowerReport = take(
        "power",
        lambda: w,
        lambda: power_mod.check(
            inputs,
            fabric,
            placement,
            module_w=cabling.module_w,
            scope=Scope(memo, Token(token(f, p, c))) if memo is not None else None,
        ),
    )
    facility = FacilityInput.of(inputs)
    fac = Token(token("facility", facility, p, w)) if memo is not None else Token("")
    chain: PowerChain = take(
        "chain",
        lambda: fac,
        lambda: chain_mod.build(facility, placement, power.rack_kw, power.rack_side_cords),
    )
    liquid: LiquidLoop = take(
        "liquid",
        lambda: fac,
        lambda: cdus_mod.liquid_loop(facility, placement, power.rack_kw, cabling.plant.cabinets),
    )
    step("bom")
    bom_in = BomInput.of(inputs)
    bom: pd.DataFrame = take(
        "bom",
        lambda: Token(token("bom", bom_in, f, p, c, fac)),
        lambda: bom_mod.build(bom_in, fabric, placement, cabling, chain, liquid, scope),
    )
    cluster = inputs.site.cluster
    given = cluster.link_mtbf_years if "link_mtbf_years" in cluster.model_fields_set else None
    reliability: dict[str, Any] = copy.deepcopy(
        take(
            "reliability",
            lambda: Token(token("reliability", inputs.catalog, given, inputs.site.training, f, c)),
            lambda: reliability_mod.design_reliability(ReliabilityInput.of(inputs, fabric, cabling)),
        )
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
