"""What the cabling stage reads of the inputs (:class:`CableInput`), and nothing else.

The cabling reads the catalog (media, switches, servers, NICs), each rack template's height, and of the
site only where the trays can run: the buildings (footprint, entry) with their halls (polygon, tray
spec, cross aisle), the campus ducts and the tray edits. Never the halls' power, cooling or floor load,
the cluster (its fabric is given) or the training table: an edit of those re-cables nothing
(:meth:`CableInput.reads` names exactly these parts: a memo keeps a cabling by them, layout/design.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
    panels: str = "row"  # where the cable plant's patch panels stand (site [plant] panels)

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
            panels=site.plant.panels,
        )

    def reads(self) -> dict[str, Any]:
        """What the stage reads of this input, by name (the memo's token of a cabling is these, the
        fabric's and the placement's): the catalog, the rack heights, where the buildings, their entries
        and the halls' trays are (polygon, tray spec, cross aisle), the ducts and tray edits, where the
        patch panels stand (site ``[plant] panels``). Not the
        halls' power, cooling or floor load, which the cabling never reads."""
        return {
            "catalog": self.catalog,
            "rack_heights": sorted(self.heights_ru.items()),
            "buildings": [(b.id, b.footprint, b.entry) for b in self.buildings],
            "halls": [(b.id, h.id, h.polygon, h.tray, h.cross_aisle_m) for b, h in self.halls()],
            "ducts": list(self.ducts),
            "tray_block": list(self.tray_block),
            "tray_add": list(self.tray_add),
            "panels": self.panels,
        }

    def halls(self) -> list[tuple[Building, Hall]]:
        """Every hall with its building, in site order (as ``SiteFile.halls``)."""
        return [(b, h) for b in self.buildings for h in b.hall]
