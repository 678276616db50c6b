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
