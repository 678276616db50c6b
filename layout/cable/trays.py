"""The cable tray network: a graph in metres over rows, aisles, trunks, risers and campus ducts.

What is built, per hall (rows from the placement; every hall's rows share its ``tray`` spec):

- a **row tray** above every row's centre line, extended at both ends to the nearest cross tray;
  colinear rows (a row broken by a cross aisle) share one tray line;
- **cross trays** along the cross aisles: one at the middle of every gap between the rows' extents
  along the row axis, running the whole depth of the ring below;
- a **perimeter ring** just outside the rows (half a cross aisle out, never past half-way to the
  wall), whose two sides across the rows are the outermost cross trays;
- a **trunk** from the ring point nearest the building entry (the hall's door) to the entry, run as
  an L (first leg square to the ring side), then a **riser** down from tray height to the entry at
  floor level, where campus ducts arrive;
- a **pass-through trunk** between halls of one building less than ``PASS_THROUGH_MAX_GAP_M`` apart,
  through the middle of the wall they share;
- **campus ducts** between building entries along ``[[duct]].path`` (a straight line if no path).

Nodes are the ends and junctions of those runs (a few thousand on a 100k campus); racks are not nodes:
each rack hangs off its row tray edge at a known offset from the edge's ``u`` end, so routing can
take shortest paths over the small node graph and add the offsets (layout.cable.route). The graph
builder and each hall's piece of it (rows, cross trays, ring) are in layout/cable/tray_pieces.py.

``[[tray_block]]`` lines cut the tray edges they cross: a row tray is cut at the crossing (racks on
either side keep their own end), any other tray is removed; a block lying along a tray removes it.
``[[tray_add]]`` polylines add ``user`` trays whose ends snap to the nearest tray node.

Trays and cables are modelled at the tray's centre line: the sideways offset from the rack to the
tray is ignored, as are columns and keep-outs (trays run overhead).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from shapely.geometry import Point, Polygon

from layout.cable.tray_pieces import (
    TOL_M,
    Graph,
    Spec,
    add_piece,
    hall_piece,
    hall_trays_key,
    tray_spec,
    trunk_spec,
)
from layout.model.site import Building, Hall, TrayEdit
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.cable.inputs import CableInput
    from layout.memo import Scope
    from layout.place import Placement

RU_M = 0.04445  # one rack unit, EIA-310
CUT_GAP_M = 0.001  # a cut tray's two ends sit 1 mm either side of the blocking line
PASS_THROUGH_MAX_GAP_M = 5.0  # halls closer than this (a wall or a corridor) get a trunk between them
# A campus duct bank: 4 x 4 conduits of 100 mm bore, filled to 40 % (NEC chapter 9, table 1: over two
# cables). Modelled as a 400 x 400 mm envelope whose usable area is the conduits' bore x 40 %.
DUCT_WIDTH_MM = 400.0
DUCT_DEPTH_MM = 400.0
DUCT_CONDUIT_BORE_MM = 100.0
DUCT_FILL_LIMIT = 0.4
EDGE_KINDS = ("row", "cross", "trunk", "riser", "duct", "user")


@dataclass(frozen=True)
class Trays:
    """The tray graph plus each rack's attachment to it (arrays aligned with ``placement.racks``).

    ``nodes``: x_m, y_m, z_m, hall (``B1/H1``; the building id for trunk bends and entries; ``""``
    for campus duct bends), kind (``end``, ``junction``, ``door``, ``entry``, ``bend``, ``cut``,
    ``user``).
    ``edges``: u, v, length_m, kind (EDGE_KINDS), hall, where (row id for row trays, else a place
    name), line (tray line number of row trays, else -1), width_mm, depth_mm, fill_limit,
    levels (stacked tray levels; conduits for ducts), capacity_mm2 (usable cross-section: width x depth x
    levels x fill limit; ducts: conduits x bore area x fill limit).
    ``rack_edge`` the row tray edge above the rack (-1: none, e.g. its tray is blocked),
    ``rack_offset_m`` the distance along that edge from its ``u`` node, ``rack_node`` the nearer end,
    ``rack_z_m`` the tray elevation above the rack, ``rack_drop_m`` tray to the rack's mid height,
    ``rack_slot`` the rack's rank along its edge (for fill along the row),
    ``edge_slot_base``/``edge_slots`` the slots of each edge (stretches between racks) for fill, and
    ``slot_lo_m``/``slot_hi_m`` where each slot starts and ends (offsets from the edge's ``u``).
    ``blocked``: the tray pieces removed by ``[[tray_block]]`` (hall, kind, x0_m, y0_m, x1_m, y1_m).
    """

    nodes: pd.DataFrame
    edges: pd.DataFrame
    rack_edge: np.ndarray
    rack_offset_m: np.ndarray
    rack_node: np.ndarray
    rack_z_m: np.ndarray
    rack_drop_m: np.ndarray
    rack_slot: np.ndarray
    edge_slot_base: np.ndarray
    edge_slots: np.ndarray
    slot_lo_m: np.ndarray
    slot_hi_m: np.ndarray
    blocked: pd.DataFrame
    violations: list[Violation] = field(default_factory=list)

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    def adjacency(self) -> csr_matrix:
        """Symmetric sparse graph of edge lengths (the shortest edge where two run in parallel)."""
        u, v, length = self._unique_edges()
        n = self.n_nodes
        w = np.maximum(length, 1e-9)  # csgraph drops explicit zeros
        return csr_matrix((np.r_[w, w], (np.r_[u, v], np.r_[v, u])), shape=(n, n))

    def edge_between(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Edge number joining nodes a[i] and b[i] (the one the adjacency uses); -1 if none."""
        keys, idx = self._edge_keys
        n = self.n_nodes
        k = np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b)
        pos = np.searchsorted(keys, k)
        pos = np.minimum(pos, len(keys) - 1) if len(keys) else pos
        ok = (pos < len(keys)) & (keys[pos] == k) if len(keys) else np.zeros(len(k), bool)
        return np.where(ok, idx[pos] if len(keys) else -1, -1)

    def tray_m(self) -> dict[str, float]:
        """Metres of tray (and duct) per edge kind, for the bill of materials."""
        by = self.edges.groupby("kind", sort=True)["length_m"].sum()
        return {k: round(float(by.get(k, 0.0)), 3) for k in EDGE_KINDS}

    def _unique_edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        keys, idx = self._edge_keys
        e = self.edges
        return (e["u"].to_numpy()[idx], e["v"].to_numpy()[idx], e["length_m"].to_numpy()[idx])

    @cached_property
    def _edge_keys(self) -> tuple[np.ndarray, np.ndarray]:
        e = self.edges
        u = e["u"].to_numpy(np.int64)
        v = e["v"].to_numpy(np.int64)
        k = np.minimum(u, v) * self.n_nodes + np.maximum(u, v)
        order = np.lexsort((e["length_m"].to_numpy(), k))
        ks = k[order]
        first = np.r_[True, ks[1:] != ks[:-1]] if len(ks) else np.zeros(0, bool)
        return ks[first], order[first]


