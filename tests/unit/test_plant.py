"""The cable plant (layout/cable/plant.py): channels, trunks, cassettes and the media choice through
patch panels, on hand-computed small cases and on a shipped design."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from layout.cable import cabinets as cablib
from layout.cable import plant as plantlib
from layout.cable.media import MediaTable
from layout.load import DEFAULT_TEMPLATES_DIR, load_catalog
from layout.model import Catalog


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(DEFAULT_TEMPLATES_DIR)


def _geo(n: int, cord_m: float = 4.0, trunk_m: float = 40.0, splices: int = 0) -> plantlib.Geometry:
    """n plant links between the panels of racks 0 and 1."""
    return plantlib.Geometry(
        candidate=np.ones(n, bool),
        panel_a=np.zeros(n, np.int64),
        panel_b=np.ones(n, np.int64),
        cord_a_m=np.full(n, cord_m),
        cord_b_m=np.full(n, cord_m),
        trunk_m=np.full(n, trunk_m),
        splices=np.full(n, splices, np.int8),
    )


def _build(
    catalog: Catalog, medium: str, n: int, **geo: Any
) -> tuple[plantlib.Plant, np.ndarray, np.ndarray]:
    mt = MediaTable.of(catalog)
    code = np.full(n, mt.ids.index(medium), np.int64)
    racks = pd.DataFrame({"rack_id": ["B1/H1/R01/K01", "B1/H1/R02/K01"], "row": ["B1/H1/R01", "B1/H1/R02"]})
    devices = pd.DataFrame({"device_id": [f"d{i}" for i in range(2 * n)]})
    links = pd.DataFrame({"a": np.arange(n), "b": np.arange(n) + n, "rack_a": np.zeros(n, np.int64)})
    stock = np.full(n, 50.0)
    return plantlib.build("row", _geo(n, **geo), code, stock, mt, catalog, racks, devices, links)


def test_loss_through_two_panels_by_hand(catalog: Catalog) -> None:
    # one multimode SR4 link: 5 m cord + 40 m trunk + 5 m cord (cords at their stock length: 4 m -> 5 m)
    plant, structured, fibre_m = _build(catalog, "mmf", 1)
    ch = plant.channels.iloc[0]
    assert bool(structured[0]) and fibre_m[0] == 50.0
    assert (int(ch["mpo"]), int(ch["lc"]), int(ch["connections"])) == (4, 0, 4)
    # REFERENCE.md's worked example: 4 x 0.35 + 0.050 km x 3 dB/km = 1.55 dB
    assert ch["loss_db"] == pytest.approx(1.55)
    assert ch["budget_db"] == 1.9 and not ch["over"]
    # the same link as a cord: its two module ends only, 50 m of fibre
    mpo, lc = plantlib.connections(np.array([plantlib.CONNECTORS.index("mpo")]), 0)
    cord = plantlib.loss_db(catalog, mpo, lc, np.zeros(1), np.array([50.0]), np.array([3.0]))
    assert cord[0] == pytest.approx(2 * 0.35 + 0.15)


def test_lc_link_between_buildings_by_hand(catalog: Catalog) -> None:
    # duplex-LC FR4 through two cassettes (LC front + MPO rear each) and a splice at each building entrance
    plant, _, _ = _build(catalog, "smf-fr", 1, cord_m=4.0, trunk_m=800.0, splices=2)
    ch = plant.channels.iloc[0]
    assert (int(ch["mpo"]), int(ch["lc"]), int(ch["splices"])) == (2, 4, 2)
    # 2 x 0.35 + 4 x 0.25 + 2 x 0.3 + 0.810 km x 0.4 = 0.7 + 1.0 + 0.6 + 0.324 = 2.624 dB
    assert ch["length_m"] == 810.0 and ch["loss_db"] == pytest.approx(2.624)


def test_trunk_fibre_counts_from_stock_sizes(catalog: Catalog) -> None:
    # 5 DR4 links x 12 fibres (MPO-12) = 60 -> one 96-fibre trunk (stock 12/24/48/96/144/288/864)
    plant, _, _ = _build(catalog, "smf-dr", 5)
    assert plant.trunks[["links", "fibres_used", "fibres"]].values.tolist() == [[5, 60, 96]]
    # 80 links = 960 fibres: one full 864 (72 links) and 8 links (96 fibres) on a 96
    plant, _, _ = _build(catalog, "smf-dr", 80)
    t = plant.trunks
    assert t[["links", "fibres_used", "fibres"]].values.tolist() == [[72, 864, 864], [8, 96, 96]]
    assert set(t["polarity"]) == {"B"} and set(t["gender"]) == {"male-male (female cords)"}
    # every link's fibres on a trunk, every trunk on two panels: 2 x (864 + 96) fibres at 288 a panel
    assert int(plant.panels["fibres"].sum()) == 2 * (864 + 96)
    assert plant.panels["panels"].tolist() == [4, 4]  # ceil(960 / 288)
    assert int(plant.cords["count"].sum()) == 160  # two patch cords a link


def test_cassettes_of_lc_links(catalog: Catalog) -> None:
    # 10 FR4 links x 2 fibres = 20 -> a 24-fibre trunk, ceil(20 / 12) = 2 cassettes at each end
    plant, _, _ = _build(catalog, "smf-fr", 10)
    t = plant.trunks.iloc[0]
    assert (int(t["fibres_used"]), int(t["fibres"]), int(t["cassettes"])) == (20, 24, 2)
    assert t["gender"].startswith("female-female")
    assert plant.panels["cassettes"].tolist() == [2, 2]


def test_fits_as_a_cord_not_through_panels(catalog: Catalog) -> None:
    mt = MediaTable.of(catalog)
    mp = plantlib.MediaPlant.of(catalog, mt.ids)
    # a 45 m link: multimode as a cord; 55 m of channel through the row-end panels: past 50 m, so DR4
    assert mt.ids[int(mt.pick(np.array([45.0]), 400)[0])] == "mmf"
    through = plantlib.plant_media(mt, mp, catalog)
    assert mt.ids[int(through.pick(np.array([55.0]), 400)[0])] == "smf-dr"
    # by budget alone: a catalog whose SR4 channel allows 1.5 dB; 40 m through two panels is
    # 4 x 0.35 + 0.04 x 3 = 1.52 dB > 1.5, so DR4, while 40 m as a cord (0.82 dB) stays multimode
    tight = catalog.model_copy(
        update={
            "media": {**catalog.media, "mmf": catalog.media["mmf"].model_copy(update={"channel_db": 1.5})}
        }
    )
    mp2 = plantlib.MediaPlant.of(tight, mt.ids)
    assert mt.ids[int(plantlib.plant_media(mt, mp2, tight).pick(np.array([40.0]), 400)[0])] == "smf-dr"
    assert (
        mt.ids[int(plantlib.plant_media(mt, mp2, tight).pick(np.array([33.0]), 400)[0])] == "mmf"
    )  # 1.499 dB


def test_panel_racks_at_row_ends() -> None:
    racks = pd.DataFrame({"row": ["R1", "R1", "R2", "R1", "R2"], "pos": [2, 1, 5, 3, 4]})
    assert plantlib.panel_racks(racks, "row").tolist() == [1, 1, 4, 1, 4]
    assert plantlib.panel_racks(racks, "rack").tolist() == [0, 1, 2, 3, 4]
    assert plantlib.panel_racks(racks, "none").tolist() == [-1] * 5


def test_design_channels_and_trunks(design_of: Any) -> None:
    d = design_of("superpod-4su")
    c = d.cabling
    links, plant = c.links, c.plant
    optical = links["media_class"].isin(["mmf", "smf", "coherent"]).to_numpy()
    # every optical link has a channel (every shipped optical medium has a fibre)
    assert sorted(plant.channels["link"].tolist()) == np.flatnonzero(optical).tolist()
    st = plant.channels[plant.channels["structured"]]
    assert len(st) > 0
    # plant links run between rows, never within one
    rows = d.placement.racks["row"].to_numpy()
    li = st["link"].to_numpy()
    assert (rows[links["rack_a"].to_numpy()[li]] != rows[links["rack_b"].to_numpy()[li]]).all()
    # the trunks carry every plant link's fibres, each within its stock size
    mt = MediaTable.of(d.inputs.catalog)
    per = np.array([d.inputs.catalog.media[m].fibres for m in mt.ids])
    code = np.array([mt.ids.index(str(m)) for m in links["media"].to_numpy()[li]])
    assert int(plant.trunks["fibres_used"].sum()) == int(per[code].sum())
    assert (plant.trunks["fibres_used"] <= plant.trunks["fibres"]).all()
    # a channel over budget is a violation, and none is over without one
    over = int(plant.channels["over"].sum())
    assert sum(v.figures.get("links", 0) for v in d.violations if v.kind == "channel") == over
    # a plant link's medium reaches its channel: cords + trunk, and its length is that channel
    reach = np.array([d.inputs.catalog.media[m].reach_m for m in mt.ids])
    assert (links["length_m"].to_numpy()[li] <= reach[code] + 1e-9).all()
    # the figures and the BOM show the same plant
    f = d.figures
    assert f.value("trunks") == len(plant.trunks) and f.value("patch_panels") == int(
        plant.panels["panels"].sum()
    )
    assert f.value("worst_channel_db") == pytest.approx(float(plant.channels["loss_db"].max()), abs=1e-3)
    bom = d.bom
    trunks = bom[bom["part_id"].str.startswith("trunk/") & ~bom["part_id"].str.endswith("/m")]
    assert int(trunks["qty"].sum()) == len(plant.trunks)
    cords = bom[bom["part_id"].str.startswith("cord/")]
    assert int(cords["qty"].sum()) == 2 * len(st)


def test_labour_by_hand(catalog: Catalog) -> None:
    from types import SimpleNamespace

    from layout.cable import labour

    # 60 point-to-point multimode cables with 10 m of tray run in hall B1/H1, 5 copper jumpers in B1/H2
    n = 65
    links = pd.DataFrame(
        {
            "media": pd.Categorical(["mmf"] * 60 + ["dac"] * 5),
            "media_class": pd.Categorical(["mmf"] * 60 + ["dac"] * 5),
            "rack_a": np.r_[np.zeros(60, np.int64), np.ones(5, np.int64)],
            "tray_m": np.r_[np.full(60, 10.0), np.zeros(5)],
        }
    )
    racks = pd.DataFrame({"hall": ["B1/H1", "B1/H2"]})
    cabling = SimpleNamespace(links=links, plant=plantlib.Plant.empty())
    by = labour.hours_by_hall(catalog, cabling, racks)  # type: ignore[arg-type]
    # optical: 10 m x 0.05 + dress 1.5 + 2 plugs x 1.0 + 2 labels x 0.3 + test 3.0 = 7.6 min; copper 4.1
    assert by["hours"].tolist() == [round(60 * 7.6 / 60, 1), round(5 * 4.1 / 60, 1)]
    assert by["cables"].tolist() == [60, 5] and n == 65
    s = labour.summary(catalog, cabling, racks)  # type: ignore[arg-type]
    assert s["days"] == round(s["hours"] / (10 * 8.0), 1) and s["assumptions"]["test_min"] == 3.0


def test_design_labour_counts_the_plant(design_of: Any) -> None:
    from layout.cable import labour

    d = design_of("superpod-4su")
    lab = d.inputs.catalog.labour
    by = labour.hours_by_hall(d.inputs.catalog, d.cabling, d.placement.racks)
    plant = d.cabling.plant
    t = plant.trunks
    trunk_h = (len(t) * (lab.trunk_min + 2 * lab.label_min) + lab.trunk_min_per_m * t["length_m"].sum()) / 60
    panel_h = (
        lab.panel_min * plant.panels["panels"].sum() + lab.cassette_min * plant.panels["cassettes"].sum()
    ) / 60
    # one hall: its hours hold every trunk and panel, and more (the cables)
    assert len(by) == 1 and float(by["hours"].iloc[0]) > trunk_h + panel_h
    assert d.figures.value("install_hours") == pytest.approx(float(by["hours"].sum()))


def test_rack_free_ru_by_hand() -> None:
    # a 48U rack of 4 x 8U DGX and a 1U leaf: 48 - 33 = 15 U free; an NVL72 rack (one 48U entry): 0;
    # a device in no rack (-1) takes nothing
    racks = pd.DataFrame({"template": ["dgx", "nvl", "dgx"]})
    free = plantlib.rack_free_ru(
        racks, {"dgx": 48, "nvl": 48}, np.array([0, 0, 0, 0, 0, 1, -1]), np.array([8, 8, 8, 8, 1, 48, 8])
    )
    assert free.tolist() == [15, 0, 48]


def test_panels_beyond_free_u_go_into_fibre_cabinets(catalog: Catalog) -> None:
    # 80 DR4 links: 960 fibres on two trunks (864 + 96), ceil(960 / 288) = 4 panels at each location
    mt = MediaTable.of(catalog)
    n = 80
    code = np.full(n, mt.ids.index("smf-dr"), np.int64)
    racks = pd.DataFrame({"rack_id": ["B1/H1/R01/K01", "B1/H1/R02/K01"], "row": ["B1/H1/R01", "B1/H1/R02"]})
    devices = pd.DataFrame({"device_id": [f"d{i}" for i in range(2 * n)]})
    links = pd.DataFrame({"a": np.arange(n), "b": np.arange(n) + n, "rack_a": np.zeros(n, np.int64)})
    stock = np.full(n, 50.0)

    def build(panels_at: str, free: list[int], cabinet_ru: int) -> plantlib.Plant:
        cat = catalog.model_copy(
            update={"plant": catalog.plant.model_copy(update={"cabinet_ru": cabinet_ru})}
        )
        return plantlib.build(
            panels_at, _geo(n), code, stock, mt, cat, racks, devices, links, np.array(free)
        )[0]

    # rack 0 has 1 U free: 1 panel in it, 3 in cabinets of 2 panels -> 2 cabinets; rack 1 holds all 4
    p = build("row", [1, 9], 2).panels
    assert p[["rack", "panels", "free_ru", "in_rack", "cabinets"]].values.tolist() == [
        [0, 4, 1, 1, 2],
        [1, 4, 9, 4, 0],
    ]
    assert build("row", [1, 9], 2).summary()["fibre_cabinets"] == 2
    # the 2 cabinets on the free floor beside rack 0 (its row continues from x = 0.3): the farthest
    # cabinet's centre is 2 x 0.6 m along the row from the rack's
    cat2 = catalog.model_copy(update={"plant": catalog.plant.model_copy(update={"cabinet_ru": 2})})
    free = pd.DataFrame([{"hall": "B1/H1", "row": "B1/H1/R01", "place": 0, "axis": "x", "lo_m": 0.3,
                          "hi_m": 6.3, "front_m": 10.0, "front_sign": 1, "band_m": 1.2, "room": 10,
                          "rack_lo": True, "rack_hi": False}])  # fmt: skip
    placed = racks.assign(hall="B1/H1", x_m=[0.0, 50.0], y_m=[9.4, 9.4])
    cab = plantlib.cabinet_run_of(
        "row", _geo(n), code, mt, cat2, placed, np.array([1, 9]), cablib.positions(free, 0.6, 1.2)
    )
    assert cab.run_m.tolist() == pytest.approx([1.2, 0.0])
    assert cab.table["cabinet_id"].tolist() == ["B1/H1/R01/K01/FC01", "B1/H1/R01/K01/FC02"]
    # panels in their own racks: no cabinets, and rack 0's three panels short are a violation
    plant = build("rack", [1, 9], 2)
    assert plant.panels["cabinets"].tolist() == [0, 0]
    (v,) = plant.violations
    assert v.kind == "panels" and "needs 4 1U panels and has 1 U free" in v.message


def test_cords_lengthened_by_the_cabinets() -> None:
    geo = _geo(2)
    geo = plantlib.Geometry(
        geo.candidate,
        np.array([0, 1]),
        np.array([1, 0]),
        geo.cord_a_m,
        geo.cord_b_m,
        geo.trunk_m,
        geo.splices,
    )
    out = plantlib.with_cord_extra(geo, np.array([1.2, 0.0]))
    assert out.cord_a_m.tolist() == [5.2, 4.0] and out.cord_b_m.tolist() == [4.0, 5.2]
    assert plantlib.with_cord_extra(geo, np.zeros(2)) is geo


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall", "seed002-32k"])
def test_shipped_panels_fit_their_racks_and_cabinets(design_of: Any, stem: str) -> None:
    d = design_of(stem)
    cat = d.inputs.catalog
    p = d.cabling.plant.panels
    assert len(p)
    # every panel has a place: its rack's free U, else a fibre cabinet; nothing in U a rack lacks
    assert (p["in_rack"] <= p["free_ru"]).all()
    assert (p["in_rack"] + p["cabinets"] * cat.plant.cabinet_ru >= p["panels"]).all()
    assert ((p["cabinets"] - 1) * cat.plant.cabinet_ru < p["panels"] - p["in_rack"]).all()
    # the free U, independently: the template's height less the catalog heights of the rack's devices
    racks, dev = d.placement.racks, d.fabric.devices
    rk = np.asarray(d.placement.device_rack)
    for r in p["rack"].tolist()[:5]:
        used = sum(cat.device(m).height_ru for m in dev["model"][rk == r])
        assert int(p.loc[p["rack"] == r, "free_ru"].iloc[0]) == max(
            d.inputs.templates[racks["template"].iat[r]].height_ru - used, 0
        )
    # every cord of a location with cabinets was made long enough to reach its farthest cabinet
    far = d.cabling.plant.cabinets.groupby("rack")["run_m"].max()
    assert (p.set_index("rack")["cord_extra_m"].reindex(far.index) >= far - 1e-9).all()
    ch = d.cabling.plant.channels
    st = ch[ch["structured"].to_numpy()]
    extra = dict(zip(p["rack"], p["cord_extra_m"], strict=True))
    need = st["panel_a"].map(extra).to_numpy(float)
    assert (st["cord_a_m"].to_numpy(float) >= need).all()
    assert not [v for v in d.violations if v.kind == "panels"]
