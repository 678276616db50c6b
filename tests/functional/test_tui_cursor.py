"""A cursor move updates the inspector in the same frame as the map: the map calls the app at once
(HallMap.follow) instead of the app waiting for the posted CursorMoved, which reaches it only after the
screen has painted the map once (and its change a frame later); the message then changes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from test_tui import ROOT, designed, shown, sync

from layout.tui.app import DCLayoutApp
from layout.tui.widgets.hall_map import HallMap


def app_on(tmp_path: Path, stem: str) -> DCLayoutApp:
    """The app on a copy of the shipped site ``stem`` in ``tmp_path``."""
    site = tmp_path / f"{stem}.toml"
    shutil.copy(ROOT / "sites" / f"{stem}.toml", site)
    return DCLayoutApp(site)


@sync
async def test_a_cursor_move_shows_the_rack_in_the_inspector_before_any_message_is_handled(
    tmp_path: Path,
) -> None:
    app = app_on(tmp_path, "superpod-4su")
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        racks = app.result.design.placement.racks
        hall_map = app.query_one(HallMap)
        first = int(np.flatnonzero(racks["hall"].to_numpy() == hall_map.floor.key)[0])  # type: ignore[union-attr]
        hall_map.goto(float(racks["x_m"].iat[first]), float(racks["y_m"].iat[first]))
        await pilot.pause()
        calls: list[int] = []
        inspect = app.update_inspector
        app.update_inspector = lambda: (calls.append(hall_map.rack_at_cursor), inspect())[1]  # type: ignore[method-assign]
        for _ in range(12):  # off the rack, along its row: each step is another cell
            hall_map.action_move(1, 0)  # synchronous: no message has been handled when it returns
            assert calls[-1] == hall_map.rack_at_cursor
            x, y = hall_map.cursor_m  # type: ignore[misc]
            assert f"({x:.1f}, {y:.1f}) m" in shown(app, "#inspector-body", 200)
            if hall_map.rack_at_cursor >= 0:
                assert f"Rack {racks['rack_id'].iat[hall_map.rack_at_cursor]}" in shown(
                    app, "#inspector-body", 200
                )
        await pilot.pause()
        assert len(calls) == 12  # the posted CursorMoved messages updated nothing again
        assert any(r >= 0 for r in calls) and any(r != calls[0] for r in calls)


@sync
async def test_the_cursor_on_a_fibre_cabinet_names_it_in_the_inspector(tmp_path: Path) -> None:
    """gb200-hall: the cursor put on the cell of a fibre cabinet (drawn from the plant's table) finds no
    rack there, and the inspector names the cabinet."""
    app = app_on(tmp_path, "gb200-hall")
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        cab = app.result.design.cabling.plant.cabinets
        assert len(cab)
        hall_map = app.query_one(HallMap)
        c = cab.iloc[0]
        hall_map.goto(float(c["x_m"]), float(c["y_m"]))
        await pilot.pause()
        assert hall_map.rack_at_cursor == -1
        assert f"fibre cabinet {c['cabinet_id']}" in shown(app, "#inspector-body", 400)
