"""The layout search of ``dclayout optimize``: where the MDF and each hall's spines and SUs stand, and
which way each hall's rows run, for the lowest cost of transceivers + cables (+ the optics' energy).

**What moves** (site-file options, so the result is a site file that ``design`` reproduces):

- ``building.mdf_at``: the point the building's MDF racks gather at, in any of its halls;
- ``hall.spine_at``: the point a hall is laid out around (its spine racks nearest it, its SUs outward);
- ``hall.row_axis``: which way the hall's rows run;
- ``hall.su_order``: which SU goes into which slot of the hall, chosen by the exact assignment step
  (layout.engine.assign: a linear assignment on a design of the layout, solved with scipy's
  ``linear_sum_assignment``), not by random moves.

Points come from a grid over each hall's bounds (:data:`FRACS` of its width and depth, inside the hall),
so every candidate is one of finitely many layouts, and the coordinates written back are the very ones
evaluated (rounded to 0.1 m).

**How a candidate is judged**: the whole pipeline (``design.run``, with a worker's design memo (layout/memo.py) so
the fabric and the hall grids are reused), then :func:`score`: the BOM's transceivers and cables, the
optics' energy over ``years`` (every module's watts, the site's PUE and electricity price), the whole
BOM, and what the rules say. The objective (:data:`OBJECTIVES`) is the optics (transceivers + cables) or
the whole BOM (``bom``: what a turned hall's dearer power chain or longer trays add counts too), each
with the optics' energy if asked (``+energy``). A candidate is feasible when it has no violation (kind and place) the baseline does not
have, no more unrouted links and no more missing racks, and the same GPUs.

**The search** (:func:`search`): batches of ``batch`` candidates around the current layout (a
neighbouring grid point for one hall's spines or one building's MDF, a building gathered around one
point: its MDF there and each hall's spines at the grid point nearest it, one building's layout copied
to another with as many halls, a hall's rows turned), evaluated at once on the engine; the best of a
batch is taken when it is better, or else with the simulated-annealing chance ``exp(-delta / T)``,
``T`` falling linearly with the evaluations spent; moves of one batch that each improved one building
are then tried together. With ``assign`` (the default), each batch from a layout the assignment step
has not yet run on starts with that step (:class:`AssignFrom`, one evaluation: the worker designs the
layout, solves each hall's SU order and designs the result), so the SU order follows every layout the
search moves to, and the budget's last batch runs it on the best layout too; its result is a candidate
like any other. Everything the search decides comes from a ``random.Random(seed)`` and the
batch's results in batch order, never from timing, so a fixed seed and evaluation count give the same
result on any cluster (``budget_s`` can only stop it earlier).

**The lower bound** (:func:`lower_bound`): every link at the cheapest medium for the shortest length
the geometry allows it, with the rack contents kept: a link inside a rack as it is; any other link at
its two drops (and, between buildings, the shortest duct run between the entries), or as a jumper to a
rack beside it, of which a rack has two. It ignores how many racks fit near a rack, so it lies well
below what any floor reaches: the gap to it bounds what the geometry could still give.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon

from layout.power.loads import HOURS_PER_YEAR

if TYPE_CHECKING:
    from layout.design import Design
    from layout.engine.cluster import Engine
    from layout.load import Inputs
    from layout.model import SiteFile

FRACS = (0.1, 0.3, 0.5, 0.7, 0.9)  # grid of anchor points over a hall's bounds, per axis
NEIGHBOUR_JUMPER_M = 0.5  # lower bound: a link between two racks at the shortest jumper stocked (DAC 0.5 m)

Spot = tuple[int, int] | None  # (ix, iy) into FRACS, or None: the site's own setting
MdfSpot = tuple[int, int, int] | None  # (hall of the building, ix, iy), or None: the site's own


@dataclass(frozen=True)
class Layout:
    """One candidate: per building its MDF spot, per hall (site order) its spine spot and row axis, and
    the SU order the assignment step chose (``order``: per hall the SU ids, ``()`` for the site's own;
    an empty ``order``: every hall its own)."""

    mdf: tuple[MdfSpot, ...]
    spine: tuple[Spot, ...]
    axis: tuple[str, ...]
    order: tuple[tuple[str, ...], ...] = ()

    def su_order(self, h: int) -> tuple[str, ...]:
        return self.order[h] if self.order else ()

    def with_orders(self, orders: dict[int, tuple[str, ...]]) -> Layout:
        """This layout with those halls' SU orders."""
        order = [self.su_order(h) for h in range(len(self.spine))]
        for h, o in orders.items():
            order[h] = o
        return dataclasses.replace(self, order=tuple(order) if any(order) else ())

    def buildings_changed(self, other: Layout, space: Space) -> set[int]:
        out = {b for b, (x, y) in enumerate(zip(self.mdf, other.mdf, strict=True)) if x != y}
        for h, (bno, _) in enumerate(space.halls):
            if (
                self.spine[h] != other.spine[h]
                or self.axis[h] != other.axis[h]
                or self.su_order(h) != other.su_order(h)
            ):
                out.add(bno)
        return out


