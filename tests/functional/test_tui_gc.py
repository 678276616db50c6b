"""The TUI leaves full garbage collections out of its design runs (layout.tui.results.settle_gc) and makes
one when it has shown a design and nothing runs (DCLayoutApp.collect_garbage)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_tui import copy_site, designed, sync

from layout.tui.app import DCLayoutApp
from layout.tui.results import FULL_COLLECTIONS_NEVER


@pytest.fixture(autouse=True)
def gc_as_it_was() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()


@sync
async def test_no_automatic_full_collection_after_the_first_design_and_one_when_idle(tmp_path: Path) -> None:
    young = gc.get_threshold()[:2]
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    app.IDLE_COLLECT_S = 0.2
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert gc.get_threshold()[2] == FULL_COLLECTIONS_NEVER
        assert gc.get_threshold()[:2] == young  # the young generations are collected as before
        assert gc.get_freeze_count() > 0
        before = app.idle_collections
        await pilot.press("p", *"30", "enter")  # a design runs: the collection waits for it
        await designed(pilot)
        collected = app.idle_collections
        await asyncio.sleep(0.5)
        await pilot.pause()
        assert app.idle_collections >= collected + 1 > before


def test_young_collections_paused_restores_the_collector_as_it_was() -> None:
    from layout.tui.results import young_collections_paused

    assert gc.isenabled()
    with young_collections_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), young_collections_paused():
        raise ValueError("a failed design")
    assert gc.isenabled()
    with young_collections_paused(False):
        assert gc.isenabled()
    gc.disable()
    try:
        with young_collections_paused():
            pass
        assert not gc.isenabled()  # it was off: it stays off
    finally:
        gc.enable()


@sync
async def test_the_design_runs_after_the_first_have_no_collections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from layout.tui import session as session_mod

    seen: list[bool] = []
    compute = session_mod.Session.compute

    def recording(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return compute(self, *args, **kwargs)

    monkeypatch.setattr(session_mod.Session, "compute", recording)
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("p", *"30", "enter")
        await designed(pilot)
        assert gc.isenabled()  # the UI thread's collector is on between runs
    assert seen == [True, False]  # the first run before settle_gc, the edit's without collections


@sync
async def test_the_idle_collection_waits_while_the_cursor_moves(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    app.IDLE_COLLECT_S = 0.4
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await asyncio.sleep(0.6)  # the first design's collection
        await pilot.pause()
        await pilot.press("p", *"30", "enter")
        await designed(pilot)
        done = app.idle_collections
        for key in ["right", "left"] * 5:  # ~0.1 s apart: never 0.4 s at rest
            await pilot.press(key)
            await asyncio.sleep(0.1)
        assert app.idle_collections == done
        await asyncio.sleep(0.6)
        await pilot.pause()
        assert app.idle_collections == done + 1