def build(inp: CableInput, placement: Placement, scope: Scope | None = None) -> Trays:
    """Lay the trays for a placement (layout.place.Placement: ``racks`` and ``rows`` tables). ``scope``:
    a memo (layout/memo.py) that keeps each hall's piece (:class:`HallTrays`) by all it is made from
    (:func:`hall_trays_key`), so an edit of one hall lays that hall's trays alone; the trays are the same
    without it."""
    racks = placement.racks
    rows = placement.rows
    g = Graph()
    violations: list[Violation] = []
    halls = {f"{b.id}/{h.id}": (b, h) for b, h in inp.halls()}
    # each rack's row looked up once in the rows table (an index, not a dict map per column)
    row_at = pd.Index(rows["row"]).get_indexer(racks["row"]) if len(racks) else np.zeros(0, np.int64)
    line_of_row: dict[str, int] = {}
    rings: dict[str, tuple[float, float, float, float]] = {}
    hall_polys = {k: Polygon(h.polygon) for k, (_, h) in halls.items()}
    entries = {b.id: _entry(b, inp.buildings, inp.ducts) for b in inp.buildings}
    hall_rows = _rows_by_hall(rows, _row_depth_m(rows, racks, row_at))
    doors = _rings_and_doors(halls, hall_polys, hall_rows, entries, rings)
    passes = _pass_throughs(halls, hall_polys, rings)

    n_lines = 0
    for hkey in sorted(halls):
        if hkey not in rings:
            continue
        tray = halls[hkey][1].tray
        # extra split points on the ring: the door towards the entry and pass-throughs to other halls
        points = (doors[hkey], *(pt for (hk, pt, _) in passes if hk == hkey))
        lay = partial(hall_piece, hkey, hall_rows[hkey], rings[hkey], tray, points)
        if scope is None:
            piece = lay()
        else:
            parts = tuple(hall_trays_key(hkey, hall_rows[hkey], rings[hkey], tray, points).values())
            piece = scope.take("cable.hall_trays", parts, lay)
        n_lines = add_piece(g, piece, line_of_row, n_lines)

    # trunks: hall door -> building entry (L-shaped at tray height), riser down to the entry
    entry_node: dict[str, int] = {}
    for b in inp.buildings:
        ex, ey = entries[b.id]
        entry_node[b.id] = g.node(ex, ey, 0.0, b.id, "entry")
    for hkey in sorted(rings):
        b, h = halls[hkey]
        z = h.tray.height_m
        spec = trunk_spec(h.tray)
        door = g.node(*doors[hkey], z, hkey, "door")
        g.nkind[door] = "door"
        ex, ey = entries[b.id]
        cur = door
        for px, py in _l_points(g.xyz(door)[:2], (ex, ey), rings[hkey]):
            nxt = g.node(px, py, z, b.id, "bend")
            g.edge(cur, nxt, "trunk", hkey, f"{hkey} trunk to entry", spec)
            cur = nxt
        g.edge(cur, entry_node[b.id], "riser", hkey, f"{b.id} riser at entry", spec)
    for hkey, (px, py), (okey, (qx, qy)) in passes:
        if okey < hkey:
            continue
        spec = trunk_spec(halls[hkey][1].tray)
        z1 = halls[hkey][1].tray.height_m
        cur = g.node(px, py, z1, hkey, "door")
        g.nkind[cur] = "door"
        end = g.node(qx, qy, halls[okey][1].tray.height_m, okey, "door")
        g.nkind[end] = "door"
        pts = _l_points((px, py), (qx, qy), rings[hkey])
        for k, (bx, by) in enumerate(pts):
            nxt = end if k == len(pts) - 1 else g.node(bx, by, z1, halls[hkey][0].id, "bend")
            g.edge(cur, nxt, "trunk", hkey, f"{hkey}-{okey} pass-through", spec)
            cur = nxt
        if not pts:
            g.edge(cur, end, "trunk", hkey, f"{hkey}-{okey} pass-through", spec)
    for d in inp.ducts:
        duct_spec: Spec = (DUCT_WIDTH_MM, DUCT_DEPTH_MM, DUCT_FILL_LIMIT, float(d.conduits))
        if d.from_ not in entry_node or d.to not in entry_node:
            continue
        # the entries, and the path's corners between them (a corner on an entry is that entry)
        bends = [(float(x), float(y)) for x, y in (d.path or [])]
        ends = (entries[d.from_], entries[d.to])
        bends = [p for p in bends if min(np.hypot(p[0] - e[0], p[1] - e[1]) for e in ends) > TOL_M]
        chain = [entry_node[d.from_], *(g.node(x, y, 0.0, "", "bend") for x, y in bends), entry_node[d.to]]
        for u, v in itertools.pairwise(chain):
            g.edge(u, v, "duct", "", f"duct {d.from_}-{d.to}", duct_spec)

    blocked = _apply_blocks(g, inp.tray_block)
    edges = _edge_table(g)
    att = _attach(g, edges, racks, rows, row_at, line_of_row, inp)
    if inp.tray_add:  # user trays add edges; without them the table above is the whole graph
        violations += _apply_adds(g, inp.tray_add, halls)
        edges = _edge_table(g)
    nodes = pd.DataFrame({"x_m": g.nx, "y_m": g.ny, "z_m": g.nz, "hall": g.nhall, "kind": g.nkind})
    rack_slot, slot_base, slots, slot_lo, slot_hi = _slots(att[0], att[1], edges["length_m"].to_numpy(float))
    return Trays(
        nodes=nodes,
        edges=edges,
        rack_edge=att[0],
        rack_offset_m=att[1],
        rack_node=att[2],
        rack_z_m=att[3],
        rack_drop_m=att[4],
        rack_slot=rack_slot,
        edge_slot_base=slot_base,
        edge_slots=slots,
        slot_lo_m=slot_lo,
        slot_hi_m=slot_hi,
        blocked=blocked,
        violations=violations,
    )


