"""Trace: one rack's cables, each end on its port, and the tray route each takes, as arrays the map draws.

No Textual here: tests and the headless session call :func:`trace_rack` directly. The routes are worked
out again for the traced rack's links only with the design's own rule (layout.cable.route.tray_paths: the best
of the four ways out of the two racks' row tray edges, or the direct run along a shared edge), so the
polyline drawn is the path whose length the design priced; a rack of a few hundred links costs one small
Dijkstra from its two edge ends. Port names are those of the ports table (layout.cable.ports: ``7/2`` = cage 7,
port 2; ``be1/1`` a server's backend cage), and :func:`cable_ids` gives the ports table's TIA-606 label.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from layout.cable.ports import port_labels
from layout.cable.route import tray_paths
from layout.tui.results import Result

# what the map draws a traced cable's route in, by media class (the rest: "other")
TRACE_CLASSES = ("dac", "aec", "mmf", "smf", "coherent", "utp", "other")


@dataclass(frozen=True)
class Trace:
    """The links with an end in rack ``rack_no`` (or the chosen ``links`` of it) and their routes.

    Per link (``links``: rows of ``cabling.links``, ascending): ``near_device``/``near_port`` (the end in
    this rack; for a link with both ends here, the a end), ``far_rack`` (its rack number, -1 if not
    placed), ``far_rack_id``, ``far_device``, ``far_port``, ``kind``, ``media``, ``media_class`` ("" for
    none), ``route`` (``rack``, ``adjacent``, ``tray`` or ""), ``length_m`` (NaN without a route).
    ``segments``: the drawn route, one row per straight piece and media class: ``x0_m, y0_m, x1_m, y1_m``
    and ``cls`` (index into TRACE_CLASSES); pieces shared by several links appear once per class.
    """

    rack_no: int
    rack_id: str
    links: np.ndarray
    near_device: np.ndarray
    near_port: np.ndarray
    far_rack: np.ndarray
    far_rack_id: np.ndarray
    far_device: np.ndarray
    far_port: np.ndarray
    kind: np.ndarray
    media: np.ndarray
    media_class: np.ndarray
    route: np.ndarray
    length_m: np.ndarray
    segments: pd.DataFrame

    def __len__(self) -> int:
        return len(self.links)

    @property
    def far_racks(self) -> np.ndarray:
        """The other racks the traced links reach (rack numbers, ascending, without this one)."""
        far = np.unique(self.far_rack)
        return far[(far >= 0) & (far != self.rack_no)]

    @cached_property
    def groups(self) -> pd.DataFrame:
        """The links by far rack, medium and kind: ``far_rack_id, kind, media_class, links, min_m, max_m``,
        the farthest first (what the inspector lists)."""
        if not len(self):
            return pd.DataFrame(columns=["far_rack_id", "kind", "media_class", "links", "min_m", "max_m"])
        frame = pd.DataFrame(
            {
                "far_rack_id": self.far_rack_id,
                "kind": self.kind,
                "media_class": np.where(self.media_class == "", "none", self.media_class),
                "length_m": self.length_m,
            }
        )
        g = frame.groupby(["far_rack_id", "kind", "media_class"], sort=True)["length_m"]
        out = g.agg(links="size", min_m="min", max_m="max").reset_index()
        return out.sort_values(
            ["max_m", "far_rack_id"], ascending=[False, True], kind="stable", na_position="last"
        )


def end_ports(result: Result, links: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The a end's and the b end's port name (``7/2``, ``be1/1``; "" without a port map) of ``links``."""
    pm = result.design.cabling.ports
    if pm is None or not len(links):
        empty = np.full(len(links), "", dtype=object)
        return empty, empty.copy()
    n = len(pm.code)
    ends = np.r_[links, links + n]
    names = port_labels(pm.group[ends], pm.cage[ends], pm.port[ends], pm.per_cage[ends])
    return names[: len(links)], names[len(links) :]


