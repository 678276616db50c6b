"""Media by routed length (thresholds from the catalog only), stock lengths, transceivers, switch power
and tray fill, on hand-built sites."""

from __future__ import annotations

import math
from dataclasses import replace

import handbuilt as hb
import numpy as np
import pytest

from layout.cable import CableInput, cable
from layout.cable.media import MediaTable
from layout.cable.trays import RU_M


def test_each_medium_serves_up_to_its_catalog_reach_and_no_further() -> None:
    catalog = hb.site("one-row").catalog
    mt = MediaTable.of(catalog)
    ids = [k for k, m in catalog.media.items() if 400 in m.speeds_gbps]  # 400G links
    reach = np.array([catalog.media[k].reach_m for k in ids])
    got = mt.pick(reach)
    # at its own reach each medium is the cheapest, except DR4: FR4 at 600 m ($4,000 + 600 x $1) beats
    # DR4 at 500 m ($3,500 + 500 x $3)
    assert [mt.ids[i] for i in got] == [k if k != "smf-dr" else "smf-fr" for k in ids]
    beyond = mt.pick(reach + 0.01)
    assert [mt.ids[i] if i >= 0 else None for i in beyond] == [
        "aec",
        "mmf",
        "smf-dr",
        "smf-fr",
        "coherent",
        None,
    ]
    assert [mt.classes[i] for i in mt.pick(np.array([3.0, 7.0, 50.0, 300.0, 2000.0, 2000.01]))] == [
        "dac", "aec", "mmf", "smf", "smf", "coherent",
    ]  # fmt: skip


def test_the_cheapest_medium_at_its_stock_length_wins_not_the_first_listed() -> None:
    catalog = hb.site("one-row").catalog
    mt = MediaTable.of(catalog)
    dr, fr = catalog.media["smf-dr"], catalog.media["smf-fr"]
    # by hand: DR4 $3,500 + $3/m, stock ..., 250, 300, 400, 500 m; FR4 $4,000 + $1/m, stock from 600 m
    assert (dr.price_usd, dr.price_usd_per_m, fr.price_usd, fr.price_usd_per_m) == (3500, 3, 4000, 1)
    lengths = np.array([60.0, 250.0, 300.0, 300.5, 400.0, 480.0, 500.0, 600.5])
    # 300 m: DR 3,500 + 900 = 4,400 < FR 4,000 + 600 = 4,600; 300.5 m: DR 3,500 + 1,200 = 4,700 > 4,600
    assert [mt.ids[i] for i in mt.pick(lengths)] == ["smf-dr"] * 3 + ["smf-fr"] * 5
    price = np.array([mt.link_price_usd(np.array([x]), mt.ids.index(m))[0] for x, m in
                      zip(lengths, ["smf-dr"] * 3 + ["smf-fr"] * 5, strict=True)])  # fmt: skip
    assert price.tolist() == [3680.0, 4250.0, 4400.0, 4600.0, 4600.0, 4600.0, 4600.0, 4800.0]
    # each pick is no dearer than any other medium that reaches and carries 400G
    every = np.stack([np.where(lengths <= mt.reach_m[k], mt.link_price_usd(lengths, k), np.inf)
                      if 400 in mt.speeds[k] else np.full(len(lengths), np.inf) for k in range(len(mt.ids))])  # fmt: skip
    assert np.array_equal(price, every.min(axis=0))


def test_pick_prices_each_distinct_length_once_and_gives_each_link_its_own_pick() -> None:
    # pick prices the distinct (speed, length) pairs only: a long, shuffled array with repeats, NaN,
    # inf, -0.0 and mixed speeds gets, link by link, what that link alone would get
    mt = MediaTable.of(hb.site("one-row").catalog)
    rng = np.random.default_rng(7)
    lengths = np.r_[rng.choice([0.5, 3.0, 7.0, 50.0, 300.0, 300.5, 2000.0, 9e9], 300), np.nan, np.inf, -0.0]
    speeds = rng.choice([1, 400, 800], len(lengths))
    got = mt.pick(lengths, speeds)
    alone = [int(mt.pick(np.array([x]), np.array([sp]))[0]) for x, sp in zip(lengths, speeds, strict=True)]
    assert got.tolist() == alone
    assert got[-3:-1].tolist() == [-1, -1]  # NaN and inf: no medium
    assert (got[lengths == 9e9] == -1).all() and (got[lengths == 3.0] >= 0).any()


