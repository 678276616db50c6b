"""Issue 28: every cluster decision from the TUI (C), with what cannot work greyed out and why; a server
change takes the rack, NIC and switch that go with it, as one undoable edit; numbers typed in a burst
are applied as typed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_tui import choose, copy_site, designed, sync
from textual.widgets import OptionList

from layout.tui.app import DCLayoutApp
from layout.tui.screens.dialogs import ChoiceScreen, NumberScreen


async def pick(pilot: Any, value: str) -> None:
    """In the open choice, highlight ``value`` (greyed-out options are skipped by the arrows, so go
    straight to it) and press enter."""
    screen = pilot.app.screen
    assert isinstance(screen, ChoiceScreen)
    screen.query_one(OptionList).highlighted = [v for _, v in screen.options].index(value)
    await pilot.press("enter")
    await pilot.pause()


def on_screen(app: DCLayoutApp, selector: str) -> str:
    """The plain text a Static of the screen on top shows."""
    import io

    from rich.console import Console

    console = Console(width=150, record=True, color_system=None, file=io.StringIO())
    console.print(app.screen.query_one(selector).content)  # type: ignore[attr-defined]
    return console.export_text()


def options(app: DCLayoutApp) -> dict[str, tuple[str, bool]]:
    """The open choice's options: value -> (label as shown, disabled)."""
    screen = app.screen
    assert isinstance(screen, ChoiceScreen)
    ol = screen.query_one(OptionList)
    return {
        str(v): (str(ol.get_option_at_index(i).prompt), ol.get_option_at_index(i).disabled)
        for i, (_, v) in enumerate(screen.options)
    }


@sync
async def test_the_cluster_form_sets_gpus_typed_in_a_burst(tmp_path: Path) -> None:
    site = copy_site("superpod-4su", tmp_path)
    app = DCLayoutApp(site)
    async with app.run_test(size=(160, 40)) as pilot:
        await designed(pilot)
        await pilot.press("C")
        shown = options(app)
        assert shown["gpus"][0] == "GPUs: 1,024" and not shown["gpus"][1]
        # no pods: oversubscription cannot apply, and says why
        assert shown["oversubscription"][1] and "needs pods" in shown["oversubscription"][0]
        await choose(pilot, "gpus")
        assert isinstance(app.screen, NumberScreen)
        await pilot.press(*["backspace"] * 4, *"768", "enter")  # a burst, no pause
        await designed(pilot)
        assert app.editor is not None and app.editor.inputs.site.cluster.gpus == 768
        assert "gpus = 768" in site.read_text() or app.editor.dirty
        assert app.result is not None and app.result.design.fabric.gpus == 768


@sync
async def test_a_server_change_brings_its_rack_and_is_one_undo(tmp_path: Path) -> None:
    site = copy_site("superpod-4su", tmp_path)
    app = DCLayoutApp(site)
    async with app.run_test(size=(160, 40)) as pilot:
        await designed(pilot)
        await pilot.press("g")  # the GPU rack picker: templates of other servers greyed out
        shown = options(app)
        assert shown["gb200-nvl72"][1] and "holds no dgx-h100" in shown["gb200-nvl72"][0]
        assert not shown["dgx-h100-x2"][1]
        await pilot.press("escape")
        await pilot.press("C")
        await choose(pilot, "server")
        shown = options(app)
        # what is applied with it is on the option: its rack (and the low-density rack it replaces)
        assert shown["dgx-b200"][0].endswith("(with rack dgx-b200-x2, rack_low_density dgx-b200-x2)")
        assert not shown["dgx-b200"][1]
        await pick(pilot, "dgx-b200")
        await designed(pilot)
        assert app.editor is not None
        c = app.editor.inputs.site.cluster
        assert (c.server, c.rack, c.rack_low_density) == ("dgx-b200", "dgx-b200-x2", "dgx-b200-x2")
        assert app.result is not None and not [v for v in app.result.design.violations if v.kind == "rack_kw"]
        await pilot.press("ctrl+z")
        await designed(pilot)
        c = app.editor.inputs.site.cluster
        assert (c.server, c.rack, c.rack_low_density) == ("dgx-h100", "dgx-h100-x4", "dgx-h100-x2")


@sync
async def test_middle_of_rack_is_refused_where_no_rack_has_room_for_a_leaf(tmp_path: Path) -> None:
    site = copy_site("gb200-hall", tmp_path)
    app = DCLayoutApp(site)
    async with app.run_test(size=(160, 40)) as pilot:
        await designed(pilot)
        await pilot.press("C")
        shown = options(app)
        assert (
            shown["design"][1] and "no rack template of gb200-nvl72 has room for a leaf" in shown["design"][0]
        )
        await pilot.press("escape")
        text = site.read_text()
        await pilot.press("d")  # the toggle says so too, and changes nothing
        await pilot.pause()
        assert app.editor is not None and app.editor.inputs.site.cluster.design == "rail"
        assert site.read_text() == text and not app.editor.dirty


@sync
async def test_the_ab_view_sets_every_figure_beside_the_site_as_saved(tmp_path: Path) -> None:
    """Issue 28: B shows the design now beside the site as saved (opened), figure by figure."""
    from layout.figures import SPECS
    from layout.tui.screens.compare import CompareScreen

    site = copy_site("superpod-4su", tmp_path)
    app = DCLayoutApp(site)
    async with app.run_test(size=(160, 48)) as pilot:
        await designed(pilot)
        await pilot.press("p", *["backspace"] * 4, "3", "0", "enter")
        await designed(pilot)
        await pilot.press("B")
        assert isinstance(app.screen, CompareScreen)
        table = app.screen.query_one("#compare").content  # type: ignore[attr-defined]
        cells = [[str(c) for c in col._cells] for col in table.columns]
        assert cells[0] == [spec.label for spec in SPECS]  # every headline figure, in order
        at = cells[0].index("racks")
        assert [col[at] for col in cells[1:]] == ["47", "79", "▲ 32"]
        assert cells[3][cells[0].index("GPUs")] == ""  # what did not move shows no move
        await pilot.press("B")
        assert not isinstance(app.screen, CompareScreen)
        await pilot.press("ctrl+s")  # saved: A is now this design, nothing moved
        await pilot.pause()
        await pilot.press("B")
        text = on_screen(app, "#compare")
        assert "▲" not in text and "▼" not in text
