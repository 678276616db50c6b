"""Issue 28: the inspector, the legend and the Optimise tab agree on what is stale."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_tui import ROOT, designed, settled, shown, sync
from test_tui_optimise import SMALL, until

from layout.siteedit import SetCluster
from layout.tui import optimizer
from layout.tui.app import DCLayoutApp


@pytest.fixture
def superpod(tmp_path: Path) -> Path:
    dst = tmp_path / "superpod-4su.toml"
    shutil.copy(ROOT / "sites" / "superpod-4su.toml", dst)
    return dst


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
