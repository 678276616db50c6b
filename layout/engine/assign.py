"""The exact step of the layout search: which SU goes into which slot of its hall (``hall.su_order``),
as a linear assignment solved by ``scipy.optimize.linear_sum_assignment`` on a design of the layout.

**Slots.** A hall lays its SUs one block after the other (layout.place.assign); SU blocks with the same
racks (servers, switches and their heights: :func:`block_signature`) take the same cells whatever SU
they hold, so permuting the SUs of one such kind among their places in the laying order moves each
SU onto the cells another one had, and nothing else moves: the spines and the MDF stand where they
stood (they are laid before the SUs, or where the SU count says, never by which SU it is).

**Cost of SU i in slot t.** Every link with one end in SU i and the other outside it (leaf to spine,
frontend and storage leaves to the MDF, ...): its end moves from its rack to the rack of the same device
of slot t's SU (the same place in the block). A link along the trays then runs the shortest tray path
between its other rack and that rack (layout.cable.route.tray_paths, the router's own distances over the
design's tray network, which the permutation leaves as it is: the racks stand where they stood), its
drops and slack unchanged; a link with a fibre between two rows runs as its channel through the cable
plant does (rack to its row's panel, panel to panel, panel to rack: :func:`tray_runs`); any other link (a jumper) changes by the axis distance (``|dx| + |dy|``)
between the racks. Each length is priced at the cheapest medium for it (layout.cable.media.MediaTable, as the
design prices a link). A link between two SUs of the hall keeps its other end where it is (rail designs
have none: an SU's GPU links stay in the SU). What the model leaves out (cages shared by links of
different lengths, tray fill) the search's full design of the result counts.

**Exact** for that cost: the assignment minimises the sum over all SUs at once (the Hungarian method),
not SU by SU. The search (layout.engine.optimize) then designs the new order with the whole pipeline,
like every candidate, and keeps it only when it is feasible and cheaper there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from layout.cable.plant import CORD_SLACK_M, PANEL_DROP_M
from layout.place.su_order import label_width, order_of, ordered, su_keys, su_label

if TYPE_CHECKING:
    from layout.design import Design

# per rack: its row code and panel rack (layout/cable/plant.py panel_racks); per panel rack: its cords'
# extra run to the fibre cabinets (the plant's cord_extra_m)
PlantGeometry = tuple[np.ndarray, np.ndarray, np.ndarray]
MIN_SAVING_USD = 1.0  # an assignment that saves less than this by its own cost is no candidate


@dataclass(frozen=True)
class Assignment:
    """The SU order of each hall the step changes (hall number in site order -> SU ids in laying
    order), and what the step's own cost says the orders save."""

    orders: dict[int, tuple[str, ...]]
    saving_usd: float


