"""Power, energy and floor checks on the small site (tests/conftest.py), against hand-computed figures.

One SU of 32 DGX H100 on QM9700 (catalog: 10.2 kW per server; QM9700 747 W all copper, 1,500 W at
most, 64 ports on 32 twin-port cages; multimode modules 8.5 W single-port, 17 W twin-port), 8 leaves and
4 spines, PUE 1.25, $0.10/kWh.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from layout import fabric, place
from layout.load import Inputs
from layout.power import loads as power

Make = Callable[..., Inputs]


def run(inputs: Inputs) -> tuple[Any, place.Placement, power.PowerReport]:
    fab = fabric.build(inputs.site.cluster, inputs.catalog, place.fabric_servers_per_rack(inputs))
    p = place.place(inputs, fab)
    return fab, p, power.check(inputs, fab, p)


def hall(**kw: Any) -> dict[str, Any]:
    return {"building": {0: {"hall": {0: kw}}}}


def by_role(fab: Any, values: np.ndarray, role: str) -> set[float]:
    return {round(float(v), 6) for v in values[(fab.devices["role"] == role).to_numpy()]}


def test_rail_device_power_by_hand(make_inputs: Make) -> None:
    fab, p, r = run(make_inputs())
    # server: 10.2 kW + 8 node-side modules x 8.5 W; every leaf and spine port is optical (leaves the
    # rack): 64 links on 32 twin-port modules, 747 + 32 x 17 = 1,291 W
    assert by_role(fab, r.device_kw, "server") == {10.268}
    assert by_role(fab, r.device_kw, "leaf") == {1.291}
    assert by_role(fab, r.device_kw, "spine") == {1.291}
    it_kw = 32 * 10.268 + 12 * 1.291
    assert r.it_mw == pytest.approx(it_kw / 1000)
    assert r.rack_kw.tolist() == pytest.approx(
        [4 * 10.268] * 4 + [8 * 1.291] + [4 * 10.268] * 4 + [4 * 1.291]
    )
    assert r.max_rack_kw == pytest.approx(41.072)
    assert r.facility_mw == pytest.approx(it_kw / 1000 * 1.25)
    assert r.annual_twh == pytest.approx(it_kw * 1.25 * 8760 / 1e9)
    assert r.annual_cost_usd == pytest.approx(it_kw * 1.25 * 8760 * 0.10)
    assert r.violations == ()


def test_middle_of_rack_is_copper_inside_the_rack(make_inputs: Make) -> None:
    fab, p, r = run(make_inputs({"cluster": {"design": "mor"}}))
    # no node-side optics; the leaf: 32 copper ports down (DAC: no power), 32 optical up on 16 twin-port
    # modules = 747 + 16 x 17 W
    assert by_role(fab, r.device_kw, "server") == {10.2}
    assert by_role(fab, r.device_kw, "leaf") == {1.019}
    gpu = (p.racks["kind"] == "gpu").to_numpy()
    assert r.rack_kw[gpu] == pytest.approx(np.full(8, 4 * 10.2 + 1.019))


def test_media_flags_from_the_cabling_step(make_inputs: Make) -> None:
    inputs = make_inputs()
    fab, p, _ = run(inputs)
    copper = power.check(inputs, fab, p, link_optical=np.zeros(len(fab.links), bool))
    assert by_role(fab, copper.device_kw, "server") == {10.2}
    assert by_role(fab, copper.device_kw, "leaf") == {0.747}
    given = np.arange(len(fab.devices), dtype=float)
    assert power.check(inputs, fab, p, device_kw=given).it_mw == pytest.approx(given.sum() / 1000)


@pytest.mark.parametrize(("nic", "server_kw"), [("bf3", 10.2 + 0.4 + 0.068), ("cedar7", 10.2 + 4 * 0.017)])
def test_nic_options(make_inputs: Make, nic: str, server_kw: float) -> None:
    # BlueField-3: +50 W per backend port; Cedar-7: one twin-port module (17 W) per two ports
    fab, _, r = run(make_inputs({"cluster": {"nic": nic}}))
    assert by_role(fab, r.device_kw, "server") == {round(server_kw, 6)}


def test_sum_of_devices_is_the_it_power(make_inputs: Make) -> None:
    fab, p, r = run(make_inputs({"cluster": {"gpus": 512, "networks": {"oob": True, "frontend": True, "storage": True}},
                                 **hall(polygon=[[0, 0], [20, 0], [20, 12], [0, 12]])}))  # fmt: skip
    assert (p.device_rack >= 0).all()
    assert r.rack_kw.sum() == pytest.approx(r.device_kw.sum())
    assert r.it_mw == pytest.approx(r.device_kw.sum() / 1000)
    assert r.halls["it_kw"].sum() == pytest.approx(r.device_kw.sum())
    assert r.rows["it_kw"].sum() == pytest.approx(r.device_kw.sum())


# ----------------------------------------------------------------------------------- violations
def test_hall_over_its_mw(make_inputs: Make) -> None:
    _, _, r = run(make_inputs(hall(it_mw=0.2)))
    (v,) = r.violations
    assert (v.kind, v.where) == ("hall_mw", "B1/H1")
    assert v.figures["it_mw"] == round(0.344068, 3) and v.figures["limit_mw"] == 0.2
    assert "0.34 MW" in v.message and "0.2 MW" in v.message and v.suggestion


def test_building_and_site_over_budget(make_inputs: Make) -> None:
    _, _, r = run(make_inputs({"site": {"utility_mw": 0.4}, "building": {0: {"it_mw": 0.3}}}))
    kinds = {v.kind: v for v in r.violations}
    assert set(kinds) == {"building_mw", "site_mw"}
    assert kinds["building_mw"].where == "B1"
    # facility 0.344068 x 1.25 = 0.430 MW > 0.4 MW utility
    assert kinds["site_mw"].figures["facility_mw"] == round(0.344068 * 1.25, 3)


def test_rack_over_the_hall_limit(make_inputs: Make) -> None:
    _, p, r = run(make_inputs({"cluster": {"rack_low_density": None}, **hall(max_rack_kw=40.0)}))
    (v,) = r.violations
    assert v.kind == "rack_kw" and v.figures["racks"] == 8
    assert v.figures["max_kw"] == pytest.approx(41.07, abs=0.01)
    assert v.where == p.racks["rack_id"].iat[0]


def test_gb200_on_a_raised_floor(inputs_of: Callable[[str], Inputs]) -> None:
    gb = inputs_of("gb200-hall")
    b = gb.site.building[0]
    weak = b.model_copy(update={"hall": [b.hall[0].model_copy(update={"floor_load_kg_m2": 340.0})]})
    inputs = Inputs(gb.site.model_copy(update={"building": [weak]}), gb.catalog, gb.templates, gb.path)
    _, p, r = run(inputs)
    (v,) = [v for v in r.violations if v.kind == "floor_load"]
    heavy = r.rack_floor_kg_m2 > 340.0
    assert (
        heavy[(p.racks["template"] == "gb200-nvl72").to_numpy()]
    ).all()  # every NVL72 (and leaf racks of 8 x 31 kg SN5600)
    assert v.figures["racks"] == int(heavy.sum()) >= 64
    assert p.racks["template"].iat[list(p.racks["rack_id"]).index(v.where)] == "gb200-nvl72"
    assert v.figures["max_kg_m2"] == pytest.approx(1360 / 0.72, abs=0.1)  # ~1,889 kg/m2 over 600 x 1200 mm
    assert v.figures["limit_kg_m2"] == 340.0


def test_point_and_tile_loads_by_hand(make_inputs: Make) -> None:
    # a GPU rack: 160 kg + 4 x 130.45 kg = 681.8 kg on 4 feet (170.45 kg each) over the 2 whole 0.6 m
    # tiles under its 600 x 1200 mm footprint (340.9 kg each); a leaf rack 180 + 8 x 14.5 = 296 kg on
    # 4 feet (74 kg) over 1 x 2 tiles (148 kg each)
    _, p, r = run(make_inputs(hall()))
    gpu = (p.racks["kind"] == "gpu").to_numpy()
    assert r.rack_weight_kg[gpu] == pytest.approx(np.full(8, 160 + 4 * 130.45))
    assert r.rack_foot_kg[gpu] == pytest.approx(np.full(8, (160 + 4 * 130.45) / 4))
    assert r.rack_tile_kg[gpu] == pytest.approx(np.full(8, (160 + 4 * 130.45) / 2))
    assert r.rack_tile_kg[4] == pytest.approx(296 / 2)
    assert r.violations == ()
    # a floor rated 150 kg per foot: every GPU rack is over it; 300 kg per tile: every GPU rack too
    _, p, r = run(make_inputs(hall(point_load_kg=150.0, tile_load_kg=300.0)))
    foot, tile = (v for v in r.violations if v.kind == "floor_load")
    assert foot.figures == {"racks": 8, "max_kg_per_foot": 170.4, "limit_kg_per_foot": 150.0}
    assert "170 kg on each of its 4 feet" in foot.message and "(point_load_kg)" in foot.message
    assert tile.figures == {"racks": 8, "max_kg_per_tile": 340.9, "limit_kg_per_tile": 300.0}
    assert "on each of the 2 0.6 m tile(s) under it" in tile.message
    # on 1.2 m tiles the GPU rack stands on 1 whole tile: 681.8 kg on it
    _, _, r = run(make_inputs(hall(tile_m=1.2, tile_load_kg=600.0)))
    (tile,) = r.violations
    assert tile.figures["max_kg_per_tile"] == pytest.approx(681.8)
    # a slab: neither is checked
    _, _, r = run(make_inputs(hall(floor="slab", point_load_kg=150.0, tile_load_kg=300.0)))
    assert r.violations == ()


def test_an_nvl72_puts_340_kg_on_a_foot_and_680_kg_on_a_tile(design_of: Callable[[str], Any]) -> None:
    """The issue's figures: a GB200 NVL72 of ~1,360 kg on 4 levellers and 2 tiles."""
    d = design_of("gb200-hall")
    nvl = (d.placement.racks["template"] == "gb200-nvl72").to_numpy()
    assert d.power.rack_weight_kg[nvl] == pytest.approx(np.full(int(nvl.sum()), 1360.0))
    assert d.power.rack_foot_kg[nvl].max() == pytest.approx(340.0)
    assert d.power.rack_tile_kg[nvl].max() == pytest.approx(680.0)