def cable_ids(result: Result, links: np.ndarray) -> list[str]:
    """The ports table's ``cable_id`` of each of ``links`` (layout.export.tables.ports_table: ``SITE.``,
    then each end as building.hall.row.rack ``-U`` RU ``:`` port with dots, ``/`` between the ends; an
    end whose device is not placed is named by its device id)."""
    d = result.design
    links = np.asarray(links, np.int64)
    table = d.cabling.links
    rack_ids = d.placement.racks["rack_id"].to_numpy()
    dev_ids = result.device_arrays[2]
    ru = np.asarray(d.placement.device_ru, np.int64)
    port_a, port_b = end_ports(result, links)
    code = d.inputs.stem.upper()
    dev_a, dev_b = table["a"].to_numpy()[links], table["b"].to_numpy()[links]
    out = []
    for j, i in enumerate(links.tolist()):
        ends = []
        for dev, rack, port in (
            (int(dev_a[j]), int(result.link_rack_a[i]), port_a[j]),
            (int(dev_b[j]), int(result.link_rack_b[i]), port_b[j]),
        ):
            where = str(rack_ids[rack]).replace("/", ".") if rack >= 0 else str(dev_ids[dev])
            ends.append(f"{where}-U{max(int(ru[dev]), 0):02d}:{str(port).replace('/', '.')}")
        out.append(f"{code}." + "/".join(ends))
    return out


def trace_rack(result: Result, rack_no: int, links: np.ndarray | None = None) -> Trace:
    """The trace of rack ``rack_no``: all its links, or only ``links`` (rows of the links table)."""
    d = result.design
    table = d.cabling.links
    idx = result.rack_links(rack_no) if links is None else np.asarray(links, np.int64)
    ra, rb = result.link_rack_a[idx], result.link_rack_b[idx]
    near_is_a = ra == rack_no
    dev_ids = result.device_arrays[2]
    rack_ids = d.placement.racks["rack_id"].to_numpy()

    def column(name: str) -> np.ndarray:  # only these links' cells, as str (never the whole column)
        return table[name].iloc[idx].astype(str).to_numpy()

    a, b = table["a"].to_numpy()[idx].astype(np.int64), table["b"].to_numpy()[idx].astype(np.int64)
    port_a, port_b = end_ports(result, idx)
    far = np.where(near_is_a, rb, ra)
    media_class = column("media_class")
    route = column("route")
    return Trace(
        rack_no=rack_no,
        rack_id=str(rack_ids[rack_no]),
        links=idx,
        near_device=dev_ids[np.where(near_is_a, a, b)],
        near_port=np.where(near_is_a, port_a, port_b),
        far_rack=far,
        far_rack_id=np.where(
            far >= 0, rack_ids[np.clip(far, 0, None)].astype(str) if len(rack_ids) else "", "-"
        ),
        far_device=dev_ids[np.where(near_is_a, b, a)],
        far_port=np.where(near_is_a, port_b, port_a),
        kind=column("kind"),
        media=column("media"),
        media_class=media_class,
        route=route,
        length_m=result.link_length_m[idx],
        segments=route_segments(result, ra, rb, route, media_class),
    )


def _class_codes(media_class: np.ndarray) -> np.ndarray:
    known = {c: i for i, c in enumerate(TRACE_CLASSES)}
    other = len(TRACE_CLASSES) - 1
    return np.array([known.get(c, other) for c in media_class.tolist()], dtype=np.int64)


