"""Find, trace, row labels, the hall outline and the rack elevation, headless (layout/tui/find.py,
trace.py, floor.py, the inspector's renderables) and through the app with Pilot."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from test_tui import ROOT, designed, shown, sync
from textual.widgets import Input, Static

from layout.export.tables import ports_table
from layout.tui.app import DCLayoutApp
from layout.tui.find import Found, find
from layout.tui.floor import (
    FLOOR,
    OUTSIDE,
    TRACE,
    TRACE_FAR,
    TRACE_NEAR,
    TRAY,
    WALL,
    Grid,
    HallFloor,
    rasterise,
    row_labels,
    trace_overlay,
    with_outline,
)
from layout.tui.results import Result
from layout.tui.screens.find import FindScreen
from layout.tui.session import Session
from layout.tui.trace import TRACE_CLASSES, cable_ids, trace_rack
from layout.tui.widgets.hall_map import WALL_CHARS, HallMap
from layout.tui.widgets.inspector import elevation

SUPERPOD = ROOT / "sites" / "superpod-4su.toml"


@pytest.fixture(scope="module")
def result() -> Result:
    s = Session()
    s.open(SUPERPOD)
    return s.design()


def text_of(renderable: Any, width: int = 80) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def rack_no(result: Result, rack_id: str) -> int:
    return int(np.flatnonzero(result.racks["rack_id"].to_numpy() == rack_id)[0])


# ------------------------------------------------------------------------------------------- find
def test_find_names_racks_rows_halls_devices_in_every_spelling(result: Result) -> None:
    inputs = result.design.inputs
    k07 = rack_no(result, "B1/H1/R29/K07")
    x, y = float(result.racks["x_m"].iat[k07]), float(result.racks["y_m"].iat[k07])
    for typed in ("B1/H1/R29/K07", "b1/h1/r29/k07", "B1.H1.R29.K07", "R29/K07", " R29/K07 "):
        got = find(result, inputs, typed, "B1/H1")
        assert isinstance(got, Found), typed
        assert (got.kind, got.name, got.hall, got.rack_no) == ("rack", "B1/H1/R29/K07", "B1/H1", k07)
        assert abs(got.x_m - x) < 1e-9 and abs(got.y_m - y) < 1e-9  # the map goes to the rack's centre
    row = find(result, inputs, "R27", "B1/H1")
    assert (
        isinstance(row, Found) and (row.kind, row.name) == ("row", "B1/H1/R27") and row.detail == "10 racks"
    )
    assert isinstance(hall := find(result, inputs, "b1/h1"), Found) and hall.kind == "hall"
    assert isinstance(bld := find(result, inputs, "B1"), Found) and (bld.kind, bld.hall) == (
        "building",
        "B1/H1",
    )
    # a device: the rack the placement put it in, and its RU
    dev = int(np.flatnonzero(result.design.fabric.devices["device_id"].to_numpy() == "srv-00017")[0])
    rack = int(result.design.placement.device_rack[dev])
    got = find(result, inputs, "SRV-00017")
    assert isinstance(got, Found) and (got.kind, got.device, got.rack_no) == ("device", dev, rack)
    assert (
        got.detail
        == f"dgx-h100 in {result.racks['rack_id'].iat[rack]} at U{result.design.placement.device_ru[dev]}"
    )


def test_find_says_what_it_does_not_know(result: Result) -> None:
    inputs = result.design.inputs
    got = find(result, inputs, "B1/H1/R29/K77")
    assert isinstance(got, str) and got.startswith(
        "nothing called 'B1/H1/R29/K77' in this design; did you mean"
    )
    assert "B1/H1/R29/K07" in got
    got = find(result, inputs, "nonsense")
    assert isinstance(got, str) and "a rack (B1/H1/R03/K07)" in got and "a device" in got
    assert find(result, inputs, "  ").startswith("type a rack")  # type: ignore[union-attr]
    # no design yet: halls are known, the rest waits for it
    assert isinstance(find(None, inputs, "B1/H1"), Found)
    assert "not done yet" in str(find(None, inputs, "R29"))


def test_cable_ids_are_the_ports_tables_and_find_goes_to_each(result: Result) -> None:
    d = result.design
    table = ports_table(d.fabric, d.placement, d.cabling, d.inputs.stem.upper())
    every = np.arange(len(d.cabling.links))
    assert cable_ids(result, every) == table["cable_id"].tolist()
    for link in (0, len(every) // 2, len(every) - 1, int(np.nanargmax(result.link_length_m))):
        cid = table["cable_id"].iat[link]
        for typed in (cid, cid.split(".", 1)[1], cid.lower()):  # with or without the site code, any case
            got = find(result, d.inputs, typed)
            assert isinstance(got, Found) and (got.kind, got.link, got.name) == ("cable", link, cid)
            assert got.rack_no == result.link_rack_a[link]
    wrong = table["cable_id"].iat[0].replace("be1.1", "be9.1")
    assert "none of that id" in str(find(result, d.inputs, wrong))
    assert "names no rack" in str(find(result, d.inputs, "X.B9.H9.R25.K01-U03:1.1/B1.H1.R25.K05-U04:1.1"))


# ------------------------------------------------------------------------------------------ trace
def test_trace_lists_every_link_of_the_rack_with_its_ports(result: Result) -> None:
    d = result.design
    links = d.cabling.links
    k01 = rack_no(result, "B1/H1/R25/K01")
    t = trace_rack(result, k01)
    scan = np.flatnonzero((links["rack_a"].to_numpy() == k01) | (links["rack_b"].to_numpy() == k01))
    assert list(t.links) == list(scan) and len(t) == 52  # 32 GPU, 8 frontend, 8 storage, 4 BMC links
    table = ports_table(d.fabric, d.placement, d.cabling, "X")
    rows = table.iloc[scan]
    here_is_a = (rows["a_rack"] == "B1/H1/R25/K01").to_numpy()
    assert list(t.near_port) == list(np.where(here_is_a, rows["a_port"], rows["b_port"]))
    assert list(t.far_port) == list(np.where(here_is_a, rows["b_port"], rows["a_port"]))
    assert list(t.far_rack_id) == list(np.where(here_is_a, rows["b_rack"], rows["a_rack"]))
    assert set(t.far_racks.tolist()) == {rack_no(result, "B1/H1/R25/K05"), rack_no(result, "B1/H1/R25/K06")}
    g = t.groups
    gpu = g[g["kind"] == "gpu_leaf"].iloc[0]
    assert (gpu["far_rack_id"], gpu["media_class"], int(gpu["links"])) == ("B1/H1/R25/K05", "mmf", 32)
    lengths = links["length_m"].to_numpy()[scan][t.kind == "gpu_leaf"]
    assert (gpu["min_m"], gpu["max_m"]) == (lengths.min(), lengths.max())


def test_a_traced_cable_runs_the_route_the_design_priced(result: Result) -> None:
    """Each tray link traced on its own: its pieces add up to the run along the trays the design
    measured (tray_m), for the longest link (across the hall) and one link of each kind."""
    links = result.design.cabling.links
    tray = np.flatnonzero(links["route"].astype(str).to_numpy() == "tray")
    picks = {int(np.nanargmax(result.link_length_m))}
    picks |= {int(tray[links["kind"].to_numpy()[tray] == k][0]) for k in set(links["kind"].to_numpy()[tray])}
    assert len(picks) >= 4
    for link in sorted(picks):
        t = trace_rack(result, int(result.link_rack_a[link]), np.array([link]))
        seg = t.segments
        run = np.hypot(seg["x1_m"] - seg["x0_m"], seg["y1_m"] - seg["y0_m"]).sum()
        assert abs(run - links["tray_m"].iat[link]) < 1e-6, link
        assert set(seg["cls"]) == {TRACE_CLASSES.index(str(links["media_class"].iat[link]))}
        # the route starts at one rack and ends at the other: every piece joins the next end to end
        ends = pd.concat(
            [
                seg[["x0_m", "y0_m"]].set_axis(["x", "y"], axis=1),
                seg[["x1_m", "y1_m"]].set_axis(["x", "y"], axis=1),
            ]
        )
        counts = ends.round(6).value_counts()
        assert (counts == 1).sum() == 2 and (counts <= 2).all()  # a path: two loose ends, no branch


def test_trace_overlay_by_hand() -> None:
    """A 10 x 4 cell grid at 1 m per column (2 m per line, y = 8 at the top): a piece along y = 7 over
    cells 1..6 of line 0, one down x = 6.5 from line 0 to 2; the traced rack's footprint and a far
    rack's on top, each marked whole."""
    grid = Grid(0.0, 8.0, 1.0, 10, 4)
    seg = np.array([[1.2, 7.0, 6.5, 7.0], [6.5, 7.0, 6.5, 3.0]])
    near = np.array([[0.1, 6.5, 0.9, 7.5]])  # the cell (0, 0)
    far = np.array([[5.6, 2.6, 8.4, 3.4]])  # the cells of line 2 whose centres it holds: 6 and 7
    out = trace_overlay(grid, seg, np.array([2, 0]), near, far)
    mmf, dac = TRACE + 2 * TRACE_CLASSES.index("mmf"), TRACE + 2 * TRACE_CLASSES.index("dac")
    assert list(out[0, 1:6]) == [mmf] * 5
    assert out[0, 6] == mmf  # the corner: both pieces cross it, the later class (mmf) wins
    assert out[1, 6] == dac + 1  # north-south
    assert list(out[2, 5:9]) == [-1, TRACE_FAR, TRACE_FAR, -1] and out[0, 0] == TRACE_NEAR  # over the piece
    assert (out[3] == -1).all() and (out[:, 9] == -1).all()


