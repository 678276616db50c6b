"""The shipped multi-building examples of this generation (sites/gigawatt/): every rack placed, no hall
over its power or cooling, every link routed, no violation; the links between buildings against the
cut bound of layout/crossings.py. Each designs in seconds but exports for minutes: only the design is
run here (slow: the 1 GW campus has 17,079 racks and 1.9 M links)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from layout import design
from layout.load import load_site

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
GW = ROOT / "sites" / "gigawatt" / "gb300-1gw-campus.toml"
SX = ROOT / "sites" / "gigawatt" / "spectrum-x-2-buildings.toml"


@cache
def designed(path: Path) -> design.Design:
    return design.run(load_site(path))


@pytest.mark.parametrize("path", [GW, SX], ids=lambda p: p.stem)
def test_every_rack_placed_no_hall_over_power_every_link_routed(path: Path) -> None:
    d = designed(path)
    assert d.violations == ()
    assert d.placement.racks_missing == 0
    servers = int((d.fabric.devices["role"] == "server").sum())
    assert int((d.placement.racks["template"] == "gb300-nvl72").sum()) == servers
    halls = d.power.halls
    site = d.inputs.site
    limits = {f"{b.id}/{h.id}": (h.it_mw, h.cooling_mw) for b in site.building for h in b.hall}
    for key, kw in zip(halls["hall"], halls["it_kw"], strict=True):
        it_mw, cool_mw = limits[key]
        assert kw / 1000.0 <= min(it_mw, cool_mw) + 1e-6, key
    per_b = halls.assign(b=halls["hall"].str.split("/").str[0]).groupby("b")["it_kw"].sum() / 1000.0
    for b in site.building:
        assert per_b[b.id] <= b.it_mw + 1e-6, b.id
    links = d.cabling.links
    assert set(links["status"].astype(str)) == {"ok"}
    assert (links["length_m"].to_numpy(float) > 0).all()


def test_the_gigawatt_campus_is_a_gigawatt_of_gb300_in_eight_buildings() -> None:
    d = designed(GW)
    f = d.figures
    assert f.value("gpus") == 442_368
    assert 900.0 <= f.value("it_mw") <= 1100.0
    racks = d.placement.racks
    gpu = racks[racks["template"] == "gb300-nvl72"]
    assert gpu["building"].nunique() == 8
    ib = d.inter_building
    # pods of a hall, joined 8:1 at the campus tier: every pod outside the MDF's building sends its
    # 13,824 / 8 = 1,728 uplinks across, more than the cut bound, which a pod laid across buildings adds to
    assert ib["backend_bound_links"] <= ib["backend_links"]
    assert ib["backend_links"] >= 28 * 1728
    assert ib["links"] == f.value("links_cross_building") == sum(ib["by_network"].values())


def test_one_fabric_over_two_buildings_crosses_exactly_the_cut_bound() -> None:
    """Half the GPUs in each building, the core tier in one: every GPU link's uplink from the other
    building crosses, and the bound (1/2 x 2 x min(half, half)) is the same number."""
    d = designed(SX)
    ib = d.inter_building
    dev = d.fabric.devices
    server = (dev["role"] == "server").to_numpy()
    racks = d.placement.racks
    b_of = racks["building"].to_numpy()[d.placement.device_rack[server]]
    assert sorted(np.unique(b_of, return_counts=True)[1].tolist()) == [384, 384]
    half_links = 55_296 * 2 // 2  # each GPU's two 400G planes, half the GPUs
    assert ib["backend_bound_links"] == half_links == ib["backend_links"]