def test_thresholds_move_with_the_catalog() -> None:
    inputs = hb.with_media(hb.site("one-row"), ["dac", "aec", "mmf"], dac=2.0, aec=9.0)
    mt = MediaTable.of(inputs.catalog)
    assert [mt.ids[i] for i in mt.pick(np.array([2.0, 2.5, 9.0, 9.5]))] == ["dac", "aec", "aec", "mmf"]
    # price decides, not catalog order: a cheap short medium listed after a dear long one still wins
    inputs = hb.with_media(hb.site("one-row"), ["mmf", "dac"])
    mt = MediaTable.of(inputs.catalog)
    assert [mt.ids[i] for i in mt.pick(np.array([1.0, 40.0]))] == ["dac", "mmf"]
    # equal prices: the one listed first
    cat = inputs.catalog
    same = {k: m.model_copy(update={"price_usd": 100.0, "price_usd_per_m": 0.0, "reach_m": 50.0})
            for k, m in cat.media.items()}  # fmt: skip
    mt = MediaTable.of(cat.model_copy(update={"media": same}))
    assert [mt.ids[i] for i in mt.pick(np.array([1.0, 40.0]))] == ["mmf", "mmf"]


def test_stock_lengths_round_up_and_unstocked_media_round_to_10_m() -> None:
    mt = MediaTable.of(hb.site("one-row").catalog)
    lengths = np.array([0.4, 1.6335, 3.2, 6.5775, 49.2, 50.5, 104.222, 1030.022, 2530.022, 410.0])
    code = mt.pick(lengths)
    stock = mt.stock_length(lengths, code)
    assert [mt.ids[c] for c in code] == [
        "dac",
        "dac",
        "aec",
        "aec",
        "mmf",
        "smf-dr",
        "smf-dr",
        "smf-fr",
        "coherent",
        "smf-fr",
    ]
    assert stock.tolist() == [0.5, 2.0, 4.0, 7.0, 50.0, 60.0, 125.0, 1250.0, 2540.0, 600.0]


def test_links_beyond_every_reach_are_violations() -> None:
    inputs = hb.with_media(hb.site("two-buildings"), ["dac", "aec", "mmf", "smf-dr"])
    racks = hb.racks_table([("B1/H1/R01/K01", 30.3, 10), ("B2/H1/R01/K01", 1049.1, 10)])
    fab = hb.fabric([("s", "server", "hgx-h100"), ("l", "leaf", "qm9700")], [(0, 1, "gpu_leaf")])
    c = cable(CableInput.of(inputs), fab, hb.placement(racks, [0, 1], [20, 20]))
    link = c.links.iloc[0]
    assert link["status"] == "reach" and link["media"] == "" and math.isnan(link["stock_length_m"])
    assert link["length_m"] > 500
    (v,) = [v for v in c.violations if v.kind == "reach"]
    assert v.where == "B1/H1/R01" and v.figures["links"] == 1


def transceiver_site(nic: str) -> object:
    return cable_transceivers(hb.site("one-row"), nic)


def cable_transceivers(inputs: object, nic: str) -> object:
    # K01 holds servers s0..s4 (RU 3) and leaf l1 (RU 40); K03 holds leaf l0 (RU 3). s0..s3 have two
    # links to l0, s4 one; each server has one link to l1 (same rack, copper). K01-K03 by tray:
    # 1.0 + 2 x (2.9 - 3 x 0.04445) + 2.0 = 8.533 m -> multimode.
    racks = hb.racks_table(
        [("B1/H1/R01/K01", 5.25, 5), ("B1/H1/R01/K02", 5.75, 5), ("B1/H1/R01/K03", 6.25, 5)], width_m=0.5
    )
    devs = [(f"s{i}", "server", "hgx-h100") for i in range(5)] + [
        ("l0", "leaf", "qm9700"),
        ("l1", "leaf", "qm9700"),
    ]
    links = [(s, 5, "gpu_leaf") for s in range(4) for _ in range(2)] + [(4, 5, "gpu_leaf")]
    links += [(s, 6, "gpu_leaf") for s in range(5)]
    pl = hb.placement(racks, [0, 0, 0, 0, 0, 2, 0], [3, 3, 3, 3, 3, 3, 40])
    return cable(CableInput.of(inputs), hb.fabric(devs, links, nic=nic), pl)


