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
- :mod:`~layout.place.tables`: the racks and rows tables, each device's rack and RU, user-row checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from layout.place import floor_grid, groups
from layout.place.assign import Placer
from layout.place.floor_grid import floor_positions, hall_floor
from layout.place.groups import SU_ROLES
from layout.place.tables import (
    RACK_COLUMNS,
    ROW_COLUMNS,
    Placement,
    placement_tables,
    rack_polygons,
    user_row_checks,
)
from layout.place.templates import (
    GpuRack,
    fabric_servers_per_rack,
    gpu_rack_for_hall,
    gpu_racks,
    network_templates,
)

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs

__all__ = [
    "RACK_COLUMNS",
    "ROW_COLUMNS",
    "SU_ROLES",
    "GpuRack",
    "Placement",
    "fabric_servers_per_rack",
    "floor_positions",
    "forget_kept",
    "gpu_rack_for_hall",
    "gpu_racks",
    "hall_floor",
    "network_templates",
    "place",
    "rack_polygons",
]

# what placement keeps between runs (see forget_kept)
_GRIDS = floor_grid.GRIDS
_DERIVED = groups.DERIVED


def place(inputs: Inputs, fabric: Fabric) -> Placement:
    """Racks on the floor and every device of ``fabric`` in a rack at an RU (docs/tables.md)."""
    p = Placer(inputs, fabric)
    spots, violations, missing = p.run()
    racks, rows, device_rack, device_ru = placement_tables(p, spots)
    violations += user_row_checks(inputs, racks)
    return Placement(racks, rows, device_rack, device_ru, tuple(violations), p.gpu, missing)


def forget_kept() -> None:
    """Drop the hall grids and per-fabric placement data kept for later runs (benchmarks time a cold
    placement with it; tests compare with a run that keeps nothing)."""
    _GRIDS.clear()
    _DERIVED.clear()
