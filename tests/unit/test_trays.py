"""The tray network on hand-built sites: geometry checked against hand-computed metres.

Ring rule (layout.cable.trays): the perimeter tray runs 0.6 m (half the 1.2 m cross aisle) outside the
racks' footprint when the wall is far enough; row trays run from ring side to ring side, cross trays in
the middle of the gaps between row segments.
"""

from __future__ import annotations

import math

import handbuilt as hb
import numpy as np
import pandas as pd
import pytest

from layout.cable import CableInput, route
from layout.cable.trays import DUCT_CONDUIT_BORE_MM, DUCT_FILL_LIMIT, RU_M, build
from layout.memo import Memo, Scope, Token
from layout.model.site import Duct


def one_row_racks() -> object:
    racks = hb.racks_table(
        [("B1/H1/R01/K01", 5.25, 5), ("B1/H1/R01/K02", 5.75, 5), ("B1/H1/R01/K03", 6.25, 5)], width_m=0.5
    )
    return hb.placement(racks, [], [])


def dist(trays: object, a: int, b: int) -> float:
    p = route.tray_paths(trays, np.array([a]), np.array([b]))  # type: ignore[arg-type]
    return float(p.dist_m[p.pair][0])


def edges_of(trays: object, kind: str) -> list[float]:
    e = trays.edges  # type: ignore[attr-defined]
    return sorted(round(float(x), 6) for x in e.loc[e["kind"] == kind, "length_m"])


def test_one_row_gets_a_ring_a_row_tray_a_trunk_and_a_riser() -> None:
    # racks x 5.0..6.5, y 4.4..5.6 -> ring x 4.4..7.1, y 3.8..6.2; door (4.4, 5) towards the entry (0, 5)
    t = build(CableInput.of(hb.site("one-row")), one_row_racks())
    assert edges_of(t, "row") == [2.7]
    assert edges_of(t, "cross") == [1.2, 1.2, 1.2, 1.2, 2.7, 2.7]
    assert edges_of(t, "trunk") == [4.4]
    assert edges_of(t, "riser") == [2.9]
    assert t.tray_m() == {"row": 2.7, "cross": 10.2, "trunk": 4.4, "riser": 2.9, "duct": 0.0, "user": 0.0}
    doors = t.nodes[t.nodes["kind"] == "door"]
    assert doors[["x_m", "y_m", "z_m"]].values.tolist() == [[4.4, 5.0, 2.9]]
    entry = t.nodes[t.nodes["kind"] == "entry"]
    assert entry[["x_m", "y_m", "z_m"]].values.tolist() == [[0.0, 5.0, 0.0]]
    assert t.rack_offset_m.tolist() == pytest.approx([0.85, 1.35, 1.85])
    assert (t.rack_z_m == 2.9).all()
    assert t.rack_drop_m == pytest.approx(2.9 - 48 * RU_M / 2)
    assert dist(t, 0, 2) == pytest.approx(1.0)


def test_hall_tray_spec_sets_width_and_capacity_and_ducts_are_a_conduit_bank() -> None:
    def narrow(data: dict) -> None:
        data["building"][0]["hall"][0]["tray"] = {
            "height_m": 3.2,
            "width_mm": 300,
            "depth_mm": 150,
            "fill_limit": 0.4,
        }

    t = build(CableInput.of(hb.site_edited("one-row", narrow)), one_row_racks())
    row = t.edges[t.edges["kind"] == "row"].iloc[0]
    assert (row["width_mm"], row["depth_mm"], row["fill_limit"]) == (300, 150, 0.4)
    assert row["capacity_mm2"] == pytest.approx(300 * 150 * 0.4)
    assert (t.rack_z_m == 3.2).all()

    racks = hb.racks_table([("B1/H1/R01/K01", 30.3, 10), ("B2/H1/R01/K01", 1049.1, 10)])
    t = build(CableInput.of(hb.site("two-buildings")), hb.placement(racks, [], []))
    duct = t.edges[t.edges["kind"] == "duct"]
    assert duct["length_m"].tolist() == [1000.0]
    bank = Duct.model_fields["conduits"].default * math.pi * (DUCT_CONDUIT_BORE_MM / 2) ** 2 * DUCT_FILL_LIMIT
    assert duct["capacity_mm2"].iloc[0] == pytest.approx(bank)