def test_transceivers_twin_port_on_switches_and_per_nic_module_on_servers() -> None:
    c = transceiver_site("cx7")
    assert c.links["length_m"].iloc[0] == pytest.approx(1.0 + 2 * (2.9 - 3 * RU_M) + 2.0, abs=0.005)
    assert c.links["media"].tolist() == ["mmf"] * 9 + ["dac"] * 5
    m = c.modules.set_index(["device_id", "media"])["modules"]
    assert m[("l0", "mmf")] == 5  # 9 links on twin-port OSFP cages: ceil(9 / 2)
    assert [m[(f"s{i}", "mmf")] for i in range(5)] == [2, 2, 2, 2, 1]  # CX-7: one module per port
    assert c.transceivers() == {"mmf": 5 + 9}
    assert c.node_optics() == 9
    assert "l1" not in c.modules["device_id"].tolist()  # copper only

    c7 = transceiver_site("cedar7")
    m = c7.modules.set_index(["device_id", "media"])["modules"]
    assert [m[(f"s{i}", "mmf")] for i in range(5)] == [1, 1, 1, 1, 1]  # dual-port modules: ceil(n / 2)
    assert c7.node_optics() == 5


def test_switch_power_follows_the_media() -> None:
    c = transceiver_site("cx7")
    qm = hb.site("one-row").catalog.switch["qm9700"]
    # l0: 9 multimode links on 5 twin-port modules (17 W); l1: all passive copper (no power)
    assert c.optical_ports.tolist() == [2, 2, 2, 2, 1, 9, 0]
    assert c.link_optical.tolist() == [True] * 9 + [False] * 5
    assert c.module_w.tolist() == [17.0] * 4 + [8.5, 5 * 17.0, 0.0]  # CX-7: single-port 8.5 W modules
    assert c.switch_power_kw[5] == pytest.approx((qm.power_w_copper + 5 * 17.0) / 1000)
    assert c.switch_power_kw[6] == pytest.approx(qm.power_w_copper / 1000)
    assert np.isnan(c.switch_power_kw[:5]).all()
    # Cedar-7: one twin-port module per server (17 W, even with one of its two ports used); s4's cage
    # holds its 8.5 m link to l0 and its in-rack link to l1, so both are multimode (one medium per
    # cage) and l1 plugs a twin-port module for it
    ced = transceiver_site("cedar7")
    assert ced.links["media"].tolist() == ["mmf"] * 9 + ["dac"] * 4 + ["mmf"]
    assert ced.module_w.tolist() == [17.0] * 5 + [5 * 17.0, 17.0]


def test_module_power_per_medium_and_width() -> None:
    cat = hb.site("one-row").catalog
    # single-port / twin-port / a 1.6T cage of four 400G links (two twin-ports' worth)
    assert [cat.module_power_w("smf-dr", w) for w in (1, 2, 4)] == [8.5, 17.0, 34.0]
    assert [cat.module_power_w("smf-fr", w) for w in (1, 2)] == [10.0, 17.0]
    assert [cat.module_power_w("coherent", w) for w in (1, 2)] == [20.0, 40.0]  # no twin-port: two modules
    assert [cat.module_power_w("dac", w) for w in (1, 2)] == [0.0, 0.0]
    # AEC ends draw power, DAC none: the in-rack jumpers on AEC instead of DAC
    aec = hb.with_media(hb.site("one-row"), ["aec", "mmf"])
    c = cable_transceivers(aec, "cx7")
    assert c.links["media"].tolist() == ["mmf"] * 9 + ["aec"] * 5
    assert c.module_w.tolist() == [17.0 + 6.0] * 4 + [8.5 + 6.0, 5 * 17.0, 5 * 6.0]
    # FR4 everywhere: single-port 10 W on the servers, twin-port 17 W on the leaves
    fr = cable_transceivers(hb.with_media(hb.site("one-row"), ["smf-fr"]), "cx7")
    assert fr.module_w.tolist() == [3 * 10.0] * 4 + [2 * 10.0, 5 * 17.0, 3 * 17.0]