def test_liquid_rack_in_an_air_hall(inputs_of: Callable[[str], Inputs]) -> None:
    gb = inputs_of("gb200-hall")
    b = gb.site.building[0]
    air = b.model_copy(update={"hall": [b.hall[0].model_copy(update={"cooling": "air"})]})
    inputs = Inputs(gb.site.model_copy(update={"building": [air]}), gb.catalog, gb.templates, gb.path)
    _, _, r = run(inputs)
    # the rack's cooling type, and the hall's heat: 8.9 MW in 2,016 m2 of air hall (2 kW/m2: 4 MW)
    v, heat = [v for v in r.violations if v.kind == "cooling"]
    assert v.figures == {"racks": 64, "template": "gb200-nvl72", "needs": "liquid", "hall_cooling": "air"}
    assert (heat.where, heat.figures["cooling_mw"]) == ("B1/H1", pytest.approx(4.032))


def test_floor_load_by_hand(make_inputs: Make) -> None:
    _, p, r = run(make_inputs(hall(floor_load_kg_m2=340.0)))
    # 4 DGX H100 (130.45 kg) in a 160 kg rack over 0.6 x 1.2 m; a leaf rack: 180 kg + 8 x 14.5 kg over 0.8 x 1.2 m
    gpu = (p.racks["kind"] == "gpu").to_numpy()
    assert r.rack_floor_kg_m2[gpu] == pytest.approx(np.full(8, (160 + 4 * 130.45) / 0.72))
    assert r.rack_floor_kg_m2[4] == pytest.approx((180 + 8 * 14.5) / 0.96)
    (v,) = r.violations
    assert v.kind == "floor_load" and v.figures["racks"] == 8


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["campus-100k", "seed002-32k", "superpod-4su", "gb200-hall"])
def test_no_shipped_switch_draws_more_than_its_catalog_maximum(
    design_of: Callable[[str], Any], stem: str
) -> None:
    d = design_of(stem)
    cat = d.inputs.catalog
    dev = d.fabric.devices
    models = dev["model"].to_numpy().astype(str)
    switch = ~dev["role"].isin(["server", "storage_node", "cpu_node"]).to_numpy()
    top = np.array([cat.switch[m].power_w_optics if m in cat.switch else np.nan for m in models]) / 1000
    base = np.array([cat.switch[m].power_w_copper if m in cat.switch else np.nan for m in models]) / 1000
    kw = d.power.device_kw
    assert (kw[switch] <= top[switch] + 1e-12).all()
    assert (kw[switch] >= base[switch] - 1e-12).all()
    # the design's power is the cabling's: copper base + its modules (capped), servers + their modules
    assert np.allclose(kw[switch], np.minimum(base + d.cabling.module_w / 1000, top)[switch])