@dataclass(frozen=True)
class Space:
    """The grid of anchor points of a site: ``halls`` (building number, hall number in it) in site order,
    ``points[h][ix][iy]`` (site coordinates, or None outside the hall), each building's first hall."""

    halls: tuple[tuple[int, int], ...]
    points: tuple[tuple[tuple[tuple[float, float] | None, ...], ...], ...]
    first_hall: tuple[int, ...]
    n_halls: tuple[int, ...]

    @classmethod
    def of(cls, site: SiteFile) -> Space:
        halls: list[tuple[int, int]] = []
        points: list[Any] = []
        first: list[int] = []
        n: list[int] = []
        for bno, b in enumerate(site.building):
            first.append(len(halls))
            n.append(len(b.hall))
            for j, h in enumerate(b.hall):
                halls.append((bno, j))
                poly = Polygon(h.polygon)
                x0, y0, x1, y1 = poly.bounds
                grid = []
                for fx in FRACS:
                    col = []
                    for fy in FRACS:
                        p = (round(x0 + fx * (x1 - x0), 1), round(y0 + fy * (y1 - y0), 1))
                        col.append(p if poly.contains(ShapelyPoint(p)) else None)
                    grid.append(tuple(col))
                points.append(tuple(grid))
        return cls(tuple(halls), tuple(points), tuple(first), tuple(n))

    def baseline(self, site: SiteFile) -> Layout:
        return Layout(
            mdf=tuple(None for _ in site.building),
            spine=tuple(None for _ in self.halls),
            axis=tuple(h.row_axis for _, h in site.halls()),
        )

    def spine_point(self, h: int, spot: Spot) -> tuple[float, float] | None:
        return None if spot is None else self.points[h][spot[0]][spot[1]]

    def mdf_point(self, bno: int, spot: MdfSpot) -> tuple[float, float] | None:
        return None if spot is None else self.points[self.first_hall[bno] + spot[0]][spot[1]][spot[2]]

    def apply(self, site: SiteFile, lay: Layout) -> SiteFile:
        """The site with ``lay``'s options set (None spots keep the site's own values)."""
        buildings = []
        k = 0
        for bno, b in enumerate(site.building):
            halls = []
            for h in b.hall:
                upd: dict[str, Any] = {"row_axis": lay.axis[k]}
                if lay.spine[k] is not None:
                    upd["spine_at"] = self.spine_point(k, lay.spine[k])
                if lay.su_order(k):
                    upd["su_order"] = list(lay.su_order(k))
                halls.append(h.model_copy(update=upd))
                k += 1
            bupd: dict[str, Any] = {"hall": halls}
            if lay.mdf[bno] is not None:
                bupd["mdf_at"] = self.mdf_point(bno, lay.mdf[bno])
            buildings.append(b.model_copy(update=bupd))
        return site.model_copy(update={"building": buildings})

    def options(self, site: SiteFile, lay: Layout) -> dict[str, Any]:
        """What ``lay`` sets, as site keys: ``{"B1": {"mdf_at": [x, y]}, "B1/H1": {"spine_at": ...}}``."""
        out: dict[str, Any] = {}
        k = 0
        for bno, b in enumerate(site.building):
            if lay.mdf[bno] is not None:
                out.setdefault(b.id, {})["mdf_at"] = list(self.mdf_point(bno, lay.mdf[bno]) or ())
            for h in b.hall:
                key = f"{b.id}/{h.id}"
                if lay.spine[k] is not None:
                    out.setdefault(key, {})["spine_at"] = list(self.spine_point(k, lay.spine[k]) or ())
                if lay.axis[k] != h.row_axis:
                    out.setdefault(key, {})["row_axis"] = lay.axis[k]
                if lay.su_order(k):
                    out.setdefault(key, {})["su_order"] = list(lay.su_order(k))
                k += 1
        return out

    # ------------------------------------------------------------------------------------- moves
    def _valid_spots(self, h: int) -> list[tuple[int, int]]:
        return [
            (i, j) for i in range(len(FRACS)) for j in range(len(FRACS)) if self.points[h][i][j] is not None
        ]

    def _nearest_spot(self, h: int, p: tuple[float, float]) -> tuple[int, int]:
        spots = self._valid_spots(h)
        d = [math.dist(self.points[h][i][j] or p, p) for i, j in spots]
        return spots[int(np.argmin(d))]

    def gather(self, lay: Layout, bno: int, hall_in_b: int, spot: tuple[int, int]) -> Layout:
        """Building ``bno``'s MDF at that spot, and each of its halls' spines at its spot nearest it."""
        h0 = self.first_hall[bno] + hall_in_b
        p = self.points[h0][spot[0]][spot[1]]
        assert p is not None
        mdf = list(lay.mdf)
        mdf[bno] = (hall_in_b, *spot)
        spine = list(lay.spine)
        for j in range(self.n_halls[bno]):
            h = self.first_hall[bno] + j
            if self._valid_spots(h):
                spine[h] = self._nearest_spot(h, p)
        return dataclasses.replace(lay, mdf=tuple(mdf), spine=tuple(spine))

    def gather_all(self, site: SiteFile, lay: Layout, at: str) -> Layout:
        """Every building gathered at its spot nearest its centre (``at="centre"``) or its entry."""
        for bno, b in enumerate(site.building):
            c = Polygon(b.footprint).centroid
            target = (c.x, c.y) if at == "centre" or b.entry is None else b.entry
            options = [
                (math.dist(self.points[self.first_hall[bno] + j][i][k] or target, target), j, (i, k))
                for j in range(self.n_halls[bno])
                for i, k in self._valid_spots(self.first_hall[bno] + j)
            ]
            if options:  # a building whose halls hold no grid point keeps its own layout
                best = min(options)
                lay = self.gather(lay, bno, best[1], best[2])
        return lay

    def neighbour(self, lay: Layout, rng: random.Random) -> Layout:
        """One random move from ``lay`` (see the module docstring)."""
        kind = rng.choices(("spine", "mdf", "gather", "copy", "axis"), weights=(35, 25, 20, 10, 10))[0]
        nb = len(self.first_hall)
        if kind == "copy" and nb > 1:
            src, dst = rng.sample(range(nb), 2)
            if self.n_halls[src] == self.n_halls[dst]:
                mdf = list(lay.mdf)
                mdf[dst] = lay.mdf[src]
                spine, axis = list(lay.spine), list(lay.axis)
                for j in range(self.n_halls[src]):
                    a, b = self.first_hall[src] + j, self.first_hall[dst] + j
                    s = lay.spine[a]
                    spine[b] = s if s is None or self.points[b][s[0]][s[1]] is not None else spine[b]
                    axis[b] = lay.axis[a]
                return Layout(tuple(mdf), tuple(spine), tuple(axis), lay.order)
        if kind == "axis":
            h = rng.randrange(len(self.halls))
            axis = list(lay.axis)
            axis[h] = "y" if axis[h] == "x" else "x"
            return dataclasses.replace(lay, axis=tuple(axis))
        if kind == "gather":
            bno = rng.randrange(nb)
            j = rng.randrange(self.n_halls[bno])
            spots = self._valid_spots(self.first_hall[bno] + j)
            if spots:
                return self.gather(lay, bno, j, spots[rng.randrange(len(spots))])
        if kind == "mdf":
            bno = rng.randrange(nb)
            cur = lay.mdf[bno]
            if cur is None or rng.random() < 0.25:
                j = rng.randrange(self.n_halls[bno])
                spots = self._valid_spots(self.first_hall[bno] + j)
                new: MdfSpot = (j, *spots[rng.randrange(len(spots))]) if spots else None
            else:
                new = self._step_mdf(bno, cur, rng)
            mdf = list(lay.mdf)
            mdf[bno] = new
            return dataclasses.replace(lay, mdf=tuple(mdf))
        h = rng.randrange(len(self.halls))
        cur_s = lay.spine[h]
        spots = self._valid_spots(h)
        if not spots:
            return lay
        if cur_s is None:
            new_s: Spot = spots[rng.randrange(len(spots))]
        else:
            new_s = self._step(h, cur_s, rng)
        spine = list(lay.spine)
        spine[h] = new_s
        return dataclasses.replace(lay, spine=tuple(spine))

    def _step(self, h: int, cur: tuple[int, int], rng: random.Random) -> tuple[int, int]:
        di, dj = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        i, j = cur[0] + di, cur[1] + dj
        if 0 <= i < len(FRACS) and 0 <= j < len(FRACS) and self.points[h][i][j] is not None:
            return (i, j)
        return cur

    def _step_mdf(self, bno: int, cur: tuple[int, int, int], rng: random.Random) -> MdfSpot:
        h = self.first_hall[bno] + cur[0]
        i, j = self._step(h, (cur[1], cur[2]), rng)
        return (cur[0], i, j)