# ----------------------------------------------------------------------------- outline and labels
def test_outline_draws_the_walls_as_box_lines() -> None:
    codes = np.zeros((5, 8), np.int16)
    codes[1:4, 1:7] = FLOOR
    codes[1, 3] = TRAY  # a tray on the wall line stays a tray
    out = with_outline(codes)
    drawn = [
        "".join(WALL_CHARS[v - WALL] if v >= WALL else {FLOOR: ".", TRAY: "t"}.get(int(v), " ") for v in r)
        for r in out
    ]
    assert drawn == ["        ", " ┌─t──┐ ", " │....│ ", " └────┘ ", "        "]
    assert (out[codes == OUTSIDE] == OUTSIDE).all()


def test_row_labels_go_where_they_fit() -> None:
    """Two rows along x on one line; the first starts at the west wall (no room before it: its label
    goes to its front, the line north), the second has room before it."""
    floor = HallFloor("B1/H1", __import__("shapely").geometry.box(0, 0, 20, 8), [], [], [], 40.0)
    grid = Grid.for_hall(floor, 1.0)
    rows = pd.DataFrame(
        {
            "row": ["B1/H1/R01", "B1/H1/R02"],
            "label": ["R01", "R02"],
            "axis": ["x", "x"],
            "x0_m": [0.2, 12.0],
            "y0_m": [3.0, 3.0],
            "x1_m": [6.0, 18.0],
            "y1_m": [3.0, 3.0],
            "front_sign": [1, 1],
            "it_kw": [412.4, 7.0],
        }
    )
    codes, _ = rasterise(floor, grid)
    line = grid.cell(0, 3.0)[1]
    codes[line, 0:7] = TRACE  # the racks (anything but floor, tray or outside)
    codes[line, 12:19] = TRACE
    got = row_labels(rows, grid, codes)
    assert got == [(line - 1, 0, "R01"), (line, 8, "R02")]
    got = row_labels(rows, grid, codes, with_kw=True)
    assert (line - 1, 0, "R01 412kW") in got and any(t.startswith("R02") for _, _, t in got)


