"""The map's keys and what the screen says of them: vim movement (h j k l, H J K L), n / N through the
violations worst first, a footer that shows the keys of the mode the app is in (the map, moving a row,
a trace, a dialog), and the focused panel named with ▶ in its border title, not only in colour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_tui import copy_site, designed, sync
from textual.widgets import DataTable, Tree
from textual.widgets._footer import FooterKey

from layout.tui.app import DCLayoutApp
from layout.tui.footer import SteadyFooter, shown_keys
from layout.tui.screens.dialogs import ChoiceScreen, NumberScreen
from layout.tui.screens.help import HelpScreen
from layout.tui.widgets.hall_map import HallMap
from layout.violations import worst_first


def footer(app: DCLayoutApp) -> dict[str, str]:
    """The keys the footer of the screen on top shows and what each does (the enabled ones)."""
    return {k.key: k.description for k in app.screen.query(FooterKey) if not k.disabled}


def legend(app: DCLayoutApp) -> str:
    return str(app.query_one("#legend").content)  # type: ignore[attr-defined]


@sync
async def test_hjkl_move_the_cursor_as_the_arrows_do_and_HJKL_pan_as_shift_arrows(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        m = app.query_one(HallMap)
        for vim, arrow, (dc, dl) in (("l", "right", (1, 0)), ("h", "left", (-1, 0)), ("j", "down", (0, 1)),
                                     ("k", "up", (0, -1))):  # fmt: skip
            start = m.cursor
            await pilot.press(vim, vim)
            assert m.cursor == (start[0] + 2 * dc, start[1] + 2 * dl), vim
            await pilot.press(arrow)
            assert m.cursor == (start[0] + 3 * dc, start[1] + 3 * dl), arrow
        assert isinstance(app.screen, type(app.screen_stack[0]))  # k opened no dialog
        await pilot.press("plus", "plus", "plus")  # zoomed in: the hall is larger than the map
        for vim, arrow in (("L", "shift+right"), ("H", "shift+left"), ("J", "shift+down"), ("K", "shift+up")):
            view = m.view
            await pilot.press(vim)
            panned = m.view
            assert panned != view, vim
            await pilot.press(arrow)
            after_arrow = m.view
            await pilot.press(vim)
            assert (m.view[0] - after_arrow[0], m.view[1] - after_arrow[1]) == (
                panned[0] - view[0],
                panned[1] - view[1],
            ), (vim, arrow)
        # the keys k, n and l did: p the hall's kW, i the NIC, # the row labels
        await pilot.press("p")
        assert isinstance(app.screen, NumberScreen) and "max kW per rack" in app.screen.title_text
        await pilot.press("escape")
        await pilot.press("i")
        assert isinstance(app.screen, ChoiceScreen) and app.screen.title_text.startswith("Server NIC")
        await pilot.press("escape")
        assert m.label_mode == "ids"
        await pilot.press("number_sign")
        assert m.label_mode == "kw"


@sync
async def test_n_and_N_step_through_the_violations_worst_first_and_wrap(tmp_path: Path) -> None:
    site = copy_site("superpod-4su", tmp_path)
    app = DCLayoutApp(site)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("n")
        assert legend(app).startswith("no design-rule violations")
        await pilot.press("right")  # said of the cell the cursor was on: gone once it moves
        assert "violation" not in legend(app)
    # violations of several kinds and places: the floor, the hall's and the site's power, rack kW
    text = site.read_text()
    for was, now in (("floor_load_kg_m2 = 1500.0", "floor_load_kg_m2 = 900.0"), ("utility_mw = 2.5", "utility_mw = 1.0"),
                     ("  it_mw = 1.5", "  it_mw = 1.0"), ("max_rack_kw = 45.0", "max_rack_kw = 15.0")):  # fmt: skip
        assert was in text
        text = text.replace(was, now)
    site.write_text(text)
    app = DCLayoutApp(site)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        violations = list(app.result.design.violations)
        order = worst_first(violations)
        total = len(order)
        assert total >= 3 and len({v.kind for v in violations}) >= 3
        m = app.query_one(HallMap)

        async def step(key: str, position: int) -> None:
            await pilot.press(key)
            await pilot.pause()
            v = violations[order[position]]
            assert legend(app).startswith(f"violation {position + 1} of {total}: {v.message}"), legend(app)
            place = app.locate(v.where, v.figures)
            if place is None:
                assert f"({v.where}: no single place on the map)" in legend(app)
                return
            assert m.grid is not None
            assert app.hall == place[0] and m.cursor == m.grid.cell(place[1], place[2])

        await step("n", 0)
        await step("n", 1)
        await step("N", 0)
        await step("N", total - 1)  # wraps back to the last
        await step("n", 0)  # and on to the first
        await pilot.press("3")  # the table's cursor follows n
        await pilot.pause()
        await step("n", 1)
        assert app.query_one("#violations-table", DataTable).cursor_row == 1


@sync
async def test_the_footer_shows_the_keys_of_the_mode(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await designed(pilot)
        m = app.query_one(HallMap)
        normal = footer(app)
        assert {"ctrl+s", "f1", "ctrl+z", "a", "m", "p", "slash", "r", "n"} <= set(normal)
        assert normal["n"] == "violation" and "escape" not in normal and "enter" not in normal
        # a trace: escape clears it; add, move and kW make room for it
        rack = int(m.rack.max())
        racks = app.result.design.placement.racks  # type: ignore[union-attr]
        m.goto(float(racks["x_m"].iat[rack]), float(racks["y_m"].iat[rack]))
        await pilot.press("r")
        await pilot.pause()
        assert app.trace is not None
        traced = footer(app)
        assert traced["escape"] == "clear trace" and {"r", "slash", "n"} <= set(traced)
        assert not {"a", "m", "p"} & set(traced)
        await pilot.press("escape")
        await pilot.pause()
        assert app.trace is None and footer(app) == normal
        # moving a row: only enter, escape, the cursor keys and f1
        m.goto(6.0, 5.0)
        await pilot.press("a", "enter", "6", "enter")
        await designed(pilot)
        await pilot.press("m")
        await pilot.pause()
        assert m.ghost is not None
        moving = footer(app)
        assert moving == {"enter": "drop row", "escape": "cancel move", "up": "move row", "f1": "keys"}
        keys = {k.key: k for k in app.screen.query(FooterKey)}
        assert keys["up"].key_display == "↑↓←→/hjkl"
        await pilot.press("a", "p", "x")  # keys the footer does not show do nothing now
        assert len(app.screen_stack) == 1 and len(app.editor.inputs.site.row) == 1  # type: ignore[union-attr]
        await pilot.press("l", "escape")
        await pilot.pause()
        assert m.ghost is None and footer(app) == normal
        # a dialog: its own keys in its own footer
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, NumberScreen)
        assert footer(app) == {"enter": "apply", "escape": "cancel"}
        await pilot.press("escape")
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and footer(app)["escape"] == "close"
        await pilot.press("escape")
        await pilot.pause()
        assert footer(app) == normal
        steady = app.query_one(SteadyFooter)
        assert steady._composed == shown_keys(app.screen)  # composed for the keys it shows


@sync
async def test_the_focused_panel_says_so_in_its_border_title(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)

        def titles() -> dict[str, Any]:
            return {w.id: w.border_title for w in app.query("#tree, #hallmap, #inspector")}

        assert titles() == {"tree": "site", "hallmap": "▶ map", "inspector": "inspector"}
        app.query_one(Tree).focus()
        await pilot.pause()
        assert titles() == {"tree": "▶ site", "hallmap": "map", "inspector": "inspector"}
        app.query_one("#inspector").focus()
        await pilot.pause()
        assert titles() == {"tree": "site", "hallmap": "map", "inspector": "▶ inspector"}
        await pilot.press("3")
        await pilot.pause()
        assert app.query_one("#violations-table").border_title == "▶ violations"
        assert titles()["hallmap"] == "map"
        await pilot.press("1")
        await pilot.pause()
        assert titles()["hallmap"] == "▶ map"
        assert app.query_one("#violations-table").border_title == "violations"