# ----------------------------------------------------------------------------------------- scoring
@dataclass(frozen=True)
class Problem:
    """What every evaluation shares (scattered to the workers once): the inputs, the grid, the years of
    optics energy."""

    inputs: Inputs
    space: Space
    years: float


def score(design: Design, years: float) -> dict[str, Any]:
    """The figures one candidate is judged by (plain numbers and lists: what a worker sends back)."""
    b = design.bom
    trans = float(b.loc[b["category"] == "transceivers", "extended_usd"].sum())
    cables = float(b.loc[b["category"] == "cables", "extended_usd"].sum())
    site = design.inputs.site.site
    module_kw = float(np.sum(design.cabling.module_w)) / 1000.0
    energy = module_kw * HOURS_PER_YEAR * site.utilisation * years * site.pue * site.electricity_usd_per_kwh
    links = design.cabling.links
    fig = design.figures  # the figures every output prints (layout/figures.py)
    return {
        "bom_usd": fig.value("cost_total_usd"),
        "transceivers_usd": round(trans, 2),
        "cables_usd": round(cables, 2),
        "optics_usd": round(trans + cables, 2),
        "optics_energy_usd": round(energy, 2),
        "optics_kw": round(module_kw, 3),
        "gpus": int(design.fabric.gpus),
        "links_not_ok": int((links["status"] != "ok").sum()),
        "racks_missing": int(design.placement.racks_missing),
        "violations": sorted({f"{v.kind} {v.where}" for v in design.violations}),
        "media": design.cabling.media_counts(),
        "transceivers": design.cabling.transceivers(),
        "cable_km": fig.value("cable_km"),
    }


