"""Aisles stay clear of columns and keep-outs (layout/place/floor_grid.py, layout/place/aisles.py).

The small site (tests/conftest.py): usable floor x 0.5..9.5, y 0.5..5.5 (or higher with a taller hall);
1.2 m deep racks, a 1.2 m cold aisle then a 1.2 m hot aisle: a pair of row lines is 4.8 m. Row line 0
(fronts +y) reaches from its hot aisle below to the cold aisle above, line 1 (fronts -y) from the cold
aisle to the hot aisle above it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from test_place import hall, run

from layout import place
from layout.load import Inputs
from layout.place import aisles
from layout.place.aisles import AISLE_COLUMNS
from layout.place.floor_grid import build_halls, gpu_racks, network_templates

Make = Callable[..., Inputs]


def lines_of(inputs: Inputs) -> list[float]:
    halls, _ = build_halls(inputs, gpu_racks(inputs), network_templates(inputs), {})
    return [round(v, 6) for v in halls[0].line_v]


def in_aisle(racks: Any, col: tuple[float, float, float, float], cold: float, hot: float) -> list[str]:
    """Racks (rows along x) with a column (x0, y0, x1, y1) in the strip in front of or behind them,
    worked out rack by rack (independent of layout.place.aisles)."""
    x0, y0, x1, y1 = col
    bad = []
    for r in racks.itertuples():
        if not (r.x_m - r.width_m / 2 < x1 - 1e-9 and r.x_m + r.width_m / 2 > x0 + 1e-9):
            continue
        face = r.y_m + r.depth_m / 2 if r.rotation_deg == 0.0 else r.y_m - r.depth_m / 2
        back = r.y_m - r.depth_m / 2 if r.rotation_deg == 0.0 else r.y_m + r.depth_m / 2
        sign = 1.0 if r.rotation_deg == 0.0 else -1.0
        for edge, depth in ((face, cold * sign), (back, -hot * sign)):
            lo, hi = min(edge, edge + depth), max(edge, edge + depth)
            if y0 < hi - 1e-9 and y1 > lo + 1e-9:
                bad.append(r.rack_id)
    return bad


def row_past_a_column(rows: Any, racks: Any, col: tuple[float, float, float, float], h: Any) -> list[str]:
    """Rows (along x, from the rows table: their ends and line) whose front or back aisle holds the
    column (x0, y0, x1, y1) over the rows' length, i.e. the row runs along a column in its aisle
    (independent of layout.place.aisles, which works rack by rack)."""
    x0, y0, x1, y1 = col
    depth = racks.groupby("row")["depth_m"].max()
    bad = []
    for r in rows[rows["row"].isin(depth.index)].itertuples():
        if not (r.x0_m < x1 - 1e-9 and r.x1_m > x0 + 1e-9):
            continue
        half = depth[r.row] / 2
        front, back = (h.cold_aisle_m, h.hot_aisle_m) if r.front_sign > 0 else (h.hot_aisle_m, h.cold_aisle_m)
        for lo, hi in ((r.y0_m + half, r.y0_m + half + front), (r.y0_m - half - back, r.y0_m - half)):
            if y0 < hi - 1e-9 and y1 > lo + 1e-9:
                bad.append(r.row)
    return bad


def test_a_column_in_the_cold_aisle_moves_the_lines_so_it_stands_in_a_row(make_inputs: Make) -> None:
    # hall 10 x 6.8: lines y 0.5..1.7 and 2.9..4.1 with the cold aisle 1.7..2.9 between them, 2.2 m to
    # spare; a column at y 2.0..2.6 in that aisle would cost both rows. Shifting the lines by 0.9 m puts
    # it at the front of line 0 (1.4..2.6), where it takes x 4.7..5.3 of that row only: 14 + 15
    poly = [[0, 0], [10, 0], [10, 6.8], [0, 6.8]]
    assert lines_of(make_inputs(hall(polygon=poly))) == [0.5, 2.9]
    col = {"at": [5.0, 2.3], "size_m": [0.6, 0.6]}
    inputs = make_inputs(hall(polygon=poly, columns=[col]))
    assert lines_of(inputs) == pytest.approx([1.4, 3.8])
    assert place.floor_positions(inputs, 0.6) == {"B1/H1": 14 + 15}
    _, p = run(inputs)
    assert len(p.racks) == 10
    assert in_aisle(p.racks, (4.7, 2.0, 5.3, 2.6), 1.2, 1.2) == []
    assert not [v for v in p.violations if v.kind == "aisle"]


def test_a_column_in_the_hot_aisle_behind_the_last_row_costs_that_row_only(make_inputs: Make) -> None:
    # the same hall, a column at y 4.4..5.0 in the hot aisle behind line 1 (4.1..5.3): no row stands
    # across it, so it costs line 1 wherever the lines are; they stay. Line 1 ends at it, a cross aisle
    # wide (x 4.4..5.6): two rows of 6 racks (x 0.5..4.4 and 5.6..9.5)
    col = {"at": [5.0, 4.7], "size_m": [0.6, 0.6]}
    inputs = make_inputs(hall(polygon=[[0, 0], [10, 0], [10, 6.8], [0, 6.8]], columns=[col]))
    assert lines_of(inputs) == [0.5, 2.9]
    assert place.floor_positions(inputs, 0.6) == {"B1/H1": 15 + 6 + 6}


def test_a_column_in_an_aisle_that_no_shift_clears_breaks_both_rows(make_inputs: Make) -> None:
    # hall 10 x 12: five lines at y 0.5, 2.9, 5.3, 7.7, 10.1 (ends 11.3 of 11.5): a shift would lose a
    # line. A column at y 4.4..5.0 stands in the hot aisle 4.1..5.3 between lines 1 and 2: both end
    # at it, a cross aisle (1.2 m) wide around it (x 4.4..5.6), so each is two rows of 6 racks and the
    # column stands between row ends, not in the aisle of a row broken around it (issue 27)
    poly = [[0, 0], [10, 0], [10, 12], [0, 12]]
    col = {"at": [5.0, 4.7], "size_m": [0.6, 0.6]}
    inputs = make_inputs(hall(polygon=poly, columns=[col]))
    assert lines_of(inputs) == pytest.approx([0.5, 2.9, 5.3, 7.7, 10.1])
    assert place.floor_positions(inputs, 0.6) == {"B1/H1": 15 * 3 + (6 + 6) * 2}
    halls, cells = build_halls(inputs, gpu_racks(inputs), network_templates(inputs), {})
    rows: dict[int, list[list[tuple[float, ...]]]] = {}
    for c in cells:
        rows.setdefault(c.line, []).append([tuple(round(x, 6) for x in iv) for iv in c.free])
    assert rows[1] == rows[2] == [[(0.5, 4.4)], [(5.6, 9.5)]]
    assert rows[0] == rows[3] == rows[4] == [[(0.5, 9.5)]]
    _, p = run(inputs)
    assert not [v for v in p.violations if v.kind == "aisle"]


def test_a_column_in_a_cross_aisle_keeps_a_cross_aisle_from_the_rack_ends(make_inputs: Make) -> None:
    # rows of 10 racks: segments x 0.5..6.5 and 7.7..9.5, the cross aisle 6.5..7.7. A column at
    # x 6.8..7.4, y 0.8..1.4 stands in that cross aisle beside row line 0: line 0 keeps 1.2 m from it,
    # x 0.5..5.6 (8 racks) and 8.6..9.5 (1 rack); line 1 keeps 10 + 3
    col = {"at": [7.1, 1.1], "size_m": [0.6, 0.6]}
    inputs = make_inputs(hall(max_row_racks=10, columns=[col]))
    assert place.floor_positions(inputs, 0.6) == {"B1/H1": 8 + 1 + 10 + 3}


def test_a_keepout_in_an_aisle_moves_the_lines_or_breaks_the_rows_facing_it(make_inputs: Make) -> None:
    # a keep-out x 0..3, y 2.0..2.6 in the cold aisle (1.7..2.9) of the only pair: the lines move by
    # 0.9 m (of 1.4 m to spare) so that it stands at the front of line 0 (1.4..2.6), which starts at x 3
    # (10 racks in x 3..9.5); line 1 keeps its 15
    ko = [{"polygon": [[0, 2.0], [3, 2.0], [3, 2.6], [0, 2.6]], "reason": "CRAH"}]
    inputs = make_inputs(hall(keepouts=ko))
    assert lines_of(inputs) == pytest.approx([1.4, 3.8])
    assert place.floor_positions(inputs, 0.6) == {"B1/H1": 10 + 15}
    # y 1.0..3.4 reaches both rows' reach however the lines move within 1.4 m: they stay, and both
    # rows break over x 0..3
    ko = [{"polygon": [[0, 1.0], [3, 1.0], [3, 3.4], [0, 3.4]], "reason": "CRAH"}]
    inputs = make_inputs(hall(keepouts=ko))
    assert lines_of(inputs) == [0.5, 2.9]
    assert place.floor_positions(inputs, 0.6) == {"B1/H1": 10 + 10}


def test_a_user_row_facing_a_column_is_an_aisle_violation(make_inputs: Make) -> None:
    # a user row at y 3.8..5.0 with fronts +y; a 0.6 m column at y 5.2..5.8 stands in its 1.2 m front
    # (cold) aisle 5.0..6.2 over x 4.7..5.3: 0.6 m stays clear, in front of the racks at x 4.5..5.1, 5.1..5.7
    row = {"hall": "B1/H1", "origin": [3.3, 3.8], "axis": "x", "racks": 4, "template": "dgx-h100-x4"}
    col = {"at": [5.0, 5.5], "size_m": [0.6, 0.6]}
    _, p = run(
        make_inputs({"row": [row], **hall(polygon=[[0, 0], [14, 0], [14, 10], [0, 10]], columns=[col])})
    )
    (v,) = [v for v in p.violations if v.kind == "aisle"]
    assert v.figures["racks"] == 2
    assert v.figures["clear_m"] == pytest.approx(0.6)
    assert v.figures["aisle_m"] == pytest.approx(1.2)
    assert (v.figures["x_m"], v.figures["y_m"]) == pytest.approx(
        (4.9, 5.5)
    )  # the worst rack x 4.5..5.1 meets it over x 4.7..5.1
    assert v.where in set(p.racks.loc[p.racks["user_row"], "rack_id"])
    assert "0.60 m clear of 1.2 m" in v.message


def test_two_user_rows_too_close_are_an_aisle_violation(make_inputs: Make) -> None:
    # two facing user rows 0.8 m apart (fronts of the first at y 5.0, of the second at 5.8): each
    # keeps 0.8 m of its 1.2 m cold aisle
    a = {"hall": "B1/H1", "origin": [3.0, 3.8], "axis": "x", "racks": 2, "template": "dgx-h100-x4"}
    b = {"hall": "B1/H1", "origin": [3.0, 5.8], "axis": "x", "racks": 2, "template": "net-spine"}
    _, p = run(make_inputs({"row": [a, b], **hall(polygon=[[0, 0], [14, 0], [14, 10], [0, 10]])}))
    (v,) = [v for v in p.violations if v.kind == "aisle"]
    assert v.figures["clear_m"] == pytest.approx(0.8)
    assert v.figures["racks"] == 4


def test_shipped_sites_keep_every_aisle_clear(
    design_of: Callable[[str], Any], shipped_sites: list[str]
) -> None:
    for stem in shipped_sites:
        d = design_of(stem)
        assert not [v for v in d.violations if v.kind == "aisle"], stem
        racks = d.placement.racks
        for b, h in d.inputs.site.halls():
            if h.row_axis != "x":
                continue
            mine = racks[racks["hall"] == f"{b.id}/{h.id}"]
            for c in h.columns:
                (cx, cy), (sx, sy) = c.at, c.size_m
                box = (cx - sx / 2, cy - sy / 2, cx + sx / 2, cy + sy / 2)
                assert in_aisle(mine, box, h.cold_aisle_m, h.hot_aisle_m) == [], (stem, c.at)
                assert row_past_a_column(d.placement.rows, mine, box, h) == [], (stem, c.at)
        assert np.isfinite(racks["x_m"]).all()


def _two_facing_rows(split: bool) -> pd.DataFrame:
    """Rows along x: line A (y 0.5..1.7, fronts +y) and line B (y 2.9..4.1, fronts -y) facing over the
    cold aisle 1.7..2.9, racks of 0.6 m at x 0.5..9.5 but none over x 4.4..5.6. ``split``: each line's
    racks either side of that gap are two rows (else one row with a hole)."""
    recs = []
    for line, y, rot in (("A", 1.1, 0.0), ("B", 3.5, 180.0)):
        for i in range(15):
            x = 0.8 + 0.6 * i
            if 4.4 < x < 5.6:
                continue
            row = f"B1/H1/R{line}{'2' if split and x > 5 else '1'}"
            recs.append((f"{row}/K{i:02d}", row, False, x, y, 0.6, 1.2, rot))
    return pd.DataFrame(recs, columns=list(AISLE_COLUMNS)).assign(hall="B1/H1")


def test_a_column_in_the_aisle_of_rows_broken_around_it_is_a_violation(make_inputs: Make) -> None:
    # the column x 4.7..5.3, y 2.0..2.6 stands in the cold aisle between A and B, in their gap: no
    # rack's own strip holds it, but it takes 0.6 m of the 1.2 m aisle (0.3 m left each side) and the
    # rows on both sides run past it, so their containment cannot close
    inputs = make_inputs(hall(columns=[{"at": [5.0, 2.3], "size_m": [0.6, 0.6]}]))
    (v,) = aisles.aisle_checks(inputs, _two_facing_rows(split=False))
    assert v.kind == "aisle" and v.where == "B1/H1 column at (5, 2.3)"
    assert v.figures["columns"] == 1
    assert v.figures["clear_m"] == pytest.approx(0.6)
    assert v.figures["aisle_m"] == pytest.approx(1.2)
    assert "front (cold) aisle of RA1" in v.message
    # the same racks as four rows that end at the column: it stands between row ends
    assert aisles.aisle_checks(inputs, _two_facing_rows(split=True)) == []
    # beyond the aisle (in a hall with no such column) nothing is flagged either
    assert aisles.aisle_checks(make_inputs(hall()), _two_facing_rows(split=False)) == []


def _facing_a_column(make_inputs: Make, **more: Any) -> Inputs:
    """The user row facing a column above (0.6 m of its 1.2 m cold aisle clear), with ``more`` hall keys."""
    row = {"hall": "B1/H1", "origin": [3.3, 3.8], "axis": "x", "racks": 4, "template": "dgx-h100-x4"}
    col = {"at": [5.0, 5.5], "size_m": [0.6, 0.6]}
    return make_inputs(
        {"row": [row], **hall(polygon=[[0, 0], [14, 0], [14, 10], [0, 10]], columns=[col], **more)}
    )
