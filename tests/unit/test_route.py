"""Routing on hand-built sites: lengths computed by hand to the centimetre before rounding.

Conventions used in the hand computations (layout.cable.route): port height = RU x 0.04445 m; a tray route is
drop (tray height - port height) at each end + the run along the trays + 2.0 m slack; an in-rack
jumper is the vertical distance + 0.3 m; an adjacent-rack jumper the rack centre distance + vertical
distance + 0.6 m.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import handbuilt as hb
import networkx as nx
import numpy as np
import pytest

from layout.cable import CableInput, cable, route
from layout.cable.trays import build

RU = 0.04445
TRAY_Z = 2.9


def one_row(device_ru: list[int], device_rack: list[int]) -> object:
    """Three 0.5 m racks in one row at y = 5: K01 at x 5.25, K02 at 5.75, K03 at 6.25."""
    racks = hb.racks_table(
        [("B1/H1/R01/K01", 5.25, 5), ("B1/H1/R01/K02", 5.75, 5), ("B1/H1/R01/K03", 6.25, 5)], width_m=0.5
    )
    return hb.placement(racks, device_rack, device_ru)


SRV_LEAF = [("srv-0", "server", "dgx-h100"), ("leaf-0", "leaf", "qm9700"), ("srv-1", "server", "dgx-h100")]


def test_two_racks_one_metre_apart_in_one_row() -> None:
    # server at RU 10 in K01, leaf at RU 40 in K03: centres 1.0 m apart, not neighbours -> tray
    c = cable(
        CableInput.of(hb.site("one-row")),
        hb.fabric(SRV_LEAF[:2], [(0, 1, "gpu_leaf")]),
        one_row([10, 40], [0, 2]),
    )
    link = c.links.iloc[0]
    by_hand = 1.0 + (TRAY_Z - 10 * RU) + (TRAY_Z - 40 * RU) + 2.0  # = 6.5775 m
    assert link["route"] == "tray"
    assert link["tray_m"] == pytest.approx(1.0, abs=0.005)
    assert link["length_m"] == pytest.approx(by_hand, abs=0.005)
    assert (link["media"], link["stock_length_m"]) == ("aec", 7.0)  # 3 m < 6.58 m <= 7 m


def test_neighbouring_racks_and_same_rack_use_copper_jumpers() -> None:
    fab = hb.fabric(SRV_LEAF, [(0, 1, "gpu_leaf"), (2, 1, "gpu_leaf")])
    # srv-0 RU 10 in K02, leaf RU 40 in K02 (same rack), srv-1 RU 10 in K01 (next rack)
    c = cable(CableInput.of(hb.site("one-row")), fab, one_row([10, 40, 10], [1, 1, 0]))
    same, adjacent = c.links.iloc[0], c.links.iloc[1]
    assert same["route"] == "rack"
    assert same["length_m"] == pytest.approx(30 * RU + 0.3, abs=0.005)  # 1.6335 m
    # one breakout cable with the adjacent link (both in one twin-port leaf cage): the longer leg's length
    assert (same["media"], same["stock_length_m"]) == ("dac", 2.5)
    assert adjacent["route"] == "adjacent"
    assert adjacent["length_m"] == pytest.approx(0.5 + 30 * RU + 0.6, abs=0.005)  # 2.4335 m
    assert (adjacent["media"], adjacent["stock_length_m"]) == ("dac", 2.5)
    assert adjacent["tray_m"] == 0.0


def test_neighbouring_racks_go_by_tray_when_the_jumper_would_be_optical() -> None:
    # a catalog with DAC up to 2 m and no AEC: the 2.4335 m jumper would need fibre, so it is routed
    inputs = hb.with_media(hb.site("one-row"), ["dac", "mmf", "smf-dr", "smf-fr", "coherent"], dac=2.0)
    fab = hb.fabric(SRV_LEAF, [(2, 1, "gpu_leaf")])
    c = cable(CableInput.of(inputs), fab, one_row([10, 40, 10], [1, 1, 0]))
    link = c.links.iloc[0]
    assert link["route"] == "tray"
    assert link["length_m"] == pytest.approx(0.5 + (TRAY_Z - 10 * RU) + (TRAY_Z - 40 * RU) + 2.0, abs=0.005)
    assert link["media"] == "mmf"


def test_two_halls_40_m_apart_meet_at_the_entry() -> None:
    # H1 rack K02 at x 20.9, H2 rack K01 at x 79.1, both rows at y = 10. Ring of each hall: 0.6 m
    # around the racks' footprint (H1: x 19.4..21.8, y 8.8..11.2). Doors at the ring corners nearest
    # the entry (50, -10): (21.8, 8.8) and (78.2, 8.8). Run: 0.9 along the row to the ring, 1.2 down
    # the ring side to the door, trunk 18.8 south + 28.2 east to above the entry, the same back to
    # H2's door, 1.2 and 0.9 to the rack.
    racks = hb.racks_table(
        [
            ("B1/H1/R01/K01", 20.3, 10),
            ("B1/H1/R01/K02", 20.9, 10),
            ("B1/H2/R01/K01", 79.1, 10),
            ("B1/H2/R01/K02", 79.7, 10),
        ]
    )
    c = cable(
        _cords(CableInput.of(hb.site("two-halls"))),
        hb.fabric(SRV_LEAF[:2], [(0, 1, "gpu_leaf")]),
        hb.placement(racks, [1, 2], [20, 20]),
    )
    run = 0.9 + 1.2 + 18.8 + 28.2 + 28.2 + 18.8 + 1.2 + 0.9  # 98.2 m
    link = c.links.iloc[0]
    assert link["tray_m"] == pytest.approx(run, abs=0.005)
    assert link["length_m"] == pytest.approx(run + 2 * (TRAY_Z - 20 * RU) + 2.0, abs=0.005)  # 104.222 m
    assert (link["media"], link["media_class"], link["stock_length_m"]) == ("smf-dr", "smf", 125.0)


def buildings_placement() -> object:
    racks = hb.racks_table(
        [
            ("B1/H1/R01/K01", 30.3, 10),
            ("B1/H1/R01/K02", 30.9, 10),
            ("B2/H1/R01/K01", 1049.1, 10),
            ("B2/H1/R01/K02", 1049.7, 10),
        ]
    )
    return hb.placement(racks, [1, 2], [20, 20])


def test_two_buildings_1_km_apart_take_single_mode_fr() -> None:
    # B1 rack at x 30.9: 0.9 to the ring (x 31.8) = the door, trunk 8.2 to above the entry (40, 10),
    # riser 2.9 down, duct 1000 m, then the same in B2 mirrored.
    c = cable(
        _cords(CableInput.of(hb.site("two-buildings"))),
        hb.fabric(SRV_LEAF[:2], [(0, 1, "gpu_leaf")]),
        buildings_placement(),
    )
    run = 0.9 + 8.2 + 2.9 + 1000.0 + 2.9 + 8.2 + 0.9  # 1024.0 m
    link = c.links.iloc[0]
    assert link["tray_m"] == pytest.approx(run, abs=0.005)
    assert link["length_m"] == pytest.approx(run + 2 * (TRAY_Z - 20 * RU) + 2.0, abs=0.005)  # 1030.022 m
    assert (link["media"], link["stock_length_m"]) == ("smf-fr", 1250.0)


def test_buildings_2_5_km_apart_need_coherent_spliced_to_10_m() -> None:
    def move_b2(data: dict) -> None:
        b2 = data["building"][1]
        b2["footprint"] = [[x + 1500, y] for x, y in b2["footprint"]]
        b2["entry"] = [2540, 10]
        b2["hall"][0]["polygon"] = [[x + 1500, y] for x, y in b2["hall"][0]["polygon"]]

    racks = hb.racks_table(
        [
            ("B1/H1/R01/K01", 30.3, 10),
            ("B1/H1/R01/K02", 30.9, 10),
            ("B2/H1/R01/K01", 2549.1, 10),
            ("B2/H1/R01/K02", 2549.7, 10),
        ]
    )
    c = cable(
        _cords(CableInput.of(hb.site_edited("two-buildings", move_b2))),
        hb.fabric(SRV_LEAF[:2], [(0, 1, "gpu_leaf")]),
        hb.placement(racks, [1, 2], [20, 20]),
    )
    length = 0.9 + 8.2 + 2.9 + 2500.0 + 2.9 + 8.2 + 0.9 + 2 * (TRAY_Z - 20 * RU) + 2.0  # 2530.022 m
    link = c.links.iloc[0]
    assert link["length_m"] == pytest.approx(length, abs=0.005)
    assert (link["media"], link["media_class"], link["stock_length_m"]) == ("coherent", "coherent", 2540.0)


def test_duct_follows_its_path() -> None:
    def detour(data: dict) -> None:
        data["duct"][0]["path"] = [[40, 10], [40, -20], [1040, -20], [1040, 10]]

    c = cable(
        CableInput.of(hb.site_edited("two-buildings", detour)),
        hb.fabric(SRV_LEAF[:2], [(0, 1, "gpu_leaf")]),
        buildings_placement(),
    )
    assert c.links["tray_m"].iloc[0] == pytest.approx(
        0.9 + 8.2 + 2.9 + 30 + 1000 + 30 + 2.9 + 8.2 + 0.9, abs=0.005
    )


def test_block_that_cuts_the_only_path_gives_no_path_and_tray_add_restores_it() -> None:
    fab = hb.fabric(SRV_LEAF, [(0, 1, "gpu_leaf"), (2, 1, "gpu_leaf")])
    pl = one_row([10, 40, 10], [0, 2, 1])  # srv-0 in K01, leaf in K03, srv-1 in K02

    def block(data: dict) -> None:
        data["tray_block"] = [{"hall": "B1/H1", "line": [[5.5, 0], [5.5, 10]]}]

    c = cable(CableInput.of(hb.site_edited("one-row", block)), fab, pl)
    far, near = c.links.iloc[0], c.links.iloc[1]
    assert far["status"] == "no_path" and far["route"] == ""
    assert np.isnan(far["length_m"]) and far["media"] == ""
    v = [x for x in c.violations if x.kind == "no_path"]
    assert len(v) == 1 and v[0].where == "B1/H1/R01" and "tray_block" in v[0].message
    assert v[0].figures["links"] == 1
    assert near["status"] == "ok" and near["route"] == "adjacent"  # K02-K03 jumper needs no tray

    def block_and_bypass(data: dict) -> None:
        block(data)
        # round the cut ring's bottom: from its corners (4.4, 3.8) and (7.1, 3.8) via y = 1
        data["tray_add"] = [{"hall": "B1/H1", "line": [[4.3, 3.7], [4.4, 1.0], [7.1, 1.0], [7.2, 3.7]]}]

    c = cable(CableInput.of(hb.site_edited("one-row", block_and_bypass)), fab, pl)
    far = c.links.iloc[0]
    assert far["status"] == "ok"
    # K01 -> row end 0.85, ring side down 1.2, bypass 2.8 + 2.7 + 2.8, ring side up 1.2, to K03 0.85
    assert far["tray_m"] == pytest.approx(0.85 + 1.2 + 2.8 + 2.7 + 2.8 + 1.2 + 0.85, abs=0.005)
    assert not [x for x in c.violations if x.kind == "no_path"]


def test_every_link_has_a_route_or_a_violation_naming_it() -> None:
    # a mix: a placed tray link, an in-rack jumper, an unplaced device, a blocked row
    racks = hb.racks_table(
        [
            ("B1/H1/R01/K01", 5.3, 5),
            ("B1/H1/R01/K02", 5.9, 5),
            ("B1/H1/R01/K03", 6.5, 5),
            ("B1/H1/R02/K01", 5.3, 8),
            ("B1/H1/R02/K02", 5.9, 8),
        ]
    )
    devs = [
        ("s0", "server", "dgx-h100"),
        ("s1", "server", "dgx-h100"),
        ("s2", "server", "dgx-h100"),
        ("l0", "leaf", "qm9700"),
        ("l1", "leaf", "qm9700"),
    ]
    links = [
        (0, 3, "gpu_leaf"),
        (1, 3, "gpu_leaf"),
        (2, 3, "gpu_leaf"),
        (0, 4, "gpu_leaf"),
        (1, 4, "gpu_leaf"),
    ]
    pl = hb.placement(racks, [0, 2, -1, 2, 4], [10, 10, 0, 40, 40])

    def block_row2(data: dict) -> None:
        data["tray_block"] = [{"hall": "B1/H1", "line": [[4.0, 8.0], [8.0, 8.0]]}]  # along row R02's tray

    c = cable(CableInput.of(hb.site_edited("one-row", block_row2)), hb.fabric(devs, links), pl)
    st = c.links["status"].tolist()
    assert st == ["ok", "ok", "unplaced", "no_tray", "no_tray"]
    assert c.links["route"].tolist()[:2] == ["tray", "rack"]
    counted = {}
    for v in c.violations:
        if v.kind in ("no_path", "reach"):
            counted[v.figures.get("status", "unplaced")] = (
                counted.get(v.figures.get("status", "unplaced"), 0) + v.figures["links"]
            )
    assert counted == {"unplaced": 1, "no_tray": 2}
    routed = c.links["status"] == "ok"
    assert c.links.loc[routed, "length_m"].notna().all() and (c.links.loc[routed, "media"] != "").all()
    assert c.links.loc[~routed, "media"].eq("").all()


def _grid_site_placement(seed: int) -> tuple[object, object, np.ndarray]:
    """Four rows in a 28 x 20 m hall, two segments each with a cross aisle between, random racks."""
    rng = np.random.default_rng(seed)
    specs = []
    for r, y in enumerate((5.0, 7.4, 11.0, 13.4)):
        for seg, x0 in enumerate((4.0, 14.0)):
            ks = sorted(rng.choice(12, size=int(rng.integers(2, 6)), replace=False))
            for k in ks:
                specs.append((f"B1/H1/R{r * 2 + seg + 1:02d}/K{k + 1:02d}", x0 + 0.3 + 0.6 * k, y))
    racks = hb.racks_table(specs)
    inputs = hb.site_edited(
        "one-row",
        lambda d: (
            d["building"][0].update(footprint=[[0, 0], [28, 0], [28, 20], [0, 20]], entry=[0, 10])
            or d["building"][0]["hall"][0].update(polygon=[[0, 0], [28, 0], [28, 20], [0, 20]])
        ),
    )
    pl = hb.placement(racks, [], [])
    return inputs, pl, np.arange(len(racks))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pairwise_distances_match_networkx_with_racks_as_nodes(seed: int) -> None:
    inputs, pl, rack_ids = _grid_site_placement(seed)
    trays = build(CableInput.of(inputs), pl)
    pairs = np.array(list(itertools.combinations(rack_ids, 2)))
    paths = route.tray_paths(trays, pairs[:, 0], pairs[:, 1])
    ours = paths.dist_m[paths.pair]
    # the same trays as an explicit graph: every rack splits its edge
    g = nx.Graph()
    e = trays.edges
    on_edge: dict[int, list[tuple[float, str]]] = {}
    for r in rack_ids:
        on_edge.setdefault(int(trays.rack_edge[r]), []).append((float(trays.rack_offset_m[r]), f"r{r}"))
    for i in range(len(e)):
        u, v, length = int(e["u"].iat[i]), int(e["v"].iat[i]), float(e["length_m"].iat[i])
        stops = [(0.0, u), *sorted(on_edge.get(i, [])), (length, v)]
        for (o1, n1), (o2, n2) in itertools.pairwise(stops):
            w = o2 - o1
            if not g.has_edge(n1, n2) or g[n1][n2]["weight"] > w:
                g.add_edge(n1, n2, weight=w)
    for (a, b), d in zip(pairs, ours, strict=True):
        assert d == pytest.approx(nx.dijkstra_path_length(g, f"r{a}", f"r{b}"), abs=1e-6)


def _cords(inp: CableInput) -> CableInput:
    """The cabling input without the cable plant: every link one cord, its routed length (the plant's
    channels through patch panels: tests/unit/test_plant.py)."""
    return replace(inp, panels="none")
