"""The TUI at the sizes and in the states a designer meets daily: 80 x 24 (footer and f1 fit), the
tables at full width, the tree following the hall, focus shown, and no site open."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from test_tui import ROOT, copy_site, designed, sync
from textual.widgets import DataTable, Footer, Static, Tree
from textual.widgets._footer import FooterKey

from layout.tui.app import BOM_COLUMNS, DCLayoutApp
from layout.tui.screens.dialogs import OpenScreen
from layout.tui.screens.help import HelpScreen, key_table
from layout.tui.widgets.hall_map import NO_SITE, HallMap
from layout.tui.widgets.inspector import Inspector

SUPERPOD = ROOT / "sites" / "superpod-4su.toml"


@sync
async def test_footer_and_f1_fit_80_by_24() -> None:
    app = DCLayoutApp(SUPERPOD)
    async with app.run_test(size=(80, 24)) as pilot:
        await designed(pilot)
        keys = list(app.screen.query_one(Footer).query(FooterKey))
        shown = [k for k in keys if k.region.width]
        assert len(shown) == len(keys) >= 8  # every key the footer offers is on screen
        regions = sorted((k.region for k in shown), key=lambda r: r.x)
        assert all(r.right <= 80 for r in regions)
        assert all(a.right <= b.x for a, b in zip(regions, regions[1:], strict=False))  # none over another
        assert {k.key for k in shown} >= {"slash", "r", "f1", "ctrl+s", "ctrl+z"}
        await pilot.press("f1")
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        dialog = screen.query_one(".dialog")
        assert dialog.region.x >= 0 and dialog.region.right <= 80 and dialog.region.bottom <= 24
        table = screen.query_one("#keys", Static)
        assert table.region.height >= table.virtual_size.height  # no key scrolled out of sight
        text = Console(width=table.region.width, record=True, file=io.StringIO(), color_system=None)
        text.print(key_table(screen.rows))
        lines = text.export_text().splitlines()
        assert len(lines) <= table.region.height
        for key in (
            "/",
            "r",
            "#",
            "c",
            "]/[",
            "^o",
            "^s",
            "^z",
            "a",
            "m",
            "P",
            "p",
            "i",
            "n/N",
            "d",
            "arrows/hjkl",
            "shift+arrows/HJKL",
            "1-6",
            "O",
            "A",
            "f2",
        ):
            assert any(f" {key} " in f" {line} " for line in lines), key
        await pilot.press("f1")
        assert not isinstance(app.screen, HelpScreen)


@sync
async def test_tables_take_the_whole_width_and_show_quantity_and_price_at_120() -> None:
    app = DCLayoutApp(SUPERPOD)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.query_one(Inspector).display
        await pilot.press("4")
        await pilot.pause()
        assert not app.query_one(Inspector).region.width and not app.query_one("#tree").region.width
        table = app.query_one("#bom-table", DataTable)
        assert table.region.width == 120
        labels = [str(c.label) for c in table.columns.values()]
        assert tuple(labels) == BOM_COLUMNS
        widths = [c.get_render_width(table) for c in table.columns.values()]
        assert sum(widths[: labels.index("extended $") + 1]) <= 120  # qty and both prices on screen
        assert app.result is not None
        first = app.result.bom.iloc[0]
        row = [str(c) for c in table.get_row_at(0)]
        assert row[labels.index("qty")] == f"{first['qty']:,}"
        assert row[labels.index("extended $")] == f"{first['extended_usd']:,.0f}"
        await pilot.press("1")
        await pilot.pause()
        assert app.query_one(Inspector).region.width  # back on the map: the inspector again


@sync
async def test_a_violation_is_shown_in_full_under_the_table(tmp_path: Path) -> None:
    site = copy_site("superpod-4su", tmp_path)
    app = DCLayoutApp(site)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("p", "backspace", "backspace", *"15", "enter")
        await designed(pilot)
        assert app.result is not None and app.result.design.violations
        await pilot.press("3")
        await pilot.pause()
        detail = str(app.query_one("#violation-detail", Static).content)
        v = app.result.design.violations[0]
        assert (
            v.message in detail and (v.suggestion or "") in detail and "enter: show it on the map" in detail
        )
        assert app.query_one("#violation-detail").region.height >= len(detail.splitlines())


@sync
async def test_next_and_previous_hall_move_the_tree_with_them(tmp_path: Path) -> None:
    site = copy_site("seed002-32k", tmp_path)
    app = DCLayoutApp(site)
    async with app.run_test(size=(160, 48)) as pilot:
        await designed(pilot)
        tree = app.query_one(Tree)
        halls = list(app.floors)
        for key, want in (
            ("right_square_bracket", halls[1]),
            ("right_square_bracket", halls[2 % len(halls)]),
        ):
            await pilot.press(key)
            await pilot.pause()
            assert (
                app.hall == want and tree.cursor_node is not None and tree.cursor_node.data == ("hall", want)
            )
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert tree.cursor_node is not None and tree.cursor_node.data == ("hall", app.hall)


@sync
async def test_focus_is_shown_on_the_map_and_on_the_tree() -> None:
    app = DCLayoutApp(SUPERPOD)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        legend = app.query_one("#legend")
        tree = app.query_one("#tree")
        assert app.query_one(HallMap).has_focus
        on_map = (legend.styles.background, tree.styles.border_right)
        tree.focus()
        await pilot.pause()
        on_tree = (legend.styles.background, tree.styles.border_right)
        assert on_map[0] != on_tree[0]  # the bar under the map lights up while the map has the keys
        assert on_map[1] != on_tree[1]  # the tree's edge while it has them


@sync
async def test_with_no_site_open_the_screen_says_what_to_do(tmp_path: Path, monkeypatch: object) -> None:
    app = DCLayoutApp(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, OpenScreen)
        await pilot.press("escape")
        await pilot.pause()
        hall_map = app.query_one(HallMap)
        text = "\n".join(hall_map.render_line(y).text for y in range(hall_map.size.height))
        for line in NO_SITE:
            assert line in text
        assert not app.query_one(Inspector).region.width  # nothing to inspect
        await pilot.press("slash")
        await pilot.pause()
        assert not isinstance(app.screen, OpenScreen)  # find says to open a site first, nothing breaks
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, OpenScreen)


@sync
async def test_a_violation_naming_a_row_table_keeps_its_brackets_in_the_table(tmp_path: Path) -> None:
    """Issue 28: the violations table showed `[] 1 …` where the message says `[[row]] 1 …` (a plain
    string cell is read as markup). The cell holds the message as written."""
    from textual.widgets import DataTable

    site = copy_site("superpod-4su", tmp_path)
    text = site.read_text()
    row = (
        '\n[[row]]\nhall = "B1/H1"\norigin = [30.0, 24.0]\naxis = "x"\nracks = 3\ntemplate = "gb200-nvl72"\n'
    )
    site.write_text(text + row)
    app = DCLayoutApp(site)
    async with app.run_test(size=(160, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        (i, v) = next((i, v) for i, v in enumerate(app.result.design.violations) if v.kind == "user_row")
        assert v.message.startswith("[[row]] 1 in B1/H1")
        await pilot.press("3")
        await pilot.pause()
        from textual.widgets._data_table import default_cell_formatter

        table = app.query_one("#violations-table", DataTable)
        cell = table.get_cell_at((table.get_row_index(str(i)), 2))  # rows worst first, keyed by index
        shown = default_cell_formatter(cell)  # what the table draws of the cell
        assert getattr(shown, "plain", "").startswith("[[row]] 1 in B1/H1"), shown
