"""The terminal UI driven by Textual's Pilot: open a site, move the cursor, edit, undo, save."""

from __future__ import annotations

import asyncio
import functools
import math
import shutil
import tomllib
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from layout.tui.app import ACTIONS, DCLayoutApp
from layout.tui.screens.dialogs import ChoiceScreen, MessageScreen, NumberScreen
from layout.tui.widgets.hall_map import HallMap

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def superpod(tmp_path: Path) -> Path:
    dst = tmp_path / "superpod-4su.toml"
    shutil.copy(ROOT / "sites" / "superpod-4su.toml", dst)
    return dst


def sync(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test in its own event loop (no pytest async plugin needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def choose(pilot: Any, value: Any) -> None:
    """In the open ChoiceScreen, move from the highlighted option to ``value`` and pick it."""
    screen = pilot.app.screen
    assert isinstance(screen, ChoiceScreen)
    values = [v for _, v in screen.options]
    delta = values.index(value) - values.index(screen.current)
    await pilot.press(*(["down"] * delta if delta > 0 else ["up"] * -delta), "enter")
    await pilot.pause()


def comment_lines(text: str) -> list[str]:
    return [line[line.index("#") :] for line in text.splitlines() if "#" in line]


@sync
async def test_opens_a_site_and_moves_the_cursor(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.hall == "B1/H1"
        hall_map = app.query_one(HallMap)
        assert hall_map.has_focus and hall_map.grid is not None
        # fitted: the 44 m x 26 m hall fills the map's width
        assert hall_map.grid.cols == hall_map.size.width
        start = hall_map.cursor_m
        assert start is not None
        await pilot.press("right", "right", "down")
        after = hall_map.cursor_m
        assert after is not None
        step = hall_map.grid.m_per_col
        assert after[0] == pytest.approx(start[0] + 2 * step)
        assert after[1] == pytest.approx(start[1] - 2 * step)  # one line is two columns tall
        await pilot.press("plus")
        assert hall_map.grid.m_per_col == pytest.approx(step / 1.5, rel=1e-3)
        assert hall_map.cursor_m == pytest.approx(after, abs=hall_map.grid.m_per_col)


@sync
async def test_hall_kw_and_cooling_edits_undo_and_save(superpod: Path) -> None:
    original = superpod.read_text()
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("k")
        assert isinstance(app.screen, NumberScreen)
        await pilot.press(*"60", "enter")
        await pilot.pause()
        assert app.editor is not None
        assert app.editor.inputs.site.building[0].hall[0].max_rack_kw == 60.0
        await pilot.press("o")
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("down", "enter")  # rear-door -> liquid
        await pilot.pause()
        assert app.editor.inputs.site.building[0].hall[0].cooling == "liquid"
        assert app.sub_title.startswith("superpod-4su.toml *")
        await pilot.press("ctrl+z")
        assert app.editor.inputs.site.building[0].hall[0].cooling == "rear-door"
        await pilot.press("ctrl+y")
        assert app.editor.inputs.site.building[0].hall[0].cooling == "liquid"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.sub_title.startswith("superpod-4su.toml ·") or app.sub_title == "superpod-4su.toml"
    saved = superpod.read_text()
    data = tomllib.loads(saved)
    assert data["building"][0]["hall"][0]["max_rack_kw"] == 60.0
    assert data["building"][0]["hall"][0]["cooling"] == "liquid"
    assert comment_lines(saved) == comment_lines(original)
    assert (superpod.parent / "superpod-4su.toml.bak").read_text() == original


@sync
async def test_out_of_range_number_is_refused_in_the_dialog(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("k", *"900", "enter")
        assert isinstance(app.screen, NumberScreen)  # still open, says the range
        await pilot.press("escape")
        assert app.editor is not None and not app.editor.dirty


@sync
async def test_row_edits_add_move_template_delete(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        hall_map = app.query_one(HallMap)
        assert app.editor is not None
        hall_map.goto(6.0, 5.0)
        x, y = hall_map.cursor_m  # type: ignore[misc]
        await pilot.press("a")
        assert isinstance(app.screen, ChoiceScreen)
        assert app.screen.current == "dgx-h100-x4"
        await pilot.press("enter")  # the cluster's rack template
        assert isinstance(app.screen, NumberScreen)
        await pilot.press("6", "enter")
        await pilot.pause()
        rows = app.editor.inputs.site.row
        assert len(rows) == 1
        assert (rows[0].hall, rows[0].racks, rows[0].template, rows[0].axis) == (
            "B1/H1",
            6,
            "dgx-h100-x4",
            "x",
        )
        assert rows[0].origin == (math.floor(x * 10) / 10, math.floor(y * 10) / 10)
        # the cursor is on the new row: move it two cells right and one line up
        await pilot.press("m")
        assert hall_map.ghost is not None
        await pilot.press("right", "right", "up", "enter")
        await pilot.pause()
        assert hall_map.ghost is None
        grid = hall_map.grid
        assert grid is not None
        moved = app.editor.inputs.site.row[0].origin
        assert moved[0] == pytest.approx(rows[0].origin[0] + 2 * grid.m_per_col, abs=1e-3)
        assert moved[1] == pytest.approx(rows[0].origin[1] + grid.m_per_line, abs=1e-3)
        # retemplate the row at the cursor (cursor moved with the row)
        await pilot.press("t")
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("up", "enter")  # dgx-h100-x4 -> the template above it in the list: dgx-h100-x2
        await pilot.pause()
        assert app.editor.inputs.site.row[0].template == "dgx-h100-x2"
        # a hall's template: every user row of the hall
        await pilot.press("T")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.editor.inputs.site.row[0].template == "dgx-h100-x4"
        # delete it
        await pilot.press("x")
        await pilot.pause()
        assert app.editor.inputs.site.row == []
        # nothing to delete now: a warning, nothing changes
        await pilot.press("x")
        assert app.editor.inputs.site.row == []


@sync
async def test_cluster_edits_rail_mor_switch_nic(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.editor is not None
        await pilot.press("d")
        assert app.editor.inputs.site.cluster.design == "mor"
        await pilot.press("w")
        await choose(pilot, "sn5600")
        assert app.editor.inputs.site.cluster.switch == "sn5600"
        await pilot.press("n")
        await choose(pilot, "cedar7")
        assert app.editor.inputs.site.cluster.nic == "cedar7"
        await pilot.press("g")
        await choose(pilot, "dgx-h100-x2")
        assert app.editor.inputs.site.cluster.rack == "dgx-h100-x2"
        await pilot.press("d")
        assert app.editor.inputs.site.cluster.design == "rail"


@sync
async def test_bad_site_shows_the_problems(tmp_path: Path, superpod: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(superpod.read_text().replace('cooling = "rear-door"', 'cooling = "ice"'))
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.open_site(bad) is False
        await pilot.pause()
        assert isinstance(app.screen, MessageScreen)
        assert any(line.startswith(f"{bad}: building[0].hall[0].cooling:") for line in app.screen.lines)
        await pilot.press("enter")
        assert app.editor is not None and app.editor.path == superpod


def test_every_key_binding_is_in_the_command_palette() -> None:
    palette = {a.name for a in ACTIONS}
    app_actions = {b.action for b in DCLayoutApp.BINDINGS}  # type: ignore[union-attr]
    assert app_actions <= palette, app_actions - palette
    map_actions = {b.action for b in HallMap.BINDINGS}  # type: ignore[union-attr]
    # the map's own keys are in the palette under the app's names (cursor/pan/drop are keys only)
    assert {"zoom(-1)", "zoom(1)", "fit", "colour"} <= map_actions
    assert {"map_zoom(-1)", "map_zoom(1)", "map_fit", "map_colour"} <= palette