def _entry(b: Building, buildings: Sequence[Building], ducts: Sequence[object]) -> tuple[float, float]:
    """The building's entry (MDF): given, else the end of a duct path at it, else its wall nearest
    the other buildings (its own centre for a lone building)."""
    if b.entry is not None:
        return (float(b.entry[0]), float(b.entry[1]))
    fp = Polygon(b.footprint)
    for d in ducts:
        path = getattr(d, "path", None)
        if path:
            if getattr(d, "from_", None) == b.id:
                return _on_boundary(fp, path[0])
            if getattr(d, "to", None) == b.id:
                return _on_boundary(fp, path[-1])
    others = [Polygon(o.footprint).centroid for o in buildings if o.id != b.id]
    target = (
        (float(np.mean([p.x for p in others])), float(np.mean([p.y for p in others])))
        if others
        else (fp.centroid.x, fp.centroid.y)
    )
    return _on_boundary(fp, target)


def _on_boundary(poly: Polygon, pt: Sequence[float]) -> tuple[float, float]:
    ring = poly.exterior
    q = ring.interpolate(ring.project(Point(pt[0], pt[1])))
    return (round(float(q.x), 6), round(float(q.y), 6))


def _row_depth_m(rows: pd.DataFrame, racks: pd.DataFrame, row_at: np.ndarray) -> np.ndarray:
    """Per row of the rows table, its deepest rack (a row without racks, or only NaN depths: 1.2 m)."""
    if not len(racks):
        return np.full(len(rows), 1.2)
    deepest = np.full(len(rows), -np.inf)
    on = row_at >= 0
    np.fmax.at(deepest, row_at[on], racks["depth_m"].to_numpy(float)[on])  # NaN skipped, as a max
    return np.where(deepest > -np.inf, deepest, 1.2)