def objective(s: dict[str, Any], kind: str) -> float:
    """The figure ``kind`` (one of :data:`OBJECTIVES`) minimises, from a :func:`score`."""
    what, _, energy = kind.partition("+")
    return float(
        s["bom_usd" if what == "bom" else "optics_usd"] + (s["optics_energy_usd"] if energy else 0.0)
    )


def feasible(s: Any, base: dict[str, Any]) -> bool:
    """No new violation, no more unrouted links or missing racks, the same GPUs (see the docstring)."""
    if not isinstance(s, dict):
        return False
    return (
        set(s["violations"]) <= set(base["violations"])
        and s["links_not_ok"] <= base["links_not_ok"]
        and s["racks_missing"] <= base["racks_missing"]
        and s["gpus"] == base["gpus"]
    )


@dataclass(frozen=True)
class AssignFrom:
    """A candidate made on the worker: ``layout`` with the SU orders the assignment step
    (layout.engine.assign) finds on its design."""

    layout: Layout


def evaluate(problem: Problem, lay: Layout | AssignFrom, state: dict[str, Any]) -> dict[str, Any]:
    """One candidate through the whole pipeline (an engine task; ``state`` keeps the design memo). An
    :class:`AssignFrom` gives ``{"assigned": the new layout or None when no order saves, "score": its
    figures, "predicted_saving_usd": what the step's own cost said}``."""
    from layout import design as design_mod
    from layout.memo import Memo

    memo = state.setdefault("design_memo", Memo())

    def run(lay: Layout) -> Design:
        site = problem.space.apply(problem.inputs.site, lay)
        return design_mod.run(dataclasses.replace(problem.inputs, site=site), memo=memo)

    if isinstance(lay, AssignFrom):
        from layout.engine.assign import su_orders

        step = su_orders(run(lay.layout))
        if not step.orders:
            return {"assigned": None, "score": None, "predicted_saving_usd": 0.0}
        new = lay.layout.with_orders(step.orders)
        return {
            "assigned": new,
            "score": score(run(new), problem.years),
            "predicted_saving_usd": step.saving_usd,
        }
    return score(run(lay), problem.years)


