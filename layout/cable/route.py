"""Routing: where each link's ends are, whether it is a jumper or runs along the trays, and how long it is.

Lengths (metres, before rounding to stock lengths):

- **in-rack jumper** (both ends in one rack): vertical distance between the ports + ``SLACK_M["rack"]``;
- **adjacent-rack jumper** (neighbouring positions of one row, through the side panels): distance
  between the rack centres + vertical distance between the ports + ``SLACK_M["adjacent"]``;
- **tray route**: drop from the tray to the port at each end + the shortest path along the trays +
  ``SLACK_M["tray"]``.

Port height is the device's RU x 0.04445 m above the floor. Whether an adjacent-rack link really is a
jumper depends on its medium (copper jumpers only); layout.cable.media decides and asks for tray routes for
the rest.

Tray routes are computed in bulk: links are grouped by rack pair (np.unique), each rack sits on a row
tray edge at a known offset, and the distance between two racks is the best of the four ways out of
their edges (offset to an end node + node-to-node shortest path + offset from the far end node), or
the direct run along the edge when both hang off the same one. The node-to-node distances come from
one multi-source Dijkstra (scipy.sparse.csgraph) over the few thousand tray nodes, started only from
the end nodes of one rack of each pair (the rack with more partners, so a leaf rack serving hundreds
of GPU racks is one source, not hundreds). Tray fill walks each distinct node path once with the
predecessor matrix and spreads the cables along the rows with difference arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from layout.arrays import unique_inverse
from layout.cable.trays import RU_M, Trays

if TYPE_CHECKING:
    from layout.place import Placement

# Cable slack, one place. A service loop for every link through the trays: TIA-942-B practice is
# 2-3 m per trunk (REFERENCE.md, "unverified"); we use the low end. Jumpers do not get a service loop,
# only an allowance for dressing into the vertical cable manager and keeping the bend radius: our own
# figure (0.3 m per rack the jumper enters; unverified, change here).
SLACK_M = {"tray": 2.0, "rack": 0.3, "adjacent": 0.6}

JUMPER_NONE, JUMPER_RACK, JUMPER_ADJACENT = 0, 1, 2


@dataclass(frozen=True)
class LinkEnds:
    """Per link (aligned with ``fabric.links``): racks, port heights and the jumper option."""

    rack_a: np.ndarray  # rack number of the a end, -1 if the device is not placed
    rack_b: np.ndarray
    jumper: np.ndarray  # JUMPER_NONE / JUMPER_RACK / JUMPER_ADJACENT
    jumper_length_m: np.ndarray  # NaN when the link cannot be a jumper
    device_a: np.ndarray  # the device of the a end (``links["a"]``)
    device_b: np.ndarray
    device_rack: np.ndarray  # per device: its rack (-1: not placed)
    device_z_m: np.ndarray  # per device: its port height above the floor

    @property
    def placed(self) -> np.ndarray:
        return (self.rack_a >= 0) & (self.rack_b >= 0)

    @property
    def port_z_a_m(self) -> np.ndarray:
        """Height of the a end's port (its device's)."""
        return self.device_z_m[self.device_a]

    @property
    def port_z_b_m(self) -> np.ndarray:
        return self.device_z_m[self.device_b]


def link_ends(links: pd.DataFrame, placement: Placement, rack_height_ru: np.ndarray) -> LinkEnds:
    """Racks and port heights of every link, and the jumper length where the ends are in one rack or in
    neighbouring racks of a row. ``rack_height_ru`` per rack (for devices without an RU)."""
    racks = placement.racks
    device_rack = np.asarray(placement.device_rack, dtype=np.int64)
    device_ru = np.asarray(placement.device_ru, dtype=np.int64)
    a = links["a"].to_numpy(np.int64)
    b = links["b"].to_numpy(np.int64)
    ra = device_rack[a]
    rb = device_rack[b]
    placed = (ra >= 0) & (rb >= 0)

    # each device's port height, once per device (not per link end): its RU, else its rack's mid height
    ru = device_ru.astype(float)
    mid = rack_height_ru[np.clip(device_rack, 0, None)] / 2 if len(rack_height_ru) else np.zeros(len(ru))
    device_z = np.where(ru > 0, ru, mid) * RU_M
    jumper = np.zeros(len(a), dtype=np.int8)
    jlen = np.full(len(a), np.nan)
    if len(racks) and placed.any():
        row_code, _ = pd.factorize(racks["row"])
        pos = racks["pos"].to_numpy(np.int64)
        x = racks["x_m"].to_numpy(float)
        y = racks["y_m"].to_numpy(float)
        same = np.flatnonzero(placed & (ra == rb))
        # neighbours: one row, positions one apart; as one packed key per rack, row x m + pos, with m
        # twice the span of positions, so racks of two rows are always more than one apart, and an
        # unplaced end (rack -1) the appended key, more than one above every rack's: a link of one rack
        # or with an unplaced end is never one apart
        m = 2 * (int(pos.max()) - int(pos.min()) + 2)
        row_pos = row_code.astype(np.int64) * m + pos
        row_pos = np.r_[row_pos, row_pos.max() + 2]
        adj = np.flatnonzero(np.abs(row_pos[ra] - row_pos[rb]) == 1)
        jumper[same] = JUMPER_RACK
        jumper[adj] = JUMPER_ADJACENT
        jlen[same] = np.abs(device_z[a[same]] - device_z[b[same]]) + SLACK_M["rack"]
        pa, pb = ra[adj], rb[adj]
        dz = np.abs(device_z[a[adj]] - device_z[b[adj]])
        jlen[adj] = np.hypot(x[pa] - x[pb], y[pa] - y[pb]) + dz + SLACK_M["adjacent"]
    return LinkEnds(ra, rb, jumper, jlen, a, b, device_rack, device_z)


@dataclass(frozen=True)
class TrayPaths:
    """Tray routes of a set of links, grouped by rack pair.

    Per pair: ``src_rack``/``dst_rack``, ``dist_m`` (along the trays, inf if there is no path),
    ``src_end``/``dst_end`` (0: leaves its edge through ``u``, 1: through ``v``, -1: the direct run
    along a shared edge), ``src_node``/``dst_node`` (end nodes of the node path, -1 if direct).
    ``pair`` maps each routed link to its pair. ``sources``/``pred`` are the Dijkstra sources and
    predecessor rows used to rebuild node paths.
    """

    pair: np.ndarray
    src_rack: np.ndarray
    dst_rack: np.ndarray
    dist_m: np.ndarray
    src_end: np.ndarray
    dst_end: np.ndarray
    src_node: np.ndarray
    dst_node: np.ndarray
    sources: np.ndarray
    pred: np.ndarray

    @property
    def n_pairs(self) -> int:
        return len(self.src_rack)


def tray_paths(trays: Trays, rack_a: np.ndarray, rack_b: np.ndarray) -> TrayPaths:
    """Shortest tray routes between the racks of each link (all racks placed: rack numbers >= 0)."""
    n_racks = max(len(trays.rack_edge), 1)
    lo = np.minimum(rack_a, rack_b).astype(np.int64, copy=False)
    hi = np.maximum(rack_a, rack_b).astype(np.int64, copy=False)
    lo *= n_racks  # a fresh array: the key built in place
    lo += hi
    keys, pair = unique_inverse(lo)
    pa, pb = keys // n_racks, keys % n_racks
    # the rack with more partners is the Dijkstra source
    partners = np.bincount(np.r_[pa, pb], minlength=n_racks)
    flip = partners[pb] > partners[pa]
    src = np.where(flip, pb, pa)
    dst = np.where(flip, pa, pb)
    edges = trays.edges
    eu = edges["u"].to_numpy(np.int64)
    ev = edges["v"].to_numpy(np.int64)
    elen = edges["length_m"].to_numpy(float)
    es, ed = trays.rack_edge[src], trays.rack_edge[dst]
    ok = (es >= 0) & (ed >= 0)
    n = len(src)
    dist = np.full(n, np.inf)
    src_end = np.full(n, -1, dtype=np.int8)
    dst_end = np.full(n, -1, dtype=np.int8)
    src_node = np.full(n, -1, dtype=np.int64)
    dst_node = np.full(n, -1, dtype=np.int64)
    sources = np.zeros(0, dtype=np.int64)
    pred = np.zeros((0, trays.n_nodes), dtype=np.int32)
    if ok.any():
        i = np.nonzero(ok)[0]
        e1, e2 = es[i], ed[i]
        o1, o2 = trays.rack_offset_m[src[i]], trays.rack_offset_m[dst[i]]
        need = np.zeros(trays.n_nodes, dtype=bool)  # the end nodes of the source racks' edges, sorted
        need[eu[e1]] = True
        need[ev[e1]] = True
        sources = np.flatnonzero(need)
        dmat, pred = dijkstra(trays.adjacency(), directed=False, indices=sources, return_predecessors=True)
        row = np.full(trays.n_nodes, -1, dtype=np.int64)
        row[sources] = np.arange(len(sources))
        s_nodes = np.stack([eu[e1], ev[e1]], axis=1)
        d_nodes = np.stack([eu[e2], ev[e2]], axis=1)
        s_off = np.stack([o1, elen[e1] - o1], axis=1)
        d_off = np.stack([o2, elen[e2] - o2], axis=1)
        cand = np.empty((len(i), 5))
        for k, (si, di) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
            cand[:, k] = s_off[:, si] + dmat[row[s_nodes[:, si]], d_nodes[:, di]] + d_off[:, di]
        same_edge = e1 == e2
        cand[:, 4] = np.where(same_edge | (src[i] == dst[i]), np.abs(o1 - o2), np.inf)
        cand[src[i] == dst[i], 4] = 0.0
        best = np.argmin(cand, axis=1)
        dist[i] = cand[np.arange(len(i)), best]
        via = best < 4
        si_, di_ = best // 2, best % 2
        src_end[i] = np.where(via, si_, -1)
        dst_end[i] = np.where(via, di_, -1)
        src_node[i] = np.where(via, s_nodes[np.arange(len(i)), np.minimum(si_, 1)], -1)
        dst_node[i] = np.where(via, d_nodes[np.arange(len(i)), np.minimum(di_, 1)], -1)
        unreachable = ~np.isfinite(dist[i])
        src_end[i[unreachable]] = -1
        dst_end[i[unreachable]] = -1
        src_node[i[unreachable]] = -1
        dst_node[i[unreachable]] = -1
    return TrayPaths(
        pair=pair,
        src_rack=src,
        dst_rack=dst,
        dist_m=dist,
        src_end=src_end,
        dst_end=dst_end,
        src_node=src_node,
        dst_node=dst_node,
        sources=sources,
        pred=pred,
    )


@dataclass(frozen=True)
class EdgeLoad:
    """Cables on each tray edge: ``peak_area_mm2`` (the fullest stretch of the edge), ``cables``
    (n_edges x n_kinds: cables that use any part of the edge, per cable kind), ``peak_at_m`` (offset
    from ``u`` of the middle of the fullest stretch)."""

    peak_area_mm2: np.ndarray
    cables: np.ndarray
    peak_at_m: np.ndarray


def edge_loads(
    trays: Trays, paths: TrayPaths, area_mm2: np.ndarray, cable_kind: np.ndarray, n_kinds: int
) -> EdgeLoad:
    """Cross-section and cable counts on every tray edge for the routed links (aligned with
    ``paths.pair``). ``cable_kind`` in 0..n_kinds-1 (e.g. the medium)."""
    n_edges = len(trays.edges)
    n_pairs = paths.n_pairs
    # every link summed into its pair, then the pairs without a path emptied: a pair's sums are of its
    # own links alone, in link order, so they are those of the links that have a path (no masked copies)
    pair = paths.pair
    w_pair = np.bincount(pair, weights=area_mm2, minlength=n_pairs)
    c_pair = (
        np.bincount(pair * n_kinds + cable_kind.astype(np.int64, copy=False), minlength=n_pairs * n_kinds)
        .reshape(n_pairs, n_kinds)
        .astype(float)
    )
    no_path = ~(paths.dist_m < np.inf)
    if no_path.any():
        w_pair[no_path] = 0.0
        c_pair[no_path] = 0.0
    through = np.zeros(n_edges)
    cables = np.zeros((n_edges, n_kinds))

    # 1. node paths, each distinct (source, target) once
    via = (paths.src_node >= 0) & (paths.src_node != paths.dst_node) & (w_pair > 0)
    if via.any():
        row = np.full(trays.n_nodes, -1, dtype=np.int64)
        row[paths.sources] = np.arange(len(paths.sources))
        s = row[paths.src_node[via]]
        t = paths.dst_node[via]
        nk, inv = unique_inverse(s * trays.n_nodes + t)
        w = np.bincount(inv, weights=w_pair[via])
        c = _sum_rows(inv, c_pair[via], len(nk))
        srow, cur = nk // trays.n_nodes, nk % trays.n_nodes
        target = paths.sources[srow]
        path = np.arange(len(nk))
        steps: list[tuple[np.ndarray, np.ndarray]] = []  # (edge, node path) of every step back
        while len(cur):
            prev = paths.pred[srow, cur].astype(np.int64)
            e = trays.edge_between(prev, cur)
            through += np.bincount(e, weights=w, minlength=n_edges)
            steps.append((e, path))
            go = prev != target
            srow, cur, target, w, path = srow[go], prev[go], target[go], w[go], path[go]
        # the cable counts of all steps at once: an edge x node path incidence times the paths' counts
        # (whole numbers, so the sum is exact in any order)
        e_all = np.concatenate([e for e, _ in steps])
        p_all = np.concatenate([q for _, q in steps])
        hits = csr_matrix((np.ones(len(e_all)), (e_all, p_all)), shape=(n_edges, len(nk)))
        cables += hits @ c

    # 2. the stretches of the row trays between each rack and the end it leaves by (or the other rack)
    slots_total = int(trays.edge_slots.sum())
    diff = np.zeros(slots_total + 1)
    reach = (paths.dist_m < np.inf) & (w_pair > 0)
    on_edge: list[np.ndarray] = []  # the row-tray edge of each pair's stretch below
    of_pair: list[np.ndarray] = []
    for rack, end in ((paths.src_rack, paths.src_end), (paths.dst_rack, paths.dst_end)):
        m = reach & (end >= 0)
        e = trays.rack_edge[rack[m]]
        base = trays.edge_slot_base[e]
        r = trays.rack_slot[rack[m]]
        last = trays.edge_slots[e] - 1
        start = np.where(end[m] == 0, base, base + r + 1)
        stop = np.where(end[m] == 0, base + r, base + last)
        _span(diff, start, stop, w_pair[m])
        on_edge.append(e)
        of_pair.append(np.flatnonzero(m))
    d = reach & (paths.src_end < 0) & (paths.src_rack != paths.dst_rack)
    if d.any():
        e = trays.rack_edge[paths.src_rack[d]]
        r1, r2 = trays.rack_slot[paths.src_rack[d]], trays.rack_slot[paths.dst_rack[d]]
        base = trays.edge_slot_base[e]
        _span(diff, base + np.minimum(r1, r2) + 1, base + np.maximum(r1, r2), w_pair[d])
        on_edge.append(e)
        of_pair.append(np.flatnonzero(d))
    # the pairs' cable counts on their row-tray edges, all at once: an edge x pair incidence (a pair
    # twice on one edge counts twice) times the counts (whole numbers: exact in any order)
    e_all, p_all = np.concatenate(on_edge), np.concatenate(of_pair)
    cables += csr_matrix((np.ones(len(e_all)), (e_all, p_all)), shape=(n_edges, n_pairs)) @ c_pair
    local = np.cumsum(diff)[:slots_total]
    peak = through.copy()
    peak_at = trays.edges["length_m"].to_numpy(float) / 2
    has = np.nonzero(trays.edge_slots > 0)[0]
    if has.size and slots_total:
        seg = np.repeat(np.arange(len(has)), trays.edge_slots[has])
        order = np.lexsort((-local, seg))
        top = order[np.unique(seg[order], return_index=True)[1]]  # fullest slot of each edge
        peak[has] += local[top]
        peak_at[has] = (trays.slot_lo_m[top] + trays.slot_hi_m[top]) / 2
    return EdgeLoad(peak_area_mm2=peak, cables=cables, peak_at_m=peak_at)


def _sum_rows(group: np.ndarray, rows: np.ndarray, n_groups: int) -> np.ndarray:
    """The rows of ``rows`` summed per ``group`` (n_groups x columns), as one sparse product instead of
    a bincount per column. For cable counts: whole numbers, so the sums are exact in any order."""
    pick = csr_matrix((np.ones(len(group)), (group, np.arange(len(group)))), shape=(n_groups, len(group)))
    return np.asarray(pick @ rows)


def _span(diff: np.ndarray, start: np.ndarray, stop: np.ndarray, w: np.ndarray) -> None:
    """Add ``w`` to the slots start..stop (inclusive) with a difference array."""
    m = stop >= start
    n = len(diff)
    diff += np.bincount(start[m], weights=w[m], minlength=n)[:n]
    diff -= np.bincount(stop[m] + 1, weights=w[m], minlength=n)[:n]
