"""What the TUI keeps between edits so that an edit's figures come back sooner: the fabric when the cluster
did not change (in the session's design cache), the recent designs for undo and redo, the site tree's
nodes when only figures changed, the racks of the previous design while the next one runs. Each must be invisible in what is shown."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_tui import choose, copy_site, designed, sync
from textual.widgets import Tree

from layout import design
from layout.load import load_site
from layout.siteedit import SetCluster, SetHall, SiteEditor
from layout.tui.app import DCLayoutApp
from layout.tui.floor import hall_floors, with_design_of
from layout.tui.session import Session, compute
from layout.tui.widgets.site_tree import plan


@pytest.fixture
def superpod(tmp_path: Path) -> Path:
    return copy_site("superpod-4su", tmp_path)


def test_the_sessions_cache_reuses_the_fabric_only_for_the_same_cluster(
    superpod: Path, same_design: Callable[[Any, Any], None]
) -> None:
    session = Session()
    session.open(superpod)
    first = session.design()
    assert session.compute(session.inputs, session.text).design.fabric is first.design.fabric
    assert design.run(session.inputs).fabric is not first.design.fabric  # a run without the cache: its own
    # 30 kW per rack: other racks and rows, the same cluster, so the same fabric, and the same design as
    # a run that builds its own
    session.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    kw30 = session.design().design
    assert kw30.fabric is first.design.fabric
    same_design(kw30, design.run(session.inputs))
    # middle-of-rack: another cluster, another fabric
    session.apply(SetCluster("design", "mor"))
    mor = session.design().design
    assert mor.fabric is not first.design.fabric
    same_design(mor, design.run(session.inputs))
    # back to rail-optimized (undo): the first fabric again, not a new build
    session.undo()
    assert session.compute(session.inputs, session.text).design.fabric is first.design.fabric
    # another session has a cache of its own
    other = Session()
    other.open(superpod)
    assert other.design().design.fabric is not first.design.fabric


def test_a_result_is_freed_by_reference_counting(superpod: Path) -> None:
    """settle_gc freezes the first design: that is only free of leaks while a Result (design, views and
    all) holds no reference cycle."""
    inputs = load_site(superpod)
    result = compute(inputs, superpod.read_text())
    alive = weakref.ref(result), weakref.ref(result.design), weakref.ref(result.floors["B1/H1"])
    was = gc.isenabled()
    gc.disable()
    try:
        del result
        assert [ref() for ref in alive] == [None, None, None]
    finally:
        if was:
            gc.enable()


@sync
async def test_undo_and_redo_show_the_recent_design_without_a_run(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        first = app.result
        await pilot.press("p", *"30", "enter")
        await designed(pilot)
        second = app.result
        assert second is not first and second is not None and first is not None
        await pilot.press("ctrl+z")
        assert app.result is first and not app.designing  # shown at once: no worker started
        assert app.floors is first.floors
        await pilot.press("ctrl+y")
        assert app.result is second and not app.designing
        assert app.editor is not None
        assert second.summary == design.run(app.editor.inputs).summary()
        # an edit to a text not designed yet runs the pipeline
        await pilot.press("p", *"35", "enter")
        assert app.designing or app.result not in (first, second)
        await designed(pilot)
        assert app.result is not None and app.result not in (first, second)
        assert len(app.recent) == 3


@sync
async def test_tree_keeps_its_nodes_when_only_figures_change(superpod: Path) -> None:
    app = DCLayoutApp(superpod)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        tree = app.query_one("#tree", Tree)
        hall_node = tree.root.children[0].children[0]
        rows = list(hall_node.children)
        hall_node.collapse()  # what the user did stays so
        await pilot.press("i")
        await choose(pilot, "cedar7")
        await designed(pilot)
        assert app.result is not None and app.editor is not None
        assert tree.root.children[0].children[0] is hall_node and list(hall_node.children) == rows
        assert not hall_node.is_expanded
        want = plan(app.editor.inputs, app.result.tree_rows, app.hall)[0].children[0]
        assert [str(n.label) for n in rows] == [p.label for p in want.children]

        # 30 kW per rack: twice the racks, other rows: the hall gets its rows again, the hall's own node
        # (collapsed by the user) stays as it is
        await pilot.press("p", *"30", "enter")
        await designed(pilot)
        await pilot.pause()  # the nodes follow the figures a frame later
        hall_now = tree.root.children[0].children[0]
        assert hall_now is hall_node and "30 kW" in str(hall_now.label) and not hall_now.is_expanded
        assert not set(hall_now.children) & set(rows)
        assert [(str(n.label), n.data) for n in hall_now.children] == [
            (label, ("row", rid)) for _, rid, label in app.result.tree_rows
        ]


def test_floors_of_an_edit_show_the_previous_racks_until_its_design_is_done(superpod: Path) -> None:
    editor = SiteEditor(superpod)
    before = compute(editor.inputs, editor.text)
    editor.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    floors = with_design_of(hall_floors(editor.inputs), before.floors)
    assert floors["B1/H1"].racks is before.floors["B1/H1"].racks
    assert floors["B1/H1"].trays is before.floors["B1/H1"].trays
    assert floors["B1/H1"].max_rack_kw == 30.0  # the hall itself is the edited one
    # the same as drawing the new inputs with the previous design from scratch
    fresh = hall_floors(editor.inputs, before)
    pd.testing.assert_frame_equal(floors["B1/H1"].racks, fresh["B1/H1"].racks)


@sync
async def test_an_edit_of_one_hall_gives_only_that_hall_new_row_nodes(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("seed002-32k", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        tree = app.query_one("#tree", Tree)
        assert app.hall == "B1/H1"
        before = {str(n.data): n for n in _nodes(tree.root)}
        await pilot.press("p", *"60", "enter")  # B1/H1 30 -> 60 kW: 4 servers a rack, 43 -> 29 rows
        await designed(pilot)
        await pilot.pause()
        assert app.result is not None
        after = {str(n.data): n for n in _nodes(tree.root)}
        edited = [rid for hall, rid, _ in app.result.tree_rows if hall == "B1/H1"]
        old = [k for k in before if "B1/H1/" in k]
        assert (len(edited), len(old)) == (29, 43)  # the edit changed the hall's rows
        for key, node in after.items():
            if "B1/H1/" in key:
                assert node is not before.get(key), key  # the edited hall's rows: made again
            else:
                assert node is before[key], key  # every other node: the very same
        labels = {rid: label for _, rid, label in app.result.tree_rows}
        for node in after.values():
            if node.data is not None and node.data[0] == "row":
                assert str(node.label) == labels[node.data[1]]


def _nodes(node: Any) -> list[Any]:
    return [node, *(n for c in node.children for n in _nodes(c))]
