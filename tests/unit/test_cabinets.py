"""Fibre cabinets on the floor (layout/cable/cabinets.py) and the free floor they stand on
(layout/place/free_floor.py): positions and the nearest-first choice by hand; on shipped designs, every
cabinet checked against the floor independently (walls, racks, columns, keep-outs, CDUs, each other,
and its own front and back aisle by the placer's aisle rule); the floor kept free per row when a hall
runs out (``fibre_positions``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import shapely
from shapely.geometry import Polygon

from layout import design
from layout.cable import cabinets as cablib
from layout.place import hall_floor, rack_polygons
from layout.place.aisles import AISLE_COLUMNS, hall_aisle_checks


def _free(**over: Any) -> pd.DataFrame:
    """One free interval along x from 2.0 to 4.0 m of row place 7 (fronts on y = 10 facing +y)."""
    row = {"hall": "B1/H1", "row": "B1/H1/R07", "place": 7, "axis": "x", "lo_m": 2.0, "hi_m": 4.0,
           "front_m": 10.0, "front_sign": 1, "band_m": 1.2, "room": 5, "rack_lo": False, "rack_hi": False}  # fmt: skip
    row.update(over)
    return pd.DataFrame([row])


def test_positions_by_hand() -> None:
    # 2 m holds 3 cabinets of 0.6 m, from lo: centres 2.3, 2.9, 3.5; 1.2 m deep, fronts on y = 10: y = 9.4
    pos = cablib.positions(_free(), 0.6, 1.2)
    assert pos["x_m"].tolist() == [2.3, 2.9, 3.5]
    assert pos["y_m"].tolist() == [9.4] * 3 and pos["rotation_deg"].tolist() == [0.0] * 3
    # a rack stands at hi (and none at lo): packed from hi, so they continue that row
    assert cablib.positions(_free(rack_hi=True), 0.6, 1.2)["x_m"].tolist() == [3.7, 3.1, 2.5]
    # the row's room caps them; a cabinet deeper than the band has no place
    assert len(cablib.positions(_free(room=2), 0.6, 1.2)) == 2
    assert len(cablib.positions(_free(), 0.6, 1.3)) == 0
    # rows along y facing -x: fronts on x = 10, the cabinet's centre 0.6 m to +x, turned 90 degrees
    pos = cablib.positions(_free(axis="y", front_sign=-1), 0.6, 1.2)
    assert pos["x_m"].tolist() == [10.6] * 3 and pos["y_m"].tolist() == [2.3, 2.9, 3.5]
    assert pos["rotation_deg"].tolist() == [90.0] * 3


def test_nearest_first_by_hand() -> None:
    # two locations in one hall; a row place of room 3 (3 m free: 3 positions, the room's) and 1 position
    # in another row
    free = pd.concat(
        [
            _free(lo_m=0.0, hi_m=3.0, room=3),
            _free(place=8, row="B1/H1/R08", lo_m=20.0, hi_m=20.6, front_m=20.0),
        ]
    )
    pos = cablib.positions(free, 0.6, 1.2)
    racks = pd.DataFrame(
        {
            "rack_id": ["B1/H1/R01/K01", "B1/H1/R02/K01"],
            "hall": ["B1/H1", "B1/H1"],
            "x_m": [0.0, 21.0],
            "y_m": [9.4, 19.4],
        }  # fmt: skip
    )
    # rack 0 wants 2 (the most first): x 0.3 and 0.9 (runs 0.3 and 0.9 m); rack 1 wants 2: its nearest is
    # the lone position at x 20.3 (0.7 m), then the row of room 3 has one left: x 1.5 (19.5 + 10 m)
    cab = cablib.place(np.array([0, 1]), np.array([2, 2]), racks, pos)
    t = cab.table
    assert t["cabinet_id"].tolist() == [
        "B1/H1/R01/K01/FC01", "B1/H1/R01/K01/FC02", "B1/H1/R02/K01/FC01", "B1/H1/R02/K01/FC02",
    ]  # fmt: skip
    assert t["x_m"].tolist() == [0.3, 0.9, 20.3, 1.5]
    assert t["run_m"].tolist() == pytest.approx([0.3, 0.9, 0.7, 29.5])
    assert cab.run_m.tolist() == pytest.approx([0.9, 29.5]) and cab.short.tolist() == [0, 0]
    # rack 1 wants 3, so it chooses first: x 20.3, then the nearest of the row's 3 positions (its room:
    # 0.3, 0.9, 1.5 from the end it is packed from): 1.5, 0.9; rack 0 gets 0.3: one short, named
    cab = cablib.place(np.array([0, 1]), np.array([2, 3]), racks, pos)
    assert cab.table["x_m"].tolist() == [0.3, 20.3, 1.5, 0.9]
    assert cab.short.tolist() == [1, 0]
    (v,) = cablib.violations(cab, racks)
    assert v.kind == "cabinets" and v.where == "B1/H1/R01/K01"
    assert "1 fibre cabinets of 1 panel locations in B1/H1" in v.message and "needs 2, 1 placed" in v.message


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall", "seed002-32k"])
def test_shipped_cabinets_stand_on_free_floor(design_of: Any, stem: str) -> None:
    d = design_of(stem)
    cab = d.cabling.plant.cabinets
    p = d.cabling.plant.panels
    assert len(cab) == int(p["cabinets"].sum()) > 0
    assert not [v for v in d.violations if v.kind == "cabinets"]
    racks = d.placement.racks
    boxes = rack_polygons(cab)
    # no two cabinets overlap, none stands on a rack, a CDU, a column or a keep-out, all inside the
    # walls' clearance
    assert shapely.area(shapely.intersection_all(boxes)) == 0 if len(boxes) > 1 else True
    tree = shapely.STRtree(boxes)
    a, b = tree.query(boxes, predicate="intersects")
    pairs = a != b
    assert (shapely.area(shapely.intersection(boxes[a[pairs]], boxes[b[pairs]])) < 1e-9).all()
    taken = list(rack_polygons(racks))
    cdus = d.liquid.cdus
    if len(cdus):
        taken += list(rack_polygons(cdus[cdus["placed"].astype(bool)]))
    for _, h in d.inputs.site.halls():
        inner, obstacles = hall_floor(h)
        taken += obstacles
    t = np.asarray(taken, dtype=object)
    i, j = shapely.STRtree(t).query(boxes, predicate="intersects")
    assert (shapely.area(shapely.intersection(boxes[i], t[j])) < 1e-9).all()
    for b_, h in d.inputs.site.halls():
        key = f"{b_.id}/{h.id}"
        mine = boxes[cab["hall"].to_numpy() == key]
        inner = Polygon(h.polygon).buffer(-h.wall_clearance_m, join_style="mitre")
        assert shapely.contains(inner.buffer(1e-6), mine).all(), key
    # each cabinet keeps its front and back aisle clear, as the placer's aisle rule checks racks: the
    # racks and the cabinets together raise no aisle violation
    both = pd.concat(
        [
            racks[[*AISLE_COLUMNS, "hall"]],
            cab.assign(rack_id=cab["cabinet_id"], user_row=False)[[*AISLE_COLUMNS, "hall"]],
        ]
    )
    parts = [
        (str(k), {c: g[c].to_numpy() for c in AISLE_COLUMNS}) for k, g in both.groupby("hall", sort=True)
    ]
    assert hall_aisle_checks(d.inputs, parts) == []
    # every location's cords reach its farthest cabinet
    far = cab.groupby("rack")["run_m"].max()
    extra = p.set_index("rack")["cord_extra_m"].reindex(far.index)
    assert (extra.to_numpy() >= far.to_numpy() - 1e-9).all()
    # the run by hand: the floor distance (along x plus along y) from the location's rack
    rx, ry = racks["x_m"].to_numpy()[cab["rack"]], racks["y_m"].to_numpy()[cab["rack"]]
    assert np.allclose(cab["run_m"], np.abs(cab["x_m"] - rx) + np.abs(cab["y_m"] - ry))


def test_free_floor_holds_no_rack(design_of: Any) -> None:
    """The free floor of the gb200 hall: none of its intervals (as deep as its band) touches a rack's
    footprint, and the racks of a row place plus its free length fit that place's grid length."""
    d = design_of("gb200-hall")
    free = d.placement.free
    assert len(free) and (free["hi_m"] > free["lo_m"]).all()
    along_x = free["axis"].to_numpy() == "x"
    lo, hi = free["lo_m"].to_numpy(), free["hi_m"].to_numpy()
    front, sign, band = free["front_m"].to_numpy(), free["front_sign"].to_numpy(), free["band_m"].to_numpy()
    a0, a1 = np.minimum(front, front - sign * band), np.maximum(front, front - sign * band)
    boxes = np.where(along_x, shapely.box(lo, a0, hi, a1), shapely.box(a0, lo, a1, hi))
    racks = rack_polygons(d.placement.racks)
    i, j = shapely.STRtree(racks).query(boxes, predicate="intersects")
    assert (shapely.area(shapely.intersection(boxes[i], racks[j])) < 1e-9).all()
    # room: max_row_racks and the positions kept for fibre, less the racks in the place
    ((b, h),) = d.inputs.site.halls()
    assert (free["room"] <= h.max_row_racks + (h.fibre_positions or 0)).all() and (free["room"] > 0).all()