def test_network_racks_are_packed_within_their_pdu() -> None:
    """Four 5 kW switches into a template with room for eight and a 12 kW PDU: two per rack (10 kW), by
    hand; without the draws, all four in one rack."""
    from layout.model import RackTemplate
    from layout.place.groups import pack

    tpl = RackTemplate.model_validate(
        {
            "id": "net", "name": "net", "kind": "network", "width_mm": 800, "depth_mm": 1200, "height_ru": 48,
            "cooling": "air", "weight_kg_empty": 100, "pdu_kw": 12.0,
            "slot": [{"device": "switch", "ru": [4, 8, 12, 16, 20, 24, 28, 32]}],
        }
    )  # fmt: skip
    devices, heights = np.arange(4), np.full(4, 4)
    racks = pack(tpl, devices, heights, "f", kw=np.full(4, 5.0))
    assert [d.tolist() for d, _ in racks] == [[0, 1], [2, 3]]
    assert [d.tolist() for d, _ in pack(tpl, devices, heights, "f")] == [[0, 1, 2, 3]]


def test_a_rack_over_its_pdu_is_a_rack_kw_violation(make_inputs: Make) -> None:
    """A GPU rack template whose PDU is below what its servers draw (the loader only checks the slots
    it must fill) is a rack_kw violation naming the rack, its kW and the PDU's."""
    from layout import design

    inputs = make_inputs()
    tpl = inputs.templates[inputs.site.cluster.rack]
    small = tpl.model_copy(update={"pdu_kw": 1.0})
    inputs.templates[tpl.id] = small
    d = design.run(inputs)
    pdu = [v for v in d.violations if v.kind == "rack_kw" and "PDU" in v.message]
    assert pdu and pdu[0].figures["pdu_kw"] == 1.0 and pdu[0].figures["max_kw"] > 1.0
