"""The power chain (layout/power/chain.py) on hand-built racks with hand-chosen loads.

The small site (tests/conftest.py), one hall B1/H1 with rows of racks built in the test; kW per rack is
given, not computed, so every busway, tap-off and UPS load below is worked out by hand. Catalog parts
(rack_templates/catalog.toml): busways 400 A 287.5 kW, 630 A 452.8, 800 A 575.1, 1000 A 718.8,
1250 A 898.5, 1600 A 1150.1; tap-offs 32 A 23 kW, 63 A 45.3, 100 A 71.9, 125 A 89.8, 160 A 115,
250 A 179.7; UPS blocks 2 MW (default), 1 MW, 3 MW; switchboards 2.875 MW (default), 3.594 MW.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import handbuilt as hb
import numpy as np
import pytest

from layout.load import Inputs
from layout.power import chain as power_chain
from layout.power.facility import FacilityInput

Make = Callable[..., Inputs]


def rows_of(spec: list[int]) -> Any:
    """A placement of rows R01, R02, ... with ``spec[i]`` 600 mm racks each, along x."""
    racks = []
    for r, n in enumerate(spec):
        racks += [(f"B1/H1/R{r + 1:02d}/K{k + 1:02d}", 0.3 + 0.6 * k, 1.0 + 2.4 * r) for k in range(n)]
    return hb.placement(hb.racks_table(racks), [], [])


# no margin: every element may carry its whole rating at power factor 1 (the hand-computed cases below
# keep their arithmetic; the margins' own tests give them)
NO_MARGIN = {"power_factor": 1.0, "tap_off": 1.0, "busway": 1.0, "switchboard": 1.0, "ups": 1.0, "cdu": 1.0}


def chain_of(
    make_inputs: Make, spec: list[int], kw: list[float], margins: dict[str, float] | None = None, **power: Any
) -> power_chain.PowerChain:
    changes: dict[str, Any] = {"margins": NO_MARGIN if margins is None else margins}
    if power:
        changes["building"] = {0: {"hall": {0: {"power": power}}}}
    inputs = make_inputs(changes)
    # room for any rack PDUs: these cases are about busways, tap-offs and UPS blocks (the PDUs' room has
    # its own test in test_rack_power.py)
    facility = FacilityInput.of(inputs)
    facility = replace(facility, template_pdu_positions=dict.fromkeys(facility.template_pdu_positions, 8))
    return power_chain.build(facility, rows_of(spec), np.asarray(kw, float))


def test_2n_every_rack_has_a_and_b_from_different_ups_blocks(make_inputs: Make) -> None:
    # R01: 10 racks x 40 kW = 400 kW -> a 630 A busway per side; R02: 10 x 30 = 300 kW -> 630 A too
    # (above the 400 A's 287.5); 700 kW on one 2 MW block per side; tap-offs 63 A (45.3 kW >= 40)
    ch = chain_of(make_inputs, [10, 10], [40.0] * 10 + [30.0] * 10)
    f = ch.feeds
    assert f["feed_a"].tolist() == ["B1/H1/R01/A1"] * 10 + ["B1/H1/R02/A1"] * 10
    assert f["feed_b"].tolist() == ["B1/H1/R01/B1"] * 10 + ["B1/H1/R02/B1"] * 10
    assert set(f["tap_off"]) == {"tap-63a"}
    bw = ch.busways.set_index("busway_id")
    assert bw.loc["B1/H1/R01/A1", "model"] == "bw-630a"
    assert bw.loc["B1/H1/R01/A1", "load_kw"] == pytest.approx(400.0)  # each side alone carries the row
    assert bw.loc["B1/H1/R02/B1", "load_kw"] == pytest.approx(300.0)
    assert bw.loc["B1/H1/R01/A1", "length_m"] == pytest.approx(6.0 + 2.0)  # 10 x 0.6 m + the lead
    ups_a = bw.loc[f["feed_a"], "ups_id"].to_numpy()
    ups_b = bw.loc[f["feed_b"], "ups_id"].to_numpy()
    assert (ups_a != ups_b).all()
    assert set(ups_a) == {"B1/H1/UPS-A1"} and set(ups_b) == {"B1/H1/UPS-B1"}
    ups = ch.ups.set_index("ups_id")
    assert ups.loc["B1/H1/UPS-A1", "load_mw"] == pytest.approx(0.7)
    assert ups.loc["B1/H1/UPS-A1", "normal_mw"] == pytest.approx(0.35)
    assert ups.loc["B1/H1/UPS-A1", "switchboard_id"] == "B1/H1/SWB-A1"
    (h,) = ch.halls.to_dict("records")
    assert (h["ups_blocks"], h["busways"], h["chain_mw"]) == (2, 4, 2.0)
    # no it_mw: what was bought is what the blocks carry in 2N (2 MW); 0.7 MW used
    assert h["stranded_mw"] == pytest.approx(1.3)
    assert ch.violations == ()


def test_a_busway_too_small_is_a_violation_naming_it(make_inputs: Make) -> None:
    # the hall fixes 400 A busways (287.5 kW): R01 at 400 kW is over by 112.5 kW on each side
    ch = chain_of(make_inputs, [10, 2], [40.0] * 10 + [30.0] * 2, busway="bw-400a")
    (v,) = ch.violations
    assert (v.kind, v.where) == ("feed", "B1/H1/R01/A1")
    assert v.figures == {"parts": 1, "load": 400.0, "rating": 287.5, "limit": 287.5, "unit": "kW"}
    assert "400.0 kW (each side alone) of its 287.5 kW rating" in v.message


def test_a_row_above_the_largest_busway_gets_two_side_by_side(make_inputs: Make) -> None:
    # 10 x 132 kW = 1,320 kW > 1,150.1: two 1600 A busways per side, racks 1-5 and 6-10 (660 kW each);
    # a 132 kW rack takes a 250 A tap-off (179.7 kW)
    ch = chain_of(make_inputs, [10], [132.0] * 10)
    assert ch.feeds["feed_a"].tolist() == ["B1/H1/R01/A1"] * 5 + ["B1/H1/R01/A2"] * 5
    bw = ch.busways.set_index("busway_id")
    assert bw.loc[["B1/H1/R01/A1", "B1/H1/R01/A2"], "load_kw"].tolist() == pytest.approx([660.0, 660.0])
    assert set(bw["model"]) == {"bw-1600a"}
    assert set(ch.feeds["tap_off"]) == {"tap-250a"}
    assert ch.violations == ()


def test_a_rack_above_every_tap_off_is_a_feed_violation(make_inputs: Make) -> None:
    ch = chain_of(make_inputs, [3], [20.0, 200.0, 20.0])
    (v,) = ch.violations
    assert v.where == "B1/H1/R01/K02/A"
    assert (v.figures["load"], v.figures["rating"]) == (200.0, 179.7)


def test_n_plus_1_spreads_rows_over_block_pairs_and_survives_any_one_failure(make_inputs: Make) -> None:
    # 3 rows of 10 x 100 kW = 1 MW each, 2 MW blocks: ceil(3 / 2) + 1 = 3 blocks; the rows take the
    # pairs (1,2), (1,3), (2,3). Normally each block carries 1 MW (half of two rows); when block 1
    # fails, row (1,2) moves whole to 2: 1 + 0.5 = 1.5 MW <= 2. Usable: (3 - 1) x 2 = 4 MW
    ch = chain_of(make_inputs, [10, 10, 10], [100.0] * 30, redundancy="N+1")
    ups = ch.ups.set_index("ups_id")
    assert list(ups.index) == ["B1/H1/UPS-1", "B1/H1/UPS-2", "B1/H1/UPS-3"]
    assert ups["normal_mw"].tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert ups["load_mw"].tolist() == pytest.approx([1.5, 1.5, 1.5])
    bw = ch.busways.set_index("busway_id")
    pairs = {
        (bw.loc[a, "ups_id"], bw.loc[b, "ups_id"])
        for a, b in zip(ch.feeds["feed_a"], ch.feeds["feed_b"], strict=True)
    }
    assert pairs == {
        ("B1/H1/UPS-1", "B1/H1/UPS-2"),
        ("B1/H1/UPS-1", "B1/H1/UPS-3"),
        ("B1/H1/UPS-2", "B1/H1/UPS-3"),
    }
    (h,) = ch.halls.to_dict("records")
    assert (h["ups_blocks"], h["chain_mw"]) == (3, 4.0)
    assert ch.violations == ()


def test_n_halves_what_each_side_carries(make_inputs: Make) -> None:
    # N: a side carries half a rack: 10 x 40 kW = 400 kW -> 200 kW per side, a 400 A busway; 20 kW per
    # tap-off (32 A); two blocks at 0.2 MW each
    ch = chain_of(make_inputs, [10], [40.0] * 10, redundancy="N")
    assert set(ch.busways["model"]) == {"bw-400a"}
    assert ch.busways["load_kw"].tolist() == pytest.approx([200.0, 200.0])
    assert set(ch.feeds["tap_off"]) == {"tap-32a"}
    assert ch.ups["load_mw"].tolist() == pytest.approx([0.2, 0.2])
    assert ch.halls["chain_mw"].tolist() == [4.0]


def test_a_ups_block_too_small_is_a_violation_naming_it(make_inputs: Make) -> None:
    # 1 MW blocks; one row of 10 x 120 kW = 1.2 MW cannot be split across blocks: UPS-A1 at 1.2 of 1.0
    ch = chain_of(make_inputs, [10], [120.0] * 10, ups="ups-1mw")
    kinds = {v.where: v for v in ch.violations}
    assert kinds["B1/H1/UPS-A1"].figures == {
        "parts": 1,
        "load": 1.2,
        "rating": 1.0,
        "limit": 1.0,
        "unit": "MW",
    }
    assert "B1/H1/UPS-B1" in kinds
    assert list(ch.ups["ups_id"]) == ["B1/H1/UPS-A1", "B1/H1/UPS-B1"]


def test_stranded_capacity_by_cooling_by_space_and_unused(make_inputs: Make) -> None:
    # it_mw 1.0 given, 0.7 MW used, cooling 0.5 MW: 0.3 MW stranded, all of it by cooling (1.0 - 0.7)
    inputs = make_inputs({"building": {0: {"hall": {0: {"it_mw": 1.0, "cooling_mw": 0.5}}}}})
    ch = power_chain.build(FacilityInput.of(inputs), rows_of([10, 10]), np.asarray([40.0] * 10 + [30.0] * 10))
    (h,) = ch.halls.to_dict("records")
    assert (h["provisioned_mw"], h["stranded_mw"]) == pytest.approx((1.0, 0.3))
    assert (h["stranded_cooling_mw"], h["stranded_space_mw"], h["unused_mw"]) == pytest.approx(
        (0.3, 0.0, 0.0)
    )
    # cooling 2 MW: nothing stranded by cooling; every rack of the design placed, so 0.3 MW is unused
    inputs = make_inputs({"building": {0: {"hall": {0: {"it_mw": 1.0, "cooling_mw": 2.0}}}}})
    kw = np.asarray([40.0] * 10 + [30.0] * 10)
    ch = power_chain.build(FacilityInput.of(inputs), rows_of([10, 10]), kw)
    (h,) = ch.halls.to_dict("records")
    assert (h["stranded_cooling_mw"], h["stranded_space_mw"], h["unused_mw"]) == pytest.approx(
        (0.0, 0.0, 0.3)
    )
    # the same hall while 3 of the design's racks found no floor: the 0.3 MW is stranded by space
    short = rows_of([10, 10])
    short.racks_missing = 3
    (h,) = power_chain.build(FacilityInput.of(inputs), short, kw).halls.to_dict("records")
    assert (h["stranded_cooling_mw"], h["stranded_space_mw"], h["unused_mw"]) == pytest.approx(
        (0.0, 0.3, 0.0)
    )


def test_unknown_power_parts_are_refused(make_inputs: Make) -> None:
    from layout.errors import InputError

    with pytest.raises(InputError) as e:
        make_inputs({"building": {0: {"hall": {0: {"power": {"ups": "ups-9mw", "busway": "bw-1a"}}}}}})
    text = str(e.value)
    assert (
        'building[0].hall[0].power.ups: unknown UPS block "ups-9mw" (allowed: ups-1mw, ups-2mw, ups-3mw)'
        in text
    )
    assert "building[0].hall[0].power.busway: unknown busway" in text


def test_busway_is_bought_per_run_in_whole_metres() -> None:
    # runs of 18.4 m and 2.1 m are bought as 19 m and 3 m: 22 m, not the 21 m of their rounded-up sum
    assert power_chain.bought_m([18.4, 2.1]).tolist() == [19.0, 3.0]
    assert power_chain.bought_m([4.0]).tolist() == [4.0]  # a whole run is bought as it is


def test_the_boms_busway_metres_are_the_runs_as_bought(design_of: Callable[[str], Any]) -> None:
    d = design_of("gb200-hall")
    bw = d.chain.busways
    bom = d.bom.set_index("part_id")
    for model, g in bw.groupby("model"):
        runs = g["length_m"].to_numpy(float)
        assert bom.loc[f"{model}/m", "qty"] == int(np.ceil(runs - 1e-9).sum()), model
        assert bom.loc[str(model), "qty"] == len(runs)


# ------------------------------------------------------------------------------ engineering margins
CATALOG_MARGINS: dict[str, float] = {}  # the catalog's: PF 0.95, 80 % on breakers and busways, 90 % UPS


def test_a_busway_that_fits_only_without_margin_is_a_violation_with_its_figures(make_inputs: Make) -> None:
    # 6 racks x 40 kW = 240 kW on a fixed 400 A busway (287.5 kW): fits its rating, but not its limit
    # 287.5 x 0.95 PF x 80 % = 218.5 kW
    assert chain_of(make_inputs, [6], [40.0] * 6, busway="bw-400a").violations == ()
    ch = chain_of(make_inputs, [6], [40.0] * 6, CATALOG_MARGINS, busway="bw-400a")
    (v,) = ch.violations
    assert (v.kind, v.where) == ("feed", "B1/H1/R01/A1")
    assert v.figures == {"parts": 1, "load": 240.0, "rating": 287.5, "limit": 218.5, "unit": "kW"}
    assert "of its 287.5 kW rating x 0.95 PF x 80 % continuous = 218.5 kW" in v.message


def test_the_chain_sizes_each_element_within_its_margin(make_inputs: Make) -> None:
    # the same row without a fixed busway: 240 kW needs more than the 400 A's 218.5 kW: a 630 A
    # (452.8 x 0.76 = 344.1 kW); a 40 kW rack needs more than the 45.3 kW tap-off's 34.4: 100 A
    ch = chain_of(make_inputs, [6], [40.0] * 6, CATALOG_MARGINS)
    assert set(ch.busways["model"]) == {"bw-630a"}
    assert "tap-63a" not in set(ch.feeds["tap_off"])
    assert ch.violations == ()
    # a site may set its own: at 100 % and PF 1 the 400 A busway and the 63 A tap-off do again
    ch = chain_of(make_inputs, [6], [40.0] * 6)
    assert set(ch.busways["model"]) == {"bw-400a"} and set(ch.feeds["tap_off"]) == {"tap-63a"}


def test_ups_blocks_are_filled_to_their_design_load_not_their_rating(make_inputs: Make) -> None:
    # 2N, 2 MW blocks at 90 %: 1.8 MW each. Rows of 10 x 95 kW = 0.95 MW: two rows (1.9 MW) fit a
    # 2 MW block at 95 % but not at 90 %: three rows take three blocks per side, not two
    no_margin = chain_of(make_inputs, [10, 10, 10], [95.0] * 30)
    margin = chain_of(make_inputs, [10, 10, 10], [95.0] * 30, CATALOG_MARGINS)
    assert no_margin.halls["ups_blocks"].tolist() == [4] and margin.halls["ups_blocks"].tolist() == [6]
    assert (margin.ups["load_mw"] <= 2.0 * 0.9 + 1e-9).all()


def test_a_site_margin_out_of_range_is_refused(make_inputs: Make) -> None:
    from layout.errors import InputError

    with pytest.raises(InputError) as e:
        make_inputs({"margins": {"busway": 1.5}})
    assert "margins.busway" in str(e.value)