# ------------------------------------------------------------------------------------------ search
@dataclass
class Result:
    baseline: dict[str, Any]
    best: dict[str, Any]
    best_layout: Layout
    evaluations: int
    seconds: float
    history: list[dict[str, Any]] = field(default_factory=list)  # per batch: evaluations, best, current
    failed: list[str] = field(default_factory=list)
    assign_steps: int = 0  # assignment steps run (each one evaluation)
    assign_kept: int = 0  # of which the search moved to the layout they made
    lost: int = 0  # evaluations lost with the engine's cluster (not counted in ``evaluations``)
    stopped: str = ""  # why the search ended early: the engine's cluster was lost (Engine.lost)


def search(
    problem: Problem,
    engine: Engine,
    seed: int = 0,
    max_evals: int = 200,
    budget_s: float = 600.0,
    batch: int = 4,
    kind: str = "optics",
    tick: Callable[[Result], None] | None = None,
    assign: bool = True,
) -> Result:
    """Simulated annealing over layouts in batches of ``batch`` (see the module docstring). ``tick(the
    result so far)`` after each batch (its lists are copies: the search goes on with its own).
    ``assign``: each batch from a layout the assignment step has not seen starts with that step (one
    evaluation), and the last batch also runs it on the best, if it has not yet.

    The engine runs again an evaluation lost with a worker (layout.engine.cluster); once its cluster is
    lost for good, the search ends there: the result so far, with ``stopped`` (what was lost) and
    ``lost`` (the evaluations that did not come back); ClusterLost if the baseline itself did not."""
    from layout.engine.cluster import ClusterLost, Failed

    t0 = time.monotonic()
    site = problem.inputs.site
    space = problem.space
    rng = random.Random(seed)
    base_lay = space.baseline(site)
    base = engine.map(evaluate, problem, [base_lay])[0]
    if isinstance(base, Failed) and base.lost:
        raise ClusterLost(engine.lost or base.reason)
    if not isinstance(base, dict):
        raise RuntimeError(f"the site itself could not be designed: {base.reason}")
    seen: dict[Layout, Any] = {base_lay: base}
    evals = 1
    cur, cur_s = base_lay, base
    best, best_s = base_lay, base
    t_start = 0.002 * objective(base, kind)
    history = [{"evaluations": 1, "best": objective(base, kind), "current": objective(base, kind)}]
    failed: list[str] = []
    first = [space.gather_all(site, base_lay, "centre"), space.gather_all(site, base_lay, "entry")]
    combo: Layout | None = None
    assigned: set[Layout] = set()  # layouts the assignment step ran on, or made
    steps = kept = lost = 0
    while evals < max_evals and time.monotonic() - t0 < budget_s:
        cands: list[Layout | AssignFrom] = []
        want = min(batch, max_evals - evals)
        last = want == max_evals - evals  # the budget's last batch: the best gets the step too
        for lay in [cur, *([best] if last else [])] if assign else []:
            if lay not in assigned:
                cands.append(AssignFrom(lay))
                assigned.add(lay)
        for c in [*first, *([combo] if combo is not None else [])]:
            if c not in seen and c not in cands:
                cands.append(c)
        first, combo = [], None
        tries = 0
        while len(cands) < want and tries < 50 * batch:
            tries += 1
            m = space.neighbour(cur, rng)
            if m not in seen and m not in cands:
                cands.append(m)
        cands = cands[:want]
        if not cands:
            break
        results = engine.map(evaluate, problem, cands)
        gone = sum(isinstance(r, Failed) and r.lost for r in results)
        evals += len(cands) - gone
        lost += gone
        scored = []
        for item, r in zip(cands, results, strict=True):
            if isinstance(r, Failed) and r.lost:
                continue  # not a result of the search: it never came back
            if isinstance(item, AssignFrom):
                steps += 1
                if not isinstance(r, dict):
                    failed.append(getattr(r, "reason", str(r)))
                    continue
                if r["assigned"] is None or r["assigned"] in seen:
                    continue
                c, r = r["assigned"], r["score"]
                assigned.add(c)
            else:
                c = item
            seen[c] = r
            if not isinstance(r, dict):
                failed.append(getattr(r, "reason", str(r)))
            elif feasible(r, base):
                scored.append((objective(r, kind), c, r))
        prev, cur_obj = cur, objective(cur_s, kind)  # the layout this batch's moves were made from
        if scored:
            obj, lay, r = min(scored, key=lambda t: t[0])  # first of equals: batch order
            temp = t_start * max(0.0, 1.0 - evals / max_evals)
            if obj < cur_obj or (temp > 0 and rng.random() < math.exp(-(obj - cur_obj) / temp)):
                kept += lay in assigned and lay.order != prev.order
                cur, cur_s = lay, r
            if obj < objective(best_s, kind):
                best, best_s = lay, r
            # moves that each improved one building, tried together next
            per_b: dict[int, tuple[float, Layout]] = {}
            for o, c, _ in scored:
                changed = c.buildings_changed(prev, space)
                if o < cur_obj and len(changed) == 1:
                    bno = next(iter(changed))
                    if bno not in per_b or o < per_b[bno][0]:
                        per_b[bno] = (o, c)
            if len(per_b) > 1:
                combo = _combine(prev, [per_b[b][1] for b in sorted(per_b)], space)
        history.append(
            {"evaluations": evals, "best": objective(best_s, kind), "current": objective(cur_s, kind)}
        )
        stopped = engine.lost or ""
        if tick is not None:
            tick(
                Result(
                    base, best_s, best, evals, time.monotonic() - t0, list(history), list(failed), steps, kept,
                    lost, stopped,
                )
            )  # fmt: skip
        if stopped:
            break
    return Result(
        base,
        best_s,
        best,
        evals,
        time.monotonic() - t0,
        history,
        failed,
        steps,
        kept,
        lost,
        engine.lost or "",
    )


