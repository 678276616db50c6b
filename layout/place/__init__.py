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

from typing import TYPE_CHECKING, Any

from layout.place.aisles import hall_aisle_checks
from layout.place.assign import Placer
from layout.place.floor_grid import floor_positions, hall_floor
from layout.place.free_floor import FREE_COLUMNS, free_floor
from layout.place.groups import SU_ROLES
from layout.place.tables import (
    RACK_COLUMNS,
    ROW_COLUMNS,
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
from layout.place.zones import as_placed

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.memo import Scope

__all__ = [
    "FREE_COLUMNS",
    "RACK_COLUMNS",
    "ROW_COLUMNS",
    "SU_ROLES",
    "GpuRack",
    "Placement",
    "fabric_servers_per_rack",
    "floor_positions",
    "gpu_rack_for_hall",
    "gpu_racks",
    "hall_floor",
    "network_templates",
    "place",
    "placement_input",
    "rack_polygons",
]


def place(inputs: Inputs, fabric: Fabric, scope: Scope | None = None) -> Placement:
    """Racks on the floor and every device of ``fabric`` in a rack at an RU (docs/tables.md). ``scope``:
    a memo (layout/memo.py) and the fabric's token, in which the zones' layouts are kept (an edit of one
    hall lays out its building alone: layout/place/zones.py); the placement is the same without it."""
    p = Placer(inputs, fabric, scope)
    spots, violations, missing = p.run()
    t = placement_tables(p, spots)
    violations += user_row_checks(inputs, t.racks) + user_row_template_checks(p, t.racks)
    violations += hall_aisle_checks(inputs, [(hall.key, cols.aisle) for hall, cols in t.halls], scope)
    free = free_floor(p, spots, t.row_digits)
    reserve = {h.key: h.reserve for h in p.halls if h.reserve}
    return Placement(
        t.racks, t.rows, t.device_rack, t.device_ru, tuple(violations), p.gpu, missing, free, reserve
    )


def placement_input(inputs: Inputs) -> dict[str, Any]:
    """Everything a placement reads of the inputs, by name (its memo token is these and the fabric's):
    the catalog, the rack templates, the GPU rack of every hall, and the site with the hall keys the
    placer reads only through those GPU racks (max kW), through the hall's cooling capacity (its cooling
    type, which caps the load it takes) or never (floor load) left out: an edit of a hall's floor load,
    of a cooling type that keeps its capacity (a set ``cooling_mw``), or of its max kW that keeps its GPU
    rack, places nothing again."""
    site = inputs.site
    buildings = [b.model_copy(update={"hall": [as_placed(h, inputs) for h in b.hall]}) for b in site.building]
    return {
        "catalog": inputs.catalog,
        "templates": dict(inputs.templates),
        "gpu_racks": gpu_racks(inputs),
        "site": site.model_copy(update={"building": buildings}),
    }