# --------------------------------------------------------------------------------------- elevation
def test_elevation_lists_devices_from_the_top_with_the_gaps(result: Result) -> None:
    k01 = rack_no(result, "B1/H1/R25/K01")
    dev = np.flatnonzero(result.design.placement.device_rack == k01)
    ru = result.design.placement.device_ru[dev]
    ids = result.design.fabric.devices["device_id"].to_numpy()[dev]
    text = text_of(elevation(result, k01, dev, highlight=int(dev[0])), 60).splitlines()
    assert text[0].strip() == "Elevation (48U)"
    # four 8U DGX H100s from their lowest RU up, empty stretches between, top to bottom
    want = []
    top = 48
    for i in np.argsort(-ru):
        lo, hi = int(ru[i]), int(ru[i]) + 7
        if top > hi:
            want.append(f"U{hi + 1:02d}" + (f"-{top:02d}" if top > hi + 1 else "   ") + " ·")
        want.append(f"U{lo:02d}-{hi:02d} {ids[i]} dgx-h100")
        top = lo - 1
    if top >= 1:
        want.append("U01" + (f"-{top:02d}" if top > 1 else "   ") + " ·")
    assert [line.rstrip() for line in text[1:] if line.strip()] == want


# ------------------------------------------------------------------------------------------ Pilot
@sync
async def test_find_dialog_goes_to_a_rack_and_says_what_is_unknown() -> None:
    app = DCLayoutApp(SUPERPOD)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        await pilot.press("slash")
        assert isinstance(app.screen, FindScreen) and isinstance(app.focused, Input)
        await pilot.press(*"K99", "enter")
        assert isinstance(app.screen, FindScreen)  # stays open, says why
        assert "nothing called 'K99'" in str(app.screen.query_one("#find-message", Static).content)
        app.screen.query_one(Input).value = "R31/K03"
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, FindScreen)
        hall_map = app.query_one(HallMap)
        assert (
            hall_map.has_focus and app.result.racks["rack_id"].iat[hall_map.rack_at_cursor] == "B1/H1/R31/K03"
        )
        assert "Rack B1/H1/R31/K03" in shown(app, "#inspector-body", 60)
        # ctrl+f too, with the last text kept; a device is highlighted in its rack's elevation
        await pilot.press("ctrl+f")
        assert isinstance(app.screen, FindScreen) and app.screen.query_one(Input).value == "R31/K03"
        app.screen.query_one(Input).value = "srv-00017"
        await pilot.press("enter")
        await pilot.pause()
        dev = app.found_device
        assert hall_map.rack_at_cursor == int(app.result.design.placement.device_rack[dev])
        assert "srv-00017 dgx-h100" in shown(app, "#inspector-body", 60)