def test_a_full_hall_keeps_floor_for_its_cabinets(make_inputs: Any) -> None:
    """A 10 x 10 m hall the placer fills first, a larger one beside it: with one 1U panel to a cabinet
    the first placement leaves H1's fibre cabinets no floor, so the design places again with rack
    positions kept free at each row's start of H1 (``fibre_positions``); racks move to H2 and every
    cabinet stands. A hall that sets ``fibre_positions`` itself is placed as it says."""
    inputs = _with_plant(make_inputs(_two_halls()), cabinet_ru=1, panel_fibres=144)
    steps: list[str] = []
    d = design.run(inputs, progress=steps.append)
    assert steps.count("place") >= 2
    kept = d.placement.fibre_positions["B1/H1"]
    assert kept >= 1 and "B1/H2" not in d.placement.fibre_positions
    assert d.violations == ()
    assert len(d.cabling.plant.cabinets) == int(d.cabling.plant.panels["cabinets"].sum()) > 0
    racks = d.placement.racks
    assert set(racks["hall"]) == {"B1/H1", "B1/H2"} and d.placement.racks_missing == 0
    # each placer row of H1 starts after the kept positions: its place's free floor begins with them
    free = d.placement.free
    for row in d.placement.rows.loc[d.placement.rows["hall"] == "B1/H1", "row"].tolist():
        f = free[free["row"] == row]
        assert len(f) and (f["hi_m"] - f["lo_m"]).max() >= kept * 0.6 - 1e-9, row
    # the summary says how many positions each row kept
    assert d.summary()["halls"]["B1/H1"]["fibre_positions"] == kept
    # set by the site: one placement, no position kept, and the cabinets short are a violation
    fixed = _with_plant(make_inputs(_two_halls(fibre_positions=0)), cabinet_ru=1, panel_fibres=144)
    steps = []
    d0 = design.run(fixed, progress=steps.append)
    assert steps.count("place") == 1 and d0.placement.fibre_positions == {}
    assert [v.kind for v in d0.violations] == ["cabinets"]


