"""The placer on small sites built in code, against positions computed by hand.

The small site (tests/conftest.py): a 10 m x 6 m hall with 0.5 m wall clearance, so the usable floor is
x 0.5..9.5, y 0.5..5.5. Rows run along x with 1.2 m deep racks: row line 0 is y 0.5..1.7 (fronts face
+y), the 1.2 m cold aisle, row line 1 is y 2.9..4.1 (fronts face -y); a third line would need y up to
6.5. One SU of 32 DGX H100 on QM9700 = 8 GPU racks of 4 servers + 1 leaf rack (8 leaves), 4 spines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from layout import fabric, place
from layout.load import Inputs
from layout.model.site import UserRow

Make = Callable[..., Inputs]


def run(inputs: Inputs) -> tuple[Any, place.Placement]:
    fab = fabric.build(inputs.site.cluster, inputs.catalog, place.fabric_servers_per_rack(inputs))
    return fab, place.place(inputs, fab)


def hall(**kw: Any) -> dict[str, Any]:
    return {"building": {0: {"hall": {0: kw}}}}


# ------------------------------------------------------------------------------------ floor geometry
def test_free_floor_of_a_plain_hall_is_two_rows_of_fifteen(make_inputs: Make) -> None:
    # 9 m of usable length / 0.6 m = 15 racks per row line, 2 row lines
    assert place.floor_positions(make_inputs(), 0.6) == {"B1/H1": 30}
    # 800 mm racks: floor(9 / 0.8) = 11 per line
    assert place.floor_positions(make_inputs(), 0.8) == {"B1/H1": 22}


def test_cross_aisle_after_max_row_racks(make_inputs: Make) -> None:
    # rows of at most 10 racks (6 m), a 1.2 m cross aisle, then 9.5 - 7.7 = 1.8 m = 3 more racks
    assert place.floor_positions(make_inputs(hall(max_row_racks=10)), 0.6) == {"B1/H1": 26}


def test_a_column_breaks_a_row_which_continues_past_it(make_inputs: Make) -> None:
    # column x 4.7..5.3, y 3.2..3.8 stands in row line 1 (y 2.9..4.1): 0.5..4.7 (7 racks), 5.3..9.5 (7)
    inputs = make_inputs(hall(columns=[{"at": [5.0, 3.5], "size_m": [0.6, 0.6]}]))
    assert place.floor_positions(inputs, 0.6) == {"B1/H1": 15 + 14}
    # y 2.7..3.3 also reaches 0.2 m into the cold aisle (y 1.7..2.9), and no shift of the lines within
    # the 1.4 m to spare puts it inside one line: both rows beside that aisle end at it, a cross aisle
    # wide (x 4.4..5.6: 6 + 6 racks on each line)
    inputs = make_inputs(hall(columns=[{"at": [5.0, 3.0], "size_m": [0.6, 0.6]}]))
    assert place.floor_positions(inputs, 0.6) == {"B1/H1": (6 + 6) * 2}


def test_keepout_and_wider_aisles(make_inputs: Make) -> None:
    # a keep-out over x 0..4 of row line 0 leaves 4..9.5 = 9 racks there; line 1 keeps 15
    ko = [{"polygon": [[0, 0], [4, 0], [4, 2], [0, 2]], "reason": "CRAH"}]
    assert place.floor_positions(make_inputs(hall(keepouts=ko)), 0.6) == {"B1/H1": 9 + 15}
    # a 3 m cold aisle pushes line 1 to y 4.7..5.9, past 5.5: one row line left
    assert place.floor_positions(make_inputs(hall(cold_aisle_m=3.0)), 0.6) == {"B1/H1": 15}


def test_rows_along_y_swap_the_frame(make_inputs: Make) -> None:
    # rows along y: 5 m of usable length = 8 racks; across x 0.5..9.5 holds lines at 0.5, 2.9, 5.3, 7.7
    assert place.floor_positions(make_inputs(hall(row_axis="y")), 0.6) == {"B1/H1": 4 * 8}


# ------------------------------------------------------------------------------------- one SU placed
def test_one_su_hand_placed(make_inputs: Make) -> None:
    fab, p = run(make_inputs())
    r = p.racks
    # the one spine rack joins the SU's row (a row of one rack no containment closes around)
    assert list(r["rack_id"]) == [f"B1/H1/R01/K{k:02d}" for k in range(1, 11)]
    assert list(r["template"]) == ["dgx-h100-x4"] * 4 + ["net-leaf"] + ["dgx-h100-x4"] * 4 + ["net-spine"]
    # fronts of row line 0 face +y at y = 1.7: rack centres at y 1.1; x from 0.5, 600 / 800 mm wide
    assert r["x_m"].tolist()[:9] == pytest.approx([0.8, 1.4, 2.0, 2.6, 3.3, 4.0, 4.6, 5.2, 5.8])
    assert r["y_m"].tolist()[:9] == pytest.approx([1.1] * 9)
    assert r["rotation_deg"].tolist() == [0.0] * 10
    # the 800 mm spine rack right after the last GPU rack (x 6.1..6.9)
    assert (r["x_m"].iat[9], r["y_m"].iat[9]) == pytest.approx((6.5, 1.1))
    assert p.rows[["row", "axis", "front_sign", "kind"]].values.tolist() == [["B1/H1/R01", "x", 1, "gpu"]]
    assert p.rows[["x0_m", "y0_m", "x1_m", "y1_m"]].values.tolist()[0] == pytest.approx([0.5, 1.1, 6.9, 1.1])
    # every device in a rack; servers at the template's RUs, leaves and spines in switch slots
    dev = fab.devices
    assert (p.device_rack >= 0).all()
    srv = (dev["role"] == "server").to_numpy()
    assert sorted(set(p.device_ru[srv].tolist())) == [3, 12, 29, 38]
    leaves = (dev["role"] == "leaf").to_numpy()
    assert set(p.device_rack[leaves].tolist()) == {4}
    assert sorted(p.device_ru[leaves].tolist()) == [4, 8, 12, 16, 20, 24, 28, 32]
    spines = (dev["role"] == "spine").to_numpy()
    assert set(p.device_rack[spines].tolist()) == {9}
    assert sorted(p.device_ru[spines].tolist()) == [4, 8, 12, 16]
    assert p.violations == ()
    assert p.racks_missing == 0


def test_device_places(make_inputs: Make) -> None:
    fab, p = run(make_inputs())
    d = p.device_places(fab)
    assert list(d.columns) == [
        "device_id",
        "role",
        "rack_id",
        "hall",
        "row",
        "pos",
        "ru",
        "x_m",
        "y_m",
        "rotation_deg",
    ]
    assert len(d) == len(fab.devices) and (d["hall"] == "B1/H1").all()
    spine = d[d["role"] == "spine"]
    assert set(spine["rack_id"]) == {"B1/H1/R01/K10"} and set(spine["rotation_deg"]) == {0.0}
    assert spine["x_m"].tolist() == pytest.approx([6.5] * 4) and sorted(spine["ru"]) == [4, 8, 12, 16]
    first = d.iloc[0]
    assert (first["role"], first["rack_id"], first["row"], first["pos"], first["ru"]) == (
        "server",
        "B1/H1/R01/K01",
        "B1/H1/R01",
        1,
        3,
    )


def test_servers_fill_racks_in_order(make_inputs: Make) -> None:
    fab, p = run(make_inputs())
    srv = np.flatnonzero((fab.devices["role"] == "server").to_numpy())
    racks = p.device_rack[srv]
    # 32 servers, 4 per rack, racks 0-3 and 5-8 (the leaf rack sits in the middle)
    assert racks.tolist() == [k for k in (0, 1, 2, 3, 5, 6, 7, 8) for _ in range(4)]
    assert p.racks["servers"].tolist() == [4, 4, 4, 4, 0, 4, 4, 4, 4, 0]


def test_middle_of_rack_leaf_sits_in_the_gpu_rack(make_inputs: Make) -> None:
    fab, p = run(make_inputs({"cluster": {"design": "mor"}}))
    dev = fab.devices
    leaves = np.flatnonzero((dev["role"] == "leaf").to_numpy())
    assert len(leaves) == 8
    kinds = p.racks["kind"].to_numpy()[p.device_rack[leaves]]
    assert set(kinds) == {"gpu"}
    assert set(p.device_ru[leaves].tolist()) == {21}  # the template's leaf slot
    # each leaf in the rack of its own servers
    links = fab.links[fab.links["kind"] == "gpu_leaf"]
    assert (p.device_rack[links["a"].to_numpy()] == p.device_rack[links["b"].to_numpy()]).all()
    assert "net-leaf" not in p.racks_by_template()


def test_middle_of_rack_pairs_in_a_30kw_hall(make_inputs: Make) -> None:
    # 30 kW: 2 DGX per rack; a QM9700 leaf serves a rack pair (32 ports) from the pair's first rack
    inputs = make_inputs(
        {"cluster": {"design": "mor"}, **hall(max_rack_kw=30.0, polygon=[[0, 0], [14, 0], [14, 6], [0, 6]])}
    )
    fab, p = run(inputs)
    assert p.racks_by_template()["dgx-h100-x2"] == 16
    dev = fab.devices
    leaves = np.flatnonzero((dev["role"] == "leaf").to_numpy())
    links = fab.links[fab.links["kind"] == "gpu_leaf"]
    srv_rack = p.device_rack[links["a"].to_numpy()]
    assert len(leaves) == 8
    for leaf in leaves.tolist():
        mine = srv_rack[links["b"].to_numpy() == leaf]
        assert len(set(mine.tolist())) == 2  # a pair of racks
        assert p.device_rack[leaf] == min(mine)  # in the first of them
        assert p.device_ru[leaf] == 21


# --------------------------------------------------------------------------------------- density
def test_density_follows_the_hall_limit(inputs_of: Callable[[str], Inputs]) -> None:
    seed = inputs_of("seed002-32k")
    assert {(c.template, c.servers) for c in place.gpu_racks(seed).values()} == {("dgx-h100-x2", 2)}
    halls = [
        b.model_copy(update={"hall": [h.model_copy(update={"max_rack_kw": 60.0}) for h in b.hall]})
        for b in seed.site.building
    ]
    hot = Inputs(seed.site.model_copy(update={"building": halls}), seed.catalog, seed.templates, seed.path)
    assert {(c.template, c.servers) for c in place.gpu_racks(hot).values()} == {("dgx-h100-x4", 4)}


def test_too_dense_without_a_low_density_template_is_placed_and_reported(make_inputs: Make) -> None:
    inputs = make_inputs({"cluster": {"rack_low_density": None}, **hall(max_rack_kw=40.0)})
    choice = place.gpu_racks(inputs)["B1/H1"]
    assert (choice.template, choice.fits) == ("dgx-h100-x4", False)
    _, p = run(inputs)
    assert p.racks_by_template()["dgx-h100-x4"] == 8


def test_low_density_doubles_the_gpu_racks(make_inputs: Make) -> None:
    inputs = make_inputs({**hall(max_rack_kw=40.0, polygon=[[0, 0], [16, 0], [16, 6], [0, 6]])})
    _, p = run(inputs)
    assert p.racks_by_template()["dgx-h100-x2"] == 16
    assert "dgx-h100-x4" not in p.racks_by_template()


# ------------------------------------------------------------------------------------- capacity
def test_hall_too_small_places_what_fits_and_counts_the_rest(make_inputs: Make) -> None:
    big = hall(polygon=[[0, 0], [30, 0], [30, 20], [0, 20]])
    _, roomy = run(make_inputs({"cluster": {"gpus": 1024}, **big}))
    needed = len(roomy.racks)
    assert roomy.racks_missing == 0
    fab, p = run(make_inputs({"cluster": {"gpus": 1024}}))  # 4 SU: 36 racks + spines, 30 places
    assert p.racks_missing == needed - len(p.racks) > 0
    (v,) = [v for v in p.violations if v.kind == "capacity"]
    assert v.where == "B1"
    assert v.figures["racks_missing"] == p.racks_missing
    assert f"{p.racks_missing} of {needed} racks do not fit: B1/H1 is full" in v.message
    assert len(p.racks) <= 30
    # the devices of the racks that do not fit are not placed; everything placed is in one rack
    assert (p.device_rack < 0).any()
    placed = p.device_rack >= 0
    assert p.device_rack[placed].max() < len(p.racks)


# a 10 m x 3.5 m hall: one row line of 15 racks, room for one pod of 1 SU (9 racks + a spine rack)
ONE_LINE = [[0, 0], [10, 0], [10, 3.5], [0, 3.5]]


def test_pods_stay_in_their_building(make_inputs: Make) -> None:
    b2 = {
        "id": "B2",
        "footprint": [[100, 0], [140, 0], [140, 30], [100, 30]],
        "entry": [100, 3],
        "hall": [{"id": "H1", "polygon": [[100, 0], [110, 0], [110, 3.5], [100, 3.5]], "cooling": "rear-door",
                  "max_rack_kw": 45.0, "wall_clearance_m": 0.5}],
    }  # fmt: skip
    base = make_inputs(hall(polygon=ONE_LINE))
    data = base.site.model_dump(by_alias=True, exclude_none=True)
    data["building"].append(b2)
    data["cluster"].update(gpus=512, pod_gpus=256)
    from layout.load import site_from_data

    inputs = site_from_data(data, base.path, base.catalog, base.templates, base.templates_dir)
    fab, p = run(inputs)
    dev = fab.devices
    srv = (dev["role"] == "server").to_numpy()
    bld = p.racks["building"].to_numpy()[p.device_rack[srv]]
    pod = dev["pod"].to_numpy()[srv]
    assert set(bld[pod == 0]) == {"B1"}
    assert set(bld[pod == 1]) == {"B2"}
    assert p.racks_missing == 0


def test_a_pod_with_no_building_left_is_reported(make_inputs: Make) -> None:
    fab, p = run(make_inputs({"cluster": {"gpus": 512, "pod_gpus": 256}, **hall(polygon=ONE_LINE)}))
    dev = fab.devices
    srv = (dev["role"] == "server").to_numpy()
    pod = dev["pod"].to_numpy()
    assert (p.device_rack[srv & (pod == 0)] >= 0).all()
    assert (p.device_rack[srv & (pod == 1)] < 0).all()
    (v,) = [v for v in p.violations if v.kind == "capacity"]
    assert v.where == "site" and "pod 1" in v.message


def test_pod_spanning_buildings_respects_building_power(inputs_of: Callable[[str], Inputs]) -> None:
    seed = inputs_of("seed002-32k")
    site = seed.site.model_copy(
        update={"cluster": seed.site.cluster.model_copy(update={"pod_spans_buildings": True})}
    )
    inputs = Inputs(site, seed.catalog, seed.templates, seed.path)
    from layout.power import loads as power

    fab, p = run(inputs)
    pw = power.check(inputs, fab, p)
    kw = dict(zip(pw.buildings["building"], pw.buildings["it_kw"], strict=True))
    assert kw["B1"] <= 30_000 and kw["B2"] > 0
    assert not [v for v in pw.violations if v.kind == "building_mw"]


# ------------------------------------------------------------------------------------- user rows
def test_user_rows_are_kept_and_filled_around(make_inputs: Make) -> None:
    row = {"hall": "B1/H1", "origin": [3.0, 3.8], "axis": "x", "racks": 3, "template": "dgx-h100-x4"}
    fab, p = run(make_inputs({"row": [row], **hall(polygon=[[0, 0], [14, 0], [14, 10], [0, 10]])}))
    user = p.racks[p.racks["user_row"]]
    assert user["x_m"].tolist() == pytest.approx([3.3, 3.9, 4.5])
    assert user["y_m"].tolist() == pytest.approx([4.4] * 3)
    assert (user["servers"] == 4).all()  # the first GPU racks went into the user row
    assert p.racks_by_template()["dgx-h100-x4"] == 8
    polys = place.rack_polygons(p.racks)
    import shapely

    tree = shapely.STRtree(polys)
    a, b = tree.query(polys, predicate="intersects")
    overlap = [
        (i, j) for i, j in zip(a, b, strict=True) if i < j and polys[i].intersection(polys[j]).area > 1e-9
    ]
    assert overlap == []
    assert not [v for v in p.violations if v.kind == "user_row"]


def test_user_row_on_a_column_is_reported(make_inputs: Make) -> None:
    row = {"hall": "B1/H1", "origin": [4.5, 2.5], "axis": "x", "racks": 2, "template": "net-spine"}
    _, p = run(
        make_inputs(
            {"row": [row], **hall(columns=[{"at": [5.0, 3.0]}], polygon=[[0, 0], [14, 0], [14, 10], [0, 10]])}
        )
    )
    (v,) = [v for v in p.violations if v.kind == "user_row"]
    assert v.figures["racks"] == 1


SQUARE = hall(polygon=[[0, 0], [14, 0], [14, 14], [0, 14]])  # a 14 m hall: 1 placer row in its middle


def test_a_user_row_added_south_of_the_placers_rows_renumbers_none_of_them(make_inputs: Make) -> None:
    """The placer's row keeps its id when a user row is added before it (south, across the hall): rows
    are numbered by their place on the hall's grid, user rows after every place of the grid. Its
    geometry does not change (only shorter: its first racks went into the user row)."""
    _, before = run(make_inputs(SQUARE))
    row = {"hall": "B1/H1", "origin": [3.0, 0.6], "axis": "x", "racks": 3, "template": "dgx-h100-x4"}
    _, after = run(make_inputs({"row": [row], **SQUARE}))
    cols = ["row", "y0_m", "kind"]
    (placer_id,) = before.rows["row"].tolist()
    assert before.rows[cols].values.tolist() == [[placer_id, 5.9, "gpu"]]
    placer = after.rows[~after.rows["user_row"]]
    assert placer[cols].values.tolist() == before.rows[cols].values.tolist()
    user = after.rows[after.rows["user_row"]]
    (user_id,) = user["row"].tolist()
    assert user["y0_m"].tolist() == [1.2]  # south of it, numbered after every place of the grid
    assert int(user_id.rsplit("R", 1)[1]) > int(placer_id.rsplit("R", 1)[1])
    assert (after.racks.loc[after.racks["row"] == user_id, "servers"] == 4).all()
    # a second user row, added after the first in the file, renumbers neither
    second = {"hall": "B1/H1", "origin": [3.0, 11.0], "axis": "x", "racks": 2, "template": "dgx-h100-x4"}
    _, both = run(make_inputs({"row": [row, second], **SQUARE}))
    n = int(user_id.rsplit("R", 1)[1])
    assert both.rows[["row", "user_row"]].values.tolist() == [
        [placer_id, False],
        [user_id, True],
        [f"B1/H1/R{n + 1:02d}", True],
    ]
    assert both.rows.loc[both.rows["row"] == user_id, "y0_m"].tolist() == [1.2]


def test_rows_keep_their_ids_when_rows_elsewhere_come_and_go(inputs_of: Callable[[str], Inputs]) -> None:
    """On superpod-4su, a user row of the hall's GPU rack at the hall's west end takes the first 32 DGX
    of the placer's rows, so the placer lays fewer rows. By creation order the rows after the ones that
    went would be numbered again; by place, every placer row that stands where it stood keeps its id."""
    base = inputs_of("superpod-4su")
    _, before = run(base)
    h = base.site.building[0].hall[0]
    x0 = min(x for x, _ in h.polygon) + h.wall_clearance_m + 0.3
    y0 = min(y for _, y in h.polygon) + h.wall_clearance_m + 0.1
    row = UserRow(hall="B1/H1", origin=(x0, y0), axis="y", racks=8, template=base.site.cluster.rack)
    site = base.site.model_copy(update={"row": [row]})
    _, after = run(Inputs(site, base.catalog, base.templates, base.path))
    assert not [v for v in after.violations if v.kind == "user_row"]
    placer_before = before.rows.set_index("row")
    placer_after = after.rows[~after.rows["user_row"]].set_index("row")
    assert len(placer_after) < len(placer_before)  # rows went
    place_cols = ["axis", "y0_m", "y1_m", "x0_m", "x1_m"]
    kept = placer_before.reset_index().merge(placer_after.reset_index(), on=place_cols, suffixes=("_b", "_a"))
    assert len(kept) >= 2
    assert kept["row_b"].tolist() == kept["row_a"].tolist()
    # and the renumbering the old order gave is real here: some kept row is not the n-th of its hall
    assert any(int(r.rsplit("R", 1)[1]) != k + 1 for k, r in enumerate(placer_after.index))
    # the user row comes after every place of the grid
    (user_id,) = after.rows.loc[after.rows["user_row"], "row"].tolist()
    assert int(user_id.rsplit("R", 1)[1]) > max(int(r.rsplit("R", 1)[1]) for r in placer_after.index)


@pytest.mark.parametrize("template", ["gb200-nvl72", "dgx-h100-x2"])
def test_a_user_row_of_a_rack_the_cluster_does_not_use_is_a_violation(
    make_inputs: Make, template: str
) -> None:
    """A GB200 rack (another server) or a 2-server DGX rack (not the hall's 4-server GPU rack) gets no
    server: its racks stay empty, and the design says so at that row."""
    row = {"hall": "B1/H1", "origin": [3.0, 11.0], "axis": "x", "racks": 3, "template": template}
    _, p = run(make_inputs({"row": [row], **SQUARE}))
    user = p.racks[p.racks["user_row"]]
    assert len(user) == 3 and (user["servers"] == 0).all() and set(user["template"]) == {template}
    (v,) = [v for v in p.violations if v.kind == "user_row"]
    # the 14 m square's grid: 5 row lines (13 m usable / 2.4 m per band and aisle) of one segment each,
    # places R01-R05; the user row is numbered after them
    assert v.where == "B1/H1/R06"
    assert v.message == (
        f"[[row]] 1 in B1/H1 is of template {template} (gpu), not a rack of this cluster there (GPU rack "
        "dgx-h100-x4; network racks net-core, net-leaf, net-spine): its 3 rack(s) stay empty, yet are drawn "
        "and costed"
    )
    assert v.figures == {"racks": 3, "row_entry": 1}


def test_user_rows_of_the_halls_gpu_rack_or_a_network_rack_are_no_violation(make_inputs: Make) -> None:
    rows = [
        {"hall": "B1/H1", "origin": [3.0, 11.0], "axis": "x", "racks": 2, "template": "dgx-h100-x4"},
        {"hall": "B1/H1", "origin": [3.0, 0.6], "axis": "x", "racks": 1, "template": "net-spine"},
    ]
    _, p = run(make_inputs({"row": rows, **SQUARE}))
    assert [v for v in p.violations if v.kind == "user_row"] == []


def test_same_input_same_tables(make_inputs: Make) -> None:
    inputs = make_inputs({"cluster": {"gpus": 768}, **hall(polygon=[[0, 0], [20, 0], [20, 12], [0, 12]])})
    _, a = run(inputs)
    _, b = run(inputs)
    assert a.racks.equals(b.racks) and a.rows.equals(b.rows)
    assert np.array_equal(a.device_rack, b.device_rack) and np.array_equal(a.device_ru, b.device_ru)


# a middle-of-rack 30 kW hall (leaf rack pairs stand side by side), a user row of GPU racks the first
# blocks fill, a column that breaks the rows, a hall too small for all
FAST_CASES = {
    "rack pairs": {"cluster": {"design": "mor"}, **hall(max_rack_kw=30.0, polygon=[[0, 0], [14, 0], [14, 6], [0, 6]])},
    "user row": {"row": [{"hall": "B1/H1", "origin": [3.0, 3.8], "axis": "x", "racks": 3, "template": "dgx-h100-x4"}],
                 **hall(polygon=[[0, 0], [14, 0], [14, 10], [0, 10]])},
    "column": hall(columns=[{"at": [5.0, 1.0], "size_m": [0.6, 0.6]}], polygon=[[0, 0], [14, 0], [14, 10], [0, 10]]),
    "too small": {},
}  # fmt: skip


@pytest.mark.parametrize("case", [*FAST_CASES, "seed002-32k", "superpod-4su"])
def test_a_block_laid_whole_in_one_interval_gives_the_spots_of_laying_it_rack_by_rack(
    case: str, make_inputs: Make, inputs_of: Callable[[str], Inputs], monkeypatch: pytest.MonkeyPatch
) -> None:
    """FloorCursor.put_block lays a block that fits the cursor's free interval in one go (not when one
    of its racks would take a user-row slot): the same placement as without that shortcut (every block
    rack by rack)."""
    from layout.place.floor_grid import FloorCursor

    inputs = make_inputs(FAST_CASES[case]) if case in FAST_CASES else inputs_of(case)
    fab = fabric.build(inputs.site.cluster, inputs.catalog, place.fabric_servers_per_rack(inputs))
    taken = []
    here = FloorCursor._block_here

    def counted(self: FloorCursor, *args: Any) -> Any:
        got = here(self, *args)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(FloorCursor, "_block_here", counted)
    fast = place.place(inputs, fab)
    # the one SU's GPU racks take the user row's slots, so not laid in one go (only its spine rack is)
    assert sum(taken) <= 1 if case == "user row" else any(taken)
    monkeypatch.setattr(FloorCursor, "_block_here", lambda self, *args: None)
    slow = place.place(inputs, fab)
    assert fast.racks.equals(slow.racks) and fast.rows.equals(slow.rows)
    assert (fast.device_rack == slow.device_rack).all() and (fast.device_ru == slow.device_ru).all()
    assert fast.violations == slow.violations


@pytest.mark.parametrize("stem", ["campus-100k", "seed002-32k", "gb200-hall"])
def test_the_grid_of_a_hall_is_the_same_without_the_inside_box_shortcut(
    stem: str, inputs_of: Callable[[str], Inputs], monkeypatch: pytest.MonkeyPatch
) -> None:
    """lay_grid works out what is blocked only for the (line, segment) boxes not inside the usable area
    (columns, keep-outs, user rows, walls): every hall's grid is the one from the difference of all."""
    import shapely

    from layout.place.floor_grid import build_halls

    inputs = inputs_of(stem)

    def grids() -> list[Any]:
        halls, cells = build_halls(inputs, place.gpu_racks(inputs), place.network_templates(inputs), {})
        return [h.line_cells for h in halls] + [(c.hall, c.line, c.u0, c.u1, c.v0, c.free) for c in cells]

    fast = grids()
    monkeypatch.setattr(shapely, "within", lambda a, b: np.zeros(len(a), bool))
    assert grids() == fast


def test_row_ids_are_as_wide_as_the_grids_largest_number(make_inputs: Make) -> None:
    """A 40 x 30 m hall of 3 m rows (max_row_racks 5) has some 12 row lines of 9 segments: over 100
    places, so R001-style ids even where the few rows in use are numbered below 100; a row added or
    removed elsewhere then never pads the others again."""
    big = hall(polygon=[[0, 0], [40, 0], [40, 30], [0, 30]], max_row_racks=5, cooling_mw=50.0)
    _, p = run(make_inputs(big))
    ids = p.rows["row"].str.rsplit("/", n=1).str[1].tolist()
    assert ids and all(len(i) == 4 and i[0] == "R" and i[1:].isdigit() for i in ids)
    numbers = [int(i[1:]) for i in ids]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert min(numbers) < 100  # the width comes from the grid, not from the numbers in use
