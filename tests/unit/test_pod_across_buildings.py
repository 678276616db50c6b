"""A pod that no building holds whole is laid across buildings by whole SUs (layout/place/assign.py
Placer._split), each building within its power; the links between buildings are counted
(layout/crossings.py) against the cut bound, here by hand."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pandas as pd
from test_hall_edits import inputs_of
from test_zone_layouts import THREE

from layout import crossings, design
from layout.memo import Memo

# THREE's buildings (B1 with two 0.4 MW halls, B2 and B3 with one) at 0.5 MW each, and the 768 GPUs as
# one non-blocking fabric: 3 SUs of 32 DGX H100 (~343 kW each, spines' share included), 8 leaves per
# SU and 16 spines, each leaf with 2 links to every spine. No building takes two SUs (~690 kW > 500 kW).
ONE_POD: dict[str, Any] = copy.deepcopy(THREE)
ONE_POD["cluster"] = {**THREE["cluster"], "pod_gpus": 0}
for _b in ONE_POD["building"]:
    _b["it_mw"] = 0.5


def _design() -> design.Design:
    return design.run(inputs_of(ONE_POD))


def test_a_pod_larger_than_any_building_is_laid_across_them_by_whole_sus() -> None:
    d = _design()
    assert d.violations == ()
    assert d.placement.racks_missing == 0
    b = crossings.device_building(d.fabric, d.placement)
    dev = d.fabric.devices
    server = (dev["role"] == "server").to_numpy()
    su = dev["su"].to_numpy()
    # every SU in one building, one SU per building (B1's 0.5 MW takes one, the second would not fit)
    per_su = pd.DataFrame({"su": su[server], "b": b[server]}).groupby("su")["b"].nunique()
    assert (per_su == 1).all()
    assert sorted(pd.Series(b[server]).value_counts().tolist()) == [32, 32, 32]
    # each SU's leaves stand in its servers' building
    leaf = (dev["role"] == "leaf").to_numpy()
    for s in np.unique(su[server]):
        assert set(b[leaf & (su == s)].tolist()) == set(b[server & (su == s)].tolist())
    # no building over its IT power
    kw = d.power.halls.assign(b=d.power.halls["hall"].str.split("/").str[0]).groupby("b")["it_kw"].sum()
    assert (kw <= 500.0).all(), kw


def test_links_between_buildings_counted_by_hand_and_against_the_cut_bound() -> None:
    d = _design()
    b = crossings.device_building(d.fabric, d.placement)
    spine = (d.fabric.devices["role"] == "spine").to_numpy()
    per_b = np.bincount(b[spine], minlength=3)
    assert per_b.sum() == 16 and per_b.min() >= 5  # the spines shared out in proportion to the SUs
    # every leaf (8 per building) has 2 links to each spine: the ones to the other buildings' spines cross
    by_hand = sum(8 * 2 * (16 - int(n)) for n in per_b)
    ib = d.inter_building
    assert ib["links"] == ib["backend_links"] == by_hand == 512
    # cut bound: each building holds a third of the 768 x 400G: 1/2 x 3 x min(256, 512) links of 400G
    assert ib["backend_bound_links"] == 384 <= ib["backend_links"]
    # read back: the cabling's routed links between racks of two buildings, counted independently
    bldg = d.placement.racks["building"].to_numpy()
    links = d.cabling.links
    ra, rb = links["rack_a"].to_numpy(np.int64), links["rack_b"].to_numpy(np.int64)
    assert (ra >= 0).all() and (rb >= 0).all()
    across = bldg[ra] != bldg[rb]
    assert int(across.sum()) == 512
    # each runs through the campus duct: routed, longer than the 200 m between the entries
    assert set(links["status"][across].tolist()) == {"ok"}
    assert (links["length_m"].to_numpy(float)[across] > 200.0).all()
    assert d.figures.value("links_cross_building") == 512
    assert d.summary()["inter_building"]["links"] == 512


def test_a_split_pod_is_the_same_warm_and_cold() -> None:
    memo = Memo()
    design.run(inputs_of(ONE_POD), memo=memo)
    warm = design.run(inputs_of(ONE_POD), memo=memo)
    cold = _design()
    assert warm.placement.racks.equals(cold.placement.racks)
    assert warm.inter_building == cold.inter_building