def _combine(cur: Layout, moves: list[Layout], space: Space) -> Layout:
    """``cur`` with each move's buildings taken from that move."""
    mdf, spine, axis = list(cur.mdf), list(cur.spine), list(cur.axis)
    order = [cur.su_order(h) for h in range(len(spine))]
    for m in moves:
        for bno in m.buildings_changed(cur, space):
            mdf[bno] = m.mdf[bno]
            for j in range(space.n_halls[bno]):
                h = space.first_hall[bno] + j
                spine[h], axis[h], order[h] = m.spine[h], m.axis[h], m.su_order(h)
    return Layout(tuple(mdf), tuple(spine), tuple(axis), tuple(order) if any(order) else ())


# ------------------------------------------------------------------------------------- lower bound
def lower_bound(design: Design) -> float:
    """Transceivers + cables with every link at its shortest possible length (module docstring).

    The racks' contents are kept, so a link's two ends stay in their racks. A link inside one rack stays
    as it is. Any other link runs along the trays at least its two drops and slack (``length_m -
    tray_m`` of the design, which the hall's tray height and the ports' RU fix), plus, between
    buildings, the shortest duct run between their entries; or it is a jumper to the rack beside
    (``NEIGHBOUR_JUMPER_M``, the shortest stock jumper), which needs the two racks side by side, and a
    rack has at most two neighbours. So the bound is every link at its shortest tray length, less half of
    each rack's two largest savings from jumpers to another rack (each side pair is counted from both
    of its racks): never more than what any layout of these racks costs."""
    import pandas as pd

    from layout.cable.media import MediaTable
    from layout.engine.assign import cheapest_price

    mt = MediaTable.of(design.inputs.catalog)
    links = design.cabling.links
    racks = design.placement.racks
    ra = links["rack_a"].to_numpy(np.int64)
    rb = links["rack_b"].to_numpy(np.int64)
    ok = (ra >= 0) & (rb >= 0)
    route = links["route"].astype(str).to_numpy()
    length = links["length_m"].to_numpy(float)
    speed = links["speed_gbps"].to_numpy()
    routed_min = np.where(route == "tray", length - links["tray_m"].to_numpy(float), NEIGHBOUR_JUMPER_M)
    routed_min = np.where(np.isfinite(routed_min), routed_min, NEIGHBOUR_JUMPER_M)
    same_rack = ok & (ra == rb)
    bld = racks["building"].astype(str).to_numpy() if len(racks) else np.zeros(0, object)
    ba = np.where(ok, bld[np.clip(ra, 0, None)], "") if len(bld) else np.full(len(links), "")
    bb = np.where(ok, bld[np.clip(rb, 0, None)], "") if len(bld) else np.full(len(links), "")
    cross = ok & (ba != bb)
    routed_min = routed_min + _duct_runs(design, ba, bb, cross)
    routed_min[same_rack] = length[same_rack]
    price_routed = cheapest_price(mt, routed_min, speed)
    price_jumper = cheapest_price(mt, np.full(len(links), NEIGHBOUR_JUMPER_M), speed)
    total = float(price_routed.sum())
    # jumpers to the racks beside: at most two per rack, each pair counted from both racks
    pair = ok & ~same_rack & ~cross
    saving = np.maximum(price_routed - price_jumper, 0.0)
    if pair.any():
        lo, hi = np.minimum(ra, rb)[pair], np.maximum(ra, rb)[pair]
        by_pair = (
            pd.DataFrame({"lo": lo, "hi": hi, "s": saving[pair]}).groupby(["lo", "hi"], sort=True)["s"].sum()
        )
        pairs = by_pair.reset_index()
        ends = pd.DataFrame(
            {
                "rack": np.concatenate([pairs["lo"].to_numpy(), pairs["hi"].to_numpy()]),
                "s": np.concatenate([pairs["s"].to_numpy(), pairs["s"].to_numpy()]),
            }
        ).sort_values(["rack", "s"], ascending=[True, False], kind="stable")
        top2 = ends.groupby("rack", sort=True).head(2)["s"].sum()
        total -= 0.5 * float(top2)
    return round(max(total, 0.0), 2)


