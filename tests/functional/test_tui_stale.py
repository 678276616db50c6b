"""Issue 28: the inspector, the legend and the Optimise tab agree on what is stale; help fits and
scrolls."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from test_tui import designed, settled, shown, superpod, sync
from test_tui_optimise import SMALL, until
from textual.containers import VerticalScroll

from layout.siteedit import SetCluster
from layout.tui import optimizer
from layout.tui.app import DCLayoutApp
from layout.tui.screens.help import HelpScreen

__all__ = ["superpod"]  # the fixture, a copy of superpod-4su.toml in the test's folder


@sync
async def test_after_a_failed_design_the_inspector_says_what_the_legend_says(superpod: Path) -> None:
    """Issue 28: the inspector said "designing…" while the map said "STALE: design failed"."""
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        app.apply_edit(SetCluster("switch", "sn2201"))  # a site the pipeline refuses
        await settled(pilot)
        await pilot.pause()
        assert shown(app, "#legend").startswith("STALE: design failed")
        inspector = shown(app, "#inspector-body", 60)
        assert "STALE: design failed" in inspector and "designing" not in inspector
        await pilot.press("down")  # the cursor moves: it still says so
        await pilot.pause()
        assert "STALE: design failed" in shown(app, "#inspector-body", 60)
        await pilot.press("ctrl+z")
        await designed(pilot)
        body = shown(app, "#inspector-body", 60)
        assert "STALE" not in body and "designing" not in body


@sync
async def test_the_optimise_tab_stops_offering_a_stale_result(
    superpod: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: with the Optimise tab on screen, an edit left it offering "A or enter: accept it"."""
    monkeypatch.setattr(optimizer, "budget_for", lambda site: SMALL)
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("O")
        run = app.optimisation
        assert run is not None
        await until(pilot, lambda a: run.latest.finished, "the search to end")
        assert run.latest.options and "A or enter" in shown(app, "#optimise-view", 120)
        await pilot.press("d")  # an edit, the tab still on screen
        await pilot.pause()
        panel = shown(app, "#optimise-view", 120)
        assert "A or enter" not in panel and "cannot be accepted" in panel
        await pilot.press("ctrl+z")  # the text the search was made for: it can be accepted again
        await pilot.pause()
        assert "A or enter" in shown(app, "#optimise-view", 120)
        await designed(pilot)


@sync
async def test_the_help_fits_80_by_24_and_scrolls_when_smaller(superpod: Path) -> None:
    """Issue 28: help was cut off and did not scroll at 60x20."""
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(80, 24)) as pilot:
        await designed(pilot)
        await pilot.press("question_mark")
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        dialog = screen.query_one(".dialog").region
        assert dialog.x >= 0 and dialog.y >= 0 and dialog.right <= 80 and dialog.bottom <= 24
        keys = screen.query_one("#keys-scroll", VerticalScroll)
        assert keys.region.height >= keys.virtual_size.height  # every key on screen at 80 x 24
        await pilot.press("question_mark")  # ? closes it too
        assert not isinstance(app.screen, HelpScreen)
        await pilot.resize_terminal(60, 20)
        await pilot.press("f1")
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        await pilot.pause()
        dialog = screen.query_one(".dialog").region
        assert dialog.x >= 0 and dialog.y >= 0 and dialog.right <= 60 and dialog.bottom <= 20
        keys = screen.query_one("#keys-scroll", VerticalScroll)
        assert keys.region.bottom <= dialog.bottom
        for label in screen.query(".dialog-title, .dialog-help"):  # one line each, both on screen
            assert label.region.height == 1 and label.region.bottom < dialog.bottom, label
        assert keys.virtual_size.height > keys.region.height  # more keys than lines: it scrolls
        assert keys.has_focus and keys.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert keys.scroll_y > 0
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


@sync
async def test_while_a_design_runs_the_last_figures_stay_dimmed(superpod: Path) -> None:
    """Issue 28: while a design ran, the old figures disappeared from the status line."""
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(160, 40)) as pilot:
        await designed(pilot)
        assert app.result is not None
        before = shown(app, "#status", 160).strip()
        assert " optics · " in before and "violation(s)" in before
        app.apply_edit(SetCluster("switch", "sn2201"))  # a design starts (and will fail)
        status = app.status
        assert isinstance(status, Text) and status.plain.startswith("designing")
        assert status.plain.endswith(before)  # the last figures, as they were
        figures_at = status.plain.index(before)
        dim = [s for s in status.spans if "dim" in str(s.style)]
        assert dim and dim[0].start <= figures_at and dim[0].end == len(status.plain)
        await settled(pilot)
        await pilot.pause()
        failed = app.status
        assert isinstance(failed, Text) and failed.plain.startswith("design failed")
        assert failed.plain.endswith(before)
        await pilot.press("ctrl+z")
        await designed(pilot)