def test_row_segments_share_a_tray_line_split_by_the_cross_tray_between_them() -> None:
    # R01 x 5.0..6.2 and R02 x 8.0..9.2 on y = 5: cross tray at x 7.1, ring x 4.4..9.8
    racks = hb.racks_table(
        [
            ("B1/H1/R01/K01", 5.3, 5),
            ("B1/H1/R01/K02", 5.9, 5),
            ("B1/H1/R02/K01", 8.3, 5),
            ("B1/H1/R02/K02", 8.9, 5),
        ]
    )
    t = build(CableInput.of(hb.site("one-row")), hb.placement(racks, [], []))
    assert edges_of(t, "row") == [2.7, 2.7]
    assert edges_of(t, "cross") == [1.2] * 6 + [2.7] * 4  # ring top and bottom split at x 7.1
    assert dist(t, 1, 2) == pytest.approx(8.3 - 5.9)
    assert dist(t, 0, 3) == pytest.approx(8.9 - 5.3)


@pytest.mark.parametrize("axis", ["x", "y"])
def test_parallel_rows_meet_on_the_ring(axis: str) -> None:
    # rows at 5 and 8 across, racks 5.0..6.2 along: ring 0.6 beyond, so R01/K01 -> R02/K01 is
    # 0.9 to the ring + 3.0 along it + 0.9 back
    def xy(along: float, across: float) -> tuple[float, float]:
        return (along, across) if axis == "x" else (across, along)

    specs = [
        (f"B1/H1/R0{r}/K0{k}", *xy(5.3 + 0.6 * (k - 1), 5.0 + 3 * (r - 1))) for r in (1, 2) for k in (1, 2)
    ]
    racks = hb.racks_table(specs, axis=axis)
    t = build(CableInput.of(hb.site("one-row")), hb.placement(racks, [], [], axis=axis))
    assert edges_of(t, "row") == [2.4, 2.4]
    assert dist(t, 0, 2) == pytest.approx(0.9 + 3.0 + 0.9)
    assert dist(t, 1, 3) == pytest.approx(0.9 + 3.0 + 0.9)


def _two_halls(data: dict) -> None:
    """One building of two halls side by side: H1 x 0..20 and H2 x 22..42 (a 2 m wall), y 0..10, its
    entry 30 m south."""
    b = data["building"][0]
    b["footprint"] = [[0, -30], [42, -30], [42, 10], [0, 10]]
    b["entry"] = [21, -30]
    b["hall"] = [
        {"id": "H1", "polygon": [[0, 0], [20, 0], [20, 10], [0, 10]]},
        {"id": "H2", "polygon": [[22, 0], [42, 0], [42, 10], [22, 10]]},
    ]


def test_neighbour_halls_get_a_pass_through_trunk() -> None:
    # H1 x 0..20 and H2 x 22..42 (2 m wall); rows on y = 5; rings H1 x 13.4..15.8, H2 x 26.2..28.6;
    # the pass-through joins (15.8, 5) and (26.2, 5): 10.4 m; the entry is 30 m south
    racks = hb.racks_table(
        [
            ("B1/H1/R01/K01", 14.3, 5),
            ("B1/H1/R01/K02", 14.9, 5),
            ("B1/H2/R01/K01", 27.1, 5),
            ("B1/H2/R01/K02", 27.7, 5),
        ]
    )
    t = build(CableInput.of(hb.site_edited("one-row", _two_halls)), hb.placement(racks, [], []))
    passes = t.edges[t.edges["where"].str.contains("pass-through")]
    assert passes["length_m"].tolist() == pytest.approx([10.4])
    assert dist(t, 1, 2) == pytest.approx(0.9 + 10.4 + 0.9)


