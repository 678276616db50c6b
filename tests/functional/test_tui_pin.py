"""P pins the auto-placed row at the map's cursor as a user row ([[row]]): one undoable edit; refused
with a toast on a user row."""

from __future__ import annotations

import tomllib
from pathlib import Path

from layout.tui.app import DCLayoutApp
from layout.tui.widgets.hall_map import HallMap
from tests.functional.test_tui import copy_site, designed, sync


@sync
async def test_p_pins_the_auto_row_at_the_cursor_and_ctrl_z_undoes_it(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None and app.editor is not None
        racks = app.result.design.placement.racks
        rows = app.result.design.placement.rows
        # an SU row facing -y: GPU racks with the net-leaf racks in its middle
        rid = next(
            str(r)
            for r, f in zip(rows["row"], rows["front_sign"], strict=True)
            if f == -1 and racks.loc[racks["row"] == r, "template"].nunique() > 1
        )
        mine = racks[racks["row"] == rid]
        hall_map = app.query_one(HallMap)
        hall_map.goto(float(mine["x_m"].iat[0]), float(mine["y_m"].iat[0]))
        await pilot.pause()
        assert racks["row"].iat[hall_map.rack_at_cursor] == rid
        before = app.editor.text
        await pilot.press("P")
        await pilot.pause()
        assert app.editor.text != before
        added = app.editor.text[len(before.rstrip("\n")) :]
        assert "[[row]]" in added and 'front = "-"' in added and "templates = [" in added
        (entry,) = tomllib.loads(app.editor.text)["row"]
        assert entry["templates"] == mine.sort_values("x_m")["template"].tolist()
        assert entry["racks"] == len(mine) and entry["axis"] == "x" and entry["hall"] == "B1/H1"
        await designed(pilot)
        placed = app.result.design.placement
        user = placed.racks[placed.racks["user_row"]]
        assert sorted(user["x_m"].round(4)) == sorted(mine["x_m"].round(4))
        assert set(user["y_m"].round(4)) == set(mine["y_m"].round(4))
        assert not [v for v in app.result.design.violations if v.kind in ("user_row", "aisle")]
        # on the pinned row now: P again is refused (a toast), nothing changes
        pinned = app.editor.text
        await pilot.press("P")
        await pilot.pause()
        assert app.editor.text == pinned
        toast = str(list(app._notifications)[-1].message)
        assert "pinned already" in toast or "user row already" in toast, toast
        # one edit: ctrl+z gives back the site as it was
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.editor.text == before
        assert app.editor.inputs.site.row == []
