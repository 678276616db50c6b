"""Pods to buildings, SUs to halls, and each hall laid out.

- a pod stays in one building unless ``cluster.pod_spans_buildings``; pods go to the next building when
  this one has no room or no power (``it_mw``, and the cooling of its halls) left; a pod that no
  building holds within its power (or the whole fabric, ``pod_gpus = 0``) is laid across buildings by
  whole SUs (``_split``: the building with the most power left first, with the pod's core tier, then the
  others; runs end at spine-group edges where that keeps 3/4 of a run); the campus MDF's power is
  taken from its building's budget first, and the MDF's racks from its floor; a hall takes SUs up to
  the smaller of its ``it_mw`` and its cooling capacity (layout/capacity.py: ``cooling_mw``, or floor area
  x kW per m2), so load spreads over the halls before one is overfull (a trial layout in plain row
  order says which SU lands in which hall); SUs that no hall has power or cooling left for go where
  there is room, the hall with the most headroom first;
- SUs are laid in order (``hall.su_order``, else SU order: layout.place.su_order), row after row
  (serpentine, so a block that spans two lines stays side by side), a block moves to the next row when
  it fits a fresh row but not the rest of this one;
- the spine racks of a pod stand in spine rows in the middle of the pod's SU rows of each hall (spines go
  to the hall of their leaves; spines wired to leaves in several halls are shared out in proportion to the
  pod's SUs per hall); the occupied lines are centred in the hall;
- the MDF racks of a building stand in the rows nearest the building's entry (SU racks fill the rest of
  those rows); the campus top tier (4th tier, cross-pod devices) is in the MDF of the building nearest the
  others (smallest sum of distances between entries);
- user rows (``[[row]]``) are kept exactly; a rack that the placer would build with the same template
  goes into a free user-row position of its hall first.

When the floor is too small, what fits is placed (whole SUs first, then what fits of the rest) and a
``capacity`` violation says how many racks are missing and where.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from shapely.geometry import Polygon

from layout.capacity import hall_cooling_mw
from layout.place.anchors import cells_nearest, mdf_point, spine_order
from layout.place.floor_grid import FloorCursor, Spot, build_halls, cell_order, start_line
from layout.place.groups import RackGroups, RackItem
from layout.place.su_order import order_of, ordered, su_keys
from layout.place.templates import gpu_racks
from layout.place.zones import Piece, Trial, ZoneLayouts
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.memo import Scope
    from layout.model import Hall


class Placer:
    def __init__(
        self,
        inputs: Inputs,
        fabric: Fabric,
        scope: Scope | None = None,
    ):
        self.inputs = inputs
        self.scope = scope
        self.site = inputs.site
        self.cl = inputs.site.cluster
        self.gpu = gpu_racks(inputs)
        self.fabric = fabric
        self.groups = RackGroups(inputs, fabric, scope)
        self.t_spine, self.t_core = self.groups.t_spine, self.groups.t_core
        self.d = self.groups.devices
        self.n_su = len(self.d.su_servers)
        # the SU block the row segments are sized for: the longer of the first and the last SU's (a
        # last SU with a leaf rack more would not fit a segment made for the first: a rack split off)
        typical = {
            k: max(
                ([it.width_m for it in self.groups.block(su, g).items] for su in {0, self.n_su - 1}),
                key=lambda w: (sum(w), len(w)),
            )
            if self.n_su
            else []
            for k, g in self.gpu.items()
        }
        self.halls, self.cells = build_halls(
            inputs, self.gpu, [self.groups.t_net, self.t_spine, self.t_core], typical, scope
        )
        self.campus = self._campus_building()
        # what each hall may carry: the smaller of its IT limit and its cooling
        self.hall_kw = [self._hall_budget_kw(h.model) for h in self.halls]
        first_gpu = next(iter(self.gpu.values()), None)
        # each SU carries its share of the spines in the power budgets of halls and buildings (spines
        # stand in the halls of their leaves); the MDF is charged to the hall it stands in (see trial);
        # a pod's share of both decides which building can take it
        su_kw = sum(self.groups.block_kw(su, first_gpu) for su in range(self.n_su))
        spine_kw = float(self.d.est_kw[self.d.spine].sum())
        mdf_kw = float(self.d.est_kw[self.d.mdf].sum())
        self.overhead = 1.0 + spine_kw / su_kw if su_kw > 0 else 1.0
        self.pod_overhead = 1.0 + (spine_kw + mdf_kw) / su_kw if su_kw > 0 else 1.0

    def _campus_building(self) -> int:
        pts = []
        for b in self.site.building:
            if b.entry is not None:
                pts.append(b.entry)
            else:
                c = Polygon(b.footprint).centroid
                pts.append((c.x, c.y))
        p = np.asarray(pts, float)
        total = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1)).sum(1)
        return int(np.argmin(np.round(total, 6)))

    def _mdf_devices(self, buildings: list[int], pod_building: dict[int, int]) -> dict[int, np.ndarray]:
        """MDF devices per building: a pod's core-level devices in its building (a pod not in
        ``pod_building`` has them elsewhere), the rest on campus."""
        d = self.d
        idx = np.flatnonzero(d.mdf)
        if not len(idx):
            return {}
        known = set(d.pods)
        # a pod's own devices go with the pod; devices above the pods (pod -1) to the campus MDF
        pods = d.pod[idx]
        pb = np.empty(len(idx), np.int64)
        for p in np.unique(pods).tolist():
            pb[pods == p] = pod_building.get(p, -1 if p in known else self.campus)
        out = {}
        for b in buildings:
            m = pb == b
            if m.any():
                out[b] = idx[m]
        return out

    def _spine_devices_of_pod(self, pod: int) -> np.ndarray:
        return np.flatnonzero(self.d.spine & (self.d.pod == pod))

    def whole(self, pod: int) -> Piece:
        return Piece(pod, tuple(self.d.pod_sus[pod]), True)

    # ------------------------------------------------------------------------------------- trial
    def trial(self, zone: list[int], pods: list[Piece], respect_power: bool) -> Trial:
        """Lay a zone's pods (or runs of their SUs) hall after hall in plain row order to learn which SU
        lands in which hall."""
        su_hall = np.full(self.n_su, -1, np.int64)
        floors = {h: FloorCursor(self.halls[h], self.cells, cell_order(self.halls[h], 0)) for h in zone}
        used_kw = dict.fromkeys(zone, 0.0)
        used_b = dict.fromkeys({self.halls[h].bno for h in zone}, 0.0)
        missing = 0
        pod_b0 = {pc.pod: self.halls[zone[0]].bno for pc in pods if pc.core}
        for b, devs in self._mdf_devices(sorted(used_b), pod_b0).items():
            # the MDF stands first, in the hall nearest each building's entry (as in the final layout), with
            # its power; the SUs find the floor it leaves
            here = [h for h in zone if self.halls[h].bno == b]
            near = self._cells_near_entry(here, b)
            first = self.cells[near[0]].hall if near else here[0]
            if respect_power:
                kw = float(self.d.est_kw[devs].sum())
                used_kw[first] += kw
                used_b[b] += kw
            missing += self._put_any(floors, zone, zone.index(first), self.groups.mdf_items(devs))
        hi = 0
        late: list[int] = []
        for pc in pods:
            sus = list(pc.sus)
            group_kw = self._group_kw(sus)
            for k, su in enumerate(sus):
                first_of_group = k == 0 or self.d.su_group[su] != self.d.su_group[sus[k - 1]]
                while hi < len(zone):
                    h = zone[hi]
                    b = self.halls[h].bno
                    blk = self.groups.block(su, self.halls[h].gpu)
                    kw = blk.kw * self.overhead
                    # a new spine group starts in the next hall when the whole group would not fit this
                    # hall's power (its leaf-spine links then stay inside one hall)
                    need = group_kw[self.d.su_group[su]] if first_of_group else kw
                    if respect_power and (
                        (used_kw[h] > 0 and used_kw[h] + need > self.hall_kw[h])
                        or (used_b[b] > 0 and used_b[b] + kw > self._budget_kw(self.site.building[b].it_mw))
                    ):
                        hi += 1
                        continue
                    if floors[h].put_block(blk.items) is not None:
                        su_hall[su] = h
                        used_kw[h] += kw
                        used_b[b] += kw
                        break
                    hi += 1
                else:
                    late.append(su)
            spines = self.groups.pack_items(self.t_spine, self.d.piece_spines(pc.pod, pc.sus))
            missing += self._put_any(floors, zone, hi, spines)
        for su in late:  # no hall had room (or power) left: any room, the most headroom first
            for h in sorted(zone, key=lambda h: -(self.hall_kw[h] - used_kw[h])):
                blk = self.groups.block(su, self.halls[h].gpu)
                if floors[h].put_block(blk.items) is not None:
                    su_hall[su] = h
                    used_kw[h] += blk.kw * self.overhead
                    break
            else:
                missing += len(self.groups.block(su, self.halls[zone[0]].gpu).items)
        return Trial(su_hall, {h: len(f.lines_used) for h, f in floors.items()}, missing, len(late))

    def _group_kw(self, sus: list[int]) -> dict[int, float]:
        """Estimated kW of each spine group of these SUs (with the spines' share)."""
        out: dict[int, float] = {}
        gpu = self.halls[0].gpu
        for su in sus:
            g = self.d.su_group[su]
            out[g] = out.get(g, 0.0) + self.groups.block_kw(su, gpu) * self.overhead
        return out

    def _put_any(
        self, floors: dict[int, FloorCursor], zone: list[int], hi: int, items: list[RackItem]
    ) -> int:
        """Items one after the other from hall ``zone[hi]`` on (then the halls before it); returns how
        many found no room."""
        left = list(items)
        for h in zone[hi:] + zone[:hi]:
            left = [it for it in left if floors[h].put(it) is None]
            if not left:
                break
        return len(left)

    @staticmethod
    def _budget_kw(mw: float | None) -> float:
        return math.inf if mw is None else mw * 1000.0 + 1e-6

    def _hall_budget_kw(self, hall: Hall) -> float:
        caps = [x for x in (hall.it_mw, hall_cooling_mw(hall, self.inputs.catalog)) if x is not None]
        return self._budget_kw(min(caps) if caps else None)

    def piece_kw(self, pc: Piece) -> float:
        """A pod's (or a run of its SUs') estimated kW: its SUs with their share of the spines, and the
        pod's MDF devices where they stand with it."""
        su_kw = sum(self.groups.block_kw(su, self.halls[0].gpu) for su in pc.sus)
        if pc.core and len(pc.sus) == len(self.d.pod_sus[pc.pod]):
            return self.pod_overhead * su_kw
        mdf = float(self.d.est_kw[self.d.mdf & (self.d.pod == pc.pod)].sum()) if pc.core else 0.0
        return self.overhead * su_kw + mdf

    # ------------------------------------------------------------------------------------- final
    def final(self, zone: list[int], pods: list[Piece], trial: Trial) -> tuple[list[Spot], int]:
        halls = self.halls
        su_hall = trial.su_hall
        spots: list[Spot] = []
        missing = 0
        # the building of each pod's MDF devices: where most of its SUs (in this zone) landed
        pod_b: dict[int, int] = {}
        for pc in pods:
            if not pc.core:
                continue
            p = pc.pod
            hs = su_hall[list(pc.sus)]
            hs = hs[hs >= 0]
            pod_b[p] = (
                int(np.bincount([halls[h].bno for h in hs]).argmax()) if len(hs) else halls[zone[0]].bno
            )
        buildings = sorted({halls[h].bno for h in zone})
        floors: dict[int, FloorCursor] = {}
        for h in zone:
            start = start_line(halls[h], self.cells, trial.lines.get(h, 0))
            around = spine_order(halls[h], self.cells)  # hall.spine_at: laid out around that point
            floors[h] = FloorCursor(
                halls[h], self.cells, cell_order(halls[h], start) if around is None else around
            )
        # MDF racks first, in the rows nearest the building's entry; the SUs fill around them
        for b, devs in sorted(self._mdf_devices(buildings, pod_b).items()):
            left = self.groups.mdf_items(devs)
            near = self._cells_near_entry([h for h in zone if halls[h].bno == b], b)
            for h in dict.fromkeys(self.cells[c].hall for c in near):  # halls, nearest first
                if left:
                    left = self._beside(floors[h], [c for c in near if self.cells[c].hall == h], left, spots)
            missing += len(left)
        spines: dict[int, list[np.ndarray]] = {}
        for pc in pods:
            piece = (
                None if len(pc.sus) == len(self.d.pod_sus[pc.pod]) else self.d.piece_spines(pc.pod, pc.sus)
            )
            for h, devs in self.d.spine_halls(su_hall, pc.pod).items():
                devs = devs if piece is None else devs[np.isin(devs, piece)]
                if len(devs):
                    spines.setdefault(h if h >= 0 else zone[0], []).append(devs)
        spill: list[int] = []
        keys = su_keys(self.fabric) if any(halls[h].model.su_order for h in zone) else []
        for h in zone:
            f = floors[h]
            sus = ordered(
                spill + [int(s) for s in np.flatnonzero(su_hall == h)], order_of(halls[h].model, keys)
            )
            if halls[h].model.spine_at is not None:  # spines nearest the point, then the SUs around them
                sp_items = [
                    it for devs in spines.get(h, []) for it in self.groups.pack_items(self.t_spine, devs)
                ]
                left = self._beside(f, f.order, sp_items, spots)
                missing += self._elsewhere(left, floors, zone, spots)
                spill = self._lay_sus(f, sus, spots)
                continue
            half = (len(sus) + 1) // 2
            spill = self._lay_sus(f, sus[:half], spots)
            sp_items = [it for devs in spines.get(h, []) for it in self.groups.pack_items(self.t_spine, devs)]
            if sp_items:
                left = self._spine_row(f, sp_items, spots)
                missing += self._elsewhere(left, floors, zone, spots)
            spill += self._lay_sus(f, sus[half:], spots) if not spill else sus[half:]
        mine = {su for pc in pods for su in pc.sus}
        unplaced_su = [int(s) for s in np.flatnonzero(su_hall < 0) if int(s) in mine]
        for su in spill + unplaced_su:  # whole SUs found no room: place what fits of them
            items = self.groups.block(su, halls[zone[0]].gpu).items
            for h in zone:
                got = floors[h].put_block(items, whole=False) or []
                spots += got
                placed = {id(s.item) for s in got}
                items = [it for it in items if id(it) not in placed]
                if not items:
                    break
            missing += len(items)
        return spots, missing

    def _lay_sus(self, f: FloorCursor, sus: list[int], spots: list[Spot]) -> list[int]:
        """SU blocks in order until one does not fit; returns that one and the rest (they spill)."""
        for i, su in enumerate(sus):
            got = f.put_block(self.groups.block(su, f.hall.gpu).items)
            if got is None:
                return sus[i:]
            spots += got
        return []

    def _spine_row(self, f: FloorCursor, items: list[RackItem], spots: list[Spot]) -> list[RackItem]:
        """Spine racks in the next row line, in the cells nearest the middle of the hall; the SUs that
        follow fill around them. Returns the items that found no room. A single spine rack would be a
        row of one, which no containment closes around: it joins the row just laid when that row has
        room for it."""
        if len(items) == 1 and f.started() and f.fits_in_cell([items[0].width_m]):
            got = f.put_block(items)
            if got:
                spots += got
                return []
        u_mid = (f.hall.usable.bounds[0] + f.hall.usable.bounds[2]) / 2
        later = f.later_cells()
        cells = self.cells
        rank = {li: i for i, li in enumerate(dict.fromkeys(cells[c].line for c in later))}
        order = sorted(
            later, key=lambda c: (rank[cells[c].line], abs((cells[c].u0 + cells[c].u1) / 2 - u_mid), c)
        )
        return self._beside(f, order, items, spots)

    def _beside(
        self, f: FloorCursor, order: list[int], items: list[RackItem], spots: list[Spot]
    ) -> list[RackItem]:
        """Lay ``items`` into ``f``'s hall in their own cell ``order``; the cursor of ``f`` stays where it
        is and ``f`` then skips the spans they took. Returns the items that found no room."""
        tmp = FloorCursor(f.hall, self.cells, order)
        tmp.user_free, tmp.count, tmp.free = f.user_free, f.count, f.free
        left = []
        taken = []
        for it in items:
            sp = tmp.put(it)
            if sp is None:
                left.append(it)
            else:
                spots.append(sp)
                if sp.cell >= 0:
                    taken.append((f.hall.first_cell + sp.cell, sp.u, sp.u + it.width_m))
        for c, a, b in taken:
            f.take_span(c, a, b)
        return left

    def _elsewhere(
        self, items: list[RackItem], floors: dict[int, FloorCursor], zone: list[int], spots: list[Spot]
    ) -> int:
        left = items
        for h in zone:
            if not left or h not in floors:
                continue
            rest = []
            for it in left:
                sp = floors[h].put(it)
                if sp is None:
                    rest.append(it)
                else:
                    spots.append(sp)
            left = rest
        return len(left)

    def _cells_near_entry(self, zone_halls: list[int], bno: int) -> list[int]:
        """The building's row cells nearest its MDF point (``mdf_at``, else the entry) first."""
        point = mdf_point(self.site.building[bno])
        return cells_nearest([self.halls[h] for h in zone_halls], self.cells, point, False)

    # ----------------------------------------------------------------------------------- assign
    def run(self) -> tuple[list[Spot], list[Violation], int]:
        """Pods to buildings (zones), then each zone laid out; returns spots, violations, racks missing."""
        halls_of_b: list[list[int]] = [[] for _ in self.site.building]
        for h in self.halls:
            halls_of_b[h.bno].append(h.no)
        zones = [[h.no for h in self.halls]] if self.cl.pod_spans_buildings else halls_of_b
        zone_pods: list[list[Piece]] = [[] for _ in zones]
        zone_kw = [0.0 for _ in zones]
        # the campus MDF (devices above the pods) stands in the campus building: its power is taken first
        campus_kw = float(self.d.est_kw[self.d.mdf & ~np.isin(self.d.pod, self.d.pods)].sum())
        for zi, zone in enumerate(zones):
            if self.campus in {self.halls[h].bno for h in zone}:
                zone_kw[zi] += campus_kw
                break
        trials: list[Trial | None] = [None for _ in zones]
        layouts = ZoneLayouts(self, self.scope)  # a zone laid out before with the same inputs: kept

        def budget(zi: int) -> float:
            if self.cl.pod_spans_buildings:
                return math.inf
            building = self._budget_kw(self.site.building[self.halls[zones[zi][0]].bno].it_mw)
            return min(building, sum(self.hall_kw[h] for h in zones[zi]))

        # a pod goes to the first zone from the current one that holds it whole (and has the power
        # left); else it is laid across zones by whole SUs (split); what no zone has power for goes, in a
        # second round that ignores power, to the first zone that holds it, else the first empty one
        lost = [self.whole(p) for p in self.d.pods]
        for respect_power in (True, False):
            pending, lost, cur = lost, [], 0
            for pc in pending:
                kw = self.piece_kw(pc)
                fallback: tuple[int, Trial] | None = None
                chosen: tuple[int, Trial] | None = None
                for zi in range(cur, len(zones)):
                    room = budget(zi) - zone_kw[zi]
                    if not zones[zi] or (respect_power and zone_pods[zi] and kw > room):
                        continue
                    # the second round, too, lays SUs within the halls' power first (the trial
                    # puts those no hall has power left for where there is the most headroom)
                    t = layouts.trial(zones[zi], zone_pods[zi] + [pc], True)
                    if t.missing == 0 and (not respect_power or t.late == 0):
                        chosen = (zi, t)
                        break
                    if fallback is None and not zone_pods[zi]:
                        fallback = (zi, t)
                if chosen is None and respect_power and len(zones) > 1 and len(pc.sus) > 1:
                    parts, rest = self._split(pc, zones, zone_pods, zone_kw, budget, cur, layouts)
                    for zi, part, t in parts:
                        trials[zi] = t
                        zone_pods[zi].append(part)
                        zone_kw[zi] += self.piece_kw(part)
                        cur = zi
                    if rest is not None:
                        lost.append(rest)
                    continue
                chosen = chosen or fallback
                if chosen is None:
                    lost.append(pc)
                    continue
                cur, trials[chosen[0]] = chosen
                zone_pods[cur].append(pc)
                zone_kw[cur] += kw
        spots: list[Spot] = []
        violations: list[Violation] = []
        missing_total = 0
        for zi, zone in enumerate(zones):
            if not zone_pods[zi] and self.campus not in {self.halls[h].bno for h in zone}:
                continue
            t = trials[zi] or layouts.trial(zone, zone_pods[zi], True)
            got, missing = layouts.final(zone, zone_pods[zi], t)
            spots += got
            if missing:
                missing_total += missing
                violations.append(self._capacity(zone, missing, len(got)))
        for pc in lost:
            n = self.piece_racks(pc)
            missing_total += n
            what = (
                f"pod {pc.pod}"
                if len(pc.sus) == len(self.d.pod_sus[pc.pod])
                else f"{len(pc.sus)} SUs of pod {pc.pod}"
            )
            violations.append(
                Violation(
                    "capacity",
                    "site",
                    f"{what} ({n} racks) found no building with room for it; every building is taken",
                    "add a building or hall, use denser racks, or set cluster.pod_spans_buildings = true",
                    {"racks_missing": n, "pod": pc.pod},
                )
            )
        return spots, violations, missing_total

    def _split(
        self,
        pc: Piece,
        zones: list[list[int]],
        zone_pods: list[list[Piece]],
        zone_kw: list[float],
        budget: Callable[[int], float],
        cur: int,
        layouts: ZoneLayouts,
    ) -> tuple[list[tuple[int, Piece, Trial]], Piece | None]:
        """A pod that no zone holds whole, laid across zones by whole SUs in SU order: the zone with the
        most power left first (it takes the pod's MDF devices, its core tier, so the most of the pod's
        uplinks stay in one building), then the others from ``cur`` on, each filled within its power,
        cooling and floor (a trial of the run says how many SUs land within the halls' budgets and
        whether its spine and MDF racks find room); a run ends at a spine group's edge when that keeps
        at least 3/4 of it (the group's leaf-spine links then stay in one building). Returns the runs
        with their zones and trials, and the SUs no zone had room for (a piece, or None)."""
        sus = list(pc.sus)
        group = self.d.su_group
        kw_su = np.array([self.groups.block_kw(su, self.halls[0].gpu) * self.overhead for su in sus])
        cum = np.cumsum(kw_su)
        core_kw = self.piece_kw(Piece(pc.pod, (), True))
        live = [zi for zi in range(len(zones)) if zones[zi]]
        order = sorted(live, key=lambda zi: (-(budget(zi) - zone_kw[zi]), zi))[:1]
        order += [zi for zi in live[live.index(cur) if cur in live else 0 :] + live if zi not in order]
        order = list(dict.fromkeys(order))
        out: list[tuple[int, Piece, Trial]] = []
        i = 0
        core = True
        per_su = max(1.0, len(self.groups.block(sus[0], self.halls[0].gpu).items))
        for zi in order:
            if i == len(sus):
                break
            room = budget(zi) - zone_kw[zi] - (core_kw if core else 0.0)
            base = float(cum[i - 1]) if i else 0.0
            n = int(np.searchsorted(cum, base + room, side="right")) - i
            best: tuple[int, Trial] | None = None
            for _ in range(12):  # a handful of trials: each says how far off the run is
                if n <= 0:
                    break
                end = i + n
                if end < len(sus):  # end the run at a spine group's edge when that keeps 3/4 of it
                    edges = [j for j in range(end, i, -1) if group[sus[j]] != group[sus[j - 1]]]
                    if edges and edges[0] - i >= 0.75 * n:
                        n = edges[0] - i
                t = layouts.trial(
                    zones[zi], zone_pods[zi] + [Piece(pc.pod, tuple(sus[i : i + n]), core)], True
                )
                if t.missing == 0 and t.late == 0:
                    best = (n, t)
                    break
                n -= max(1, t.late, math.ceil(t.missing / per_su))
            if best is None:
                continue
            n, t = best
            out.append((zi, Piece(pc.pod, tuple(sus[i : i + n]), core), t))
            i += n
            core = False
        if i == len(sus):
            return out, None
        return out, Piece(pc.pod, tuple(sus[i:]), core)

    def piece_racks(self, pc: Piece) -> int:
        """Racks a piece needs: its SU blocks, spine racks and the MDF racks of its pod's own core devices
        when they stand with it."""
        d = self.d
        n = sum(len(self.groups.block(su, self.halls[0].gpu).items) for su in pc.sus)
        n += len(self.groups.pack_items(self.t_spine, d.piece_spines(pc.pod, pc.sus)))
        if not pc.core:
            return n
        return n + len(self.groups.mdf_items(np.flatnonzero(d.mdf & (d.pod == pc.pod))))

    def _capacity(self, zone: list[int], missing: int, placed: int) -> Violation:
        keys = [self.halls[h].key for h in zone]
        where = self.halls[zone[0]].building if not self.cl.pod_spans_buildings else "site"
        return Violation(
            "capacity",
            where,
            f"{missing} of {missing + placed} racks do not fit: {', '.join(keys)} "
            f"{'is' if len(keys) == 1 else 'are'} full",
            "enlarge the hall(s), narrow the aisles, use denser racks, or add a hall or building",
            {"racks_missing": missing, "racks_placed": placed, "halls": keys},
        )