async def _trace_the_leaf(app: DCLayoutApp, pilot: Any) -> tuple[HallMap, int]:
    """Design the SuperPOD, put the cursor on leaf rack B1/H1/R25/K05 and press r."""
    await designed(pilot)
    assert app.result is not None
    hall_map = app.query_one(HallMap)
    leaf = rack_no(app.result, "B1/H1/R25/K05")
    hall_map.goto(float(app.result.racks["x_m"].iat[leaf]), float(app.result.racks["y_m"].iat[leaf]))
    await pilot.press("r")
    return hall_map, leaf


@sync
async def test_trace_key_draws_the_racks_cables_and_lists_them() -> None:
    app = DCLayoutApp(SUPERPOD)
    async with app.run_test(size=(120, 40)) as pilot:
        hall_map, leaf = await _trace_the_leaf(app, pilot)
        assert app.trace is not None and app.trace.rack_no == leaf and len(app.trace) == 520
        assert hall_map.overlay is not None and (hall_map.overlay == TRACE_NEAR).any()
        assert (hall_map.overlay == TRACE_FAR).any() and (hall_map.overlay >= TRACE).any()
        ends = np.r_[app.result.link_rack_a[app.trace.links], app.result.link_rack_b[app.trace.links]]
        far = len(set(ends.tolist()) - {leaf, -1})
        legend = str(app.query_one("#legend", Static).content)
        assert legend.startswith(f"trace B1/H1/R25/K05: 520 links, {far} racks")
        inspector = shown(app, "#inspector-body", 60)
        assert f"Trace R25/K05\n520 links to {far} racks" in inspector and "128 mmf" in inspector
        await pilot.press("5")  # the cabling tab lists every link of the traced rack with its ports
        assert "Links of the traced rack B1/H1/R25/K05" in shown(app, "#trace-view", 160)
        await pilot.press("1", "r")  # r again on the same rack: no trace
        assert app.trace is None and hall_map.overlay is None
        assert not str(app.query_one("#legend", Static).content).startswith("trace")


@sync
async def test_a_found_cable_is_traced_alone_and_survives_an_edit(tmp_path: Path) -> None:
    site = tmp_path / "superpod-4su.toml"
    site.write_text(SUPERPOD.read_text())
    app = DCLayoutApp(site)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        cid = cable_ids(app.result, np.array([100]))[0]
        await pilot.press("slash")
        app.screen.query_one(Input).value = cid
        await pilot.press("enter")
        await pilot.pause()
        assert app.trace is not None and list(app.trace.links) == [100]
        await pilot.press("p", *"44", "enter")  # a new design: the same cable traced in it
        await designed(pilot)
        assert app.trace is not None and len(app.trace) == 1
        assert cable_ids(app.result, app.trace.links) == [cid]


