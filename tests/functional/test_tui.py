"""The terminal UI driven by Textual's Pilot: open a shipped site, move the cursor, make each kind of
edit, and check the model, the recomputed figures on screen and the saved TOML."""

from __future__ import annotations

import asyncio
import functools
import io
import math
import shutil
import time
import tomllib
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from shapely.geometry import Polygon
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Tree

from layout import design
from layout.load import load_site
from layout.scene import palette
from layout.siteedit import SetCluster
from layout.tui.app import ACTIONS, BOM_COLUMNS, DCLayoutApp
from layout.tui.floor import (
    CABINET,
    COLUMN,
    KEEPOUT,
    OUTSIDE,
    RACK,
    RACK_KINDS,
    TRAY,
    Grid,
    HallFloor,
    hall_floors,
    rasterise,
)
from layout.tui.panels import top_n
from layout.tui.screens.dialogs import ChoiceScreen, MessageScreen, NumberScreen, OpenScreen
from layout.tui.widgets.hall_map import HallMap
from layout.tui.widgets.site_tree import SiteTree
from layout.violations import SEVERITY, worst_first

ROOT = Path(__file__).resolve().parents[2]


def sync(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test in its own event loop (no pytest async plugin needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


def copy_site(name: str, folder: Path) -> Path:
    dst = folder / f"{name}.toml"
    shutil.copy(ROOT / "sites" / f"{name}.toml", dst)
    return dst


async def designed(pilot: Pilot[Any], timeout_s: float = 120.0) -> None:
    """Wait until the design of the site as it is now is on screen, the site tree's nodes too (they
    follow the figures a frame later)."""
    await settled(
        pilot,
        timeout_s,
        lambda app: (
            app.editor is not None
            and app.result is not None
            and app.result.text == app.editor.text
            and app.query_one(SiteTree).settled
        ),
    )


async def settled(
    pilot: Pilot[Any], timeout_s: float = 120.0, until: Callable[[DCLayoutApp], bool] = lambda app: True
) -> None:
    """Wait until no design runs (it may have failed) and ``until(app)`` holds."""
    app = pilot.app
    assert isinstance(app, DCLayoutApp)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not app.designing and until(app):
            return
    raise AssertionError("the design did not finish in time")


def shown(app: DCLayoutApp, selector: str, width: int = 100) -> str:
    """The plain text a Static (or a Prerendered) shows."""
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(app.query_one(selector).content)
    return console.export_text()


async def choose(pilot: Pilot[Any], value: Any) -> None:
    """In the open ChoiceScreen, move from the highlighted option to ``value`` and pick it."""
    screen = pilot.app.screen
    assert isinstance(screen, ChoiceScreen)
    values = [v for _, v in screen.options]
    start = values.index(screen.current) if screen.current in values else 0
    delta = values.index(value) - start
    await pilot.press(*(["down"] * delta if delta > 0 else ["up"] * -delta), "enter")
    await pilot.pause()


def comment_lines(text: str) -> list[str]:
    return [line[line.index("#") :] for line in text.splitlines() if "#" in line]


@pytest.fixture
def superpod(tmp_path: Path) -> Path:
    dst = tmp_path / "superpod-4su.toml"
    shutil.copy(ROOT / "sites" / "superpod-4su.toml", dst)
    return dst


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
        await pilot.press("p")
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
        await pilot.press("p", *"900", "enter")
        assert isinstance(app.screen, NumberScreen)  # still open, says the range
        await pilot.press("escape")
        assert app.editor is not None and not app.editor.dirty


@sync
async def test_digits_of_other_scripts_are_not_a_number(superpod: Path) -> None:
    """Issue 30: float() reads Arabic-Indic and fullwidth digits as ASCII ones; the dialog does not."""
    from textual.widgets import Input

    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("p")
        assert isinstance(app.screen, NumberScreen)
        for text in ("\u0664\u0660", "\uff14\uff10"):  # 40 in Arabic-Indic, in fullwidth digits
            field = app.screen.query_one(Input)
            field.value = text
            await field.action_submit()
            await pilot.pause()
            assert isinstance(app.screen, NumberScreen), text  # still open, says the range
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
        await pilot.press("i")
        await choose(pilot, "cedar7")
        assert app.editor.inputs.site.cluster.nic == "cedar7"
        await pilot.press("g")
        await choose(pilot, "dgx-h100-x2")
        assert app.editor.inputs.site.cluster.rack == "dgx-h100-x2"
        await pilot.press("d")
        assert app.editor.inputs.site.cluster.design == "rail"
        # five edits went in while designs ran: what ends up on screen is the design of the last one
        await designed(pilot)
        assert app.result is not None and app.result.summary == independent_summary(app)


async def _picker_choices(site: Path, key: str) -> tuple[DCLayoutApp, list[Any]]:
    """What the picker that ``key`` opens offers on ``site`` (escaped without choosing), and the app."""
    app = DCLayoutApp(site)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press(key)
        screen = app.screen
        assert isinstance(screen, ChoiceScreen)
        offered = [v for _, v in screen.options]
        await pilot.press("escape")
        await pilot.pause()
    return app, offered


@sync
async def test_switch_picker_offers_only_switches_that_can_serve_the_fabric(superpod: Path) -> None:
    """``w`` used to list every catalog switch, the 1 GbE SN2201 (OOB management) among them, which the
    design then refused. It lists exactly the switches validate accepts as cluster.switch."""
    from layout.errors import InputError

    app, offered = await _picker_choices(superpod, "w")
    assert app.editor is not None and app.editor.inputs.site.cluster.switch == "qm9700"
    accepted = []
    catalog = load_site(superpod).catalog
    for sw in sorted(catalog.switch):  # each switch in the site file, through validate's checks
        site = superpod.with_name(f"sw-{sw}.toml")
        site.write_text(superpod.read_text().replace('switch = "qm9700"', f'switch = "{sw}"'))
        try:
            design.check(load_site(site))
        except InputError as e:
            if any(p.key == "cluster.switch" for p in e.problems):
                continue
        accepted.append(sw)
    assert offered == accepted
    assert "sn2201" in catalog.switch and "sn2201" not in offered and "qm9700" in offered


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


# ------------------------------------------------------------------------------ with the design
def independent_summary(app: DCLayoutApp) -> dict[str, Any]:
    """The summary of design.run on the site as the editor holds it, computed outside the UI."""
    assert app.editor is not None
    return design.run(app.editor.inputs).summary()


@sync
async def test_figures_on_screen_follow_each_edit(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None and app.editor is not None
        s = app.result.summary
        assert s == design.run(load_site(superpod)).summary()
        servers = 1024 // 8
        assert s["racks"]["by_template"]["dgx-h100-x4"] * 4 == servers
        status = shown(app, "#status")  # from the design itself: the same figures as summary.json
        assert (
            f"{s['gpus']:,} GPUs · {s['racks']['total']:,} racks · IT {s['power']['it_mw']:,.2f} MW" in status
        )
        # the capital cost as every output writes it (layout/figures.py: $M to the hundredth)
        optics = app.result.design.figures.value("optics_total")
        assert optics == app.result.bom.loc[app.result.bom["category"] == "transceivers", "qty"].sum() > 0
        assert (
            f"capital ${s['cost_usd']['total'] / 1e6:,.2f} M · {optics:,} optics · "
            f"{len(s['violations'])} violation(s)" in status
        )
        assert "▲" not in status and "▼" not in status  # the first design: nothing to compare with
        racks_before = s["racks"]["total"]
        # the hall's IT figure against its 1.5 MW limit, as the budgets tab shows it
        it_mw = s["halls"]["B1/H1"]["it_mw"]
        await pilot.press("2")  # tabs are filled when they are shown
        assert f"{it_mw:,.2f}/1.50 MW" in shown(app, "#budgets-view")
        await pilot.press("4")
        rack_rows = app.query_one("#bom-table", DataTable).row_count
        assert rack_rows == len(app.result.bom) > 0
        await pilot.press("1")

        # 30 kW per rack: 4 x DGX H100 (~41 kW) no longer fit; 2 per rack, twice the racks (seed 002)
        await pilot.press("p", *"30", "enter")
        await designed(pilot)
        s = app.result.summary
        assert s["racks"]["by_template"].get("dgx-h100-x4", 0) == 0
        assert s["racks"]["by_template"]["dgx-h100-x2"] * 2 == servers
        assert s == independent_summary(app)
        # each figure with its move since the design before the edit, as the figure writes it
        more = s["racks"]["total"] - racks_before
        assert more > 0 and f"{s['racks']['total']:,} racks ▲ {more:,} · " in shown(app, "#status")
        assert f"{s['gpus']:,} GPUs · " in shown(app, "#status")  # the GPUs did not move: no delta
        await pilot.press("4")  # the BOM tab, filled before the edit, shows this design when it is shown
        bom = app.query_one("#bom-table", DataTable)
        part = BOM_COLUMNS.index("part")
        parts = {str(bom.get_row_at(i)[part]) for i in range(bom.row_count)}
        assert "dgx-h100-x2" in parts and "dgx-h100-x4" not in parts
        await pilot.press("1")
        await pilot.press("ctrl+z")
        await designed(pilot)

        # middle-of-rack: every GPU-to-leaf link is copper, no node-side optics
        rail_optics = app.result.summary["node_optics"]
        await pilot.press("d")
        await designed(pilot)
        s = app.result.summary
        assert s["node_optics"] == 0 < rail_optics
        links = app.result.design.cabling.links
        gpu_leaf = links[links["kind"] == "gpu_leaf"]
        assert set(gpu_leaf["media_class"].astype(str)) <= {"dac", "aec"}
        assert s == independent_summary(app)
        await pilot.press("d")
        await designed(pilot)

        # Cedar-7: one dual-port module per two GPU links; a DGX H100 has those twin-port cages already
        # (4 per server, whatever the NIC option), so its node-side modules stay as they were
        await pilot.press("i")
        await choose(pilot, "cedar7")
        await designed(pilot)
        s = app.result.summary
        assert s["node_optics"] == rail_optics
        assert s == independent_summary(app)

        # a 128-port switch: 64 GPUs down per leaf, half the leaves of the 64-port QM9700
        await pilot.press("w")
        await choose(pilot, "sn5600")
        await designed(pilot)
        s = app.result.summary
        assert s["switches"]["leaf"] == 1024 // 64
        assert s == independent_summary(app)


@sync
async def test_user_rows_are_placed_where_the_cursor_put_them(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        hall_map = app.query_one(HallMap)
        hall_map.goto(4.0, 23.0)  # a free strip along the north wall
        x, y = hall_map.cursor_m  # type: ignore[misc]
        await pilot.press("a", "enter", "6", "enter")
        await designed(pilot)
        assert app.result is not None and app.editor is not None
        racks = app.result.design.placement.racks
        user = racks[racks["user_row"]]
        assert len(user) == 6 and set(user["template"]) == {"dgx-h100-x4"}
        ox, oy = math.floor(x * 10) / 10, math.floor(y * 10) / 10
        # racks of a [[row]] along x: side by side from the origin, 0.6 m apart, 1.2 m deep
        assert np.allclose(np.sort(user["x_m"].to_numpy()), ox + 0.3 + 0.6 * np.arange(6))
        assert np.allclose(user["y_m"].to_numpy(), oy + 0.6)
        assert app.result.summary == independent_summary(app)
        # the tree lists the user row, and the map shows racks there
        assert any(
            "user" in str(n.label) for n in app.query_one("#tree").root.children[0].children[0].children
        )
        assert hall_map.rack_at_cursor in set(user.index)
        # move it one cell to the east
        await pilot.press("m", "right", "enter")
        await designed(pilot)
        grid = hall_map.grid
        assert grid is not None
        racks = app.result.design.placement.racks
        moved = racks[racks["user_row"]]
        assert np.allclose(
            np.sort(moved["x_m"].to_numpy()), np.sort(user["x_m"].to_numpy()) + grid.m_per_col, atol=1e-3
        )
        # save: the file has the row and every comment, and a backup of the original
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = tomllib.loads(superpod.read_text())
    assert saved["row"][0]["racks"] == 6 and saved["row"][0]["hall"] == "B1/H1"
    original = (ROOT / "sites" / "superpod-4su.toml").read_text()
    assert comment_lines(superpod.read_text()) == comment_lines(original)
    assert (superpod.parent / "superpod-4su.toml.bak").read_text() == original


@sync
async def test_violations_are_listed_and_jump_to_the_map(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None and not app.result.design.violations
        await pilot.press("p", *"15", "enter")  # even 2 x DGX H100 (~20 kW) are over 15 kW
        await designed(pilot)
        violations = app.result.design.violations
        kinds = {v.kind for v in violations}
        assert "rack_kw" in kinds
        await pilot.press("3")
        table = app.query_one("#violations-table", DataTable)
        assert table.row_count == len(violations)
        v = next(v for v in violations if v.kind == "rack_kw")
        table.focus()
        # worst first (layout.violations.SEVERITY): the rows are keyed by the violation's index
        order = [int(str(k.value)) for k in table.rows]
        assert order == worst_first(list(violations))
        assert [violations[i].kind for i in order][0] == sorted(
            kinds, key=lambda k: SEVERITY.index(k) if k in SEVERITY else len(SEVERITY)
        )[0]
        table.move_cursor(row=table.get_row_index(str(violations.index(v))))
        await pilot.press("enter")
        await pilot.pause()
        hall_map = app.query_one(HallMap)
        assert hall_map.has_focus
        racks = app.result.design.placement.racks
        assert racks["rack_id"].iat[hall_map.rack_at_cursor] == v.where
        # the inspector shows that rack, its kW against the 15 kW limit
        kw = float(app.result.design.power.rack_kw[hall_map.rack_at_cursor])
        text = shown(app, "#inspector-body", 60)
        assert f"Rack {v.where}" in text and f"{kw:,.1f}/15.0 kW" in text


@sync
async def test_inspector_lists_the_devices_and_links_of_a_rack(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        d = app.result.design
        racks = d.placement.racks
        leaf = int(np.flatnonzero(racks["template"].to_numpy() == "net-leaf")[0])
        app.query_one(HallMap).goto(float(racks["x_m"].iat[leaf]), float(racks["y_m"].iat[leaf]))
        await pilot.pause()
        assert app.query_one(HallMap).rack_at_cursor == leaf
        text = shown(app, "#inspector-body", 200)
        devices = d.fabric.devices.iloc[np.flatnonzero(d.placement.device_rack == leaf)]
        n_links = int(((app.result.link_rack_a == leaf) | (app.result.link_rack_b == leaf)).sum())
        assert f"Rack {racks['rack_id'].iat[leaf]}" in text
        assert f"{len(devices)} leaf qm9700" in text
        assert f"links    {n_links:,}:" in text


@sync
async def test_cabling_tab_lists_media_and_the_longest_link(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        await pilot.press("5")
        text = shown(app, "#cabling-view", 160)
        s = app.result.summary
        for cls, n in s["media"].items():
            if n:
                assert f"{cls}" in text and f"{n:,}" in text
        longest = float(np.nanmax(app.result.link_length_m))
        assert f"{longest:,.1f}" in text


@sync
async def test_exports_csv_from_the_ui(
    superpod: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: exports go beside the site file (not under the current folder), the toast names the
    absolute folder, another folder can be chosen, and the newer exports are offered."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("e")
        assert isinstance(app.screen, ChoiceScreen)
        offered = [v for _, v in app.screen.options]
        assert {"dxf", "pdf", "labels", "turnup", "dcim", "slurm", "dot"} <= set(offered)
        await choose(pilot, "csv")
        await app.workers.wait_for_complete()
        await pilot.pause()
        beside = superpod.parent / "outputs" / "superpod-4su"
        toast = str(list(app._notifications)[-1].message)
        written = sorted(p.name for p in beside.iterdir())
        assert "superpod-4su-bom.csv" in written
        assert (
            toast
            == f"wrote {len(written)} file(s) to {beside.resolve()}/: "
            + ", ".join(n for n in toast.split(": ", 1)[1].split(", "))
            and sorted(toast.split(": ", 1)[1].split(", ")) == written
        ), toast
        # another folder, typed: the next export goes there
        chosen = tmp_path / "for-procurement"
        await pilot.press("e")
        await choose(pilot, "folder")
        await pilot.press("ctrl+a", "ctrl+k", *str(chosen), "enter")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and str(chosen) in app.screen.title_text
        await choose(pilot, "csv")
        await app.workers.wait_for_complete()
        await pilot.pause()
    bom = (beside / "superpod-4su-bom.csv").read_text()
    assert bom.splitlines()[0].startswith("category,item,part_id,qty")
    assert (beside / "superpod-4su-links.csv").exists()
    assert not (elsewhere / "outputs").exists()
    assert (chosen / "superpod-4su-bom.csv").read_text() == bom


@sync
async def test_open_another_site_from_the_dialog(superpod: Path) -> None:
    gb200 = copy_site("gb200-hall", superpod.parent)
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, OpenScreen)
        assert [p.name for p in app.screen.files] == ["gb200-hall.toml", "superpod-4su.toml"]
        assert isinstance(app.focused, Input)  # typed text goes to the path field
        await pilot.press("tab", "enter")  # the first file of the list
        await designed(pilot)
        assert app.editor is not None and app.editor.path == gb200
        assert app.result is not None and app.result.summary == design.run(load_site(gb200)).summary()
        assert app.title == load_site(gb200).site.site.name


@sync
async def test_quit_asks_before_dropping_unsaved_edits(superpod: Path) -> None:
    original = superpod.read_text()
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.press("q")
        assert isinstance(app.screen, ChoiceScreen)
        await choose(pilot, None)  # cancel
        assert app.is_running and app.editor is not None and app.editor.dirty
        await pilot.press("q")
        await choose(pilot, "discard")
        await pilot.pause()
        assert not app.is_running
    assert superpod.read_text() == original
    assert not (superpod.parent / "superpod-4su.toml.bak").exists()


@sync
async def test_pan_and_fit(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        hall_map = app.query_one(HallMap)
        await pilot.press("plus", "plus", "plus")
        grid = hall_map.grid
        assert grid is not None and grid.cols > hall_map.size.width  # zoomed past the width of the map
        before = hall_map.view
        await pilot.press("shift+right")
        assert hall_map.view[0] == before[0] + hall_map.size.width // 4
        # the cursor stays on screen
        assert hall_map.view[0] <= hall_map.cursor[0] < hall_map.view[0] + hall_map.size.width
        await pilot.press("0")
        grid = hall_map.grid
        assert grid is not None and grid.cols <= hall_map.size.width and grid.lines <= hall_map.size.height


def test_the_map_draws_every_fibre_cabinet_where_the_plant_put_it() -> None:
    """gb200-hall: each cabinet of the plant is in its hall's floor, and at 0.2 m a column the cell of its
    centre shows a cabinet and no rack (the cabinets stand on free rack positions)."""
    from types import SimpleNamespace

    from layout.scene import scene_of

    d = design.run(load_site(str(ROOT / "sites" / "gb200-hall.toml")))
    floors = hall_floors(d.inputs, SimpleNamespace(scene=scene_of(d), design=d))  # type: ignore[arg-type]
    cab = d.cabling.plant.cabinets
    assert len(cab) and sum(len(f.cabinets) for f in floors.values()) == len(cab)
    for key, floor in floors.items():
        if not len(floor.cabinets):
            continue
        grid = Grid.for_hall(floor, 0.2)
        codes, rack = rasterise(floor, grid, "kind")
        for x0, y0, x1, y1 in floor.cabinets:
            col, line = grid.cell((x0 + x1) / 2, (y0 + y1) / 2)
            assert codes[line, col] == CABINET and rack[line, col] == -1, key


def test_top_n_is_a_stable_sort_of_the_largest() -> None:
    rng = np.random.default_rng(7)
    for n in (0, 3, 15, 2000):
        values = rng.integers(0, 30, n).astype(float)  # many ties
        assert list(top_n(values, 15)) == list(np.argsort(-values, kind="stable")[:15])


@sync
async def test_selecting_a_row_in_the_tree_puts_the_cursor_on_it(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        tree = app.query_one("#tree", Tree)
        hall_node = tree.root.children[0].children[0]
        rows = app.result.design.placement.rows
        last = hall_node.children[-1]
        assert last.data == ("row", str(rows["row"].iat[-1]))
        tree.select_node(last)
        await pilot.pause()
        hall_map = app.query_one(HallMap)
        assert hall_map.has_focus
        rack = hall_map.rack_at_cursor
        assert rack >= 0 and app.result.design.placement.racks["row"].iat[rack] == rows["row"].iat[-1]


def test_rasterise_a_small_hall_by_hand() -> None:
    """A 10 m x 6 m hall at 1 m per column (2 m per line): 11 x 4 cells whose centres are x = 0.5 .. 10.5,
    y = 5, 3, 1, -1."""
    floor = HallFloor(
        "B1/H1",
        Polygon([(0, 0), (10, 0), (10, 6), (0, 6)]),
        columns=[(4.7, 2.7, 5.3, 3.3)],
        keepouts=[(Polygon([(8, 4), (10, 4), (10, 6), (8, 6)]), "electrical room")],
        user_rows=[],
        max_rack_kw=20.0,
        racks=pd.DataFrame(
            {
                "rack_no": [7, 8],
                "kind": ["spine", "gpu"],
                "power_kw": [10.0, 21.0],
                "x0": [1.0, 6.0],
                "y0": [0.5, 0.5],
                "x1": [3.0, 6.6],
                "y1": [1.7, 1.7],
            }
        ),
        trays=np.array([[0.5, 5.0, 9.5, 5.0]]),
        cabinets=np.array([[8.1, 0.5, 8.7, 1.7]]),  # a fibre cabinet on the free floor
    )
    grid = Grid.for_hall(floor, 1.0)
    assert (grid.cols, grid.lines) == (11, 4)
    assert grid.centre(3, 2) == (3.5, 1.0) and grid.cell(3.5, 1.0) == (3, 2)
    codes, rack = rasterise(floor, grid, "kind")
    assert (
        (codes[:3, :10] != OUTSIDE).all() and (codes[3] == OUTSIDE).all() and (codes[:, 10] == OUTSIDE).all()
    )
    assert codes[1, 5] == COLUMN  # the column's centre x = 5.0 falls in the cell 5..6
    assert list(codes[0, 8:10]) == [KEEPOUT, KEEPOUT]
    assert (codes[0, :8] == TRAY).all()  # the tray runs along y = 5, except over the keep-out
    assert list(codes[2, 1:3]) == [RACK + RACK_KINDS.index("spine")] * 2 and list(rack[2, 1:3]) == [7, 7]
    assert (
        codes[2, 6] == RACK + RACK_KINDS.index("gpu") and rack[2, 6] == 8
    )  # 0.6 m wide: the cell of its middle
    assert (rack >= 0).sum() == 3
    assert codes[2, 8] == CABINET and rack[2, 8] == -1  # the cabinet's cell; no rack to inspect there
    assert (codes == CABINET).sum() == 1
    floor.cabinet_ids = ("B1/H1/R1/K01/FC01",)
    assert floor.cabinet_at(8.4, 1.0) == "B1/H1/R1/K01/FC01"  # inside its box
    assert floor.cabinet_at(*grid.centre(8, 2)) == "B1/H1/R1/K01/FC01"  # the centre of its cell
    assert floor.cabinet_at(8.9, 1.0) is None  # 0.2 m beside it, no reach
    assert floor.cabinet_at(9.0, 1.0, reach_m=1.0) == "B1/H1/R1/K01/FC01"  # 0.3 m off, within a cell
    assert floor.cabinet_at(9.0, 1.0, reach_m=0.2) is None
    codes, _ = rasterise(floor, grid, "kw")
    # the drawings' rule (layout.scene.palette): a spine rack by its kind whatever its kW (10 of 20 kW),
    # a GPU rack by its band (21 of 20 kW: over the limit)
    assert codes[2, 1] == RACK + palette.FILLS.index(palette.KIND_COLOURS["spine"])
    assert codes[2, 6] == RACK + palette.OVER


@sync
async def test_next_hall_shows_it_fitted_with_the_cursor_in_its_middle(tmp_path: Path) -> None:
    site = copy_site("seed002-32k", tmp_path)
    app = DCLayoutApp(site)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        halls = list(app.floors)
        assert app.hall == halls[0] and len(halls) > 1
        await pilot.press("right_square_bracket")
        assert app.hall == halls[1]
        hall_map = app.query_one(HallMap)
        x, y = hall_map.cursor_m  # type: ignore[misc]
        x0, y0, x1, y1 = app.floors[halls[1]].bounds
        assert abs(x - (x0 + x1) / 2) <= hall_map.grid.m_per_col  # type: ignore[union-attr]
        assert abs(y - (y0 + y1) / 2) <= hall_map.grid.m_per_line  # type: ignore[union-attr]
        await pilot.press("left_square_bracket")
        assert app.hall == halls[0]


# ---------------------------------------------------------------- the TUI never loses the user's work
def message(app: DCLayoutApp) -> str:
    screen = app.screen
    assert isinstance(screen, MessageScreen), type(screen)
    return screen.title_text + "\n" + "\n".join(screen.lines)


@sync
async def test_save_asks_before_overwriting_a_change_made_outside(superpod: Path) -> None:
    backup = superpod.with_name("superpod-4su.toml.bak")
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("ctrl+s")  # no edits: nothing written, no backup
        await pilot.pause()
        assert not backup.exists()
        await pilot.press("p", *"60", "enter")
        await designed(pilot)
        outside = superpod.read_text() + "# a comment added in another editor\n"
        superpod.write_text(outside)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "changed on disk" in app.screen.title_text
        await pilot.press("enter")  # the default: cancel
        await pilot.pause()
        assert superpod.read_text() == outside and not backup.exists()
        assert app.editor is not None and app.editor.dirty and "max_rack_kw = 60.0" in app.editor.text
        await pilot.press("ctrl+s")
        await pilot.pause()
        await choose(pilot, "overwrite")
        await designed(pilot)
        assert "max_rack_kw = 60.0" in superpod.read_text() and backup.read_text() == outside
        # again, and this time reload what is on disk
        await pilot.press("p", *"50", "enter")
        await designed(pilot)
        superpod.write_text(outside)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await choose(pilot, "reload")
        await designed(pilot)
        assert app.editor.text == outside and not app.editor.dirty
        assert app.editor.inputs.site.building[0].hall[0].max_rack_kw == 45.0
        assert superpod.read_text() == outside


@sync
async def test_ctrl_o_asks_about_unsaved_edits_and_opens_what_was_typed(superpod: Path) -> None:
    copy_site("gb200-hall", superpod.parent)
    original = superpod.read_text()
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("d")  # an edit
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "Unsaved edits" in app.screen.title_text
        await pilot.press("enter")  # the default: cancel
        await pilot.pause()
        assert not isinstance(app.screen, (ChoiceScreen, OpenScreen))
        assert app.editor is not None and app.editor.dirty
        await pilot.press("ctrl+o")
        await pilot.pause()
        await choose(pilot, "discard")
        assert isinstance(app.screen, OpenScreen)
        assert isinstance(app.focused, Input) and app.focused.id == "path"
        # the list highlights gb200-hall first; what is typed wins
        await pilot.press(*"superpod-4su.toml", "enter")
        await designed(pilot)
        assert app.editor.path == superpod and not app.editor.dirty and app.editor.text == original
        assert superpod.read_text() == original


@sync
async def test_ctrl_o_can_save_first(superpod: Path) -> None:
    gb200 = copy_site("gb200-hall", superpod.parent)
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("p", *"60", "enter")
        await pilot.press("ctrl+o")
        await pilot.pause()
        await choose(pilot, "save")
        await settled(pilot)  # the save waited for the design of the edit, then asked for the file
        assert isinstance(app.screen, OpenScreen)
        assert "max_rack_kw = 60.0" in superpod.read_text()
        await pilot.press(*str(gb200), "enter")
        await designed(pilot)
        assert app.editor is not None and app.editor.path == gb200


@sync
async def test_saving_into_a_folder_that_cannot_be_written_keeps_the_app_and_the_edit(
    superpod: Path, block_writes: Callable[[Path], bool]
) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("p", *"60", "enter")
        await designed(pilot)
        gone = block_writes(superpod)
        await pilot.press("ctrl+s")
        await pilot.pause()
        if gone:  # root: the folder went away, so the file reads as gone first
            assert isinstance(app.screen, ChoiceScreen)
            await choose(pilot, "overwrite")
        text = message(app)
        assert text.startswith("Not saved: cannot write superpod-4su.toml") and "edits are kept" in text
        await pilot.press("enter")
        await pilot.pause()
        assert app.is_running and app.editor is not None and app.editor.dirty
        assert "max_rack_kw = 60.0" in app.editor.text and app.sub_title.endswith("*")


@sync
async def test_a_site_that_does_not_design_is_not_saved_and_the_map_is_marked_stale(superpod: Path) -> None:
    original = superpod.read_text()
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        good = app.result
        # a 1 GbE management switch as the backend: the w picker no longer offers it, but an edit can
        # still make a site the pipeline refuses, and the app must show that, not save it
        app.apply_edit(SetCluster("switch", "sn2201"))
        await settled(pilot)
        assert app.editor is not None and app.editor.dirty
        panel = shown(app, "#design-error", width=400)
        assert "Design failed" in panel
        line = next(ln for ln in panel.splitlines() if "cluster.switch:" in ln).strip()
        assert line.startswith(f"{superpod}: cluster.switch: sn2201 ports (1 Gb/s) are slower than")
        assert "(allowed: " in line  # the whole line, not cut
        assert app.map.has_class("-stale") and shown(app, "#legend").startswith("STALE")
        assert app.result is good and app.stale
        assert app.query_one("#design-error").has_class("-shown")
        await pilot.press("ctrl+s")
        await pilot.pause()
        text = message(app)
        assert "would not design" in text and line in [ln.strip() for ln in text.splitlines()]
        assert superpod.read_text() == original
        assert not superpod.with_name("superpod-4su.toml.bak").exists()
        await pilot.press("enter", "ctrl+z")  # undo: the good design again, not stale
        await designed(pilot)
        assert not app.map.has_class("-stale") and not app.query_one("#design-error").has_class("-shown")
        assert not shown(app, "#legend").startswith("STALE")


@sync
async def test_crlf_symlinked_site_file_is_saved_through_the_link_as_crlf(
    superpod: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real" / "site.toml"
    real.parent.mkdir()
    real.write_bytes(superpod.read_bytes().replace(b"\n", b"\r\n"))
    superpod.unlink()
    superpod.symlink_to(real)
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("p", *"60", "enter")
        await pilot.press("ctrl+s")
        await settled(pilot)
    assert superpod.is_symlink() and superpod.resolve() == real.resolve()
    data = real.read_bytes()
    assert b"max_rack_kw = 60.0\r\n" in data and data.count(b"\n") == data.count(b"\r\n")


@sync
async def test_a_fault_of_the_pipeline_is_shown_in_full_and_the_edit_can_still_be_saved(
    superpod: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from layout.tui import session as session_mod

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug in the pipeline, with a long explanation that must not be cut")

    monkeypatch.setattr(session_mod, "compute", broken)
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("p", *"60", "enter")
        await settled(pilot)
        panel = " ".join(shown(app, "#design-error", width=400).split())
        assert "the design pipeline failed: RuntimeError: a bug in the pipeline" in panel
        assert panel.endswith("that must not be cut") and app.map.has_class("-stale")
        await pilot.press("ctrl+s")
        await settled(pilot)
        assert app.is_running and app.editor is not None and not app.editor.dirty
    assert "max_rack_kw = 60.0" in superpod.read_text()


@sync
async def test_nic_picker_offers_only_nics_the_switch_can_serve(tmp_path: Path) -> None:
    """The NIC picker (``i``) used to list every NIC: on a GB300 site (800G backend ports) with the 400G
    QM9700 as fabric switch, only the dual-plane ConnectX-8 (2 x 400G) keeps the links as slow as the switch;
    picking any other made the next design refuse the site. It lists exactly the NICs validate accepts
    with the site's switch."""
    from layout.errors import InputError

    text = (ROOT / "sites" / "gb300-spectrum-x.toml").read_text()
    assert '\nswitch = "sn5600"' in text and '\nnic = "cx8-2x400"' in text
    text = text.replace('\nswitch = "sn5600"', '\nswitch = "qm9700"')
    site = tmp_path / "gb300-qm.toml"
    site.write_text(text)
    design.check(load_site(site))
    app, offered = await _picker_choices(site, "i")
    accepted = []
    catalog = load_site(site).catalog
    for nic in sorted(catalog.nic):  # each NIC in the site file, through validate's checks
        other = tmp_path / f"nic-{nic}.toml"
        other.write_text(text.replace('\nnic = "cx8-2x400"', f'\nnic = "{nic}"'))
        try:
            design.check(load_site(other))
        except InputError as e:
            if any(p.key in ("cluster.switch", "cluster.nic") for p in e.problems):
                continue
        accepted.append(nic)
    assert offered == accepted == ["cx8-2x400"]


@sync
async def test_the_tab_labels_fit_beside_the_inspector_at_80_by_24(superpod: Path) -> None:
    """At 80 columns the last tab label read "Optimis": every label is whole on screen, the Optimise
    tab (shown from the first search) and a violation count of three digits included."""
    from textual.widgets import Tab

    app = DCLayoutApp(superpod)
    async with app.run_test(size=(80, 24)) as pilot:
        await designed(pilot)
        await pilot.press("6", "1")  # the Optimise tab shown, back on the map (the inspector beside it)
        await pilot.pause()
        tab = app.query_one("#tabs").get_tab("violations")  # type: ignore[attr-defined]
        tab.label = "Violations (123)"
        await pilot.pause()
        inspector = app.query_one("#inspector")
        assert inspector.display and inspector.region.width > 0
        tabs = list(app.query(Tab))
        assert [str(t.label) for t in tabs][-1] == "Optimise"
        for t in tabs:
            assert t.region.width >= len(str(t.label)), str(t.label)
            assert t.region.right <= inspector.region.x, str(t.label)


@sync
async def test_opening_a_device_a_fifo_or_a_huge_file_says_why_and_keeps_the_site(
    superpod: Path, tmp_path: Path
) -> None:
    """The open dialog goes through the loader's checks before reading a byte: /dev/zero, a FIFO and a
    5 GiB sparse file are one message each (no MemoryError, no freeze), and the open site stays."""
    import os

    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.toml"
    with huge.open("wb") as f:
        f.truncate(5 * 2**30)  # sparse: no disk used
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        for path, why in (
            (Path("/dev/zero"), "is not a regular file"),
            (fifo, "is not a regular file"),
            (huge, "is larger than 16 MiB"),
        ):
            assert app.open_site(path) is False
            await pilot.pause()
            assert isinstance(app.screen, MessageScreen)
            assert any(why in line for line in app.screen.lines), (path, app.screen.lines)
            await pilot.press("escape")
            await pilot.pause()
            assert app.editor is not None and app.editor.path == superpod
        await pilot.press("q")  # still answering keys
