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