def test_longest_links_name_their_ports_so_no_two_lines_are_alike(result: Result) -> None:
    from layout.tui.panels import LONGEST_LINKS, longest_links, top_n

    d = result.design
    table = ports_table(d.fabric, d.placement, d.cabling, "X")
    lines = [line.strip() for line in text_of(longest_links(result), 200).splitlines()[2:] if line.strip()]
    assert len(lines) == LONGEST_LINKS and len(set(lines)) == LONGEST_LINKS
    for line, i in zip(
        lines, top_n(np.nan_to_num(result.link_length_m, nan=-1.0), LONGEST_LINKS), strict=True
    ):
        r = table.iloc[i]
        assert f"{r['a_rack']} {r['a_device']} {r['a_port']}" in line
        assert f"{r['b_rack']} {r['b_device']} {r['b_port']}" in line


# ------------------------------------------------------------------------------ quitting at once
def test_q_quits_while_a_design_runs_without_waiting_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A design run held in its thread until released: q ends the app, and the event loop's shutdown
    (asyncio.run, which joins its default executor, where Textual's thread workers run) does not wait
    for the run: its thread is still waiting when the app is gone."""
    import asyncio
    import threading

    started, release = threading.Event(), threading.Event()
    real = Session.compute

    def held(self: Session, inputs: Any, text: str, progress: Any = None) -> Result:
        started.set()
        release.wait(60)
        return real(self, inputs, text, progress)

    monkeypatch.setattr(Session, "compute", held)
    app = DCLayoutApp(SUPERPOD)

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            while not started.is_set():
                await pilot.pause(0.01)
            assert app.designing
            await pilot.press("q")

    asyncio.run(run())
    thread = app.design_thread
    assert thread is not None and thread.is_alive() and not release.is_set()
    assert app.quitting  # the run stops at its next stage instead of finishing
    release.set()
    thread.join(60)
    assert not thread.is_alive()


def test_user_row_racks_have_their_own_glyph_and_the_legend_lists_only_what_is_drawn() -> None:
    from shapely.geometry import box

    from layout.tui.floor import COLUMN, KEEPOUT, RACK, RACK_KINDS, USER_RACK, USER_ROW, UserRowBox
    from layout.tui.widgets.hall_map import legend

    racks = pd.DataFrame(
        {"rack_no": [0, 1], "kind": ["gpu", "network"], "power_kw": [10.0, 5.0], "user_row": [False, True],
         "x0": [1.0, 4.0], "y0": [1.0, 1.0], "x1": [2.0, 5.0], "y1": [2.0, 2.0]}
    )  # fmt: skip
    empty_row = UserRowBox(0, "dgx-h100-x4", 2, "x", 7.0, 1.0, 9.0, 2.0)
    floor = HallFloor("B1/H1", box(0, 0, 10, 4), [], [], [empty_row], 40.0, racks=racks)
    grid = Grid.for_hall(floor, 1.0)
    codes, _ = rasterise(floor, grid, "kind")
    line = grid.cell(1.5, 1.5)[1]
    assert codes[line, 1] == RACK + RACK_KINDS.index("gpu")
    assert codes[line, 4] == USER_RACK + RACK_KINDS.index("network")  # a user row's rack
    assert codes[line, 7] == USER_ROW  # the user row's place without racks (before its design)
    text = legend("kind", "", {int(c) for c in np.unique(codes)}).plain
    assert "gpu" in text and "net" in text and "▓user row" in text and "empty user row" in text
    assert "spine" not in text and "MDF" not in text and "keep-out" not in text and "col" not in text
    no_user = legend("kind", "", {FLOOR, RACK, COLUMN, KEEPOUT}).plain
    assert "user row" not in no_user and "col" in no_user and "keep-out" in no_user


@sync
async def test_escape_clears_a_trace_and_question_mark_opens_the_keys() -> None:
    """Issue 28: Escape did not clear a trace; ? did nothing (F1 showed the keys)."""
    from layout.tui.screens.help import HelpScreen

    app = DCLayoutApp(SUPERPOD)
    async with app.run_test(size=(120, 40)) as pilot:
        hall_map, _ = await _trace_the_leaf(app, pilot)
        assert app.trace is not None and hall_map.overlay is not None
        await pilot.press("escape")
        await pilot.pause()
        assert app.trace is None and hall_map.overlay is None
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        assert not isinstance(app.screen, HelpScreen)