def _rows_by_hall(rows: pd.DataFrame, depth_m: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
    """The rows table split by hall, as arrays (row, axis, x0_m, y0_m, x1_m, y1_m, depth_m), once: not a
    filter of the whole table per hall and per use."""
    cols = {
        "row": rows["row"].to_numpy(object),
        "axis": rows["axis"].to_numpy(object),
        **{c: rows[c].to_numpy(float) for c in ("x0_m", "y0_m", "x1_m", "y1_m")},
        "depth_m": depth_m,
    }
    return {
        str(k): {c: v[idx] for c, v in cols.items()}
        for k, idx in rows.groupby("hall", sort=False).indices.items()
    }


def _rings_and_doors(
    halls: dict[str, tuple[Building, Hall]],
    polys: dict[str, Polygon],
    hall_rows: dict[str, dict[str, np.ndarray]],
    entries: dict[str, tuple[float, float]],
    rings: dict[str, tuple[float, float, float, float]],
) -> dict[str, tuple[float, float]]:
    """Fill ``rings`` (x_lo, x_hi, y_lo, y_hi per hall with rows) and return each hall's door point."""
    doors: dict[str, tuple[float, float]] = {}
    for hkey, (b, h) in sorted(halls.items()):
        hrows = hall_rows.get(hkey)
        if hrows is None or not len(hrows["row"]):
            continue
        depth = hrows["depth_m"]
        ax = hrows["axis"] == "x"
        x0 = np.minimum(hrows["x0_m"], hrows["x1_m"])
        x1 = np.maximum(hrows["x0_m"], hrows["x1_m"])
        y0 = np.minimum(hrows["y0_m"], hrows["y1_m"])
        y1 = np.maximum(hrows["y0_m"], hrows["y1_m"])
        fx0 = np.where(ax, x0, x0 - depth / 2).min()
        fx1 = np.where(ax, x1, x1 + depth / 2).max()
        fy0 = np.where(ax, y0 - depth / 2, y0).min()
        fy1 = np.where(ax, y1 + depth / 2, y1).max()
        bx0, by0, bx1, by1 = polys[hkey].bounds
        # half a cross aisle out from the racks, never more than half-way to the wall
        m = np.clip(np.array([fx0 - bx0, bx1 - fx1, fy0 - by0, by1 - fy1]) / 2, 0.0, h.cross_aisle_m / 2)
        ring = (round(fx0 - m[0], 6), round(fx1 + m[1], 6), round(fy0 - m[2], 6), round(fy1 + m[3], 6))
        rings[hkey] = ring
        doors[hkey] = _nearest_on_rect(ring, entries[b.id])
    return doors


def _nearest_on_rect(r: tuple[float, float, float, float], p: tuple[float, float]) -> tuple[float, float]:
    x_lo, x_hi, y_lo, y_hi = r
    px, py = p
    cx, cy = min(max(px, x_lo), x_hi), min(max(py, y_lo), y_hi)
    if (cx, cy) != (px, py):
        return (round(cx, 6), round(cy, 6))
    d = [px - x_lo, x_hi - px, py - y_lo, y_hi - py]  # inside: go to the nearest side
    i = int(np.argmin(d))
    return [(x_lo, py), (x_hi, py), (px, y_lo), (px, y_hi)][i]


def _pass_throughs(
    halls: dict[str, tuple[Building, Hall]],
    polys: dict[str, Polygon],
    rings: dict[str, tuple[float, float, float, float]],
) -> list[tuple[str, tuple[float, float], tuple[str, tuple[float, float]]]]:
    """(hall, its ring point, (other hall, other ring point)) for halls of a building that are close."""
    out: list[tuple[str, tuple[float, float], tuple[str, tuple[float, float]]]] = []
    keys = sorted(k for k in halls if k in rings)
    for i, k1 in enumerate(keys):
        for k2 in keys[i + 1 :]:
            if halls[k1][0].id != halls[k2][0].id:
                continue
            p1, p2 = polys[k1], polys[k2]
            gap = p1.distance(p2)
            if gap > PASS_THROUGH_MAX_GAP_M:
                continue
            shared = p1.buffer(gap + 0.01).intersection(p2.exterior)
            c = shared.centroid if not shared.is_empty else p2.centroid
            q2 = _on_boundary(p2, (c.x, c.y))
            q1 = _on_boundary(p1, q2)
            r1 = _nearest_on_rect(rings[k1], q1)
            r2 = _nearest_on_rect(rings[k2], q2)
            out.append((k1, r1, (k2, r2)))
            out.append((k2, r2, (k1, r1)))
    return out


def _l_points(
    start: tuple[float, float], target: tuple[float, float], ring: tuple[float, float, float, float]
) -> list[tuple[float, float]]:
    """The corners of an L-shaped run from ``start`` (on a ring side) to ``target``: the first leg
    leaves the ring square to its side. Zero-length legs are left out."""
    sx, sy = start
    tx, ty = target
    on_x_side = min(abs(sx - ring[0]), abs(sx - ring[1])) <= TOL_M
    on_y_side = min(abs(sy - ring[2]), abs(sy - ring[3])) <= TOL_M
    bend = (tx, sy) if on_x_side and not on_y_side else (sx, ty)
    out: list[tuple[float, float]] = []
    cx, cy = sx, sy
    for px, py in (bend, (tx, ty)):
        if abs(px - cx) + abs(py - cy) > TOL_M:
            out.append((px, py))
            cx, cy = px, py
    return out


def _apply_blocks(g: Graph, blocks: Sequence[TrayEdit]) -> pd.DataFrame:
    """Cut (row trays) or remove (other trays) every live edge of the block's hall that a block line meets."""
    gone: list[tuple[str, str, float, float, float, float]] = []
    for blk in blocks:
        line = [(float(p[0]), float(p[1])) for p in blk.line]
        for (p0x, p0y), (p1x, p1y) in itertools.pairwise(line):
            nx = np.asarray(g.nx)
            ny = np.asarray(g.ny)
            idx = np.array(
                [i for i, e in enumerate(g.e) if g.alive[i] and e.hall == blk.hall], dtype=np.int64
            )
            if idx.size == 0:
                continue
            u = np.array([g.e[i].u for i in idx], dtype=np.int64)
            v = np.array([g.e[i].v for i in idx], dtype=np.int64)
            ax, ay, bx, by = nx[u], ny[u], nx[v], ny[v]
            rx, ry = p1x - p0x, p1y - p0y
            sx, sy = bx - ax, by - ay
            denom = rx * sy - ry * sx
            qx, qy = ax - p0x, ay - p0y
            par = np.abs(denom) < 1e-12
            with np.errstate(divide="ignore", invalid="ignore"):
                t = (qx * sy - qy * sx) / denom  # along the block line
                w = (qx * ry - qy * rx) / denom  # along the edge
            rlen = float(np.hypot(rx, ry))
            crossing = ~par & (t >= -1e-9) & (t <= 1 + 1e-9) & (w >= -1e-9) & (w <= 1 + 1e-9)
            colinear = np.zeros(len(idx), dtype=bool)
            if rlen > 0:
                ta = (qx * rx + qy * ry) / rlen**2
                tb = ((bx - p0x) * rx + (by - p0y) * ry) / rlen**2
                overlap = (np.minimum(np.maximum(ta, tb), 1) - np.maximum(np.minimum(ta, tb), 0)) * rlen
                colinear = par & (np.abs(qx * ry - qy * rx) <= TOL_M * rlen) & (overlap > TOL_M)
            for k in np.nonzero(crossing | colinear)[0]:
                e = g.e[int(idx[k])]
                g.alive[int(idx[k])] = False
                ux, uy, vx, vy = float(ax[k]), float(ay[k]), float(bx[k]), float(by[k])
                gone.append((e.hall, e.kind, ux, uy, vx, vy))
                if e.kind != "row" or colinear[k]:
                    continue
                # a row tray is cut at the crossing; each side keeps its own end
                cut = float(np.clip(w[k], 0.0, 1.0)) * e.length
                dxu, dyu = (vx - ux) / e.length, (vy - uy) / e.length
                z = g.nz[e.u]
                if cut > 2 * CUT_GAP_M:
                    at = cut - CUT_GAP_M
                    c1 = g.node(ux + dxu * at, uy + dyu * at, z, e.hall, "cut", unique=True)
                    g.edge(e.u, c1, "row", e.hall, e.where, e.spec, line=e.line)
                if e.length - cut > 2 * CUT_GAP_M:
                    at = cut + CUT_GAP_M
                    c2 = g.node(ux + dxu * at, uy + dyu * at, z, e.hall, "cut", unique=True)
                    g.edge(c2, e.v, "row", e.hall, e.where, e.spec, line=e.line)
    return pd.DataFrame(gone, columns=["hall", "kind", "x0_m", "y0_m", "x1_m", "y1_m"])


def _apply_adds(
    g: Graph, adds: Sequence[TrayEdit], halls: dict[str, tuple[Building, Hall]]
) -> list[Violation]:
    """User trays: the polyline's ends snap to the nearest tray node; its inner points become bends."""
    out: list[Violation] = []
    nx = np.asarray(g.nx)
    ny = np.asarray(g.ny)
    for i, add in enumerate(adds):
        pts = [(float(p[0]), float(p[1])) for p in add.line]
        h = halls[add.hall][1]
        if len(nx) == 0:
            out.append(
                Violation("tray_add", add.hall, f"tray_add[{i}] has no tray to join: {add.hall} has no rows")
            )
            continue
        ends = [int(np.argmin(np.hypot(nx - px, ny - py))) for px, py in (pts[0], pts[-1])]
        prev = ends[0]
        for k, (px, py) in enumerate(pts[1:], start=1):
            cur = ends[1] if k == len(pts) - 1 else g.node(px, py, h.tray.height_m, add.hall, "user")
            g.edge(prev, cur, "user", add.hall, f"{add.hall} tray_add[{i}]", tray_spec(h.tray))
            prev = cur
    return out


def _edge_table(g: Graph) -> pd.DataFrame:
    live = [e for e, a in zip(g.e, g.alive, strict=True) if a]
    spec = np.array([e.spec for e in live], dtype=float).reshape(-1, 4)
    df = pd.DataFrame(
        {
            "u": np.array([e.u for e in live], dtype=np.int64),
            "v": np.array([e.v for e in live], dtype=np.int64),
            "length_m": np.array([e.length for e in live], dtype=float),
            "kind": [e.kind for e in live],
            "hall": [e.hall for e in live],
            "where": [e.where for e in live],
            "line": np.array([e.line for e in live], dtype=np.int64),
            "width_mm": spec[:, 0],
            "depth_mm": spec[:, 1],
            "fill_limit": spec[:, 2],
            "levels": spec[:, 3].astype(np.int64),
        }
    )
    levels = spec[:, 3].astype(np.int64)
    area = spec[:, 0] * spec[:, 1] * levels
    duct = np.array([e.kind == "duct" for e in live], dtype=bool)
    bank = levels * np.pi * (DUCT_CONDUIT_BORE_MM / 2) ** 2
    df["capacity_mm2"] = np.where(duct, bank * DUCT_FILL_LIMIT, area * spec[:, 2])
    return df


def _attach(
    g: Graph,
    edges: pd.DataFrame,
    racks: pd.DataFrame,
    rows: pd.DataFrame,
    row_at: np.ndarray,
    line_of_row: dict[str, int],
    inp: CableInput,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Hang every rack off the row tray edge above it (``row_at``: each rack's row in ``rows``)."""
    n = len(racks)
    rack_edge = np.full(n, -1, dtype=np.int64)
    offset = np.full(n, np.nan)
    node = np.full(n, -1, dtype=np.int64)
    z = np.full(n, np.nan)
    drop = np.full(n, np.nan)
    if n == 0:
        return rack_edge, offset, node, z, drop
    lines = np.array([line_of_row.get(r, -1) for r in rows["row"].tolist()], dtype=np.int64)
    rline = np.where(row_at >= 0, lines[np.clip(row_at, 0, None)], -1) if len(lines) else np.full(n, -1)
    axes = rows["axis"].to_numpy(object)
    raxis = np.where(row_at >= 0, axes[np.clip(row_at, 0, None)], "x") if len(axes) else np.full(n, "x")
    s = np.where(raxis == "x", racks["x_m"].to_numpy(float), racks["y_m"].to_numpy(float))
    nx = np.asarray(g.nx)
    ny = np.asarray(g.ny)
    re = edges.index[edges["kind"].eq("row").to_numpy()].to_numpy()
    if re.size:
        eu = edges["u"].to_numpy()[re]
        ev = edges["v"].to_numpy()[re]
        eline = edges["line"].to_numpy()[re]
        horiz = np.abs(ny[eu] - ny[ev]) <= np.abs(nx[eu] - nx[ev])
        au = np.where(horiz, nx[eu], ny[eu])
        av = np.where(horiz, nx[ev], ny[ev])
        a_lo, a_hi = np.minimum(au, av), np.maximum(au, av)
        a_min = min(float(a_lo.min()), float(np.nanmin(s)) if np.isfinite(s).any() else 0.0)
        scale = max(float(a_hi.max()), float(np.nanmax(s)) if np.isfinite(s).any() else 0.0) - a_min + 10.0
        key = eline * scale + (a_lo - a_min)
        order = np.argsort(key, kind="stable")
        ks = key[order]
        q = rline * scale + (s - a_min)
        pos = np.searchsorted(ks, q + 2 * CUT_GAP_M, side="right") - 1
        ok = (rline >= 0) & (pos >= 0)
        cand = order[np.clip(pos, 0, len(order) - 1)]
        ok &= (eline[cand] == rline) & (s <= a_hi[cand] + 2 * CUT_GAP_M) & (s >= a_lo[cand] - 2 * CUT_GAP_M)
        k = cand[ok]
        rack_edge[ok] = re[k]
        offset[ok] = np.clip(np.abs(s[ok] - au[k]), 0.0, np.abs(av[k] - au[k]))
        near_u = offset[ok] <= np.abs(av[k] - au[k]) / 2
        node[ok] = np.where(near_u, eu[k], ev[k])
        z[ok] = np.asarray(g.nz)[eu[k]]
    rack_h = rack_height_ru(racks, inp) * RU_M
    drop = z - rack_h / 2
    return rack_edge, offset, node, z, drop


def rack_height_ru(racks: pd.DataFrame, inp: CableInput) -> np.ndarray:
    """Each rack's height in RU by its template (48 for a template the inputs do not know), looked up
    once per distinct template, not once per rack."""
    codes, names = pd.factorize(racks["template"])
    heights = inp.heights_ru
    tab = np.array([float(heights[t]) if t in heights else 48.0 for t in names] + [48.0])
    return tab[codes]  # code -1 (no template): the appended 48


def _slots(
    rack_edge: np.ndarray, offset: np.ndarray, length: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rank of each rack along its edge (racks at the same spot share a rank); an edge with k distinct
    rack positions has k + 1 slots: u..first rack, between racks, last rack..v. Returns the ranks, each
    edge's first slot and slot count, and each slot's start and end offset from ``u``."""
    n_edges = len(length)
    rank = np.full(len(rack_edge), -1, dtype=np.int64)
    slots = np.zeros(n_edges, dtype=np.int64)
    on = np.nonzero(rack_edge >= 0)[0]
    pair = np.zeros((0, 2), dtype=np.int64)
    if on.size:
        e = rack_edge[on]
        off_mm = np.round(offset[on] * 1000).astype(np.int64)
        # the distinct (edge, offset) pairs sorted by edge, then offset: one packed key (offsets are
        # whole millimetres >= 0, below 2^32), not a row-wise unique
        packed = np.unique(e * (1 << 32) + off_mm)
        pair = np.stack([packed >> 32, packed & ((1 << 32) - 1)], axis=1)
        first = np.searchsorted(pair[:, 0], pair[:, 0], side="left")
        pair_rank = np.arange(len(pair)) - first
        where = np.searchsorted(pair[:, 0] * (1 << 32) + pair[:, 1], e * (1 << 32) + off_mm)
        rank[on] = pair_rank[where]
        counts = np.bincount(pair[:, 0], minlength=n_edges)
        slots = np.where(counts > 0, counts + 1, 0)
    base = np.r_[0, np.cumsum(slots)[:-1]].astype(np.int64)
    # slot k of an edge runs from position k-1 (or u) to position k (or v)
    has = np.nonzero(slots)[0]
    lo = np.zeros(int(slots.sum()))
    hi = np.zeros(int(slots.sum()))
    if has.size:
        pos_m = pair[:, 1] / 1000.0
        pos_base = np.r_[0, np.cumsum(slots[has] - 1)[:-1]]
        for_slot = np.repeat(np.arange(len(has)), slots[has])
        k = np.arange(len(lo)) - base[has][for_slot]
        n_pos = slots[has][for_slot] - 1
        idx_lo = pos_base[for_slot] + k - 1
        idx_hi = pos_base[for_slot] + k
        lo = np.where(k == 0, 0.0, pos_m[np.clip(idx_lo, 0, len(pos_m) - 1)])
        hi = np.where(k == n_pos, length[has][for_slot], pos_m[np.clip(idx_hi, 0, len(pos_m) - 1)])
    return rank, base, slots, lo, hi