def test_block_cuts_a_row_tray_where_it_crosses_and_removes_other_trays() -> None:
    def block(data: dict) -> None:
        data["tray_block"] = [{"hall": "B1/H1", "line": [[5.5, 0], [5.5, 10]]}]

    t = build(CableInput.of(hb.site_edited("one-row", block)), one_row_racks())
    # the row tray is cut at x 5.5: K01 keeps the west piece, K02 and K03 the east one
    assert t.rack_edge[0] != t.rack_edge[1] == t.rack_edge[2]
    assert edges_of(t, "row") == pytest.approx([5.5 - 4.4 - 0.001, 7.1 - 5.5 - 0.001])
    assert t.rack_offset_m.tolist() == pytest.approx([0.85, 0.25 - 0.001, 0.75 - 0.001])
    assert (t.nodes["kind"] == "cut").sum() == 2
    assert sorted(t.blocked["kind"]) == ["cross", "cross", "row"]  # ring top and bottom, and the row
    assert math.isinf(dist(t, 0, 2))
    assert dist(t, 1, 2) == pytest.approx(0.5)


def test_block_along_a_tray_leaves_its_racks_without_a_tray() -> None:
    def block(data: dict) -> None:
        data["tray_block"] = [{"hall": "B1/H1", "line": [[4.0, 5.0], [8.0, 5.0]]}]

    t = build(CableInput.of(hb.site_edited("one-row", block)), one_row_racks())
    assert (t.rack_edge == -1).all()
    assert edges_of(t, "row") == []


def test_tray_add_snaps_its_ends_to_the_nearest_nodes() -> None:
    def add(data: dict) -> None:
        data["tray_add"] = [{"hall": "B1/H1", "line": [[4.3, 3.7], [4.4, 1.0], [7.1, 1.0], [7.2, 3.7]]}]

    t = build(CableInput.of(hb.site_edited("one-row", add)), one_row_racks())
    assert edges_of(t, "user") == pytest.approx([2.7, 2.8, 2.8])  # ends snapped to (4.4, 3.8), (7.1, 3.8)
    assert (t.nodes["kind"] == "user").sum() == 2


def test_building_without_entry_gets_one_on_its_wall() -> None:
    def no_entry(data: dict) -> None:
        del data["building"][0]["entry"]

    t = build(CableInput.of(hb.site_edited("one-row", no_entry)), one_row_racks())
    e = t.nodes[t.nodes["kind"] == "entry"].iloc[0]
    assert e["x_m"] in (0.0, 20.0) or e["y_m"] in (0.0, 10.0)
    assert t.edges["kind"].eq("riser").sum() == 1


# ------------------------------------------------------------------------ kept hall pieces (memo)
def _three_rows(middle_y: float = 5.0) -> object:
    # rows along x at y 3, middle_y, 7; racks x 5.0..6.2: ring x 4.4..6.8, y 1.8..8.2, door (4.4, 5)
    specs = [
        (f"B1/H1/R0{r}/K0{k}", 5.3 + 0.6 * (k - 1), y)
        for r, y in ((1, 3.0), (2, middle_y), (3, 7.0))
        for k in (1, 2)
    ]
    return hb.placement(hb.racks_table(specs), [], [])


def _assert_same_trays(a: object, b: object) -> None:
    import dataclasses

    import pandas as pd

    for f in dataclasses.fields(a):  # type: ignore[arg-type]
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, pd.DataFrame):
            pd.testing.assert_frame_equal(x, y, check_exact=True)
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), f.name
        else:
            assert [v.message for v in x] == [v.message for v in y], f.name


