"""What the cabling stage reads of the inputs (:class:`CableInput`), and nothing else.

The cabling reads the catalog (media, switches, servers, NICs), each rack template's height, and of the
site only where the trays can run: the buildings (footprint, entry) with their halls (polygon, tray
spec, cross aisle), the campus ducts and the tray edits. Never the halls' power, cooling or floor load,
the cluster (its fabric is given) or the training table: an edit of those re-cables nothing
(``cabling_key`` in layout/cable/stage.py keeps a cabling by exactly these parts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from layout.load import Inputs
    from layout.model import Catalog
    from layout.model.site import Building, Duct, Hall, TrayEdit


@dataclass(frozen=True, eq=False)
class CableInput:
    """The parts of :class:`layout.load.Inputs` the cabling stage reads (module docstring). Made once
    per run by :meth:`of`; its models are the inputs' own (read, never changed)."""

    catalog: Catalog
    heights_ru: dict[str, int]  # each rack template's height, by template id
    buildings: tuple[Building, ...]  # footprint, entry and halls (polygon, tray, cross aisle)
    ducts: tuple[Duct, ...]
    tray_block: tuple[TrayEdit, ...]
    tray_add: tuple[TrayEdit, ...]

    @classmethod
    def of(cls, inputs: Inputs) -> CableInput:
        site = inputs.site
        return cls(
            catalog=inputs.catalog,
            heights_ru={t: tpl.height_ru for t, tpl in inputs.templates.items()},
            buildings=tuple(site.building),
            ducts=tuple(site.duct),
            tray_block=tuple(site.tray_block),
            tray_add=tuple(site.tray_add),
        )

    def halls(self) -> list[tuple[Building, Hall]]:
        """Every hall with its building, in site order (as ``SiteFile.halls``)."""
        return [(b, h) for b in self.buildings for h in b.hall]
