"""Snapshots of the terminal UI's main screens (pytest-textual-snapshot). Each waits until the design is on
screen, so what is drawn depends only on the site file. After a deliberate change of the screens, look
at the new SVGs and accept them with ``pytest tests/functional/test_tui_snapshots.py --snapshot-update``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from test_tui import ROOT, designed
from textual.pilot import Pilot

from layout.tui.app import DCLayoutApp

SUPERPOD = ROOT / "sites" / "superpod-4su.toml"


def after(*keys: str) -> Callable[[Pilot[Any]], Any]:
    async def run(pilot: Pilot[Any]) -> None:
        await designed(pilot)
        if keys:
            await pilot.press(*keys)
            await designed(pilot)

    return run


def test_map_screen(snap_compare: Any) -> None:
    """Tree, hall map with racks by kind and trays, inspector on the rack under the cursor (one line below
    and one column right of the middle of the hall), status line."""
    assert snap_compare(DCLayoutApp(SUPERPOD), terminal_size=(120, 40), run_before=after("down", "right"))


def test_map_coloured_by_kw_use(snap_compare: Any) -> None:
    assert snap_compare(DCLayoutApp(SUPERPOD), terminal_size=(120, 40), run_before=after("c"))


def test_budgets_tab(snap_compare: Any) -> None:
    assert snap_compare(DCLayoutApp(SUPERPOD), terminal_size=(120, 40), run_before=after("2"))


def test_narrow_terminal(snap_compare: Any) -> None:
    """80 x 24: the tree is hidden (f2 shows it), the inspector is narrower."""
    assert snap_compare(DCLayoutApp(SUPERPOD), terminal_size=(80, 24), run_before=after("down", "right"))


def find_then(text: str, *keys: str) -> Callable[[Pilot[Any]], Any]:
    """Open the find dialog, type ``text``, go there, then press ``keys``."""

    async def run(pilot: Pilot[Any]) -> None:
        from textual.widgets import Input

        await designed(pilot)
        await pilot.press("slash")
        pilot.app.screen.query_one(Input).value = text
        await pilot.press("enter", *keys)
        await pilot.pause()
        pilot.app.clear_notifications()  # the "Found" toast would cover the legend

    return run


def test_find_and_trace(snap_compare: Any) -> None:
    """/ R01/K05 (a leaf rack) then r: its cables along the trays to the GPU racks, spines and the core
    coloured by medium, the far racks marked, the inspector listing them by far rack and medium."""
    assert snap_compare(DCLayoutApp(SUPERPOD), terminal_size=(120, 40), run_before=find_then("R01/K05", "r"))


def test_rack_elevation_of_a_found_device(snap_compare: Any) -> None:
    """/ srv-00017: the map on its rack, the elevation with the server highlighted."""
    assert snap_compare(DCLayoutApp(SUPERPOD), terminal_size=(120, 40), run_before=find_then("srv-00017"))


def test_row_kw_labels_and_keys_at_80_by_24(snap_compare: Any) -> None:
    """#: each row's IT kW on the map; f1: every key in two columns that fit 80 x 24."""
    assert snap_compare(DCLayoutApp(SUPERPOD), terminal_size=(80, 24), run_before=after("number_sign", "f1"))


def test_no_site_open(snap_compare: Any) -> None:
    async def run(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()

    assert snap_compare(DCLayoutApp(None), terminal_size=(80, 24), run_before=run)


def test_optimise_tab_at_80_by_24(snap_compare: Any, monkeypatch: Any) -> None:
    """O with 9 designs of the search (a clock that stands still, so no time is drawn but 0.0 s): baseline
    and best transceivers + cables, the saving, what moved, how to accept; the status line leads with it."""
    from test_tui import settled

    from layout.tui import optimizer

    monkeypatch.setattr(optimizer, "budget_for", lambda site: optimizer.Budget(9, 600.0))
    monkeypatch.setattr(optimizer, "CLOCK", lambda: 0.0)

    async def run(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, DCLayoutApp)
        await designed(pilot)
        await pilot.press("O")
        await settled(pilot, 120.0, lambda a: a.optimisation is not None and a.optimisation.latest.finished)
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(DCLayoutApp(SUPERPOD), terminal_size=(80, 24), run_before=run)


def test_cluster_form_at_80_by_24(snap_compare: Any) -> None:
    """C: every cluster decision with its value; oversubscription greyed out (no pods) with the reason."""
    assert snap_compare(DCLayoutApp(SUPERPOD), terminal_size=(80, 24), run_before=after("C"))


def test_status_line_with_deltas(snap_compare: Any, tmp_path: Any) -> None:
    """After p 30 (no more 4 x DGX H100 to a rack): racks, capital and optics with their moves."""
    import shutil

    site = tmp_path / "superpod-4su.toml"
    shutil.copy(SUPERPOD, site)

    async def run(pilot: Pilot[Any]) -> None:
        await designed(pilot)
        await pilot.press("p", *["backspace"] * 4, "3", "0", "enter")
        await designed(pilot)
        pilot.app.clear_notifications()

    assert snap_compare(DCLayoutApp(site), terminal_size=(160, 40), run_before=run)


def test_ab_view(snap_compare: Any, tmp_path: Any) -> None:
    """B after p 30: every headline figure as saved and now, with the move."""
    import shutil

    site = tmp_path / "superpod-4su.toml"
    shutil.copy(SUPERPOD, site)

    async def run(pilot: Pilot[Any]) -> None:
        await designed(pilot)
        await pilot.press("p", *["backspace"] * 4, "3", "0", "enter")
        await designed(pilot)
        pilot.app.clear_notifications()
        await pilot.press("B")
        await pilot.pause()

    assert snap_compare(DCLayoutApp(site), terminal_size=(120, 40), run_before=run)
