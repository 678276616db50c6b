"""The pieces the tray network (layout/cable/trays.py) is built from: the append-only graph of nodes
and edges (:class:`Graph`), the axis-parallel runs of a hall before they are split at their junctions
(:class:`Seg`), and each hall's piece of the network (:class:`HallTrays`: its row trays, cross trays
and ring, laid on a graph of its own by :func:`hall_piece`), which a front end keeps per hall by all it
is made from (:func:`hall_trays_key`), so an edit of one hall lays that hall's trays alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from layout.model.site import TraySpec

TOL_M = 0.005  # geometric tolerance: 5 mm


Spec = tuple[float, float, float, float]  # width_mm, depth_mm, fill_limit, levels (conduits for ducts)


class Edge(NamedTuple):
    u: int
    v: int
    length: float
    kind: str
    hall: str
    where: str
    line: int
    spec: Spec


class Graph:
    """Append-only node and edge lists; edges can be retired (blocked) before the tables are made."""

    def __init__(self) -> None:
        self.nx: list[float] = []
        self.ny: list[float] = []
        self.nz: list[float] = []
        self.nhall: list[str] = []
        self.nkind: list[str] = []
        self.index: dict[tuple[str, float, float, float], int] = {}
        self.e: list[Edge] = []
        self.alive: list[bool] = []
        self.seen: dict[tuple[int, int, str], int] = {}

    def node(self, x: float, y: float, z: float, hall: str, kind: str, unique: bool = False) -> int:
        key = (hall, round(x, 4), round(y, 4), round(z, 4))
        if not unique and key in self.index:
            return self.index[key]
        i = len(self.nx)
        self.nx.append(float(x))
        self.ny.append(float(y))
        self.nz.append(float(z))
        self.nhall.append(hall)
        self.nkind.append(kind)
        if not unique:
            self.index[key] = i
        return i

    def xyz(self, i: int) -> tuple[float, float, float]:
        return self.nx[i], self.ny[i], self.nz[i]

    def edge(
        self,
        u: int,
        v: int,
        kind: str,
        hall: str,
        where: str,
        spec: Spec,
        line: int = -1,
        length: float | None = None,
    ) -> int | None:
        if u == v:
            return None
        key = (min(u, v), max(u, v), kind)
        if key in self.seen and self.alive[self.seen[key]]:
            return self.seen[key]  # e.g. one riser at the entry for every hall's trunk
        if length is None:
            ux, uy, uz = self.xyz(u)
            vx, vy, vz = self.xyz(v)
            length = float(np.hypot(vx - ux, vy - uy) + abs(vz - uz))
        self.e.append(Edge(u, v, length, kind, hall, where, line, spec))
        self.alive.append(True)
        self.seen[key] = len(self.e) - 1
        return len(self.e) - 1


@dataclass
class Seg:
    """An axis-parallel tray run in a hall before it is split at its junctions."""

    orient: str  # "h": along x at y = fixed; "v": along y at x = fixed
    fixed: float
    a0: float
    a1: float
    kind: str
    line: int = -1
    where: str = ""
    splits: list[float] = field(default_factory=list)


def tray_spec(t: TraySpec) -> Spec:
    return (t.width_mm, t.depth_mm, t.fill_limit, float(t.levels))


def trunk_spec(t: TraySpec) -> Spec:
    return (t.trunk_width_mm or t.width_mm, t.depth_mm, t.fill_limit, float(t.trunk_levels))


def merge_intervals(iv: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1] + TOL_M:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


@dataclass(frozen=True)
class HallTrays:
    """One hall's rows, cross aisles and ring as laid by :func:`hall_piece`, numbered from 0: its nodes
    (x, y, z, hall, kind) and their dedup keys, its edges (``line`` counted from 0 in this hall; -1:
    not a row tray) and each row's tray line. :func:`layout.cable.trays.build` adds it to the site's
    graph after the halls before it (node, edge and line numbers shifted), so a kept piece gives the
    same graph."""

    nx: tuple[float, ...]
    ny: tuple[float, ...]
    nz: tuple[float, ...]
    nhall: tuple[str, ...]
    nkind: tuple[str, ...]
    index: tuple[tuple[tuple[str, float, float, float], int], ...]
    edges: tuple[Edge, ...]
    lines: tuple[tuple[str, int], ...]
    n_lines: int


def hall_trays_key(
    hkey: str,
    hrows: dict[str, np.ndarray],
    ring: tuple[float, float, float, float],
    tray: TraySpec,
    points: tuple[tuple[float, float], ...],
) -> dict[str, Any]:
    """Everything a hall's tray piece (:class:`HallTrays`) is made from, by name: the hall, its rows
    (id, axis, ends), its ring, its tray spec (height, widths, levels) and the ring's split points (the
    door towards the entry, pass-throughs to other halls)."""
    return {
        "hall": hkey,
        "rows": tuple(hrows[c] for c in ("row", "axis", "x0_m", "y0_m", "x1_m", "y1_m")),
        "ring": ring,
        "tray": tray,
        "points": points,
    }


def hall_piece(
    hkey: str,
    hrows: dict[str, np.ndarray],
    ring: tuple[float, float, float, float],
    tray: TraySpec,
    points: tuple[tuple[float, float], ...],
) -> HallTrays:
    """Lay one hall's row trays, cross trays and ring (module docstring) on a graph of its own."""
    g = Graph()
    line_of_row: dict[str, int] = {}
    n_lines = 0
    x_lo, x_hi, y_lo, y_hi = ring
    z = tray.height_m
    segs: list[Seg] = [
        Seg("h", y_lo, x_lo, x_hi, "cross", where=hkey),
        Seg("h", y_hi, x_lo, x_hi, "cross", where=hkey),
        Seg("v", x_lo, y_lo, y_hi, "cross", where=hkey),
        Seg("v", x_hi, y_lo, y_hi, "cross", where=hkey),
    ]
    for axis in ("x", "y"):
        sel = hrows["axis"] == axis
        if not sel.any():
            continue
        arows = {c: v[sel] for c, v in hrows.items()}
        if axis == "x":
            lo = np.minimum(arows["x0_m"], arows["x1_m"])
            hi = np.maximum(arows["x0_m"], arows["x1_m"])
            perp = arows["y0_m"]
            ring_lo, ring_hi, cross_orient, line_orient = x_lo, x_hi, "v", "h"
            cross_span = (y_lo, y_hi)
        else:
            lo = np.minimum(arows["y0_m"], arows["y1_m"])
            hi = np.maximum(arows["y0_m"], arows["y1_m"])
            perp = arows["x0_m"]
            ring_lo, ring_hi, cross_orient, line_orient = y_lo, y_hi, "h", "v"
            cross_span = (x_lo, x_hi)
        merged = merge_intervals(list(zip(lo.tolist(), hi.tolist(), strict=True)))
        interior = [(merged[i][1] + merged[i + 1][0]) / 2 for i in range(len(merged) - 1)]
        for c in interior:
            segs.append(Seg(cross_orient, c, cross_span[0], cross_span[1], "cross", where=hkey))
        cross = np.array(sorted([ring_lo, *interior, ring_hi]))
        # each row's tray runs from the cross tray before its first rack to the one after its last
        i_lo = np.searchsorted(cross, lo + TOL_M, side="right") - 1
        i_hi = np.searchsorted(cross, hi - TOL_M, side="left")
        c_lo = cross[np.clip(i_lo, 0, len(cross) - 1)]
        c_hi = cross[np.clip(i_hi, 0, len(cross) - 1)]
        by_perp: dict[float, list[tuple[float, float, str]]] = {}
        for p, a, bb, rid in zip(
            perp.tolist(), c_lo.tolist(), c_hi.tolist(), arows["row"].tolist(), strict=True
        ):
            by_perp.setdefault(round(p, 3), []).append((a, bb, rid))
        for p in sorted(by_perp):
            items = by_perp[p]
            for a, bb in merge_intervals([(a, bb) for a, bb, _ in items]):
                names = sorted(r for ra, rb, r in items if ra >= a - TOL_M and rb <= bb + TOL_M)
                for r in names:
                    line_of_row[r] = n_lines
                segs.append(Seg(line_orient, p, a, bb, "row", line=n_lines, where="+".join(names)))
                n_lines += 1
    for px, py in points:
        for s in segs[:4]:
            along, fixed = (px, py) if s.orient == "h" else (py, px)
            if abs(fixed - s.fixed) <= TOL_M and s.a0 - TOL_M <= along <= s.a1 + TOL_M:
                s.splits.append(along)
    split_and_add(g, segs, hkey, z, tray_spec(tray))
    assert all(g.alive)  # nothing retired in a piece: its edges are exactly g.e
    return HallTrays(
        nx=tuple(g.nx),
        ny=tuple(g.ny),
        nz=tuple(g.nz),
        nhall=tuple(g.nhall),
        nkind=tuple(g.nkind),
        index=tuple(g.index.items()),
        edges=tuple(g.e),
        lines=tuple(line_of_row.items()),
        n_lines=n_lines,
    )


