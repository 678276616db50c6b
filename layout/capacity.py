"""A hall's heat rejection capacity (pure): what the placer fills halls within and the power stage checks.

A hall rejects ``cooling_mw`` of heat (its site file), or by default its floor area x the catalog's
``[cooling.TYPE] kw_per_m2`` for its cooling type (:func:`hall_cooling_mw`). The placer (layout.place)
fills halls within both their power (``it_mw``) and this; the power stage (layout.power) reports a hall
whose racks draw more (``layout.power.cooling.heat_violations``) and sizes its chain by it. It is a
module of its own, below both, so that neither stage imports the other's package for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapely.geometry import Polygon

if TYPE_CHECKING:
    from layout.model import Catalog, Hall


def hall_area_m2(hall: Hall) -> float:
    return float(Polygon(hall.polygon).area)


def hall_cooling_mw(hall: Hall, catalog: Catalog) -> float | None:
    """Heat the hall rejects (MW): its ``cooling_mw``, or floor area x the catalog's kW per m2 for its
    cooling type; None when neither is known (no limit)."""
    if hall.cooling_mw is not None:
        return hall.cooling_mw
    spec = catalog.cooling.get(hall.cooling)
    return None if spec is None else hall_area_m2(hall) * spec.kw_per_m2 / 1000.0


def cooling_basis(hall: Hall, catalog: Catalog) -> str:
    """How the capacity was arrived at, for messages and reports."""
    if hall.cooling_mw is not None:
        return "its cooling_mw"
    spec = catalog.cooling.get(hall.cooling)
    if spec is None:
        return "no cooling figure"
    return f"{hall.cooling}, {spec.kw_per_m2:g} kW/m2 x {hall_area_m2(hall):,.0f} m2"


def hall_air_mw(hall: Hall, catalog: Catalog) -> tuple[float | None, str]:
    """Heat a liquid hall's room units can take from its air (MW): its ``air_cooling_mw``, or floor area x
    the catalog's ``[cooling.air] kw_per_m2``; None when neither is known. With how it was arrived at."""
    if hall.air_cooling_mw is not None:
        return hall.air_cooling_mw, "its air_cooling_mw"
    spec = catalog.cooling.get("air")
    if spec is None:
        return None, "no air cooling figure"
    area = hall_area_m2(hall)
    return area * spec.kw_per_m2 / 1000.0, f"air, {spec.kw_per_m2:g} kW/m2 x {area:,.0f} m2"
