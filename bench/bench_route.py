"""Benchmark the cabling stage on the 100k campus: tray network, bulk routing, media and fill, against a
straightforward per-link shortest-path search (networkx Dijkstra) on the same tray graph.

    .venv/bin/python bench/bench_route.py [--site sites/campus-100k.toml] [--runs 3] [--sample 300]

The baseline graph is the tray graph with every rack inserted as a node on its row tray edge (so both
searches see the same metres); it searches rack to rack for a fixed random sample of the tray-routed
links. Our per-link time is the bulk routing time (rack pairs, Dijkstra from the needed tray nodes,
the best of the ways out of each rack's edge) divided by the number of tray-routed links. Both
distances are compared on the sample.

The times printed are wall times (a loaded machine inflates them). CPU times of the cold runs on the
campus (``time.process_time``, best of 5-9, main d53d03c vs cable-hall 5a2240d, interleaved twice):
``trays.build`` 25-34 -> 18-28 ms (each hall laid as a piece of its own, rack heights per template, the
slots by a packed key), ``route.tray_paths`` 17-19 -> 14 ms (the Dijkstra sources marked, not sorted;
the pair key built in place), ``media.cable`` 0.27-0.34 -> 0.26 s. After a rack-moving edit of one
hall with a warm cache the kept hall pieces leave trays.build ~16 ms (bench_design.py ``--one-hall``).
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from timing import ROOT, timed  # noqa: E402  (bench/timing.py puts the repo on sys.path)

from layout.cable import CableInput, route, stage, trays  # noqa: E402
from layout.design import build_fabric  # noqa: E402
from layout.load import load_site  # noqa: E402
from layout.place import place  # noqa: E402


def networkx_graph(t: trays.Trays) -> object:
    import networkx as nx

    g = nx.Graph()
    e = t.edges
    on_edge: dict[int, list[tuple[float, str]]] = {}
    for r in np.nonzero(t.rack_edge >= 0)[0]:
        on_edge.setdefault(int(t.rack_edge[r]), []).append((float(t.rack_offset_m[r]), f"r{r}"))
    for i, (u, v, length) in enumerate(
        zip(e["u"].tolist(), e["v"].tolist(), e["length_m"].tolist(), strict=True)
    ):
        stops = [(0.0, u), *sorted(on_edge.get(i, [])), (length, v)]
        for (o1, n1), (o2, n2) in itertools.pairwise(stops):
            if not g.has_edge(n1, n2) or g[n1][n2]["weight"] > o2 - o1:
                g.add_edge(n1, n2, weight=o2 - o1)
    return g


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--site", default=str(ROOT / "sites" / "campus-100k.toml"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sample", type=int, default=300)
    args = parser.parse_args()

    inputs = load_site(args.site)
    t_fab, _, fab = timed(lambda: build_fabric(inputs), 1)
    t_pl, _, pl = timed(lambda: place(inputs, fab), 1)  # type: ignore[arg-type]
    print(f"{inputs.stem}: fabric {t_fab:.2f} s, placement {t_pl:.2f} s (context, once)")
    print(f"  {len(pl.racks):,} racks, {len(fab.links):,} links")  # type: ignore[attr-defined]

    best, med, tr = timed(lambda: trays.build(CableInput.of(inputs), pl), args.runs)
    t = tr  # type: ignore[assignment]
    print(
        f"trays.build        best {best:7.3f} s  median {med:7.3f} s   {len(t.nodes):,} nodes, {len(t.edges):,} edges"
    )  # type: ignore[attr-defined]

    # which links go along the trays (as cable() decides), then time the bulk routing alone
    full_best, full_med, cab = timed(lambda: stage.cable(CableInput.of(inputs), fab, pl), args.runs)
    c: stage.Cabling = cab  # type: ignore[assignment]
    tray_links = np.nonzero((c.links["route"] == "tray").to_numpy())[0]
    ra = c.links["rack_a"].to_numpy()[tray_links]
    rb = c.links["rack_b"].to_numpy()[tray_links]
    r_best, r_med, paths = timed(lambda: route.tray_paths(c.trays, ra, rb), args.runs)
    p: route.TrayPaths = paths  # type: ignore[assignment]
    print(
        f"route.tray_paths   best {r_best:7.3f} s  median {r_med:7.3f} s   {len(tray_links):,} tray links, "
        f"{p.n_pairs:,} rack pairs, {len(p.sources):,} Dijkstra sources"
    )
    print(
        f"cable (all)        best {full_best:7.3f} s  median {full_med:7.3f} s   trays + routes + media + fill + modules"
    )

    # the per-link baseline on the same graph
    import networkx as nx

    g = networkx_graph(c.trays)
    rng = np.random.default_rng(0)
    pick = rng.choice(len(tray_links), size=min(args.sample, len(tray_links)), replace=False)
    start = time.perf_counter()
    base = [nx.dijkstra_path_length(g, f"r{ra[i]}", f"r{rb[i]}", weight="weight") for i in pick]
    t_base = time.perf_counter() - start
    ours = p.dist_m[p.pair][pick]
    worst = float(np.max(np.abs(np.asarray(base) - ours)))
    per_base = t_base / len(pick)
    per_ours = r_best / len(tray_links)
    per_full = full_best / len(c.links)
    print(
        f"networkx per link  {per_base * 1e6:9.1f} us  ({len(pick)} links, {t_base:.2f} s; max distance difference {worst:.2e} m)"
    )
    print(f"bulk per link      {per_ours * 1e6:9.3f} us  -> {per_base / per_ours:,.0f}x faster per link")
    print(
        f"whole cable() per link {per_full * 1e6:6.3f} us  -> {per_base / per_full:,.0f}x faster than the baseline's search alone"
    )
    print(f"media: {c.media_counts()}  node optics {c.node_optics():,}")
    gl = c.links[c.links["kind"] == "gpu_leaf"]
    print("gpu_leaf by route and medium:", gl.groupby(["route", "media"], observed=True).size().to_dict())


if __name__ == "__main__":
    main()
