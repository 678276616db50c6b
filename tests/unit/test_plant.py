"""The cable plant (layout/cable/plant.py): channels, trunks, cassettes and the media choice through
patch panels, on hand-computed small cases and on a shipped design."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

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