def test_a_switch_never_draws_more_than_its_catalog_maximum() -> None:
    inputs = hb.site("one-row")
    sw = inputs.catalog.switch
    low = {**sw, "qm9700": sw["qm9700"].model_copy(update={"power_w_optics": 800.0})}
    c = cable_transceivers(replace(inputs, catalog=inputs.catalog.model_copy(update={"switch": low})), "cx7")
    assert c.module_w[5] == 5 * 17.0  # 747 + 85 W of modules, capped at the 800 W maximum
    assert c.switch_power_kw[5] == pytest.approx(0.8) and c.switch_power_kw[6] == pytest.approx(0.747)


def narrow_tray_site(n_links: int) -> object:
    def narrow(data: dict) -> None:
        data["building"][0]["hall"][0]["tray"] = {
            "height_m": 2.9,
            "width_mm": 60,
            "depth_mm": 21,
            "fill_limit": 0.5,
        }

    racks = hb.racks_table(
        [("B1/H1/R01/K01", 5.25, 5), ("B1/H1/R01/K02", 5.75, 5), ("B1/H1/R01/K03", 6.25, 5)], width_m=0.5
    )
    devs = [("s0", "server", "hgx-h100"), ("l0", "leaf", "qm9700")]
    pl = hb.placement(racks, [0, 2], [10, 40])
    return cable(
        CableInput.of(hb.site_edited("one-row", narrow)), hb.fabric(devs, [(0, 1, "gpu_leaf")] * n_links), pl
    )


def test_overfull_tray_segment_is_a_violation_with_its_location() -> None:
    # 6.5775 m links -> AEC, 9.4 mm: 69.4 mm2 each; the 60 x 21 mm tray at 50 % takes 630 mm2
    area = math.pi * 4.7**2
    ok = narrow_tray_site(9)  # 624.6 mm2
    assert not [v for v in ok.violations if v.kind == "tray_fill"]
    c = narrow_tray_site(10)  # 694.0 mm2
    (v,) = [v for v in c.violations if v.kind == "tray_fill"]
    assert v.where == "B1/H1/R01"
    assert v.figures["cables"] == 10
    assert v.figures["peak_area_mm2"] == pytest.approx(10 * area, abs=0.01)
    assert v.figures["capacity_mm2"] == pytest.approx(630.0)
    assert (v.figures["x_m"], v.figures["y_m"]) == pytest.approx((5.5, 5.0))  # between K01 and K02
    row = c.edge_fill[c.edge_fill["kind"] == "row"].iloc[0]
    assert row["cables_aec"] == 10 and row["fill"] == pytest.approx(10 * area / (60 * 21), abs=1e-6)
    assert c.edge_fill.loc[c.edge_fill["kind"] != "row", "cables"].eq(0).all()


