"""Engineering margins on the shipped sites (issue 27): no tap-off, busway, UPS block, switchboard or
CDU above its rating x its limit (x the power factor on current-rated parts) without a violation, checked
from the design's own tables; and a GB200 hall needs more CDUs when its racks put more heat into the
coolant."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from layout import design
from layout.power.facility import FacilityInput

SITES = ["superpod-4su", "seed002-32k", "gb200-hall", "gb300-spectrum-x", "b200-quantum-x800", "campus-100k"]


@pytest.mark.parametrize("stem", SITES)
def test_no_element_of_a_shipped_site_is_over_its_limit(stem: str, design_of: Any) -> None:
    d = design_of(stem)
    m = FacilityInput.of(d.inputs).margins
    cat = d.inputs.catalog
    assert not [v for v in d.violations if v.kind == "feed"]
    bw = d.chain.busways
    assert (bw["load_kw"] <= bw["rating_kw"] * m.busway * m.power_factor + 1e-6).all()
    ups = d.chain.ups
    assert (ups["load_mw"] <= ups["rating_mw"] * m.ups + 1e-9).all()
    assert (ups["load_mw"] <= ups["switchboard_rating_mw"] * m.switchboard * m.power_factor + 1e-9).all()
    feeds = d.chain.feeds
    tap_rating = feeds["tap_off"].map({k: t.rating_kw for k, t in cat.tap_off.items()}).to_numpy(float)
    share = np.where(
        d.chain.halls.set_index("hall").loc[d.placement.racks["hall"], "redundancy"] == "2N", 1.0, 0.5
    )
    assert (d.power.rack_kw * share <= tap_rating * m.tap_off * m.power_factor + 1e-6).all()
    cdus = d.liquid.cdus
    if len(cdus):
        assert (cdus["load_kw"] <= cdus["rating_kw"] * m.cdu + 1e-6).all()


def test_a_gb200_hall_carries_more_coolant_heat_at_a_higher_liquid_fraction(design_of: Any) -> None:
    """gb200-hall at 0.8, 0.85 and 0.9: the CDUs carry the racks' heat x the fraction, each within 90 %
    of its rating, and never fewer CDUs for more heat (the hand-built case where the count rises is
    tests/unit/test_cooling.py)."""
    base = design_of("gb200-hall").inputs

    def loop_at(fraction: float) -> Any:
        servers = dict(base.catalog.server)
        servers["gb200-nvl72"] = servers["gb200-nvl72"].model_copy(update={"liquid_fraction": fraction})
        inputs = dataclasses.replace(base, catalog=base.catalog.model_copy(update={"server": servers}))
        d = design.run(inputs)
        nvl = (d.placement.racks["template"] == "gb200-nvl72").to_numpy()
        assert d.liquid.cdus["load_kw"].sum() == pytest.approx(d.power.rack_kw[nvl].sum() * fraction)
        assert (d.liquid.cdus["load_kw"] <= 0.9 * d.liquid.cdus["rating_kw"] + 1e-6).all()
        return d.liquid

    counts = [len(loop_at(f).cdus) for f in (0.8, 0.85, 0.9)]
    assert counts == sorted(counts)


def test_n_plus_1_on_a_high_density_hall_survives_every_single_failure(design_of: Any) -> None:
    """gb200-hall (9 MW of NVL72 racks) with N+1: every row on two blocks, and for every block that
    fails (worked out here from the busway table, not the chain's own figures) no other block carries
    more than its 2 MW x 90 %. (Before, rows were balanced by block pair, not by block: 17 blocks, one of
    them carrying 5.0 MW after a failure.)"""
    base = design_of("gb200-hall").inputs
    site = base.site
    b0 = site.building[0]
    h0 = b0.hall[0]
    hall = h0.model_copy(update={"power": h0.power.model_copy(update={"redundancy": "N+1"})})
    building = b0.model_copy(update={"hall": [hall, *b0.hall[1:]]})
    inputs = dataclasses.replace(
        base, site=site.model_copy(update={"building": [building, *site.building[1:]]})
    )
    d = design.run(inputs)
    bw = d.chain.busways
    rows = bw.pivot_table(index="row", columns="side", values="ups_id", aggfunc="first")
    # N+1: each busway is sized for its racks whole (a failure moves them to their other side)
    row_kw = bw[bw["side"] == "A"].groupby("row")["load_kw"].sum()
    blocks = sorted(set(rows["A"]) | set(rows["B"]))
    cap_mw = d.chain.ups["rating_mw"].max() * FacilityInput.of(inputs).margins.ups
    for failed in [None, *blocks]:
        load = dict.fromkeys(blocks, 0.0)
        for row, (a, b) in rows[["A", "B"]].iterrows():
            kw = float(row_kw[row])
            if failed in (a, b):
                load[b if failed == a else a] += kw
            else:
                load[a] += kw / 2
                load[b] += kw / 2
        assert max(v for k, v in load.items() if k != failed) / 1000 <= cap_mw + 1e-9, failed
    assert len(d.chain.ups) <= 10 and not [v for v in d.violations if v.kind == "feed"]


def test_a_rear_door_hall_buys_one_heat_exchanger_per_rack_within_its_margin(design_of: Any) -> None:
    """superpod-4su is a rear-door hall: each of its 47 racks gets the smallest door that carries its kW
    at 90 % (a 41 kW GPU rack: 35 x 0.9 = 31.5 < 41 <= 50 x 0.9 = 45, the 50 kW door), and the BOM buys
    them; a rack above the largest door's 75 x 0.9 = 67.5 kW is a cooling violation naming it."""
    from layout.power import cdus

    d = design_of("superpod-4su")
    doors = d.liquid.rear_doors
    assert len(doors) == len(d.placement.racks) == 47
    kw = dict(zip(d.placement.racks["rack_id"], d.power.rack_kw, strict=True))
    for r in doors.itertuples():
        ratings = sorted(t.rating_kw for t in d.inputs.catalog.rear_door.values())
        fits = [x for x in ratings if kw[r.rack_id] <= 0.9 * x + 1e-6]
        assert r.rating_kw == fits[0]
    bom = d.bom[d.bom["part_id"].str.startswith("rdhx-")]
    assert int(bom["qty"].sum()) == 47
    assert d.liquid.by_hall()["B1/H1"]["rear_doors"] == 47
    hot = np.array(d.power.rack_kw, float).copy()
    hot[0] = 70.0
    table, violations = cdus.rear_doors(FacilityInput.of(d.inputs), d.placement, hot)
    (v,) = violations
    assert (v.kind, v.where) == ("cooling", str(d.placement.racks["rack_id"].iloc[0]))
    assert v.figures == {"racks": 1, "load_kw": 70.0, "limit_kw": 67.5}
    assert table["model"].iloc[0] == "rdhx-75kw"