def cheapest_price(mt: Any, length: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """What each link costs at the cheapest medium for its length and speed (layout.cable.media.MediaTable's
    pick and price, as the design prices a link); 0 where no medium reaches."""
    code = mt.pick(np.round(length, 6), speed)
    out = np.zeros(len(length))
    for k in np.unique(code[code >= 0]).tolist():
        m = code == k
        out[m] = mt.link_price_usd(length[m], int(k))
    return out


def solve(cost: np.ndarray) -> np.ndarray:
    """The column (slot) of each row (SU) in the cheapest assignment of a square cost matrix."""
    rows, cols = linear_sum_assignment(cost)
    out = np.empty(len(rows), np.int64)
    out[rows] = cols
    return out


def axis_lengths(
    k_of: np.ndarray, here: np.ndarray, there: np.ndarray, length_m: np.ndarray, slot_xy: np.ndarray
) -> np.ndarray:
    """``L[l, t]``: link end l's length with its block in slot t, changed by the axis distance.

    Per link end that moves: ``k_of`` (its device's place in the block), ``here`` (x, y of its rack now),
    ``there`` (x, y of the other end's rack, which stays), ``length_m`` (its length now); ``slot_xy[t,
    k]`` is the rack position of place k in slot t."""
    now = np.abs(here - there).sum(axis=1)
    moved = np.abs(slot_xy[:, k_of] - there[None, :, :]).sum(axis=2)  # (slots, links)
    return (length_m[None, :] + moved - now[None, :]).T


def slot_costs(
    su_of: np.ndarray,
    lengths: np.ndarray,
    price: Callable[[np.ndarray], np.ndarray],
    through: np.ndarray | None = None,
    price_through: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """The cost matrix ``C[i, t]``: SU i's links with its block in slot t, from ``lengths[l, t]`` (link
    end l of SU ``su_of[l]`` with that SU in slot t) and ``price(lengths of every link end)``; where
    ``through[l, t]`` (the link runs through the cable plant) ``price_through(lengths, which ends)``."""
    n = lengths.shape[1]
    cost = np.zeros((n, n))
    for t in range(n):
        p = price(lengths[:, t])
        if through is not None and price_through is not None:
            m = through[:, t]
            if m.any():
                p[m] = price_through(lengths[m, t], m)
        cost[:, t] = np.bincount(su_of, weights=p, minlength=n)
    return cost


# what a link through the cable plant adds to its tray runs (layout/cable/plant.py): the trunk's drop at
# each panel, and each patch cord's drop to its panel and dressing
PLANT_EXTRA_M = 4 * PANEL_DROP_M + 2 * CORD_SLACK_M


def tray_runs(
    trays: Any, src: np.ndarray, dst: np.ndarray, plant: PlantGeometry | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The tray run of a link between racks ``src`` and ``dst``: the shortest tray path; with ``plant``
    (each rack's row code and panel rack, layout/cable/plant.py ``panel_racks``, and each panel rack's
    cord extra: the floor run to its fibre cabinets) a link between two rows runs as its channel does,
    rack to its panel, panel to panel, panel to rack, + ``PLANT_EXTRA_M`` (less a cord's drop to the
    panel at an end whose rack holds its own panel) + both panels' cord extra. Also which runs are
    through the panels."""
    from layout.cable.route import tray_paths

    def dist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        paths = tray_paths(trays, a, b)
        return np.asarray(paths.dist_m[paths.pair], float)

    run = dist(src, dst)
    apart = np.zeros(len(src), bool)
    if plant is not None:
        row, panel, extra = plant
        apart = row[src] != row[dst]
        if apart.any():
            s, d = src[apart], dst[apart]
            ps, pd_ = panel[s], panel[d]
            own = (s == ps).astype(float) + (d == pd_)  # a cord in its panel's own rack: no drop to it
            run[apart] = (
                dist(s, ps) + dist(ps, pd_) + dist(d, pd_) + PLANT_EXTRA_M - 2 * PANEL_DROP_M * own
                + extra[ps] + extra[pd_]
            )  # fmt: skip
    return run, apart


def tray_lengths(
    trays: Any,
    k_of: np.ndarray,
    fixed_rack: np.ndarray,
    slot_rack: np.ndarray,
    length_m: np.ndarray,
    tray_m: np.ndarray,
    plant: PlantGeometry | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``L[l, t]`` for links along the trays: the length less its tray run now (``tray_m``), plus the
    run (:func:`tray_runs`, through the panels with ``plant``) from its fixed rack to the rack of its
    place in slot t (``slot_rack[t, k]``). Each distinct (fixed rack, place) pair is routed once for
    every slot. Also ``through[l, t]``: that run is through the panels."""
    from layout.arrays import unique_inverse

    width = int(slot_rack.shape[1])
    keys, inv = unique_inverse(fixed_rack * width + k_of)
    uf, uk = keys // width, keys % width
    n = slot_rack.shape[0]
    src = np.repeat(uf, n)
    dst = slot_rack[:, uk].T.ravel()  # (pair, slot) row-major
    run, apart = tray_runs(trays, src, dst, plant)
    return (length_m - tray_m)[:, None] + run.reshape(len(keys), n)[inv], apart.reshape(len(keys), n)[inv]


def block_signature(devices: Any, su: int) -> tuple[int, ...]:
    """What decides the cells an SU block takes: its servers, and its switches' heights in order."""
    sw = devices.su_switches.get(su, np.zeros(0, np.int64))
    return (len(devices.su_servers[su]), *devices.height[sw].tolist())


def su_orders(design: Design) -> Assignment:
    """The assignment step on ``design`` (module docstring): per hall, the SU order whose slots cost
    least, for the halls where it saves at least ``MIN_SAVING_USD``."""
    from layout.cable.media import MediaTable
    from layout.place.groups import derived_of

    inputs, fabric, placement = design.inputs, design.fabric, design.placement
    d = derived_of(inputs, fabric)
    keys = su_keys(fabric)
    width = label_width(keys)
    racks = placement.racks
    rack_of = placement.device_rack
    xy = racks[["x_m", "y_m"]].to_numpy(float) if len(racks) else np.zeros((0, 2))
    hall_no = {f"{b.id}/{h.id}": i for i, (b, h) in enumerate(inputs.site.halls())}
    halls = [h for _, h in inputs.site.halls()]
    rack_hall = racks["hall"].astype(str).to_numpy() if len(racks) else np.zeros(0, object)

    n_su = len(d.su_servers)
    canon = [
        np.concatenate([d.su_servers[i], d.su_switches.get(i, np.zeros(0, np.int64))]) for i in range(n_su)
    ]
    # the SUs of each hall, in the order the placer laid them
    by_hall: dict[int, list[int]] = {}
    for i in range(n_su):
        r = rack_of[canon[i]]
        if len(r) and (r >= 0).all():  # an SU with a rack missing stays as it is
            by_hall.setdefault(hall_no[str(rack_hall[r[0]])], []).append(i)
    dev_su = np.full(len(rack_of), -1, np.int64)
    dev_k = np.full(len(rack_of), -1, np.int64)
    links = design.cabling.links
    a = links["a"].to_numpy(np.int64)
    b = links["b"].to_numpy(np.int64)
    ra, rb = links["rack_a"].to_numpy(np.int64), links["rack_b"].to_numpy(np.int64)
    length = links["length_m"].to_numpy(float)
    tray_m = links["tray_m"].to_numpy(float)
    on_trays = (links["route"] == "tray").to_numpy()
    trays = design.cabling.trays
    speed = links["speed_gbps"].to_numpy()
    usable = (ra >= 0) & (rb >= 0) & np.isfinite(length)
    mt = MediaTable.of(inputs.catalog)
    # the links with a fibre (the plant's channels) run through the panels between rows; those that do
    # now have their channel's length, and their run now is the channel's (tray_runs with the plant)
    cable_plant = design.cabling.plant
    plant = None
    fibre = np.zeros(len(links), bool)
    structured = np.zeros(len(links), bool)
    if cable_plant.panels_at != "none" and len(racks) and len(cable_plant.channels):
        from layout.cable.plant import panel_racks

        extra = np.zeros(len(racks))
        pn = cable_plant.panels
        extra[pn["rack"].to_numpy(np.int64)] = pn["cord_extra_m"].to_numpy(float)
        plant = (pd.factorize(racks["row"])[0], panel_racks(racks, cable_plant.panels_at), extra)
        ch = cable_plant.channels
        fibre[ch["link"].to_numpy(np.int64)] = True
        structured[ch["link"].to_numpy(np.int64)[ch["structured"].to_numpy(bool)]] = True
    # the media as a link through two panels sees them (plant_media), with or without the two splices
    # of a link between buildings (an SU moves within its hall: its links' buildings stay)
    splices = np.zeros(len(links), np.int64)
    through_media: dict[int, Any] = {}
    if plant is not None:
        from layout.cable.plant import MediaPlant, plant_media

        bldg = pd.factorize(racks["building"])[0]
        splices = np.where(usable & (bldg[np.maximum(ra, 0)] != bldg[np.maximum(rb, 0)]), 2, 0)
        mplant = MediaPlant.of(inputs.catalog, mt.ids)
        through_media = {k: plant_media(mt, mplant, inputs.catalog, k) for k in (0, 2)}
    orders: dict[int, tuple[str, ...]] = {}
    saving = 0.0
    for h in sorted(by_hall):
        laid = ordered(by_hall[h], order_of(halls[h], keys))
        new = list(laid)
        kinds: dict[tuple[int, ...], list[int]] = {}
        for pos, su in enumerate(laid):
            kinds.setdefault(block_signature(d, su), []).append(pos)
        for places in kinds.values():
            if len(places) < 2:
                continue
            sus = [laid[p] for p in places]
            dev_su[:] = -1
            for row, su in enumerate(sus):
                dev_su[canon[su]] = row
                dev_k[canon[su]] = np.arange(len(canon[su]))
            sa, sb = dev_su[a], dev_su[b]
            end_a = usable & (sa >= 0) & (sa != sb)  # end a moves with its SU
            end_b = usable & (sb >= 0) & (sb != sa) & ~end_a  # else end b
            mv = np.concatenate([a[end_a], b[end_b]])
            here = xy[np.concatenate([ra[end_a], rb[end_b]])]
            there = xy[np.concatenate([rb[end_a], ra[end_b]])]
            lk = np.concatenate([length[end_a], length[end_b]])
            sp = np.concatenate([speed[end_a], speed[end_b]])
            slot_rack = np.stack([rack_of[canon[su]] for su in sus])
            fixed = np.concatenate([rb[end_a], ra[end_b]])
            lengths = axis_lengths(dev_k[mv], here, there, lk, xy[slot_rack])
            through = np.zeros(lengths.shape, bool)
            tr = np.concatenate([on_trays[end_a], on_trays[end_b]])
            if tr.any():
                tm = np.concatenate([tray_m[end_a], tray_m[end_b]])
                fib = np.concatenate([fibre[end_a], fibre[end_b]])
                now = np.concatenate([structured[end_a], structured[end_b]])
                moved = np.concatenate([ra[end_a], rb[end_b]])
                if plant is not None and now.any():  # the channel's run now
                    tm[now] = tray_runs(trays, moved[now], fixed[now], plant)[0]
                for sel, pl in ((tr & fib, plant), (tr & ~fib, None)):
                    if sel.any():
                        lengths[sel], through[sel] = tray_lengths(
                            trays, dev_k[mv][sel], fixed[sel], slot_rack, lk[sel], tm[sel], pl
                        )
            lengths = np.where(np.isfinite(lengths), lengths, lk[:, None])  # no tray path: as it is

            def price(lengths: np.ndarray, sp: np.ndarray = sp) -> np.ndarray:
                return cheapest_price(mt, np.maximum(lengths, 0.0), sp)

            spl = np.concatenate([splices[end_a], splices[end_b]])

            def price_through(
                lengths: np.ndarray, m: np.ndarray, sp: np.ndarray = sp, spl: np.ndarray = spl
            ) -> np.ndarray:
                out = np.zeros(len(lengths))
                for k, pmt in through_media.items():
                    sel = spl[m] == k
                    if sel.any():
                        out[sel] = cheapest_price(pmt, np.maximum(lengths[sel], 0.0), sp[m][sel])
                return out

            cost = slot_costs(dev_su[mv], lengths, price, through, price_through)
            col = solve(cost)
            gain = float(np.trace(cost) - cost[np.arange(len(sus)), col].sum())
            if gain >= MIN_SAVING_USD:
                saving += gain
                for row, su in enumerate(sus):
                    new[places[col[row]]] = su
        if new != laid:
            orders[h] = tuple(su_label(keys[su], width) for su in new)
    return Assignment(orders, round(saving, 2))