def test_fill_counts_cables_on_the_stretches_they_use() -> None:
    # s0 in R01/K01 has 3 links to the next rack (jumpers, no tray) and 2 to R02/K01 three metres north
    # (tray: west along R01 to the ring, up the ring, east along R02)
    racks = hb.racks_table([("B1/H1/R01/K01", 5.3, 5), ("B1/H1/R01/K02", 5.9, 5), ("B1/H1/R02/K01", 5.3, 8)])
    devs = [("s0", "server", "hgx-h100"), ("l0", "leaf", "qm9700"), ("l1", "leaf", "qm9700")]
    links = [(0, 1, "gpu_leaf")] * 3 + [(0, 2, "gpu_leaf")] * 2
    pl = hb.placement(racks, [0, 1, 2], [3, 3, 3])
    c = cable(CableInput.of(hb.site("one-row")), hb.fabric(devs, links), pl)
    assert c.links["route"].tolist() == ["adjacent"] * 3 + ["tray"] * 2
    f = c.edge_fill
    rows = f[f["kind"] == "row"].set_index("where")
    assert rows.loc["B1/H1/R01", "cables"] == 2 and rows.loc["B1/H1/R02", "cables"] == 2
    ring = f[(f["kind"] == "cross") & (f["cables"] > 0)]
    assert ring["length_m"].tolist() == [3.0] and ring["cables"].tolist() == [2]  # west ring side, y 5..8
    # the two links between rows run through the row-end panels on one trunk: 2 x MPO-12 = 24 fibres, a
    # 24-fibre trunk of 3.8 mm (catalog [plant]) in the tray, not two 3 mm cords
    assert c.plant.trunks[["links", "fibres"]].values.tolist() == [[2, 24]]
    assert rows.loc["B1/H1/R01", "peak_area_mm2"] == pytest.approx(math.pi * 1.9**2, abs=0.01)
    # without the plant: the two cords
    cords = cable(replace(CableInput.of(hb.site("one-row")), panels="none"), hb.fabric(devs, links), pl)
    area = math.pi * (hb.site("one-row").catalog.media[cords.links["media"].iloc[3]].diameter_mm / 2) ** 2
    row1 = cords.edge_fill[cords.edge_fill["kind"] == "row"].set_index("where").loc["B1/H1/R01"]
    assert row1["peak_area_mm2"] == pytest.approx(2 * area, abs=0.01)


def test_summary_counts_and_cables_to_buy_add_up() -> None:
    c = transceiver_site("cx7")
    assert c.media_counts() == {"dac": 5, "aec": 0, "mmf": 9, "smf": 0, "coherent": 0, "utp": 0}
    assert int(c.cables["count"].sum()) == len(c.links)
    lengths = c.cable_length_m()
    assert lengths["total"] == pytest.approx(float(c.links["stock_length_m"].sum()))
    assert lengths["by_media"] == {"dac": 5 * 2.0, "mmf": 9 * 10.0}  # in-rack: 37 RU + 0.3 m = 1.945 m
    assert lengths["max"] == 10.0


def test_management_links_get_the_media_of_their_speed() -> None:
    """1 GbE out-of-band links take Cat6A up to 100 m and 1000BASE-LX beyond; never 400G optics."""
    catalog = hb.site("one-row").catalog
    mt = MediaTable.of(catalog)
    got = mt.pick(np.array([2.0, 2.0, 99.0, 101.0, 60.0]), np.array([400, 1, 1, 1, 400]))
    assert [mt.ids[i] for i in got] == ["dac", "cat6a", "cat6a", "sfp-lx", "smf-dr"]
    assert mt.pick(np.array([5.0]), np.array([25]))[0] == -1  # no medium carries 25G in the catalog


def test_copper_share_counts_the_gpu_fabrics_links_with_a_medium() -> None:
    """The one copper share (summary.json, PDF, compare), on seven hand-made links: of the four backend
    links with a medium (DAC, AEC, MMF, SMF) two are copper -> 50 %; the unrouted backend link (no
    medium) and the frontend DAC and management UTP links do not count."""
    import pandas as pd

    from layout.cable.stage import backend_copper, copper_share_pct

    links = pd.DataFrame(
        {
            "network": ["backend"] * 5 + ["frontend", "oob"],
            "media_class": pd.Categorical(["dac", "aec", "mmf", "smf", "", "dac", "utp"]),
        }
    )
    assert backend_copper(links) == (2, 4)
    # as the cabling gives them, both categorical (counted by codes): the same counts
    assert backend_copper(links.assign(network=pd.Categorical(links["network"]))) == (2, 4)
    assert copper_share_pct(2, 4) == 50.0
    assert copper_share_pct(*backend_copper(links.iloc[[0, 2, 3]])) == 33.33  # 1 of 3, to 2 decimals
    assert copper_share_pct(*backend_copper(links.iloc[[5, 6]])) == 0.0  # no backend link at all
