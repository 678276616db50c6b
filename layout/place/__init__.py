"""Place the racks on the halls' floors and every fabric device in a rack (pure: shapely 2 + numpy).

:func:`place` takes validated inputs and a fabric and returns a :class:`Placement`: the racks and rows
tables (docs/tables.md), each device's rack and RU, the GPU rack of every hall and the violations
(``capacity`` when the floor is too small, ``user_row`` when a user row stands on an obstacle). The
package, by what each part does (each module's docstring gives its rules in full):

- :mod:`~layout.place.templates`: the GPU rack each hall gets: ``cluster.rack`` unless its estimated kW
  exceeds the hall's ``max_rack_kw``, then ``cluster.rack_low_density``; and the network rack templates;
- :mod:`~layout.place.floor_grid`: each hall's floor grid: the usable area, row lines in facing pairs
  with cold and hot aisles, cross-aisle segments and their free intervals, and the cursor that lays racks
  into them;
- :mod:`~layout.place.groups`: the fabric's devices grouped into racks: an SU's block of GPU racks with
  its network racks in the middle (middle-of-rack: the leaves in the GPU racks), spine and MDF racks;
- :mod:`~layout.place.assign`: pods to buildings, SUs to halls (within the halls' and buildings' MW),
  and each hall laid out: SU rows, spine rows in the middle, the MDF nearest the building's entry, user
  rows kept as drawn;
- :mod:`~layout.place.aisles`: every rack's front and back aisle kept clear (``aisle`` violations);
- :mod:`~layout.place.tables`: the racks and rows tables, each device's rack and RU, user-row checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from layout.kept import Kept
from layout.place.aisles import AisleKey, hall_aisle_checks
from layout.place.assign import Placer
from layout.place.floor_grid import GridKey, KeptGrid, floor_positions, hall_floor
from layout.place.groups import SU_ROLES, Derived, DerivedKey
from layout.place.tables import (
    RACK_COLUMNS,
    ROW_COLUMNS,
    HallColumns,
    HallColumnsKey,
    HallTables,
    HallTablesKey,
    Placement,
    placement_tables,
    rack_polygons,
    user_row_checks,
    user_row_template_checks,
)
from layout.place.templates import (
    GpuRack,
    fabric_servers_per_rack,
    gpu_rack_for_hall,
    gpu_racks,
    network_templates,
)
from layout.place.zones import ZoneStore, as_placed

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.violations import Violation

__all__ = [
    "RACK_COLUMNS",
    "ROW_COLUMNS",
    "SU_ROLES",
    "GpuRack",
    "PlaceCache",
    "Placement",
    "fabric_servers_per_rack",
    "floor_positions",
    "gpu_rack_for_hall",
    "gpu_racks",
    "hall_floor",
    "network_templates",
    "place",
    "rack_polygons",
]

PLACEMENTS_KEPT = 2  # the design shown and the one before (undo and redo show a recent design anyway)
HALL_GRIDS_KEPT = 64  # hall floor grids a cache keeps (the 100k campus has 8 halls)
HALL_TABLES_KEPT = 24  # halls' parts of the racks and rows tables: three versions of the campus's 8 halls
FABRIC_GROUPS_KEPT = 4  # fabrics whose grouped devices and SU blocks a cache keeps


@dataclass(eq=False)
class PlaceCache:
    """What placement keeps from one run for the next when it is given a cache (the TUI's
    :class:`layout.cache.DesignCache`): the last placements by all they are made from
    (:func:`placement_key`), each hall's floor grid by everything it is made from, each fabric's
    devices grouped for placement (SU blocks, packed racks) by the fabric, catalog and templates, the
    zones' layouts (layout/place/zones.py), and per hall its part of the tables, that part with its
    ids as read-only columns, and its aisle check (each by all it is made from: layout/place/tables.py,
    aisles.py). Without one, a placement keeps nothing."""

    placements: Kept[tuple[Any, ...], Placement] = field(default_factory=lambda: Kept(PLACEMENTS_KEPT))
    grids: Kept[GridKey, KeptGrid] = field(default_factory=lambda: Kept(HALL_GRIDS_KEPT))
    groups: Kept[DerivedKey, Derived] = field(default_factory=lambda: Kept(FABRIC_GROUPS_KEPT))
    zones: ZoneStore = field(default_factory=ZoneStore)
    tables: Kept[HallTablesKey, HallTables] = field(default_factory=lambda: Kept(HALL_TABLES_KEPT))
    columns: Kept[HallColumnsKey, HallColumns] = field(default_factory=lambda: Kept(HALL_TABLES_KEPT))
    aisles: Kept[AisleKey, list[Violation]] = field(default_factory=lambda: Kept(HALL_TABLES_KEPT))


def place(inputs: Inputs, fabric: Fabric, cache: PlaceCache | None = None) -> Placement:
    """Racks on the floor and every device of ``fabric`` in a rack at an RU (docs/tables.md). ``cache``:
    placements, hall grids and grouped devices kept from earlier runs (and for later ones); the placement
    is the same with or without it."""
    if cache is None:
        return _place(inputs, fabric, None)
    key = tuple(placement_key(inputs, fabric).values())
    return cache.placements.take(key, lambda: _place(inputs, fabric, cache))


def placement_key(inputs: Inputs, fabric: Fabric) -> dict[str, Any]:
    """Everything a placement is made from, by name (a cache keeps a Placement by all of it): the fabric
    (the very object: immutable), the catalog, the rack templates, the GPU rack of every hall, and the
    site with the hall keys the placer reads only through those GPU racks (max kW), through the hall's
    cooling capacity (its cooling type, which caps the load it takes) or never (floor load) left out: an
    edit of a hall's floor load, of a cooling type that keeps its capacity (a set ``cooling_mw``), or of its
    max kW that keeps its GPU rack, places nothing again."""
    site = inputs.site
    buildings = [b.model_copy(update={"hall": [as_placed(h, inputs) for h in b.hall]}) for b in site.building]
    return {
        "fabric": fabric,
        "catalog": inputs.catalog,
        "templates": dict(inputs.templates),
        "gpu_racks": gpu_racks(inputs),
        "site": site.model_copy(update={"building": buildings}),
    }


def _place(inputs: Inputs, fabric: Fabric, cache: PlaceCache | None) -> Placement:
    if cache is None:
        p = Placer(inputs, fabric)
    else:
        p = Placer(inputs, fabric, cache.grids, cache.groups, cache.zones)
    spots, violations, missing = p.run()
    t = placement_tables(
        p,
        spots,
        cache.tables if cache is not None else None,
        cache.columns if cache is not None else None,
    )
    violations += user_row_checks(inputs, t.racks) + user_row_template_checks(p, t.racks)
    violations += hall_aisle_checks(
        inputs,
        [(hall.key, cols.aisle) for hall, cols in t.halls],
        cache.aisles if cache is not None else None,
    )
    return Placement(t.racks, t.rows, t.device_rack, t.device_ru, tuple(violations), p.gpu, missing)
