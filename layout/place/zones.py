"""Each zone's layout kept by everything it is made from, so an edit of one building places that building
alone again.

The placer lays out one zone at a time (a building, or the whole site when pods span buildings:
layout/place/assign.py): a *trial* in plain row order says which SU lands in which hall, the *final*
layout puts every rack of the zone's pods on the floor. Both read only the zone's own halls and
building, the zone's pods and a few site-wide figures, all named in :func:`zone_key`. A memo
(layout/memo.py, the placement's :class:`~layout.memo.Scope`: the fabric's token) keeps trials and
final layouts by that key, the pods and (for a final layout) the trial it follows, so when an edit of
hall ``B2/H2`` leaves buildings B1, B3 and B4 and the pods they hold as they were, only B2 is laid out
again; the other buildings' racks come from the store. A final layout reads no power or cooling budget
(the trial it follows, in its key, says where each SU goes): an edit of a hall's ``it_mw`` or cooling
that lands every SU where it was makes the trial alone again.

A final layout's spots count their cells in their own hall (layout/place/floor_grid.py Spot), so a hall
grid that changes elsewhere (which shifts the site-wide numbers of the cells of the halls after it)
leaves them as they are: a kept layout is given back as it was kept. Without a memo, nothing is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np

from layout.capacity import hall_cooling_mw

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.memo import Scope
    from layout.model import Hall, SiteFile
    from layout.place.floor_grid import Cell, HallPlan, Spot

# hall keys the placer reads only through the GPU rack each hall gets (templates.gpu_racks), through the
# hall's cooling capacity (layout.capacity.hall_cooling_mw, in the key), or not at all
NOT_PLACED_BY = {"max_rack_kw": 0.0, "cooling": "air", "floor_load_kg_m2": 0.0}


class Piece(NamedTuple):
    """What a zone lays out of one pod: the whole pod, or (a pod that no building holds whole) a run of
    its SUs in SU order, their leaves with them. ``core``: the pod's own MDF devices (its core tier)
    stand in this zone; the spines go with the SUs they are wired to (groups.Devices.piece_spines)."""

    pod: int
    sus: tuple[int, ...]
    core: bool = True


@dataclass
class Trial:
    """A zone laid out in plain row order: the hall each SU lands in, the row lines used per hall, the
    racks that found no room, and the SUs that no hall had power or cooling left for (``late``: laid
    where there was room, over a hall's budget)."""

    su_hall: np.ndarray
    lines: dict[int, int]
    missing: int
    late: int = 0


class ZonePlacer(Protocol):
    """What a zone's layouts are made by and read from (layout/place/assign.py ``Placer``), so this
    module needs the placer's shape, not the placer (assign uses this module)."""

    inputs: Inputs
    site: SiteFile
    fabric: Fabric
    halls: list[HallPlan]
    cells: list[Cell]
    hall_kw: list[float]
    campus: int

    def trial(self, zone: list[int], pods: list[Piece], respect_power: bool) -> Trial: ...

    def final(self, zone: list[int], pods: list[Piece], trial: Trial) -> tuple[list[Spot], int]: ...


def as_placed(hall: Hall, inputs: Inputs) -> Hall:
    """The hall as the placer sees it: the keys it does not read set to placeholders, and its cooling
    (type) in the only form the placer reads it, the heat rejection capacity that caps the load it takes."""
    return hall.model_copy(update={**NOT_PLACED_BY, "cooling_mw": hall_cooling_mw(hall, inputs.catalog)})


# what the final layout does not read of a hall or building: their power and cooling budgets (the trial
# says which SU goes to which hall, and is in the final layout's key)
UNPOWERED = {"it_mw": None, "cooling_mw": None}


def zone_key(p: ZonePlacer, zone: list[int], power: bool = True) -> dict[str, Any]:
    """Everything a zone's trial and final layout read, by name: the zone's halls (their numbers, each as
    placed, its GPU rack, the kW it may carry and its user-row slots: with the templates these make its
    floor grid), its buildings (without their halls: ``it_mw``, entry, ``mdf_at``, footprint), and what
    the whole site gives every zone: the catalog, the rack templates, and the building that holds the
    campus top tier (the fabric is the scope's token). The cluster is read only through these
    (the fabric, the GPU racks) and through the zones themselves (``pod_spans_buildings`` makes one zone
    of every hall). Not the first hall's GPU rack, though the trial counts an SU's kW (and the spines' and
    MDF's share of it) with it: a rail SU's kW is per server whatever rack holds it, and a middle-of-rack
    cluster has one GPU rack in every hall (tests/unit/test_zone_layouts.py checks this stays so).

    ``power`` False: the key of a final layout, which reads no power or cooling budget (the halls' and
    buildings' ``it_mw``, the halls' cooling capacity and the kW each may carry): the trial it follows
    is in its key, so an edit of a hall's power that lands every SU in the same hall lays out nothing."""
    halls = [p.halls[h] for h in zone]
    bnos = sorted({h.bno for h in halls})
    hall_parts: list[tuple[Any, ...]]
    if power:
        hall_parts = [
            (h.no, as_placed(h.model, p.inputs), h.gpu, p.hall_kw[h.no], tuple(h.user_slots)) for h in halls
        ]
    else:
        hall_parts = [
            (h.no, h.model.model_copy(update={**NOT_PLACED_BY, **UNPOWERED}), h.gpu, tuple(h.user_slots))
            for h in halls
        ]
    off: dict[str, Any] = {"hall": []} if power else {"hall": [], **UNPOWERED}
    return {
        "halls": hall_parts,
        "buildings": [(b, p.site.building[b].model_copy(update=off)) for b in bnos],
        "catalog": p.inputs.catalog,
        "templates": dict(p.inputs.templates),
        "campus": p.campus,
    }


@dataclass(frozen=True)
class KeptLayout:
    """A zone's final layout: its spots (each cell counted in its hall: layout/place/floor_grid.py Spot)
    and the racks that found no room."""

    spots: list[Spot]
    missing: int


class ZoneLayouts:
    """One placement's view of a memo: trial and final layouts of its zones, from the memo when kept
    (else made by the placer, and kept)."""

    def __init__(self, p: ZonePlacer, scope: Scope | None):
        self.p = p
        self.scope = scope
        self._keys: dict[tuple[tuple[int, ...], bool], tuple[Any, ...]] = {}

    def key(self, zone: list[int], power: bool = True) -> tuple[Any, ...]:
        got = self._keys.get((tuple(zone), power))
        if got is None:
            got = self._keys[(tuple(zone), power)] = tuple(zone_key(self.p, zone, power).values())
        return got

    def trial(self, zone: list[int], pods: list[Piece], respect_power: bool) -> Trial:
        if self.scope is None:
            return self.p.trial(zone, pods, respect_power)
        parts = (self.key(zone), tuple(pods), respect_power)
        return self.scope.take("place.zone_trial", parts, lambda: self.p.trial(zone, pods, respect_power))

    def final(self, zone: list[int], pods: list[Piece], trial: Trial) -> tuple[list[Spot], int]:
        if self.scope is None:
            return self.p.final(zone, pods, trial)
        parts = (
            self.key(zone, False),
            tuple(pods),
            trial.su_hall,
            sorted(trial.lines.items()),
            trial.missing,
        )
        got = self.scope.take("place.zone_final", parts, lambda: KeptLayout(*self.p.final(zone, pods, trial)))
        return list(got.spots), got.missing