def _edited(part: str) -> tuple[object, object]:
    """The one-row site with three rows, and an edit of it that changes one part of the hall's piece key
    alone: its rows (the middle row moves), its ring (the top wall comes closer: the ring's top side
    moves in, nothing else), its tray spec (narrower) or its ring's split points (the entry moves, so
    the door does)."""

    def wall(data: dict) -> None:
        data["building"][0]["hall"][0]["polygon"] = [[0, 0], [20, 0], [20, 8], [0, 8]]

    def narrow(data: dict) -> None:
        data["building"][0]["hall"][0]["tray"]["width_mm"] = 450

    def entry(data: dict) -> None:
        data["building"][0]["entry"] = [0, 4]

    if part == "rows":
        return hb.site("one-row"), _three_rows(5.5)
    edit = {"ring": wall, "tray": narrow, "points": entry}[part]
    return hb.site_edited("one-row", edit), _three_rows()


PIECE_PARTS = ("rows", "ring", "tray", "points")


@pytest.mark.parametrize("part", PIECE_PARTS)
def test_a_kept_hall_piece_gives_the_trays_of_a_fresh_build(part: str) -> None:
    memo = Memo()
    cache = Scope(memo, Token(""))
    base, place = hb.site("one-row"), _three_rows()
    first = build(CableInput.of(base), place, cache)
    _assert_same_trays(first, build(CableInput.of(base), place))
    _assert_same_trays(
        build(CableInput.of(base), place, cache), build(CableInput.of(base), place)
    )  # the kept piece, taken
    assert memo.sizes() == {"cable.hall_trays": 1}
    inputs, moved = _edited(part)
    cold = build(CableInput.of(inputs), moved)
    assert len(cold.edges) != len(build(CableInput.of(base), place).edges) or not cold.edges.equals(
        build(CableInput.of(base), place).edges
    )
    _assert_same_trays(build(CableInput.of(inputs), moved, cache), cold)
    assert memo.sizes() == {"cable.hall_trays": 2}  # made again: a new piece


@pytest.mark.parametrize("part", PIECE_PARTS)
def test_leaving_a_part_out_of_the_hall_piece_key_is_caught(
    monkeypatch: pytest.MonkeyPatch, part: str
) -> None:
    from conftest import leave_out

    from layout.cable import trays

    leave_out(monkeypatch, trays, "hall_trays_key", part)
    cache = Scope(Memo(), Token(""))
    build(CableInput.of(hb.site("one-row")), _three_rows(), cache)
    inputs, moved = _edited(part)
    with pytest.raises(AssertionError):
        _assert_same_trays(build(CableInput.of(inputs), moved, cache), build(CableInput.of(inputs), moved))


def test_an_edit_of_one_hall_lays_that_halls_trays_alone() -> None:
    # two halls of one building (the pass-through test's): moving a rack of H2 keeps H1's piece

    def place(h2_y: float) -> object:
        specs = [
            ("B1/H1/R01/K01", 14.3, 5),
            ("B1/H1/R01/K02", 14.9, 5),
            ("B1/H2/R01/K01", 27.1, 5),
            ("B1/H2/R01/K02", 27.7, 5),
            ("B1/H2/R02/K01", 27.1, h2_y),
            ("B1/H2/R02/K02", 27.7, h2_y),
        ]
        return hb.placement(hb.racks_table(specs), [], [])

    inputs = hb.site_edited("one-row", _two_halls)
    memo = Memo()
    cache = Scope(memo, Token(""))
    first = build(CableInput.of(inputs), place(7.0), cache)
    assert memo.sizes() == {"cable.hall_trays": 2}
    again = build(CableInput.of(inputs), place(7.5), cache)
    _assert_same_trays(again, build(CableInput.of(inputs), place(7.5)))
    assert memo.sizes() == {"cable.hall_trays": 3}  # H2's new piece; H1's taken
    h1 = first.nodes["hall"] == "B1/H1"
    pd.testing.assert_frame_equal(first.nodes[h1], again.nodes[again.nodes["hall"] == "B1/H1"])