def add_piece(g: Graph, piece: HallTrays, line_of_row: dict[str, int], n_lines: int) -> int:
    """Append a hall's piece to the site's graph (its nodes are all new: their keys name the hall) and
    return the next tray line number."""
    off, e_off = len(g.nx), len(g.e)
    g.nx.extend(piece.nx)
    g.ny.extend(piece.ny)
    g.nz.extend(piece.nz)
    g.nhall.extend(piece.nhall)
    g.nkind.extend(piece.nkind)
    g.index.update((k, i + off) for k, i in piece.index)
    g.e.extend(
        [
            Edge(u + off, v + off, length, kind, hall, where, line + n_lines if line >= 0 else -1, spec)
            for u, v, length, kind, hall, where, line, spec in piece.edges
        ]
    )
    g.seen.update(
        ((min(u, v) + off, max(u, v) + off, kind), e_off + j)
        for j, (u, v, _, kind, *_rest) in enumerate(piece.edges)
    )
    g.alive.extend([True] * len(piece.edges))
    line_of_row.update((r, line + n_lines) for r, line in piece.lines)
    return n_lines + piece.n_lines


def split_and_add(g: Graph, segs: list[Seg], hkey: str, z: float, spec: Spec) -> None:
    """Split the hall's axis-parallel runs at every junction and add them as edges."""
    hs = [s for s in segs if s.orient == "h"]
    vs = [s for s in segs if s.orient == "v"]
    if hs and vs:
        hf = np.array([s.fixed for s in hs])
        ha0 = np.array([s.a0 for s in hs])
        ha1 = np.array([s.a1 for s in hs])
        vf = np.array([s.fixed for s in vs])
        va0 = np.array([s.a0 for s in vs])
        va1 = np.array([s.a1 for s in vs])
        hit = (
            (vf[None, :] >= ha0[:, None] - TOL_M)
            & (vf[None, :] <= ha1[:, None] + TOL_M)
            & (hf[:, None] >= va0[None, :] - TOL_M)
            & (hf[:, None] <= va1[None, :] + TOL_M)
        )
        for i, j in zip(*np.nonzero(hit), strict=True):
            hs[i].splits.append(float(vf[j]))
            vs[j].splits.append(float(hf[i]))
    for s in segs:
        pts = sorted({round(p, 6) for p in [s.a0, s.a1, *s.splits] if s.a0 - TOL_M <= p <= s.a1 + TOL_M})
        merged: list[float] = []
        for p in pts:
            if not merged or p - merged[-1] > TOL_M:
                merged.append(p)
        ids = []
        for k, p in enumerate(merged):
            x, y = (p, s.fixed) if s.orient == "h" else (s.fixed, p)
            ids.append(g.node(x, y, z, hkey, "end" if k in (0, len(merged) - 1) else "junction"))
        for a, b in zip(ids[:-1], ids[1:], strict=True):
            g.edge(a, b, s.kind, hkey, s.where, spec, line=s.line)