def _with_plant(inputs: Any, **plant: Any) -> Any:
    import dataclasses

    cat = inputs.catalog
    return dataclasses.replace(
        inputs, catalog=cat.model_copy(update={"plant": cat.plant.model_copy(update=plant)})
    )


def _two_halls(**h1: Any) -> dict[str, Any]:
    from conftest import SMALL_SITE

    base = SMALL_SITE["building"][0]["hall"][0]
    halls = [
        {**base, "polygon": [[0, 0], [10, 0], [10, 10], [0, 10]], "cooling_mw": 20.0, **h1},
        {**base, "id": "H2", "polygon": [[0, 14], [30, 14], [30, 30], [0, 30]], "cooling_mw": 20.0},
    ]
    footprint = [[0, 0], [40, 0], [40, 31], [0, 31]]
    return {
        "cluster": {"gpus": 1024},
        "site": {"utility_mw": 20.0},
        "building": {0: {"hall": halls, "footprint": footprint}},
    }


def test_the_workbook_lists_every_cabinet_with_its_panels(design_of: Any, tmp_path: Path) -> None:
    """The XLSX's Fibre cabinets sheet, read back with openpyxl: a row per cabinet where the plan draws
    it, and its panels add up to the panels beyond each location's free U."""
    import openpyxl

    from layout.export.tables.design import write_tables_of

    d = design_of("gb200-hall")
    (path,) = write_tables_of(d, tmp_path, xlsx=True)
    ws = openpyxl.load_workbook(path, read_only=True)["Fibre cabinets"]
    rows = list(ws.iter_rows(values_only=True))
    head, body = rows[0], [r for r in rows[1:] if r[0]]
    cab = d.cabling.plant.cabinets
    assert len(body) == len(cab) > 0
    got = {r[head.index("cabinet_id")]: r for r in body}
    for c in cab.to_dict("records"):
        r = got[c["cabinet_id"]]
        assert (r[head.index("x_m")], r[head.index("y_m")]) == pytest.approx((c["x_m"], c["y_m"]))
        assert r[head.index("location")] == d.placement.racks["rack_id"].iat[c["rack"]]
    p = d.cabling.plant.panels
    beyond = int((p["panels"] - p["in_rack"])[p["cabinets"] > 0].sum())
    held = [int(r[head.index("panels_1u")]) for r in body]
    assert sum(held) == beyond and max(held) <= d.inputs.catalog.plant.cabinet_ru and min(held) >= 1