def _duct_runs(design: Design, ba: np.ndarray, bb: np.ndarray, cross: np.ndarray) -> np.ndarray:
    """Per link between buildings, the shortest duct run between the two entries (0 elsewhere)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    out = np.zeros(len(ba))
    if not cross.any():
        return out
    trays = design.cabling.trays
    e = trays.edges[trays.edges["kind"] == "duct"]
    nodes = trays.nodes
    n = len(nodes)
    g = csr_matrix((e["length_m"].to_numpy(float), (e["u"].to_numpy(), e["v"].to_numpy())), shape=(n, n))
    dist = shortest_path(g, directed=False)
    kind = nodes["kind"].astype(str).to_numpy()
    hall = nodes["hall"].astype(str).to_numpy()
    entry = {}
    for bid in {str(x) for x in np.concatenate([ba[cross], bb[cross]])}:
        m = np.flatnonzero((kind == "entry") & (hall == bid))
        if len(m):
            entry[bid] = int(m[0])
    for x, y in {(str(a), str(b)) for a, b in zip(ba[cross], bb[cross], strict=True)}:
        d = dist[entry[x], entry[y]] if x in entry and y in entry else 0.0
        out[cross & (ba == x) & (bb == y)] = d if np.isfinite(d) else 0.0
    return out


# -------------------------------------------------------------------------------------- write-back
def optimized_text(text: str, options: dict[str, Any]) -> str:
    """The site file ``text`` with ``options`` (:meth:`Space.options`) set, every comment and key kept
    where it was (layout.siteedit.SetLayout, the edit the TUI would undo)."""
    import tomlkit

    doc = tomlkit.parse(text)
    layout_edit(options).apply(doc)
    return tomlkit.dumps(doc)


def layout_edit(options: dict[str, Any]) -> Any:
    """``options`` (:meth:`Space.options`) as one undoable site edit (layout.siteedit.SetLayout)."""
    from layout.siteedit import SetLayout

    return SetLayout(
        tuple(
            (where, k, tuple(v) if isinstance(v, list) else v)
            for where, keys in options.items()
            for k, v in keys.items()
        )
    )
