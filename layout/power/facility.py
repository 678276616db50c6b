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
    from layout.model.catalog import Margins
    from layout.model.site import Building, Hall
    from layout.model.templates import RackTemplate


@dataclass(frozen=True, eq=False)
class FacilityInput:
    """The parts of :class:`layout.load.Inputs` the power chain and the liquid loop read (module
    docstring). Made once per run by :meth:`of`; its models are the inputs' own (read, never changed)."""

    catalog: Catalog
    template_cooling: dict[str, str]  # each rack template's cooling type, by template id
    halls: tuple[tuple[Building, Hall], ...]  # every hall with its building, in site order
    margins: Margins  # the catalog's engineering margins with the site's overrides
    template_liquid_fraction: dict[str, float | None]  # each template's servers' liquid fraction, if stated
    template_pdu_positions: dict[str, int]  # rack PDUs each template has room for on one side

    @classmethod
    def of(cls, inputs: Inputs) -> FacilityInput:
        given = inputs.site.margins.model_dump(exclude_none=True)
        return cls(
            catalog=inputs.catalog,
            template_cooling={t: tpl.cooling for t, tpl in inputs.templates.items()},
            halls=tuple(inputs.site.halls()),
            margins=inputs.catalog.margins.model_copy(update=given),
            template_liquid_fraction={
                t: _liquid_fraction(inputs.catalog, tpl) for t, tpl in inputs.templates.items()
            },
            template_pdu_positions={t: tpl.pdu_positions_per_side for t, tpl in inputs.templates.items()},
        )


def _liquid_fraction(catalog: Catalog, template: RackTemplate) -> float | None:
    """The liquid fraction the catalog states for the template's servers (None: none stated)."""
    server = template.server_id(set(catalog.server))
    return catalog.server[server].liquid_fraction if server is not None else None