def route_segments(
    result: Result, rack_a: np.ndarray, rack_b: np.ndarray, route: np.ndarray, media_class: np.ndarray
) -> pd.DataFrame:
    """The straight pieces (x0_m, y0_m, x1_m, y1_m, cls) of the routes of links between ``rack_a`` and
    ``rack_b``: tray links along their tray path (rack, its edge's end node, the node path, the far
    edge's end node, the far rack), adjacent jumpers rack centre to rack centre; in-rack jumpers and
    links without a route draw nothing."""
    d = result.design
    trays = d.cabling.trays
    racks = d.placement.racks
    cls = _class_codes(media_class)
    pieces: list[np.ndarray] = []
    rx, ry = racks["x_m"].to_numpy(float), racks["y_m"].to_numpy(float)
    adj = route == "adjacent"
    if adj.any():
        key = np.unique(np.column_stack([rack_a[adj], rack_b[adj], cls[adj]]), axis=0)
        pieces.append(
            np.column_stack([rx[key[:, 0]], ry[key[:, 0]], rx[key[:, 1]], ry[key[:, 1]], key[:, 2]])
        )
    on_tray = route == "tray"
    if on_tray.any():
        # one route per rack pair and class (the links of a pair share it)
        key = np.unique(np.column_stack([rack_a[on_tray], rack_b[on_tray], cls[on_tray]]), axis=0)
        paths = tray_paths(trays, key[:, 0], key[:, 1])
        pair_cls = key[:, 2]
        nx, ny = trays.nodes["x_m"].to_numpy(float), trays.nodes["y_m"].to_numpy(float)
        eu, ev = trays.edges["u"].to_numpy(np.int64), trays.edges["v"].to_numpy(np.int64)
        elen = trays.edges["length_m"].to_numpy(float)

        def on_edge(rack: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """Where each rack hangs off its row tray edge (its point along the edge)."""
            e = trays.rack_edge[rack]
            t = np.clip(trays.rack_offset_m[rack] / np.maximum(elen[e], 1e-9), 0.0, 1.0)
            return nx[eu[e]] + t * (nx[ev[e]] - nx[eu[e]]), ny[eu[e]] + t * (ny[ev[e]] - ny[eu[e]])

        # each (pair, class) row takes its rack pair's route; pairs without a path draw nothing
        p_of = np.flatnonzero(np.isfinite(paths.dist_m[paths.pair]))
        pair_idx = paths.pair[p_of]
        sx, sy = on_edge(paths.src_rack[pair_idx])
        tx, ty = on_edge(paths.dst_rack[pair_idx])
        c = pair_cls[p_of]
        direct = paths.src_node[pair_idx] < 0
        pieces.append(np.column_stack([sx[direct], sy[direct], tx[direct], ty[direct], c[direct]]))
        via = ~direct
        sn, dn = paths.src_node[pair_idx[via]], paths.dst_node[pair_idx[via]]
        pieces.append(np.column_stack([sx[via], sy[via], nx[sn], ny[sn], c[via]]))
        pieces.append(np.column_stack([nx[dn], ny[dn], tx[via], ty[via], c[via]]))
        row = np.full(trays.n_nodes, -1, dtype=np.int64)
        row[paths.sources] = np.arange(len(paths.sources))
        srow, cur, target, cc = row[sn], dn, sn, c[via]
        for _ in range(trays.n_nodes):  # walk every path back to its source at once
            go = cur != target
            srow, cur, target, cc = srow[go], cur[go], target[go], cc[go]
            if not len(cur):
                break
            prev = paths.pred[srow, cur].astype(np.int64)
            pieces.append(np.column_stack([nx[prev], ny[prev], nx[cur], ny[cur], cc]))
            cur = prev
    if not pieces:
        return pd.DataFrame(
            {k: np.zeros(0) for k in ("x0_m", "y0_m", "x1_m", "y1_m")} | {"cls": np.zeros(0, np.int64)}
        )
    allp = np.unique(np.concatenate(pieces), axis=0)
    allp = allp[np.hypot(allp[:, 2] - allp[:, 0], allp[:, 3] - allp[:, 1]) > 0]
    return pd.DataFrame(
        {
            "x0_m": allp[:, 0],
            "y0_m": allp[:, 1],
            "x1_m": allp[:, 2],
            "y1_m": allp[:, 3],
            "cls": allp[:, 4].astype(np.int64),
        }
    )
