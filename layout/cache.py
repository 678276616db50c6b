"""What a front end that designs the same site again and again keeps between runs, passed explicitly.

``design.run(inputs)`` keeps nothing: every call builds every stage from its inputs, so the CLI, the
report and the engine never see a value from another run. A front end that reruns the design per edit
(the TUI) passes one :class:`DesignCache` to every run; the stages that can reuse earlier work get their
part of it:

- the fabric (``design.build_fabric``), by the cluster (with which of its keys were given), the catalog,
  the servers per rack the halls allow and the site file it is built for;
- the last placements, by all the placer reads (``place.placement_key``: a hall's cooling, or a max kW
  that keeps its GPU rack, places nothing again), each hall's floor grid, each fabric's devices
  grouped for placement (``place.place``), each building's trial and final layout (``place.zones``:
  an edit of one hall lays out its building alone), each hall's part of the racks and rows tables
  (``place.tables.hall_tables_key``), that part with its ids as columns (``hall_columns_key``) and
  each hall's aisle check (``place.aisles.aisle_key``): see :class:`layout.place.PlaceCache`;
- the power report's loads (``power.loads.rack_loads_key``: kW per device and rack, floor loads, rows and
  each hall's sums, from the fabric, the catalog, the templates, the placement and the modules' watts;
  not the halls' limits, which ``power.loads.check`` applies anew every run);
- each hall's power chain (``power.chain.hall_chain_key``: the hall's power table, it_mw and cooling,
  the catalog and its racks with their kW: an edit of one hall builds that hall's chain alone), and the
  whole chain's tables (``power.chain.chain_key``: the halls' parts, the very objects, and the racks);
- the BOM rows of each fabric's servers, nodes and switches (``bom.fabric_parts_key``: the fabric and
  the catalog), and of each cabling's transceivers, cables and trays (``bom.cabling_parts_key``: the
  cabling, the very object, and the catalog);
- the reliability figures of each cabling (``reliability.reliability_key``: the fabric's NIC, server
  and GPUs, the cabling's tables, the catalog, the cluster's link MTBF and the training table: an edit
  that re-cables nothing reuses them);
- the last cablings, by all the cabling stage reads (``cable.cabling_key``: an edit of a hall's
  cooling, power budget or floor load that moves no rack re-cables nothing), each fabric's port
  skeleton (every end's port and cage), each hall's piece of the tray network
  (``cable.tray_pieces.hall_trays_key``) and the last run's per-link picks, port map and counts, which
  the next run takes for the links an edit did not move: see :class:`layout.cable.CableCache`.

Each store is a bounded :class:`layout.kept.Kept` keyed by everything its value is made from, so a run
with a cache gives the same design as one without (tests/unit/test_cache.py and test_hall_edits.py
check this on every shipped site and on sequences of edits, and that leaving any part out of the
cabling's key is caught; tests/unit/test_cache_power_bom.py the same for the stores after cabling).
Keys hold immutable values they do not compare by content (a cabling, a hall's chain) as
:class:`layout.kept.Same`: the very object, weakly. Values are immutable or only read; a cache may be shared by
the runs of one thread after another (the TUI's design worker), not by runs at the same time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from layout.bom import CABLING_PARTS_KEPT, FABRIC_PARTS_KEPT, FabricParts, Row
from layout.cable import CableCache
from layout.kept import Kept
from layout.place import PlaceCache
from layout.power.chain import CHAINS_KEPT, HALL_CHAINS_KEPT, HallChain, PowerChain
from layout.power.loads import RACK_LOADS_KEPT, RackLoads
from layout.reliability import RELIABILITY_KEPT

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.model import Catalog, Cluster

FABRICS_KEPT = 4  # going back to an earlier cluster (rail, then middle-of-rack, then undo) builds nothing

# cluster, the cluster keys given in the file, catalog, servers per rack (middle-of-rack), site file
FabricKey = tuple["Cluster", frozenset[str], "Catalog", "int | None", str]


@dataclass(eq=False)
class DesignCache:
    """The stores one front end keeps for its design runs (see the module docstring)."""

    fabrics: Kept[FabricKey, Fabric] = field(default_factory=lambda: Kept(FABRICS_KEPT))
    place: PlaceCache = field(default_factory=PlaceCache)
    cable: CableCache = field(default_factory=CableCache)
    power_loads: Kept[tuple[Any, ...], RackLoads] = field(default_factory=lambda: Kept(RACK_LOADS_KEPT))
    hall_chains: Kept[tuple[Any, ...], HallChain] = field(default_factory=lambda: Kept(HALL_CHAINS_KEPT))
    chains: Kept[tuple[Any, ...], PowerChain] = field(default_factory=lambda: Kept(CHAINS_KEPT))
    bom_parts: Kept[tuple[Any, ...], FabricParts] = field(default_factory=lambda: Kept(FABRIC_PARTS_KEPT))
    bom_cabling: Kept[tuple[Any, ...], list[Row]] = field(default_factory=lambda: Kept(CABLING_PARTS_KEPT))
    reliability: Kept[tuple[Any, ...], dict[str, Any]] = field(default_factory=lambda: Kept(RELIABILITY_KEPT))

    def sizes(self) -> dict[str, Any]:
        """How many values each store holds (for tests and the benchmarks' notes)."""
        return {
            "fabrics": len(self.fabrics),
            "placements": len(self.place.placements),
            "grids": len(self.place.grids),
            "groups": len(self.place.groups),
            "zone_trials": len(self.place.zones.trials),
            "zone_layouts": len(self.place.zones.finals),
            "hall_tables": len(self.place.tables),
            "hall_columns": len(self.place.columns),
            "aisle_checks": len(self.place.aisles),
            "cablings": len(self.cable.cablings),
            "port_skeletons": len(self.cable.skeletons),
            "port_runs": len(self.cable.ports),
            "tray_halls": len(self.cable.tray_halls),
            "power_loads": len(self.power_loads),
            "hall_chains": len(self.hall_chains),
            "chains": len(self.chains),
            "bom_parts": len(self.bom_parts),
            "bom_cabling": len(self.bom_cabling),
            "reliability": len(self.reliability),
        }
