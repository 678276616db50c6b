"""The scene of hand-built small designs: kW bands and fills by the one palette rule, violation markers
at hand-computed coordinates, aisles beside the rows, and the DXF's rack text equal to ezdxf's own.

The hall: 10 m x 6 m, max 45 kW per rack (the small site's). R01 (x axis, fronts +y) holds three GPU
racks at y = 1.5 m, x = 1.3, 1.9, 2.5 m (0.6 m wide, 1.2 m deep); R02 at y = 3.9 m (fronts -y) a GPU
rack and a leaf rack.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import ezdxf
import numpy as np
import pandas as pd
import pytest
from handbuilt import rack_record

from layout.export import dxf
from layout.export.dxf.sheets import Scales
from layout.load import Inputs
from layout.scene import palette, scene_from_parts
from layout.violations import Violation, hall_key, where_prefixes

LIMIT = 45.0


def _rack(rid: str, kind: str, x: float, y: float, rot: float, width: float, servers: int) -> dict[str, Any]:
    return rack_record(
        rid, "net-leaf" if kind == "network" else "dgx-h100-x4", kind, x, y, rot, width, servers
    )


def placement() -> SimpleNamespace:
    racks = [_rack(f"B1/H1/R01/K0{i + 1}", "gpu", 1.3 + 0.6 * i, 1.5, 0.0, 0.6, 4) for i in range(3)]
    racks += [
        _rack("B1/H1/R02/K01", "gpu", 1.3, 3.9, 180.0, 0.6, 4),
        _rack("B1/H1/R02/K02", "network", 2.0, 3.9, 90.0, 0.8, 0),
    ]
    rows = pd.DataFrame(
        [
            {"row": "B1/H1/R01", "hall": "B1/H1", "axis": "x", "x0_m": 1.0, "y0_m": 1.5, "x1_m": 2.8,
             "y1_m": 1.5, "front_sign": 1, "kind": "gpu", "user_row": False},
            {"row": "B1/H1/R02", "hall": "B1/H1", "axis": "x", "x0_m": 1.0, "y0_m": 3.9, "x1_m": 2.4,
             "y1_m": 3.9, "front_sign": -1, "kind": "gpu", "user_row": False},
        ]
    )  # fmt: skip
    return SimpleNamespace(racks=pd.DataFrame(racks), rows=rows)


# kW: 75 % (mid band), exactly 50 % (first band), exactly the limit (last band within), over, 75 % leaf
KW = [0.75 * LIMIT, 0.5 * LIMIT, LIMIT, 1.01 * LIMIT, 0.75 * LIMIT]

VIOLATIONS = (
    Violation("rack_kw", "B1/H1/R01/K02", "over"),
    Violation("ports", "B1/H1/R02/K01/cage3", "a cage of a rack"),  # deeper than any place: its rack
    Violation("tray_fill", "B1/H1/R01", "row tray full", figures={"x_m": 2.0, "y_m": 1.5}),
    Violation("hall_mw", "B1/H1", "hall over"),
    Violation("capacity", "site", "12 racks do not fit"),
)


@pytest.fixture(scope="module")
def inputs(make_inputs: Callable[..., Inputs]) -> Inputs:
    return make_inputs()


@pytest.fixture(scope="module")
def scene(inputs: Inputs) -> Any:
    assert inputs.site.building[0].hall[0].max_rack_kw == LIMIT
    return scene_from_parts(inputs, placement(), KW, None, VIOLATIONS)


# ------------------------------------------------------------------------------------------- bands
def test_band_boundaries_belong_to_the_lower_band() -> None:
    # rounding noise at the limit (1 + 1e-12) is still within it; 1.0000001 is over
    assert palette.kw_band([0.0, 0.5, 0.500001, 0.75, 0.8, 1.0, 1.0 + 1e-12, 1.0000001, 2.0]).tolist() == [
        0, 0, 1, 1, 1, 2, 2, 3, 3
    ]  # fmt: skip


def test_racks_take_band_and_fill_from_the_one_rule(scene: Any) -> None:
    r = scene.racks
    assert r["limit_kw"].tolist() == [LIMIT] * 5  # the hall's max_rack_kw when no limits are given
    assert r["use"].round(4).tolist() == [0.75, 0.5, 1.0, 1.01, 0.75]
    assert r["band"].tolist() == [1, 0, 2, 3, 1]
    b = palette.BANDS
    # GPU racks by band; the leaf rack at 75 % by its kind, not by its band
    assert r["fill"].tolist() == [b[1].colour, b[0].colour, b[2].colour, b[3].colour, "#3b7dd8"]
    assert r["over"].tolist() == [False, False, False, True, False]
    assert r["label"].tolist() == ["K01", "K02", "K03", "K01", "K02"]


def test_unloaded_racks_are_white_and_other_kinds_keep_their_colour() -> None:
    fill = palette.rack_fill(["gpu", "spine", "gpu", "mystery"], [1, 3, 3, 0], [10.0, 5.0, 0.0, 1.0])
    assert fill.tolist() == [palette.BANDS[1].colour, "#7b4fc9", palette.EMPTY, palette.OTHER_KIND]


def test_footprint_boxes_turn_with_the_rack(scene: Any) -> None:
    r = scene.racks
    # K01 of R01 (0.6 wide along x, 1.2 deep): x 1.0-1.6, y 0.9-2.1; the leaf turned 90: 1.2 along x
    assert r.iloc[0][["x0_m", "y0_m", "x1_m", "y1_m"]].round(6).tolist() == [1.0, 0.9, 1.6, 2.1]
    assert r.iloc[4][["x0_m", "y0_m", "x1_m", "y1_m"]].round(6).tolist() == [1.4, 3.5, 2.6, 4.3]


# ----------------------------------------------------------------------------------------- markers
def test_cdu_boxes_turn_with_the_cdu() -> None:
    from layout.scene.build import cdu_box_table

    cdus = pd.DataFrame({"cdu_id": ["B1/H1/CDU01", "B1/H1/CDU02"], "hall": ["B1/H1"] * 2, "model": ["m"] * 2,
                         "x_m": [2.0, 5.0], "y_m": [30.0, 30.0], "width_m": [1.2, 1.2], "depth_m": [0.8, 0.8],
                         "rotation_deg": [0.0, 90.0]})  # fmt: skip
    t = cdu_box_table(cdus)
    # turned a quarter: 0.8 m along x, 1.2 m along y
    expected = [[1.4, 29.6, 2.6, 30.4], [4.6, 29.4, 5.4, 30.6]]
    assert t[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy() == pytest.approx(np.array(expected))
    assert cdu_box_table(None).empty and list(cdu_box_table(None).columns) == list(t.columns)


def test_where_prefixes_run_from_the_most_specific_place() -> None:
    assert where_prefixes("B1/H1/R03/K07") == ["B1/H1/R03/K07", "B1/H1/R03", "B1/H1", "B1"]
    assert hall_key("B1/H1/R03/K07") == "B1/H1"
    assert hall_key("B1") == "" and hall_key("site") == ""


def test_markers_sit_at_hand_computed_coordinates(scene: Any) -> None:
    m = scene.markers.set_index("where")
    # numbered by (where, kind, message): B1/H1, B1/H1/R01, B1/H1/R01/K02, B1/H1/R02/K01/cage3, site
    assert m["number"].to_dict() == {
        "B1/H1": 1, "B1/H1/R01": 2, "B1/H1/R01/K02": 3, "B1/H1/R02/K01/cage3": 4, "site": 5
    }  # fmt: skip
    box = ["x0_m", "y0_m", "x1_m", "y1_m"]
    # a rack: a square as wide as its longer side (1.2 m) around its centre (1.9, 1.5)
    assert m.loc["B1/H1/R01/K02", box].round(6).tolist() == [1.3, 0.9, 2.5, 2.1]
    # a cage names no place itself: its rack K01 of R02 at (1.3, 3.9)
    assert m.loc["B1/H1/R02/K01/cage3", box].round(6).tolist() == [0.7, 3.3, 1.9, 4.5]
    # a point in the figures wins over the row it names: 1 m either side of (2.0, 1.5)
    assert m.loc["B1/H1/R01", box].round(6).tolist() == [1.0, 0.5, 3.0, 2.5]
    # the hall: its polygon's box (the small site's 10 m x 6 m hall at the origin)
    assert m.loc["B1/H1", box].tolist() == [0.0, 0.0, 10.0, 6.0]
    assert m.loc["site", box].isna().all() and m.loc["site", "hall"] == ""
    assert m.loc["B1/H1/R02/K01/cage3", "hall"] == "B1/H1"


# ------------------------------------------------------------------------------------------ aisles
def test_half_aisles_lie_in_front_of_and_behind_each_row(scene: Any) -> None:
    a = scene.aisles
    r01 = a[a["row"] == "B1/H1/R01"].set_index("kind")
    hall = scene.campus.hall("B1/H1")
    half = 0.6  # the hall's deepest rack is 1.2 m
    # R01 fronts +y from y = 1.5: the cold half aisle from its face (2.1) out by half a cold aisle
    assert r01.loc["cold", ["x0_m", "y0_m", "x1_m", "y1_m"]].tolist() == pytest.approx(
        [1.0, 1.5 + half, 2.8, 1.5 + half + hall.cold_aisle_m / 2]
    )
    assert r01.loc["hot", ["y0_m", "y1_m"]].tolist() == pytest.approx(
        [1.5 - half, 1.5 - half - hall.hot_aisle_m / 2]
    )
    r02 = a[a["row"] == "B1/H1/R02"].set_index("kind")
    assert r02.loc["cold", "y1_m"] == pytest.approx(3.9 - half - hall.cold_aisle_m / 2)  # fronts -y


def test_campus_lists_buildings_and_halls(scene: Any) -> None:
    c = scene.campus
    assert [b[0] for b in c.buildings] == ["B1"] and [h.key for h in c.halls] == ["B1/H1"]


# ------------------------------------------------------------------------------------- dxf racks
def _marks(scene: Any) -> Any:
    order = scene.racks.sort_values("rack_id", kind="stable")
    scales = Scales(scene, dxf.plan_sheets(scene))
    return order, dxf.rack_marks(order, scene.templates, scales)


def _ezdxf_racks(scene: Any) -> Any:
    """The racks as ezdxf itself builds and writes them, one entity at a time (the old way)."""
    doc = ezdxf.new(dxf.DXF_VERSION, setup=False)
    msp = doc.modelspace()
    order, marks = _marks(scene)
    for r, m in zip(order.to_dict("records"), marks.to_dict("records"), strict=True):
        at = (r["x_m"] * 1000.0, r["y_m"] * 1000.0)
        ins = msp.add_blockref(
            dxf.rack_block_name(r["template"]),
            at,
            dxfattribs={"layer": dxf.RACK_LAYER[r["kind"]], "rotation": r["rotation_deg"]},
        )
        values = (r["rack_id"], r["template"], f"{r['power_kw']:.1f}", str(r["gpus"]), r["row"], r["hall"])
        for k, (tag, value) in enumerate(zip(dxf.RACK_ATTRIBS, values, strict=True)):
            ins.add_attrib(tag, value, (m[f"attr_x{k}"], m[f"attr_y{k}"]),
                           dxfattribs={"layer": "E-RACK-IDEN", "height": m["attr_h"], "flags": 1,
                                       "rotation": r["rotation_deg"]})  # fmt: skip
        if m["tag_h"] > 0:
            tag_at = (m["tag_x"], m["tag_y"])
            msp.add_text(
                r["label"],
                height=m["tag_h"],
                rotation=m["tag_rot"],
                dxfattribs={"layer": "E-RACK-IDEN", "style": dxf.NOTE_STYLE, "halign": 1, "valign": 2,
                            "insert": tag_at, "align_point": tag_at},
            )  # fmt: skip
    return doc


def test_rack_text_is_what_ezdxf_writes(
    scene: Any, written_entities: Callable[[Any], tuple[str, str, int]]
) -> None:
    expected, owner, first = written_entities(_ezdxf_racks(scene))
    assert expected.startswith("  0\nINSERT\n")
    order, marks = _marks(scene)
    got = dxf.rack_entities_text(order, marks, first, owner)
    # ezdxf numbers the handles one after the other; the writer keeps a tag's handle for a rack without
    # one (none here: every rack of this 1:20 hall has its tag)
    assert (marks["tag_h"] > 0).all()
    assert got == expected
    assert got.count("\n  0\nATTRIB\n") + got.startswith("  0\nATTRIB\n") == 6 * len(order)
    assert np.all(order["rotation_deg"].to_numpy() >= 0)


def test_locate_gives_the_hall_and_the_centre_of_the_marked_place(scene: Any) -> None:
    assert scene.locate("B1/H1/R01/K02") == ("B1/H1", pytest.approx(1.9), pytest.approx(1.5))
    assert scene.locate("B1/H1/R01", {"x_m": 2.0, "y_m": 1.5}) == ("B1/H1", 2.0, 1.5)
    assert scene.locate("B1") == ("B1/H1", 5.0, 3.0)  # a building: its first hall's middle
    assert scene.locate("site") is None and scene.locate("B9/H1/R01") is None


def test_pods_by_hall_lists_each_halls_pods_of_placed_servers_sorted() -> None:
    from layout.scene.build import pods_by_hall

    devices = pd.DataFrame(
        {
            "tier": [0, 0, 0, 0, 0, 1, 0, 0],  # the tier-1 switch and the unplaced server do not count
            "pod": [3, -1, 3, 0, 2, 7, 5, 2],
        }
    )
    racks = pd.DataFrame({"hall": ["B2/H1", "B1/H1", "B1/H2"]})
    placement = SimpleNamespace(device_rack=np.array([0, 1, 0, 1, 2, 2, -1, 0]), racks=racks)
    got = pods_by_hall(SimpleNamespace(devices=devices), placement)
    assert got == {"B1/H1": (-1, 0), "B1/H2": (2,), "B2/H1": (2, 3)}
    assert list(got) == sorted(got)
    none = SimpleNamespace(device_rack=np.full(8, -1), racks=racks)
    assert pods_by_hall(SimpleNamespace(devices=devices), none) == {}


def test_a_row_trays_label_side_follows_the_rotation_of_the_rows_first_rack_by_id() -> None:
    from layout.scene.build import _row_rear

    racks = pd.DataFrame(
        {
            "rack_id": ["B1/H1/R02/K02", "B1/H1/R01/K10", "B1/H1/R01/K02", "B1/H1/R02/K01"],
            "row": ["B1/H1/R02", "B1/H1/R01", "B1/H1/R01", "B1/H1/R02"],
            "rotation_deg": [0.0, 180.0, 90.0, 270.0],
            "depth_m": [1.2, 1.0, 1.4, 1.1],
        }
    )
    rotation, deep = _row_rear(racks)
    # R01's smallest id is K02 (third in the table), R02's is K01 (last): pandas' sort and dedup agree
    assert rotation == {"B1/H1/R01": 90.0, "B1/H1/R02": 270.0}
    assert deep == {"B1/H1/R01": 1.4, "B1/H1/R02": 1.2}
    first = racks.sort_values("rack_id", kind="stable").drop_duplicates("row")
    assert dict(zip(first["row"], first["rotation_deg"], strict=True)) == rotation
