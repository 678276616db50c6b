"""Rack PDUs and PSU cords (issue 29 item 4): hand-computed sizes and counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from layout.model.catalog import Margins
from layout.power.chain import rack_pdus


def test_a_rack_side_takes_the_pdus_that_carry_it_within_the_tap_off_margin(
    design_of: Callable[[str], Any],
) -> None:
    cat = design_of("superpod-4su").inputs.catalog
    m = Margins()  # 80 % continuous, PF 0.95: a 32 A PDU (23.0 kW) may carry 17.48 kW, a 63 A (45.3) 34.43
    assert m.kw("tap_off", 23.0) == 23.0 * 0.8 * 0.95
    pdu, n = rack_pdus(cat, m, np.array([10.2, 17.48, 17.5, 41.2, 132.0, 0.0]))
    assert pdu.tolist() == ["pdu-32a", "pdu-32a", "pdu-63a", "pdu-63a", "pdu-63a", ""]
    # 41.2 kW needs 2 x 63 A (41.2 / 34.43 = 1.2), not 3 x 32 A; an NVL72's 132 kW 4 x 63 A (3.83)
    assert n.tolist() == [1, 1, 1, 2, 4, 0]


def test_the_bom_buys_both_sides_pdus_and_every_psu_cord(design_of: Callable[[str], Any]) -> None:
    d = design_of("superpod-4su")
    bom = d.bom.set_index("part_id")
    feeds = d.chain.feeds
    per_side = feeds.groupby("rack_pdu")["rack_pdus"].sum()
    assert int(bom.at["pdu-63a", "qty"]) == 2 * int(per_side["pdu-63a"])
    assert int(bom.at["pdu-32a", "qty"]) == 2 * int(per_side["pdu-32a"])
    # every DGX H100 has six PSU cords (C19); every switch and node two (C13, the catalog's default)
    dev = d.fabric.devices
    dgx = int((dev["model"] == "dgx-h100").sum())
    assert dgx == 128
    assert int(bom.at["power-cord/c19", "qty"]) == 6 * dgx
    assert int(bom.at["power-cord/c13", "qty"]) == 2 * (len(dev) - dgx)
    assert bom.at["power-cord/c19", "category"] == "power"
    assert bom.at["power-cord/c19", "extended_usd"] == 6 * dgx * 18.0


def test_a_rack_side_takes_enough_pdus_for_an_outlet_per_psu_cord(design_of: Callable[[str], Any]) -> None:
    cat = design_of("superpod-4su").inputs.catalog
    m = Margins()
    # columns c13, c19: a 32 A PDU has 36 + 6 outlets, a 63 A 30 + 12
    cords = np.array([[0, 6], [0, 8], [0, 13], [40, 0], [61, 0], [0, 0]])
    pdu, n = rack_pdus(cat, m, np.full(6, 2.0), cords)
    # 6 C19 fit one 32 A; 8 need two 32 A or one 63 A (fewest units); 13 two 63 A; 40 C13 two 32 A
    # (36 each) against two 63 A (30 each): the smaller on the tie; 61 C13: two 32 A against three 63 A
    assert pdu.tolist() == ["pdu-32a", "pdu-63a", "pdu-63a", "pdu-32a", "pdu-32a", "pdu-32a"]
    assert n.tolist() == [1, 1, 2, 2, 2, 1]


def test_each_side_of_a_dgx_rack_carries_half_its_psu_cords(design_of: Callable[[str], Any]) -> None:
    d = design_of("superpod-4su")
    racks = d.placement.racks
    dgx_per_rack = np.bincount(
        d.placement.device_rack[(d.fabric.devices["model"] == "dgx-h100").to_numpy()], minlength=len(racks)
    )
    four = np.flatnonzero(dgx_per_rack == 4)
    assert len(four) == 32
    # six C19 cords per DGX H100, three to each side: 12 per side, one 63 A PDU's 12 C19 outlets
    assert (d.power.rack_side_cords[four, 1] == 12).all()
    assert (d.chain.feeds["rack_pdus"].to_numpy()[four] == 2).all()  # 40.8 kW / 34.43 kW: two 63 A


def test_a_rack_side_needing_more_pdus_than_it_has_room_for_is_a_violation(
    design_of: Callable[[str], Any],
) -> None:
    from dataclasses import replace

    from layout.power import chain as power_chain
    from layout.power.facility import FacilityInput

    d = design_of("gb200-hall")
    facility = FacilityInput.of(d.inputs)
    assert facility.template_pdu_positions["gb200-nvl72"] == 4
    ok = power_chain.build(facility, d.placement, d.power.rack_kw, d.power.rack_side_cords)
    assert not [v for v in ok.violations if "rack PDUs" in v.message]
    tight = replace(facility, template_pdu_positions={**facility.template_pdu_positions, "gb200-nvl72": 2})
    ch = power_chain.build(tight, d.placement, d.power.rack_kw, d.power.rack_side_cords)
    (v,) = [v for v in ch.violations if "rack PDUs" in v.message]
    # each NVL72 side carries ~132 kW: four 63 A PDUs (34.43 kW each within the margin), room for two
    nvl = int((d.placement.racks["template"] == "gb200-nvl72").sum())
    assert v.kind == "feed" and v.figures["pdus_per_side"] == 4 and v.figures["positions"] == 2
    assert v.figures["racks"] == nvl
