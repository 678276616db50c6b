"""Issue 28: the mouse on the map: a click puts the cursor (and the inspector) on the rack clicked, the
wheel zooms (shift+wheel pans), a moving row follows a click and a double click drops it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from test_tui import copy_site, designed, shown, sync
from textual import events

from layout.tui.app import DCLayoutApp
from layout.tui.widgets.hall_map import HallMap


def visible_rack_cell(m: HallMap, avoid: tuple[int, int]) -> tuple[int, int, int]:
    """A (widget x, widget y, rack) of a rack cell on screen other than ``avoid`` (a raster cell)."""
    h, w = m.size.height, m.size.width
    for y in range(h):
        for x in range(w):
            cell = m.cell_at(x, y)
            if cell is not None and cell != avoid and m.rack[cell[1], cell[0]] >= 0:
                return x, y, int(m.rack[cell[1], cell[0]])
    raise AssertionError("no rack on screen")


@sync
async def test_a_click_puts_the_cursor_on_the_rack_clicked(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await designed(pilot)
        m = app.query_one(HallMap)
        x, y, rack = visible_rack_cell(m, m.cursor)
        assert await pilot.click(HallMap, offset=(x, y))
        await pilot.pause()
        assert m.has_focus and m.rack_at_cursor == rack
        assert app.result is not None
        rack_id = str(app.result.design.placement.racks["rack_id"].iat[rack])
        assert rack_id in shown(app, "#inspector-body", 60)


@sync
async def test_the_wheel_zooms_and_shift_wheel_pans(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await designed(pilot)
        m = app.query_one(HallMap)
        before = m.m_per_col
        m.post_message(events.MouseScrollUp(m, 10, 10, 0, -1, 0, False, False, False))
        await pilot.pause()
        assert m.m_per_col < before  # zoomed in
        m.post_message(events.MouseScrollDown(m, 10, 10, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert np.isclose(m.m_per_col, before)  # and out again
        for _ in range(3):
            m.post_message(events.MouseScrollUp(m, 10, 10, 0, -1, 0, False, False, False))
        await pilot.pause()
        view = m.view
        m.post_message(events.MouseScrollDown(m, 10, 10, 0, 1, 0, True, False, False))  # shift: pan
        await pilot.pause()
        assert m.view[1] > view[1] and m.view[0] == view[0]


@sync
async def test_a_moving_row_follows_a_click_and_a_double_click_drops_it(tmp_path: Path) -> None:
    import pytest

    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await designed(pilot)
        m = app.query_one(HallMap)
        m.goto(6.0, 5.0)
        await pilot.press("a", "enter", "2", "enter")  # a user row of 2 racks at the cursor
        await designed(pilot)
        assert app.editor is not None and len(app.editor.inputs.site.row) == 1
        origin = app.editor.inputs.site.row[0].origin
        await pilot.press("m")
        assert m.ghost is not None
        x, y = m.cursor[0] - m.view[0] + 3, m.cursor[1] - m.view[1] + 1  # 3 cells right, a line down
        assert await pilot.click(HallMap, offset=(x, y))
        assert m.ghost is not None  # a single click moves it, no more
        assert await pilot.double_click(HallMap, offset=(x, y))
        await pilot.pause()
        assert m.ghost is None
        grid = m.grid
        assert grid is not None
        moved = app.editor.inputs.site.row[0].origin
        assert moved[0] == pytest.approx(origin[0] + 3 * grid.m_per_col, abs=1e-3)
        assert moved[1] == pytest.approx(origin[1] - grid.m_per_line, abs=1e-3)
        await designed(pilot)
