"""What the power chain and the liquid loop read of the inputs (:class:`FacilityInput`), and nothing else.

Both are built per hall from the catalog's facility parts (busways, tap-offs, UPS blocks, switchboards,
CDUs, the liquid fraction of a liquid-cooled rack) and each hall's own figures (its power spec and
redundancy, ``it_mw``, cooling and floor); the liquid loop also reads which rack templates are
liquid-cooled. Never the cluster, the site's PUE or utility feed, the buildings' limits, the ducts or
the trays. (The power check, layout/power/loads.py, reads those: it takes the whole inputs.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from layout.load import Inputs
    from layout.model import Catalog
    from layout.model.site import Building, Hall


@dataclass(frozen=True, eq=False)
class FacilityInput:
    """The parts of :class:`layout.load.Inputs` the power chain and the liquid loop read (module
    docstring). Made once per run by :meth:`of`; its models are the inputs' own (read, never changed)."""

    catalog: Catalog
    template_cooling: dict[str, str]  # each rack template's cooling type, by template id
    halls: tuple[tuple[Building, Hall], ...]  # every hall with its building, in site order

    @classmethod
    def of(cls, inputs: Inputs) -> FacilityInput:
        return cls(
            catalog=inputs.catalog,
            template_cooling={t: tpl.cooling for t, tpl in inputs.templates.items()},
            halls=tuple(inputs.site.halls()),
        )
